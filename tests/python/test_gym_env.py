"""The Gymnasium single-agent env (shuangkou/Shuangkou-v0)."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
import shuangkou as sk  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from shuangkou.agents import AgentError  # noqa: E402
from shuangkou.envs.gym_env import ENV_ID, ShuangkouEnv  # noqa: E402

OUTCOMES = sk._core.OUTCOMES

RESULTS = {1: "win", 0: "draw", -1: "loss"}  # info["result"] codes

PRESETS = sk.preset_names()


def masked_random(rng: np.random.Generator):
    def act(mask: np.ndarray) -> int:
        return int(rng.choice(np.flatnonzero(mask)))

    return act


def game_mask(game: sk.Game, variant: str, **overrides) -> np.ndarray:
    """The legal ids of a Game's current player, from the Game's own move list."""
    cat = sk.envs.actions.catalogue(variant, **overrides)
    m = np.zeros(len(cat), np.int8)
    for p in game.legal_moves():
        m[cat.id_of(p)] = 1
    if game.can_pass():
        m[0] = 1
    return m


def play_deal(env, act, obs=None, info=None):
    """Plays one deal to its end; returns the transitions (obs, info, action, reward, term, info')."""
    if info is None:
        obs, info = env.reset()
    steps = []
    while True:
        a = act(info["action_mask"])
        nobs, r, term, trunc, ninfo = env.step(a)
        assert trunc is False
        steps.append((obs, info, a, r, term, ninfo))
        obs, info = nobs, ninfo
        if term:
            return steps, obs, info


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Not able to test alternative render modes.*")
        warnings.filterwarnings("ignore", message=".*is different from the unwrapped version.*")
        yield


# ---------------------------------------------------------------- API conformance
@pytest.mark.parametrize("variant", PRESETS)
def test_check_env(variant):
    # check_env steps unmasked random actions: illegal_action="random" replaces them
    # by legal ones (the default, "raise", would raise ValueError there).
    check_env(ShuangkouEnv(variant, illegal_action="random"))
    env = gym.make(ENV_ID, variant=variant, illegal_action="random")
    check_env(env.unwrapped)  # with a spec: also re-makes the env in each render mode
    check_env(env)
    check_env(
        gym.make(
            ENV_ID,
            variant=variant,
            opponents="random",
            control_partner=True,
            illegal_action="random",
            render_mode="ansi",
        ).unwrapped
    )


def test_registered_after_import_and_spaces():
    env = gym.make(ENV_ID, variant="baibian", opponents="heuristic")
    u = env.unwrapped
    assert isinstance(u, ShuangkouEnv)
    assert u.observation_space.shape == (sk._core.observation_size(),)
    assert u.observation_space.dtype == np.float32
    assert u.action_space.n == sk.num_actions("baibian")
    obs, info = env.reset(seed=3)
    assert obs.dtype == np.float32 and obs in u.observation_space
    assert info["action_mask"].shape == (u.action_space.n,)
    assert np.array_equal(u.action_masks(), info["action_mask"].astype(bool))
    # the sampled action under the mask is legal
    a = u.action_space.sample(mask=info["action_mask"])
    env.step(a)


def test_import_without_gymnasium():
    code = "import sys; sys.modules['gymnasium'] = None; import shuangkou; print(shuangkou.Rules('classic').name)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "classic"


def test_bad_arguments():
    with pytest.raises(ValueError):
        ShuangkouEnv(opponents="grandmaster")
    with pytest.raises(ValueError):
        ShuangkouEnv(opponents=3)
    with pytest.raises(ValueError):
        ShuangkouEnv(seat=4)
    with pytest.raises(ValueError):
        ShuangkouEnv(reward="points")
    with pytest.raises(ValueError):
        ShuangkouEnv(render_mode="rgb")
    with pytest.raises(ValueError):
        ShuangkouEnv("baibian", no_such_parameter=1)
    with pytest.raises(ValueError):
        ShuangkouEnv("no_such_variant")
    with pytest.raises(RuntimeError):
        ShuangkouEnv().step(0)


# ---------------------------------------------------------------- masks and observations
@pytest.mark.parametrize("variant", PRESETS)
def test_masks_and_observations_match_a_replayed_game(variant):
    """Callable opponents: every action is known, so the test replays each deal in its
    own sk.Game (dealt from info["deal_seed"]) and compares every observation and mask
    (the learner's and the opponents') and the end-of-deal results."""
    rng = np.random.default_rng(5)
    act = masked_random(rng)
    log: list[tuple[int, int, np.ndarray, np.ndarray]] = []

    def opponent(obs, mask, seats):  # the agent contract: a batch (of one decision here)
        assert obs.shape == (1, sk._core.observation_size()) and mask.shape[0] == 1 and seats.shape == (1,)
        a = act(mask[0])
        log.append((int(seats[0]), a, obs[0].copy(), mask[0].copy()))
        return np.array([a])

    env = ShuangkouEnv(variant, opponents=opponent, seat=2, reward="score")
    cat = env.catalogue

    def replay(game, entry):
        seat, a, o, m = entry
        assert game.current_player() == seat
        assert np.array_equal(o, sk._core.encode_observation(game, seat))
        assert np.array_equal(m, game_mask(game, variant))
        _apply_id(game, cat, a)

    obs, info = env.reset(seed=7)
    game = sk.Game(variant, seed=info["deal_seed"])
    for entry in log:  # the opponents' opening moves
        replay(game, entry)
    log.clear()
    deals = 0
    while deals < 3:
        assert info["current_player"] == 2 == game.current_player()
        assert np.array_equal(info["action_mask"], game_mask(game, variant))
        assert np.array_equal(obs, sk._core.encode_observation(game, 2))
        a = act(info["action_mask"])
        _apply_id(game, cat, a)
        obs, r, term, _, info = env.step(a)
        moves, i = list(log), 0
        log.clear()
        while i < len(moves) and not game.is_over():  # the opponents' replies
            replay(game, moves[i])
            i += 1
        assert term == game.is_over()
        if not term:
            assert r == 0.0 and i == len(moves)
            continue
        deals += 1
        assert i == len(moves)  # the opponents do not open the next deal before reset()
        assert r == game.scores()[2]
        # The terminal observation is the finished deal's, from the learner's seat.
        assert np.array_equal(obs, sk._core.encode_observation(game, 2))
        assert not info["action_mask"].any() and info["current_player"] == -1
        assert info["deal_seed"] == sk.VectorEnv.episode_seed(7, 0, deals - 1)
        assert info["final_scores"].tolist() == game.scores()
        assert OUTCOMES[info["outcome"]] == game.outcome() == info["outcome_name"]
        assert info["places"].tolist() == game.finish_order()
        first_team = game.finish_order()[0] % 2
        expected = "draw" if game.outcome() == "draw" else ("win" if first_team == 0 else "loss")
        assert RESULTS[int(info["result"])] == expected
        obs, info = env.reset()  # the next deal of the sequence; the opponents open it now
        assert info["deal_seed"] == sk.VectorEnv.episode_seed(7, 0, deals)
        game = sk.Game(variant, seed=info["deal_seed"])
        for entry in log:
            replay(game, entry)
        log.clear()


def _apply_id(game: sk.Game, cat, a: int) -> None:
    game.apply_action(a)


@pytest.mark.parametrize("variant", PRESETS)
def test_masks_equal_legal_moves_with_bots(variant):
    """Built-in bots in C++: the core's record of the deal (an sk.Game replayed from it)
    reproduces every observation and mask exactly."""
    rng = np.random.default_rng(2)
    act = masked_random(rng)
    env = ShuangkouEnv(variant, opponents="heuristic", render_mode="ansi")
    obs, info = env.reset(seed=5)
    for _ in range(3):
        while True:
            g = env._core.current_game(0)
            seat = info["current_player"]
            assert seat == 0
            assert np.array_equal(obs, sk._core.encode_observation(g, seat))
            assert np.array_equal(info["action_mask"], game_mask(g, variant))
            assert "seat 0" in env.render()
            obs, r, term, _, info = env.step(act(info["action_mask"]))
            if term:
                assert "deal over" in env.render()
                obs, info = env.reset()
                break


# ---------------------------------------------------------------- determinism and resets
@pytest.mark.parametrize("opponents", ["heuristic", "random", "callable"])
def test_deterministic_for_a_seed(opponents):
    def run():
        rng = np.random.default_rng(3)
        act = masked_random(rng)
        orng = np.random.default_rng(4)
        opp = (lambda o, m, s: orng.choice(np.flatnonzero(m[0]), size=1)) if opponents == "callable" else opponents
        env = ShuangkouEnv("qianbian", opponents=opp, control_partner=True)
        out = []
        obs, info = env.reset(seed=123)
        for _ in range(4):
            steps, obs, info = play_deal(env, act, obs, info)
            out += [(o.tobytes(), i["deal_seed"], a, r, t) for o, i, a, r, t, _ in steps]
            obs, info = env.reset()
        return out

    assert run() == run()


def test_deal_seeds_follow_episode_seeds():
    env = ShuangkouEnv("baibian", opponents="random")
    act = masked_random(np.random.default_rng(0))
    obs, info = env.reset(seed=99)
    for k in range(4):
        assert info["deal_seed"] == sk.VectorEnv.episode_seed(99, 0, k)
        hand = sk.Game("baibian", seed=info["deal_seed"]).initial_hands()[0]
        assert np.allclose(obs[:15] * 8 + obs[35:50] * 8, _rank_counts(hand))  # hand + played = dealt
        _, obs, info = play_deal(env, act, obs, info)
        assert info["deal_seed"] == sk.VectorEnv.episode_seed(99, 0, k)  # the finished deal's
        obs, info = env.reset()  # the next deal of the sequence
    # a reset in the middle of a deal abandons it
    env.step(act(info["action_mask"]))
    _, info3 = env.reset()
    assert info3["deal_seed"] != info["deal_seed"]
    # and reset(seed) restarts the sequence
    _, info4 = env.reset(seed=99)
    assert info4["deal_seed"] == sk.VectorEnv.episode_seed(99, 0, 0)


def _rank_counts(cards: str) -> np.ndarray:
    ranks = ["3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "SJ", "BJ"]
    c = np.zeros(15)
    for t in cards.split():
        c[ranks.index(t)] += 1
    return c


def test_step_after_termination_needs_reset():
    env = ShuangkouEnv("classic", opponents="random")
    act = masked_random(np.random.default_rng(8))
    obs, info = env.reset(seed=1)
    _, obs, info = play_deal(env, act, obs, info)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    _, info = env.reset()
    assert info["deal_seed"] == sk.VectorEnv.episode_seed(1, 0, 1)


# ---------------------------------------------------------------- illegal actions
def test_illegal_action_raises_and_changes_nothing():
    env = ShuangkouEnv("baibian", opponents="heuristic", illegal_action="raise")
    obs, info = env.reset(seed=0)
    mask = info["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[1])
    for bad in (illegal, -1, env.action_space.n, 1.5, True, "3", np.array([1, 2])):
        with pytest.raises(ValueError):
            env.step(bad)
    assert np.array_equal(env.step(np.int64(np.flatnonzero(mask)[0]))[0].shape, obs.shape)
    # a pass when leading is illegal
    env2 = ShuangkouEnv("baibian", opponents="random", illegal_action="raise")
    for s in range(50):
        _, info2 = env2.reset(seed=s)
        if not info2["action_mask"][0]:
            with pytest.raises(ValueError, match="not legal"):
                env2.step(0)
            break
    else:
        pytest.fail("the learner never leads a deal")


@pytest.mark.parametrize(
    "huge", [10**20, -(10**20), 2**63, np.uint64(2**64 - 1)], ids=["1e20", "-1e20", "2**63", "u64"]
)
def test_an_action_past_int64_is_refused_as_out_of_the_space(huge):
    """Issue 31 (the AEC env overflowed on 10**20): the Gymnasium env, raw and made by
    gymnasium.make, refuses it as any id outside the space and changes nothing."""
    for env in (ShuangkouEnv("baibian", opponents="random"), gym.make(ENV_ID, opponents="random")):
        obs, info = env.reset(seed=4)
        with pytest.raises(ValueError, match=rf"^action {int(huge)} is not in the action space Discrete\(351\)"):
            env.step(huge)
        legal = int(np.flatnonzero(info["action_mask"])[0])
        assert env.step(legal)[0].shape == obs.shape  # nothing changed: the deal goes on


def test_illegal_action_random_mode():
    env = ShuangkouEnv("baibian", illegal_action="random")
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, _, _, _, info = env.step(illegal)
    assert info["illegal_action"] == np.bool_(True)
    with pytest.raises(ValueError):
        ShuangkouEnv(illegal_action="ignore")


def test_illegal_action_terminates_by_default():
    """As PettingZoo's classic envs: the deal ends, the learner gets illegal_reward, a
    warning names the action, and the next reset() deals anew."""
    env = ShuangkouEnv("baibian", opponents="heuristic")
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match=f"illegal action {illegal}"):
        obs2, r, term, trunc, info2 = env.step(illegal)
    assert (r, term, trunc) == (-1.0, True, False) and info2["illegal_action"]
    assert np.array_equal(obs2, obs) and not info2["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    _, info3 = env.reset()
    assert info3["action_mask"].any()
    env = ShuangkouEnv("baibian", illegal_reward=-5)
    _, info = env.reset(seed=0)
    with pytest.warns(UserWarning):
        assert env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))[1] == -5.0


# ---------------------------------------------------------------- seats and opponents
def test_control_partner_acts_for_both_seats():
    for seat in range(4):
        env = ShuangkouEnv("jj", opponents="heuristic", seat=seat, control_partner=True)
        act = masked_random(np.random.default_rng(seat))
        obs, info = env.reset(seed=seat)
        actors = set()
        for _ in range(3):
            steps, obs, info = play_deal(env, act, obs, info)
            actors |= {i["current_player"] for _, i, *_ in steps}
            obs, info = env.reset()
        assert actors == {seat, seat ^ 2}


def test_control_partner_observation_is_the_acting_seat():
    env = ShuangkouEnv("baibian", opponents="random", control_partner=True, render_mode="ansi")
    act = masked_random(np.random.default_rng(0))
    obs, info = env.reset(seed=4)
    for _ in range(200):
        g = env._core.current_game(0)
        assert g.current_player() == info["current_player"] in (0, 2)
        assert np.array_equal(obs, sk._core.encode_observation(g, info["current_player"]))
        obs, r, term, _, info = env.step(act(info["action_mask"]))
        if term:
            obs, info = env.reset()


def test_callable_opponents_first_legal():
    calls = []

    def first_legal(obs, mask, seats):
        assert obs.shape == (1, sk._core.observation_size()) and obs.dtype == np.float32
        assert mask.dtype == np.int8 and seats.dtype == np.int64
        calls.append(int(seats[0]))
        return np.array([np.flatnonzero(mask[0])[0]], dtype=np.int64)

    env = gym.make(ENV_ID, variant="baibian", opponents=first_legal, seat=3)
    act = masked_random(np.random.default_rng(0))
    obs, info = env.reset(seed=2)
    results = []
    for _ in range(10):
        steps, obs, info = play_deal(env, act, obs, info)
        assert all(i["current_player"] == 3 for _, i, *_ in steps)
        results.append(int(info["result"]))
        assert int(info["outcome"]) in (0, 1, 2)
        obs, info = env.reset()
    assert set(calls) == {0, 1, 2}
    assert set(results) <= {1, 0, -1}


def test_callable_opponent_illegal_action_raises():
    env = ShuangkouEnv("baibian", opponents=lambda o, m, s: np.flatnonzero(m[0] == 0)[:1], seat=0)
    with pytest.raises(ValueError, match="opponents"):
        for s in range(10):  # the first seat to act may be the learner
            _, info = env.reset(seed=s)
            env.step(int(np.flatnonzero(info["action_mask"])[0]))


def test_random_opponents():
    env = gym.make(ENV_ID, variant="qianbian_collect", opponents="random")
    act = masked_random(np.random.default_rng(0))
    obs, info = env.reset(seed=0)
    for _ in range(10):
        steps, obs, info = play_deal(env, act, obs, info)
        assert steps[-1][3] in (-1.0, 0.0, 1.0)
        obs, info = env.reset()


# ---------------------------------------------------------------- rewards
@pytest.mark.parametrize("variant", PRESETS)
def test_win_rewards_agree_with_final_scores(variant):
    env = ShuangkouEnv(variant, opponents="random", seat=1)
    act = masked_random(np.random.default_rng(6))
    obs, info = env.reset(seed=6)
    for _ in range(20):
        steps, obs, info = play_deal(env, act, obs, info)
        assert all(r == 0.0 for *_, r, t, _ in steps[:-1] if not t)
        r = steps[-1][3]
        assert r in (-1.0, 0.0, 1.0)
        assert int(info["result"]) == r
        assert (r == 0) == (OUTCOMES[info["outcome"]] == "draw")
        places = info["places"].tolist()
        assert sorted(places) == [0, 1, 2, 3]
        if r:
            assert (places[0] % 2 == 1) == (r > 0)  # the learner (seat 1) is in the first finisher's team
            assert (OUTCOMES[info["outcome"]] == "double") == (places[1] % 2 == places[0] % 2)
        scores = info["final_scores"]
        assert scores.shape == (4,) and scores.dtype == np.int64
        params = sk.Rules(variant).params
        if params["contribution"] == "none":
            # without contribution points the winners score > 0 and the losers < 0
            # (a draw: classic 0 all round; jj 1/-1/-1/1)
            if r != 0:
                assert np.sign(scores[1]) == r and np.sign(scores[3]) == r
                assert np.sign(scores[0]) == -r and np.sign(scores[2]) == -r
            elif params["base_table"] == "classic":
                assert not scores.any()
        obs, info = env.reset()


@pytest.mark.parametrize("reward", ["score", "log"])
def test_score_and_log_rewards(reward):
    """Same deals and actions in "win" and in "score"/"log" mode: same trajectory, the
    reward is the seat's deal score (or its signed log)."""

    def run(mode):
        env = ShuangkouEnv("baibian", opponents="heuristic", reward=mode)
        act = masked_random(np.random.default_rng(9))
        obs, info = env.reset(seed=9)
        out = []
        for _ in range(15):
            steps, obs, info = play_deal(env, act, obs, info)
            out.append((steps[-1][3], info["final_scores"].tolist(), len(steps)))
            obs, info = env.reset()
        return out

    for (_rw, sw, nw), (r, s, n) in zip(run("win"), run(reward)):
        assert sw == s and nw == n
        x = s[0]
        expected = float(x) if reward == "score" else math.copysign(math.log1p(abs(x)), x) if x else 0.0
        assert r == pytest.approx(expected, rel=1e-6)


def test_heuristic_beats_a_random_learner():
    """A masked-random learner (with its heuristic partner, or with control of both
    seats of its team) against heuristic opponents wins well under half the deals."""
    for control_partner, deals in ((False, 300), (True, 300)):
        env = ShuangkouEnv("baibian", opponents="heuristic", control_partner=control_partner, team_formation="fixed")
        act = masked_random(np.random.default_rng(0))
        obs, info = env.reset(seed=2024)
        wins = 0
        for _ in range(deals):
            steps, obs, info = play_deal(env, act, obs, info)
            wins += steps[-1][3] > 0
            obs, info = env.reset()
        assert wins / deals < 0.5, (control_partner, wins, deals)


# ---------------------------------------------------------------- rendering and sb3
def test_render_modes(capsys):
    env = gym.make(ENV_ID, variant="baibian", render_mode="human")
    env.reset(seed=0)
    out = capsys.readouterr().out
    assert "seat 0" in out and "→ seat 0" in out
    assert env.render() is None
    env2 = ShuangkouEnv("baibian")
    env2.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert env2.render() is None


def test_sb3_contrib_masking():
    sb3c = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.env_util import make_vec_env

    del sb3c
    # make_vec_env asks for render_mode="rgb_array", which the env offers: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        venv = make_vec_env(ENV_ID, n_envs=2, seed=0, env_kwargs={"variant": "baibian", "opponents": "random"})
    assert is_masking_supported(venv)
    venv.reset()
    for _ in range(60):
        masks = get_action_masks(venv)
        actions = np.array([int(np.flatnonzero(m)[-1]) for m in masks])
        venv.step(actions)


# ---------------------------------------------------------------- standard clients
@pytest.mark.parametrize("autoreset", ["NEXT_STEP", "SAME_STEP"])
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_gymnasium_vector_envs(kind, autoreset):
    """Gymnasium's own vector envs over the env, in both autoreset modes: every info value
    has a fixed dtype (deal seeds above int64 once overflowed), deals end and restart."""
    mode = getattr(gym.vector.AutoresetMode, autoreset)
    make = [lambda: gym.make(ENV_ID, variant="baibian", opponents="random") for _ in range(3)]
    cls = gym.vector.SyncVectorEnv if kind == "sync" else gym.vector.AsyncVectorEnv
    venv = cls(make, autoreset_mode=mode)
    try:
        obs, info = venv.reset(seed=[2**63 + 5, 7, 9])
        assert obs.shape == (3, sk._core.observation_size())
        assert info["deal_seed"].dtype == np.uint64 and info["action_mask"].dtype == np.int8
        rng = np.random.default_rng(0)
        ended = 0
        for _ in range(400):
            masks = info["action_mask"]
            actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
            obs, rewards, terms, truncs, info = venv.step(actions)
            ended += int(terms.sum())
            assert not truncs.any()
        assert ended >= 3
    finally:
        venv.close()


def test_stable_baselines3_check_env():
    env_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env_checker.check_env(gym.make(ENV_ID).unwrapped)


def test_unknown_keyword_is_a_type_error_that_is_also_a_value_error():
    for make in (lambda: ShuangkouEnv(colour="red"), lambda: gym.make(ENV_ID, colour="red")):
        with pytest.raises(TypeError, match="colour") as e:
            make()
        assert isinstance(e.value, ValueError)


def test_pickle_and_deepcopy_play_on_independently():
    import copy
    import pickle

    for opponents in ("heuristic", "callable"):
        opp = (lambda o, m, s: np.flatnonzero(m[0])[:1]) if opponents == "callable" else opponents
        env = ShuangkouEnv("jj", opponents=opp)
        act = masked_random(np.random.default_rng(1))
        obs, info = env.reset(seed=4)
        for _ in range(5):
            obs, _, term, _, info = env.step(act(info["action_mask"]))
        twins = [copy.deepcopy(env)] + ([pickle.loads(pickle.dumps(env))] if opponents == "heuristic" else [])
        record = env._core.current_game(0).to_json()
        for twin in twins:
            assert twin._core.current_game(0).to_json() == record  # the same position
            twin.step(int(np.flatnonzero(info["action_mask"])[-1]))
            assert env._core.current_game(0).to_json() == record  # the original did not move
        e2 = copy.deepcopy(env)
        a = int(np.flatnonzero(info["action_mask"])[0])
        r1, r2 = env.step(a), e2.step(a)
        np.testing.assert_array_equal(r1[0], r2[0])
        assert r1[1:3] == r2[1:3]


# ---------------------------------------------------------------- a failed reset changes nothing


def first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _gym_pair(**kw) -> tuple[ShuangkouEnv, ShuangkouEnv]:
    return ShuangkouEnv("baibian", **kw), ShuangkouEnv("baibian", **kw)


def _assert_same_step(r1, r2) -> None:
    o1, rew1, t1, tr1, i1 = r1
    o2, rew2, t2, tr2, i2 = r2
    np.testing.assert_array_equal(o1, o2)
    assert (rew1, t1, tr1) == (rew2, t2, tr2)
    np.testing.assert_array_equal(i1["action_mask"], i2["action_mask"])
    assert i1["current_player"] == i2["current_player"]
    assert i1["deal_seed"] == i2["deal_seed"]


@pytest.mark.parametrize("bad_seed", [2**64, 2**70])
def test_gym_failed_reset_leaves_the_env_exactly_as_before(bad_seed):
    """5: reset(seed=2**64) raised ValueError but had already replaced the env's
    seed (and its np_random), so the next step() failed with the same error. Fixed: the
    env is exactly as before the failed reset, as its twin that never saw it shows."""
    env, twin = _gym_pair(opponents="heuristic")
    _, info = env.reset(seed=11)
    twin.reset(seed=11)
    with pytest.raises(ValueError, match=str(bad_seed) + r"|2\*\*64"):
        env.reset(seed=bad_seed)
    a = first_legal(info["action_mask"])
    _assert_same_step(env.step(a), twin.step(a))
    # np_random untouched too: a reset mid-deal deals the same fresh deal in both.
    o1, i1 = env.reset()
    o2, i2 = twin.reset()
    np.testing.assert_array_equal(o1, o2)
    assert i1["deal_seed"] == i2["deal_seed"]
    a = first_legal(i1["action_mask"])
    _assert_same_step(env.step(a), twin.step(a))


def test_gym_failed_first_reset_leaves_the_env_unstarted():
    env, twin = _gym_pair(opponents="random")
    with pytest.raises(ValueError):
        env.reset(seed=2**64)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    o1, i1 = env.reset(seed=5)
    o2, i2 = twin.reset(seed=5)
    np.testing.assert_array_equal(o1, o2)
    a = first_legal(i1["action_mask"])
    _assert_same_step(env.step(a), twin.step(a))


# ---------------------------------------------------------------- an opponent that raises or steps the env


def _last_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[-1])


