"""The batched VectorEnv from Python: zero-copy outputs, validation, determinism."""

from __future__ import annotations

import numpy as np
import pytest
import shuangkou as sk


def random_actions(info, rng):
    off = info["legal_offsets"]
    counts = np.diff(off)
    return info["legal_ids"][off[:-1] + (rng.random(len(counts)) * counts).astype(np.int64)]


def test_outputs_are_views_of_the_env_buffers():
    env = sk.VectorEnv(num_envs=64, variant="baibian", seed=1)
    obs, info = env.reset()
    assert obs.shape == (64, sk._core.observation_size()) and obs.dtype == np.float32
    assert info["action_mask"].shape == (64, env.num_actions) and info["action_mask"].dtype == np.int8
    assert not obs.flags.owndata  # wraps the C++ buffer
    obs2, _, _, _, info2 = env.step(random_actions(info, np.random.default_rng(0)))
    assert np.shares_memory(obs, obs2)  # the same buffer, rewritten in place
    # Mask rows and ragged ids agree; features have one row per legal move.
    off = info2["legal_offsets"]
    assert off[0] == 0 and off[-1] == len(info2["legal_ids"]) == len(info2["legal_features"])
    for j in range(64):
        ids = info2["legal_ids"][off[j] : off[j + 1]]
        assert sorted(ids.tolist()) == np.flatnonzero(info2["action_mask"][j]).tolist()
        np.testing.assert_array_equal(env.legal_actions(j), ids)


def test_bad_actions_raise_and_change_no_game():
    env = sk.VectorEnv(num_envs=8, variant="qianbian", seed=2)
    obs, info = env.reset()
    before = obs.copy()
    states = [env._core.state_json(j) for j in range(8)]
    good = random_actions(info, np.random.default_rng(1))
    bad_inputs = [
        (good.astype(np.float32), "integers"),
        (good[:5], r"shape \(8,\)"),
        (good.reshape(2, 4), r"shape \(8,\)"),
        (np.where(np.arange(8) == 3, env.num_actions, good), "env 3"),
        (np.where(np.arange(8) == 6, -1, good), "env 6"),
        ([True] * 8, "integers"),
    ]
    for actions, message in bad_inputs:
        with pytest.raises(ValueError, match=message):
            env.step(actions)
    # A legal-range id that is not legal for env 0's player.
    illegal = good.copy()
    illegal[0] = next(i for i in range(env.num_actions) if not info["action_mask"][0][i])
    with pytest.raises(ValueError, match="env 0"):
        env.step(illegal)
    np.testing.assert_array_equal(obs, before)
    assert [env._core.state_json(j) for j in range(8)] == states
    env.step(good)  # and it still steps


@pytest.mark.parametrize("huge", [10**20, -(10**20), 2**63, 10**5000], ids=["1e20", "-1e20", "2**63", "1e5000"])
def test_an_action_past_int64_names_its_env_and_changes_no_game(huge):
    """Issue 31: a list holding an int past int64 made numpy build an object (or float)
    array, refused as "dtype object"; it is the out-of-range error naming env and action."""
    env = sk.VectorEnv(num_envs=4, variant="baibian", seed=2)
    _, info = env.reset()
    states = [env._core.state_json(j) for j in range(4)]
    good = random_actions(info, np.random.default_rng(1)).tolist()
    shown = str(huge) if huge.bit_length() < 100 else r"2\*\*16609 or more"
    for actions in (good[:2] + [huge] + good[3:], tuple(good[:2] + [huge] + good[3:])):
        with pytest.raises(ValueError, match=rf"^env 2: action {shown} is not an action id \(0\.\.350\)$"):
            env.step(actions)
    with pytest.raises(ValueError, match="integers"):  # a float among them is still refused for its type
        env.step(good[:2] + [huge, 1.5])
    assert [env._core.state_json(j) for j in range(4)] == states
    env.step(good)


def test_results_do_not_depend_on_threads_and_deals_auto_reset():
    runs = []
    for threads in (1, 2):
        env = sk.VectorEnv(num_envs=96, variant="jj", seed=3, num_threads=threads, reward="win")
        _, info = env.reset()
        rng = np.random.default_rng(5)
        trace = []
        for _ in range(300):
            obs, rewards, dones, truncs, info = env.step(random_actions(info, rng))
            assert not truncs.any() and dones.dtype == np.bool_ and rewards.shape == (96, 4)
            trace.append((obs.copy(), rewards.copy(), dones.copy(), info["current_player"].copy()))
            for j in np.flatnonzero(dones):
                assert rewards[j].tolist() in ([1, -1, 1, -1], [-1, 1, -1, 1], [0, 0, 0, 0])
                assert info["final_scores"][j].sum() == 0  # jj is zero-sum
        runs.append((trace, info["episodes"].copy()))
    for a, b in zip(runs[0][0], runs[1][0]):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    assert (runs[0][1] > 1).any()  # deals ended and restarted


