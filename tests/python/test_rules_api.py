"""Behaviour of the Python rules API (sk.parse_cards, sk.Rules, Play).

The contract under test::

    r = sk.Rules("baibian")                  # presets: classic baibian qianbian qianbian_collect jj
    r2 = sk.Rules("qianbian", max_bomb=10)   # any docs/rules.md §13 parameter by keyword
    p = r.read("5 6 7 8 BJ")                 # highest valid reading over all kinds, or None
    p.kind; p.cards; p.reading; p.key; p.stars; len(p)
    r.readings(cards)                        # one Play per kind (its highest reading), kind order
    r.beats(a, b)                            # card strings or Play; True iff a may be played on b
    r.legal_moves(hand, previous=None)       # canonical moves (docs/rules.md §14)
    sk.parse_cards("5 6 T J BJ")             # validated, normalised card string

Expected values come from docs/rules.md (§1, §3, §4, §5, §13, §14) and
docs/rule_readings.md. The complete move lists of the small hands below were
worked out by hand from docs/rules.md §14: one move per pattern (kind + per-rank
counts of the reading), cards spent natural first, then wild SJ, then wild BJ,
and a pattern whose cards so chosen read higher as another pattern of the
same kind is no move of its own.
"""

import itertools
import random

import pytest
import shuangkou as sk

RANKS = "3 4 5 6 7 8 9 T J Q K A 2 SJ BJ".split()
IDX = {t: i for i, t in enumerate(RANKS)}
PRESETS = ["classic", "baibian", "qianbian", "qianbian_collect", "jj"]
KINDS = [
    "single",
    "pair",
    "triple",
    "straight",
    "pair_chain",
    "triple_chain",
    "bomb",
    "chain_bomb",
    "uneven_chain_bomb",
    "three_kings",
    "heavenly_kings",
]
BOMB_KINDS = set(KINDS[6:])
PARAM_NAMES = [
    "wild_jokers",
    "max_bomb",
    "chain_bomb",
    "uneven_chain",
    "uneven_star",
    "three_kings",
    "bomb_order",
    "tianwang",
    "first_lead",
    "team_formation",
    "base_table",
    "multiplier",
    "multiplier_from",
    "contribution",
    "collect_stars",
    "partner_visible",
]


def counts(cards):
    c = [0] * len(RANKS)
    for t in cards.split():
        c[IDX[t]] += 1
    return c


def card_string(c):
    return " ".join(t for i, t in enumerate(RANKS) for _ in range(c[i]))


def triples(plays):
    return {(p.kind, p.cards, p.reading) for p in plays}


def contains(hand, cards):
    h, c = counts(hand), counts(cards)
    return all(x >= y for x, y in zip(h, c))


_RULES = {}


def rules(preset):
    if preset not in _RULES:
        _RULES[preset] = sk.Rules(preset)
    return _RULES[preset]


# --------------------------------------------------------------------------
# parse_cards


@pytest.mark.parametrize(
    "given,expected",
    [
        ("5 6 T J BJ", "5 6 T J BJ"),
        ("10", "T"),
        ("10 J Q K A", "T J Q K A"),
        ("BJ 2 3 SJ A 10", "3 T A 2 SJ BJ"),
        ("BJ SJ BJ SJ", "SJ SJ BJ BJ"),
        ("2 A K Q J 10 9 8 7 6 5 4 3", "3 4 5 6 7 8 9 T J Q K A 2"),
        ("t j q k a sj bj", "T J Q K A SJ BJ"),
        ("Sj bJ 10 t T", "T T T SJ BJ"),
        ("7 7 7 7 7 7 7 7", "7 7 7 7 7 7 7 7"),
        ("", ""),
    ],
)
def test_parse_cards_normalises(given, expected):
    assert sk.parse_cards(given) == expected
    assert sk.parse_cards(given.split()) == expected
    assert sk.parse_cards(tuple(given.split())) == expected
    assert sk.parse_cards(expected) == expected  # idempotent


# --------------------------------------------------------------------------
# Presets and parameters (docs/rules.md §13)

# "—" entries of the table (uneven_star where there are no uneven chain bombs,
# multiplier_from for bomb_count_max / star_product) are not asserted.
PRESET_PARAMS = {
    "classic": dict(
        wild_jokers="none",
        max_bomb="8",
        chain_bomb="false",
        uneven_chain="false",
        three_kings="false",
        bomb_order="count",
        tianwang="top",
        first_lead="previous_winner",
        team_formation="by_rule",
        base_table="classic",
        multiplier="bomb_count_max",
        contribution="none",
        collect_stars="false",
        partner_visible="false",
    ),
    "baibian": dict(
        wild_jokers="BJ",
        max_bomb="8",
        chain_bomb="true",
        uneven_chain="false",
        three_kings="true",
        bomb_order="stars",
        tianwang="top",
        first_lead="revealed_card",
        team_formation="by_rule",
        base_table="common",
        multiplier="star_max",
        multiplier_from="winners",
        contribution="player",
        collect_stars="false",
        partner_visible="false",
    ),
    "qianbian": dict(
        wild_jokers="both",
        max_bomb="8",
        chain_bomb="true",
        uneven_chain="true",
        uneven_star="max",
        three_kings="true",
        bomb_order="stars",
        tianwang="top",
        first_lead="revealed_card",
        team_formation="by_rule",
        base_table="common",
        multiplier="star_max",
        multiplier_from="all",
        contribution="team",
        collect_stars="false",
        partner_visible="false",
    ),
    "qianbian_collect": dict(
        wild_jokers="both",
        max_bomb="12",
        chain_bomb="true",
        uneven_chain="true",
        uneven_star="min",
        three_kings="true",
        bomb_order="stars",
        tianwang="bottom",
        first_lead="random",
        team_formation="by_rule",
        base_table="common",
        multiplier="star_max",
        multiplier_from="all",
        contribution="team",
        collect_stars="true",
        partner_visible="false",
    ),
    "jj": dict(
        wild_jokers="BJ",
        max_bomb="8",
        chain_bomb="true",
        uneven_chain="false",
        three_kings="true",
        bomb_order="stars",
        tianwang="top",
        first_lead="revealed_card",
        team_formation="by_rule",
        base_table="jj",
        multiplier="star_product",
        contribution="none",
        collect_stars="false",
        partner_visible="true",
    ),
}

