"""A deal as one seat sees it, in the JSON the page draws (docs/play.md): the table's
`state` messages (table.py) and the viewer's frames (replay.py) are both built here, so
the page draws a live deal and a recorded one from the same fields.

Card tokens are the core's ("3".."9", "T", "J", "Q", "K", "A", "2", "SJ", "BJ"); hands
are listed high to low, as a player holds them.
"""

from __future__ import annotations

import functools
from typing import Any

from .. import _core

# Pattern groups of 排序, strongest first (bombs, chains, triples, pairs, singles).
GROUP_ORDER = ["bomb", "chain", "triple", "pair", "single"]


def tokens(cards: str) -> list[str]:
    return cards.split() if cards else []


def high_to_low(cards: str) -> list[str]:
    return list(reversed(tokens(cards)))  # (the core lists low to high, jokers last)


def rank_index(p: _core.Play) -> int:
    """The rank a play is compared by, as an index (3 lowest, the big joker highest)."""
    return _core.RANKS.index(p.key) if p.key in _core.RANKS else len(_core.RANKS)


def action_view(play: _core.Play | None) -> dict[str, Any]:
    """A play's cards and kind (a pass: no cards, kind "pass")."""
    return {"cards": tokens(play.cards), "kind": play.kind} if play else {"cards": [], "kind": "pass"}


def deal_view(game: _core.Game, seat: int) -> dict[str, Any]:
    """The deal as `seat` may see it: its own hand, the partner's where it may (JJ, or
    once the seat is out), and everything public. Once the deal is over, `settlement`
    shows every hand."""
    obs = game.observation(seat)
    to_act = game.current_player()
    top = game.top()
    actions = game.history()  # (converted once: a view is built for every seat after every move)
    revealed = game.revealed_card
    out: dict[str, Any] = {
        "variant": game.rules.name,
        "phase": "over" if game.is_over() else "playing",
        "to_act": to_act,
        "your_turn": to_act == seat,
        "can_pass": bool(to_act == seat and game.can_pass()),
        "hand": high_to_low(obs["hand"]),
        "groups": hand_groups(game.rules, obs["hand"]),
        "partner_hand": _partner_hand(game, seat, obs),
        "cards_left": obs["cards_left"],
        "table": {"cards": tokens(top.cards), "kind": top.kind, "by": game.top_owner()} if top else None,
        "passes": obs["passes"],
        "history": [{"seat": s, **action_view(p)} for s, p in actions],
        "revealed": {"card": revealed["rank"], "holder": revealed["holder"]} if revealed else None,
        "swapped": list(game.swapped) if game.swapped else None,
        "bombs": [{"seat": s, "cards": tokens(p.cards), "stars": p.stars} for s, p in actions if p and p.is_bomb],
        "multipliers": game.multipliers(),
        "finish_order": obs["finish_order"],
    }
    if game.is_over():
        b = game.score_breakdown()
        out["multiplier"] = b["multiplier"]
        out["settlement"] = {
            "hands": [high_to_low(game.hand(s)) for s in range(4)],
            "places": game.finish_order(),
            "outcome": b["outcome"],
            "base": b["base"],
            "multiplier": b["multiplier"],
            "contributions": b["contribution"],
            "scores": b["total"],
        }
    return out


def _partner_hand(game: _core.Game, seat: int, obs: dict[str, Any]) -> list[str] | None:
    """The partner's hand where the seat may see it: where the variant shows it (JJ),
    and once the seat has gone out, for the rest of the deal."""
    if obs["partner_hand"] is not None:
        return high_to_low(obs["partner_hand"])
    if seat in obs["finish_order"]:
        return high_to_low(game.hand((seat + 2) % 4))
    return None


def hand_groups(rules: _core.Rules, hand: str) -> list[list[str]]:
    """The hand grouped for 排序: bombs, then chains, triples, pairs and singles, each
    group strongest first; a card in no larger group is a single."""
    rules = _CANONICAL.setdefault(rules, rules)  # (one Rules object per rule set in the cache's keys)
    return [list(g) for g in _hand_groups(rules, hand)]


# `game.rules` is a new object at every call: the cache keeps the first one of each rule
# set (equal rule sets are equal and hash alike), so that its entries do not each hold
# a copy of the rules and their action catalogue.
_CANONICAL: dict[_core.Rules, _core.Rules] = {}


@functools.lru_cache(maxsize=4096)
def _hand_groups(rules: _core.Rules, hand: str) -> tuple[tuple[str, ...], ...]:
    # (cached: a hand's groups are drawn in every state message until it changes, and
    # grouping was over half the cost of a view in the load test, experiments/play_load.md)
    left = tokens(hand)
    groups: list[list[str]] = []
    if not left:
        return ()
    plays = rules.legal_moves(hand)
    for family in GROUP_ORDER:
        chosen = [p for p in plays if _family(p) == family]
        for p in sorted(chosen, key=lambda p: (len(p), rank_index(p)), reverse=True):
            cards = tokens(p.cards)
            if all(left.count(c) >= cards.count(c) for c in set(cards)):
                for c in cards:
                    left.remove(c)
                groups.append(list(reversed(cards)))
    return tuple(tuple(g) for g in groups if g)


def _family(p: _core.Play) -> str:
    if p.is_bomb:
        return "bomb"
    if "chain" in p.kind or p.kind == "straight":
        return "chain"
    return p.kind if p.kind in ("triple", "pair", "single") else "other"
