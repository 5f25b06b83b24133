"""Arguments the bindings convert (cpp/bindings/common.cc): text and integers.

Text handed to the C++ core that is not valid text (issue 17): a str with a lone
surrogate cannot be encoded as UTF-8, and pybind11's own conversion answered with
"incompatible function arguments" (a TypeError that names no argument). Every name
the core takes now goes through the one conversion Rules uses (text_arg), and paths
through os.fsencode: a ValueError naming the argument. Integers may be Python ints or
numpy integers, with the same result."""

from __future__ import annotations

import numpy as np
import pytest
import shuangkou as sk
from shuangkou import _core

# ---------------------------------------------------------------------------- names and paths


def _net() -> sk.QNet:
    obs, move = _core.observation_size(), _core.MOVE_FEATURE_SIZE
    shapes = sk.QNet.tensor_shapes(obs, move, [4])
    return sk.QNet(obs, move, [4], {n: np.zeros(s, np.float32) for n, s in shapes})


CALLS = {
    "bot_label search": (lambda: _core.bot_label("search:\ud800"), "bot name"),
    "bot_label dmc": (lambda: _core.bot_label("dmc:\ud800"), "bot name"),
    "run_selfplay agents": (
        lambda: _core.run_selfplay("baibian", 2, ["random", "heuristic", "search:\ud800", "random"]),
        "agent of seat 2",
    ),
    "DmcActors opponent": (lambda: _core.DmcActors("baibian", _net(), opponent="heur\ud800istic"), "opponent"),
    "DmcActors teacher": (lambda: _core.DmcActors("baibian", _net(), teacher="dmc:\ud800"), "teacher"),
    "DmcActors reward": (lambda: _core.DmcActors("baibian", _net(), reward="w\ud800"), "reward"),
    "VectorEnvCore bots": (
        lambda: _core.VectorEnvCore("baibian", 2, 0, 1, [None, "\ud800:x", None, None], "win", True),
        "bot of seat 1",
    ),
    "VectorEnvCore reward": (
        lambda: _core.VectorEnvCore("baibian", 2, 0, 1, [None] * 4, "\ud800", True),
        "reward",
    ),
    "set_builtin_models path": (lambda: _core.set_builtin_models({"jj": "models/\ud800.safetensors"}), "path"),
    "set_builtin_models preset": (lambda: _core.set_builtin_models({"\ud800": "m.safetensors"}), "preset"),
    "QNet.load": (lambda: sk.QNet.load("\ud800"), "path"),
    "Game.from_json": (lambda: sk.Game.from_json('{"x": "\ud800"}'), "record"),
    "Match.from_json": (lambda: sk.Match.from_json('{"x": "\ud800"}'), "record"),
    "Game.rewards mode": (lambda: _finished_game().rewards("\ud800"), "mode"),
    "preset_description": (lambda: _core.preset_description("\ud800"), "name"),
}


def _finished_game() -> sk.Game:
    g = sk.Game("classic", seed=1)
    while not g.is_over():
        g.apply(g.legal_moves()[0] if not g.can_pass() else "pass")
    return g


def test_a_nul_in_a_bot_name_is_named_whole():
    """bot_label("x\0y") said "unknown bot 'x": the C++ message ended at the NUL."""
    with pytest.raises(ValueError, match="NUL") as e:
        _core.bot_label("x\0y")
    assert "\\x00" in str(e.value)


def test_a_long_unknown_preset_is_not_echoed_whole():
    with pytest.raises(ValueError, match=r"unknown variant preset 'x{60}\.\.\. \(50000 characters\)'") as e:
        sk.Rules("x" * 50_000)
    assert len(str(e.value)) < 400
    with pytest.raises(ValueError) as e:
        _core.bot_label("y" * 50_000)
    assert len(str(e.value)) < 400, len(str(e.value))


@pytest.mark.parametrize("call", list(CALLS), ids=list(CALLS))
def test_lone_surrogates_in_names_are_a_value_error_naming_the_argument(call):
    fn, argument = CALLS[call]
    with pytest.raises(ValueError) as e:
        fn()
    assert str(e.value).startswith(argument + ":") and "lone surrogate" in str(e.value), str(e.value)


def test_names_of_other_types_are_a_value_error_and_good_names_still_work():
    with pytest.raises(ValueError, match="bot name: a bot is a shuangkou.Bot or a bot's name, got 3"):
        _core.bot_label(3)
    with pytest.raises(ValueError, match=r"agents \(one bot per seat\): one entry per seat"):
        _core.run_selfplay("baibian", 2, "random")
    with pytest.raises(ValueError, match=r"bots \(None for an external seat\): one entry per seat"):
        _core.VectorEnvCore("baibian", 2, 0, 1, [None] * 3, "win", True)
    assert _core.bot_label("search:400") == "search:400"
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        _core.bot_label("nobody")
    r = _core.run_selfplay("baibian", 3, ("random", "heuristic", "greedy", "simple"), seed=1)
    assert len(r["scores"]) == 3


