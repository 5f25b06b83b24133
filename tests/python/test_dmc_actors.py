"""The C++ Deep Monte-Carlo actors: they play as the dmc bot does, label every decision
with its deal's final reward and the weights' version, and refuse bad arguments."""

from __future__ import annotations

import numpy as np
import pytest
import shuangkou as sk

OBS, MOVE = sk._core.observation_size(), sk._core.MOVE_FEATURE_SIZE


def random_net(seed: int = 0, hidden=(32, 16)) -> sk.QNet:
    rng = np.random.default_rng(seed)
    shapes = sk.QNet.tensor_shapes(OBS, MOVE, list(hidden))
    return sk.QNet(OBS, MOVE, list(hidden), {n: rng.normal(0, 0.3, s).astype(np.float32) for n, s in shapes})


def test_greedy_actors_play_the_dmc_bots_deals_and_label_them_with_the_result(tmp_path):
    net = random_net()
    path = tmp_path / "m.safetensors"
    path.write_bytes(net.to_bytes())
    deals = 40
    actors = sk._core.DmcActors("baibian", net, version=7, num_envs=16, seed=5, epsilon=0.0, deals=deals)
    s = actors.collect(10**9)  # deals mode: stops when every deal is done
    assert actors.deals_finished == deals and actors.decisions == len(s["target"])
    ref = sk.selfplay("baibian", games=deals, agents=f"dmc:{path}", seed=5)
    np.testing.assert_array_equal(np.bincount(s["deal"], minlength=deals), ref.arrays["actions"])
    assert s["obs"].shape == (len(s["target"]), OBS) and s["move"].shape == (len(s["target"]), MOVE)
    assert s["obs"].dtype == np.float32 and s["seat"].dtype == np.int8 and set(s["version"]) == {7}
    for i in range(deals):
        rows = s["deal"] == i
        outcome, first = ref.arrays["outcome"][i], ref.arrays["places"][i, 0]
        want = np.where(s["seat"][rows] % 2 == first % 2, 1.0, -1.0) if outcome != 2 else np.zeros(rows.sum())
        np.testing.assert_array_equal(s["target"][rows], want)  # the "win" reward of the deciding seat
        # The seats take turns as the game says: the first decision is the deal's leader's.
        assert s["seat"][rows][0] == ref.arrays["leader"][i]


def test_results_do_not_depend_on_threads_and_versions_follow_set_network():
    net = random_net(1)
    a = sk._core.DmcActors("jj", net, num_envs=8, seed=2, threads=1, epsilon=0.0, deals=12).collect(10**9)
    b = sk._core.DmcActors("jj", net, num_envs=8, seed=2, threads=2, epsilon=0.0, deals=12).collect(10**9)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    actors = sk._core.DmcActors("classic", net, version=0, num_envs=8, seed=3, epsilon=0.1)
    first = actors.collect(500)
    actors.set_network(random_net(2), 1)
    second = actors.collect(2000)
    assert len(first["target"]) >= 500 and set(first["version"]) == {0}
    assert 1 in set(second["version"])  # decisions after the push carry the new version
    assert set(np.unique(second["target"])) <= {-1.0, 0.0, 1.0}


def test_score_rewards_and_exploration():
    net = random_net(3)
    s = sk._core.DmcActors("baibian", net, num_envs=8, seed=1, reward="score", epsilon=1.0).collect(3000)
    assert np.abs(s["target"]).max() > 1  # deal scores, not just +-1
    # Every chosen move is a legal move's feature row: its pass flag or some reading.
    assert np.all((s["move"][:, -1] == 1) | (s["move"][:, :15].sum(axis=1) > 0))


def outcome_targets(s: dict, ref, deals: int) -> None:
    for i in range(deals):
        rows = s["deal"] == i
        outcome, first = ref.arrays["outcome"][i], ref.arrays["places"][i, 0]
        want = np.where(s["seat"][rows] % 2 == first % 2, 1.0, -1.0) if outcome != 2 else np.zeros(rows.sum())
        np.testing.assert_array_equal(s["target"][rows], want)


