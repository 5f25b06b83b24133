"""Command line: batch self-play (the main job), the arena, training, expert labels, the
exploitability probe, the web table and its viewer, move listing and reading; one module
a command (selfplay.py, arena.py, train.py, label.py, exploit.py, play.py, rules.py), their
shared options in options.py.

Run ``shuangkou --help`` for every command, ``shuangkou COMMAND --help`` for its options.
"""

from __future__ import annotations

import argparse

from ..util.version import VERSION
from . import arena, exploit, label, play, rules, selfplay, train
from .running import CLOSED_PIPE, flush_stdout, run_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="shuangkou",
        description="Shuangkou (双扣) rules engine. Card strings use 3 4 5 6 7 8 9 T J Q K A 2 SJ BJ "
        "separated by spaces ('10' is accepted for T).",
    )
    parser.add_argument("--version", action="version", version=f"shuangkou {VERSION}")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (
        selfplay.add_parser,
        arena.add_parser,
        train.add_parser,
        label.add_parser,
        exploit.add_parser,
        play.add_parser,
        play.add_replay_parser,
    ):
        add(sub)
    rules.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit:  # --help, --version or a usage error: argparse has printed, and exits
        if not flush_stdout():
            raise SystemExit(CLOSED_PIPE) from None
        raise
    return run_command(args.func, args)
