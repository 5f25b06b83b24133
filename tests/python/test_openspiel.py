"""OpenSpiel (shuangkou.openspiel): the game python_shuangkou, its parameters and declared
type, its states and observations, resampling, OpenSpiel's own checks and algorithms on
it, and agents both ways (OpenSpiel bots in sk.arena / sk.selfplay, our agents as
pyspiel bots). OpenSpiel is optional: the package never imports it, and importing
shuangkou.openspiel without it says what to install."""

from __future__ import annotations

import math
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import shuangkou as sk
from shuangkou import _core
from shuangkou.agents import agent_step
from unshipped import without_network

try:
    import pyspiel
    import shuangkou.integrations.openspiel as so
    from open_spiel.python.algorithms import evaluate_bots
    from open_spiel.python.bots import uniform_random
except ImportError:  # the two tests of the optional import still run
    pyspiel = so = evaluate_bots = uniform_random = None

ROOT = Path(__file__).resolve().parents[2]
needs_openspiel = pytest.mark.skipif(pyspiel is None, reason="open_spiel is not installed: pip install '.[openspiel]'")


def dealt(game, seed: int, steps: int = 0):
    """A state of `game` after its 8 seed bytes (from `seed`) and `steps` uniformly random actions."""
    state = game.new_initial_state()
    for b in int(seed).to_bytes(8, "little"):
        state.apply_action(b)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
    return state


def play_out(state, rng: np.random.Generator):
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.integers(256)))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    return state


# ---------------------------------------------------------------------------- optional import


def test_importing_it_without_open_spiel_says_what_to_install():
    code = "import sys; sys.modules['pyspiel'] = None\nimport shuangkou.openspiel"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, check=False)
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: shuangkou.integrations.openspiel needs OpenSpiel"), r.stderr
    assert "scripts/setup.sh --openspiel" in last and "pip install '.[openspiel]' in the clone" in last


def test_nothing_else_in_the_package_imports_open_spiel():
    importing = re.compile(r"^\s*(import|from)\s+(pyspiel|open_spiel)\b", re.M)
    adapter = ROOT / "python" / "shuangkou" / "integrations" / "openspiel"
    files = [p for p in (ROOT / "python" / "shuangkou").rglob("*.py") if adapter not in p.parents]
    assert len(files) > 20
    assert [p.name for p in files if importing.search(p.read_text(encoding="utf-8"))] == []
    code = "import sys, shuangkou, shuangkou.agents, shuangkou.runs.arena; print('pyspiel' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, check=True)
    assert r.stdout.strip() == "False"


# ---------------------------------------------------------------------------- parameters


@needs_openspiel
def test_the_variant_and_every_rule_parameter_are_game_parameters():
    game = pyspiel.load_game("python_shuangkou(variant=qianbian,max_bomb=10)")
    rules = sk.Rules("qianbian", max_bomb=10)
    assert isinstance(game, so.ShuangkouGame) and game.rules == rules
    assert game.num_distinct_actions() == rules.num_actions
    assert (game.num_players(), game.max_chance_outcomes(), game.max_game_length()) == (4, 256, 432)
    spec = game.get_type().parameter_specification
    assert set(spec) == {"variant", "reward", *sk.param_names()}
    # Parameters left out keep the variant's values, whatever the variant.
    assert pyspiel.load_game("python_shuangkou").rules == sk.Rules("baibian")
    assert pyspiel.load_game("python_shuangkou(variant=qianbian_collect)").rules == sk.Rules("qianbian_collect")
    overridden = pyspiel.load_game("python_shuangkou(variant=baibian,chain_bomb=no,tianwang=bottom,max_bomb=9)")
    assert overridden.rules == sk.Rules("baibian", chain_bomb=False, tianwang="bottom", max_bomb=9)
    # The game's own string spells every parameter out, and loads the same game.
    assert pyspiel.load_game(str(overridden)).rules == overridden.rules
    assert so.load_game(sk.Rules("jj", max_bomb=9), reward="score").rules == sk.Rules("jj", max_bomb=9)
    assert so.load_game("classic", three_kings=True).rules == sk.Rules("classic", three_kings=True)


