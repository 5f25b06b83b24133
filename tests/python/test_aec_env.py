"""The PettingZoo AEC env (shuangkou.env / shuangkou.raw_env): the PettingZoo API and
seed tests, masked random play against the Game it wraps, illegal actions, rendering,
no information leaks in the observation, and step-for-step equality with sk.VectorEnv."""

from __future__ import annotations

import math
import random
import subprocess
import sys
import warnings

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")
import shuangkou as sk  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402
from shuangkou.envs.actions import catalogue  # noqa: E402
from shuangkou.envs.render import card_names, render_game  # noqa: E402

VARIANTS = ["classic", "baibian", "qianbian", "qianbian_collect", "jj"]
REWARDS = ["score", "win", "log"]
AGENTS = [f"player_{i}" for i in range(4)]
encode = sk._core.encode_observation


def test_variants_are_the_presets():
    assert sorted(VARIANTS) == sorted(sk.preset_names())


# --- helpers ------------------------------------------------------------------------


def legal_ids(game: sk.Game, variant: str) -> set[int]:
    cat = catalogue(variant)
    ids = {cat.id_of(m) for m in game.legal_moves()}
    if game.can_pass():
        ids.add(0)
    return ids


def expected_reward(mode: str, game: sk.Game, seat: int) -> float:
    s = game.scores()[seat]
    if mode == "score":
        return float(s)
    if mode == "win":
        order = game.finish_order()
        first_team = order[0] % 2
        if game.outcome() == "draw":
            # 平扣: the first finisher's partner came last
            assert order[3] % 2 == first_team
            return 0.0
        return 1.0 if seat % 2 == first_team else -1.0
    return (1 if s > 0 else -1 if s < 0 else 0) * math.log1p(abs(s))


def random_mid_deal(variant: str, seed: int, rng: random.Random, min_steps: int = 5) -> sk.Game:
    """A dealt game advanced by random legal moves, not over."""
    while True:
        g = sk.Game(variant, seed=seed)
        n = rng.randrange(min_steps, 110)
        for _ in range(n):
            opts = g.legal_moves() + (["pass"] if g.can_pass() else [])
            g.apply(rng.choice(opts))
            if g.is_over():
                break
        if not g.is_over():
            return g
        seed += 1000


def replay_with_hands(variant: str, game: sk.Game, hands_now: list[str]) -> sk.Game:
    """The set deal whose initial hands are `hands_now` plus what each seat played, with
    the same leader, replayed through the same history."""
    initial = [" ".join(t for t in (game.played(s) + " " + hands_now[s]).split()) for s in range(4)]
    g = sk.Game(variant, hands=initial, leader=game.leader)
    for _, play in game.history():
        g.apply(play if play is not None else "pass")
    assert [g.hand(s) for s in range(4)] == [sk.parse_cards(h) if h else "" for h in hands_now]
    return g


def redeal_hidden(game: sk.Game, holders: list[int], rng: random.Random) -> list[str] | None:
    """Current hands with the cards of `holders` shuffled among them (each keeps its card
    count); None if no shuffle changes anyone's hand."""
    hands = [game.hand(s).split() for s in range(4)]
    pool = [c for s in holders for c in hands[s]]
    if len({c for c in pool}) < 2 or sum(1 for s in holders if hands[s]) < 2:
        return None
    for _ in range(20):
        rng.shuffle(pool)
        new = [list(h) for h in hands]
        i = 0
        for s in holders:
            new[s] = pool[i : i + len(hands[s])]
            i += len(hands[s])
        if any(sorted(new[s]) != sorted(hands[s]) for s in holders):
            return [" ".join(h) for h in new]
    return None


# --- PettingZoo's own tests ---------------------------------------------------------


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_api(variant):
    api_test(sk.env(variant), num_cycles=1000, verbose_progress=False)
    api_test(sk.env(variant, reward="log"), num_cycles=1000, verbose_progress=False)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_seed(variant):
    seed_test(lambda: sk.env(variant), num_cycles=500)


