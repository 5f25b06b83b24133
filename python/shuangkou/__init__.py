"""Shuangkou (双扣): a fast rules engine and self-play simulator.

The rules live in C++ (``shuangkou._core``); this package re-exports them::

    import shuangkou as sk
    r = sk.Rules("baibian")
    r.read("5 6 7 8 BJ").reading        # '5 6 7 8 9'
    r.legal_moves("3 3 4 5 6 7 BJ")      # canonical moves when leading

This file only re-exports the public names; `_native` assembles the package first
(docs/architecture.md).
"""

from . import _native  # noqa: F401 - first: the build of _core, the models, the config reader
from ._core import (
    MAX_MOVES,
    Game,
    InfoView,
    Match,
    Play,
    QNet,
    Rules,
    builtin_models,
    level_title,
    param_names,
    parse_cards,
    preset_names,
    set_builtin_models,
)
from .agents import Agent, Bot, Decisions
from .envs.actions import action_to_play, num_actions, play_to_action
from .envs.observation_fields import move_feature_slices, move_view, obs_view, observation_slices, state_slices
from .envs.vector import VectorEnv
from .runs.arena import arena
from .runs.selfplay import SelfPlayResult, selfplay
from .util.version import VERSION

__all__ = [
    "Agent",
    "Bot",
    "builtin_models",
    "set_builtin_models",
    "Decisions",
    "arena",
    "MAX_MOVES",
    "Game",
    "InfoView",
    "Match",
    "Play",
    "QNet",
    "Rules",
    "level_title",
    "param_names",
    "parse_cards",
    "preset_names",
    "SelfPlayResult",
    "selfplay",
    "VectorEnv",
    "action_to_play",
    "num_actions",
    "play_to_action",
    "PolicyAgent",
    "policy_agent",
    "obs_view",
    "move_view",
    "observation_slices",
    "state_slices",
    "move_feature_slices",
]
__version__ = VERSION  # pyproject.toml's

# Re-exported on first use: the PettingZoo AEC env (needs pettingzoo), the
# Stable-Baselines3 adapter (an integration; its module is large) and the
# exploitability probe (needs torch), by module.
_LAZY = {
    "env": "envs.aec",
    "raw_env": "envs.aec",
    "exploit": "dmc.exploit",
    "PolicyAgent": "integrations.sb3",
    "policy_agent": "integrations.sb3",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