ALLOWED = {
    "wild_jokers": ["none", "BJ", "both"],
    "max_bomb": [str(n) for n in range(4, 13)],
    "uneven_star": ["max", "min"],
    "bomb_order": ["count", "stars"],
    "tianwang": ["top", "bottom"],
    "first_lead": ["revealed_card", "previous_winner", "random"],
    "team_formation": ["by_rule", "fixed"],
    "base_table": ["classic", "common", "jj"],
    "multiplier": ["bomb_count_max", "star_max", "star_product"],
    "multiplier_from": ["winners", "all"],
    "contribution": ["none", "player", "team"],
}
BOOL_PARAMS = ["chain_bomb", "uneven_chain", "three_kings", "collect_stars", "partner_visible"]


def test_preset_and_param_names():
    assert list(sk.preset_names()) == PRESETS
    assert sorted(sk.param_names()) == sorted(PARAM_NAMES)


@pytest.mark.parametrize("preset", PRESETS)
def test_preset_params(preset):
    params = sk.Rules(preset).params
    assert sorted(params) == sorted(PARAM_NAMES)
    for name, value in PRESET_PARAMS[preset].items():
        assert params[name] == value, name
    for name in ALLOWED:
        assert params[name] in ALLOWED[name], name
    for name in BOOL_PARAMS:
        assert params[name] in ("true", "false"), name


def test_default_preset_is_classic():
    assert sk.Rules().params == sk.Rules("classic").params


def _other_value(name, current):
    if name in BOOL_PARAMS:
        new = current != "true"
        return new, "true" if new else "false"
    if name == "max_bomb":
        new = 10 if current != "10" else 9
        return new, str(new)
    new = next(v for v in ALLOWED[name] if v != current)
    return new, new


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("name", PARAM_NAMES)
def test_every_param_settable_alone(preset, name):
    base = sk.Rules(preset).params
    value, text = _other_value(name, base[name])
    params = sk.Rules(preset, **{name: value}).params
    assert params[name] == text
    assert {k: v for k, v in params.items() if k != name} == {k: v for k, v in base.items() if k != name}


@pytest.mark.parametrize("value,text", [("none", "none"), ("BJ", "BJ"), ("both", "both")])
def test_wild_alias(value, text):
    for name in ("wild", "wild_jokers"):
        assert sk.Rules("baibian", **{name: value}).params["wild_jokers"] == text


@pytest.mark.parametrize(
    "name,value,text",
    [
        ("max_bomb", "10", "10"),
        ("max_bomb", 4, "4"),
        ("max_bomb", 12, "12"),
        ("chain_bomb", "true", "true"),
        ("three_kings", "false", "false"),
        ("bomb_order", "count", "count"),
    ],
)
def test_param_values_as_text_or_number(name, value, text):
    assert sk.Rules("qianbian", **{name: value}).params[name] == text


def test_several_overrides_at_once():
    r = sk.Rules(
        "classic",
        wild="both",
        max_bomb=12,
        chain_bomb=True,
        uneven_chain=True,
        uneven_star="min",
        three_kings=True,
        bomb_order="stars",
        tianwang="bottom",
        first_lead="random",
        team_formation="fixed",
        base_table="common",
        multiplier="star_max",
        multiplier_from="all",
        contribution="team",
        collect_stars=True,
    )
    expected = dict(PRESET_PARAMS["qianbian_collect"], team_formation="fixed")
    assert r.params == expected
    # Same rules as the preset, so the same readings.
    c = sk.Rules("qianbian_collect")
    for cards in [
        "6 6 6 6 7 7 7 7 8 8 8 8",
        "3 3 3 3 4 4 4 4 4 4 4 5 5 5 5",
        "8 8 8 8 8 8 8 8 SJ BJ",
        "5 5 SJ",
        "SJ BJ",
    ]:
        assert r.read(cards) == c.read(cards)


# Overrides change behaviour.


def test_max_bomb_override():
    ten = "7 7 7 7 7 7 7 7 SJ BJ"
    assert rules("qianbian").read(ten) is None
    p = sk.Rules("qianbian", max_bomb=10).read(ten)
    assert (p.kind, p.reading, p.stars, len(p), p.key) == ("bomb", " ".join(["7"] * 10), 10, 10, "7")
    assert sk.Rules("qianbian", max_bomb=9).read(ten) is None
    assert sk.Rules("qianbian", max_bomb=9).read("7 7 7 7 7 7 7 7 SJ").stars == 9
    assert sk.Rules("classic", max_bomb=4).read("6 6 6 6 6") is None
    assert sk.Rules("classic", max_bomb=4).read("6 6 6 6").kind == "bomb"
    # The move lists follow: 9- and 10-card bombs only where max_bomb allows.
    hand = "8 8 8 8 8 8 8 8 SJ BJ"

    def sizes(r):
        return sorted(len(m) for m in r.legal_moves(hand) if m.kind == "bomb")

    assert sizes(rules("qianbian")) == [4, 5, 6, 7, 8]
    assert sizes(sk.Rules("qianbian", max_bomb=10)) == [4, 5, 6, 7, 8, 9, 10]
    assert sizes(rules("qianbian_collect")) == [4, 5, 6, 7, 8, 9, 10]
    assert sizes(sk.Rules("qianbian_collect", max_bomb=8)) == [4, 5, 6, 7, 8]


def test_three_kings_override():
    assert rules("baibian").read("SJ SJ BJ").kind == "three_kings"
    r = sk.Rules("baibian", three_kings=False)
    assert r.read("SJ SJ BJ") is None
    assert "three_kings" not in {m.kind for m in r.legal_moves("3 SJ SJ BJ BJ")}
    assert sk.Rules("classic").read("SJ BJ BJ") is None
    assert sk.Rules("classic", three_kings=True).read("SJ BJ BJ").kind == "three_kings"


