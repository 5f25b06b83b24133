"""The guided search `dmc+search` on eval-v1: experiments/dmc_search.md.

    python experiments/dmc_search.py                         # the report as committed (about 25 min on 2 cores)
    python experiments/dmc_search.py --deals 200 --slow-deals 50 --out /tmp/dmc_search   # a quick look

A round robin of random, greedy, heuristic, search, dmc and dmc+search in baibian on
the fixed evaluation set eval-v1 (duplicate deals, `team_formation: fixed`):
  - dmc and dmc+search against heuristic play --target-deals deals (the targets' figures);
  - dmc and dmc+search against search play --target-deals-search;
  - every other pair without `search` plays --deals;
  - every other pair with `search` (200 decisions a second a core) plays --slow-deals.
Then the speed of dmc+search on one thread (itself in every seat) and how often it
searched. The pairs are combined into one round robin (win-rate matrix, Bradley-Terry
ratings) with its plots in OUT/dmc_search/.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

import shuangkou as sk
from shuangkou import _core
from shuangkou.runs.arena import arena_rules, combine
from shuangkou.runs.arena_report import outcomes_table, pairs_table, plot_score_diff, plot_winrate, ratings_table
from tqdm import tqdm

VARIANT = "baibian"
DISCUSSION = "<!-- discussion -->"
LABELS = ["dmc+search", "dmc", "search", "heuristic", "greedy", "random"]  # each pair from the first one's side


def pair_deals(a: str, b: str, args: argparse.Namespace) -> int:
    """The pairs of a target play the target's deals; the others fewer."""
    if a in ("dmc", "dmc+search") and b == "heuristic":
        return args.target_deals
    if a in ("dmc", "dmc+search") and b == "search":
        return args.target_deals_search
    return args.slow_deals if "search" in (a, b) else args.deals


