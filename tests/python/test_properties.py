"""Property-based tests (hypothesis) over the public Python API.

One property throughout: a call either returns a result of its documented type or
raises ValueError or TypeError (nothing else: no RuntimeError, OverflowError,
SystemError, IndexError, KeyError from the bindings, and no crash), and a call that
raises changes nothing (compared with ``to_json()``, observations and move lists
before and after). Where a call succeeds, what it returns is checked against what
the API documents (normalised cards, moves drawn from the hand, records that replay
to themselves, steps only with legal ids).

The examples are derandomised (the same every run) and no example database is
written, so the file gives the same verdict on every run; the whole file runs in
well under a minute.
"""

from __future__ import annotations

import collections
import json
from typing import Any

import numpy as np
import pytest
import shuangkou as sk

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PRESETS = ["classic", "baibian", "qianbian", "qianbian_collect", "jj"]
ALLOWED = (ValueError, TypeError)

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def fewer(n: int) -> settings:
    return settings(SETTINGS, max_examples=n)


def attempt(fn, *args, **kwargs) -> tuple[bool, Any]:
    """(True, result) or (False, the ValueError/TypeError). Any other exception propagates
    and fails the property."""
    try:
        return True, fn(*args, **kwargs)
    except ALLOWED as e:
        return False, e


# ---------------------------------------------------------------------------- card strings

RANKS = ["3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2"]
JOKERS = ["SJ", "BJ"]
VALID_TOKENS = RANKS + JOKERS + ["10", "t", "j", "q", "k", "a", "sj", "bj", "Sj", "bJ"]
ODD_TOKENS = [
    "",
    "1",
    "0",
    "11",
    "X",
    "LJ",
    "joker",
    "-",
    "SJJ",
    "10 ",
    "\ud800",
    "\udcff",
    "\x00",
    "\u00a0",
    "１０",
    "Ｊ",
    "🂡",
    "٣",
    "T\u0301",
    "5\n6",
    "5,6",
    "None",
    "pass",
    "PASS",
]
SEPARATORS = [" ", "  ", "\t", "\n", ",", ", ", "\u3000", ""]


def _counts_ok(tokens: list[str]) -> bool:
    return all(n <= (2 if t in JOKERS else 8) for t, n in collections.Counter(tokens).items())


token = st.one_of(st.sampled_from(VALID_TOKENS), st.sampled_from(ODD_TOKENS), st.text(max_size=4))
token_list = st.lists(token, max_size=40)


@st.composite
def card_strings(draw) -> str:
    """Card strings: mostly valid tokens, some garbage, odd separators, huge counts."""
    kind = draw(st.integers(0, 9))
    if kind == 0:  # a huge count of one token
        t = draw(st.sampled_from(VALID_TOKENS + ODD_TOKENS[:6]))
        return " ".join([t] * draw(st.sampled_from([9, 27, 28, 100, 10_000, 200_000])))
    if kind == 1:  # arbitrary text
        return draw(st.text(max_size=60))
    tokens = draw(st.lists(st.sampled_from(VALID_TOKENS), max_size=32))
    if kind <= 3 and tokens:  # one garbage token somewhere
        tokens.insert(draw(st.integers(0, len(tokens))), draw(token))
    sep = draw(st.sampled_from(SEPARATORS)) if kind == 4 else " "
    return sep.join(tokens)


@st.composite
def hands(draw, max_cards: int = 27) -> str:
    """A valid hand: at most 8 of each rank and 2 of each joker."""
    pool = [r for r in RANKS for _ in range(8)] + ["SJ", "SJ", "BJ", "BJ"]
    n = draw(st.integers(0, max_cards))
    picked = draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n, unique=True))
    return " ".join(pool[i] for i in picked)


cards_arg = st.one_of(card_strings(), hands(), token_list, token_list.map(tuple), st.none(), st.integers(), st.floats())

_RULES = {v: sk.Rules(v) for v in PRESETS}
_BASE_HAND = "3 3 4 5 5 6 6 7 7 7 8 8 9 T T J Q Q K A A 2 2 2 2 SJ BJ"
_BASELINE = {v: [repr(p) for p in r.legal_moves(_BASE_HAND)] for v, r in _RULES.items()}
_BASE_PARAMS = {v: r.params for v, r in _RULES.items()}


def _assert_rules_unchanged(variant: str) -> None:
    r = _RULES[variant]
    assert r.params == _BASE_PARAMS[variant]
    assert [repr(p) for p in r.legal_moves(_BASE_HAND)] == _BASELINE[variant]
    assert sk.Rules(variant).params == _BASE_PARAMS[variant]


