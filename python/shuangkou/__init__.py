"""Shuangkou (双扣): a fast rules engine and self-play simulator.

The rules live in C++ (``shuangkou._core``); this package re-exports them::

    import shuangkou as sk
    r = sk.Rules("baibian")
    r.read("5 6 7 8 BJ").reading        # '5 6 7 8 9'
    r.legal_moves("3 3 4 5 6 7 BJ")      # canonical moves when leading
"""

from ._core import (
    MAX_MOVES,
    Game,
    Match,
    Play,
    Rules,
    level_title,
    param_names,
    parse_cards,
    preset_names,
)
from .selfplay import SelfPlayResult, selfplay
from .vector import VectorEnv
from .envs.actions import action_to_play, num_actions, play_to_action

__all__ = [
    "MAX_MOVES",
    "Game",
    "Match",
    "Play",
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
]
__version__ = "0.1.0"