def test_wild_override():
    assert rules("baibian").read("5 6 7 8 BJ").reading == "5 6 7 8 9"
    assert sk.Rules("baibian", wild="none").read("5 6 7 8 BJ") is None
    assert sk.Rules("baibian", wild_jokers="none").read("5 6 7 8 BJ") is None
    assert rules("baibian").read("5 5 SJ") is None
    assert sk.Rules("baibian", wild="both").read("5 5 SJ").reading == "5 5 5"
    assert sk.Rules("classic", wild="BJ").read("5 6 7 8 BJ").reading == "5 6 7 8 9"
    # SJ BJ: pair of SJ where only BJ is wild, of BJ where both are, invalid where none.
    assert sk.Rules("qianbian", wild="BJ").read("SJ BJ").reading == "SJ SJ"
    assert sk.Rules("baibian", wild="both").read("SJ BJ").reading == "BJ BJ"
    assert sk.Rules("baibian", wild="none").read("SJ BJ") is None


def test_chain_bomb_override():
    cb = "7 7 7 7 8 8 8 8 9 9 9 9"
    p = rules("baibian").read(cb)
    assert (p.kind, p.stars, p.key) == ("chain_bomb", 7, "9")
    assert sk.Rules("baibian", chain_bomb=False).read(cb) is None
    assert rules("classic").read(cb) is None
    p = sk.Rules("classic", chain_bomb=True).read(cb)
    assert (p.kind, p.stars) == ("chain_bomb", 12)  # stars under count order = card count


def test_uneven_chain_override():
    uneven = "7 7 7 7 8 8 8 8 8 9 9 9 9"
    assert rules("baibian").read(uneven) is None
    p = sk.Rules("baibian", uneven_chain=True, uneven_star="max").read(uneven)
    assert (p.kind, p.stars, len(p)) == ("uneven_chain_bomb", 8, 13)
    assert rules("qianbian").read(uneven).kind == "uneven_chain_bomb"
    assert sk.Rules("qianbian", uneven_chain=False).read(uneven) is None


def test_uneven_star_override():
    a = "6 6 6 6 7 7 7 7 8 8 8 8"
    b = "3 3 3 3 4 4 4 4 4 4 4 5 5 5 5"
    q = rules("qianbian")
    assert q.read(b).stars == 10
    assert q.beats(b, a) and not q.beats(a, b)
    qmin = sk.Rules("qianbian", uneven_star="min")
    assert qmin.read(b).stars == 7
    assert qmin.beats(a, b) and not qmin.beats(b, a)
    c = rules("qianbian_collect")
    assert c.beats(a, b) and not c.beats(b, a)
    cmax = sk.Rules("qianbian_collect", uneven_star="max")
    assert cmax.beats(b, a) and not cmax.beats(a, b)


def test_bomb_order_override():
    seven = "3 3 3 3 3 3 3"
    chain = "4 4 4 4 5 5 5 5 6 6 6 6"
    b = rules("baibian")  # stars: both 7 stars, fewer cards wins
    assert b.beats(seven, chain) and not b.beats(chain, seven)
    bc = sk.Rules("baibian", bomb_order="count")  # more cards wins
    assert bc.beats(chain, seven) and not bc.beats(seven, chain)
    hk, eights = "SJ SJ BJ BJ", "8 8 8 8 8 8 8 8"
    c = rules("classic")  # the heavenly kings beat everything
    assert c.beats(hk, eights) and not c.beats(eights, hk)
    cs = sk.Rules("classic", bomb_order="stars")  # 8 stars beat 7
    assert cs.beats(eights, hk) and not cs.beats(hk, eights)


def test_tianwang_override():
    hk, sevens = "SJ SJ BJ BJ", "7 7 7 7 7 7 7"
    assert rules("baibian").beats(hk, sevens)
    assert not rules("baibian").beats(sevens, hk)
    bb = sk.Rules("baibian", tianwang="bottom")
    assert bb.beats(sevens, hk) and not bb.beats(hk, sevens)
    assert rules("qianbian_collect").beats(sevens, hk)
    assert sk.Rules("qianbian_collect", tianwang="top").beats(hk, sevens)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize(
    "name",
    [
        "first_lead",
        "team_formation",
        "base_table",
        "multiplier",
        "multiplier_from",
        "contribution",
        "collect_stars",
        "partner_visible",
    ],
)
def test_flow_and_scoring_params_do_not_change_play(preset, name):
    base = rules(preset)
    value, _ = _other_value(name, base.params[name])
    r = sk.Rules(preset, **{name: value})
    for hand in ["3 3 4 5 6 7 BJ", "5 6 7 SJ SJ BJ", "7 7 7 7 8 8 8 8 9 9 9 9 SJ BJ"]:
        assert r.legal_moves(hand) == base.legal_moves(hand)
    assert r.beats("SJ SJ BJ BJ", "7 7 7 7 7 7 7") == base.beats("SJ SJ BJ BJ", "7 7 7 7 7 7 7")


# --------------------------------------------------------------------------
# read and Play