def speed(deals: int) -> dict:
    """dmc+search in every seat on one thread: decisions a second, searched share."""
    bot = sk.Bot("dmc+search")
    t = time.perf_counter()
    sk.selfplay(VARIANT, games=deals, agents=bot, threads=1, seed=0)
    elapsed = time.perf_counter() - t
    c = bot.counters()
    return {"deals": deals, "seconds": elapsed, **c, "decisions_per_s": c["decisions"] / elapsed}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target-deals", type=int, default=10_000, help="dmc and dmc+search vs heuristic")
    parser.add_argument("--target-deals-search", type=int, default=2_000, help="dmc and dmc+search vs search")
    parser.add_argument("--deals", type=int, default=2_000, help="every other pair without search")
    parser.add_argument("--slow-deals", type=int, default=500, help="every other pair with search")
    parser.add_argument("--speed-deals", type=int, default=200, help="deals of the one-thread speed run")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--out", default=str(Path(__file__).parent), help="folder for dmc_search.md and dmc_search/")
    args = parser.parse_args()
    out = Path(args.out)
    plots = out / "dmc_search"
    plots.mkdir(parents=True, exist_ok=True)
    threads = args.threads or None

    todo = [(a, b) for i, a in enumerate(LABELS) for b in LABELS[i + 1 :]]
    pairs, arrays, seconds, searched = [], {}, {}, {}
    start = time.perf_counter()
    total = 2 * sum(pair_deals(a, b, args) for a, b in todo)  # (both halves of each duplicate deal)
    with tqdm(total=total, unit="deal", desc="round robin, deals (both halves)") as bar:
        for a, b in todo:
            deals = pair_deals(a, b, args)
            bar.set_postfix_str(f"{a} vs {b}")
            done = {"n": 0}

            def progress(n: int, total: int, done: dict = done) -> None:
                bar.update(n - done["n"])
                done["n"] = n

            bots = [sk.Bot(a), sk.Bot(b)]
            t = time.perf_counter()
            r = sk.arena(VARIANT, agents=bots, deals=f"eval-v1:{deals}", threads=threads, progress=progress)
            seconds[f"{a} vs {b}"] = time.perf_counter() - t
            pairs += r["pairs"]
            arrays.update(r.arrays)
            if a == "dmc+search":
                searched[b] = bots[0].counters()
    result = combine(
        VARIANT,
        arena_rules(VARIANT),
        LABELS,
        pairs,
        arrays,
        {"seed": 0, "deals": args.deals, "eval_set": "eval-v1", "threads": args.threads},
    )
    result["timing_s"] = seconds
    result["searched"] = searched
    result["speed"] = speed(args.speed_deals)
    elapsed = time.perf_counter() - start
    plot_winrate(result, plots / "winrate.png")
    plot_score_diff(result, plots / "score_diff.png")
    (plots / "results.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    path = out / "dmc_search.md"
    keep = ""  # the hand-written discussion below the marker stays
    if path.exists() and DISCUSSION in path.read_text(encoding="utf-8"):
        keep = path.read_text(encoding="utf-8").split(DISCUSSION, 1)[1].lstrip("\n")
    path.write_text(report(result, args, elapsed) + keep, encoding="utf-8")
    print(f"wrote {out / 'dmc_search.md'} and {plots}/")
    return 0


def report(result: dict, args: argparse.Namespace, elapsed: float) -> str:
    by = {(p["a"], p["b"]): p for p in result["pairs"]}
    mark = lambda ok: "met" if ok else "**not met**"  # noqa: E731
    sh, ss = by[("dmc+search", "heuristic")], by[("dmc+search", "search")]
    dh, ds = by[("dmc", "heuristic")], by[("dmc", "search")]
    sp = result["speed"]
    ci = lambda p: f"{p['wp']:.3f} ({p['wp_ci'][0]:.3f}–{p['wp_ci'][1]:.3f})"  # noqa: E731
    command = "python experiments/dmc_search.py" + "".join(f" {a}" for a in sys.argv[1:])
    lines = [
        "# The guided search `dmc+search` in the arena",
        "",
        f"Generated by `{command}` ({elapsed / 60:.0f} min on {os.cpu_count()} cores, "
        f"{platform.processor() or platform.machine()}, shuangkou {sk.__version__}, "
        f"{datetime.date.today().isoformat()}).",
        "",
        "`dmc` is the shipped baibian network with its heuristic prior ([docs/dmc_model.md](../docs/dmc_model.md)), "
        "one forward pass a decision; `dmc+search` is the same network with its close choices checked by "
        "determinized rollouts ([docs/heuristic.md](../docs/heuristic.md#dmcsearch)). The reference `search` is "
        f"frozen: the built-in bot at 128 rollouts a decision, its rollouts seeded by each deal, build {_core.ARCH}. "
        "Every pair plays the first deals of the "
        "evaluation set `eval-v1` of baibian in duplicate; the number of deals is in each row. WP: share of "
        "duplicate pairs won on the pair's total score (ties half), 95% Wilson interval; ADP: mean score "
        "difference a deal, 95% paired t interval; ratings: Bradley-Terry on an Elo scale over all pairs.",
        "",
        "## Targets",
        "",
        "| target | measured | |",
        "| --- | ---: | --- |",
        f"| `dmc` vs `heuristic`: WP ≥ 0.65 ({dh['deals']:,} deals) | {ci(dh)} | {mark(dh['wp'] >= 0.65)} |",
        f"| `dmc` vs `search`: WP ≥ 0.40 ({ds['deals']:,} deals) | {ci(ds)} | {mark(ds['wp'] >= 0.40)} |",
        f"| `dmc+search` vs `heuristic`: WP ≥ 0.72 ({sh['deals']:,} deals) | {ci(sh)} | {mark(sh['wp'] >= 0.72)} |",
        f"| `dmc+search` vs `search`: WP ≥ 0.50 ({ss['deals']:,} deals) | {ci(ss)} | {mark(ss['wp'] >= 0.50)} |",
        f"| stretch: `dmc+search` vs `search` with its lower bound above 0.5 | {ss['wp_ci'][0]:.3f} "
        f"| {mark(ss['wp_ci'][0] > 0.5)} |",
        f"| `dmc+search` speed, for the record: decisions a second on one thread | {sp['decisions_per_s']:,.0f} | |",
        "",
        "## The round robin",
        "",
        *pairs_table(result["pairs"], deals_column=True),
        "",
        *outcomes_table(result["pairs"]),
        "",
        *ratings_table(result),
        "",
        "![win rates](dmc_search/winrate.png)",
        "",
        "![score differences](dmc_search/score_diff.png)",
        "",
        "## How often it searched",
        "",
        "| opponent | decisions | searched | search changed the network's choice |",
        "| --- | ---: | ---: | ---: |",
    ]
    for opponent, c in result["searched"].items():
        lines.append(
            f"| {opponent} | {c['decisions']:,} | {c['searched']:,} ({c['searched'] / c['decisions']:.0%}) "
            f"| {c['changed']:,} ({c['changed'] / c['decisions']:.1%}) |"
        )
    lines += [
        "",
        f"Speed: {sp['decisions']:,} decisions in {sp['seconds']:.1f} s on one thread with `dmc+search` in every "
        f"seat ({sp['deals']} deals of seed 0): **{sp['decisions_per_s']:,.0f} decisions a second**; it searched "
        f"{sp['searched'] / sp['decisions']:.0%} of them. Time of each pair, in seconds on "
        f"{result['threads'] or os.cpu_count()} threads: "
        + ", ".join(f"{k} {v:.0f}" for k, v in result["timing_s"].items())
        + ".",
        "",
        DISCUSSION,
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
