"""Table tests for ``Rules.beats(a, b)``: True iff ``a`` may be played on ``b``.

Expected values derived by hand from docs/rules.md (§3, §4, §5, §13)
and, where the rules leave a choice, from docs/rule_readings.md -- such cases
carry a comment "RR n" naming the item they rest on.

Rows: (rules spec, a, b, expected). The rules spec is a preset name optionally
followed by keyword overrides, e.g. "qianbian tianwang=bottom" ->
sk.Rules("qianbian", tianwang="bottom").

Shorthand used in comments: "7s/12c" = 7 stars, 12 cards.
"""

import pytest
import shuangkou as sk


def _value(v):
    if v in ("True", "False"):
        return v == "True"
    if v.isdigit():
        return int(v)
    return v


_RULES = {}


def rules(spec):
    if spec not in _RULES:
        preset, *overrides = spec.split()
        kw = {}
        for item in overrides:
            k, v = item.split("=")
            kw[k] = _value(v)
        _RULES[spec] = sk.Rules(preset, **kw)
    return _RULES[spec]


# classic: bomb_order count
CLASSIC = [
    ("classic", "6 7 8 9 T", "5 6 7 8 9", True),
    ("classic", "5 6 7 8 9", "6 7 8 9 T", False),
    ("classic", "5 6 7 8 9", "5 6 7 8 9", False),  # equal never beats
    ("classic", "6 7 8 9 T J", "5 6 7 8 9", False),  # different size
    ("classic", "6 6", "5 5", True),
    ("classic", "2 2", "A A", True),
    ("classic", "SJ SJ", "2 2", True),
    ("classic", "BJ BJ", "SJ SJ", True),
    ("classic", "BJ", "SJ", True),
    ("classic", "SJ", "BJ", False),
    ("classic", "SJ", "2", True),
    ("classic", "2", "SJ", False),
    ("classic", "3 3 3", "2 2", False),  # different kind
    ("classic", "3 3 3", "2 2 2", False),
    ("classic", "4 4 5 5 6 6", "3 3 4 4 5 5", True),
    ("classic", "4 4 5 5 6 6 7 7", "3 3 4 4 5 5", False),  # different size
    ("classic", "6 6 6 7 7 7 8 8 8", "3 4 5 6 7 8 9 T J", False),  # same size, other kind
    ("classic", "4 4 5 5 6 6", "3 4 5 6 7 8", False),
    ("classic", "3 3 3 3", "3 4 5 6 7 8 9 T J Q K A", True),  # bomb beats non-bomb
    ("classic", "3 3 3 3", "BJ BJ", True),
    ("classic", "3 4 5 6 7 8 9 T J Q K A", "3 3 3 3", False),
    ("classic", "3 3 3 3 3", "2 2 2 2", True),  # more cards wins
    ("classic", "2 2 2 2", "3 3 3 3 3", False),
    ("classic", "4 4 4 4", "3 3 3 3", True),
    ("classic", "3 3 3 3", "3 3 3 3", False),
    ("classic", "3 3 3 3 3 3 3 3", "2 2 2 2 2 2 2", True),
    ("classic", "SJ SJ BJ BJ", "2 2 2 2 2 2 2 2", True),
    ("classic", "2 2 2 2 2 2 2 2", "SJ SJ BJ BJ", False),
    ("classic chain_bomb=True", "3 3 3 3 4 4 4 4 5 5 5 5", "2 2 2 2 2 2 2 2", True),  # 12 > 8 cards
    ("classic chain_bomb=True", "2 2 2 2 2 2 2 2", "3 3 3 3 4 4 4 4 5 5 5 5", False),
    ("classic chain_bomb=True", "SJ SJ BJ BJ", "3 3 3 3 4 4 4 4 5 5 5 5", True),
    # RR 6: three kings count as 6 cards, the lowest 6-count play
    ("classic three_kings=True", "SJ SJ BJ", "2 2 2 2 2", True),
    ("classic three_kings=True", "3 3 3 3 3 3", "SJ SJ BJ", True),
    ("classic three_kings=True", "SJ SJ BJ", "3 3 3 3 3 3", False),
    # RR 6: under count order the heavenly kings beat everything, whatever tianwang says
    ("classic tianwang=bottom", "SJ SJ BJ BJ", "2 2 2 2 2 2 2 2", True),
    ("classic wild=BJ", "5 6 7 8 BJ", "4 5 6 7 8", True),
]