def test_opponents_play_inside_and_episode_seeds_match_games():
    env = sk.VectorEnv(num_envs=16, variant="baibian", seed=4, opponents={1: "heuristic", 3: "heuristic"})
    _, info = env.reset()
    assert set(info["current_player"].tolist()) <= {0, 2}
    plain = sk.VectorEnv(num_envs=3, variant="baibian", seed=4)
    plain.reset()
    for j in range(3):
        g = sk.Game("baibian", seed=sk.VectorEnv.episode_seed(4, j, 0))
        assert plain._core.state_json(j)["hands"] == g.initial_hands()
        assert plain._core.state_json(j)["current_player"] == g.current_player()
    with pytest.raises(ValueError, match="at least one seat"):
        sk.VectorEnv(num_envs=2, opponents=["random"] * 4)
    with pytest.raises(ValueError, match="num_envs"):
        sk.VectorEnv(num_envs=0)
    with pytest.raises(ValueError, match="reward"):
        sk.VectorEnv(num_envs=2, reward="points")
    with pytest.raises(ValueError, match="unknown bot"):
        sk.VectorEnv(num_envs=2, opponents={1: "genius"})


def test_gymnasium_vector_shape_final_observations_and_reset_seed():
    gym = pytest.importorskip("gymnasium")
    env = sk.VectorEnv(num_envs=32, variant="classic", seed=8)
    assert env.single_observation_space.shape == (sk._core.observation_size(),)
    assert env.single_action_space.n == env.num_actions
    assert env.observation_space.shape == (32, sk._core.observation_size())
    assert env.action_space.shape == (32,)
    assert env.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    obs, info = env.reset(seed=11)
    first = obs.copy()
    # Mirror every env in its own Game, by action ids, to check the final observations.
    games = [sk.Game("classic", seed=sk.VectorEnv.episode_seed(11, j, 0)) for j in range(32)]
    rng = np.random.default_rng(3)
    finished = 0
    for _ in range(400):
        actions = random_actions(info, rng)
        for j, g in enumerate(games):
            g.apply_action(int(actions[j]))
        obs, rewards, terms, truncs, info = env.step(actions)
        for j in np.flatnonzero(terms):
            g = games[j]
            assert g.is_over() and info["_final_obs"][j]
            for seat in range(4):
                np.testing.assert_array_equal(info["final_obs"][j, seat], sk._core.encode_observation(g, seat))
            assert info["final_scores"][j].tolist() == g.scores()
            games[j] = sk.Game("classic", seed=sk.VectorEnv.episode_seed(11, j, int(info["episodes"][j]) - 1))
            finished += 1
    assert finished > 10
    # reset() replays the same deals; reset(seed=) changes them.
    np.testing.assert_array_equal(env.reset()[0], first)
    assert not np.array_equal(env.reset(seed=12)[0], first)
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.step(np.zeros(32, dtype=np.int64))


def test_rules_resolved_once_and_shared():
    rules = sk.Rules("qianbian_collect")
    env = sk.VectorEnv(num_envs=2, variant=rules)
    assert env.rules == rules and env.num_actions == rules.num_actions
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        sk.VectorEnv(num_envs=2, colour="red")


# ---------------------------------------------------------------------------- arguments checked


@pytest.mark.parametrize("env_index", [-1, -4, 4, 5, 2**70], ids=["-1", "-num_envs", "num_envs", "num_envs+1", "huge"])
def test_vector_env_legal_actions_out_of_range(env_index):
    """10: venv.legal_actions(-1) returned an empty array (a slice across the
    offsets), not an error. Fixed: IndexError or ValueError for any index outside
    0..num_envs-1."""
    venv = sk.VectorEnv(num_envs=4, variant="baibian", seed=0)
    venv.reset()
    with pytest.raises((IndexError, ValueError)):
        got = venv.legal_actions(env_index)
        pytest.fail(f"legal_actions({env_index}) returned {got!r}")
    for j in range(4):  # in range still fine
        assert len(venv.legal_actions(j)) > 0


def test_vector_env_opponents_are_checked():
    def callable_bot(obs, mask, seats):
        return mask.argmax(axis=1)

    with pytest.raises(ValueError, match="built-in bots"):
        sk.VectorEnv(num_envs=2, variant="classic", opponents={1: callable_bot})
    with pytest.raises(ValueError, match="seats are the integers"):
        sk.VectorEnv(num_envs=2, variant="classic", opponents={True: "random"})
    with pytest.raises(ValueError, match="opponents"):
        sk.VectorEnv(num_envs=2, variant="classic", opponents=(x for x in [None, "random", None, "random"]))
    env = sk.VectorEnv(num_envs=2, variant="classic", opponents={1: " heuristic "})  # stripped, as elsewhere
    env.reset(seed=0)
