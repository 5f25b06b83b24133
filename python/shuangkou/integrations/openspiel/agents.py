"""Agents both ways between OpenSpiel and the package: `OpenSpielAgent` (an OpenSpiel
bot as an ``sk.Agent``, stepping worlds drawn from what its seat knows), `AgentBot` and
`as_openspiel_bot` (any agent of the package as a ``pyspiel.Bot``), and `ismcts_bot`
(OpenSpiel's Python ISMCTS made ready for ``evaluate_bots``). docs/compatibility.md."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _core
from ...agents import Agent, AgentLike, Decisions, agent_label, agent_step, reset_agent, resolve_agent
from ...util.checks import int_arg
from .game import MAX_SIMULATIONS, ShuangkouGame, ShuangkouState, _check_reward, load_game, pyspiel

__all__ = ["AgentBot", "OpenSpielAgent", "as_openspiel_bot", "ismcts_bot"]


def _deal_of(state: Any, who: str) -> _core.Game:
    """The deal of a python_shuangkou state at a decision; TypeError / ValueError naming the problem."""
    if not isinstance(state, ShuangkouState):
        raise TypeError(f"{who} plays python_shuangkou states, got {type(state).__name__} of {state.get_game()}")
    if state._deal is None or state.is_terminal():
        raise ValueError(f"{who}: the state is {'over' if state.is_terminal() else 'a chance node'}, no seat to act")
    return state._deal


# ---------------------------------------------------------------------------- OpenSpiel bots as agents

BotFactory = Callable[[ShuangkouGame, int], Any]


class OpenSpielAgent(Agent):
    """An OpenSpiel bot as a ``shuangkou.Agent`` (for ``sk.arena``, ``sk.selfplay``, the envs' opponents).

    bot: a bot (a ``pyspiel.Bot`` or any object with ``step(state) -> action``), used for
    every seat the agent plays, or a factory ``make(game, seat) -> bot`` called once per seat
    and rule set (for bots made for one game or one player id, such as
    ``pyspiel.make_uniform_random_bot(seat, seed)`` or an ISMCTS bot).

    At each decision the bot steps a fresh state (`ShuangkouGame.state_from`) of a world
    drawn from what the seat knows (``decisions.views[i].sample_world(rng)``: the cards it
    cannot see dealt anew, docs/infoset.md), never of the real deal, so no bot sees a hidden
    card, whatever it reads of the state. Each state starts at the position (its OpenSpiel
    ``history()`` is empty) and no ``inform_action`` is sent: bots that keep their own record
    of the game see each decision as a new one. reward: the reward mode of the game the bot
    is given; seed: the worlds' numpy Generator, seeded again at each ``reset``.
    """

    def __init__(self, bot: Any, *, reward: str = "win", seed: int = 0, name: str | None = None) -> None:
        if isinstance(bot, pyspiel.Bot) or hasattr(bot, "step"):
            self._bot, self._factory = bot, None
        elif callable(bot):
            self._bot, self._factory = None, bot
        else:
            raise TypeError(f"OpenSpielAgent takes a bot (with step(state)) or a factory make(game, seat), got {bot!r}")
        self._reward = _check_reward(reward)
        self._seed = seed
        made_by = type(bot).__name__ if self._factory is None else getattr(bot, "__name__", "")
        self.name = name or ("openspiel" if made_by in ("", "<lambda>") else f"openspiel:{made_by}")
        self._game: ShuangkouGame | None = None
        self._bots: dict[int, Any] = {}
        self._rng = np.random.default_rng(seed)

    @property
    def game(self) -> ShuangkouGame | None:
        """The pyspiel game of the rules last played (None before the first run)."""
        return self._game

    def reset(self, rules: _core.Rules) -> None:
        self._game = load_game(rules, reward=self._reward)
        self._bots = {}
        self._rng = np.random.default_rng(self._seed)

    def _bot_for(self, seat: int) -> Any:
        if self._factory is None:
            return self._bot
        if seat not in self._bots:
            self._bots[seat] = self._factory(self._game, seat)
        return self._bots[seat]

    def act(self, decisions: Decisions) -> np.ndarray:
        if self._game is None or self._game.rules != decisions.rules:
            self.reset(decisions.rules)
        game = self._game
        assert game is not None
        actions = np.empty(len(decisions), dtype=np.int64)
        for i in range(len(decisions)):
            world = decisions.views[i].sample_world(self._rng)
            actions[i] = int(self._bot_for(int(decisions.seats[i])).step(game.state_from(world)))
        return actions


# ---------------------------------------------------------------------------- agents as OpenSpiel bots


class AgentBot(pyspiel.Bot):
    """A shuangkou agent as a ``pyspiel.Bot`` for ``python_shuangkou`` states (see `as_openspiel_bot`)."""

    def __init__(self, agent: AgentLike, name: str | None = None) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = resolve_agent(agent)
        self.name = name or agent_label(self.agent)
        self._rules: _core.Rules | None = None

    def step(self, state: Any) -> int:
        """The action id the agent plays for the player to act (checked legal, as in the arena)."""
        deal = _deal_of(state, f"agent {self.name}")
        if self._rules != deal.rules:
            if isinstance(self.agent, _core.Bot):
                self.agent.check_variant(deal.rules)  # ValueError: e.g. dmc's network of another rule set
            reset_agent(self.agent, deal.rules, f"agent {self.name}")
            self._rules = deal.rules
        return agent_step(self.agent, deal, f"agent {self.name}")

    def restart_at(self, state: Any) -> None:
        """Nothing to do: the agent reads each position afresh."""

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to do: the agent reads each position afresh."""

    def restart(self) -> None:
        """Nothing to do: the agent reads each position afresh."""

    def provides_policy(self) -> bool:
        return False


def as_openspiel_bot(agent: AgentLike, *, name: str | None = None) -> AgentBot:
    """`agent` (a built-in bot's name such as "heuristic" or "dmc", an ``sk.Bot``, a callable
    ``agent(obs, mask, seats)`` or an ``sk.Agent``) as a ``pyspiel.Bot`` that plays
    ``python_shuangkou`` states, e.g. in ``open_spiel.python.algorithms.evaluate_bots``.
    ValueError naming the problem for an agent that does not resolve; the agent plays the
    position through ``shuangkou.agents.agent_step``, so a Python agent sees only its seat's
    observation, and a built-in bot reads the deal as it does in the arena."""
    return AgentBot(agent, name)


def ismcts_bot(game: ShuangkouGame, *, simulations: int = 100, uct_c: float = 2.0, seed: int = 0) -> Any:
    """OpenSpiel's Python ISMCTS bot (``open_spiel.python.algorithms.ismcts``) for `game`, with
    one random rollout per leaf, made ready for ``evaluate_bots``: OpenSpiel's bot does not
    implement ``restart_at``, which ``evaluate_bots`` calls first (``SpielError: RestartAt(state)
    not implemented.``); this one restarts its search tree there. Its worlds come from the
    state's ``resample_from_infostate``.

    simulations: 1..`MAX_SIMULATIONS` a move; uct_c: the exploration constant, a finite
    number >= 0; seed: 0..2**32-2 (numpy's RandomState takes seed and seed + 1). A bad one
    is a ValueError naming it, before the bot is built."""
    simulations = int_arg(simulations, "ismcts_bot: simulations", 1, MAX_SIMULATIONS)
    seed = int_arg(seed, "ismcts_bot: seed", 0, 2**32 - 2)
    if isinstance(uct_c, (bool, np.bool_)) or not isinstance(uct_c, (int, float, np.integer, np.floating)):
        raise ValueError(f"ismcts_bot: uct_c must be a finite number >= 0, got {uct_c!r:.60}")
    if not 0 <= uct_c < math.inf:  # (NaN fails this too)
        raise ValueError(f"ismcts_bot: uct_c must be a finite number >= 0, got {uct_c!r:.60}")
    from open_spiel.python.algorithms import ismcts, mcts

    class _ISMCTSBot(ismcts.ISMCTSBot):
        def restart_at(self, state: Any) -> None:
            self.reset()

    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    return _ISMCTSBot(game, evaluator, float(uct_c), simulations, random_state=np.random.RandomState(seed + 1))