# baibian: BJ wild, stars order, tianwang top, no uneven
BAIBIAN = [
    ("baibian", "SJ SJ BJ", "3 3 3 3 3 3", False),  # three kings lowest 6-star
    ("baibian", "SJ SJ BJ", "2 2 2 2 2", True),  # 6 > 5 stars
    ("baibian", "SJ SJ BJ BJ", "SJ SJ BJ", True),
    ("baibian", "SJ BJ BJ", "SJ SJ BJ", False),  # all three-king bombs are one pattern
    ("baibian", "7 7 7 7 7 7 7", "SJ SJ BJ BJ", False),  # tianwang top
    ("baibian", "SJ SJ BJ BJ", "2 2 2 2 2 2 2", True),
    ("baibian", "SJ SJ BJ BJ", "4 4 4 4 5 5 5 5 6 6 6 6", True),  # top of 7 stars
    # 8 stars (4+4) beat the heavenly kings' 7
    ("baibian", "3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6", "SJ SJ BJ BJ", True),
    ("baibian", "SJ SJ BJ BJ", "3 3 3 3 3 3 3 3", False),
    # 7s/7c against 7s/12c: fewer cards wins
    ("baibian", "3 3 3 3 3 3 3", "Q Q Q Q K K K K A A A A", True),
    ("baibian", "Q Q Q Q K K K K A A A A", "3 3 3 3 3 3 3", False),
    ("baibian", "4 4 4 4 5 5 5 5 6 6 6 6", "3 3 3 3 4 4 4 4 5 5 5 5", True),  # key
    ("baibian", "3 3 3 3 4 4 4 4 5 5 5 5", "4 4 4 4 5 5 5 5 6 6 6 6", False),
    # 8s/15c against 8s/16c
    ("baibian", "3 3 3 3 3 4 4 4 4 4 5 5 5 5 5", "3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6", True),
    ("baibian", "3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6", "3 3 3 3 3 4 4 4 4 4 5 5 5 5 5", False),
    ("baibian", "3 3 3 3 3 3 3 3", "Q Q Q Q Q K K K K K A A A A A", True),  # 8s/8c vs 8s/15c
    ("baibian", "3 3 3 3 4 4 4 4 5 5 5 5", "2 2 2 2 2 2", True),  # 7 > 6 stars
    ("baibian", "2 2 2 2 BJ", "A A A A A", True),
    ("baibian", "7 7 7 7 BJ", "6 6 6 6 6", True),
    ("baibian", "7 7 7 7 BJ", "7 7 7 7 7", False),  # equal
    ("baibian", "6 6 6 6 6", "7 7 7 7", True),  # 5 > 4 stars
    ("baibian", "8 8 8 8", "5 6 7 8 BJ", True),
    ("baibian", "5 6 7 8 BJ", "4 5 6 7 8", True),  # highest reading 5-9
    ("baibian", "5 6 7 8 BJ", "5 6 7 8 9", False),
    ("baibian", "5 6 7 8 9", "4 5 6 7 BJ", True),  # b read at its highest, 4-8
    ("baibian", "4 5 6 7 8", "4 5 6 7 BJ", False),  # RR 7: b is read at its highest
    ("baibian", "J Q K A BJ", "9 T J Q K", True),
    ("baibian", "7 7 8 8 BJ BJ", "7 7 8 8 9 9", False),  # equal (77 88 99)
    ("baibian", "7 7 8 8 BJ BJ", "6 6 7 7 8 8", True),
    ("baibian", "SJ BJ", "2 2", True),  # pair of small jokers
    ("baibian", "SJ BJ", "SJ SJ", False),
    ("baibian", "BJ BJ", "SJ BJ", True),
    ("baibian", "2 BJ", "A A", True),
    ("baibian", "2 BJ", "2 2", False),
    ("baibian", "SJ SJ", "2 BJ", True),
    ("baibian max_bomb=10", "7 7 7 7 7 7 7 7 BJ BJ", "SJ SJ BJ BJ", True),
    ("baibian max_bomb=10", "7 7 7 7 7 7 7 7 BJ BJ", "3 3 3 3 3 3 3 3", True),  # 10 > 8 stars
    ("baibian tianwang=bottom", "3 3 3 3 3 3 3", "SJ SJ BJ BJ", True),
    ("baibian tianwang=bottom", "SJ SJ BJ BJ", "3 3 3 3 3 3 3", False),
    ("baibian tianwang=bottom", "SJ SJ BJ BJ", "2 2 2 2 2 2", True),
    # RR 6: under count order a chain bomb counts its cards
    ("baibian bomb_order=count", "3 3 3 3 3 3 3", "Q Q Q Q K K K K A A A A", False),
    ("baibian bomb_order=count", "Q Q Q Q K K K K A A A A", "3 3 3 3 3 3 3", True),
]

