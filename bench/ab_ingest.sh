#!/bin/bash
# First ingests of the olake Slack export by two checkouts, alternated, each on a fresh BRIEF_HOME (a script, not a
# timed test), with the project's virtualenv active. BASE and NEW are checkout roots; EXPORT a Slack export folder.
#   git archive 56e96fa | tar -x -C /tmp/base; BASE=/tmp/base NEW=$PWD ROUNDS=3 bench/ab_ingest.sh
set -e
mkdir -p /tmp/brief-ab
printf '[workspace]\nname = "bench"\n\n[sources.slack]\ntype = "slack_export"\npath = "%s"\n' \
  "${EXPORT:-/work/shared/corpora/olake/slack}" > /tmp/brief-ab/brief.toml
for round in $(seq "${ROUNDS:-1}"); do
  for side in base new; do
    if [ $side = base ]; then R=$BASE; else R=$NEW; fi
    rm -rf /tmp/brief-ab/home-$side
    BRIEF_HOME=/tmp/brief-ab/home-$side PYTHONPATH=$R/src:$R nice -n 10 python $R/bench/ingest_bench.py --step ingest /tmp/brief-ab/brief.toml | tail -1 | sed "s/^/$side $round load=$(cut -d' ' -f1 /proc/loadavg) /"
  done
done