@pytest.mark.parametrize(
    "preset,cards,kind,reading,key,stars",
    [
        ("baibian", "5 6 7 8 BJ", "straight", "5 6 7 8 9", "9", 0),
        ("baibian", "7 7 7 7 BJ", "bomb", "7 7 7 7 7", "7", 5),
        ("baibian", "7 7 8 9 9 BJ", "pair_chain", "7 7 8 8 9 9", "9", 0),
        ("baibian", "SJ SJ BJ", "three_kings", "SJ SJ BJ", "BJ", 6),
        ("baibian", "SJ BJ", "pair", "SJ SJ", "SJ", 0),
        ("qianbian", "SJ BJ", "pair", "BJ BJ", "BJ", 0),
        ("qianbian", "5 5 SJ", "triple", "5 5 5", "5", 0),
        ("qianbian", "Q K A SJ BJ", "straight", "T J Q K A", "A", 0),
        (
            "qianbian",
            "7 7 7 7 8 8 8 8 8 9 9 9 9 9 9 BJ SJ",
            "uneven_chain_bomb",
            "7 7 7 7 8 8 8 8 8 9 9 9 9 9 9 9 9",
            "9",
            11,
        ),
        ("qianbian", "SJ SJ BJ BJ", "heavenly_kings", "SJ SJ BJ BJ", "BJ", 7),
        ("jj", "2 BJ", "pair", "2 2", "2", 0),
        ("classic", "6 6 6 6 6", "bomb", "6 6 6 6 6", "6", 5),
        ("classic", "BJ", "single", "BJ", "BJ", 0),
        ("classic", "10 J Q K A", "straight", "T J Q K A", "A", 0),
    ],
)
def test_read_play_attributes(preset, cards, kind, reading, key, stars):
    p = rules(preset).read(cards)
    assert p is not None
    assert p.kind == kind
    assert p.cards == sk.parse_cards(cards)
    assert p.reading == reading
    assert p.key == key
    assert p.stars == stars
    assert len(p) == len(cards.split())
    assert p == rules(preset).read(cards.split())


@pytest.mark.parametrize(
    "preset,cards",
    [
        ("classic", "SJ BJ"),
        ("classic", "5 6 7 8 BJ"),
        ("baibian", "5 5 SJ"),
        ("jj", "5 5 SJ"),
        ("baibian", "5 5 5 6 6 6"),
        ("qianbian", "5 5 5 6 6 6"),
        ("qianbian", "Q K A 2 3"),
        ("qianbian", "Q K A 2 BJ"),
        ("baibian", "3 3 4 4"),
        ("qianbian", "2 2 2 2 3 3 3 3 4 4 4 4"),
        ("classic", "SJ SJ BJ"),
    ],
)
def test_read_invalid_is_none(preset, cards):
    assert rules(preset).read(cards) is None
    assert rules(preset).readings(cards) == []


def test_play_equality_and_hashing():
    r = rules("baibian")
    p1 = r.read("5 6 7 8 BJ")
    p2 = r.read("BJ 8 7 6 5")
    p3 = r.read(["8", "BJ", "5", "7", "6"])
    assert p1 == p2 == p3
    assert not (p1 != p2)
    assert hash(p1) == hash(p2) == hash(p3)
    assert len({p1, p2, p3}) == 1
    assert {p1: "x"}[p2] == "x"
    assert p1 != r.read("5 6 7 8 9")  # other cards, same reading
    assert p1 != r.read("6 7 8 9 BJ")
    assert p1 != "5 6 7 8 BJ"
    assert p1 != None  # noqa: E711
    # The same move from legal_moves equals the read.
    assert p1 in r.legal_moves("5 6 7 8 BJ")
    # Same cards, two kinds: two different plays.
    tc, cb = rules("qianbian").readings("7 7 7 8 8 8 9 9 9 SJ SJ BJ")
    assert tc != cb
    assert len({tc, cb, rules("qianbian").read("7 7 7 8 8 8 9 9 9 SJ SJ BJ")}) == 2


# --------------------------------------------------------------------------
# readings


@pytest.mark.parametrize(
    "preset,cards,expected",
    [
        (
            "qianbian",
            "7 7 7 8 8 8 9 9 9 SJ SJ BJ",
            [("triple_chain", "7 7 7 8 8 8 9 9 9 T T T"), ("chain_bomb", "7 7 7 7 8 8 8 8 9 9 9 9")],
        ),
        ("qianbian", "5 6 7 SJ SJ BJ", [("straight", "5 6 7 8 9 T"), ("pair_chain", "5 5 6 6 7 7")]),
        ("qianbian", "7 7 SJ SJ BJ BJ", [("pair_chain", "7 7 8 8 9 9"), ("bomb", "7 7 7 7 7 7")]),
        ("baibian", "7 7 7 8 8 8 9 9 9 SJ SJ BJ", []),  # SJ is not wild in baibian
        ("baibian", "7 7 7 8 8 8 9 9 BJ", [("triple_chain", "7 7 7 8 8 8 9 9 9")]),
        ("jj", "3 3 3 3 4 4 4 4 5 5 5 BJ", [("chain_bomb", "3 3 3 3 4 4 4 4 5 5 5 5")]),
        ("qianbian", "3 SJ SJ BJ BJ", [("straight", "3 4 5 6 7"), ("bomb", "3 3 3 3 3")]),
        ("classic", "3 3 3 4 4 4 5 5 5", [("triple_chain", "3 3 3 4 4 4 5 5 5")]),
    ],
)
def test_readings_one_per_kind_in_kind_order(preset, cards, expected):
    r = rules(preset)
    got = r.readings(cards)
    assert [(p.kind, p.reading) for p in got] == expected
    for p in got:
        assert p.cards == sk.parse_cards(cards)
    if expected:
        assert r.read(cards) in got


def test_read_picks_the_strongest_kind():
    q = rules("qianbian")
    assert q.read("7 7 7 8 8 8 9 9 9 SJ SJ BJ").kind == "chain_bomb"  # a bomb first
    assert q.read("7 7 SJ SJ BJ BJ").kind == "bomb"
    assert q.read("5 6 7 SJ SJ BJ").kind == "pair_chain"  # later non-bomb kind
    assert q.read("3 SJ SJ BJ BJ").kind == "bomb"


# --------------------------------------------------------------------------
# beats


def test_beats_accepts_strings_lists_and_plays():
    r = rules("baibian")
    assert r.beats("6 6", "5 5")
    assert r.beats(["6", "6"], ("5", "5"))
    assert r.beats(r.read("6 6"), r.read("5 5"))
    assert not r.beats("5 5", "5 5")  # equal never beats
    assert not r.beats("5 5", "6 6")
    assert not r.beats("6 6 6", "5 5")  # other pattern
    assert not r.beats("4 5 6 7 8 9", "3 4 5 6 7")  # other length
    assert r.beats("3 3 3 3", "2 2")  # any bomb beats a non-bomb
    assert not r.beats("2 2", "3 3 3 3")
    assert not r.beats("5 6", "5")  # not a valid play: beats nothing


