"""Bots as objects (shuangkou.Bot): made once from the registry, passed through every runner."""

import copy
import math
import pickle

import numpy as np
import pytest
import shuangkou as sk
from shuangkou import _core
from shuangkou.agents import resolve_agent, seat_labels

SHIPPED = "python/shuangkou/models/dmc_baibian.safetensors"


def test_registry_lists_every_bot_with_its_argument():
    rows = sk._core.bot_registry()
    assert [r["name"] for r in rows] == _core.bot_names()
    assert _core.bot_names()[:6] == ["random", "simple", "greedy", "heuristic", "search", "dmc"]
    by_name = {r["name"]: r for r in rows}
    assert by_name["search"]["argument"] == "optional" and by_name["search"]["argument_name"] == "ROLLOUTS"
    assert by_name["heuristic"]["argument"] == "none" and by_name["heuristic"]["description"]


def test_a_bot_is_made_once_and_labelled_by_its_name():
    b = sk.Bot("search:64")
    assert b.name == "search:64" and b.slow and not sk.Bot("greedy").slow
    assert repr(b) == "Bot('search:64')"
    assert resolve_agent(b) is b
    assert isinstance(resolve_agent("heuristic"), sk.Bot)
    for bad, needle in [("smart", "unknown bot 'smart'"), ("greedy:4", "takes no argument"), ("search:0", "1..")]:
        with pytest.raises(ValueError, match=needle):
            sk.Bot(bad)
    with pytest.raises(ValueError, match="a bot is a shuangkou.Bot or a bot's name"):
        sk.Bot(3)


def test_bot_objects_and_names_play_the_same_deals():
    by_name = sk.selfplay("classic", games=40, agents=["heuristic", "greedy"], seed=5)
    by_object = sk.selfplay("classic", games=40, agents=[sk.Bot("heuristic"), sk.Bot("greedy")], seed=5)
    assert by_name["agents"] == by_object["agents"] == ["heuristic", "greedy", "heuristic", "greedy"]
    for key in by_name.arrays:
        np.testing.assert_array_equal(by_name.arrays[key], by_object.arrays[key])


def test_a_dmc_bot_from_a_network_in_memory_plays_as_its_model_file(tmp_path):
    net = sk.QNet.load(SHIPPED)
    from_file = sk.selfplay("baibian", games=16, agents=[f"dmc:{SHIPPED}", "greedy"], seed=2)
    in_memory = sk.selfplay("baibian", games=16, agents=[sk.Bot.dmc(net, "mine"), "greedy"], seed=2)
    assert in_memory["agents"][0] == "mine"
    np.testing.assert_array_equal(from_file.arrays["scores"], in_memory.arrays["scores"])
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(sk.Bot.dmc(net))


def test_the_arena_reads_a_model_file_once(tmp_path):
    # The model file is removed as soon as play starts: every pair and half still plays
    # the network read when the agent was resolved (names used to be loaded again per seat).
    model = tmp_path / "model.safetensors"
    model.write_bytes(open(SHIPPED, "rb").read())

    def remove(done, total):
        model.unlink(missing_ok=True)

    r = sk.arena("baibian", agents=[f"dmc:{model}", "greedy", "random"], deals=4, seed=1, progress=remove)
    assert not model.exists()
    assert [p["a"] for p in r["pairs"]][:2] == [f"dmc:{model}"] * 2
    assert all(p["deals"] == 4 for p in r["pairs"])


def test_step_plays_one_legal_action_reproducibly():
    g = sk.Game("baibian", seed=9)
    for name in ["random", "heuristic", "search:16", "dmc"]:
        b = sk.Bot(name)
        a = b.step(g)
        assert a in g.legal_action_ids()
        assert b.step(g) == a  # the same position, the same answer
    while not g.is_over():
        g.apply_action(sk.Bot("greedy").step(g))
    with pytest.raises(ValueError, match="the deal is over"):
        sk.Bot("greedy").step(g)


def test_copies_and_pickles_are_the_same_bot():
    b = sk.Bot("search:32")
    assert copy.deepcopy(b) == b and copy.copy(b) == b
    assert pickle.loads(pickle.dumps(b)).name == "search:32"


def test_module_callables_are_labelled_as_typed():
    labels = seat_labels([resolve_agent("agents_for_tests:last_legal"), resolve_agent("heuristic")] * 2)
    assert labels == ["agents_for_tests:last_legal", "heuristic"] * 2


def test_the_dmc_bot_rates_every_legal_action_and_plays_its_best():
    rules = sk.Rules("baibian")
    dmc, heuristic = sk.Bot("dmc"), sk.Bot("heuristic")
    for seed in range(3):
        g = sk.Game(rules, seed=seed)
        while not g.is_over():
            values = dmc.values(g)
            assert sorted(values) == sorted(int(i) for i in g.legal_action_ids())
            assert all(math.isfinite(v) for v in values.values())
            assert dmc.step(g) == max(values, key=values.get)
            assert heuristic.values(g) is None
            g.apply_action(heuristic.step(g))
        with pytest.raises(ValueError, match="the deal is over"):
            dmc.values(g)