def _multiset(cards: str) -> collections.Counter:
    return collections.Counter(cards.split())


def _tokens_valid(normalised: str) -> bool:
    return all(t in RANKS + JOKERS for t in normalised.split())


@SETTINGS
@given(cards_arg)
def test_parse_cards(cards):
    ok, out = attempt(sk.parse_cards, cards)
    if ok:
        assert isinstance(out, str)
        assert _tokens_valid(out)
        assert sk.parse_cards(out) == out  # normalised is a fixed point
        assert _counts_ok(out.split())


@SETTINGS
@given(st.sampled_from(PRESETS), cards_arg)
def test_read_and_readings(variant, cards):
    r = _RULES[variant]
    ok, best = attempt(r.read, cards)
    ok2, all_readings = attempt(r.readings, cards)
    assert ok == ok2, (best, all_readings)  # both accept or both refuse the same cards
    if ok:
        normalised = sk.parse_cards(cards)
        assert best is None or isinstance(best, sk.Play)
        assert isinstance(all_readings, list) and all(isinstance(p, sk.Play) for p in all_readings)
        assert (best is None) == (not all_readings)
        if best is not None:
            assert best in all_readings
            assert best.cards == normalised and len(best) == len(normalised.split())
        for p in all_readings:
            assert p.cards == normalised
            assert len(p.reading.split()) == len(p)
            assert isinstance(p.stars, int) and p.stars >= 0
            assert p.is_bomb == (p.stars > 0)
    _assert_rules_unchanged(variant)


@SETTINGS
@given(st.sampled_from(PRESETS), cards_arg, cards_arg)
def test_beats(variant, a, b):
    r = _RULES[variant]
    ok, out = attempt(r.beats, a, b)
    if ok:
        assert isinstance(out, bool)
    _assert_rules_unchanged(variant)


@SETTINGS
@given(
    st.sampled_from(PRESETS),
    st.one_of(hands(), hands(max_cards=60), card_strings(), token_list),
    st.one_of(st.none(), hands(max_cards=8), card_strings(), st.sampled_from(["9 9", "3 4 5 6 7", "SJ SJ BJ"])),
)
def test_legal_moves(variant, hand, previous):
    r = _RULES[variant]
    ok, moves = attempt(r.legal_moves, hand, previous)
    if ok:
        assert isinstance(moves, list) and all(isinstance(m, sk.Play) for m in moves)
        held = _multiset(sk.parse_cards(hand))
        assert len(held) == 0 or sum(held.values()) <= 27  # more than 27 cards: refused
        for m in moves:
            assert not (_multiset(m.cards) - held), f"{m!r} uses cards the hand lacks"
            if previous is not None:
                assert r.beats(m, previous)
        if previous is None and sum(held.values()) > 0:
            assert moves, "a non-empty hand always has a lead"
        assert len(set(moves)) == len(moves)
    _assert_rules_unchanged(variant)


# ---------------------------------------------------------------------------- moves applied to a Game


@st.composite
def moves_for(draw, g: sk.Game):
    """A move for the player to act: legal (a Play or its cards), a pass, cards from the
    hand (often illegal), other cards, garbage."""
    kind = draw(st.integers(0, 9))
    legal = g.legal_moves()
    if kind <= 3 and legal:
        m = legal[draw(st.integers(0, len(legal) - 1))]
        return m if kind <= 1 else (m.cards if kind == 2 else m.cards.split())
    if kind == 4:
        return draw(st.sampled_from(["pass", "PASS", " pass ", None, "Pass"]))
    if kind == 5:
        hand = g.hand(g.current_player()).split()
        picked = draw(st.lists(st.integers(0, max(len(hand) - 1, 0)), unique=True, max_size=len(hand)))
        return " ".join(hand[i] for i in picked)
    if kind == 6:
        return draw(card_strings())
    if kind == 7:
        return draw(st.one_of(st.integers(), st.floats(), st.binary(max_size=5), st.lists(st.integers(), max_size=3)))
    if kind == 8:  # a Play from another variant's reading of some cards
        p = _RULES[draw(st.sampled_from(PRESETS))].read(draw(hands(max_cards=6)))
        return p if p is not None else "pass"
    return draw(hands(max_cards=12))


def _game_state(g: sk.Game) -> tuple:
    over = g.is_over()
    return (
        g.to_json(),
        g.current_player(),
        [repr(m) for m in g.legal_moves()] if not over else [],
        repr(g.observation(0)),
        g.scores(),
    )