def rules_error(variant: str, **overrides) -> str:
    with pytest.raises(ValueError) as e:
        sk.Rules(variant, **overrides)
    return str(e.value)


@needs_openspiel
@pytest.mark.parametrize(
    "params, variant, overrides",
    [
        ("max_bomb=99", "baibian", {"max_bomb": 99}),
        ("variant=nope", "nope", {}),
        ("tianwang=middle", "baibian", {"tianwang": "middle"}),
        ("variant=jj,chain_bomb=maybe", "jj", {"chain_bomb": "maybe"}),
    ],
)
def test_a_bad_rule_parameter_raises_the_rules_value_error(params, variant, overrides):
    with pytest.raises(ValueError) as e:
        pyspiel.load_game(f"python_shuangkou({params})")
    assert str(e.value) == rules_error(variant, **overrides)


@needs_openspiel
def test_other_bad_parameters_are_named():
    with pytest.raises(ValueError, match="reward 'money': the reward mode is one of win, score, log"):
        pyspiel.load_game("python_shuangkou(reward=money)")
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'wild'"):
        pyspiel.load_game("python_shuangkou(wild=both)")
    # OpenSpiel's parser reads true/false as booleans; the boolean rule parameters are yes/no.
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter chain_bomb"):
        pyspiel.load_game("python_shuangkou(chain_bomb=true)")


# ---------------------------------------------------------------------------- the declared type


@needs_openspiel
def test_the_game_type_is_sequential_imperfect_information_with_explicit_chance():
    t = pyspiel.load_game("python_shuangkou").get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert t.provides_information_state_string and t.provides_information_state_tensor
    assert t.provides_observation_string and t.provides_observation_tensor


@needs_openspiel
@pytest.mark.parametrize("reward", ["win", "score", "log"])
def test_utility_is_zero_sum_exactly_where_the_returns_are(reward):
    rng = np.random.default_rng(7)
    for variant in sk.preset_names():
        game = pyspiel.load_game(f"python_shuangkou(variant={variant},reward={reward})")
        zero_sum = so.is_zero_sum(game.rules, reward)
        expected = pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        assert game.get_type().utility == expected, variant
        for _ in range(3):
            returns = play_out(game.new_initial_state(), rng).returns()
            assert all(game.min_utility() <= r <= game.max_utility() for r in returns), (variant, returns)
            if zero_sum:
                assert sum(returns) == 0, (variant, returns)
    assert so.is_zero_sum(sk.Rules("qianbian"), "win")
    # Why the others are not: the common table's draw pays 1/0/0/1; team contributions add up;
    # and the log of a zero-sum score with contributions no longer sums to 0.
    assert sum(sk.Rules("baibian").score(finish_order=[0, 1, 3, 2])) == 2
    assert not so.is_zero_sum(sk.Rules("baibian"), "score")
    assert sum(sk.Rules("qianbian").score(finish_order=[0, 2, 1, 3], bombs=[(1, "3 3 3 3 3 3")])) == 8
    player = sk.Rules("classic", contribution="player")
    scores = player.score(finish_order=[0, 2, 1, 3], bombs=[(0, "3 3 3 3 3 3")])
    assert sum(scores) == 0 and so.is_zero_sum(player, "score")
    assert sum(math.copysign(math.log1p(abs(s)), s) for s in scores) != 0 and not so.is_zero_sum(player, "log")


@needs_openspiel
def test_utility_bounds_hold_the_largest_scores():
    classic = sk.Rules("classic")  # an 8-card bomb of the winners: x5 on a double win's 4
    assert so.utility_bounds(classic, "score") == (-20.0, 20.0)
    assert classic.score(finish_order=[0, 2, 1, 3], bombs=[(0, "3 3 3 3 3 3 3 3")])[0] == 20
    bombs = [(0, "SJ SJ BJ BJ"), (0, "3 3 3 3 3 3 3 3"), (0, "4 4 4 4 4 4 4 4"), (0, "5 5 5 5 5 5 5")]
    bombs += [(2, " ".join([rank] * 8)) for rank in "678"] + [(1, "9 9 9 9 9 9 9 9"), (3, "T T T T T T T T")]
    for variant in sk.preset_names():
        rules = sk.Rules(variant)
        low, high = so.utility_bounds(rules, "score")
        for order in ([0, 2, 1, 3], [1, 3, 0, 2], [0, 1, 3, 2]):
            scores = rules.score(finish_order=order, bombs=bombs)
            assert all(low <= s <= high for s in scores), (variant, order, scores, low, high)
        assert so.utility_bounds(rules, "log") == (-math.log1p(-low), math.log1p(high))
        assert so.utility_bounds(rules, "win") == (-1.0, 1.0)


