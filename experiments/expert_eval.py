"""Evaluates a network made by expert iteration (docs/labels.md) on eval-v1:
experiments/expert_baibian.md.

    python experiments/expert_eval.py --model runs/distill_baibian/model.safetensors --name round0
    python experiments/expert_eval.py --model M --name quick --deals 200 --search-deals 50 --out /tmp/ev

Duplicate deals of the fixed evaluation set eval-v1 (never the labels' deals, nor the
seed-1 deals that chose the checkpoint), each pair's interval treating a duplicate pair
as one unit (the arena's):
  - the network alone (`dmc:MODEL`) and its guided search (`dmc:MODEL+search`) against
    `heuristic` (--deals) and `search` (--search-deals; the frozen reference: 128 rollouts
    a decision, eval-v1's seed, this build);
  - the shipped `dmc` against the network (--deals);
  - the coverage: on --coverage-deals labelled deals of fresh seeds, how often the
    network's best play lies outside the labelled candidates;
  - how often `dmc:MODEL+search` searches (its counters), and its speed and the
    network's on one thread.
Writes OUT/NAME.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import shuangkou as sk
from shuangkou import _core

VARIANT = "baibian"
ROOT = Path(__file__).resolve().parents[1]


def repo_relative(value):
    """`value` (JSON data) with every path inside this repository written relative to its
    root, so that a result kept in experiments/ names no folder of the machine that
    measured it; the scripts that read one back resolve it against the root (`in_repo`)."""
    if isinstance(value, dict):
        return {k: repo_relative(v) for k, v in value.items()}
    if isinstance(value, list):
        return [repo_relative(v) for v in value]
    return value.replace(f"{ROOT}/", "") if isinstance(value, str) else value


def in_repo(path: str) -> Path:
    """A path as a result records it (`repo_relative`): relative ones are the repository's."""
    return ROOT / path


def write_result(path: Path, result: dict) -> None:
    """Writes a result as JSON, its repository paths relative (`repo_relative`)."""
    path.write_text(json.dumps(repo_relative(result), indent=1) + "\n", encoding="utf-8")


def pair(agents: list, deals: int, threads: int, variant: str = VARIANT, seed: int | None = None) -> dict:
    """One arena pair on the first `deals` of eval-v1 (or, given a seed, deals 0..deals-1
    of that seed): WP, ADP and their intervals."""
    start = time.perf_counter()
    which = {"deals": f"eval-v1:{deals}"} if seed is None else {"deals": deals, "seed": seed}
    r = sk.arena(variant, agents=agents, threads=threads, **which)
    p = r["pairs"][0]
    keep = ("a", "b", "deals", "wp", "wp_ci", "adp", "adp_ci")
    return {**{k: p[k] for k in keep if k in p}, "seconds": round(time.perf_counter() - start, 1)}


def coverage(model: str, deals: int, threads: int) -> dict:
    """How often the network's best play lies outside the labelled candidates (round-0
    labelling settings, the network as probe, deals from a seed of their own)."""
    r = _core.label_deals(
        VARIANT,
        deals,
        ["heuristic", f"dmc:{model}"],
        [1, 1],
        seed=77,
        threads=threads,
        guide="dmc",
        probe=f"dmc:{model}",
        worlds=4,
    )
    outside = float(np.mean(r["probe_best"] < 0))
    return {"decisions": int(len(r["deal"])), "outside": outside}


def speed(agent: str, deals: int, variant: str = VARIANT) -> dict:
    """The agent in every seat on one thread: decisions a second (and its counters)."""
    bot = sk.Bot(agent)
    start = time.perf_counter()
    res = sk.selfplay(variant, games=deals, agents=bot, threads=1, seed=0)
    seconds = time.perf_counter() - start
    actions = int(res.arrays["actions"].sum())
    return {
        "deals": deals,
        "seconds": round(seconds, 2),
        "actions_per_s": round(actions / seconds),
        "counters": dict(bot.counters()),
    }