@fewer(150)
@given(st.sampled_from(PRESETS), st.integers(0, 2**64 - 1), st.data())
def test_random_moves_on_a_game(variant, seed, data):
    g = sk.Game(variant, seed=seed)
    for _ in range(60):
        if g.is_over():
            break
        move = data.draw(moves_for(g))
        before = _game_state(g)
        ok, out = attempt(g.apply, move)
        if ok:
            assert out is None or isinstance(out, sk.Play)
            assert g.history()[-1][1] == out
        else:
            assert _game_state(g) == before, f"the failed apply({move!r}) changed the game"
    if g.is_over():  # a finished deal: every reader works, and the record replays
        assert g.outcome() in ("double", "single", "draw")
        assert sum(1 for _ in g.finish_order()) == 4
        with pytest.raises(ValueError):
            g.apply("pass")
    replay = sk.Game.from_json(g.to_json())
    assert replay.to_json() == g.to_json()


# ---------------------------------------------------------------------------- Game.from_json


def _base_records() -> list[str]:
    out = []
    for i, v in enumerate(PRESETS):
        g = sk.Game(v, seed=i + 1)
        out.append(g.to_json())  # fresh
        for _ in range(12):
            g.apply(g.legal_moves()[0] if not g.can_pass() else "pass")
        out.append(g.to_json())  # under way
        while not g.is_over():
            g.apply(g.legal_moves()[-1] if not g.can_pass() else "pass")
        out.append(g.to_json())  # over
    s = sk.Game("baibian", hands=["3", "4 4", "5 5", "6 6"], leader=0)
    out.append(s.to_json())
    s.apply("3")
    out.append(s.to_json())
    return out


BASE_RECORDS = _base_records()

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([-1, 0, 1, 3, 4, 2**31, 2**32 + 1, 2**63, 2**64 - 1, 2**64, -(2**63) - 1, 10**30, 10**400]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["pass", "bomb", "single", "3", "BJ", "both", "true", "false", "8", "shuangkou-deal/1"]),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)


@st.composite
def mutated_records(draw) -> str:
    rec = json.loads(draw(st.sampled_from(BASE_RECORDS)))
    for _ in range(draw(st.integers(1, 3))):
        if not isinstance(rec, dict):
            break
        op = draw(st.integers(0, 7))
        keys = sorted(rec)
        if op == 0 and keys:  # drop a key
            rec.pop(draw(st.sampled_from(keys)))
        elif op == 1 and keys:  # a key gets another value
            rec[draw(st.sampled_from(keys))] = draw(json_values)
        elif op == 2:  # an extra key
            rec[draw(st.text(max_size=10))] = draw(json_values)
        elif op == 3 and isinstance(rec.get("variant"), dict):  # a variant parameter
            params = sorted(rec["variant"]) or ["max_bomb"]
            rec["variant"][draw(st.sampled_from(params))] = draw(json_values)
        elif op == 4 and isinstance(rec.get("moves"), list) and rec["moves"]:  # a move
            i = draw(st.integers(0, len(rec["moves"]) - 1))
            m = rec["moves"][i]
            if isinstance(m, dict) and m:
                m[draw(st.sampled_from(sorted(m) + ["cards", "seat", "kind"]))] = draw(json_values)
            else:
                rec["moves"][i] = draw(json_values)
        elif op == 5 and isinstance(rec.get("moves"), list) and rec["moves"]:  # moves cut, reordered
            moves = rec["moves"]
            rec["moves"] = (
                draw(st.permutations(moves)) if draw(st.booleans()) else moves[: draw(st.integers(0, len(moves)))]
            )
        elif op == 6 and isinstance(rec.get("hands"), list):  # hands swapped, edited
            hands_ = rec["hands"]
            rec["hands"] = draw(st.permutations(hands_)) if draw(st.booleans()) else hands_ + [draw(json_values)]
        elif op == 7:
            rec = draw(json_values) if draw(st.integers(0, 9)) == 0 else rec
    text = json.dumps(rec)
    tweak = draw(st.integers(0, 9))
    if tweak == 0 and text:  # truncated text
        text = text[: draw(st.integers(0, len(text) - 1))]
    elif tweak == 1:  # a number no double holds, or a 400-digit integer, spliced in
        big = draw(st.sampled_from(["1e400", "-1e400", "1" + "0" * 400, "-" + "9" * 400, "1e-400", "NaN", "Infinity"]))
        text = text.replace('"seed": ', '"seed": ' + big + ', "_": ', 1) if draw(st.booleans()) else big
    elif tweak == 2:  # garbage bytes in the text
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.text(max_size=5)) + text[at:]
    return text