def test_beats_mover_names_the_type():
    q = rules("qianbian")
    both = "7 7 7 8 8 8 9 9 9 SJ SJ BJ"
    tc, cb = q.readings(both)
    higher_tc = "8 8 8 9 9 9 T T T J J J"
    lower_tc = "6 6 6 7 7 7 8 8 8 9 9 9"
    # As a string, b is its strongest reading: the chain bomb.
    assert not q.beats(higher_tc, both)
    # As a Play, b keeps its kind.
    assert q.beats(higher_tc, tc)
    assert not q.beats(lower_tc, tc)
    assert not q.beats(higher_tc, cb)
    # a as a string may be read as whichever type beats b.
    assert q.beats(both, lower_tc)
    assert q.beats(tc, lower_tc)
    assert q.beats(both, higher_tc)  # read as the chain bomb
    # a as a Play keeps its kind, too.
    assert q.beats(cb, higher_tc)
    assert not q.beats(tc, higher_tc)


# --------------------------------------------------------------------------
# legal_moves: complete lists worked out by hand


def M(kind, cards, reading=None):
    return (kind, cards, cards if reading is None else reading)


def singles(*cards):
    return [M("single", c) for c in cards]


FULL_CASES = [
    # ---- classic: no wilds, no chain bombs, no three kings
    (
        "classic",
        "3 3 3 3 4 5 6 7",
        None,
        singles("3", "4", "5", "6", "7")
        + [M("pair", "3 3"), M("triple", "3 3 3"), M("bomb", "3 3 3 3"), M("straight", "3 4 5 6 7")],
    ),
    (
        "classic",
        "SJ SJ BJ BJ 2 2",
        None,
        singles("2", "SJ", "BJ")
        + [M("pair", "2 2"), M("pair", "SJ SJ"), M("pair", "BJ BJ"), M("heavenly_kings", "SJ SJ BJ BJ")],
    ),
    (
        "classic",
        "3 3 4 4 5 5 6",
        None,
        singles("3", "4", "5", "6")
        + [M("pair", "3 3"), M("pair", "4 4"), M("pair", "5 5"), M("pair_chain", "3 3 4 4 5 5")],
    ),
    ("classic", "3 3 5 5 6 6 6 6", "4 4", [M("pair", "5 5"), M("pair", "6 6"), M("bomb", "6 6 6 6")]),
    ("classic", "3 4 5 6 7 8 8 8", "4 5 6 7 8", []),
    ("classic", "3 4 5 6 7 8 8 8", "3 4 5 6 7", [M("straight", "4 5 6 7 8")]),
    # ---- baibian: BJ wild, SJ not
    (
        "baibian",
        "3 3 4 5 6 7 BJ",
        None,
        singles("3", "4", "5", "6", "7", "BJ")
        + [
            M("pair", "3 3"),
            M("pair", "4 BJ", "4 4"),
            M("pair", "5 BJ", "5 5"),
            M("pair", "6 BJ", "6 6"),
            M("pair", "7 BJ", "7 7"),
            M("triple", "3 3 BJ", "3 3 3"),
            M("straight", "3 4 5 6 7"),
            M("straight", "4 5 6 7 BJ", "4 5 6 7 8"),
            M("straight", "3 4 5 6 7 BJ", "3 4 5 6 7 8"),
        ],
    ),
    (
        "baibian",
        "7 7 7 SJ SJ BJ",
        None,
        singles("7", "SJ", "BJ")
        + [
            M("pair", "7 7"),
            M("pair", "SJ SJ"),  # SJ BJ is the same pattern
            M("triple", "7 7 7"),
            M("bomb", "7 7 7 BJ", "7 7 7 7"),
            M("three_kings", "SJ SJ BJ"),
        ],
    ),
    (
        "baibian",
        "7 7 7 SJ SJ BJ",
        "2 2",
        [M("pair", "SJ SJ"), M("bomb", "7 7 7 BJ", "7 7 7 7"), M("three_kings", "SJ SJ BJ")],
    ),
    ("baibian", "7 7 7 SJ SJ BJ", "7 7 7 7 7", [M("three_kings", "SJ SJ BJ")]),
    (
        "baibian",
        "3 SJ SJ BJ BJ",
        None,
        singles("3", "SJ", "BJ")
        + [
            M("pair", "3 BJ", "3 3"),
            M("pair", "SJ SJ"),
            M("pair", "BJ BJ"),
            M("triple", "3 BJ BJ", "3 3 3"),
            M("three_kings", "SJ SJ BJ"),
            M("heavenly_kings", "SJ SJ BJ BJ"),
        ],
    ),
    ("baibian", "3 SJ SJ BJ BJ", "SJ SJ BJ", [M("heavenly_kings", "SJ SJ BJ BJ")]),
    # ---- qianbian: both jokers wild
    (
        "qianbian",
        "4 5 6 7 SJ",
        None,
        singles("4", "5", "6", "7", "SJ")
        + [
            M("pair", "4 SJ", "4 4"),
            M("pair", "5 SJ", "5 5"),
            M("pair", "6 SJ", "6 6"),
            M("pair", "7 SJ", "7 7"),
            M("straight", "4 5 6 7 SJ", "4 5 6 7 8"),
        ],
    ),
    ("qianbian", "4 5 6 7 SJ", "3 4 5 6 7", [M("straight", "4 5 6 7 SJ", "4 5 6 7 8")]),
    ("qianbian", "4 5 6 7 SJ", "4 5 6 7 8", []),
    ("qianbian", "4 5 6 7 SJ", "3 4 5 6 7 8", []),
    (
        "qianbian",
        "5 5 SJ BJ",
        None,
        singles("5", "SJ", "BJ")
        + [
            M("pair", "5 5"),
            M("pair", "SJ BJ", "BJ BJ"),
            M("triple", "5 5 SJ", "5 5 5"),
            M("bomb", "5 5 SJ BJ", "5 5 5 5"),
        ],
    ),
    (
        "qianbian",
        "3 3 3 3 SJ BJ",
        None,
        singles("3", "SJ", "BJ")
        + [
            M("pair", "3 3"),
            M("pair", "SJ BJ", "BJ BJ"),
            M("triple", "3 3 3"),
            M("bomb", "3 3 3 3"),
            M("bomb", "3 3 3 3 SJ", "3 3 3 3 3"),
            M("bomb", "3 3 3 3 SJ BJ", "3 3 3 3 3 3"),
        ],
    ),
    (
        "qianbian",
        "5 6 7 SJ SJ BJ",
        None,
        singles("5", "6", "7", "SJ", "BJ")
        + [
            M("pair", "5 SJ", "5 5"),
            M("pair", "6 SJ", "6 6"),
            M("pair", "7 SJ", "7 7"),
            M("pair", "SJ SJ"),
            M("pair", "SJ BJ", "BJ BJ"),
            M("triple", "5 SJ SJ", "5 5 5"),
            M("triple", "6 SJ SJ", "6 6 6"),
            M("triple", "7 SJ SJ", "7 7 7"),
            M("straight", "5 6 7 SJ SJ", "5 6 7 8 9"),
            M("straight", "6 7 SJ SJ BJ", "6 7 8 9 T"),
            M("straight", "5 6 7 SJ SJ BJ", "5 6 7 8 9 T"),
            M("pair_chain", "5 6 7 SJ SJ BJ", "5 5 6 6 7 7"),
            M("bomb", "5 SJ SJ BJ", "5 5 5 5"),
            M("bomb", "6 SJ SJ BJ", "6 6 6 6"),
            M("bomb", "7 SJ SJ BJ", "7 7 7 7"),
            M("three_kings", "SJ SJ BJ"),
        ],
    ),
    (
        "qianbian",
        "3 SJ SJ BJ BJ",
        None,
        singles("3", "SJ", "BJ")
        + [
            M("pair", "3 SJ", "3 3"),
            M("pair", "SJ SJ"),
            M("pair", "BJ BJ"),
            M("triple", "3 SJ SJ", "3 3 3"),
            M("straight", "3 SJ SJ BJ BJ", "3 4 5 6 7"),
            M("bomb", "3 SJ SJ BJ", "3 3 3 3"),
            M("bomb", "3 SJ SJ BJ BJ", "3 3 3 3 3"),
            M("three_kings", "SJ SJ BJ"),
            M("heavenly_kings", "SJ SJ BJ BJ"),
        ],
    ),
    (
        "qianbian",
        "3 3 3 3 4 4 4 4 4 5 5 5 5",
        "6 6 6 6 6 6 6",
        [M("uneven_chain_bomb", "3 3 3 3 4 4 4 4 4 5 5 5 5")],
    ),  # max: 5 + 3 = 8 stars
    (
        "qianbian",
        "8 8 8 8 8 8 8 8 SJ BJ",
        None,
        singles("8", "SJ", "BJ")
        + [M("pair", "8 8"), M("pair", "SJ BJ", "BJ BJ"), M("triple", "8 8 8")]
        + [M("bomb", " ".join(["8"] * n)) for n in range(4, 9)],
    ),
    # ---- qianbian_collect: max_bomb 12, uneven_star min, tianwang bottom
    (
        "qianbian_collect",
        "8 8 8 8 8 8 8 8 SJ BJ",
        None,
        singles("8", "SJ", "BJ")
        + [M("pair", "8 8"), M("pair", "SJ BJ", "BJ BJ"), M("triple", "8 8 8")]
        + [M("bomb", " ".join(["8"] * n)) for n in range(4, 9)]
        + [
            M("bomb", "8 8 8 8 8 8 8 8 SJ", " ".join(["8"] * 9)),
            M("bomb", "8 8 8 8 8 8 8 8 SJ BJ", " ".join(["8"] * 10)),
        ],
    ),
    (
        "qianbian_collect",
        "3 3 3 3 3 3 3 SJ BJ",
        "7 7 7 7 7 7 7",
        [M("bomb", "3 3 3 3 3 3 3 SJ", " ".join(["3"] * 8)), M("bomb", "3 3 3 3 3 3 3 SJ BJ", " ".join(["3"] * 9))],
    ),
    ("qianbian_collect", "3 3 3 3 4 4 4 4 4 5 5 5 5", "6 6 6 6 6 6 6", []),  # min: 4 + 3 = 7
    ("qianbian_collect", "SJ SJ BJ BJ 3", "7 7 7 7 7 7 7", []),  # heavenly kings at the bottom
    # ---- jj: BJ wild
    (
        "jj",
        "5 6 7 8 9 BJ",
        None,
        singles("5", "6", "7", "8", "9", "BJ")
        + [
            M("pair", "5 BJ", "5 5"),
            M("pair", "6 BJ", "6 6"),
            M("pair", "7 BJ", "7 7"),
            M("pair", "8 BJ", "8 8"),
            M("pair", "9 BJ", "9 9"),
            M("straight", "5 6 7 8 9"),  # not 4-8 with BJ: reads 5-9
            M("straight", "6 7 8 9 BJ", "6 7 8 9 T"),
            M("straight", "5 6 7 8 9 BJ", "5 6 7 8 9 T"),
        ],
    ),
    (
        "jj",
        "4 4 4 SJ BJ BJ",
        None,
        singles("4", "SJ", "BJ")
        + [
            M("pair", "4 4"),
            M("pair", "SJ BJ", "SJ SJ"),
            M("pair", "BJ BJ"),
            M("triple", "4 4 4"),
            M("bomb", "4 4 4 BJ", "4 4 4 4"),
            M("bomb", "4 4 4 BJ BJ", "4 4 4 4 4"),
            M("three_kings", "SJ BJ BJ"),
        ],
    ),
    (
        "jj",
        "7 7 7 7 8 8 8 8 9 9 9 9 BJ",
        None,
        singles("7", "8", "9", "BJ")
        + [
            M("pair", "7 7"),
            M("pair", "8 8"),
            M("pair", "9 9"),
            M("triple", "7 7 7"),
            M("triple", "8 8 8"),
            M("triple", "9 9 9"),
            M("pair_chain", "7 7 8 8 9 9"),
            M("triple_chain", "7 7 7 8 8 8 9 9 9"),
            M("bomb", "7 7 7 7"),
            M("bomb", "7 7 7 7 BJ", "7 7 7 7 7"),
            M("bomb", "8 8 8 8"),
            M("bomb", "8 8 8 8 BJ", "8 8 8 8 8"),
            M("bomb", "9 9 9 9"),
            M("bomb", "9 9 9 9 BJ", "9 9 9 9 9"),
            M("chain_bomb", "7 7 7 7 8 8 8 8 9 9 9 9"),
        ],
    ),
    (
        "jj",
        "4 4 4 SJ BJ BJ",
        "2 2",
        [
            M("pair", "SJ BJ", "SJ SJ"),
            M("pair", "BJ BJ"),
            M("bomb", "4 4 4 BJ", "4 4 4 4"),
            M("bomb", "4 4 4 BJ BJ", "4 4 4 4 4"),
            M("three_kings", "SJ BJ BJ"),
        ],
    ),
]


