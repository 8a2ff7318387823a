"""Leave one corpus out for the learned answer stage, trained on probes and dev cases, replayed on frozen retrievals.

Each `--corpus NAME=CONFIG:HOME:SAVED` is read three ways, each cached under `--cache`: its dev set's frozen
retrievals (`eval/answer_replay.py collect`), featurised through the answer node (`featurise_saved`); up to
`--probes` questions read from its conversations and items and asked through brief (`featurise_probes`); and,
with `--structure N`, N structure questions (`train_answer_model.featurise`). A corpus's group is its name up to
the first underscore (`olake_github` goes with `olake`). For each group in `--hold`, a model is fitted on every
other group except those named by `--never` (never trained on: evaluated with the model fitted on all the
others), written to `--out/m_no_<group>.json`, and each held dev set is replayed with the rules, the learned
ranker (the rules' refusal) and the learned ranker and refusal. Printed: per set and split (train half: odd ids;
held-out half: even ids), recall@10 / MRR / keywords / citation precision / balanced refusal and the cases better
and worse than the rules; and the reciprocal rank of the resolving unit (rules, model alone, blended) per set.

    python eval/loco_probes.py --cache C --out O --learner trees --hold timob --hold mls --never mail \\
        --corpus timob=timob.toml:timob-home:timob.pkl --corpus mail=mail.toml:mail-home:mail.pkl ...
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import answer_model_trees  # noqa: E402
from answer_model_fit import blended, fit, group_of, mrr, write  # noqa: E402
from answer_model_probes import featurise_probes, featurise_saved  # noqa: E402
from answer_replay import replay  # noqa: E402
from loco_learned import SHOWN, changed  # noqa: E402
from split_report import figures, held_out  # noqa: E402
from train_answer_model import featurise, held_out_id  # noqa: E402

RUNS = {"rules": {}, "ranker": {"ranker": "learned"}, "both": {"ranker": "learned", "refusal": "learned"}}
SPLITS = {"all": None, "train half": lambda i: not held_out(i), "held-out half": held_out}


def _replay(config: str, home: str, saved: str, model: Path | None, run: str, out: Path) -> dict[str, Any]:
    """The answer node replayed over `saved` under one of RUNS, cached in `out`."""
    if not out.exists():
        os.environ["BRIEF_HOME"] = home
        answer = {**RUNS[run], **({"ranker_model": str(model)} if run != "rules" else {})}
        replay(Path(config), Path(saved), out, None, overrides={"answer": answer} if answer else None)
    return {"cases": json.loads(out.read_text())}


def _row(name: str, run: str, data: dict[str, Any], base: dict[str, Any], keep: Any) -> str:
    cases = [c for c in data["cases"] if keep is None or keep(c["id"])]
    f = figures(cases)
    better, worse = changed(base, data, keep)
    cells = " | ".join("-" if f[k] is None else f"{f[k]:.3f}" for k in SHOWN)
    return f"| {name} | {run} | {len(cases)} | {cells} | +{better} / -{worse} |"


def _ranks(corpus: Any, model: Any) -> str:
    """The resolving unit's mean reciprocal rank: the rules', the model's alone, the model's blended lead."""
    alone = [model.ranker.probability(x) for x in corpus.rows]
    mixed = [blended(r, p, model.blend) for r, p in zip(corpus.rules, alone, strict=True)]
    return f"{mrr(corpus, corpus.rules):.3f} / {mrr(corpus, alone):.3f} / {mrr(corpus, mixed):.3f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", action="append", required=True, help="NAME=CONFIG:HOME:SAVED (repeat)")
    ap.add_argument("--hold", action="append", default=[], help="groups to leave out in turn")
    ap.add_argument("--never", action="append", default=[], help="groups never trained on")
    ap.add_argument("--no-probes", action="append", default=[], help="NAME whose probes are not read")
    ap.add_argument("--kinds", default="", help="comma-separated probe kinds to keep (thread, item:said, ...)")
    ap.add_argument("--half", action="append", default=[], help="NAME whose dev cases train on their odd ids only")
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--learner", choices=("linear", "trees"), default="trees")
    ap.add_argument("--probes", type=int, default=1500, help="probes per corpus (0: none)")
    ap.add_argument("--structure", type=int, default=0, help="structure questions per corpus (0: none)")
    ap.add_argument("--top", type=int, default=None, help="trees: train on the rules' TOP lines of each question")
    ap.add_argument(
        "--blend",
        type=float,
        default=None,
        help="force the blend (a diagnosis: how far following the "
        "model moves the answers), instead of the one chosen on the training corpora",
    )
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--real-weight", type=float, default=5.0)
    args = ap.parse_args(argv)
    answer_model_trees.TOP = args.top
    specs = {n: s.split(":") for n, s in (c.split("=", 1) for c in args.corpus)}
    data: list[Any] = []
    for name, (config, home, saved) in specs.items():
        found = featurise_saved(f"{config}:{home}:{saved}:dev_{name}", cache=args.cache)
        data.append(found.only([not held_out_id(i) for i in found.ids]) if name in args.half else found)
        if group_of(name) in args.never:
            continue
        if args.probes and name not in args.no_probes:
            probes = featurise_probes(f"{config}:{home}:{name}", n=args.probes, seed=args.seed, cache=args.cache)
            probes.name = f"{name}_probes"
            if args.kinds:
                kinds = tuple(args.kinds.split(","))
                probes = probes.only([i.startswith(kinds) for i in probes.ids])
            data.append(probes)
        if args.structure and name != "sample":
            data.append(featurise(f"{config}:{home}:{name}", seed=args.seed, limit=args.structure, cache=args.cache))
    args.out.mkdir(parents=True, exist_ok=True)
    lines = [
        "| set | run | cases | recall@10 | MRR | keywords | cite P | refusal (bal.) | vs rules |",
        "|" + "---|" * 9,
    ]
    ranks = ["| set | examples | reciprocal rank: rules / model / blended | blend |", "|---|---|---|---|"]
    folds = [*args.hold, *(["+".join(args.never)] if args.never else [])]
    for fold in folds:
        out = set(fold.split("+")) | set(args.never)
        train = [c for c in data if group_of(c.name) not in out]
        held = [c for c in data if group_of(c.name) in fold.split("+")]
        model, report = fit(train, held, seed=args.seed, limit=args.probes, real_weight=args.real_weight,
                            learner=args.learner)  # fmt: skip
        if args.blend is not None:
            model = replace(model, blend=args.blend, provenance={**model.provenance, "blend_forced": args.blend})
        model.provenance["train_half_only"] = sorted(f"dev_{n}" for n in args.half)
        model.provenance["probes"] = args.probes
        path = args.out / f"m_no_{fold}.json"
        write(model, path)
        print(json.dumps({fold: {k: v for k, v in report.items() if v["role"] == "held-out"}}), file=sys.stderr)
        for c in held:
            ranks.append(f"| {c.name} (no {fold}) | {len(c.rows)} | {_ranks(c, model)} | {model.blend} |")
        for name, (config, home, saved) in specs.items():
            if group_of(name) not in fold.split("+"):
                continue
            runs = {r: _replay(config, home, saved, path, r, args.out / f"{name}-{r}-no_{fold}.json") for r in RUNS}
            for split, keep in SPLITS.items():
                if split != "all" and name in ("olake", "olake_github", "sample", "mail"):
                    continue
                for run, result in runs.items():
                    lines.append(_row(f"{name} {split}", run, result, runs["rules"], keep))
    print("\n".join(lines))
    print("\n".join(ranks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
