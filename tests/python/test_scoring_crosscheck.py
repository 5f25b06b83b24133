"""Cross-check of the engine's scoring against the pure-Python reference.

The reference (scoring_reference.py) was written from the rules alone. This
file compares it with the engine through its Python contract:

    r = sk.Rules(preset)
    r.score(finish_order=[...], bombs=[(seat, cards), ...])            -> 4 ints
    r.score_breakdown(finish_order=..., bombs=...)                     -> dict
    g = sk.Game(preset, seed=7); g.current_player(); g.legal_moves(); g.can_pass()
    g.apply(play | card string | "pass"); g.is_over(); g.scores(); g.finish_order()
    g.to_json()                                                        -> JSON record
"""

import json
import random

import pytest
import shuangkou as sk
from scoring_reference import BOMB_KINDS, bomb_stars, preset_params, reference_breakdown

PRESETS = ["classic", "baibian", "qianbian", "qianbian_collect", "jj"]
NATURAL = "3 4 5 6 7 8 9 T J Q K A 2".split()
SEQUENCE = NATURAL[:12]  # 3 .. A
DECK = dict({r: 8 for r in NATURAL}, SJ=2, BJ=2)
BREAKDOWN_KEYS = ("outcome", "base", "multiplier", "contribution", "total")


# ---------------------------------------------------------------------------
# Random bombs
# ---------------------------------------------------------------------------


def _wild_tokens(params):
    return {"none": [], "BJ": ["BJ", "BJ"], "both": ["SJ", "SJ", "BJ", "BJ"]}[params["wild_jokers"]]


def _random_bomb_cards(rng, params):
    """A random card string that is meant to be a bomb in this rule set
    (the engine's read() decides; non-bombs are thrown away by the caller)."""
    max_bomb = int(params["max_bomb"])
    wilds = _wild_tokens(params)
    shape = rng.choice(["rank", "rank", "rank", "kings", "chain", "chain"])
    if shape == "kings":
        if rng.random() < 0.5:
            return "SJ SJ BJ BJ"
        return " ".join(rng.sample(["SJ", "SJ", "BJ", "BJ"], 3))
    if shape == "rank":
        rank = rng.choice(NATURAL)
        n_wild = rng.randint(0, len(wilds)) if wilds and rng.random() < 0.5 else 0
        total = rng.randint(max(4, n_wild + 1), min(max_bomb, 8 + n_wild))
        cards = [rank] * (total - n_wild) + rng.sample(wilds, n_wild)
        return " ".join(cards)
    # chain bomb: Y consecutive sequence ranks, X cards each (or uneven counts)
    y = rng.randint(3, 6)
    start = rng.randint(0, len(SEQUENCE) - y)
    if params["uneven_chain"] == "true" and rng.random() < 0.5:
        counts = [rng.randint(4, 8) for _ in range(y)]
    else:
        counts = [rng.randint(4, 8)] * y
    cards = []
    for i, c in enumerate(counts):
        cards += [SEQUENCE[start + i]] * c
    # replace a few natural cards by wilds
    if wilds and rng.random() < 0.5:
        n_wild = rng.randint(1, len(wilds))
        for w in rng.sample(wilds, n_wild):
            cards[rng.randrange(len(cards))] = w
    return " ".join(cards)


def _fits(deck_left, cards):
    need = {}
    for t in cards.split():
        need[t] = need.get(t, 0) + 1
    return all(deck_left[t] >= n for t, n in need.items())


def random_bombs(rng, rules, params, n):
    """n random (seat, cards, play) whose cards together fit in the 108-card deck,
    at most 27 cards of bombs per seat (one hand)."""
    deck_left = dict(DECK)
    by_seat = [0, 0, 0, 0]
    out = []
    tries = 0
    while len(out) < n and tries < 50 * (n + 1):
        tries += 1
        cards = _random_bomb_cards(rng, params)
        if not _fits(deck_left, cards):
            continue
        try:
            play = rules.read(cards)
        except ValueError:
            continue
        if play is None or not play.is_bomb:
            continue
        seat = rng.randrange(4)
        if by_seat[seat] + len(cards.split()) > 27:
            continue
        by_seat[seat] += len(cards.split())
        for t in cards.split():
            deck_left[t] -= 1
        out.append((seat, cards, play))
    return out