def test_a_teacher_plays_its_share_and_an_opponent_takes_seats_1_and_3():
    net, deals = random_net(4), 30
    ref = sk.selfplay("baibian", games=deals, agents="heuristic", seed=8)
    # The teacher making every decision: the heuristic's own deals, every seat learning.
    taught = sk._core.DmcActors(
        "baibian", net, num_envs=8, seed=8, epsilon=0.0, deals=deals, teacher="heuristic", teacher_prob=1.0
    ).collect(10**9)
    np.testing.assert_array_equal(np.bincount(taught["deal"], minlength=deals), ref.arrays["actions"])
    outcome_targets(taught, ref, deals)
    # Against a heuristic opponent only seats 0 and 2 learn; with the teacher the deals are the same.
    against = sk._core.DmcActors(
        "baibian",
        net,
        num_envs=8,
        seed=8,
        epsilon=0.0,
        deals=deals,
        opponent="heuristic",
        teacher="heuristic",
        teacher_prob=1.0,
    ).collect(10**9)
    assert set(np.unique(against["seat"])) == {0, 2}
    assert 0.3 < len(against["target"]) / ref.arrays["actions"].sum() < 0.7
    outcome_targets(against, ref, deals)
    # Without the teacher the network plays seats 0 and 2: other deals, the same seats.
    alone = sk._core.DmcActors("baibian", net, num_envs=8, seed=8, epsilon=0.0, deals=deals, opponent="heuristic")
    s = alone.collect(10**9)
    assert set(np.unique(s["seat"])) == {0, 2} and not np.array_equal(s["move"][:50], against["move"][:50])
    with pytest.raises(ValueError, match="no teacher"):
        alone.set_teacher_prob(0.5)
    with pytest.raises(ValueError, match="teacher_prob"):
        sk._core.DmcActors("baibian", net, teacher="heuristic").set_teacher_prob(1.5)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"epsilon": 1.5}, "epsilon"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"reward": "money"}, "money"),
        ({"num_envs": 0}, "num_envs"),
        ({"deals": -2}, "deals"),
        ({"variant": "nope"}, "nope"),
        ({"opponent": "nobody"}, "nobody"),
        ({"teacher": "search:0"}, "search"),
        ({"teacher_prob": 0.5}, "no teacher"),
        ({"teacher": "heuristic", "teacher_prob": -0.1}, "teacher_prob"),
    ],
)
def test_bad_arguments(kwargs, match):
    args = {"variant": "classic", "net": random_net(), **kwargs}
    with pytest.raises(ValueError, match=match):
        sk._core.DmcActors(**args)


def test_a_network_of_other_sizes_is_refused():
    rng = np.random.default_rng(0)
    small = sk.QNet(7, 3, [4], {n: rng.normal(size=s).astype(np.float32) for n, s in sk.QNet.tensor_shapes(7, 3, [4])})
    with pytest.raises(ValueError, match="observations of 7 floats"):
        sk._core.DmcActors("classic", small)
    actors = sk._core.DmcActors("classic", random_net())
    with pytest.raises(ValueError, match="observations of 7 floats"):
        actors.set_network(small, 1)


# ---------------------------------------------------------------------------- arguments (issue 17, red-team pass)


@pytest.mark.parametrize(
    "change, needle",
    [
        ({"num_envs": True}, "num_envs"),
        ({"num_envs": 2**31}, "num_envs"),
        ({"version": -1}, "version"),
        ({"version": True}, "version"),
        ({"epsilon": True}, "epsilon"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"epsilon": "0.1"}, "epsilon"),
        ({"teacher_prob": 2.0}, "teacher_prob"),
        ({"deals": -2}, "deals"),
        ({"threads": 10**6}, "threads"),
    ],
)
def test_actor_arguments_are_checked(change, needle):
    """Bools passed as integers, negative versions and out-of-range counts were accepted;
    2**31 envs gave pybind11's TypeError."""
    with pytest.raises(ValueError, match=needle):
        sk._core.DmcActors("classic", random_net(), **{"num_envs": 8, **change})


def test_collect_and_setters_check_their_arguments():
    actors = sk._core.DmcActors("classic", random_net(), num_envs=8)
    for bad in (-1, 0, True, 2.5):
        with pytest.raises(ValueError, match="min_samples"):
            actors.collect(bad)
    with pytest.raises(ValueError, match="min_samples=1099511627776 needs about"):
        actors.collect(2**40)  # was std::bad_alloc, or a process killed for memory
    with pytest.raises(ValueError, match="teacher_prob must be"):
        actors.set_teacher_prob("0.5")
    with pytest.raises(ValueError, match="version"):
        actors.set_network(random_net(), -1)
    assert len(actors.collect(1)["target"]) >= 1  # (nothing above changed the actors)