# ---------------------------------------------------------------------------- OpenSpiel's checks


@needs_openspiel
@pytest.mark.parametrize(
    "params", [f"variant={v}" for v in ["classic", "baibian", "qianbian", "qianbian_collect", "jj"]] + ["reward=score"]
)
def test_random_sim_test_passes(params):
    assert sorted(sk.preset_names()) == sorted(["classic", "baibian", "qianbian", "qianbian_collect", "jj"])
    game = pyspiel.load_game(f"python_shuangkou({params})")
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


# ---------------------------------------------------------------------------- states


@needs_openspiel
def test_a_state_plays_the_package_game_of_its_seed():
    game = pyspiel.load_game("python_shuangkou(variant=jj)")
    state = game.new_initial_state()
    assert state.is_chance_node() and state.legal_actions() == list(range(256))
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 5) == "seed byte 5"
    seed = 0x0123456789ABCDEF
    for b in seed.to_bytes(8, "little"):
        state.apply_action(b)
    deal = sk.Game(game.rules, seed=seed)
    pattern = game.rules.catalogue.pattern
    rng = np.random.default_rng(1)
    while not deal.is_over():
        assert state.current_player() == deal.current_player()
        assert state.legal_actions() == [int(a) for a in deal.legal_action_ids()]
        assert state.legal_actions((deal.current_player() + 1) % 4) == []
        assert state.returns() == [0.0] * 4
        names = [state.action_to_string(a) for a in state.legal_actions()]
        assert len(set(names)) == len(names)
        assert all(
            n == ("pass" if a == 0 else f"{pattern(a).kind} {pattern(a).reading}")
            for a, n in zip(state.legal_actions(), names)
        )
        action = state.legal_actions()[int(rng.integers(len(state.legal_actions())))]
        state.apply_action(action)
        deal.apply_action(action)
    assert state.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.returns() == deal.rewards("win")
    assert state.deal.to_json() == deal.to_json()


@needs_openspiel
def test_clones_serialization_and_pickles_are_whole_states():
    game = pyspiel.load_game("python_shuangkou(variant=qianbian,reward=score)")
    state = dealt(game, 11, steps=20)
    text, history = str(state), state.history()
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[-1])
    assert str(state) == text and state.history() == history and str(clone) != text
    state.deal.apply_action(state.legal_actions()[-1])  # `deal` is a copy
    assert str(state) == text
    new_game, copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert new_game.rules == game.rules and str(copy) == text and copy.history() == history
    assert str(pickle.loads(pickle.dumps(state))) == text
    assert pickle.loads(pickle.dumps(game)).rules == game.rules


# ---------------------------------------------------------------------------- observations and resampling


@needs_openspiel
def test_observations_come_from_the_package_encoders():
    game = pyspiel.load_game("python_shuangkou(variant=baibian)")
    state = dealt(game, 3, steps=30)
    deal, seat = state.deal, state.current_player()
    obs = np.asarray(state.observation_tensor(seat), dtype=np.float32)
    assert np.array_equal(obs, _core.encode_observation(deal, seat))
    assert state.information_state_string(seat) == str(sk.InfoView(deal, seat))
    info = np.asarray(state.information_state_tensor(seat), dtype=np.float32)
    assert info.shape == tuple(game.information_state_tensor_shape()) == (445 + 4 + 432 * 48,)
    assert np.array_equal(info[:445], obs)
    assert info[445:449].tolist() == [1.0 if r == (deal.leader - seat) % 4 else 0.0 for r in range(4)]
    rows = info[445 + 4 :].reshape(432, 48)
    history = deal.history()
    # One row per action of the whole deal, not only the last 8 the observation keeps.
    assert len(history) > 8 and rows[: len(history), :4].sum(axis=1).tolist() == [1.0] * len(history)
    assert not rows[len(history) :].any()
    assert np.array_equal(rows[: len(history), 4:], _core.encode_moves([p for _, p in history]))
    assert f"hand {deal.hand(seat)}" in state.observation_string(seat)


