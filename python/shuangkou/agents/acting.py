"""Acting: asking a resolved agent for its moves, on a batch of a runner's deals
(`decide`) or on one game (`agent_step`), with what its seat may see and nothing else,
and checking the answer against the runner's own data."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _core
from ..errors import clip
from .protocol import Agent, AgentActionError, AgentError, AgentLike, AgentRulesError, Decisions
from .resolve import agent_label, describe, is_bot

__all__ = ["agent_step", "checked_actions", "decide", "reset_agent"]


def reset_agent(agent: AgentLike, rules: _core.Rules, who: str) -> None:
    """Calls an `Agent`'s ``reset(rules)`` (nothing for other agents); an exception it
    raises becomes an `AgentError` naming `who`, with the agent's exception chained."""
    if not isinstance(agent, Agent):
        return
    try:
        agent.reset(rules)
    except ValueError as e:  # the agent refuses these rules: its whole reason, which may be long
        raise AgentRulesError(f"{who}: reset() refused the rules: {clip(str(e), 2000)}") from e
    except (Exception, SystemExit) as e:  # (an agent must not end the run by exiting)
        raise AgentError(f"{who}: reset() raised {describe(e)}") from e


def decide(agent: AgentLike, core: Any, rows: np.ndarray, rules: _core.Rules, who: str) -> np.ndarray:
    """The action ids (int32 [len(rows)]) `agent` chooses for envs `rows` of a
    VectorEnvCore, checked: integers, one per row, each legal in its row (ValueError
    naming the agent otherwise). An exception the agent raises becomes an AgentError
    naming it."""
    offsets = core.legal_offsets
    seats = core.current_player[rows].astype(np.int64)
    return _choose(
        agent,
        _Batch(
            core.obs[rows],
            core.mask[rows],
            seats,
            lambda: [core.legal_ids[offsets[j] : offsets[j + 1]] for j in rows],
            lambda: [core.legal_features[offsets[j] : offsets[j + 1]] for j in rows],
            lambda i: _core.InfoView(core.current_game(int(rows[i])), int(seats[i])),
            lambda actions: core.mask[rows, actions] == 1,  # (the core's own mask, not the agent's copy)
        ),
        rules,
        who,
    )


def agent_step(agent: AgentLike, game: _core.Game, who: str | None = None) -> int:
    """The legal action id `agent` (resolved) plays for the player to act in `game`: one
    position, as the web table and tools ask. Checked as `decide` checks a batch."""
    if is_bot(agent):
        return agent.step(game)
    rules = game.rules
    ids = np.asarray(game.legal_action_ids(), dtype=np.int32)
    mask = np.zeros((1, rules.num_actions), dtype=np.int8)
    mask[0, ids] = 1
    obs = _core.encode_observation(game, game.current_player())[None, :]
    seats = np.array([game.current_player()], dtype=np.int64)

    def features() -> list[np.ndarray]:
        return [_core.encode_moves([rules.catalogue.pattern(int(i)) for i in ids])]

    legal = ids.copy()  # (kept here: the agent sees read-only views of `ids`, never this)
    batch = _Batch(
        obs, mask, seats, lambda: [ids], features, lambda i: _core.InfoView(game), lambda a: np.isin(a, legal)
    )
    return int(_choose(agent, batch, rules, who or agent_label(agent))[0])


@dataclass
class _Batch:
    """What a runner hands `_choose` for one call of an agent: the arrays of B decisions
    (the lists built on demand), each row's view of its deal, and the runner's own
    legality check of chosen ids (an agent can write into nothing it is checked by)."""

    obs: np.ndarray
    mask: np.ndarray
    seats: np.ndarray
    legal_ids: Callable[[], list[np.ndarray]]
    legal_features: Callable[[], list[np.ndarray]]
    view_of: Callable[[int], _core.InfoView]
    is_legal: Callable[[np.ndarray], np.ndarray]


def _frozen(a: np.ndarray) -> np.ndarray:
    """A read-only view of `a` (an agent that writes into it gets numpy's ValueError)."""
    v = a.view()
    v.flags.writeable = False
    return v


def _choose(agent: AgentLike, batch: _Batch, rules: _core.Rules, who: str) -> np.ndarray:
    """Asks a Python agent for one action per row (an `Agent` gets `Decisions`, built
    only for it, whose views read row i's deal while it acts; a callable gets (obs, mask,
    seats)) and checks the answer against the runner's own data. The agent's obs and mask
    are the runner's copies, used for nothing after it acts, and its seats a copy of its
    own (writable: torch.from_numpy and the like take them without a warning); the legal
    ids and features, views of the runner's buffers, are read-only."""
    obs, mask, seats = batch.obs, batch.mask, batch.seats.copy()
    try:
        if isinstance(agent, Agent):
            ids = [_frozen(a) for a in batch.legal_ids()]
            features = [_frozen(a) for a in batch.legal_features()]
            decisions = Decisions(obs, mask, seats, ids, features, rules, batch.view_of)
            try:
                chosen = agent.act(decisions)
            finally:
                decisions._view_of = None  # the deals move on: no view made from them later
        else:
            chosen = agent(obs, mask, seats)
    except (Exception, SystemExit) as e:  # (an agent must not end the run by exiting)
        raise AgentError(f"{who} raised {type(e).__name__}: {e}") from e
    try:
        array = np.asarray(chosen)
    except Exception as e:  # noqa: BLE001 - a ragged list, an __array__ that raises (a CUDA tensor)
        raise AgentActionError(
            f"{who} returned a {type(chosen).__name__} that is not an array of action ids ({describe(e)})"
        ) from e
    actions = checked_actions(array, len(batch.seats), batch.mask.shape[1], who)
    illegal = np.flatnonzero(~np.asarray(batch.is_legal(actions), dtype=bool))
    if len(illegal):
        k = int(illegal[0])
        raise AgentActionError(
            f"{who} chose action {int(actions[k])}, which is not legal for seat {int(batch.seats[k])} there "
            f"(row {k} of its batch of {len(batch.seats)}; legal: the mask's 1s)"
        )
    return actions


def checked_actions(chosen: np.ndarray, n: int, num_actions: int, who: str) -> np.ndarray:
    """The action ids an agent returned, as int32: n integers (not bools, floats or
    strings) in 0..num_actions-1; AgentActionError (a ValueError) naming the first bad
    one otherwise."""
    if chosen.shape != (n,):
        raise AgentActionError(f"{who} returned shape {chosen.shape}, expected ({n},): one action id per decision")
    if chosen.dtype == np.bool_ or not np.issubdtype(chosen.dtype, np.integer):
        first = chosen.flat[0] if chosen.size else None
        raise AgentActionError(f"{who} returned {chosen.dtype} values (e.g. {first!r}); action ids are integers")
    bad = np.flatnonzero((chosen < 0) | (chosen >= num_actions))
    if len(bad):
        raise AgentActionError(f"{who} returned {int(chosen[bad[0]])}, not an action id (0..{num_actions - 1})")
    return chosen.astype(np.int32)