@fewer(800)
@given(mutated_records())
def test_from_json_of_mutated_records(text):
    ok, g = attempt(sk.Game.from_json, text)
    if not ok:
        return
    assert isinstance(g, sk.Game)
    replayed = json.loads(g.to_json())
    stated = json.loads(text)
    assert isinstance(stated, dict)
    for key, value in stated.items():  # every key the record states is what it replays as
        assert key in replayed, key
        assert replayed[key] == value, (key, value, replayed[key])
        assert isinstance(replayed[key], bool) == isinstance(value, bool), (key, value, replayed[key])
    assert sk.Game.from_json(g.to_json()).to_json() == g.to_json()


@settings(SETTINGS, max_examples=len(BASE_RECORDS))
@given(st.sampled_from(BASE_RECORDS))
def test_from_json_of_real_records_replays_them(text):
    assert json.loads(sk.Game.from_json(text).to_json()) == json.loads(text)


# ---------------------------------------------------------------------------- variant keyword overrides

PARAM_NAMES = list(sk.param_names())
override_values = st.one_of(
    st.booleans(),
    st.integers(-20, 20),
    st.sampled_from([2**31, 2**63, 2**64, 10**30, -(10**30)]),
    st.integers(-(2**63), 2**63 - 1).map(np.int64),
    st.floats(),
    st.sampled_from([0.0, 1.0, 8.0, 10.0, 12.0]),
    st.none(),
    st.text(max_size=10),
    st.sampled_from(
        ["none", "BJ", "both", "SJ", "true", "false", "max", "min", "count", "stars", "top", "bottom", "8", "10", "12"]
    ),
    st.sampled_from(["revealed_card", "previous_winner", "random", "by_rule", "fixed", "classic", "common", "jj"]),
    st.sampled_from(["bomb_count_max", "star_max", "star_product", "winners", "all", "player", "team"]),
    st.lists(st.sampled_from(["SJ", "BJ", "XJ", 3]), max_size=3),
    st.lists(st.sampled_from(["SJ", "BJ"]), max_size=2).map(tuple),
    st.frozensets(st.sampled_from(["SJ", "BJ"])).map(set),
)
override_names = st.one_of(st.sampled_from(PARAM_NAMES + ["wild"]), st.text(max_size=10))


@fewer(500)
@given(st.sampled_from(PRESETS), st.dictionaries(override_names, override_values, max_size=4))
def test_variant_keyword_overrides(variant, overrides):
    ok, r = attempt(sk.Rules, variant, **overrides)
    ok_game, g = attempt(sk.Game, variant, seed=1, **overrides)
    ok_cat, cat = attempt(sk._core.ActionCatalogue, variant, **overrides)
    assert ok == ok_game == ok_cat, (r, g, cat)  # every constructor reads overrides alike
    if ok:
        assert isinstance(r, sk.Rules)
        params = r.params
        assert set(params) == set(PARAM_NAMES) and all(isinstance(v, str) for v in params.values())
        assert g.params == params
        assert sk.Rules("classic", **params).params == params  # the text of every parameter reads back
        for name, value in overrides.items():
            if name in PARAM_NAMES and isinstance(value, (bool, np.bool_)):
                assert params[name] == ("true" if value else "false")
            elif name in PARAM_NAMES and isinstance(value, (int, np.integer)):
                if params[name] in ("true", "false"):  # an int taken for a bool parameter: 0 or 1
                    assert int(value) in (0, 1) and params[name] == ("true" if value else "false")
                else:
                    assert params[name] == str(int(value))
        assert len(cat) > 1
    _assert_rules_unchanged(variant)


