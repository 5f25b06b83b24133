"""Batched environments stepped in C++: the fast path for learners.

    env = sk.VectorEnv(num_envs=1024, variant="baibian", seed=0)
    obs, info = env.reset(seed=0)
    while True:
        actions = my_policy(obs, info["action_mask"], info["current_player"])  # one id per env
        obs, rewards, terminations, truncations, info = env.step(actions)

The shape of `gymnasium.vector.VectorEnv` (reset(seed=, options=) -> (obs, info);
step(actions) -> (obs, rewards, terminations, truncations, info);
single_observation_space, single_action_space, observation_space, action_space, close()),
kept multi-agent: every env plays its own deals of four seats; the player to act in env j
is info["current_player"][j] and the action (an id of the variant's catalogue, 0 = pass)
is for that player; rewards are per seat, float32 [num_envs, 4].

Autoreset: gymnasium's AutoresetMode.SAME_STEP. A finished deal reports its rewards (by
seat) with terminations[j] True, and the env moves on to its next deal in the same step:
the observation returned is the next deal's first; the finished deal's final observation,
from each seat's view, is info["final_obs"][j] (float32 [num_envs, 4, obs_size], valid
where info["_final_obs"][j]). truncations are always False (a deal always ends).

Observations, masks, rewards and flags are numpy views of C++ buffers (no copy): they are
overwritten by the next step, so copy what you keep. info also holds DouZero-style
legal-move features: rows legal_offsets[j]:legal_offsets[j+1] of legal_ids /
legal_features belong to env j, ids ascending (the pass, id 0, first where legal; the
order Game.legal_action_ids has).

One thread at a time: a second thread's step() or reset() while one runs raises
RuntimeError (docs/errors.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .. import _core
from ..util.checks import int_arg
from .options import DEFAULT_REWARD, check_reward, observation_box


def _autoreset_mode() -> Any:
    """gymnasium's AutoresetMode.SAME_STEP where gymnasium has it, else its name."""
    try:
        from gymnasium.vector import AutoresetMode
    except ImportError:  # pragma: no cover - gymnasium is optional or older
        return "same_step"
    return AutoresetMode.SAME_STEP


def _seat_bots(opponents: str | Sequence[str | None] | Mapping[int, str] | None) -> list[str | None]:
    """One built-in bot name or None per seat; ValueError naming a bad entry."""
    if opponents is None:
        return [None] * 4
    if isinstance(opponents, Mapping):
        bots: list[str | _core.Bot | None] = [None] * 4
        for seat, name in opponents.items():
            if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or seat not in range(4):
                raise ValueError(f"opponents: seats are the integers 0..3, got {seat!r}")
            bots[int(seat)] = _bot_name(name, f"opponents[{int(seat)}]")
        return bots
    if isinstance(opponents, str) or not isinstance(opponents, Sequence) or len(opponents) != 4:
        raise ValueError(
            "opponents: a list of 4 entries (a built-in bot, its name, or None per seat) or a {seat: name} dict"
        )
    return [None if name is None else _bot_name(name, f"opponents[{seat}]") for seat, name in enumerate(opponents)]


def _bot_name(name: Any, what: str) -> str | _core.Bot:
    if isinstance(name, _core.Bot):
        return name
    if not isinstance(name, str):
        raise ValueError(
            f"{what}: VectorEnv seats are played by built-in bots (a name such as 'heuristic'), got "
            f"{type(name).__name__}; Python agents play through selfplay, the arena or the Gymnasium env"
        )
    return name.strip()