@pytest.mark.parametrize("preset,hand,previous,expected", FULL_CASES, ids=[f"{c[0]}|{c[1]}|{c[2]}" for c in FULL_CASES])
def test_full_move_lists(preset, hand, previous, expected):
    r = rules(preset)
    assert len(expected) == len(set(expected)), "test table has a duplicate"
    got = r.legal_moves(hand, previous)
    assert len(got) == len(expected)
    assert triples(got) == set(expected)
    # Same answer for a list of tokens.
    prev_list = None if previous is None else previous.split()
    assert triples(r.legal_moves(hand.split(), prev_list)) == set(expected)


def test_rules_section_11_example():
    moves = rules("qianbian").legal_moves("4 5 6 7 SJ")
    straights = [m for m in moves if m.kind == "straight"]
    assert len(straights) == 1
    s = straights[0]
    assert (s.cards, s.reading, s.key) == ("4 5 6 7 SJ", "4 5 6 7 8", "8")


def test_canonical_spending_natural_then_sj_then_bj():
    q = rules("qianbian")

    def by(moves):
        return {(m.kind, m.reading): m.cards for m in moves}

    m = by(q.legal_moves("5 5 SJ BJ"))
    assert m[("pair", "5 5")] == "5 5"  # naturals before any wild
    assert m[("triple", "5 5 5")] == "5 5 SJ"  # SJ before BJ
    assert m[("bomb", "5 5 5 5")] == "5 5 SJ BJ"
    m = by(q.legal_moves("5 SJ SJ BJ"))
    assert m[("pair", "5 5")] == "5 SJ"
    assert m[("triple", "5 5 5")] == "5 SJ SJ"
    assert m[("bomb", "5 5 5 5")] == "5 SJ SJ BJ"
    assert m[("three_kings", "SJ SJ BJ")] == "SJ SJ BJ"
    m = by(q.legal_moves("SJ SJ BJ BJ"))
    assert [k for k in m if k[0] == "three_kings"] == [("three_kings", "SJ SJ BJ")]
    m = by(rules("jj").legal_moves("5 6 7 8 9 BJ"))
    assert m[("straight", "5 6 7 8 9")] == "5 6 7 8 9"
    m = by(rules("baibian").legal_moves("7 7 7 SJ SJ BJ"))
    assert m[("pair", "SJ SJ")] == "SJ SJ"  # natural SJ before BJ standing for SJ
    assert ("pair", "7 7") in m and m[("pair", "7 7")] == "7 7"