# --- construction, spaces, seeding --------------------------------------------------


def test_metadata_spaces_and_attributes():
    e = sk.env("qianbian")
    raw = e.unwrapped
    assert isinstance(raw, sk.raw_env)
    assert raw.metadata["name"] == "shuangkou_v0"
    assert raw.metadata["render_modes"] == ["ansi", "human"]
    assert raw.metadata["is_parallelizable"] is False
    assert e.possible_agents == AGENTS
    n = len(catalogue("qianbian"))
    for a in AGENTS:
        assert e.action_space(a).n == n
        space = e.observation_space(a)
        assert space["observation"].shape == (sk._core.observation_size(),)
        assert space["observation"].dtype == np.float32
        assert space["observation"].low.min() == -100 and space["observation"].high.max() == 100
        assert space["action_mask"].shape == (n,) and space["action_mask"].dtype == np.int8
    assert e.observation_layout == sk._core.observation_layout()
    e.reset(seed=5)
    assert isinstance(e.unwrapped.game, sk.Game)
    assert e.agents == AGENTS
    with pytest.raises(ValueError, match="reward"):
        sk.raw_env("baibian", reward="money")
    with pytest.raises(ValueError, match="render_mode"):
        sk.raw_env("baibian", render_mode="rgb_array")
    with pytest.raises(ValueError, match="render_lang"):
        sk.raw_env("baibian", render_lang="fr")
    with pytest.raises(ValueError):
        sk.raw_env("no_such_variant")
    # overrides reach the rules
    assert sk.env("baibian", max_bomb=10).unwrapped.num_actions == len(catalogue("baibian", max_bomb=10))
    e2 = sk.env("baibian", max_bomb=10)
    e2.reset(seed=3)
    assert e2.unwrapped.game.params["max_bomb"] == "10"


@pytest.mark.parametrize("variant", VARIANTS)
def test_reset_seed_is_the_deal_seed(variant):
    e = sk.env(variant)
    for seed in (0, 42, 2**64 - 1):
        e.reset(seed=seed)
        g = sk.Game(variant, seed=seed)
        assert e.unwrapped.game.to_json() == g.to_json()
        assert e.agent_selection == AGENTS[g.current_player()]
        for s, a in enumerate(AGENTS):
            assert np.array_equal(e.observe(a)["observation"], encode(g, s))
    e.reset(seed=np.uint64(42))
    assert e.unwrapped.game.to_json() == sk.Game(variant, seed=42).to_json()
    with pytest.raises(ValueError):
        e.reset(seed=-1)
    with pytest.raises(ValueError):
        e.reset(seed=2**64)


def test_unseeded_resets_follow_the_last_seed():
    a, b = sk.env("baibian"), sk.env("baibian")
    a.reset(seed=7)
    b.reset(seed=7)
    seeds_a, seeds_b = [], []
    for _ in range(3):
        a.reset()
        b.reset()
        seeds_a.append(a.unwrapped.deal_seed)
        seeds_b.append(b.unwrapped.deal_seed)
        assert a.unwrapped.game.to_json() == sk.Game("baibian", seed=a.unwrapped.deal_seed).to_json()
    assert seeds_a == seeds_b
    assert len(set(seeds_a)) == 3 and 7 not in seeds_a
    c = sk.env("baibian")
    c.reset()  # never seeded: from entropy
    assert c.unwrapped.game is not None


