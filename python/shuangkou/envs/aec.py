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

from .. import _core
from .actions import catalogue
from .render import render_game

NUM_SEATS = 4
REWARD_MODES = ("score", "win", "log")
RENDER_LANGS = ("en", "zh")


class raw_env(AECEnv):
    """Shuangkou (双扣) as a PettingZoo AEC environment (unwrapped)."""

    metadata = {
        "name": "shuangkou_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        variant: str = "baibian",
        render_mode: str | None = None,
        reward: str = "score",
        render_lang: str = "en",
        **overrides: Any,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}, got {reward!r}")
        if render_lang not in RENDER_LANGS:
            raise ValueError(f"render_lang must be 'en' or 'zh', got {render_lang!r}")
        self.variant = variant
        self.overrides = dict(overrides)
        self.render_mode = render_mode
        self.render_lang = render_lang
        self.reward_mode = reward
        self.catalogue = catalogue(variant, **overrides)  # validates the variant and overrides
        self.num_actions = len(self.catalogue)
        self.observation_size = _core.observation_size()
        self.observation_layout = _core.observation_layout()

        self.possible_agents = [f"player_{i}" for i in range(NUM_SEATS)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=-100.0, high=100.0, shape=(self.observation_size,), dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.game: _core.Game | None = None
        self.deal_seed: int | None = None
        self._np_random: np.random.Generator | None = None
        self._np_random_seed: int | None = None
        self._legal: dict[int, Any] | None = None  # action id -> move, for the current state

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
            game = _core.Game(self.variant, seed=seed, **self.overrides)  # validates the seed first
            self._np_random, self._np_random_seed = seeding.np_random(seed)
            self.deal_seed = int(seed)
        else:
            self.deal_seed = int(self.np_random.integers(0, 2**64, dtype=np.uint64))
            game = _core.Game(self.variant, seed=self.deal_seed, **self.overrides)
        self.game = game
        self._legal = None
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

    def _legal_moves(self) -> dict[int, Any]:
        """Legal action ids of the player to act -> the move each plays (first canonical
        move with that id, as sk.VectorEnv chooses; 'pass' for id 0)."""
        if self._legal is None:
            legal: dict[int, Any] = {}
            game = self.game
            if not game.is_over():
                id_of = self.catalogue.id_of
                for move in game.legal_moves():
                    legal.setdefault(id_of(move), move)
                if game.can_pass():
                    legal[0] = "pass"
            self._legal = legal
        return self._legal

    def legal_actions(self) -> list[int]:
        """The legal action ids of the agent to act (sorted); empty once the deal is over."""
        if self.game is None:
            raise RuntimeError("call reset() first")
        return sorted(self._legal_moves())

    def action_mask(self, agent: str) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if (
            agent == self.agent_selection
            and not self.terminations.get(agent, True)
            and not self.truncations.get(agent, True)
        ):
            ids = list(self._legal_moves())
            mask[ids] = 1
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
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"{agent}: the action must be an integer action id, got {action!r}")
        a = int(action)
        legal = self._legal_moves()
        if a not in legal:
            if not 0 <= a < self.num_actions:
                why = f"is not an action id (0..{self.num_actions - 1})"
            elif a == 0:
                why = "is a pass, but this player leads the trick"
            else:
                why = f"is not legal here ({self.catalogue.pattern(a)!r})"
            raise ValueError(f"{agent}: action {a} {why}")

        game = self.game
        game.apply(legal[a])
        self._legal = None
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


def env(
    variant: str = "baibian",
    render_mode: str | None = None,
    reward: str = "score",
    render_lang: str = "en",
    **overrides: Any,
) -> AECEnv:
    """The AEC env wrapped for safe use: out-of-range actions assert, calls out of order raise.
    Illegal (masked-out) ids raise ValueError from the env itself."""
    e: AECEnv = raw_env(variant=variant, render_mode=render_mode, reward=reward, render_lang=render_lang, **overrides)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e