def test_gym_after_a_raising_opponent_the_learner_action_never_goes_to_another_seat():
    """When a callable opponent raised inside step(), the core was left with
    the opponent's seat to act, and the next step() applied the learner's action to the
    opponent's seat. Fixed: the next step() raises an error saying to call reset(), or
    the failed step is undone and the env resumes with the learner's seat to act (then
    it steps exactly as a twin whose opponent never raised)."""
    armed = {"on": False}

    def flaky(obs, mask, seat):
        if armed["on"]:
            armed["on"] = False
            raise KeyError("opponent failed")
        return np.array([_last_legal(mask[0])])

    env = ShuangkouEnv("baibian", opponents=flaky, seat=0)
    twin = ShuangkouEnv("baibian", opponents=lambda obs, mask, seats: np.array([_last_legal(mask[0])]), seat=0)
    _, info = env.reset(seed=4)
    _, tinfo = twin.reset(seed=4)
    np.testing.assert_array_equal(info["action_mask"], tinfo["action_mask"])
    a = first_legal(info["action_mask"])
    armed["on"] = True
    with pytest.raises(sk.agents.AgentError, match="opponent failed") as raised:
        env.step(a)
    assert isinstance(raised.value.__cause__, KeyError)
    try:
        result = env.step(a)
    except (RuntimeError, ValueError) as e:
        assert "reset" in str(e), f"the error does not say to call reset(): {e}"
        with pytest.raises((RuntimeError, ValueError), match="reset"):
            env.step(a)  # still refused until reset()
        o1, i1 = env.reset(seed=4)
        o2, i2 = twin.reset(seed=4)
        np.testing.assert_array_equal(o1, o2)
        _assert_same_step(env.step(a), twin.step(a))
    else:
        assert result[4]["current_player"] in (0,)
        _assert_same_step(result, twin.step(a))


