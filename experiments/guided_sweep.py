"""The shipped baibian file's play-time settings against `search`: the first section of
experiments/expert_baibian.md.

    python experiments/guided_sweep.py                     # the guided search's (about 30 min on 2 cores)
    python experiments/guided_sweep.py --priors 0.05,0.08,0.12 --deals 1000   # the prior's (about 10 min)
    python experiments/guided_sweep.py --deals 40 --speed-deals 5 --settings 0.43:64,0.6:64 --out /tmp/gs

The shipped baibian network's guided search, at each setting SHARE:ROLLOUTS (its gate
calibrated, as stage 3's, to search SHARE of its decisions over 100 deals of its own;
ROLLOUTS a searched decision, `dmc+search:ROLLOUTS`), plays the frozen reference `search`
over --deals duplicate deals of seed --seed. Those deals choose a setting, so they are
not eval-v1 (which reports it) nor any labels' deals. Each setting's speed: itself in
every seat on one thread over --speed-deals deals of seed 0, with its searched share.
Writes OUT/results.json and OUT/guided_sweep.md.

With --priors, instead: the network with each heuristic prior (docs/dmc_model.md), one
forward pass a decision, against `search` (--deals) and `heuristic` (--heuristic-deals),
on the same seed's deals: OUT/priors.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from expert_eval import gate_for, pair, value_gaps, with_gate, write_result
from expert_eval import speed as expert_speed
from prior_eval import with_prior
from stage3_eval import sha256, shipped

VARIANT = "baibian"


def setting(text: str) -> tuple[float, int]:
    """'SHARE:ROLLOUTS' as (share, rollouts), refused unless 0 < share <= 1, rollouts >= 1."""
    try:
        share, rollouts = text.split(":")
        s, n = float(share), int(rollouts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: not SHARE:ROLLOUTS, e.g. 0.43:64") from None
    if not 0 < s <= 1 or n < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: the share must lie in (0, 1], the rollouts >= 1")
    return s, n


def speed(agent: str, deals: int) -> dict:
    """`agent` in every seat on one thread (expert_eval.speed): its counters, and decisions
    a second counted as they do (decisions with a play to choose)."""
    r = expert_speed(agent, deals, VARIANT)
    c = r["counters"]
    return {**c, "seconds": r["seconds"], "decisions_per_s": c["decisions"] / r["seconds"]}


def report(result: dict) -> str:
    """The markdown table of results.json."""
    lines = [
        "| share searched (calibrated) | gate | rollouts | WP vs `search` (95% CI) | ADP | searched | decisions/s, 1 thread |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in result["rows"]:
        p, s = r["pair"], r["speed"]
        lines.append(
            f"| {r['share']:.2f} | {r['gate']:.4f} | {r['rollouts']} | {p['wp']:.3f} ({p['wp_ci'][0]:.3f}–{p['wp_ci'][1]:.3f})"
            f" | {p['adp']:+.2f} | {s['searched'] / s['decisions']:.0%} | {s['decisions_per_s']:,.0f} |"
        )
    return "\n".join(lines)


def priors(model: Path, args: argparse.Namespace) -> dict:
    """The network with each of args.priors against search and heuristic."""
    result = {"model": model.name, "sha256": sha256(model), "seed": args.seed, "rows": []}
    for prior in args.priors:
        agent = f"dmc:{with_prior(model, prior, args.work / f'prior_{prior:g}.safetensors')}"
        row = {"prior": prior}
        for b, deals in (("search", args.deals), ("heuristic", args.heuristic_deals)):
            row[b] = pair([agent, b], deals, args.threads, VARIANT, seed=args.seed)
        print(json.dumps(row), flush=True)
        result["rows"].append(row)
        write_result(args.out / "priors.json", result)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--settings",
        type=lambda t: [setting(x) for x in t.split(",")],
        default="0.43:64,0.6:64,0.8:64,0.6:128",
        help="SHARE:ROLLOUTS,... (the guided search's share of decisions searched, its rollouts a decision)",
    )
    parser.add_argument("--deals", type=int, default=2_000, help="pairs against search, each setting")
    parser.add_argument("--seed", type=int, default=3, help="the deals' seed (not eval-v1's)")
    parser.add_argument("--speed-deals", type=int, default=100)
    parser.add_argument("--priors", type=lambda t: [float(x) for x in t.split(",")], help="the prior's sweep instead")
    parser.add_argument("--heuristic-deals", type=int, default=3_000, help="with --priors: pairs against heuristic")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "guided_sweep")
    parser.add_argument("--work", type=Path, default=Path("runs/guided_sweep"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.work.mkdir(parents=True, exist_ok=True)
    model = shipped(VARIANT)
    if args.priors:
        priors(model, args)
        return 0
    gaps, decisions = value_gaps(str(model), 100, VARIANT)
    result = {"model": model.name, "sha256": sha256(model), "seed": args.seed, "deals": args.deals, "rows": []}
    for share, rollouts in args.settings:
        gate = gate_for(gaps, decisions, share)
        agent = f"dmc:{with_gate(model, gate, args.work / f'gate_{gate:.6g}.safetensors')}+search:{rollouts}"
        row = {"share": share, "gate": gate, "rollouts": rollouts}
        row["pair"] = pair([agent, "search"], args.deals, args.threads, VARIANT, seed=args.seed)
        row["speed"] = speed(agent, args.speed_deals)
        result["rows"].append(row)
        print(report(result).splitlines()[-1], flush=True)
        write_result(args.out / "results.json", result)
    (args.out / "guided_sweep.md").write_text(report(result) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