@needs_openspiel
def test_the_information_state_is_perfect_recall_and_blind_to_hidden_cards():
    game = pyspiel.load_game("python_shuangkou(variant=classic)")
    state = dealt(game, 5)
    seen = {p: {state.information_state_string(p)} for p in range(4)}
    for step in range(40):
        state.apply_action(state.legal_actions()[step % len(state.legal_actions())])
        for p in range(4):  # every action adds to every seat's information state
            info = state.information_state_string(p)
            assert info not in seen[p]
            seen[p].add(info)
    seat = state.current_player()
    other = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert [other.deal.hand(s) == state.deal.hand(s) for s in range(4)].count(False) >= 2
    for method in ("information_state_string", "information_state_tensor", "observation_string", "observation_tensor"):
        assert getattr(other, method)(seat) == getattr(state, method)(seat), method


class Draws:
    """A probability sampler returning set values, one a call."""

    def __init__(self, *values: float) -> None:
        self.values = list(values)

    def __call__(self) -> float:
        return self.values.pop(0)


@needs_openspiel
def test_resample_from_infostate_deals_the_hidden_cards_anew_reproducibly():
    game = pyspiel.load_game("python_shuangkou(variant=jj)")  # jj shows the partner's hand
    state = dealt(game, 9, steps=25)
    seat = state.current_player()
    worlds = [state.resample_from_infostate(seat, Draws(a, b)) for a, b in [(0.1, 0.2), (0.1, 0.2), (0.7, 0.3)]]
    assert str(worlds[0]) == str(worlds[1]) != str(worlds[2])
    for world in worlds:
        assert world.current_player() == seat and world.legal_actions() == state.legal_actions()
        assert world.history() == state.history()
        assert world.information_state_string(seat) == state.information_state_string(seat)
        for s in range(4):
            known = s in (seat, (seat + 2) % 4)
            assert (world.deal.hand(s) == state.deal.hand(s)) == known or not known
            assert len(world.deal.hand(s).split()) == len(state.deal.hand(s).split())
    assert any(world.deal.hand((seat + 1) % 4) != state.deal.hand((seat + 1) % 4) for world in worlds)
    early = game.new_initial_state()
    early.apply_action(7)
    again = early.resample_from_infostate(0, Draws(0.5))
    assert again.is_chance_node() and str(again).endswith("seed bytes [128]")


@needs_openspiel
@pytest.mark.parametrize(
    "draw, error, needle",
    [
        ("x", TypeError, "got str 'x'"),  # (was 'x' * 2**32: gigabytes built before it failed)
        (None, TypeError, "got NoneType"),
        (True, TypeError, "got bool True"),
        (1.5, ValueError, "got 1.5"),
        (-0.25, ValueError, "got -0.25"),
        (float("nan"), ValueError, "got nan"),
        (10**20, ValueError, "got 100000000000000000000"),
    ],
)
def test_resample_from_infostate_checks_each_draw_before_using_it(draw, error, needle):
    game = pyspiel.load_game("python_shuangkou(variant=baibian)")
    state = dealt(game, 4, steps=3)
    before = str(state)
    for s in (state, game.new_initial_state()):
        if s.is_chance_node():
            s.apply_action(7)  # before the deal: the seed bytes drawn so far are drawn anew
        with pytest.raises(error, match=r"probability_sampler must return a number in \[0, 1\]") as e:
            s.resample_from_infostate(0, lambda: draw)
        assert needle in str(e.value)
    assert str(state) == before
    seat = state.current_player()
    for ok in (0, 1, 0.0, 1.0, np.float32(0.5), np.float64(0.999)):  # the ends of [0, 1] included
        assert state.resample_from_infostate(seat, lambda ok=ok: ok).legal_actions() == state.legal_actions()


