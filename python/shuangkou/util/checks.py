"""Checks of the arguments of the Python front ends: one rule for all.

An integer argument is a Python int or a numpy integer (anything with
``__index__``), never a bool; out of range or of another type is a
``ValueError`` naming the argument, its range and the value given.
"""

from __future__ import annotations

import operator
from typing import Any

from ..errors import clip

DEFAULT_SEED = 0  # every command's and every front end's base seed when none is given


def int_arg(value: Any, what: str, lo: int, hi: int | None = None, hint: str = "") -> int:
    """``value`` as an int in ``lo..hi`` (``hi`` None: no upper bound)."""
    shown = clip(repr(value), 60)
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