# --- random masked play ---------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_masked_play(variant):
    rng = random.Random(VARIANTS.index(variant))
    n_deals = 30
    outcomes = set()
    for d in range(n_deals):
        mode = REWARDS[d % 3]
        e = sk.env(variant, reward=mode)
        e.reset(seed=1000 + d)
        g = e.unwrapped.game
        steps = 0
        final: dict[str, float] = {}
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, info = e.last()
            assert truncated is False
            if terminated:
                assert g.is_over()
                assert info["score"] == g.scores()[AGENTS.index(agent)]
                final[agent] = reward
                e.step(None)
                continue
            assert not g.is_over()
            seat = g.current_player()
            assert agent == AGENTS[seat]
            assert reward == 0
            mask = obs["action_mask"]
            assert mask.dtype == np.int8 and set(np.unique(mask)) <= {0, 1}
            assert set(np.flatnonzero(mask).tolist()) == legal_ids(g, variant)
            assert set(e.unwrapped.legal_actions()) == legal_ids(g, variant)
            assert obs["observation"].dtype == np.float32
            assert np.array_equal(obs["observation"], encode(g, seat))
            if steps % 7 == 0:
                for s, other in enumerate(AGENTS):
                    o = e.observe(other)
                    assert np.array_equal(o["observation"], encode(g, s))
                    if other != agent:
                        assert not o["action_mask"].any()
            action = rng.choice(np.flatnonzero(mask).tolist())
            n_hist = len(g.history())
            e.step(action)
            assert len(g.history()) == n_hist + 1
            played = g.history()[-1][1]
            assert (played is None) == (action == 0)
            if played is not None:
                assert catalogue(variant).id_of(played) == action
            steps += 1
        assert e.agents == []
        assert set(final) == set(AGENTS)
        for s, a in enumerate(AGENTS):
            assert final[a] == pytest.approx(expected_reward(mode, g, s), abs=0, rel=1e-12)
        if mode == "score":
            assert [final[a] for a in AGENTS] == [float(x) for x in g.scores()]
        outcomes.add(g.outcome())
    assert outcomes  # at least one finished deal, of course


def test_rewards_of_one_deal_in_all_modes():
    """The same deal and actions under the three reward modes."""
    rng = random.Random(3)
    envs = {m: sk.raw_env("baibian", reward=m) for m in REWARDS}
    for e in envs.values():
        e.reset(seed=77)
    ref = envs["score"]
    while not ref.game.is_over():
        a = rng.choice(ref.legal_actions())
        for e in envs.values():
            assert all(r == 0 for r in e.rewards.values())
            e.step(a)
    scores = ref.game.scores()
    assert [envs["score"].rewards[a] for a in AGENTS] == [float(s) for s in scores]
    for s, a in enumerate(AGENTS):
        sc = scores[s]
        assert envs["log"].rewards[a] == pytest.approx(math.copysign(math.log1p(abs(sc)), sc) if sc else 0.0)
        assert envs["win"].rewards[a] == expected_reward("win", ref.game, s)
    assert all(all(e.terminations.values()) for e in envs.values())
    assert not any(any(e.truncations.values()) for e in envs.values())


# --- illegal actions ----------------------------------------------------------------


def snapshot(e):
    raw = e.unwrapped
    return (
        raw.game.to_json(),
        raw.agent_selection,
        list(raw.agents),
        dict(raw.rewards),
        dict(raw._cumulative_rewards),
        dict(raw.terminations),
        dict(raw.truncations),
        {a: [(k, v.tolist()) for k, v in raw.observe(a).items()] for a in raw.agents},
    )