class VectorEnv:
    """num_envs deals stepped together in C++ (GIL released, OpenMP threads).

    variant: a preset, a YAML file or a Rules; overrides: any variant parameter.
    opponents: seats played inside C++ by built-in bots ({seat: "heuristic"} or a list
    of 4 with None for the seats you play); by default you play all four seats.
    reward: "win" (+1/-1 by team, 0 for a draw; the default), "score" (deal score) or "log".
    dense_mask: fill info["action_mask"] ([num_envs, num_actions] int8; None when
    False); the ragged info["legal_ids"] is always there.
    docs/envs.md documents every argument.
    """

    def __init__(
        self,
        num_envs: int = 1024,
        variant: Any = "baibian",
        seed: int = 0,
        num_threads: int | None = None,
        reward: str = DEFAULT_REWARD,
        opponents: Any = None,
        dense_mask: bool = True,
        **overrides: Any,
    ) -> None:
        num_envs = int_arg(num_envs, "num_envs", 1, 1 << 24)
        num_threads = int_arg(num_threads or 0, "num_threads", 0, _core.MAX_THREADS, " (0 or None: every core)")
        seed = int_arg(seed, "seed", 0, 2**64 - 1)
        check_reward(reward)
        if not isinstance(dense_mask, (bool, np.bool_)):
            raise ValueError(f"dense_mask must be True or False, got {dense_mask!r:.60}")
        self.rules = _core.Rules(variant, **overrides)  # resolved once; the core shares its catalogue
        self.variant = variant if isinstance(variant, str) else self.rules.name
        self.seed = seed
        self._core = _core.VectorEnvCore(
            self.rules, num_envs, seed, num_threads or 0, _seat_bots(opponents), reward, bool(dense_mask)
        )
        self.num_envs = num_envs
        self.num_actions = self._core.num_actions
        self.observation_size = _core.observation_size()
        self.observation_layout = _core.observation_layout()
        self.catalogue = self.rules.catalogue
        self.closed = False
        self._views()
        self._truncations = np.zeros(num_envs, dtype=np.bool_)
        self.metadata: dict[str, Any] = {"autoreset_mode": _autoreset_mode()}
        self.autoreset_mode = self.metadata["autoreset_mode"]
        try:
            from gymnasium import spaces
        except ImportError:  # pragma: no cover - gymnasium is optional
            self.single_observation_space = self.single_action_space = None
            self.observation_space = self.action_space = None
        else:
            self.single_observation_space = observation_box(self.observation_size)
            self.single_action_space = spaces.Discrete(self.num_actions)
            self.observation_space = observation_box(num_envs, self.observation_size)
            self.action_space = spaces.MultiDiscrete(np.full(num_envs, self.num_actions))

    @staticmethod
    def episode_seed(seed: int, env: int, episode: int) -> int:
        """The deal seed of episode `episode` (0-based) of env `env`: Game(variant, seed=...) deals it."""
        return _core.VectorEnvCore.episode_seed(seed, env, episode)

    def _views(self) -> None:
        """Numpy views of the core's fixed buffers, made once (the buffers never move)."""
        c = self._core
        self._obs, self._rewards, self._dones = c.obs, c.rewards, c.dones.view(np.bool_)
        self._fixed_info = {
            "action_mask": c.mask,
            "current_player": c.current_player,
            "final_scores": c.final_scores,
            "episodes": c.episodes,
        }
        self._final_obs = c.final_obs

    def _info(self, dones: np.ndarray | None = None) -> dict[str, Any]:
        c = self._core
        info = dict(self._fixed_info)
        info["legal_ids"] = c.legal_ids  # new arrays each step (ragged)
        info["legal_offsets"] = c.legal_offsets
        info["legal_features"] = c.legal_features
        if dones is not None:
            info["final_obs"] = self._final_obs
            info["_final_obs"] = dones
        return info

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts episode 0 of every env: of the base seed given here, else of the last one
        (so a plain reset() replays the same deals)."""
        self._check_open()
        if seed is not None:
            self.seed = int_arg(seed, "seed", 0, 2**64 - 1)
        self._core.reset(self.seed)
        return self._obs, self._info()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        self._check_open()
        a = np.asarray(actions)
        if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            self._check_huge(actions)  # ints past int64 (as a list) make an object or float array
            raise ValueError(f"actions must be integers (action ids), got dtype {a.dtype}")
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        if a.size and (a.min() < 0 or a.max() >= self.num_actions):
            bad = int(np.argmax((a < 0) | (a >= self.num_actions)))
            raise ValueError(f"env {bad}: action {int(a[bad])} is not an action id (0..{self.num_actions - 1})")
        self._core.step(np.ascontiguousarray(a, dtype=np.int32))
        return self._obs, self._rewards, self._dones, self._truncations, self._info(self._dones)

    def _check_huge(self, actions: Any) -> None:
        """ValueError naming the env and the action, where `actions` is a list or tuple of
        num_envs Python ints of which one is out of range (numpy cannot hold one past
        uint64 as an integer, or 2**63 and up beside a signed one)."""
        if not isinstance(actions, (list, tuple)) or len(actions) != self.num_envs:
            return
        if not all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in actions):
            return
        bad = next((j for j, x in enumerate(actions) if not 0 <= x < self.num_actions), None)
        if bad is not None:
            n = int(actions[bad])  # (str() of an int of over 4,300 digits raises: say its size instead)
            shown = str(n) if n.bit_length() <= 128 else f"{'-' if n < 0 else ''}2**{n.bit_length() - 1} or more"
            raise ValueError(f"env {bad}: action {shown} is not an action id (0..{self.num_actions - 1})")

    def close(self) -> None:
        """Marks the env closed: later calls raise RuntimeError. (The C++ buffers are freed
        with the object.)"""
        self.closed = True

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError("the VectorEnv is closed: make a new one")

    def legal_actions(self, env: int) -> np.ndarray:
        """The legal action ids of env `env` (0..num_envs-1) this step."""
        env = int_arg(env, "env", 0, self.num_envs - 1)
        off = self._core.legal_offsets
        return self._core.legal_ids[off[env] : off[env + 1]]