@needs_openspiel
@pytest.mark.parametrize(
    "kwargs, needle",
    [
        ({"simulations": 0}, "simulations must be an integer 1..10000000, got 0"),
        ({"simulations": -1}, "simulations must be an integer 1..10000000, got -1"),
        ({"simulations": True}, "simulations must be an integer 1..10000000, got True"),
        ({"simulations": 8.0}, "simulations must be an integer 1..10000000, got 8.0"),
        ({"simulations": 10**8}, "simulations must be an integer 1..10000000, got 100000000"),
        ({"uct_c": -1.0}, "uct_c must be a finite number >= 0, got -1.0"),
        ({"uct_c": float("nan")}, "uct_c must be a finite number >= 0, got nan"),
        ({"uct_c": float("inf")}, "uct_c must be a finite number >= 0, got inf"),
        ({"uct_c": "2"}, "uct_c must be a finite number >= 0, got '2'"),
        ({"uct_c": False}, "uct_c must be a finite number >= 0, got False"),
        ({"seed": -1}, "seed must be an integer 0..4294967294, got -1"),
        ({"seed": 2**32 - 1}, "seed must be an integer 0..4294967294, got 4294967295"),
        ({"seed": "1"}, "seed must be an integer 0..4294967294, got '1'"),
    ],
)
def test_ismcts_bot_refuses_bad_arguments_when_made(kwargs, needle):
    game = so.load_game("baibian")
    with pytest.raises(ValueError, match="ismcts_bot: ") as e:  # (was made, then a bare AssertionError at step)
        so.ismcts_bot(game, **kwargs)
    assert needle in str(e.value)
    bot = so.ismcts_bot(game, simulations=np.int64(2), uct_c=0, seed=2**32 - 2)  # the edges are taken
    state = dealt(game, 5)
    assert bot.step(state) in state.legal_actions()


@needs_openspiel
def test_a_resampled_state_serializes():
    game = pyspiel.load_game("python_shuangkou(variant=baibian)")
    state = dealt(game, 4, steps=12)
    world = state.resample_from_infostate(state.current_player(), Draws(0.25, 0.5))
    _, copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, world))
    assert str(copy) == str(world) != str(state)


# ---------------------------------------------------------------------------- OpenSpiel's bots and algorithms