@pytest.mark.parametrize("variant", VARIANTS)
def test_illegal_action_raises_and_changes_nothing(variant):
    e = sk.env(variant, illegal_action="raise")
    e.reset(seed=11)
    raw = e.unwrapped
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    assert mask[0] == 0  # the leader may not pass
    before = snapshot(e)
    with pytest.raises(ValueError, match=rf"{agent}.*action 0\b"):
        e.step(0)
    assert snapshot(e) == before
    bad = int(np.flatnonzero(mask == 0)[1])  # an in-range id that is not legal (not the pass)
    with pytest.raises(ValueError, match=rf"{agent}.*action {bad}\b"):
        e.step(bad)
    assert snapshot(e) == before
    with pytest.raises(ValueError, match=agent):
        raw.step(raw.num_actions)  # out of range, unwrapped
    with pytest.raises(ValueError, match=agent):
        raw.step(-1)
    for junk in (1.5, "3", True, None):
        with pytest.raises(ValueError):
            raw.step(junk)
    assert snapshot(e) == before
    with pytest.raises(AssertionError):
        e.step(raw.num_actions)  # the wrapper's bounds check
    assert snapshot(e) == before
    # later in the deal too: an illegal id while following
    rng = random.Random(5)
    for _ in range(6):
        e.step(rng.choice(raw.legal_actions()))
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    bad = int(rng.choice(np.flatnonzero(mask == 0)[1:].tolist()))
    before = snapshot(e)
    with pytest.raises(ValueError, match=rf"{agent}.*action {bad}\b"):
        e.step(bad)
    assert snapshot(e) == before
    e.step(int(np.flatnonzero(mask)[0]))  # still playable
    assert len(raw.game.history()) == 7


@pytest.mark.parametrize(
    "action", [10**20, -(10**20), 2**63, 2**64, np.array(10**20)], ids=["1e20", "-1e20", "2**63", "2**64", "0-d object"]
)
def test_an_action_past_int64_is_the_documented_error_and_changes_nothing(action):
    """Issue 31: env()'s wrapper raised OverflowError (gymnasium's Discrete.contains turns
    the id into an int64); it is its AssertionError naming the action, as for any id out
    of the space, and raw_env's is its ValueError (docs/envs.md)."""
    e = sk.env("baibian")
    e.reset(seed=3)
    raw = e.unwrapped
    agent = e.agent_selection
    before = snapshot(e)
    text = str(int(action))
    with pytest.raises(AssertionError, match=rf"^action is not in action space: {agent}'s action .*{text}"):
        e.step(action)
    with pytest.raises(ValueError, match=rf"^{agent}: action {text} is not in the action space Discrete"):
        raw.step(action)
    assert snapshot(e) == before
    e.step(raw.legal_actions()[0])  # and the deal goes on
    assert len(raw.game.history()) == 1


def test_dead_agent_must_step_none():
    e = sk.raw_env("classic")
    e.reset(seed=2)
    rng = random.Random(2)
    while not e.game.is_over():
        e.step(rng.choice(e.legal_actions()))
    assert all(e.terminations.values())
    with pytest.raises(ValueError):
        e.step(1)
    for _ in range(4):
        assert not e.observe(e.agent_selection)["action_mask"].any()
        e.step(None)
    assert e.agents == []


# --- rendering ------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["baibian", "jj"])
def test_render_ansi_and_human(variant, capsys):
    for lang in ("en", "zh"):
        e = sk.env(variant, render_mode="ansi", render_lang=lang)
        e.reset(seed=21)
        g = e.unwrapped.game
        rng = random.Random(1)
        for _ in range(10):
            e.step(rng.choice(e.unwrapped.legal_actions()))
        text = e.render()
        assert isinstance(text, str)
        assert text == render_game(g, seat=None, lang=lang)
        for s in range(4):
            assert card_names(g.hand(s), lang) in text  # every hand is shown
        if lang == "zh":
            assert "座位" in text
        else:
            assert "seat" in text
    e = sk.env(variant, render_mode="human", render_lang="zh")
    e.reset(seed=21)
    out = capsys.readouterr().out
    assert card_names(e.unwrapped.game.hand(0), "zh") in out
    assert e.render() is None
    assert card_names(e.unwrapped.game.hand(3), "zh") in capsys.readouterr().out
    quiet = sk.env(variant)
    quiet.reset(seed=21)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert quiet.render() is None
    quiet.close()


