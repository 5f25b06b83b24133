"""The PettingZoo AEC environment: one deal per episode, the four seats as agents.

    import shuangkou as sk
    env = sk.env("baibian")                  # wrapped: AssertOutOfBounds + OrderEnforcing
    env.reset(seed=42)                       # deal seed 42: the same deal as sk.Game("baibian", seed=42)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            action = None
        else:
            action = env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

Agents are ``player_0``..``player_3``; player i sits in seat i (seats 0 and 2 are
partners, 1 and 3). An action is an id of the variant's action catalogue
(``shuangkou.envs.actions``; 0 is the pass); it plays the first legal canonical move
whose pattern has that id, exactly as ``sk.VectorEnv`` does. The observation of an
agent is ``{"observation": float32[observation_size], "action_mask": int8[num_actions]}``
and holds only what that seat may know (``env.observation_layout`` names its slices);
the mask is all zeros for every agent but the one to act. Rewards are zero until the
deal ends; then every agent gets its seat's reward ("score": the deal score, "win":
+1/-1 by team, 0 for a draw, "log": sign(s)*log(1+|s|)) and all agents terminate.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from .. import _core
from .actions import rules_of
from .options import DEFAULT_REWARD, check_illegal_action, check_reward, observation_box
from .render import render_game

NUM_SEATS = 4
RENDER_LANGS = ("en", "zh")


class raw_env(AECEnv):
    """Shuangkou (双扣) as a PettingZoo AEC environment (unwrapped); docs/envs.md
    documents every argument.

    An action outside the action space (not an integer, or an integer outside
    0..num_actions-1) raises ValueError naming it and the space, and changes nothing
    (`env()`'s wrapper asserts first); an id of the space that the mask forbids is an
    illegal action, handled as `illegal_action` says."""

    metadata = {
        "name": "shuangkou_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        variant: Any = "baibian",
        render_mode: str | None = None,
        reward: str = DEFAULT_REWARD,
        render_lang: str = "en",
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        **overrides: Any,
    ) -> None:
        super().__init__()
        self.illegal_reward = check_illegal_action(illegal_action, illegal_reward)
        self.illegal_action = illegal_action
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        check_reward(reward)
        if render_lang not in RENDER_LANGS:
            raise ValueError(f"render_lang must be 'en' or 'zh', got {render_lang!r}")
        self.rules = rules_of(variant, **overrides)  # resolved once: validates the variant and overrides
        self.variant = variant if isinstance(variant, str) else self.rules.name
        self.render_mode = render_mode
        self.render_lang = render_lang
        self.reward_mode = reward
        self.catalogue = self.rules.catalogue
        self.num_actions = len(self.catalogue)
        self.state_size = _core.state_size()
        self.state_layout = _core.state_layout()
        self.state_space = observation_box(self.state_size)
        self.observation_size = _core.observation_size()
        self.observation_layout = _core.observation_layout()

        self.possible_agents = [f"player_{i}" for i in range(NUM_SEATS)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": observation_box(self.observation_size),
                    "action_mask": spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.game: _core.Game | None = None
        self.deal_seed: int | None = None
        self._np_random: np.random.Generator | None = None
        self._np_random_seed: int | None = None

    # --- spaces and RNG -------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def np_random(self) -> np.random.Generator:
        """The env's RNG: seeded by the last seed given to reset() (from entropy if none yet)."""
        if self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random()
        return self._np_random

    @property
    def np_random_seed(self) -> int | None:
        return self._np_random_seed

    # --- episode --------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if isinstance(seed, np.integer):
            seed = int(seed)
        if seed is not None:
            game = _core.Game(self.rules, seed=seed)  # validates the seed first
            self._np_random, self._np_random_seed = seeding.np_random(seed)
            self.deal_seed = int(seed)
        else:
            self.deal_seed = int(self.np_random.integers(0, 2**64, dtype=np.uint64))
            game = _core.Game(self.rules, seed=self.deal_seed)
        self.game = game
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self.agent_selection = self.possible_agents[game.current_player()]
        if self.render_mode == "human":
            self.render()

    def legal_actions(self) -> list[int]:
        """The legal action ids of the agent to act (sorted); empty once the deal is over."""
        if self.game is None:
            raise RuntimeError("call reset() first")
        return self.game.legal_action_ids().tolist()

    def action_mask(self, agent: str) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if (
            agent == self.agent_selection
            and not self.terminations.get(agent, True)
            and not self.truncations.get(agent, True)
        ):
            mask[self.game.legal_action_ids()] = 1
        return mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.game is None:
            raise RuntimeError("call reset() first")
        seat = self.agent_name_mapping[agent]
        return {
            "observation": _core.encode_observation(self.game, seat),
            "action_mask": self.action_mask(agent),
        }

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int:  # (the common case first: a plain int needs no checks)
            if isinstance(action, np.ndarray) and action.shape == ():
                action = action.item()
            if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
                raise ValueError(
                    f"{agent}: the action must be an integer action id of Discrete({self.num_actions}), "
                    f"got {action!r:.60}"
                )
        a = int(action)
        if not 0 <= a < self.num_actions:  # a caller's error whatever illegal_action says: nothing changes
            raise ValueError(
                f"{agent}: action {a} is not in the action space Discrete({self.num_actions}) "
                f"(ids 0..{self.num_actions - 1})"
            )
        game = self.game
        try:
            game.apply_action(a)  # a ValueError naming the action if it is not legal; then nothing changes
        except ValueError as e:
            if self.illegal_action == "raise":
                raise ValueError(
                    f"{agent}: {e} (illegal_action='terminate' ends the deal instead, 'random' plays a random "
                    "legal action)"
                ) from None
            if self.illegal_action == "terminate":
                self._terminate_illegal(agent, a)
                return
            game.apply_action(int(self.np_random.choice(game.legal_action_ids())))  # "random"
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if game.is_over():
            scores = game.scores()
            order = game.finish_order()
            outcome = game.outcome()
            rewards = game.rewards(self.reward_mode)
            for other in self.agents:
                seat = self.agent_name_mapping[other]
                self.rewards[other] = rewards[seat]
                self.terminations[other] = True
                self.infos[other] = {"score": scores[seat], "outcome": outcome, "finish_order": order}
        else:
            self.agent_selection = self.possible_agents[game.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _terminate_illegal(self, agent: str, action: int) -> None:
        """PettingZoo's TerminateIllegalWrapper behaviour: the deal ends, the offender's
        team gets illegal_reward (each seat), the other team 0, and a warning names it."""
        seat = self.agent_name_mapping[agent]
        gymnasium.logger.warn(
            f"{agent} (seat {seat}) took illegal action {action}: the deal ends, its team gets "
            f"{self.illegal_reward:g} (illegal_action='terminate')"
        )
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        for other in self.agents:
            other_seat = self.agent_name_mapping[other]
            self.rewards[other] = self.illegal_reward if other_seat % 2 == seat % 2 else 0.0
            self.terminations[other] = True
            self.infos[other] = {"illegal_action": True, "offender": seat}
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def state(self) -> np.ndarray:
        """The full-information state (every hand) from the view of the seat to act:
        float32 [state_size], laid out as `state_layout` (docs/observation.md)."""
        if self.game is None:
            raise RuntimeError("call reset() first")
        seat = self.game.current_player() if not self.game.is_over() else 0
        return _core.encode_state(self.game, seat)

    # --- rendering ------------------------------------------------------------------

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.game is None:
            raise RuntimeError("call reset() first")
        text = render_game(self.game, seat=None, lang=self.render_lang)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # --- copies and pickles: the catalogue is the rules' own, rebuilt from them --------

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "catalogue"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.catalogue = self.rules.catalogue


# --- the wrappers of env(): PettingZoo's, with the hot paths taken straight to the raw env ---
#
# PettingZoo's wrappers reach every attribute of the env they wrap through __getattr__,
# two levels deep: agent_iter(), last() and step() read agents, agent_selection,
# terminations, ... that way a dozen times a step, which cost more than the step itself.
# These subclasses do the same checks and return the same values, reading the raw env
# directly where PettingZoo's code would go through the chain.


class _BoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """AssertOutOfBoundsWrapper: asserts that the action is in the action space (or None
    for a finished agent); a plain int in range passes without asking the space."""

    def __init__(self, env: raw_env) -> None:
        super().__init__(env)
        self._raw = env

    def step(self, action: Any) -> None:
        raw = self._raw
        if not (type(action) is int and 0 <= action < raw.num_actions):
            agent = raw.agent_selection
            finished = action is None and (raw.terminations[agent] or raw.truncations[agent])
            if not finished and not _in_space(raw.action_space(agent), action):
                raise AssertionError(
                    f"action is not in action space: {agent}'s action {action!r:.60} is not an id of "
                    f"Discrete({raw.num_actions}) (ids 0..{raw.num_actions - 1})"
                )
        raw.step(action)


def _in_space(space: spaces.Space, action: Any) -> bool:
    """Whether `space` contains `action`; False where asking raises (gymnasium's Discrete
    converts an int to int64 first, and an int past int64 raises OverflowError there)."""
    try:
        return bool(space.contains(action))
    except (OverflowError, TypeError, ValueError):
        return False


class _OrderWrapper(wrappers.OrderEnforcingWrapper):
    """OrderEnforcingWrapper: errors for calls before reset(), a warning for step() after
    the end; last() and the agent iterator read the raw env directly once reset."""

    def __init__(self, env: _BoundsWrapper) -> None:
        super().__init__(env)
        self._raw = env._raw

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self._raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            return super().last(observe)  # PettingZoo's errors, as before
        return self._raw.last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> _OrderIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderIterable(self, max_iter)

    def __str__(self) -> str:
        return str(self.env)


class _OrderIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _OrderIterator:
        return _OrderIterator(self.env, self.max_iter)


class _OrderIterator(AECOrderEnforcingIterator):
    """The agents to act, as PettingZoo's iterator yields them (asserting that each was
    stepped), read from the raw env."""

    def __init__(self, env: _OrderWrapper, max_iter: int) -> None:
        super().__init__(env, max_iter)
        self._raw = env._raw

    def __next__(self) -> str:
        raw = self._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._has_updated = False
        return raw.agent_selection


def env(
    variant: Any = "baibian",
    render_mode: str | None = None,
    reward: str = DEFAULT_REWARD,
    render_lang: str = "en",
    illegal_action: str = "terminate",
    illegal_reward: float = -1.0,
    **overrides: Any,
) -> AECEnv:
    """The AEC env wrapped for safe use, as PettingZoo's classic envs are: actions outside
    the action space assert (AssertOutOfBoundsWrapper), calls out of order raise
    (OrderEnforcingWrapper). Illegal (masked-out) ids end the deal with a penalty by
    default (illegal_action="terminate", as PettingZoo's classic envs); "raise" raises
    ValueError, "random" plays a random legal action (docs/envs.md)."""
    raw = raw_env(
        variant=variant,
        render_mode=render_mode,
        reward=reward,
        render_lang=render_lang,
        illegal_action=illegal_action,
        illegal_reward=illegal_reward,
        **overrides,
    )
    return _OrderWrapper(_BoundsWrapper(raw))
