"""Checks of the arguments of the Python front ends and the command line: one rule for all.

An integer argument is a Python int or a numpy integer (anything with
``__index__``), never a bool; out of range or of another type is a
``ValueError`` naming the argument, its range and the value given.

The command line's options that several commands share are defined here too,
once: the rule set (--variant, --set), --force and the default seed.
"""

from __future__ import annotations

import argparse
import operator
from typing import Any


def int_arg(value: Any, what: str, lo: int, hi: int | None = None, hint: str = "") -> int:
    """``value`` as an int in ``lo..hi`` (``hi`` None: no upper bound)."""
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:40] + "..."
    span = f"{lo}..{hi}" if hi is not None else f">= {lo}"
    if isinstance(value, bool):
        raise ValueError(f"{what} must be an integer {span}{hint}, got {shown}")
    try:
        n = operator.index(value)
    except TypeError:
        raise ValueError(f"{what} must be an integer {span}{hint}, got {shown}") from None
    if n < lo or (hi is not None and n > hi):
        raise ValueError(f"{what} must be an integer {span}{hint}, got {shown}")
    return n


# ---------------------------------------------------------------------------- the command line's shared options

DEFAULT_SEED = 0  # every command's and every front end's base seed when none is given


def add_variant_options(parser: argparse.ArgumentParser) -> None:
    """--variant and --set, one definition for every command that takes a rule set
    (selfplay, arena, play, moves, read); `variant_rules` reads them back."""
    from ._core import preset_names

    parser.add_argument(
        "--variant",
        default="baibian",
        help="rule set: a preset (" + ", ".join(preset_names()) + ") or a YAML file like configs/variants/jj.yaml "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a variant parameter, e.g. --set max_bomb=10 (repeatable)",
    )


def add_force_option(parser: argparse.ArgumentParser, files: str) -> None:
    """--force: write into an --out folder that holds `files` of an earlier run
    (without it the command refuses that folder before doing anything)."""
    parser.add_argument(
        "--force",
        action="store_true",
        help=f"replace an earlier run's {files} in --out (without --force, a folder that holds any of "
        "them is refused before anything runs)",
    )


def parse_overrides(pairs: list[str]) -> dict[str, str]:
    """--set KEY=VALUE pairs as a dict; ValueError for a pair without '='."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set takes KEY=VALUE (e.g. max_bomb=10), got '{pair}'")
        out[key.strip()] = value.strip()
    return out


def variant_rules(args: argparse.Namespace) -> tuple[Any, dict[str, str]]:
    """The `Rules` of --variant with the --set overrides, and the overrides; ValueError
    (before anything runs) for a bad preset, file, parameter or value."""
    from ._core import Rules

    overrides = parse_overrides(args.set)
    return Rules(args.variant, **overrides), overrides


def variant_text(args: argparse.Namespace) -> str:
    """--variant as given, with its --set overrides: "baibian (max_bomb=10)"."""
    overrides = parse_overrides(args.set)
    return args.variant + (f" ({', '.join(f'{k}={v}' for k, v in overrides.items())})" if overrides else "")
