"""The agent protocol: `Agent`, the `Decisions` it is asked, the `Views` of a seat's
information and the errors of agents that fail (docs/infoset.md, docs/arena.md)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

from .. import _core

__all__ = ["Agent", "AgentActionError", "AgentError", "AgentLike", "AgentRulesError", "Decisions", "Views"]


class AgentError(RuntimeError):
    """A Python agent failed while playing: it raised (or called ``sys.exit``) in ``act``
    or ``reset``; the message names the agent, and the agent's own exception is chained
    (``__cause__``)."""


class AgentActionError(AgentError, ValueError):
    """A Python agent returned something that is not one legal action id per decision
    (a wrong shape, non-integers, ids out of range or not legal). Both an `AgentError`
    (the agent failed) and a ``ValueError`` (its output is bad input to the game)."""


class AgentRulesError(AgentError, ValueError):
    """A Python agent refused the rules it was asked to play: its ``reset(rules)`` raised
    ValueError (a policy trained for other rules, say). Both an `AgentError` and a
    ``ValueError``, raised before any deal is played; the agent's exception is chained."""


@dataclass
class Decisions:
    """The decisions an `Agent` makes in one call (B of them, the batch first).

    obs: float32 [B, obs_size] (docs/observation.md; ``shuangkou.obs_view(obs)`` names
    its fields); mask: int8 [B, num_actions]; seats: int64 [B], the seat deciding in each
    row; legal_ids: B int32 arrays, the legal action ids of each row (ascending: the pass,
    id 0, first where legal); legal_features: B float32 arrays [k, MOVE_FEATURE_SIZE], one
    row per legal id (``shuangkou.move_feature_slices`` names the columns,
    ``shuangkou.move_view`` reads them); rules: the `Rules` played.

    ``legal_plays`` (built on first use, so agents that do not read it pay nothing): B
    lists, the `Play` of each legal id of the row in ``legal_ids`` order, None for the
    pass; each is the id's pattern in the rules' action catalogue
    (``rules.catalogue.pattern(id)``, as `shuangkou.action_to_play` gives it): kind,
    reading, key, stars and size are the move's; ``cards`` is the reading in natural
    cards (the cards a hand plays for it may use wild jokers instead).

    ``views[i]``: row i's `InfoView`, what its seat may know of the deal (own hand, the
    partner's where shown, cards left, every play, the legal ids), with
    ``view.sample_world(rng)`` drawing a complete `Game` consistent with it, for agents
    that search (docs/infoset.md). Each view is made when first read, so agents that do
    not read them pay nothing; they can be read while ``act`` runs (a view made then
    stays valid after it).

    An agent gets what its seat may see and nothing more: the views are the only way to
    the deal (no `Game` with the other hands is handed out). ``obs``, ``mask`` and
    ``seats`` are copies made for the agent, ``legal_ids`` and ``legal_features``
    read-only views; the runner checks the chosen ids against its own data, never
    against these arrays, so writing into them changes nothing it relies on.
    """

    obs: np.ndarray
    mask: np.ndarray
    seats: np.ndarray
    legal_ids: list[np.ndarray]
    legal_features: list[np.ndarray]
    rules: _core.Rules
    # Row i's InfoView, made from the runner's game (None: no views, or no longer: act has
    # returned). Only views come out of it: the seat's information, never the whole deal.
    _view_of: Callable[[int], _core.InfoView] | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.seats)

    @functools.cached_property
    def legal_plays(self) -> list[list[_core.Play | None]]:
        pattern = self.rules.catalogue.pattern
        return [[pattern(i) for i in ids.tolist()] for ids in self.legal_ids]

    @functools.cached_property
    def views(self) -> Views:
        return Views(self)


class Views(Sequence):
    """The `InfoView` of each row of a `Decisions`, each made on first use (a replay of
    the row's deal) and then kept."""

    def __init__(self, decisions: Decisions) -> None:
        self._decisions = decisions
        self._made: list[_core.InfoView | None] = [None] * len(decisions)

    def __len__(self) -> int:
        return len(self._made)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if not isinstance(i, (int, np.integer)) or isinstance(i, bool):
            raise TypeError(f"views are indexed by row (an integer), got {type(i).__name__}")
        k = int(i)
        if not -len(self) <= k < len(self):
            raise IndexError(f"row {k} out of range: {len(self)} decisions")
        k %= len(self)
        if self._made[k] is None:
            view_of = self._decisions._view_of
            if view_of is None:
                raise RuntimeError(
                    "views are made while act() runs: this row's view was not read before act() returned, "
                    "and its deal has moved on since"
                )
            self._made[k] = view_of(k)
        return self._made[k]


class Agent:
    """Base class for Python agents that need more than (obs, mask, seats).

    Subclass it and implement ``act(decisions) -> int64 [B]`` (one legal action id per
    row of the `Decisions`). ``name`` labels the agent in reports (default: the class
    name). ``reset(rules)`` is called once before a run starts playing.

    >>> import numpy as np, shuangkou as sk
    >>> class LastLegal(sk.Agent):
    ...     def act(self, d):
    ...         return np.array([ids[-1] for ids in d.legal_ids], dtype=np.int64)
    >>> r = sk.selfplay("classic", games=4, agents=[LastLegal(), "greedy"], seed=1)
    >>> r["agents"]
    ['LastLegal', 'greedy', 'LastLegal', 'greedy']
    """

    name: str | None = None

    def reset(self, rules: _core.Rules) -> None:
        """Called once before a run plays (override to load or clear state)."""

    def act(self, decisions: Decisions) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} must implement act(decisions)")


AgentLike = Union[str, _core.Bot, Agent, Callable[[np.ndarray, np.ndarray, np.ndarray], Any]]