# ---------------------------------------------------------------------------- cards and variant parameters


_SURROGATE_CALLS = {
    "parse_cards str": lambda: sk.parse_cards("\ud800"),
    "parse_cards list": lambda: sk.parse_cards(["5", "\ud800"]),
    "read": lambda: sk.Rules("baibian").read("5 \ud800"),
    "readings": lambda: sk.Rules("baibian").readings("\ud800"),
    "beats": lambda: sk.Rules("baibian").beats("\ud800", "5"),
    "legal_moves": lambda: sk.Rules("baibian").legal_moves("3 4", previous="\ud800"),
    "Rules parameter": lambda: sk.Rules("baibian", tianwang="\ud800"),
    "Rules variant": lambda: sk.Rules("\ud800"),
    "Rules parameter name": lambda: sk.Rules("baibian", **{"max_bomb\ud800": 8}),
    "Game hands": lambda: sk.Game("baibian", hands=["\ud800", "4", "5", "6"]),
    "play_to_action": lambda: sk.play_to_action("baibian", "\ud800"),
}


@pytest.mark.parametrize("call", list(_SURROGATE_CALLS.values()), ids=list(_SURROGATE_CALLS))
def test_lone_surrogates_raise_value_error(call):
    """A lone surrogate in a card string or a parameter raised RuntimeError
    ("Unable to cast Python instance...") or TypeError. Fixed: ValueError."""
    with pytest.raises(ValueError):
        call()


# ---------------------------------------------------------------------------- numpy integers


def _np_int_cases():
    i = np.int64
    return {
        "Rules max_bomb": (
            lambda: sk.Rules("baibian", max_bomb=i(10)).params,
            lambda: sk.Rules("baibian", max_bomb=10).params,
        ),
        "Game seed": (lambda: sk.Game("baibian", seed=i(3)).to_json(), lambda: sk.Game("baibian", seed=3).to_json()),
        "selfplay seed": (
            lambda: sk.selfplay(games=20, threads=1, seed=i(1)).arrays["scores"].tolist(),
            lambda: sk.selfplay(games=20, threads=1, seed=1).arrays["scores"].tolist(),
        ),
        "selfplay games": (
            lambda: sk.selfplay(games=i(20), threads=1, seed=1).arrays["scores"].tolist(),
            lambda: sk.selfplay(games=20, threads=1, seed=1).arrays["scores"].tolist(),
        ),
        "selfplay threads": (
            lambda: sk.selfplay(games=20, threads=i(1), seed=1).arrays["scores"].tolist(),
            lambda: sk.selfplay(games=20, threads=1, seed=1).arrays["scores"].tolist(),
        ),
        "Game hand": (lambda: sk.Game("baibian", seed=3).hand(i(1)), lambda: sk.Game("baibian", seed=3).hand(1)),
        "Game leader": (
            lambda: sk.Game("baibian", hands=["3", "4", "5", "6"], leader=i(2)).to_json(),
            lambda: sk.Game("baibian", hands=["3", "4", "5", "6"], leader=2).to_json(),
        ),
        "Match": (
            lambda: sk.Match("classic", seed=i(1), deals=i(2)).game.to_json(),
            lambda: sk.Match("classic", seed=1, deals=2).game.to_json(),
        ),
        "VectorEnv": (
            lambda: sk.VectorEnv(num_envs=i(4), seed=i(2)).reset()[0].tolist(),
            lambda: sk.VectorEnv(num_envs=4, seed=2).reset()[0].tolist(),
        ),
        "action_to_play": (lambda: sk.action_to_play("classic", i(1)), lambda: sk.action_to_play("classic", 1)),
        "score": (
            lambda: sk.Rules("classic").score([i(0), i(2), i(1), i(3)]),
            lambda: sk.Rules("classic").score([0, 2, 1, 3]),
        ),
        "episode_seed": (lambda: sk.VectorEnv.episode_seed(i(1), 0, 0), lambda: sk.VectorEnv.episode_seed(1, 0, 0)),
    }


_NP_INT = _np_int_cases()


@pytest.mark.parametrize("name", list(_NP_INT))
def test_numpy_integers_are_accepted_wherever_ints_are(name):
    """np.int64 was refused ("bad value np.int64(10)", "seed must be an integer") where a
    Python int is accepted. Fixed: accepted, with the same result."""
    with_np, with_int = _NP_INT[name]
    assert with_np() == with_int()
