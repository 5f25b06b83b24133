"""`shuangkou selfplay`: the main job, batch self-play with an evaluation summary."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from ..agents import bot_forms
from ..runs.selfplay import format_summary, seat_agents, selfplay
from ..util.outputs import output_file, prepare_out, removed_if_empty
from .options import (
    add_out_options,
    add_quiet_option,
    add_ray_options,
    add_seed_option,
    add_threads_option,
    add_variant_options,
    check_replays_out,
    import_from_cwd,
    reach_ray,
    replays_arg,
    variant_rules,
)

SELFPLAY_FILES = ("summary.json", "deals.npz", "replays.jsonl.gz")  # what `selfplay --out` writes


def run(args: argparse.Namespace) -> int:
    _, overrides = variant_rules(args)  # a bad variant or parameter is reported before anything starts
    import_from_cwd()
    agents = seat_agents(args.agents)
    replays = replays_arg(args.replays)
    out = Path(args.out) if args.out else None
    check_replays_out(replays, out)
    made = False
    if out is not None:  # before a long run, not after it
        reach_ray(args.ray, agents)
        names = ["summary.json", "deals.npz"] + (["replays.jsonl.gz"] if replays else [])
        made = prepare_out(out, names, marks=SELFPLAY_FILES, force=args.force)
    bar = tqdm(
        total=args.games,
        unit="deal",
        unit_scale=True,
        disable=args.quiet,
        smoothing=0.3,
        desc=f"selfplay {args.variant}",
    )
    done_before = 0

    def progress(done: int) -> bool:
        nonlocal done_before
        bar.update(done - done_before)
        done_before = done
        return True

    try:
        with removed_if_empty(out or Path("."), made):  # a failed run leaves no empty folder
            result = selfplay(
                variant=args.variant,
                games=args.games,
                agents=agents,
                threads=args.threads,
                seed=args.seed,
                replays=replays,
                replay_path=(out / "replays.jsonl.gz") if replays else None,
                progress=progress,
                ray=args.ray,
                chunk=args.chunk,
                **overrides,
            )
    finally:
        bar.close()
    print(format_summary(result))
    if out is not None:
        with output_file(out / "summary.json") as f:
            f.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
        with output_file(out / "deals.npz", "wb") as f:
            np.savez_compressed(f, **result.arrays)
        written = ["summary.json", "deals.npz"] + (["replays.jsonl.gz"] if replays else [])
        print(f"wrote {', '.join(str(out / w) for w in written)}")
    return 0


def add_parser(sub: Any) -> None:
    """`shuangkou selfplay`: the main job."""
    sp = sub.add_parser(
        "selfplay",
        help="play many deals between built-in bots and summarise them (the main job)",
        description="Plays deals in C++ over several threads and prints an evaluation summary: "
        "outcome shares, scores per seat and per agent with 95% confidence intervals, bombs by stars, "
        "deal length and throughput. Deal i is dealt from a seed derived from (--seed, i), so results "
        "do not depend on --threads. With --out, writes summary.json, deals.npz (per-deal arrays) and, "
        "with --replays, replays.jsonl.gz (one deal a line: the seats' agents and the record, which "
        "shuangkou.Game.from_json replays; shuangkou replay shows them).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    sp.add_argument("--games", type=int, default=1_000_000, help="number of deals")
    add_threads_option(sp)
    sp.add_argument(
        "--agents",
        default="random",
        help="agents: built-in bots (" + bot_forms() + "; docs/heuristic.md) "
        "or module:callable; one for every seat, two comma-separated for seats 0+2 and 1+3, or four, "
        "one per seat",
    )
    add_seed_option(sp)
    add_out_options(
        sp, "summary.json, deals.npz and replays", ", ".join(SELFPLAY_FILES), "record the first N deals, or 'all'"
    )
    add_variant_options(sp)
    add_quiet_option(sp)
    add_ray_options(sp)
    sp.set_defaults(func=run)