@needs_openspiel
def test_evaluate_bots_plays_uniform_random_and_ismcts():
    game = pyspiel.load_game("python_shuangkou(variant=baibian)")
    rng = np.random.RandomState(3)
    bots = [pyspiel.make_uniform_random_bot(p, p) for p in range(4)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert returns[0] == returns[2] == -returns[1] == -returns[3] and returns[0] in (-1, 0, 1)
    search = so.ismcts_bot(game, simulations=8, seed=1)
    steps = []
    step = search.step
    search.step = lambda state: steps.append(state.current_player()) or step(state)
    bots = [search] + [uniform_random.UniformRandomBot(p, rng) for p in range(1, 4)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert returns[0] == returns[2] == -returns[1] == -returns[3]
    assert len(steps) > 5 and set(steps) == {0}


# ---------------------------------------------------------------------------- OpenSpiel bots as agents


class Spy:
    """An OpenSpiel bot that records the states it is given and passes when it may."""

    def __init__(self) -> None:
        self.states: list = []

    def step(self, state) -> int:
        self.states.append(state)
        return state.legal_actions()[0]


@needs_openspiel
def test_an_openspiel_bot_sees_a_world_of_what_its_seat_knows():
    spy = Spy()
    agent = so.OpenSpielAgent(spy, seed=4)
    deal = sk.Game("qianbian", seed=21)
    for _ in range(15):
        deal.apply_action(int(deal.legal_action_ids()[-1]))
    seat = deal.current_player()
    assert agent_step(agent, deal) == int(deal.legal_action_ids()[0])
    (state,) = spy.states
    assert isinstance(state, so.ShuangkouState) and state.get_game().rules == deal.rules
    assert sk.InfoView(state.deal, seat) == sk.InfoView(deal, seat)
    assert [state.deal.hand(s) == deal.hand(s) for s in range(4)].count(False) >= 2
    with pytest.raises(TypeError, match="a bot .* or a factory"):
        so.OpenSpielAgent(42)


@needs_openspiel
def test_openspiel_bots_play_in_the_arena_and_selfplay():
    agent = so.OpenSpielAgent(lambda game, seat: pyspiel.make_uniform_random_bot(seat, 100 + seat), name="os_random")
    result = sk.arena(variant="baibian", agents=[agent, "heuristic"], deals=10, seed=1)
    (pair,) = result["pairs"]
    assert (pair["a"], pair["b"]) == ("os_random", "heuristic") and pair["wp"] < 0.5
    assert agent.game is not None and agent.game.rules.params["team_formation"] == "fixed"
    played = sk.selfplay("jj", games=4, agents=[agent, "heuristic"], seed=2)
    assert played["agents"] == ["os_random", "heuristic", "os_random", "heuristic"]
    assert played["teams"]["1_3"]["mean_score"] > 0


# ---------------------------------------------------------------------------- our agents as OpenSpiel bots


class FirstLegal(sk.Agent):
    def act(self, d):
        return np.array([ids[0] for ids in d.legal_ids], dtype=np.int64)


def last_legal(obs, mask, seats):
    return np.array([np.flatnonzero(row)[-1] for row in mask], dtype=np.int64)


@needs_openspiel
def test_our_agents_play_as_pyspiel_bots_in_evaluate_bots():
    game = so.load_game("baibian")
    rng = np.random.RandomState(0)
    heuristic = so.as_openspiel_bot("heuristic")
    assert isinstance(heuristic, pyspiel.Bot) and heuristic.name == "heuristic"
    bots = [heuristic, pyspiel.make_uniform_random_bot(1, 1), heuristic, pyspiel.make_uniform_random_bot(3, 3)]
    wins = [evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)[0] for _ in range(4)]
    assert sum(wins) >= 2, wins
    forms = [so.as_openspiel_bot(a) for a in (FirstLegal(), last_legal, sk.Bot("greedy"), "random")]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), forms, rng)
    assert returns[0] == returns[2] == -returns[1] == -returns[3]


@needs_openspiel
def test_an_agent_bot_names_what_it_cannot_play():
    with pytest.raises(ValueError, match="unknown agent 'nobot'"):
        so.as_openspiel_bot("nobot")
    bot = so.as_openspiel_bot("heuristic")
    with pytest.raises(TypeError, match="plays python_shuangkou states, got"):
        bot.step(pyspiel.load_game("kuhn_poker").new_initial_state())
    with pytest.raises(ValueError, match="a chance node"):
        bot.step(pyspiel.load_game("python_shuangkou").new_initial_state())
    with without_network("qianbian_collect"), pytest.raises(ValueError, match="no network is shipped for the rule"):
        so.as_openspiel_bot("dmc").step(dealt(so.load_game("qianbian_collect"), 1))


# ---------------------------------------------------------------------------- the report


def test_regenerating_the_compatibility_report_keeps_its_openspiel_section(tmp_path):
    doc = (ROOT / "docs" / "compatibility.md").read_text(encoding="utf-8")
    kept = doc[doc.index("<!-- kept") :]
    assert "## OpenSpiel" in kept and "## OpenSpiel" not in doc[: doc.index("<!-- kept")]
    out = tmp_path / "compatibility.md"
    out.write_text(doc, encoding="utf-8")
    for _ in range(2):  # no client checked: a header and an empty table, then the kept part, unchanged
        cmd = [sys.executable, str(ROOT / "experiments" / "compat.py"), "--clients", "none", "--out", str(out)]
        subprocess.run(cmd, capture_output=True, text=True, env=os.environ, check=True)
        text = out.read_text(encoding="utf-8")
        assert text.startswith("# Compatibility with RL libraries") and text.endswith(kept)
        assert (
            text.count("<!-- kept") == 1
            and "| client | version | check | result | notes |\n|---|---|---|---|---|\n\n" in text
        )
