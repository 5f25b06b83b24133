"""`shuangkou arena`: duplicate-deal matches between agents, with a report."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tqdm import tqdm

from .. import _core
from ..agents import bot_forms
from ..runs.arena import arena, arena_rules, check_arena_memory, parse_deals
from ..runs.arena_report import FILES, markdown, write_report
from ..runs.selfplay import seat_agents
from ..util.checks import DEFAULT_SEED, int_arg
from ..util.outputs import prepare_out, removed_if_empty
from .options import (
    add_out_options,
    add_quiet_option,
    add_ray_options,
    add_seed_option,
    add_threads_option,
    add_variant_options,
    check_replays_out,
    import_from_cwd,
    parse_overrides,
    reach_ray,
    replays_arg,
)


def run(args: argparse.Namespace) -> int:
    # Every argument is checked before anything is written or played.
    overrides = parse_overrides(args.set)
    arena_rules(args.variant, **overrides)
    names = [a.strip() for a in args.agents.split(",")]
    if any(not a for a in names):
        raise ValueError(f"--agents: an empty entry in '{args.agents}' (give comma-separated agents)")
    if len(names) < 2:
        raise ValueError(f"--agents: give two or more comma-separated agents, got '{args.agents}'")
    import_from_cwd()
    agents = [seat_agents([a])[0] for a in names]
    seed = getattr(args, "seed", None)
    n, _, _ = parse_deals(args.deals, seed)
    int_arg(args.threads, "--threads", 0, _core.MAX_THREADS, " (0: every core)")
    check_arena_memory(n, len(agents))
    out = Path(args.out) if args.out else None
    replays = replays_arg(args.replays)
    replays = n if replays == "all" else int_arg(replays, "--replays", 0, n, f" (at most the deals, {n}) or 'all'")
    check_replays_out(replays, out)
    made = False
    if out is not None:
        reach_ray(args.ray, agents)
        names = list(FILES) + (["replays.jsonl.gz"] if replays else [])
        made = prepare_out(out, names, marks=[*FILES, "replays.jsonl.gz"], force=args.force)
    bar = _bar(args, n * (len(agents) * (len(agents) - 1) // 2))

    def progress(done: int, total: int) -> None:  # (done, total: deals, two a duplicate pair)
        bar.update(done // 2 - bar.n)

    try:
        with removed_if_empty(out or Path("."), made):  # a failed run leaves no empty folder
            result = arena(
                variant=args.variant,
                agents=agents,
                deals=args.deals,
                threads=args.threads,
                seed=seed,
                progress=progress,
                replays=replays,
                replay_path=out / "replays.jsonl.gz" if replays else None,
                ray=args.ray,
                chunk=args.chunk,
                **overrides,
            )
    finally:
        bar.close()
    print(markdown(result, plots=False, replays=str(out / "replays.jsonl.gz") if replays else ""), end="")
    if out is not None:
        # (the folder was checked before the run: its earlier run refused, or removed with --force)
        paths = write_report(result, out, force=True) + ([out / "replays.jsonl.gz"] if replays else [])
        print(f"wrote {', '.join(str(p) for p in paths)}")
    return 0


def _bar(args: argparse.Namespace, total: int) -> Any:
    """The progress bar: it counts duplicate pairs (two deals each), --deals of them for
    every pair of agents."""
    return tqdm(
        total=total,
        unit="pair",
        unit_scale=True,  # (the rate: 3.51kpair/s; the counts are written whole: 0/600, 1,000/3,000)
        bar_format="{l_bar}{bar}| {n:,}/{total:,} [{elapsed}<{remaining}, {rate_fmt}{postfix}]",
        disable=args.quiet,
        smoothing=0.3,
        desc=f"arena {args.variant}, duplicate pairs",
    )


def add_parser(sub: Any) -> None:
    """`shuangkou arena`: duplicate-deal matches."""
    ar = sub.add_parser(
        "arena",
        help="duplicate-deal matches between agents: win rates with confidence intervals, ratings, plots",
        description="Plays every pair of --agents over duplicate deals: each deal twice, the same cards "
        "in the same seats (team_formation fixed), the two agents' seats exchanged, so the cards' luck "
        "cancels. Reports per pair WP (share of duplicate pairs won on total score, ties half; 95% "
        "Wilson interval) and ADP (mean score difference per deal; 95% paired Student-t interval), "
        "outcome rates, bombs and overtakes, Bradley-Terry ratings and level titles. With --out, writes "
        "results.json, pairs.csv, winrate.png, score_diff.png and report.md. "
        "Example: shuangkou arena --variant baibian --agents heuristic,greedy,random --deals 10000 "
        "--threads 2 --seed 1 --out runs/arena1",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    ar.add_argument(
        "--agents",
        default="heuristic,greedy,random",
        help="two or more comma-separated agents: built-in bots (" + bot_forms() + "; search:ROLLOUTS sets "
        "the search budget, dmc:PATH plays a model file, dmc the shipped baibian network) or "
        "module:callable (a batched "
        "callable or a shuangkou.Agent class, imported from the current folder or the Python path)",
    )
    ar.add_argument(
        "--deals",
        default="1000",
        help="duplicate deals per pair: a count (deals of --seed) or a fixed evaluation set, e.g. eval-v1:10000",
    )
    add_threads_option(ar)
    add_seed_option(
        ar,
        f"base seed ({DEFAULT_SEED} if not given; not allowed with an evaluation set, which fixes its own)",
        default=argparse.SUPPRESS,
    )
    add_out_options(
        ar,
        "results.json, pairs.csv, the plots and report.md",
        "results.json, pairs.csv, plots, report.md and replays",
        "record the first N deals (or 'all') of each pair and half in OUT/replays.jsonl.gz "
        "(shuangkou replay shows them)",
    )
    add_variant_options(ar)
    add_quiet_option(ar)
    add_ray_options(ar)
    ar.set_defaults(func=run)