# --- no information leaks -------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_observation_hides_other_hands(variant):
    """Shuffling the cards a seat may not see among their holders (each keeps its card
    count; in JJ the partner's hand is shown, so only the two opponents' cards) leaves
    that seat's observation unchanged."""
    rng = random.Random(VARIANTS.index(variant))
    jj = sk.Game(variant).params.get("partner_visible") == "true"
    assert jj == (variant == "jj")
    checked = 0
    for k in range(30):
        g = random_mid_deal(variant, 500 + k, rng)
        same = replay_with_hands(variant, g, [g.hand(s) for s in range(4)])
        seats = [g.current_player()] + [s for s in range(4) if s != g.current_player()]
        for seat in seats:
            base = encode(g, seat)
            assert np.array_equal(encode(same, seat), base)
            hidden = [s for s in range(4) if s != seat and not (jj and s == seat ^ 2)]
            new_hands = redeal_hidden(g, hidden, rng)
            if new_hands is None:
                continue
            other = replay_with_hands(variant, g, new_hands)
            assert other.current_player() == g.current_player()
            obs = encode(other, seat)
            diff = np.flatnonzero(obs != base)
            names = [
                d["name"]
                for d in sk._core.observation_layout()
                for i in diff
                if d["offset"] <= i < d["offset"] + d["size"]
            ]
            assert diff.size == 0, f"seat {seat} sees the hidden cards: slices {sorted(set(names))}"
            checked += 1
    assert checked >= 60


def test_jj_observation_shows_the_partner_hand():
    rng = random.Random(9)
    changed = 0
    for k in range(20):
        g = random_mid_deal("jj", 800 + k, rng)
        seat = g.current_player()
        partner, opponent = seat ^ 2, seat ^ 1
        hp, ho = g.hand(partner).split(), g.hand(opponent).split()
        swap = next(((i, j) for i in range(len(hp)) for j in range(len(ho)) if hp[i] != ho[j]), None)
        if swap is None:
            continue
        i, j = swap
        hp[i], ho[j] = ho[j], hp[i]
        hands = [g.hand(s) for s in range(4)]
        hands[partner], hands[opponent] = " ".join(hp), " ".join(ho)
        other = replay_with_hands("jj", g, hands)
        diff = np.flatnonzero(encode(other, seat) != encode(g, seat))
        names = {
            d["name"] for d in sk._core.observation_layout() for x in diff if d["offset"] <= x < d["offset"] + d["size"]
        }
        assert "partner_hand" in names
        changed += 1
        # in a variant without 双明 the same change is invisible
        g2 = sk.Game("baibian", hands=g.initial_hands(), leader=g.leader)
        for _, p in g.history():
            g2.apply(p if p is not None else "pass")
        other2 = replay_with_hands("baibian", g2, hands)
        assert np.array_equal(encode(other2, seat), encode(g2, seat))
    assert changed >= 15


# --- VectorEnv equals the AEC env step for step ----------------------------------------


