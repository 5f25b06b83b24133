"""The built-in bots against each other in all five variants: experiments/arena.md.

    python experiments/arena.py                                  # the full report (about an hour on 2 cores)
    python experiments/arena.py --variants classic --deals 2000 --search-deals 100 --out /tmp/arena

Every pair of random, greedy and heuristic plays --deals duplicate deals of the fixed
evaluation set eval-v1; every pair with search (at its default budget) plays the first
--search-deals of the same set, fewer because search is slow. The pairs of each variant
are combined into one round robin (win-rate matrix, Bradley-Terry ratings over all
pairs), and the report gathers the five variants with their plots (in OUT/arena/).
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
from shuangkou.runs.arena import ArenaResult, arena_rules, combine
from shuangkou.runs.arena_report import outcomes_table, pairs_table, plot_score_diff, plot_winrate, ratings_table
from tqdm import tqdm

BASE = ["heuristic", "greedy", "random"]


def run_variant(variant: str, deals: int, search_deals: int, threads: int, bar: tqdm) -> ArenaResult:
    done = {"n": 0}

    def progress(n: int, total: int) -> None:
        bar.update(n - done["n"])
        done["n"] = n

    t = time.perf_counter()
    base = sk.arena(variant, agents=BASE, deals=f"eval-v1:{deals}", threads=threads, progress=progress)
    base_s = time.perf_counter() - t
    pairs, arrays = list(base["pairs"]), dict(base.arrays)
    search_s = {}
    for other in BASE:  # search vs heuristic first
        done["n"] = 0
        t = time.perf_counter()
        r = sk.arena(
            variant, agents=["search", other], deals=f"eval-v1:{search_deals}", threads=threads, progress=progress
        )
        search_s[other] = time.perf_counter() - t
        pairs += r["pairs"]
        arrays.update(r.arrays)
    labels = ["search", "heuristic", "greedy", "random"]
    result = combine(
        variant,
        arena_rules(variant),
        labels,
        pairs,
        arrays,
        {"seed": base["seed"], "deals": deals, "eval_set": "eval-v1", "threads": threads},
    )
    result["timing_s"] = {"base_pairs": base_s, **{f"search_vs_{k}": v for k, v in search_s.items()}}
    return result


def variant_section(result: dict, folder: str) -> list[str]:
    v = result["variant"]
    t = result["timing_s"]
    return [
        f"## {v}",
        "",
        *pairs_table(result["pairs"], deals_column=True),
        "",
        *outcomes_table(result["pairs"]),
        "",
        *ratings_table(result),
        "",
        f"Time on {result['threads'] or os.cpu_count()} threads: {t['base_pairs']:.0f} s for the three pairs "
        f"without search, {t['search_vs_heuristic']:.0f} s for search vs heuristic, "
        f"{t['search_vs_greedy']:.0f} s vs greedy, {t['search_vs_random']:.0f} s vs random.",
        "",
        f"![{v}: win rates]({folder}/{v}_winrate.png)",
        "",
        f"![{v}: score differences]({folder}/{v}_score_diff.png)",
        "",
    ]


def targets(results: list[dict]) -> list[str]:
    lines = [
        "| variant | heuristic vs random: WP (target ≥ 0.90) | heuristic vs greedy: WP (95% CI; target: CI above 0.5) "
        "| search vs heuristic: WP (95% CI; target: above 0.5) |",
        "| --- | ---: | ---: | ---: |",
    ]
    mark = lambda ok: "✓" if ok else "✗"  # noqa: E731
    for r in results:
        by = {(p["a"], p["b"]): p for p in r["pairs"]}
        hr, hg, sh = by[("heuristic", "random")], by[("heuristic", "greedy")], by[("search", "heuristic")]
        lines.append(
            f"| {r['variant']} | {hr['wp']:.3f} {mark(hr['wp'] >= 0.9)} | "
            f"{hg['wp']:.3f} ({hg['wp_ci'][0]:.3f}–{hg['wp_ci'][1]:.3f}) {mark(hg['wp_ci'][0] > 0.5)} | "
            f"{sh['wp']:.3f} ({sh['wp_ci'][0]:.3f}–{sh['wp_ci'][1]:.3f}) {mark(sh['wp_ci'][0] > 0.5)} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default=",".join(sk.preset_names()))
    parser.add_argument("--deals", type=int, default=10_000, help="duplicate deals a pair without search")
    parser.add_argument("--search-deals", type=int, default=1_000, help="duplicate deals a pair with search")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--out", default=str(Path(__file__).parent), help="folder for arena.md and arena/")
    args = parser.parse_args()
    out = Path(args.out)
    plots = out / "arena"
    plots.mkdir(parents=True, exist_ok=True)
    variants = [v.strip() for v in args.variants.split(",")]
    total = len(variants) * 2 * 3 * (args.deals + args.search_deals)
    results = []
    start = time.perf_counter()
    with tqdm(total=total, unit="deal", unit_scale=True, desc="arena") as bar:
        for v in variants:
            bar.set_postfix_str(v)
            r = run_variant(v, args.deals, args.search_deals, args.threads, bar)
            plot_winrate(r, plots / f"{v}_winrate.png")
            plot_score_diff(r, plots / f"{v}_score_diff.png")
            (plots / f"{v}_results.json").write_text(json.dumps(r, indent=2, ensure_ascii=False) + "\n")
            results.append(r)
    elapsed = time.perf_counter() - start
    command = "python experiments/arena.py" + "".join(f" {a}" for a in sys.argv[1:])
    lines = [
        "# The built-in bots in the arena",
        "",
        f"Produced by `{command}` ({elapsed / 60:.0f} min on {os.cpu_count()} cores, "
        f"{platform.processor() or platform.machine()}, shuangkou {sk.__version__}, "
        f"{datetime.date.today().isoformat()}).",
        "",
        f"Every pair of `random`, `greedy` and `heuristic` plays the first {args.deals:,} deals of the evaluation "
        f"set `eval-v1` in duplicate (each deal twice, the same cards in the same seats, the agents' seats "
        f"exchanged; `team_formation: fixed`). Pairs with `search` (its default budget: 128 rollouts a decision "
        f"over at most 4 candidates) play the first "
        f"{args.search_deals:,} deals of the same set: fewer, because a search decision takes milliseconds (about "
        "200 decisions a second a core with search at every seat, where the heuristic makes 200,000–320,000; "
        "[benchmarks](benchmarks.md#bots)). WP: share of duplicate pairs won on "
        "the pair's total score (ties half), 95% Wilson score interval; ADP: mean score difference per "
        "deal, 95% paired Student-t interval; ratings: Bradley-Terry on an Elo scale over all six pairs. The "
        "bots are described in [docs/heuristic.md](../docs/heuristic.md); reproduce one table with "
        "`shuangkou arena --variant VARIANT --agents heuristic,greedy,random --deals eval-v1:10000`.",
        "",
        "## Targets",
        "",
        *targets(results),
        "",
    ]
    for r in results:
        lines += variant_section(r, "arena")
    (out / "arena.md").write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {out / 'arena.md'} and {plots}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