# qianbian: both wild, uneven max, tianwang top
QIANBIAN = [
    # 8s/13c (5+3) against 8s/15c
    ("qianbian", "3 3 3 3 4 4 4 4 4 5 5 5 5", "3 3 3 3 3 4 4 4 4 4 5 5 5 5 5", True),
    ("qianbian", "3 3 3 3 3 4 4 4 4 4 5 5 5 5 5", "3 3 3 3 4 4 4 4 4 5 5 5 5", False),
    # 8s/13c against 8s/8c
    ("qianbian", "3 3 3 3 4 4 4 4 4 5 5 5 5", "2 2 2 2 2 2 2 2", False),
    ("qianbian", "2 2 2 2 2 2 2 2", "3 3 3 3 4 4 4 4 4 5 5 5 5", True),
    ("qianbian", "7 7 7 7 8 8 8 8 9 9 9 9 SJ SJ BJ", "2 2 2 2 2 2 2 2", True),  # 10 stars
    ("qianbian", "SJ SJ BJ BJ", "4 4 4 4 5 5 5 5 6 6 6 6", True),  # top of 7 stars
    ("qianbian", "4 4 4 4 5 5 5 5 6 6 6 6", "SJ SJ BJ BJ", False),
    ("qianbian", "SJ SJ BJ BJ", "A A A A A A A", True),
    ("qianbian", "SJ SJ BJ", "SJ SJ BJ BJ", False),
    ("qianbian", "SJ SJ BJ", "2 2 2 2 SJ", True),  # 6 > 5 stars
    ("qianbian", "7 SJ SJ BJ BJ", "6 6 6 6 6", True),  # five 7s
    ("qianbian", "SJ BJ", "SJ SJ", True),  # pair of big jokers
    ("qianbian", "SJ BJ", "BJ BJ", False),
    ("qianbian", "BJ BJ", "SJ BJ", False),  # RR 7: b is read at its highest (pair of BJ)
    ("qianbian", "2 SJ", "A BJ", True),
    # RR 7: a may be read as any type (straight 5-T or pair chain 55 66 77)
    ("qianbian", "5 6 7 SJ SJ BJ", "3 4 5 6 7 8", True),
    ("qianbian", "5 6 7 SJ SJ BJ", "3 3 4 4 5 5", True),
    ("qianbian", "5 6 7 SJ SJ BJ", "5 6 7 8 9 T", False),
    ("qianbian", "5 6 7 SJ SJ BJ", "6 6 7 7 8 8", False),
    ("qianbian", "7 7 7 8 8 8 9 9 9 SJ SJ BJ", "3 3 3 4 4 4 5 5 5 6 6 6", True),
    ("qianbian", "7 7 7 8 8 8 9 9 9 SJ SJ BJ", "SJ SJ BJ", True),  # 7 > 6 stars
    ("qianbian tianwang=bottom", "SJ SJ BJ BJ", "3 3 3 3 3 3 3", False),
    ("qianbian tianwang=bottom", "3 3 3 3 3 3 3", "SJ SJ BJ BJ", True),
    ("qianbian tianwang=bottom", "SJ SJ BJ BJ", "2 2 2 2 2 2", True),
    # uneven min override: 7s/15c against 7s/12c
    ("qianbian uneven_star=min", "3 3 3 3 4 4 4 4 4 4 4 5 5 5 5", "6 6 6 6 7 7 7 7 8 8 8 8", False),
    ("qianbian uneven_star=min", "6 6 6 6 7 7 7 7 8 8 8 8", "3 3 3 3 4 4 4 4 4 4 4 5 5 5 5", True),
    ("qianbian max_bomb=10", "7 7 7 7 7 7 7 7 SJ BJ", "3 3 3 3 3 3 3 3 4 4 4 4 5 5 5 5", False),  # 10 < 11 stars
    ("qianbian max_bomb=10", "7 7 7 7 7 7 7 7 SJ BJ", "SJ SJ BJ BJ", True),
]

