"""`shuangkou moves` and `shuangkou read`: the canonical moves of a hand, and every
reading of a card set."""

from __future__ import annotations

import argparse
from typing import Any

from .._core import parse_cards
from .options import add_variant_options, variant_rules, variant_text

SAMPLE_HAND = "3 3 4 5 5 6 6 7 7 7 8 8 9 T T J Q Q K A A 2 2 2 2 SJ BJ"


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


def add_parsers(sub: Any) -> None:
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