def value_gaps(model: str, deals: int, variant: str = VARIANT) -> tuple[np.ndarray, int]:
    """The gaps between the network's two best values at the decisions of `deals` deals it
    plays in every seat where its guided search may search (two or more legal actions, no
    play that empties the hand), and the decisions with a legal play (the guided search's
    count)."""
    bot = sk.Bot(f"dmc:{model}")
    gaps, decisions = [], 0
    for i in range(deals):
        g = sk.Game(variant, seed=1_000 + i)
        while not g.is_over():
            moves = g.legal_moves()
            if moves:
                decisions += 1
                left = len(g.hand(g.current_player()).split())
                going_out = any(len(m.cards.split()) == left for m in moves)
                values = sorted(bot.values(g).values(), reverse=True)
                if len(values) >= 2 and not going_out:
                    gaps.append(values[0] - values[1])
            g.apply_action(bot.step(g))
    return np.array(gaps), decisions


def gate_for(gaps: np.ndarray, decisions: int, share: float) -> float:
    """The gate under which `share` of the `decisions` fall, from value_gaps' gaps (the
    decisions it never searches count as above every gate)."""
    return float(np.quantile(gaps, min(1.0, share * decisions / len(gaps))))


def with_gate(source: Path, gate: float, path: Path) -> Path:
    """A copy of `source` whose guided search uses `gate` (metadata search_gap)."""
    path.write_bytes(_core.QNet.load(str(source)).with_metadata({"search_gap": f"{gate:.6g}"}).to_bytes())
    return path


def calibrate(model: str, share: float, deals: int, out: Path, variant: str = VARIANT) -> dict:
    """The gap at which the network's guided search searches `share` of its decisions (as
    the shipped network's did at its fixed gap), written into a copy of the model file
    (metadata "search_gap")."""
    gaps, decisions = value_gaps(model, deals, variant)
    gap = gate_for(gaps, decisions, share)
    calibrated = with_gate(Path(model), gap, out / (Path(model).stem + "_gap.safetensors"))
    return {"share": share, "gap": gap, "decisions": decisions, "eligible": len(gaps), "model": str(calibrated)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="the network's model file")
    parser.add_argument("--name", required=True, help="names OUT/NAME.json")
    parser.add_argument("--deals", type=int, default=10_000, help="pairs without search")
    parser.add_argument("--search-deals", type=int, default=1_000, help="pairs with search")
    parser.add_argument("--coverage-deals", type=int, default=64)
    parser.add_argument("--speed-deals", type=int, default=100)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--skip-guided-search", action="store_true", help="leave out dmc:MODEL+search vs search")
    parser.add_argument(
        "--search-share",
        type=float,
        default=0.43,
        help="calibrate the guided search's gap so that it searches this share of its decisions (the shipped "
        "network's share at the old fixed gap, experiments/dmc_search.md); 0: keep the model's",
    )
    parser.add_argument("--out", default=str(Path(__file__).parent / "expert_baibian"))
    args = parser.parse_args()
    model, t = args.model, args.threads
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = {"model": model, "variant": VARIANT, "build": _core.ARCH, "version": sk.__version__}
    if args.search_share:
        result["calibration"] = calibrate(model, args.search_share, 100, out)
        model = result["calibration"]["model"]
    net = f"dmc:{model}"
    result["coverage"] = coverage(model, args.coverage_deals, t)
    pairs = [
        ([net, "heuristic"], args.deals),
        ([net, "dmc"], args.deals),
        ([net + "+search", "heuristic"], args.deals),
        ([net, "search"], args.search_deals),
    ]
    if not args.skip_guided_search:
        pairs.append(([net + "+search", "search"], args.search_deals))
    result["pairs"] = []
    for agents, deals in pairs:
        result["pairs"].append(pair(agents, deals, t))
        print(json.dumps(result["pairs"][-1]), flush=True)
    result["speed"] = {"network": speed(net, args.speed_deals), "guided": speed(net + "+search", args.speed_deals)}
    write_result(out / f"{args.name}.json", result)
    print(json.dumps({k: v for k, v in result.items() if k != "pairs"}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