def test_gym_env_refuses_a_non_finite_illegal_reward_and_reentry():
    pytest.importorskip("gymnasium")
    from shuangkou.envs.gym_env import ShuangkouEnv

    for bad in (float("nan"), float("inf"), 10**400):
        with pytest.raises(ValueError, match="illegal_reward"):
            ShuangkouEnv("classic", illegal_reward=bad)
        with pytest.raises(ValueError, match="illegal_reward"):  # the PettingZoo env checks it the same way
            sk.raw_env("classic", illegal_reward=bad)

    holder = {}

    def meddler(obs, mask, seats):
        holder["env"].step(0)  # an opponent stepping the env it plays in

    env = ShuangkouEnv("classic", opponents=meddler)
    holder["env"] = env
    with pytest.raises(AgentError) as e:
        obs, info = env.reset(seed=1)
        while True:  # the learner's moves until an opponent decides
            obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            assert not terminated
    assert isinstance(e.value.__cause__, RuntimeError) and "inside the opponents" in str(e.value.__cause__)


# ---------------------------------------------------------------- step after close


def test_gym_step_after_close_says_the_env_is_closed():
    """12: step() after close() raised AttributeError ('NoneType' has no
    attribute 'step') or stepped on a stale mask. Fixed: a clear error saying the env is
    closed."""
    env = ShuangkouEnv("baibian", opponents="random")
    _, info = env.reset(seed=0)
    env.close()
    with pytest.raises(Exception) as exc_info:
        env.step(first_legal(info["action_mask"]))
    assert not isinstance(exc_info.value, AttributeError), repr(exc_info.value)
    assert "closed" in str(exc_info.value).lower(), repr(exc_info.value)


def test_gym_step_after_close_through_gymnasium_make():
    env = gym.make("shuangkou/Shuangkou-v0", variant="baibian", opponents="random")
    _, info = env.reset(seed=0)
    env.close()
    with pytest.raises(Exception) as exc_info:
        env.step(first_legal(info["action_mask"]))
    assert not isinstance(exc_info.value, AttributeError), repr(exc_info.value)
    assert "closed" in str(exc_info.value).lower(), repr(exc_info.value)


# ---------------------------------------------------------------- control_partner


@pytest.mark.parametrize("value", ["no", "yes", "False", 1, 0, None], ids=repr)
def test_gym_control_partner_takes_only_real_bools(value):
    """control_partner="no" was taken as True (bool("no")). Fixed: ValueError naming it."""
    with pytest.raises(ValueError, match="control_partner"):
        ShuangkouEnv("baibian", control_partner=value)


def test_gym_control_partner_bools_still_work():
    for value in (True, False):
        assert ShuangkouEnv("baibian", control_partner=value).control_partner is value