def test_previous_play_keeps_its_kind():
    q = rules("qianbian")
    both = "7 7 7 8 8 8 9 9 9 SJ SJ BJ"
    tc, cb = q.readings(both)
    assert (tc.kind, cb.kind) == ("triple_chain", "chain_bomb")
    hand = "8 8 8 9 9 9 T T T J J J 3 3 3 3"
    follows = q.legal_moves(hand, tc)
    assert triples(follows) == {M("triple_chain", "8 8 8 9 9 9 T T T J J J"), M("bomb", "3 3 3 3")}
    assert all(m.kind == "triple_chain" or m.kind in BOMB_KINDS for m in follows)
    # The same cards as a string take their strongest reading, the chain bomb.
    assert q.legal_moves(hand, both) == []
    assert q.legal_moves(hand, cb) == []
    assert q.legal_moves(hand, q.read(both)) == []
    assert q.legal_moves(hand, list(both.split())) == []


def test_legal_moves_accepts_list_hand_and_keyword_previous():
    r = rules("baibian")
    hand = "3 3 4 5 6 7 BJ"
    assert r.legal_moves(hand.split()) == r.legal_moves(hand)
    assert r.legal_moves(tuple(hand.split()), previous=None) == r.legal_moves(hand)
    assert r.legal_moves(hand, previous="3 3") == r.legal_moves(hand, ["3", "3"])
    assert r.legal_moves(hand=hand, previous=r.read("3 3")) == r.legal_moves(hand, "3 3")
    assert r.legal_moves("") == []
    assert r.legal_moves("", "3") == []


# --------------------------------------------------------------------------
# legal_moves: properties, on hand-picked and seeded random hands


def canonical_cards(kind, reading, hand, sj_wild):
    """The cards docs/rules.md §14 spends on the pattern (kind, reading)."""
    R, H = counts(reading), counts(hand)
    sj, bj = IDX["SJ"], IDX["BJ"]
    if kind == "heavenly_kings":
        return "SJ SJ BJ BJ"
    if kind == "three_kings":  # one pattern, as many SJ as the hand allows
        s = min(H[sj], 3)
        return card_string([0] * 13 + [s, 3 - s])
    if R[sj] or R[bj]:  # jokers only: a joker single or a joker pair
        if kind == "single":
            return reading
        if R[sj] == 2:
            s = min(H[sj], 2)
            return card_string([0] * 13 + [s, 2 - s])
        b = min(H[bj], 2)
        return card_string([0] * 13 + [2 - b, b])
    nat = [min(H[i], R[i]) for i in range(13)]
    wilds = sum(R) - sum(nat)
    s = min(H[sj], wilds) if sj_wild else 0
    return card_string(nat + [s, wilds - s])


