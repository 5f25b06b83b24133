"""The fixed action space of a variant: id 0 is the pass, then every pattern (kind +
reading) a 27-card hand can play. A canonical move maps to the id of its reading."""

from __future__ import annotations

from typing import Any

from .. import _core
from .._core import Play
from ..util.checks import int_arg

_RULES: dict[_core.Rules, _core.Rules] = {}  # one Rules (and so one built catalogue) per rule set


def rules_of(variant: str | _core.Rules, **overrides: Any) -> _core.Rules:
    """The rule set of a variant argument (a preset, a YAML path or a Rules) with
    overrides, resolved by the core; equal rule sets share one Rules object, so
    their action catalogue is built once."""
    r = _core.Rules(variant, **overrides)
    if len(_RULES) > 256:  # a bound for programs that sweep parameters
        _RULES.clear()
    return _RULES.setdefault(r, r)


def catalogue(variant: str | _core.Rules = "baibian", **overrides: Any) -> _core.ActionCatalogue:
    """The action catalogue of a variant (built once per rule set)."""
    return rules_of(variant, **overrides).catalogue


def num_actions(variant: str = "baibian", **overrides: Any) -> int:
    return len(catalogue(variant, **overrides))


def action_to_play(variant: str, i: int, **overrides: Any) -> Play | None:
    """The pattern of action id `i` (None for 0, the pass). Its `cards` are the reading
    as natural cards; the cards a hand plays for it may use wild jokers instead."""
    cat = catalogue(variant, **overrides)
    return cat.pattern(int_arg(i, "action id", 0, len(cat) - 1))


def play_to_action(variant: str, play: Play | str | None, **overrides: Any) -> int:
    """The action id of a play: a Play, a card string (its strongest reading), or
    None / "pass" (0)."""
    if play is None or (isinstance(play, str) and play.strip().lower() == "pass"):
        return 0
    if isinstance(play, str):
        read = _core.Rules(variant, **overrides).read(play)
        if read is None:
            raise ValueError(f"'{play}' is not a valid play in {variant}")
        play = read
    if not isinstance(play, Play):
        raise ValueError(f"expected a Play, a card string or 'pass', got {play!r}")
    return catalogue(variant, **overrides).id_of(play)