# ---------------------------------------------------------------------------- a heuristic prior in the actors


def test_a_network_with_a_heuristic_prior_is_played_as_the_dmc_bot_plays_it(tmp_path):
    net = random_net(5).with_metadata({"heuristic_prior": "0.3"})
    path = tmp_path / "m.safetensors"
    path.write_bytes(net.to_bytes())
    deals = 30
    s = sk._core.DmcActors("baibian", net, num_envs=8, seed=4, epsilon=0.0, deals=deals).collect(10**9)
    ref = sk.selfplay("baibian", games=deals, agents=f"dmc:{path}", seed=4)
    np.testing.assert_array_equal(np.bincount(s["deal"], minlength=deals), ref.arrays["actions"])
    outcome_targets(s, ref, deals)
    alone = sk._core.DmcActors("baibian", random_net(5), num_envs=8, seed=4, epsilon=0.0, deals=deals).collect(10**9)
    assert not np.array_equal(np.bincount(alone["deal"], minlength=deals), ref.arrays["actions"])


def test_a_flat_network_with_a_prior_plays_the_heuristic_and_set_network_takes_the_prior_along():
    flat = {n: np.zeros(shape, np.float32) for n, shape in sk.QNet.tensor_shapes(OBS, MOVE, [8])}
    net = sk.QNet(OBS, MOVE, [8], flat, {"heuristic_prior": "1"})  # every Q is 0: the prior decides
    deals = 30
    ref = sk.selfplay("jj", games=deals, agents="heuristic", seed=6)
    s = sk._core.DmcActors("jj", net, num_envs=8, seed=6, epsilon=0.0, deals=deals).collect(10**9)
    np.testing.assert_array_equal(np.bincount(s["deal"], minlength=deals), ref.arrays["actions"])
    outcome_targets(s, ref, deals)
    # Pushed later, the prior goes with the weights (and away with them).
    actors = sk._core.DmcActors("jj", random_net(6), num_envs=8, seed=6, epsilon=0.0, deals=deals)
    actors.set_network(net, 1)
    pushed = actors.collect(10**9)
    np.testing.assert_array_equal(pushed["move"], s["move"])
    actors = sk._core.DmcActors("jj", net, num_envs=8, seed=6, epsilon=0.0, deals=deals)
    actors.set_network(net.with_metadata({"heuristic_prior": None}), 1)  # every Q 0: the first legal row
    first = actors.collect(10**9)
    assert not np.array_equal(np.bincount(first["deal"], minlength=deals), ref.arrays["actions"])


@pytest.mark.parametrize("value", ["-0.1", "1.5", "nan", "high"])
def test_a_bad_prior_is_refused_naming_it_and_the_actors_keep_their_network(value):
    bad = random_net(7).with_metadata({"heuristic_prior": value})
    with pytest.raises(ValueError, match="heuristic_prior"):
        sk._core.DmcActors("classic", bad)
    actors = sk._core.DmcActors("classic", random_net(7), version=3, num_envs=8, seed=1, epsilon=0.0)
    with pytest.raises(ValueError, match="heuristic_prior"):
        actors.set_network(bad, 4)
    assert set(actors.collect(200)["version"]) == {3}


def test_with_metadata_sets_and_removes_keys_of_a_copy():
    net = random_net(8).with_metadata({"heuristic_prior": "0.05", "note": "x"})
    changed = net.with_metadata({"heuristic_prior": None, "search_gap": "0.06"})
    shape = {"format", "obs_size", "move_size", "hidden"}  # (every network's metadata gives these)
    assert {k: v for k, v in net.metadata.items() if k not in shape} == {"heuristic_prior": "0.05", "note": "x"}
    assert {k: v for k, v in changed.metadata.items() if k not in shape} == {"note": "x", "search_gap": "0.06"}
    assert {k: changed.metadata[k] for k in shape} == {k: net.metadata[k] for k in shape}
    for k, v in net.tensors().items():
        np.testing.assert_array_equal(changed.tensors()[k], v)
    assert sk.QNet.from_bytes(changed.to_bytes()).metadata == changed.metadata
    for bad in ({"k": 1}, {3: "v"}):
        with pytest.raises(ValueError, match="metadata"):
            net.with_metadata(bad)
