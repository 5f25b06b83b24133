"""The viewer of `shuangkou replay FILE`: recorded deals, stepped through on the table's
page (docs/play.md). The deals come from one file (shuangkou.replays.read_replays); each
is replayed in the core, action by action, into frames the page draws: every hand face
up, the trick, bombs, stars and multipliers, and the settlement at the end.

The server serves that file's deals and nothing else: the page asks for a deal by its
index in the file.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from .. import _core
from ..util.records import RecordedDeal
from .view import deal_view, high_to_low

# Keys of a finished record that a record of the deal's start leaves out.
_RESULT_KEYS = ("over", "finish_order", "scores", "breakdown", "outcome")


def start_of(record: dict[str, Any]) -> _core.Game:
    """The recorded deal (a parsed record) as it was dealt, before its first action."""
    start = {k: v for k, v in record.items() if k not in _RESULT_KEYS}
    start["moves"] = []
    return _core.Game.from_json(json.dumps(start))


def deal_names(deal: RecordedDeal) -> list[str]:
    """Who sat where: the file's labels, or "seat N" where it names none (older files)."""
    return deal.agents or [f"seat {s}" for s in range(4)]


def frames(deal: RecordedDeal) -> list[dict[str, Any]]:
    """The deal after 0, 1, ..., n of its n actions: `deal_view` (from seat 0) with every
    hand, the step, the trick it is in and the action that led to it."""
    record = json.loads(deal.record)
    game = start_of(record)
    moves, variant = record["moves"], _variant_name(record)  # (a replayed game's rules have no preset name)
    out = [_frame(game, 0, len(moves), 0, False, None)]
    trick = 0
    for i, move in enumerate(moves, 1):
        starts = game.is_leading()
        if starts and i > 1:
            trick += 1
        play = _recorded_play(game, move)
        game.apply(play)
        last = {"seat": move["seat"], "cards": move.get("cards", "").split(), "kind": move["kind"]}
        out.append(_frame(game, i, len(moves), trick, starts, last))
    for f in out:
        f["variant"] = variant
    return out


def _recorded_play(game: _core.Game, move: dict[str, Any]) -> _core.Play | None:
    """The legal play a recorded move names (cards, kind and reading: one card set may
    have two readings), or None for a pass."""
    if move["kind"] == "pass":
        return None
    for p in game.legal_moves():
        if p.cards == move["cards"] and p.kind == move["kind"] and p.reading == move["reading"]:
            return p
    raise ValueError(f"recorded move {move} is not legal in its position")


def _frame(game: _core.Game, step: int, steps: int, trick: int, starts: bool, last: Any) -> dict[str, Any]:
    return {
        "type": "frame",
        "seat": 0,
        **deal_view(game, 0),
        "your_turn": False,
        "can_pass": False,
        "partner_hand": None,
        "auto": [False] * 4,
        "strikes": [0] * 4,
        "deadline": None,
        "hands": [high_to_low(game.hand(s)) for s in range(4)],
        "step": step,
        "steps": steps,
        "trick": trick,
        "trick_start": starts,
        "last": last,
    }


def index(deals: list[RecordedDeal]) -> list[dict[str, Any]]:
    """One line per deal for the page's list: variant, seats, actions, scores."""
    out = []
    for k, d in enumerate(deals):
        rec = json.loads(d.record)
        out.append(
            {
                "index": k,
                "variant": _variant_name(rec),
                "names": deal_names(d),
                "actions": len(rec["moves"]),
                "scores": rec.get("scores"),
            }
        )
    return out


def _variant_name(record: dict[str, Any]) -> str:
    """The preset a record's variant is, with the parameters that differ from it where
    a few do ("baibian (team_formation=fixed)", as the arena plays), else "custom"."""
    params = record.get("variant") or {}
    best = min(_presets().items(), key=lambda kv: sum(kv[1].get(k) != v for k, v in params.items()))
    changed = {k: v for k, v in params.items() if best[1].get(k) != v}
    if len(changed) > 3:
        return "custom"
    return best[0] + (" (" + ", ".join(f"{k}={v}" for k, v in sorted(changed.items())) + ")" if changed else "")


@functools.cache
def _presets() -> dict[str, dict[str, str]]:
    return {n: _core.Rules(n).params for n in _core.preset_names()}
