"""Leave one corpus out for the learned answer stage: train without a corpus, evaluate on it beside the rules.

Each `--corpus NAME=CONFIG:HOME[:CASES]` is featurised once (scripts/train_answer_model.py, cached under
`--cache`): its structure (unless named by `--cases-only`) and its dev cases (when CASES is given; only the train
half of those named by `--half`). A corpus's group is its name up to the first underscore (`olake_github` is read
with `olake`: the same Slack export). For every group with dev cases, a model is fitted on every other group and
written to `--out/m_no_<group>.json`; with `--eval`, each of the group's dev sets is evaluated with the rules, the
learned ranker (rules' refusal) and the learned ranker and refusal, and the table is printed:

    python eval/loco_learned.py --cache C --out O --eval \\
        --corpus olake=olk.toml:olk-home:eval/olake_dev.jsonl --corpus clj=clj.toml:clj-home ...
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from answer_model_fit import fit, group_of, write  # noqa: E402
from split_report import figures, held_out  # noqa: E402
from train_answer_model import featurise, featurise_cases, held_out_id  # noqa: E402

RUNS = {"rules": [], "ranker": ["answer.ranker=learned"], "both": ["answer.ranker=learned", "answer.refusal=learned"]}
SHOWN = ("recall@10", "mrr@10", "keyword_correctness", "citation_precision", "balanced_refusal")


def _eval(config: str, home: str, cases: str, model: Path, run: str, out: Path) -> dict[str, Any]:
    """`brief eval --json` of `cases` under one of RUNS (the learned ones with `model`), cached in `out`."""
    if out.exists():
        return json.loads(out.read_text())  # type: ignore[no-any-return]
    sets = [a for s in RUNS[run] for a in ("--set", s)]
    if run != "rules":
        sets += ["--set", f"answer.ranker_model={model}"]
    cmd = ["nice", "-n", "10", "brief", "--config", config, "eval", cases, "--json", *sets]
    done = subprocess.run(cmd, env={**os.environ, "BRIEF_HOME": home}, capture_output=True, text=True, check=True)  # noqa: S603
    out.write_text(done.stdout)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _case_score(record: dict[str, Any]) -> float:
    """One case's answer figure for better/worse counts: keywords plus citation precision (refusal as 0 or 1)."""
    f = figures([record])
    if record.get("expected_no_answer"):
        return 1.0 if record.get("no_answer") else 0.0
    return float(f["keyword_correctness"] or 0.0) + float(f["citation_precision"] or 0.0)


def changed(base: dict[str, Any], new: dict[str, Any], keep: Any = None) -> tuple[int, int]:
    """How many cases got better and worse from `base` to `new` (`keep` picks the cases)."""
    old = {c["id"]: _case_score(c) for c in base["cases"] if keep is None or keep(c["id"])}
    now = {c["id"]: _case_score(c) for c in new["cases"] if c["id"] in old}
    return sum(now[i] > old[i] + 1e-9 for i in now), sum(now[i] < old[i] - 1e-9 for i in now)


def row(name: str, run: str, data: dict[str, Any], base: dict[str, Any], keep: Any = None) -> str:
    cases = [c for c in data["cases"] if keep is None or keep(c["id"])]
    f = figures(cases)
    better, worse = changed(base, data, keep)
    cells = " | ".join("-" if f[k] is None else f"{f[k]:.3f}" for k in SHOWN)
    return f"| {name} | {run} | {len(cases)} | {cells} | +{better} / -{worse} |"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", action="append", required=True, help="NAME=CONFIG:HOME[:CASES] (repeat)")
    ap.add_argument("--half", action="append", default=[], help="NAME whose dev cases train on their odd ids only")
    ap.add_argument("--cases-only", action="append", default=[], help="NAME whose structure is not read")
    ap.add_argument("--hold", action="append", default=[], help="groups to leave out (default: all with cases)")
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--limit", type=int, default=800)
    ap.add_argument("--real-weight", type=float, default=5.0)
    ap.add_argument("--long", action="store_true", help="keep the structure's questions whole")
    ap.add_argument("--eval", action="store_true", help="evaluate each held-out dev set (rules and learned)")
    args = ap.parse_args(argv)
    specs = dict(c.split("=", 1) for c in args.corpus)
    data: list[Any] = []
    dev: dict[str, tuple[str, str, str]] = {}
    for name, spec in specs.items():
        config, home, *cases = spec.split(":")
        if name not in args.cases_only:
            data.append(featurise(f"{config}:{home}:{name}", seed=args.seed, limit=args.limit, cache=args.cache,
                                  short=not args.long))  # fmt: skip
        if cases:
            dev[name] = (config, home, cases[0])
            found = featurise_cases(f"{config}:{home}:{cases[0]}:dev_{name}", cache=args.cache)
            data.append(found.only([not held_out_id(i) for i in found.ids]) if name in args.half else found)
    groups = args.hold or sorted({group_of(n) for n in dev})
    args.out.mkdir(parents=True, exist_ok=True)
    lines = [
        "| set | run | cases | recall@10 | MRR | keywords | cite P | refusal (bal.) | vs rules |",
        "|" + "---|" * 9,
    ]
    for g in groups:
        train = [c for c in data if group_of(c.name) != g]
        model, report = fit(train, [c for c in data if group_of(c.name) == g], seed=args.seed, limit=args.limit,
                            real_weight=args.real_weight)  # fmt: skip
        path = args.out / f"m_no_{g}.json"
        write(model, path)
        print(json.dumps({g: report}, indent=None), file=sys.stderr)
        if not args.eval:
            continue
        for name, (config, home, cases) in dev.items():
            if group_of(name) != g:
                continue
            runs = {run: _eval(config, home, cases, path, run, args.out / f"{name}-{run}-no_{g}.json") for run in RUNS}
            for run, result in runs.items():
                lines.append(row(name, run, result, runs["rules"]))
            if name in args.half:
                for run, result in runs.items():
                    lines.append(row(f"{name} held-out half", run, result, runs["rules"], keep=held_out))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