# qianbian_collect: both wild, max_bomb 12, uneven min, tianwang bottom
COLLECT = [
    ("qianbian_collect", "SJ SJ BJ BJ", "3 3 3 3 3 3 3", False),  # bottom of 7 stars
    ("qianbian_collect", "3 3 3 3 3 3 3", "SJ SJ BJ BJ", True),
    ("qianbian_collect", "SJ SJ BJ BJ", "2 2 2 2 2 2", True),  # 7 > 6
    ("qianbian_collect", "SJ SJ BJ BJ", "2 2 2 2 2 2 2", False),
    ("qianbian_collect", "3 3 3 3 4 4 4 4 5 5 5 5", "SJ SJ BJ BJ", True),
    ("qianbian_collect", "SJ SJ BJ BJ", "SJ SJ BJ", True),
    ("qianbian_collect", "SJ SJ BJ", "A A A A A", True),
    ("qianbian_collect", "3 3 3 3 4 4 4 4 4 5 5 5 5", "3 3 3 3 3 3 3 3", False),  # 7 < 8
    ("qianbian_collect", "3 3 3 3 4 4 4 4 5 5 5 5", "3 3 3 3 4 4 4 4 4 5 5 5 5", True),  # 7s/12c vs 7s/13c
    ("qianbian_collect", "3 3 3 3 4 4 4 4 4 5 5 5 5", "3 3 3 3 4 4 4 4 5 5 5 5", False),
    ("qianbian_collect", "7 7 7 7 7 7 7 7 SJ", "3 3 3 3 4 4 4 4 4 5 5 5 5 5 5 6 6 6 6 6 6 6 6", True),  # 9 > 8
    (
        "qianbian_collect",
        "7 7 7 7 7 7 7 7 SJ SJ BJ BJ",
        "3 3 3 3 3 3 3 3 4 4 4 4 4 4 4 4 5 5 5 5 5 5 5 5",
        True,
    ),  # 12 > 11
    ("qianbian_collect", "3 3 3 3 3 3 3 3 4 4 4 4 4 4 4 4 5 5 5 5 5 5 5 5", "7 7 7 7 7 7 7 7 SJ", True),  # 11 > 9
    ("qianbian_collect", "2 2 2 2 2 2 2 2 SJ", "A A A A A A A A SJ", True),  # 9 stars, same size, key
    ("qianbian_collect tianwang=top", "SJ SJ BJ BJ", "3 3 3 3 3 3 3", True),
    # max override: 7+3 = 10 stars against 8; 5+3 = 8s/13c loses to 8s/8c
    ("qianbian_collect uneven_star=max", "3 3 3 3 4 4 4 4 4 4 4 5 5 5 5", "3 3 3 3 3 3 3 3", True),
    ("qianbian_collect uneven_star=max", "3 3 3 3 4 4 4 4 4 5 5 5 5", "3 3 3 3 3 3 3 3", False),
]

# jj: BJ wild, stars order, tianwang top
JJ = [
    ("jj", "SJ SJ BJ", "3 3 3 3 3", True),
    ("jj", "3 3 3 3 3 3", "SJ SJ BJ", True),
    ("jj", "SJ SJ BJ BJ", "A A A A A A A", True),
    ("jj", "5 6 7 8 BJ", "4 5 6 7 8", True),
    ("jj", "SJ BJ", "BJ BJ", False),  # SJ BJ is a pair of small jokers here
    ("jj", "BJ BJ", "SJ BJ", True),
    ("jj", "3 3 3 3 4 4 4 4 5 5 5 BJ", "2 2 2 2 2 2", True),
    ("jj", "7 7 7 7 BJ BJ", "7 7 7 7 7 7", False),
    ("jj", "8 8 8 8 BJ BJ", "7 7 7 7 7 7", True),
    ("jj", "3 3 3 3", "SJ SJ", True),
]

CASES = CLASSIC + BAIBIAN + QIANBIAN + COLLECT + JJ


def _id(case):
    return f"{case[0]}|{case[1]}|on|{case[2]}"


def test_table_size():
    assert len(CASES) >= 60
    assert {c[0].split()[0] for c in CASES} == {"classic", "baibian", "qianbian", "qianbian_collect", "jj"}


@pytest.mark.parametrize("spec,a,b,expected", CASES, ids=[_id(c) for c in CASES])
def test_beats(spec, a, b, expected):
    assert rules(spec).beats(a, b) is expected


# beats() also takes Play objects (as returned by read()).
PLAY_CASES = [
    ("baibian", "8 8 8 8", "5 6 7 8 BJ", True),
    ("baibian", "5 6 7 8 BJ", "8 8 8 8", False),
    ("baibian", "3 3 3 3 3 3", "SJ SJ BJ", True),
    ("qianbian_collect", "3 3 3 3 3 3 3", "SJ SJ BJ BJ", True),
    ("classic", "6 6 6 6 6", "2 2 2 2", True),
    ("classic", "5 6 7 8 9", "5 6 7 8 9", False),
]


@pytest.mark.parametrize("spec,a,b,expected", PLAY_CASES, ids=[_id(c) for c in PLAY_CASES])
def test_beats_with_play_objects(spec, a, b, expected):
    r = rules(spec)
    pa, pb = r.read(a), r.read(b)
    assert pa is not None and pb is not None
    assert r.beats(pa, pb) is expected
    assert r.beats(pa, b) is expected
    assert r.beats(a, pb) is expected
