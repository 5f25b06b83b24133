"""Command line: batch self-play (the main job), the arena, move listing and reading.

Run ``shuangkou --help`` for every command, ``shuangkou COMMAND --help`` for its options.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import __version__, _core
from ._args import DEFAULT_SEED, add_force_option, add_variant_options, parse_overrides, variant_rules, variant_text
from ._core import parse_cards
from .agents import AgentError, bot_forms
from .outputs import output_file, prepare_out
from .ray_cluster import add_ray_option

SAMPLE_HAND = "3 3 4 5 5 6 6 7 7 7 8 8 9 T T J Q Q K A A 2 2 2 2 SJ BJ"
SELFPLAY_FILES = ("summary.json", "deals.npz", "replays.jsonl.gz")  # what `selfplay --out` writes


def _format_play(p) -> str:
    text = p.cards if p.reading == p.cards else f"{p.cards} (= {p.reading})"
    return f"{text} [{p.stars}★]" if p.stars else text


def _cmd_moves(args: argparse.Namespace) -> int:
    rules, _ = variant_rules(args)
    hand = parse_cards(args.hand)
    previous = args.previous or None
    moves = rules.legal_moves(hand, previous)
    print(f"variant {variant_text(args)}, hand of {len(hand.split())}: {hand}")
    if previous:
        print(f"to beat: {rules.read(previous).kind} {parse_cards(previous)} (passing is always allowed)")
    else:
        print("leading: every canonical move (docs/rules.md §14)")
    by_kind: dict[str, list] = {}
    for m in moves:
        by_kind.setdefault(m.kind, []).append(m)
    for kind, plays in by_kind.items():
        print(f"  {kind:<18} {len(plays):>3}: " + " | ".join(_format_play(p) for p in plays))
    print(f"{len(moves)} moves")
    return 0


def _cmd_read(args: argparse.Namespace) -> int:
    rules, _ = variant_rules(args)
    readings = rules.readings(args.cards)
    if not readings:
        print(f"'{args.cards}' is not a valid play in {variant_text(args)}")
        return 1
    best = rules.read(args.cards)
    for p in readings:
        mark = "*" if p == best else " "
        stars = f", {p.stars} stars" if p.stars else ""
        print(f"{mark} {p.kind}: {p.reading} (key {p.key}{stars})")
    return 0


def _import_from_cwd() -> None:
    """module:callable agents are found in the current folder, as `python -m` would find them."""
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())


def _replays_arg(text: str) -> int | str:
    """--replays: a count or 'all'."""
    if text == "all":
        return text
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"--replays takes a count or 'all', got '{text}'") from None


def _reach_ray(ray: Any, agents: list[Any]) -> None:
    """With --ray: the cluster reached and the agents checked for it before --out is touched,
    so that a cluster that cannot be reached leaves the folder as it was."""
    if ray:
        from .ray_runs import reach

        reach(ray, agents)


def _cmd_selfplay(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from .selfplay import format_summary, seat_agents, selfplay

    _, overrides = variant_rules(args)  # a bad variant or parameter is reported before anything starts
    _import_from_cwd()
    agents = seat_agents(args.agents)
    replays = _replays_arg(args.replays)
    out = Path(args.out) if args.out else None
    if replays and out is None:
        raise ValueError("--replays needs --out (the replays go to OUT/replays.jsonl.gz)")
    if out is not None:  # before a long run, not after it
        _reach_ray(args.ray, agents)
        names = ["summary.json", "deals.npz"] + (["replays.jsonl.gz"] if replays else [])
        prepare_out(out, names, marks=SELFPLAY_FILES, force=args.force)
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
        import numpy as np

        with output_file(out / "summary.json") as f:
            f.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
        with output_file(out / "deals.npz", "wb") as f:
            np.savez_compressed(f, **result.arrays)
        written = ["summary.json", "deals.npz"] + (["replays.jsonl.gz"] if replays else [])
        print(f"wrote {', '.join(str(out / w) for w in written)}")
    return 0


def _cmd_arena(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from ._args import int_arg
    from .arena import arena, arena_rules, check_arena_memory, parse_deals
    from .arena_report import FILES, markdown, write_report
    from .selfplay import seat_agents

    # Every argument is checked before anything is written or played.
    overrides = parse_overrides(args.set)
    arena_rules(args.variant, **overrides)
    names = [a.strip() for a in args.agents.split(",")]
    if any(not a for a in names):
        raise ValueError(f"--agents: an empty entry in '{args.agents}' (give comma-separated agents)")
    if len(names) < 2:
        raise ValueError(f"--agents: give two or more comma-separated agents, got '{args.agents}'")
    _import_from_cwd()
    agents = [seat_agents([a])[0] for a in names]
    seed = getattr(args, "seed", None)
    n, _, _ = parse_deals(args.deals, seed)
    int_arg(args.threads, "--threads", 0, _core.MAX_THREADS, " (0: every core)")
    check_arena_memory(n, len(agents))
    out = Path(args.out) if args.out else None
    replays = _replays_arg(args.replays)
    replays = n if replays == "all" else int_arg(replays, "--replays", 0, n, f" (at most the deals, {n}) or 'all'")
    if replays and out is None:
        raise ValueError("--replays needs --out (the replays go to OUT/replays.jsonl.gz)")
    if out is not None:
        _reach_ray(args.ray, agents)
        names = list(FILES) + (["replays.jsonl.gz"] if replays else [])
        prepare_out(out, names, marks=[*FILES, "replays.jsonl.gz"], force=args.force)
    pairs = len(agents) * (len(agents) - 1) // 2
    bar = tqdm(  # counts duplicate pairs (two deals each): --deals of them for every pair of agents
        total=n * pairs,
        unit="pair",
        unit_scale=True,  # (the rate: 3.51kpair/s; the counts are written whole: 0/600, 1,000/3,000)
        bar_format="{l_bar}{bar}| {n:,}/{total:,} [{elapsed}<{remaining}, {rate_fmt}{postfix}]",
        disable=args.quiet,
        smoothing=0.3,
        desc=f"arena {args.variant}, duplicate pairs",
    )

    def progress(done: int, total: int) -> None:  # (done, total: deals, two a duplicate pair)
        bar.update(done // 2 - bar.n)

    try:
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
    print(markdown(result, plots=False), end="")
    if out is not None:
        # (the folder was checked before the run: its earlier run refused, or removed with --force)
        paths = write_report(result, out, force=True) + ([out / "replays.jsonl.gz"] if replays else [])
        print(f"wrote {', '.join(str(p) for p in paths)}")
    return 0


def _variant_options(parser: argparse.ArgumentParser) -> None:
    """--variant, --set (as every command that takes a rule set has them) and --quiet,
    shared by the commands that play deals."""
    add_variant_options(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _ray_options(parser: argparse.ArgumentParser) -> None:
    """--ray [ADDRESS] and --chunk: play on a Ray cluster (docs/ray.md)."""
    add_ray_option(
        parser,
        "play on Ray, the deals cut into chunks, one Ray task of --threads CPUs each (1 for 0), with results "
        "equal to the one-machine run's (docs/ray.md)",
    )
    parser.add_argument(
        "--chunk", type=int, default=None, help="with --ray: deals a task (default: about four tasks a worker)"
    )


def _add_selfplay(sub: Any) -> None:
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
    sp.add_argument("--threads", type=int, default=0, help="threads (0: every core)")
    sp.add_argument(
        "--agents",
        default="random",
        help="agents: built-in bots (" + bot_forms() + "; docs/heuristic.md) "
        "or module:callable; one for every seat, two comma-separated for seats 0+2 and 1+3, or four, "
        "one per seat",
    )
    sp.add_argument("--seed", type=int, default=DEFAULT_SEED, help="base seed")
    sp.add_argument("--out", default=None, help="folder for summary.json, deals.npz and replays")
    add_force_option(sp, ", ".join(SELFPLAY_FILES))
    sp.add_argument("--replays", default="0", help="record the first N deals, or 'all'")
    _variant_options(sp)
    _ray_options(sp)
    sp.set_defaults(func=_cmd_selfplay)


def _add_arena(sub: Any) -> None:
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
    ar.add_argument("--threads", type=int, default=0, help="threads (0: every core)")
    ar.add_argument(
        "--seed",
        type=int,
        default=argparse.SUPPRESS,
        help=f"base seed ({DEFAULT_SEED} if not given; not allowed with an evaluation set, which fixes its own)",
    )
    ar.add_argument("--out", default=None, help="folder for results.json, pairs.csv, the plots and report.md")
    add_force_option(ar, "results.json, pairs.csv, plots, report.md and replays")
    ar.add_argument(
        "--replays",
        default="0",
        help="record the first N deals (or 'all') of each pair and half in OUT/replays.jsonl.gz "
        "(shuangkou replay shows them)",
    )
    _variant_options(ar)
    _ray_options(ar)
    ar.set_defaults(func=_cmd_arena)


def _add_train(sub: Any) -> None:
    """`shuangkou train`: Deep Monte-Carlo training (the options are train.py's)."""
    tr = sub.add_parser(
        "train",
        help="train a Deep Monte-Carlo agent from a config (needs torch)",
        description="Deep Monte-Carlo training: C++ actors play with the current Q network, PyTorch fits it "
        "to the deals' returns; checkpoints, CSV logs, duplicate-deal evaluations and a learning curve go "
        "to --out; --ray [ADDRESS] runs the actors on a Ray cluster (docs/ray_training.md). "
        "Example: shuangkou train --config configs/train/smoke.yaml --out runs/smoke",
    )
    from .train import add_arguments as _train_arguments
    from .train import run as _train_run

    _train_arguments(tr)
    tr.set_defaults(func=_train_run)


def _add_moves_read(sub: Any) -> None:
    """`shuangkou moves` and `shuangkou read`: hands and plays."""
    moves = sub.add_parser(
        "moves",
        help="list the canonical moves of a hand",
        description="Reads a hand and lists every canonical move (docs/rules.md §14): all leads, "
        "or with --previous only the plays that beat it.",
    )
    add_variant_options(moves)
    moves.add_argument(
        "--hand", default=SAMPLE_HAND, help="the hand, e.g. '3 3 4 5 6 7 BJ' (default: a sample 27-card hand)"
    )
    moves.add_argument("--previous", default="", help="the play to beat, e.g. '9 9' (default: none, leading)")
    moves.set_defaults(func=_cmd_moves)

    read = sub.add_parser(
        "read",
        help="read a card set as every pattern it forms",
        description="Prints each kind the cards can be read as, with its highest reading; * marks the strongest.",
    )
    read.add_argument("cards", help="the cards, e.g. '5 6 7 8 BJ'")
    add_variant_options(read)
    read.set_defaults(func=_cmd_read)


def _add_play(sub: Any) -> None:
    from .play.run import add_parser, add_replay_parser  # (no web code is imported until they run)

    add_parser(sub)
    add_replay_parser(sub)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="shuangkou",
        description="Shuangkou (双扣) rules engine. Card strings use 3 4 5 6 7 8 9 T J Q K A 2 SJ BJ "
        "separated by spaces ('10' is accepted for T).",
    )
    parser.add_argument("--version", action="version", version=f"shuangkou {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    for add in (_add_selfplay, _add_arena, _add_train, _add_play, _add_moves_read):
        add(sub)
    return parser


def _error(message: str) -> None:
    """Prints `error: message` as one line on stderr, printable whatever the terminal's
    encoding (a bad argument may hold undecodable bytes)."""
    text = f"error: {message}".replace("\n", "; ")
    encoding = sys.stderr.encoding or "utf-8"
    try:
        print(text.encode(encoding, "backslashreplace").decode(encoding), file=sys.stderr)
    except OSError:  # (stderr's reader went away too: nobody is left to tell)
        pass


CLOSED_PIPE = 141  # 128 + SIGPIPE: the status a shell reports for `seq` or `cat` cut off by `| head`


def _stdout_gone() -> int:
    """The reader of stdout went away (`| head`): what is left to print goes to
    /dev/null, so that nothing else fails (Python flushes stdout once more at exit)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return CLOSED_PIPE


def _flush_stdout() -> bool:
    """Flushes what stdout still holds (a pipe's output is buffered until now); False,
    quietly, when its reader has gone away."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_gone()
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit:  # --help, --version or a usage error: argparse has printed, and exits
        if not _flush_stdout():
            raise SystemExit(CLOSED_PIPE) from None
        raise
    return run_command(args.func, args)


def run_command(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Runs a command, turning every expected failure into one `error:` line on stderr and
    its exit code (docs/errors.md): 2 bad input, 1 an agent that failed, an output that
    cannot be written or memory, 130 Ctrl-C; 141 (as for a command killed by SIGPIPE),
    with nothing printed, when the reader of stdout went away (`| head`)."""
    code = _run(func, args)
    if not _flush_stdout():
        return code or CLOSED_PIPE
    return code


def _run(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    try:
        return func(args)
    except AgentError as e:  # a Python agent failed (raised, or returned bad ids): name it in one line
        hint = (
            ""
            if isinstance(e, ValueError)
            else " (run it through shuangkou.arena / shuangkou.selfplay for the traceback)"
        )
        _error(f"{e}{hint}")
        return 1
    except ValueError as e:
        _error(str(e))
        return 2
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly (before OSError, its base)
        return _stdout_gone()
    except OSError as e:  # an output that cannot be written: say which, no traceback
        _error(str(e))
        return 1
    except MemoryError:
        _error("out of memory (ask for fewer deals, envs or threads)")
        return 1
    except KeyboardInterrupt:
        _error("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
