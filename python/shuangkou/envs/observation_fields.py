"""Named access to observations, states and move features: no raw offsets in agents.

    import shuangkou as sk
    rules = sk.Rules("baibian")
    obs = sk._core.encode_observation(sk.Game(rules, seed=1), 0)
    rules.observation_slices["trick_owner"]  # slice(138, 142)
    v = sk.obs_view(obs)                     # also a batch [N, obs_size], or a state vector
    v.cards_left, v.trick_owner, v.leading   # numpy views into obs: no copies
    sk.move_view(sk._core.encode_moves([None])).is_pass  # move-feature columns by name

The observation and state layouts are the encoder's own (`_core.observation_layout()`,
`_core.state_layout()`) and the move-feature layout is too
(`_core.move_feature_layout()`, cpp/src/model/encode.cc), read once here.
docs/observation.md is generated from the same tables (scripts/gen_docs.py).

Every mapping of slices covers its vector from offset 0 to its end, in order, without
overlap or gap. A field of one value (``leading``, ``trick_size``, ``is_pass``, ...)
reads as that value (the last axis dropped: a 0-d view for one vector, ``[N]`` for a
batch); a wider field keeps its axis (``[size]`` or ``[N, size]``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from .. import _core

__all__ = [
    "NamedView",
    "move_feature_slices",
    "move_view",
    "obs_view",
    "observation_slices",
    "state_slices",
]


def _slices(layout: list[dict[str, Any]]) -> Mapping[str, slice]:
    out: dict[str, slice] = {}
    end = 0
    for row in layout:
        if row["offset"] != end:  # pragma: no cover - the encoder's own check keeps them in step
            raise RuntimeError(f"layout slice {row['name']} starts at {row['offset']}, expected {end}")
        end = row["offset"] + row["size"]
        out[row["name"]] = slice(row["offset"], end)
    return MappingProxyType(out)


#: name -> slice of the observation vector (float32 [observation_size]).
observation_slices: Mapping[str, slice] = _slices(_core.observation_layout())
#: name -> slice of the full-information state: the observation's, then ``all_hands``.
state_slices: Mapping[str, slice] = _slices(_core.state_layout())
#: name -> slice of one move-feature row (float32 [MOVE_FEATURE_SIZE]).
move_feature_slices: Mapping[str, slice] = _slices(_core.move_feature_layout())


class NamedView:
    """Named fields of an observation, a state or move-feature rows: each field is
    ``data[..., its slice]``, a numpy view (no copy; writing to it writes to the data).
    Fields of size 1 drop the last axis. ``view["name"]`` reads the same as ``view.name``;
    ``view.slices`` is the name -> slice mapping; ``view.data`` the array viewed."""

    __slots__ = ("data", "slices")

    def __init__(self, data: Any, slices: Mapping[str, slice]) -> None:
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "slices", slices)

    def __getattr__(self, name: str) -> Any:
        try:
            sl = self.slices[name]
        except KeyError:
            raise AttributeError(f"no field {name!r}: the fields are {', '.join(self.slices)}") from None
        if sl.stop - sl.start == 1:
            return self.data[..., sl.start]
        return self.data[..., sl]

    def __getitem__(self, name: str) -> Any:
        if not isinstance(name, str) or name not in self.slices:
            raise KeyError(name)
        return getattr(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only: write to view.{name}[...] instead")

    def __iter__(self) -> Iterator[str]:
        return iter(self.slices)

    def __dir__(self) -> list[str]:
        return [*super().__dir__(), *self.slices]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(shape={tuple(self.data.shape)}, fields={list(self.slices)})"


def _array(data: Any, what: str) -> Any:
    # numpy arrays (and array types with numpy-style indexing, e.g. torch tensors) are
    # viewed as they are; anything else is turned into a numpy array first.
    if not hasattr(data, "shape") or not hasattr(data, "__getitem__"):
        data = np.asarray(data)
    if len(data.shape) == 0:
        raise ValueError(f"{what}: expected a vector or a batch of vectors, got a scalar")
    return data


def obs_view(obs: Any) -> NamedView:
    """Named fields of an observation (float32 [observation_size]), a batch of them
    ([..., observation_size]) or full-information states ([..., state_size], which add
    ``all_hands``): ``obs_view(obs).trick_owner`` is ``obs[..., 138:142]``, a view.

    ValueError if the last axis is neither size."""
    obs = _array(obs, "obs_view")
    n = obs.shape[-1]
    if n == _core.observation_size():
        return NamedView(obs, observation_slices)
    if n == _core.state_size():
        return NamedView(obs, state_slices)
    raise ValueError(
        f"obs_view: the last axis has {n} values; an observation has {_core.observation_size()}, "
        f"a state {_core.state_size()}"
    )


def move_view(features: Any) -> NamedView:
    """Named columns of move-feature rows (float32 [..., MOVE_FEATURE_SIZE], e.g. an
    `Agent`'s ``decisions.legal_features[i]``): ``move_view(f).kind`` is ``f[..., 30:41]``.

    ValueError if the last axis is not MOVE_FEATURE_SIZE."""
    features = _array(features, "move_view")
    if features.shape[-1] != _core.MOVE_FEATURE_SIZE:
        raise ValueError(
            f"move_view: the last axis has {features.shape[-1]} values; a move-feature row has "
            f"{_core.MOVE_FEATURE_SIZE}"
        )
    return NamedView(features, move_feature_slices)