def record_of(params, finish_order, bombs):
    moves = [{"seat": seat, "kind": play.kind, "cards": cards, "reading": play.reading} for seat, cards, play in bombs]
    return {"variant": dict(params), "moves": moves, "finish_order": list(finish_order)}


def _norm_breakdown(d):
    return {
        "outcome": str(d["outcome"]),
        "base": list(d["base"]),
        "multiplier": int(d["multiplier"]),
        "contribution": list(d["contribution"]),
        "total": list(d["total"]),
    }


# ---------------------------------------------------------------------------
# (a) Rules.score / Rules.score_breakdown against the reference
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_engine_params_match_reference_presets(preset):
    assert dict(sk.Rules(preset).params) == preset_params(preset)


@pytest.mark.parametrize("preset", PRESETS)
def test_engine_stars_match_reference(preset):
    rng = random.Random(1000 + PRESETS.index(preset))
    rules = sk.Rules(preset)
    params = rules.params
    seen = 0
    for _ in range(400):
        for _, cards, play in random_bombs(rng, rules, params, 1):
            assert play.kind in BOMB_KINDS, (cards, play.kind)
            assert play.stars == bomb_stars(params, play.kind, play.reading), cards
            seen += 1
    assert seen >= 200


@pytest.mark.parametrize("preset", PRESETS)
def test_score_matches_reference_on_random_inputs(preset):
    rng = random.Random(2000 + PRESETS.index(preset))
    rules = sk.Rules(preset)
    params = rules.params
    kinds_seen = set()
    outcomes_seen = set()
    for case in range(600):
        finish_order = rng.sample(range(4), 4)
        bombs = random_bombs(rng, rules, params, rng.choice([0, 1, 1, 2, 2, 3, 4, 5, 6]))
        engine_bombs = [(seat, cards) for seat, cards, _ in bombs]
        ref = reference_breakdown(record_of(params, finish_order, bombs))
        ctx = (preset, case, finish_order, engine_bombs, ref)
        assert list(rules.score(finish_order=finish_order, bombs=engine_bombs)) == ref["total"], ctx
        got = _norm_breakdown(rules.score_breakdown(finish_order=finish_order, bombs=engine_bombs))
        assert got == ref, ctx
        kinds_seen.update(play.kind for _, _, play in bombs)
        outcomes_seen.add(ref["outcome"])
    assert outcomes_seen == {"double", "single", "draw"}
    assert "bomb" in kinds_seen and "heavenly_kings" in kinds_seen
    if preset != "classic":
        assert {"chain_bomb", "three_kings"} <= kinds_seen
    if params["uneven_chain"] == "true":
        assert "uneven_chain_bomb" in kinds_seen


def test_score_rules_examples_json_form():
    # docs/rules.md §16 scoring examples, in the rules_examples.json form: bombs as
    # [seat, cards] lists (the reference's own tests load the file itself).
    cases = [
        ("baibian", [0, 2, 1, 3], [[0, "3 3 3 3 3 3"]], [22, -18, 14, -18]),
        ("jj", [0, 2, 1, 3], [[0, "4 4 4 4 4 4 4"], [1, "3 3 3 3 3 3"]], [36, -36, 36, -36]),
    ]
    for preset, fo, bombs, want in cases:
        rules = sk.Rules(preset)
        assert list(rules.score(finish_order=fo, bombs=[tuple(x) for x in bombs])) == want
        assert list(rules.score(finish_order=fo, bombs=bombs)) == want
        plays = [(seat, cards, rules.read(cards)) for seat, cards in bombs]
        assert reference_breakdown(record_of(rules.params, fo, plays))["total"] == want


# ---------------------------------------------------------------------------
# (b) Random-play games: the record's score equals the game's score
# ---------------------------------------------------------------------------

_SUITS = "SHDC"


def _strip_suits(cards):
    """Deal records may carry suits (e.g. 'H7'); Rules.score takes plain ranks."""
    out = []
    for t in cards.split():
        if t in DECK or t == "10":
            out.append(t)
        elif t[:1] in _SUITS and (t[1:] in DECK or t[1:] == "10"):
            out.append(t[1:])
        else:
            out.append(t)
    return " ".join(out)


