"""Shuangkou (双扣): a fast rules engine and self-play simulator.

The rules live in C++ (``shuangkou._core``); this package re-exports them::

    import shuangkou as sk
    r = sk.Rules("baibian")
    r.read("5 6 7 8 BJ").reading        # '5 6 7 8 9'
    r.legal_moves("3 3 4 5 6 7 BJ")      # canonical moves when leading
"""

import os as _os

from ._cpu import choose as _choose_build

_choose_build(__path__)  # the x86-64-v3 build of _core where the CPU has it (see _cpu.py)
from ._core import (  # noqa: E402
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

# The built-in agent "dmc": the networks shipped in shuangkou/models, dmc_PRESET.safetensors, each
# played in its own rule set (docs/dmc_model.md).
_MODELS = _os.path.join(_os.path.dirname(__file__), "models")
set_builtin_models(
    {
        name: _os.path.join(_MODELS, f"dmc_{name}.safetensors")
        for name in preset_names()
        if _os.path.exists(_os.path.join(_MODELS, f"dmc_{name}.safetensors"))
    }
)


def _register_rules_loader() -> None:
    """Hands the core the reader of variant config files, as it is handed the models:
    a constructor given a path (Rules, Game, VectorEnv, selfplay, ...) calls it. The
    reader (shuangkou.config, with PyYAML) is imported on the first path, not here."""

    def load_rules(path: str) -> Rules:
        from .config import load_rules as load

        return load(path)

    _core.set_rules_loader(load_rules)


from . import _core  # noqa: E402

_register_rules_loader()
from .agents import Agent, Bot, Decisions  # noqa: E402
from .arena import arena  # noqa: E402
from .envs.actions import action_to_play, num_actions, play_to_action  # noqa: E402
from .layout import (  # noqa: E402
    move_feature_slices,
    move_view,
    obs_view,
    observation_slices,
    state_slices,
)
from .policies import PolicyAgent, policy_agent  # noqa: E402
from .selfplay import SelfPlayResult, selfplay  # noqa: E402
from .vector import VectorEnv  # noqa: E402

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
from importlib.metadata import PackageNotFoundError as _NotFound  # noqa: E402
from importlib.metadata import version as _version  # noqa: E402

try:  # the one version number is pyproject.toml's
    __version__ = _version("shuangkou")
except _NotFound:  # pragma: no cover - a source tree that was never installed
    __version__ = "0+unknown"

_LAZY_ENVS = ("env", "raw_env")  # the PettingZoo AEC env, imported on first use (needs pettingzoo)


def __getattr__(name: str):
    if name in _LAZY_ENVS:
        from .envs import aec

        value = getattr(aec, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_ENVS))


try:  # the Gymnasium single-agent env, where Gymnasium is installed
    import gymnasium as _gymnasium
except ImportError:  # pragma: no cover - gymnasium is optional
    _gymnasium = None
if _gymnasium is not None and "shuangkou/Shuangkou-v0" not in _gymnasium.registry:
    _gymnasium.register(id="shuangkou/Shuangkou-v0", entry_point="shuangkou.envs.gym_env:ShuangkouEnv")
