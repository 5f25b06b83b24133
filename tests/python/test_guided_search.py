"""The guided search `dmc+search` (cpp/src/bots/guided.cc) from Python: an agent
everywhere agents are taken, legal in every preset, reproducible, equal to `dmc` with
no budget, and refused with a message naming a bad spec. Blindness to hidden cards is
the C++ conformance and resampling tests' (tests/cpp)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import shuangkou as sk
from shuangkou import _core

PRESETS = ["classic", "baibian", "qianbian", "qianbian_collect", "jj"]


@pytest.mark.parametrize("variant", PRESETS)
def test_it_plays_whole_deals_in_every_preset_and_searches_near_ties(variant):
    # The built-in network of the preset, or where none is shipped the baibian one by its file.
    guide = "dmc" if variant in sk.builtin_models() else f"dmc:{sk.builtin_models()['baibian']}?variant=any"
    bot = sk.Bot(f"{guide}+search:8")
    result = sk.selfplay(variant, games=4, agents=[bot, "heuristic"], threads=1, seed=3)
    assert result["games"] == 4
    counters = bot.counters()
    assert counters["decisions"] > 40
    assert 0 < counters["searched"] <= counters["decisions"]
    assert counters["changed"] <= counters["searched"]


def test_the_same_seed_gives_the_same_deals_whatever_the_thread_count():
    runs = [
        sk.selfplay("baibian", games=6, agents=["dmc+search:8", "heuristic"], threads=t, seed=11).arrays for t in (1, 2)
    ]
    for key in ("scores", "places", "actions"):
        np.testing.assert_array_equal(runs[0][key], runs[1][key])


def test_with_no_budget_it_plays_the_networks_choice_and_never_searches():
    bot = sk.Bot("dmc+search:0")
    with_search = sk.selfplay("baibian", games=20, agents=[bot, "greedy"], threads=1, seed=5).arrays
    plain = sk.selfplay("baibian", games=20, agents=["dmc", "greedy"], threads=1, seed=5).arrays
    for key in ("scores", "places", "actions", "bombs"):
        np.testing.assert_array_equal(with_search[key], plain[key])
    assert bot.counters()["searched"] == 0 and bot.counters()["decisions"] > 0


def test_its_values_are_the_networks_and_it_steps_legally():
    game = sk.Game("baibian", seed=4)
    guided, dmc = sk.Bot("dmc+search:16"), sk.Bot("dmc")
    assert guided.values(game) == dmc.values(game)
    while not game.is_over():
        action = guided.step(game)
        assert action in game.legal_action_ids()
        game.apply_action(action)


def test_it_is_an_agent_by_name_in_the_arena_and_pickles_by_name():
    result = sk.arena("baibian", ["dmc+search:4", "random"], deals=4, threads=1)
    assert result["agents"] == ["dmc+search:4", "random"]
    bot = sk.Bot("dmc+search:4")
    again = pickle.loads(pickle.dumps(bot))
    assert again.name == "dmc+search:4"


@pytest.mark.parametrize(
    ("spec", "part"),
    [
        ("dmc+search:-1", "integer 0.."),
        ("dmc+search:many", "integer 0.."),
        ("dmc+search:", "needs its ROLLOUTS"),
        ("dmc:missing.safetensors+search", "missing.safetensors"),
        ("heuristic+search", "rates its moves"),
        ("search:8+search", "rates its moves"),
    ],
)
def test_a_bad_spec_is_refused_naming_it(spec, part):
    with pytest.raises(ValueError) as e:
        sk.selfplay(games=1, agents=spec)
    assert spec.split("+")[0] in str(e.value) and part in str(e.value)
    with pytest.raises(ValueError, match="rates its moves|integer|ROLLOUTS|missing"):
        _core.Bot(spec)