def _play_random_game(preset, seed):
    """Play one deal uniformly at random; returns (game, bombs seen as (seat, kind, reading))."""
    g = sk.Game(preset, seed=seed)
    rng = random.Random(seed)
    bombs = []
    steps = 0
    while not g.is_over():
        options = list(g.legal_moves())
        if g.can_pass():
            options.append("pass")
        assert options, (preset, seed, steps)
        seat = g.current_player()
        choice = rng.choice(options)
        if not isinstance(choice, str) and choice.is_bomb:
            bombs.append((seat, choice.kind, choice.reading))
        g.apply(choice)
        steps += 1
        assert steps < 5000, (preset, seed)
    return g, bombs


@pytest.mark.parametrize("preset", PRESETS)
def test_random_games_score_like_reference(preset):
    rules = sk.Rules(preset)
    outcomes = set()
    for seed in range(300):
        g, bombs = _play_random_game(preset, seed)
        record = json.loads(g.to_json())
        ctx = (preset, seed)
        finish_order = list(g.finish_order())
        assert sorted(finish_order) == [0, 1, 2, 3], ctx
        assert list(record["finish_order"]) == finish_order, ctx
        for key, value in preset_params(preset).items():
            assert record["variant"][key] == value, (ctx, key)
        record_bombs = [
            (int(m["seat"]), m["kind"], m["reading"]) for m in record["moves"] if m.get("kind") in BOMB_KINDS
        ]
        assert record_bombs == bombs, ctx
        ref = reference_breakdown(record)
        scores = list(g.scores())
        assert ref["total"] == scores, (ctx, ref, scores)
        # Rules.score on the record's bombs agrees with the game as well
        engine_bombs = [
            (int(m["seat"]), _strip_suits(m["cards"])) for m in record["moves"] if m.get("kind") in BOMB_KINDS
        ]
        assert list(rules.score(finish_order=finish_order, bombs=engine_bombs)) == scores, ctx
        outcomes.add(ref["outcome"])
    assert len(outcomes) >= 2, (preset, outcomes)


# ---------------------------------------------------------------------------
# (c) Bad input to Rules.score
# ---------------------------------------------------------------------------

GOOD_BOMB = [(0, "3 3 3 3 3 3")]


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize(
    "finish_order",
    [
        [0, 1, 2],  # too short
        [0, 1, 2, 3, 0],  # too long
        [],  # empty
        [0, 0, 1, 2],  # repeat
        [3, 3, 3, 3],  # all the same
        [0, 1, 2, 4],  # out of range
        [-1, 0, 1, 2],  # negative
    ],
)
def test_score_rejects_bad_finish_order(preset, finish_order):
    r = sk.Rules(preset)
    with pytest.raises(ValueError):
        r.score(finish_order=finish_order, bombs=GOOD_BOMB)
    with pytest.raises(ValueError):
        r.score_breakdown(finish_order=finish_order, bombs=GOOD_BOMB)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize(
    "bombs",
    [
        [(0, "5 6 7 8 9")],  # a straight, not a bomb
        [(1, "5 5 5")],  # a triple
        [(2, "5 5")],  # a pair
        [(3, "")],  # nothing
        [(0, "3 3 3 3 3 3"), (1, "9")],  # one good, one bad
        [(4, "3 3 3 3")],  # bad seat
        [(-1, "3 3 3 3")],  # bad seat
        [(0, "3 3 3 X")],  # bad card token
        [(0, "3 3 3 1")],  # bad card token
    ],
)
def test_score_rejects_bad_bombs(preset, bombs):
    r = sk.Rules(preset)
    with pytest.raises(ValueError):
        r.score(finish_order=[0, 2, 1, 3], bombs=bombs)
    with pytest.raises(ValueError):
        r.score_breakdown(finish_order=[0, 2, 1, 3], bombs=bombs)


def test_score_rejects_bombs_outside_the_variant():
    # chain bombs and three kings are not bombs in classic
    r = sk.Rules("classic")
    for cards in ["7 7 7 7 8 8 8 8 9 9 9 9", "SJ SJ BJ", "7 7 7 BJ"]:
        with pytest.raises(ValueError):
            r.score(finish_order=[0, 2, 1, 3], bombs=[(0, cards)])
