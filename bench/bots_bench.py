"""Decisions per second of each built-in bot, on 1 thread and on every core.

    python bench/bots_bench.py --write experiments/benchmarks.md

Each row plays deals of one variant with the same bot at all four seats through
`sk.selfplay` (the C++ runner: dealing, move generation and scoring included) and
divides the actions played by the wall-clock time; `dmc` is the network the package
ships (docs/dmc_model.md), `dmc+search` the same with its guided search. The search
bots play far fewer
deals. A second table times the search bot's main use: duplicate deals against the
heuristic through `sk.arena`.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import shuangkou as sk

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import replace_section  # noqa: E402

BEGIN = "<!-- bots:begin -->"
END = "<!-- bots:end -->"
BOTS = [
    ("random", 40_000),
    ("simple", 40_000),
    ("greedy", 40_000),
    ("heuristic", 10_000),
    ("dmc", 2_000),
    ("dmc+search", 60),
    ("search", 12),
]


def decisions_per_s(variant: str, bot: str, games: int, threads: int) -> float:
    sk.selfplay(variant, games=min(games, 200), agents=bot, threads=threads, seed=99)  # warm the memo tables
    t = time.perf_counter()
    r = sk.selfplay(variant, games=games, agents=bot, threads=threads, seed=1)
    elapsed = time.perf_counter() - t
    return float(r.arrays["actions"].sum()) / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default="baibian,qianbian")
    parser.add_argument("--arena-deals", type=int, default=100, help="duplicate deals of search vs heuristic")
    parser.add_argument("--write", default=None, help="markdown report to update (its bots section)")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    threads_list = sorted({1, cores})
    lines = [
        BEGIN,
        "",
        f"`python bench/bots_bench.py` on {cores} cores ({platform.processor() or platform.machine()}), "
        f"shuangkou {sk.__version__} ({sk._core.ARCH} build): decisions per second with the bot at all four seats (self-play in C++, "
        "dealing and scoring included).",
        "",
        "| variant | bot | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in threads_list) + " |",
        "| --- | --- |" + " ---: |" * len(threads_list),
    ]
    for variant in args.variants.split(","):
        for bot, games in BOTS:
            cells = []
            for threads in threads_list:
                rate = decisions_per_s(variant, bot, games * threads, threads)
                cells.append(f"{rate:,.0f}")
                print(f"{variant} {bot} {threads} threads: {rate:,.0f} decisions/s", file=sys.stderr)
            lines.append(f"| {variant} | {bot} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"The search bot in its main use, `sk.arena(agents=['search', 'heuristic'], deals={args.arena_deals})` on "
        f"{cores} threads (two search seats and two heuristic seats a deal, both halves of each duplicate pair):",
        "",
        "| variant | duplicate deals | seconds | seconds per 1,000 duplicate deals |",
        "| --- | ---: | ---: | ---: |",
    ]
    for variant in args.variants.split(","):
        t = time.perf_counter()
        sk.arena(variant, agents=["search", "heuristic"], deals=args.arena_deals, seed=5)
        s = time.perf_counter() - t
        lines.append(f"| {variant} | {args.arena_deals:,} | {s:.1f} | {1000 * s / args.arena_deals:,.0f} |")
        print(f"{variant} arena search vs heuristic: {s:.1f} s", file=sys.stderr)
    lines += ["", END]
    text = "\n".join(lines)
    print(text)
    if args.write:
        replace_section(args.write, BEGIN, END, text, "## Bots")
    return 0


if __name__ == "__main__":
    sys.exit(main())