def expected_leads(r, hand):
    """docs/rules.md §14 from the reader: a card set S from the hand with its highest
    reading P of a kind is a move iff S is what the canonical rule spends on
    P's pattern (otherwise the pattern is another set's move, or is excluded
    because its canonical cards read higher)."""
    sj_wild = r.params["wild_jokers"] == "both"
    out = set()
    for sub in itertools.product(*[range(n + 1) for n in counts(hand)]):
        if not any(sub):
            continue
        s = card_string(list(sub))
        for p in r.readings(s):
            if canonical_cards(p.kind, p.reading, hand, sj_wild) == s:
                out.add((p.kind, p.cards, p.reading))
    return out


def _random_hands(seed, n, lo_size, hi_size):
    rng = random.Random(seed)
    hands = []
    for _ in range(n):
        lo = rng.randint(0, 9)
        width = rng.randint(2, 5)
        pool = [t for t in RANKS[:13] for _ in range(8) if lo <= IDX[t] <= lo + width]
        pool += ["SJ", "SJ", "BJ", "BJ"][: rng.choice([0, 1, 2, 3, 4, 4])]
        size = min(rng.randint(lo_size, hi_size), len(pool))
        hands.append(sk.parse_cards(rng.sample(pool, size)))
    return hands


SMALL_HANDS = [
    "3 3 4 5 6 7 BJ",
    "5 6 7 SJ SJ BJ",
    "3 SJ SJ BJ BJ",
    "7 7 7 7 8 8 8 8 9 9 9 9 BJ",
    "Q K A 2 2 SJ BJ",
    "3 3 4 4 5 5 6 6 BJ",
    "9 T J Q K A SJ BJ",
    "7 7 7 8 8 8 9 9 9 SJ SJ BJ",
] + _random_hands(20240601, 30, 5, 12)
SMALL_CONFIGS = [(p, {}) for p in PRESETS] + [
    ("qianbian", {"max_bomb": 10}),
    ("baibian", {"uneven_chain": True}),
    ("classic", {"chain_bomb": True, "three_kings": True}),
    ("qianbian", {"bomb_order": "count"}),
    ("qianbian_collect", {"uneven_star": "max"}),
]


def _config_id(c):
    return c[0] + "".join(f",{k}={v}" for k, v in c[1].items())


@pytest.mark.parametrize("config", SMALL_CONFIGS, ids=_config_id)
def test_leads_match_section_11_from_the_reader(config):
    r = sk.Rules(config[0], **config[1])
    for hand in SMALL_HANDS:
        got = r.legal_moves(hand)
        assert triples(got) == expected_leads(r, hand), hand


def check_leads(r, hand, leads):
    sj_wild = r.params["wild_jokers"] == "both"
    keys = [(m.kind, m.cards, m.reading) for m in leads]
    assert len(keys) == len(set(keys)), f"duplicate moves for {hand}"
    assert len(leads) == len(set(leads))
    patterns = [(m.kind, m.reading) for m in leads if m.kind != "three_kings"]
    assert len(patterns) == len(set(patterns)), f"two moves of one pattern for {hand}"
    assert sum(m.kind == "three_kings" for m in leads) <= 1
    for m in leads:
        assert m.kind in KINDS
        assert contains(hand, m.cards), (hand, m)
        assert len(m) == len(m.cards.split())
        assert len(m.reading.split()) == len(m)
        assert (m.stars > 0) == (m.kind in BOMB_KINDS)
        assert m in r.readings(m.cards), (hand, m)
        assert m in r.readings(m.cards.split())
        assert canonical_cards(m.kind, m.reading, hand, sj_wild) == m.cards, (hand, m)


def check_follows(r, hand, leads, previous):
    follows = r.legal_moves(hand, previous)
    assert len(follows) == len(set(follows))
    for m in follows:
        assert r.beats(m, previous), (hand, previous, m)
    assert set(follows) == {m for m in leads if r.beats(m, previous)}, (hand, previous)
    return follows


@pytest.mark.parametrize("config", SMALL_CONFIGS, ids=_config_id)
def test_move_properties_small_hands(config):
    r = sk.Rules(config[0], **config[1])
    rng = random.Random(7)
    for hand in SMALL_HANDS:
        leads = r.legal_moves(hand)
        check_leads(r, hand, leads)
        others = r.legal_moves(rng.choice(SMALL_HANDS))
        for prev in rng.sample(leads, min(6, len(leads))) + rng.sample(others, min(6, len(others))):
            follows = check_follows(r, hand, leads, prev)
            # A Play keeps its kind; as a string it takes its strongest reading.
            check_follows(r, hand, leads, prev.cards)
            if prev.kind not in BOMB_KINDS:
                assert all(m.kind in BOMB_KINDS or (m.kind == prev.kind and len(m) == len(prev)) for m in follows)


def _random_deals(seed, n):
    rng = random.Random(seed)
    deck = [t for t in RANKS[:13] for _ in range(8)] + ["SJ", "SJ", "BJ", "BJ"]
    return [sk.parse_cards(rng.sample(deck, 27)) for _ in range(n)]


@pytest.mark.parametrize("preset", PRESETS)
def test_move_properties_full_hands(preset):
    r = rules(preset)
    hands = _random_deals(1000 + PRESETS.index(preset), 4)
    for hand in hands:
        leads = r.legal_moves(hand)
        assert 0 < len(leads) <= sk.MAX_MOVES
        check_leads(r, hand, leads)
        prevs = random.Random(hand).sample(leads, min(8, len(leads)))
        for prev in prevs:
            check_follows(r, hand, leads, prev)