@pytest.mark.parametrize("reward", REWARDS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_vector_env_matches_aec(variant, reward):
    S = 4242 + VARIANTS.index(variant)
    n = 4
    # one thread: the same deals as any thread count, and no OpenMP spin-waits on a busy machine
    vec = sk.VectorEnv(num_envs=n, variant=variant, seed=S, reward=reward, num_threads=1)
    obs, info = vec.reset()
    envs = [sk.env(variant, reward=reward) for _ in range(n)]
    for j, e in enumerate(envs):
        e.reset(seed=sk.VectorEnv.episode_seed(S, j, 0))
    finished = [0] * n
    rng = np.random.default_rng(S)
    steps = 0
    while min(finished) < 3:  # three whole deals in every env
        actions = np.zeros(n, dtype=np.int64)
        for j, e in enumerate(envs):
            g = e.unwrapped.game
            seat = int(info["current_player"][j])
            assert e.agent_selection == AGENTS[seat] and g.current_player() == seat
            assert vec._core.state_json(j)["hands"] == [g.hand(s) for s in range(4)]
            o = e.observe(e.agent_selection)
            assert obs[j].dtype == o["observation"].dtype == np.float32
            assert np.array_equal(obs[j], o["observation"]), f"env {j} step {steps}: observations differ"
            assert np.array_equal(info["action_mask"][j], o["action_mask"])
            assert set(vec.legal_actions(j).tolist()) == set(np.flatnonzero(o["action_mask"]).tolist())
            assert info["episodes"][j] == finished[j] + 1
            actions[j] = rng.choice(np.flatnonzero(o["action_mask"]))
        obs, rewards, dones, _, info = vec.step(actions)
        obs, rewards, dones = obs.copy(), rewards.copy(), dones.copy()
        steps += 1
        for j, e in enumerate(envs):
            e.step(int(actions[j]))
            g = e.unwrapped.game
            if not g.is_over():
                assert not dones[j]
                assert not rewards[j].any()
                continue
            assert dones[j], f"env {j}: the AEC deal is over but the vector env is not done"
            expect = np.array([e.rewards[a] for a in AGENTS], dtype=np.float32)
            assert np.array_equal(rewards[j], expect), (rewards[j], expect)
            assert info["final_scores"][j].tolist() == g.scores()
            for _ in range(4):
                agent = e.agent_selection
                _, r, term, trunc, _ = e.last()
                assert term and not trunc
                assert np.float32(r) == expect[AGENTS.index(agent)]
                e.step(None)
            assert e.agents == []
            finished[j] += 1
            e.reset(seed=sk.VectorEnv.episode_seed(S, j, finished[j]))  # the vector env's next deal
    assert steps > 100


# --- lazy import ----------------------------------------------------------------------


def test_import_without_pettingzoo():
    code = (
        "import sys\n"
        "sys.modules['pettingzoo'] = None\n"
        "import shuangkou as sk\n"
        "assert 'shuangkou.envs.aec' not in sys.modules\n"
        "sk.Game('baibian', seed=1); sk.VectorEnv\n"
        "try:\n"
        "    sk.env\n"
        "except ImportError:\n"
        "    print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
    assert sk.env is sk.envs.aec.env and sk.raw_env is sk.envs.aec.raw_env
    assert "env" in dir(sk)


def test_illegal_action_terminates_by_default():
    """As PettingZoo's classic envs (TerminateIllegalWrapper): the deal ends, the
    offender's team gets illegal_reward, the other team 0, and a warning names it."""
    e = sk.env("baibian")
    e.reset(seed=11)
    agent = e.agent_selection
    seat = int(agent[-1])
    with pytest.warns(UserWarning, match="illegal action 0"):
        e.step(0)  # a pass by the leader
    assert all(e.terminations.values())
    for a in e.agents:
        expected = -1.0 if int(a[-1]) % 2 == seat % 2 else 0.0
        assert e._cumulative_rewards[a] == expected
    e = sk.env("baibian", illegal_action="random")
    e.reset(seed=11)
    e.step(0)
    assert not any(e.terminations.values())


def test_state_is_the_full_information_vector():
    e = sk.env("jj")
    e.reset(seed=3)
    raw = e.unwrapped
    s = raw.state()
    assert s.shape == (raw.state_size,) == raw.state_space.shape and s.dtype == np.float32
    seat = raw.game.current_player()
    assert np.array_equal(s[: raw.observation_size], sk._core.encode_observation(raw.game, seat))
    hands = s[raw.observation_size :].reshape(4, 15) * 8
    for i in range(4):
        assert hands[i].sum() == len(raw.game.hand((seat + i) % 4).split())
    assert raw.state_layout[-1]["name"] == "all_hands"


def test_pickle_and_deepcopy_play_on_independently():
    import copy
    import pickle

    e = sk.env("qianbian")
    e.reset(seed=5)
    for _ in range(7):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    for twin in (copy.deepcopy(e), pickle.loads(pickle.dumps(e))):
        assert twin.unwrapped.game.to_json() == e.unwrapped.game.to_json()
        a = int(np.flatnonzero(twin.observe(twin.agent_selection)["action_mask"])[-1])
        twin.step(a)
        assert twin.unwrapped.game.to_json() != e.unwrapped.game.to_json()
