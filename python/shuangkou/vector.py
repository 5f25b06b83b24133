"""Batched environments stepped in C++: the fast path for learners.

    env = sk.VectorEnv(num_envs=1024, variant="baibian", seed=0)
    obs, info = env.reset()
    while True:
        actions = my_policy(obs, info["action_mask"], info["current_player"])  # one id per env
        obs, rewards, dones, info = env.step(actions)

Every env plays its own deals; the player to act in env j is info["current_player"][j]
and the action (an id of the variant's catalogue, 0 = pass) is for that player.
Observations, masks, rewards and done flags are numpy views of C++ buffers (no copy):
they are overwritten by the next step, so copy what you keep. A finished deal reports
its rewards (by seat) with done=True and the env moves on to its next deal (auto-reset);
the observation is then the next deal's. info also holds DouZero-style legal-move
features: rows legal_offsets[j]:legal_offsets[j+1] of legal_ids / legal_features belong to
env j (the pass, when legal, is the last row).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import _core
from ._args import int_arg


def _seat_bots(opponents: str | Sequence[str | None] | Mapping[int, str] | None) -> list[str | None]:
    if opponents is None:
        return [None] * 4
    if isinstance(opponents, Mapping):
        bots: list[str | None] = [None] * 4
        for seat, name in opponents.items():
            if seat not in range(4):
                raise ValueError(f"opponents: seats are 0..3, got {seat!r}")
            bots[seat] = name
        return bots
    if isinstance(opponents, str) or len(opponents) != 4:
        raise ValueError("opponents: a list of 4 entries (a built-in bot name or None per seat) or a {seat: name} dict")
    return list(opponents)


class VectorEnv:
    """num_envs deals stepped together in C++ (GIL released, OpenMP threads).

    variant: a preset or a YAML file; overrides: any variant parameter.
    opponents: seats played inside C++ by built-in bots ({seat: "heuristic"} or a list
    of 4 with None for the seats you play); by default you play all four seats.
    reward: "score" (deal score), "win" (+1/-1 by team, 0 for a draw) or "log".
    dense_mask: fill info["action_mask"] ([num_envs, num_actions] int8); the ragged
    info["legal_ids"] is always there.
    """

    def __init__(
        self,
        num_envs: int = 1024,
        variant: str = "baibian",
        seed: int = 0,
        num_threads: int | None = None,
        reward: str = "score",
        opponents: Any = None,
        dense_mask: bool = True,
        **overrides: Any,
    ) -> None:
        num_envs = int_arg(num_envs, "num_envs", 1, 1 << 24)
        num_threads = int_arg(num_threads or 0, "num_threads", 0, _core.MAX_THREADS, " (0 or None: every core)")
        seed = int_arg(seed, "seed", 0, 2**64 - 1)
        self.variant = variant
        self.seed = seed
        self._core = _core.VectorEnvCore(
            variant, num_envs, seed, num_threads or 0, _seat_bots(opponents), reward, dense_mask, **overrides
        )
        self.num_envs = num_envs
        self.num_actions = self._core.num_actions
        self.observation_size = _core.observation_size()
        self.observation_layout = _core.observation_layout()
        self.catalogue = self._core.rules.catalogue  # the core's own (built once)

    @staticmethod
    def episode_seed(seed: int, env: int, episode: int) -> int:
        """The deal seed of episode `episode` (0-based) of env `env`: Game(variant, seed=...) deals it."""
        return _core.VectorEnvCore.episode_seed(seed, env, episode)

    def _info(self) -> dict[str, Any]:
        c = self._core
        return {
            "action_mask": c.mask,
            "current_player": c.current_player,
            "final_scores": c.final_scores,
            "episodes": c.episodes,
            "legal_ids": c.legal_ids,
            "legal_offsets": c.legal_offsets,
            "legal_features": c.legal_features,
        }

    def reset(self) -> tuple[np.ndarray, dict[str, Any]]:
        self._core.reset()
        return self._core.obs, self._info()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        a = np.asarray(actions)
        if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be integers (action ids), got dtype {a.dtype}")
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        if a.size and (a.min() < 0 or a.max() >= self.num_actions):
            bad = int(np.argmax((a < 0) | (a >= self.num_actions)))
            raise ValueError(f"env {bad}: action {int(a[bad])} is not an action id (0..{self.num_actions - 1})")
        self._core.step(np.ascontiguousarray(a, dtype=np.int32))
        c = self._core
        return c.obs, c.rewards, c.dones.view(np.bool_), self._info()

    def legal_actions(self, env: int) -> np.ndarray:
        """The legal action ids of env `env` (0..num_envs-1) this step."""
        env = int_arg(env, "env", 0, self.num_envs - 1)
        off = self._core.legal_offsets
        return self._core.legal_ids[off[env] : off[env + 1]]
