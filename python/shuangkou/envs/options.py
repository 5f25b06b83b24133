"""The options every env of the package shares, checked one way, and its spaces.

    from shuangkou.envs.options import check_reward, check_illegal_action, observation_box
    check_reward("win")                      # ValueError naming a mode that is not one
    check_illegal_action("terminate", -1.0)  # -> -1.0, the penalty as a float
    observation_box(445)                     # gymnasium Box(-100, 100, (445,), float32)

The Gymnasium env (`gym_env.py`), the PettingZoo env (`aec.py`) and the batched
`VectorEnv` (`shuangkou/vector.py`) take `reward` from `REWARDS` (default
`DEFAULT_REWARD`) and, the two single-deal envs, `illegal_action` from
`ILLEGAL_ACTIONS` with a finite `illegal_reward`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_REWARD",
    "ILLEGAL_ACTIONS",
    "OBS_BOUND",
    "REWARDS",
    "check_illegal_action",
    "check_reward",
    "observation_box",
]

REWARDS = ("win", "score", "log")  # docs/observation.md: what each mode pays
DEFAULT_REWARD = "win"  # the reward default of every env of the package
ILLEGAL_ACTIONS = ("terminate", "raise", "random")  # what an illegal action does
OBS_BOUND = 100.0  # every observation feature lies in [-OBS_BOUND, OBS_BOUND]


def check_reward(reward: Any) -> str:
    """`reward` if it is one of `REWARDS`; ValueError naming it otherwise."""
    if not isinstance(reward, str) or reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r:.60}")
    return reward


def check_illegal_action(illegal_action: Any, illegal_reward: Any) -> float:
    """Checks `illegal_action` (one of `ILLEGAL_ACTIONS`) and `illegal_reward` (a finite
    number in [-1e9, 1e9], never a bool); returns the reward as a float. ValueError
    naming the argument otherwise."""
    if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_ACTIONS:
        raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTIONS)}, got {illegal_action!r:.60}")
    if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float, np.number)):
        raise ValueError(f"illegal_reward must be a number, got {illegal_reward!r:.60}")
    if not -1e9 <= illegal_reward <= 1e9:  # (NaN fails this too)
        raise ValueError(f"illegal_reward must be a finite number in [-1e9, 1e9], got {illegal_reward!r:.40}")
    return float(illegal_reward)


def observation_box(*shape: int) -> Any:
    """The gymnasium space of observations of this shape: float32 in [-OBS_BOUND, OBS_BOUND]."""
    from gymnasium import spaces

    return spaces.Box(-OBS_BOUND, OBS_BOUND, shape, np.float32)