def _equal_twin(value: Any) -> Any:
    """A value of another type that compares (and hashes) equal: True <-> 1, 10 <-> 10.0."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)):
        return bool(value) if int(value) in (0, 1) else float(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


@fewer(250)
@given(st.sampled_from(PRESETS), st.dictionaries(st.sampled_from(PARAM_NAMES + ["wild"]), override_values, max_size=3))
def test_num_actions_takes_every_override_rules_takes(variant, overrides):
    """sk.num_actions / play_to_action / action_to_play cache the catalogue by their
    overrides. A list or set value (documented for wild / wild_jokers) must not make them
    fail where sk.Rules accepts it, and a value the cache holds under an equal key of
    another type (10 for 10.0, False for 0) must not let through one sk.Rules refuses."""
    attempt(sk.num_actions, variant, **{k: _equal_twin(v) for k, v in overrides.items()})  # fills the cache
    ok, _ = attempt(sk.Rules, variant, **overrides)
    ok_n, n = attempt(sk.num_actions, variant, **overrides)
    assert ok == ok_n, f"sk.Rules {'accepts' if ok else 'refuses'} {overrides!r}; sk.num_actions gave {n!r}"
    if ok:
        assert n == len(sk._core.ActionCatalogue(variant, **overrides))


# ---------------------------------------------------------------------------- VectorEnv.step

N_ENVS = 4


def _venv_state(env: sk.VectorEnv) -> tuple:
    c = env._core
    return (
        c.obs.tobytes(),
        c.mask.tobytes(),
        c.current_player.tobytes(),
        c.episodes.tobytes(),
        np.array(c.legal_ids).tobytes(),
        np.array(c.legal_offsets).tobytes(),
        [c.state_json(j) for j in range(env.num_envs)],
    )


DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float32, np.float64]


@st.composite
def action_inputs(draw, env: sk.VectorEnv):
    legal = [env.legal_actions(j).tolist() for j in range(env.num_envs)]
    kind = draw(st.integers(0, 9))
    if kind <= 2:  # legal ids, some dtype
        values = [draw(st.sampled_from(ids)) for ids in legal]
        dtype = draw(st.sampled_from(DTYPES + [np.int64] * 4))
        return np.array(values).astype(dtype)
    if kind == 3:  # legal ids as a Python list or tuple
        values = [draw(st.sampled_from(ids)) for ids in legal]
        return values if draw(st.booleans()) else tuple(values)
    if kind == 4:  # legal ids, one replaced by an edge value
        values = np.array([draw(st.sampled_from(ids)) for ids in legal], dtype=np.int64)
        edge = draw(
            st.sampled_from([-1, env.num_actions, 2**31 - 1, 2**31, 2**32, 2**32 + int(values[0]), -(2**63), 2**40])
        )
        values[draw(st.integers(0, env.num_envs - 1))] = edge
        return values
    if kind == 5:  # wrong shapes
        shape = draw(
            st.sampled_from(
                [(), (0,), (env.num_envs - 1,), (env.num_envs + 1,), (env.num_envs, 1), (1, env.num_envs), (2, 2)]
            )
        )
        return np.zeros(shape, dtype=draw(st.sampled_from([np.int64, np.int32, np.float64])))
    if kind == 6:  # random ids in range (mostly illegal)
        return np.array(
            draw(st.lists(st.integers(0, env.num_actions - 1), min_size=env.num_envs, max_size=env.num_envs))
        )
    if kind == 7:  # random integers of any size
        return draw(st.lists(st.integers(), min_size=env.num_envs, max_size=env.num_envs))
    if kind == 8:  # other types
        return draw(
            st.sampled_from(
                [
                    None,
                    0,
                    "0 0 0 0",
                    [True] * env.num_envs,
                    np.zeros(env.num_envs, dtype=bool),
                    np.array(["0"] * env.num_envs),
                    np.array([0, 0, 0, 0], dtype=object),
                    [0.5] * env.num_envs,
                    {0: 0},
                    np.zeros(env.num_envs, dtype=np.complex64),
                ]
            )
        )
    values = np.array([draw(st.sampled_from(ids)) for ids in legal])  # legal, as floats or a strided view
    return values.astype(np.float64) if draw(st.booleans()) else np.repeat(values, 2)[::2]


@fewer(250)
@given(st.integers(0, 2**64 - 1), st.sampled_from(["baibian", "classic", "qianbian"]), st.data())
def test_vector_env_step_with_random_actions(seed, variant, data):
    env = sk.VectorEnv(num_envs=N_ENVS, variant=variant, seed=seed)
    env.reset()
    for _ in range(data.draw(st.integers(1, 8))):
        legal_before = [set(env.legal_actions(j).tolist()) for j in range(env.num_envs)]
        actions = data.draw(action_inputs(env))
        before = _venv_state(env)
        ok, out = attempt(env.step, actions)
        if ok:
            obs, rewards, dones, truncs, info = out
            assert not truncs.any()
            assert obs.shape == (env.num_envs, env.observation_size) and obs.dtype == np.float32
            assert rewards.shape == (env.num_envs, 4) and dones.shape == (env.num_envs,)
            assert dones.dtype == np.bool_
            assert info["action_mask"].shape == (env.num_envs, env.num_actions)
            a = np.asarray(actions)
            assert np.issubdtype(a.dtype, np.integer) and a.dtype != np.bool_, f"stepped with dtype {a.dtype}"
            for j, (value, ids) in enumerate(zip(a.tolist(), legal_before)):
                assert value in ids, f"env {j} stepped with {value!r}, not one of its legal ids"
        else:
            assert _venv_state(env) == before, f"the failed step({actions!r}) changed the env"
