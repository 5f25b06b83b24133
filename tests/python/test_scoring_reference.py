"""Tests of the pure-Python scoring reference (scoring_reference.py) alone.

No engine is involved: every expected number is worked by hand in a comment
from docs/rules.md §5, §8–12, §16.

Seats 0 and 2 are one team, 1 and 3 the other. A finish order lists seats
by place (1st .. 4th). "base" below is by seat, not by place.
"""

import json
from pathlib import Path

import pytest
from scoring_reference import (
    BOMB_KINDS,
    bomb_stars,
    preset_params,
    reference_breakdown,
    star_level,
)

PRESETS = ["classic", "baibian", "qianbian", "qianbian_collect", "jj"]


def _examples_path():
    return Path(__file__).resolve().parents[1] / "data" / "rules_examples.json"


def record(preset, finish_order, bombs, **overrides):
    """A deal record as Game.to_json() would give it; bombs = (seat, kind, reading)."""
    variant = preset_params(preset)
    variant.update(overrides)
    moves = []
    for seat, kind, reading in bombs:
        assert kind in BOMB_KINDS
        moves.append({"seat": seat, "kind": kind, "cards": reading, "reading": reading})
        # sprinkle passes and a non-bomb to check they are ignored
        moves.append({"seat": (seat + 1) % 4, "kind": "pass"})
    moves.append({"seat": 0, "kind": "single", "cards": "5", "reading": "5"})
    return {"variant": variant, "moves": moves, "finish_order": list(finish_order), "seed": 1}


def score(preset, finish_order, bombs, **overrides):
    return reference_breakdown(record(preset, finish_order, bombs, **overrides))


def natural_bomb(cards):
    """(kind, reading) of a natural single-rank bomb such as '3 3 3 3 3 3'."""
    toks = cards.split()
    assert len(set(toks)) == 1 and toks[0] not in ("SJ", "BJ") and len(toks) >= 4
    return "bomb", cards


def rep(rank, n):
    return " ".join([rank] * n)


# Handy bombs (kind, reading)
B4 = ("bomb", rep("9", 4))
B5 = ("bomb", rep("7", 5))  # e.g. '7 7 7 7 BJ' read as five 7s
B6 = ("bomb", rep("6", 6))
B7 = ("bomb", rep("9", 7))
B8 = ("bomb", rep("5", 8))
THREE_KINGS = ("three_kings", "SJ SJ BJ")
HEAVENLY = ("heavenly_kings", "SJ SJ BJ BJ")
CHAIN_7 = ("chain_bomb", "7 7 7 7 8 8 8 8 9 9 9 9")  # 4 + 3 = 7 stars
UNEVEN_4_7_4 = ("uneven_chain_bomb", "3 3 3 3 4 4 4 4 4 4 4 5 5 5 5")  # max 7+3=10, min 4+3=7


def b(seat, kb):
    return (seat, kb[0], kb[1])


# ===========================================================================
# docs/rules.md §16 scoring examples (and rules_examples.json "scores")
# ===========================================================================


def test_section13_baibian_example():
    # double (0, 2 first and second); base [4, -4, 4, -4]; seat 0's 6-star bomb
    # -> x4 -> [16, -16, 16, -16]; contribution seat 0 +6, others -2
    # -> [22, -18, 14, -18]
    r = score("baibian", [0, 2, 1, 3], [(0, "bomb", "3 3 3 3 3 3")])
    assert r == {
        "outcome": "double",
        "base": [4, -4, 4, -4],
        "multiplier": 4,
        "contribution": [6, -2, -2, -2],
        "total": [22, -18, 14, -18],
    }


def test_section13_jj_example():
    # double; base 6/-6; 7-star bomb x3 times 6-star bomb x2 = x6
    # -> 6 * 6 = 36 each winner, -36 each loser; JJ has no contribution
    r = score("jj", [0, 2, 1, 3], [(0, "bomb", rep("4", 7)), (1, "bomb", rep("3", 6))])
    assert r == {
        "outcome": "double",
        "base": [6, -6, 6, -6],
        "multiplier": 6,
        "contribution": [0, 0, 0, 0],
        "total": [36, -36, 36, -36],
    }


def test_rules_examples_json_scores():
    examples = json.loads(_examples_path().read_text(encoding="utf-8"))["scores"]
    assert len(examples) >= 2
    seen = set()
    for ex in examples:
        bombs = [(seat,) + natural_bomb(cards) for seat, cards in ex["bombs"]]
        got = score(ex["variant"], ex["finish_order"], bombs)["total"]
        assert got == ex["scores"], ex
        seen.add(ex["variant"])
    assert {"baibian", "jj"} <= seen


# ===========================================================================
# Stars (docs/rules.md §5)
# ===========================================================================


@pytest.mark.parametrize(
    "preset,kind,reading,stars",
    [
        ("baibian", "bomb", "3 3 3 3 3 3", 6),
        ("baibian", "bomb", "7 7 7 7", 4),
        ("qianbian", "chain_bomb", "7 7 7 7 7 8 8 8 8 8 9 9 9 9 9", 8),  # 5 + 3
        ("qianbian", "uneven_chain_bomb", "7 7 7 7 8 8 8 8 8 9 9 9 9 9 9", 9),  # max 6 + 3
        ("qianbian_collect", "uneven_chain_bomb", "7 7 7 7 8 8 8 8 8 9 9 9 9 9 9", 7),  # min 4 + 3
        ("qianbian", "uneven_chain_bomb", "7 7 7 7 8 8 8 8 8 9 9 9 9 9 9 9 9", 11),  # docs/rules.md §16: 8 + 3
        ("qianbian", "uneven_chain_bomb", "3 3 3 3 4 4 4 4 4 4 4 5 5 5 5", 10),  # docs/rules.md §16: 7 + 3
        ("qianbian_collect", "uneven_chain_bomb", "3 3 3 3 4 4 4 4 4 4 4 5 5 5 5", 7),  # docs/rules.md §16: 4 + 3
        ("qianbian_collect", "chain_bomb", "6 6 6 6 7 7 7 7 8 8 8 8", 7),  # docs/rules.md §16: 4 + 3
        ("jj", "chain_bomb", "T T T T J J J J Q Q Q Q K K K K A A A A", 9),  # 4 + 5
        ("baibian", "three_kings", "SJ SJ BJ", 6),
        ("baibian", "heavenly_kings", "SJ SJ BJ BJ", 7),
        ("qianbian_collect", "heavenly_kings", "SJ SJ BJ BJ", 7),  # tianwang bottom: still 7 stars
        ("qianbian_collect", "bomb", rep("2", 12), 12),
        # count order: the card count; three kings 6, heavenly kings 7
        ("classic", "bomb", "2 2 2 2", 4),
        ("classic", "bomb", rep("8", 8), 8),
        ("classic", "heavenly_kings", "SJ SJ BJ BJ", 7),
    ],
)
def test_bomb_stars(preset, kind, reading, stars):
    assert bomb_stars(preset_params(preset), kind, reading) == stars


def test_bomb_stars_count_order_custom_shapes():
    # A custom rule set with chain bombs / three kings under `count` order.
    p = preset_params("classic")
    p.update(chain_bomb="true", three_kings="true", uneven_chain="true")
    assert bomb_stars(p, "chain_bomb", "7 7 7 7 8 8 8 8 9 9 9 9") == 12
    assert bomb_stars(p, "uneven_chain_bomb", "7 7 7 7 8 8 8 8 8 9 9 9 9") == 13
    assert bomb_stars(p, "three_kings", "SJ BJ BJ") == 6


@pytest.mark.parametrize(
    "kind,reading",
    [
        ("bomb", "5 5 5"),  # 3 cards
        ("bomb", "5 5 5 5 6 6 6 6"),  # two ranks
        ("chain_bomb", "5 5 5 5 6 6 6 6"),  # only 2 ranks
        ("chain_bomb", "5 5 5 5 7 7 7 7 8 8 8 8"),  # not consecutive
        ("chain_bomb", "Q Q Q Q K K K K A A A A 2 2 2 2"),  # 2 in a sequence
        ("chain_bomb", "5 5 5 5 6 6 6 6 6 7 7 7 7"),  # unequal counts
        ("uneven_chain_bomb", "5 5 5 5 6 6 6 6 7 7 7 7"),  # equal counts
        ("three_kings", "SJ SJ BJ BJ"),
        ("heavenly_kings", "SJ SJ BJ"),
        ("bomb", "5 5 5 X"),
        ("straight", "5 6 7 8 9"),
    ],
)
def test_bomb_stars_rejects_inconsistent_readings(kind, reading):
    with pytest.raises(ValueError):
        bomb_stars(preset_params("qianbian"), kind, reading)


# ===========================================================================
# Collected stars (docs/rules.md §12)
# ===========================================================================


@pytest.mark.parametrize(
    "stars,level",
    [
        ([], 0),
        ([4], 4),
        ([6], 6),
        ([5, 5], 6),  # two 5-card bombs -> 6
        ([6, 6, 6], 8),  # three 6-card -> 8
        ([8, 8], 9),  # two 8-card -> 9
        ([9, 9, 9], 11),  # three 9-card -> 11
        ([7, 7, 7], 9),  # 7-star chain bomb plus two 7-card bombs -> 9
        ([4, 4, 4, 4], 6),  # 4 bombs of any size -> 6
        ([4, 4, 4, 4, 4], 7),  # 5 -> 7
        ([4, 4, 4, 4, 4, 4], 8),  # 6 -> 8
        ([4, 4, 4], 4),  # three 4-card bombs: no rule reaches above 4
        ([4, 5], 5),  # one bomb >= 5 only
        ([7, 5], 7),  # X=5: n=2 -> 6 < 7
        ([10, 5], 10),
        ([8, 7, 6], 8),  # X=6: n=3 -> 8; X=7: n=2 -> 8; single 8
        ([9, 8, 7], 9),  # X=7: n=3 -> 9; X=8: n=2 -> 9
        ([5, 5, 5, 5], 8),  # X=5: n=4 -> 8 beats n+2 = 6
        ([6, 6], 7),  # e.g. a three-king bomb and a 6-card bomb
    ],
)
def test_star_level(stars, level):
    assert star_level(preset_params("qianbian_collect"), stars) == level


def test_star_level_examples_through_bomb_stars():
    p = preset_params("qianbian_collect")
    chain7 = bomb_stars(p, "chain_bomb", "6 6 6 6 7 7 7 7 8 8 8 8")  # 4 + 3 = 7
    b7 = bomb_stars(p, "bomb", rep("9", 7))
    assert star_level(p, [chain7, b7, b7]) == 9
    assert star_level(p, [bomb_stars(p, "bomb", rep("9", 9))] * 3) == 11


# ===========================================================================
# classic: base classic, bomb_count_max from winners, no contribution
# ===========================================================================


def test_classic_double_no_bombs():
    # 0,2 first and second -> double; 4/4/-4/-4 by place -> [4,-4,4,-4]; x1
    r = score("classic", [0, 2, 1, 3], [])
    assert r["outcome"] == "double" and r["multiplier"] == 1
    assert r["total"] == [4, -4, 4, -4]


def test_classic_single_with_winner_six_card_bomb():
    # seat 1 first, seat 3 third -> single for team {1,3};
    # by place 2/-2/2/-2: seat1 2, seat0 -2, seat3 2, seat2 -2 -> base [-2,2,-2,2]
    # seat 3 (winner) 6-card bomb -> x3 -> [-6,6,-6,6]
    r = score("classic", [1, 0, 3, 2], [b(3, B6)])
    assert r["outcome"] == "single"
    assert r["base"] == [-2, 2, -2, 2]
    assert r["multiplier"] == 3
    assert r["total"] == [-6, 6, -6, 6]


def test_classic_draw_is_zero_whatever_the_bombs():
    # seat 2 first, seat 0 fourth -> draw for team {0,2}; classic draw 0/0/0/0;
    # seat 2's 8-card bomb -> x5, still 0 everywhere
    r = score("classic", [2, 1, 3, 0], [b(2, B8)])
    assert r["outcome"] == "draw"
    assert r["multiplier"] == 5
    assert r["total"] == [0, 0, 0, 0]


@pytest.mark.parametrize("n,factor", [(4, 1), (5, 2), (6, 3), (7, 4), (8, 5)])
def test_classic_factor_by_card_count(n, factor):
    # double, base [4,-4,4,-4]; winner seat 2 plays an n-card bomb -> factor
    r = score("classic", [0, 2, 1, 3], [(2, "bomb", rep("K", n))])
    assert r["multiplier"] == factor
    assert r["total"] == [4 * factor, -4 * factor, 4 * factor, -4 * factor]


def test_classic_heavenly_kings_x4():
    # double; heavenly kings by winner seat 0 -> x4 -> [16,-16,16,-16]
    r = score("classic", [0, 2, 1, 3], [b(0, HEAVENLY)])
    assert r["multiplier"] == 4
    assert r["total"] == [16, -16, 16, -16]


def test_classic_no_stacking():
    # winners play 5-card (x2), 7-card (x4), heavenly (x4) and 6-card (x3):
    # largest single factor x4, not 2*4*4*3
    r = score("classic", [0, 2, 1, 3], [b(0, B5), b(2, B7), b(0, HEAVENLY), b(2, B6)])
    assert r["multiplier"] == 4
    assert r["total"] == [16, -16, 16, -16]


def test_classic_losers_bombs_not_counted():
    # double for {0,2}; seat 1 (loser) plays 8 cards and heavenly kings: x1
    r = score("classic", [0, 2, 1, 3], [b(1, B8), b(3, HEAVENLY)])
    assert r["multiplier"] == 1
    assert r["total"] == [4, -4, 4, -4]


def test_classic_winner_bomb_counts_even_after_loser_bigger_bomb():
    # single for {1,3} (fo 3,2,1,0): base seat3 2, seat2 -2, seat1 2, seat0 -2
    # -> [-2,2,-2,2]; loser seat 0's 8-card ignored; winner seat 1's 5-card x2
    r = score("classic", [3, 2, 1, 0], [b(0, B8), b(1, B5)])
    assert r["multiplier"] == 2
    assert r["total"] == [-4, 4, -4, 4]


def test_classic_beyond_table_reading():
    # Custom rule set (classic + three kings + max_bomb 12): factor = size - 3.
    # three kings count as 6 -> x3; a 10-card bomb -> x7.
    r = score("classic", [0, 2, 1, 3], [b(0, THREE_KINGS)], three_kings="true")
    assert r["multiplier"] == 3 and r["total"] == [12, -12, 12, -12]
    r = score("classic", [0, 2, 1, 3], [(2, "bomb", rep("A", 10))], max_bomb="12")
    assert r["multiplier"] == 7 and r["total"] == [28, -28, 28, -28]


# ===========================================================================
# baibian: base common, star_max from winners, player contribution
# ===========================================================================


def test_baibian_double_no_bombs():
    assert score("baibian", [0, 2, 1, 3], [])["total"] == [4, -4, 4, -4]


def test_baibian_losers_bomb_not_in_multiplier_but_pays_contribution():
    # double for {0,2}: base [4,-4,4,-4]; seat 1 (loser) 7-card bomb: not
    # counted for the multiplier (x1); contribution seat 1 +12, others -4
    # -> [4-4, -4+12, 4-4, -4-4] = [0, 8, 0, -8]
    r = score("baibian", [0, 2, 1, 3], [b(1, B7)])
    assert r["multiplier"] == 1
    assert r["contribution"] == [-4, 12, -4, -4]
    assert r["total"] == [0, 8, 0, -8]


def test_baibian_single_five_star_no_contribution():
    # seat 1 first, seat 3 third -> single for {1,3}:
    # seat1 2, seat2 -2, seat3 2, seat0 -2 -> base [-2,2,-2,2]
    # winner seat 3's '7 7 7 7 BJ' = five 7s = 5 stars -> x2; 5 stars pay nothing
    r = score("baibian", [1, 2, 3, 0], [b(3, B5)])
    assert r["outcome"] == "single"
    assert r["multiplier"] == 2
    assert r["contribution"] == [0, 0, 0, 0]
    assert r["total"] == [-4, 4, -4, 4]


def test_baibian_draw_common_table():
    # seat 0 first, seat 2 fourth -> draw for {0,2}; common draw 1/0/0/1 by
    # place: seat0 1, seat1 0, seat3 0, seat2 1 -> base [1,0,1,0]
    # winner seat 2's chain bomb 7777 8888 9999 = 7 stars -> x8 -> [8,0,8,0]
    # contribution seat 2 +12, others -4 -> [4,-4,20,-4]
    r = score("baibian", [0, 1, 3, 2], [b(2, CHAIN_7)])
    assert r["outcome"] == "draw"
    assert r["base"] == [1, 0, 1, 0]
    assert r["multiplier"] == 8
    assert r["total"] == [4, -4, 20, -4]
    # the common draw row is not zero-sum: winners gain 1 x multiplier each
    assert sum(r["total"]) == 16


def test_baibian_largest_only_and_contributions_add():
    # double, base [4,-4,4,-4]; seat 0 6-star (x4), seat 2 8-star (x16):
    # largest only -> x16 -> [64,-64,64,-64]
    # contributions: seat0 bomb +6 / -2; seat2 bomb +18 / -6
    # seat0: 6-6 = 0; seat1: -2-6 = -8; seat2: -2+18 = 16; seat3: -8
    r = score("baibian", [0, 2, 1, 3], [b(0, B6), b(2, B8)])
    assert r["multiplier"] == 16
    assert r["contribution"] == [0, -8, 16, -8]
    assert r["total"] == [64, -72, 80, -72]


def test_baibian_three_kings():
    # fo 1,3,0,2 -> double for {1,3}: base [-4,4,-4,4]; seat 1 three kings
    # = 6 stars -> x4 -> [-16,16,-16,16]; +6 seat 1, -2 others -> [-18,22,-18,14]
    r = score("baibian", [1, 3, 0, 2], [b(1, THREE_KINGS)])
    assert r["multiplier"] == 4
    assert r["total"] == [-18, 22, -18, 14]


def test_baibian_heavenly_kings():
    # double for {0,2}; heavenly kings 7 stars -> x8 -> [32,-32,32,-32];
    # seat 0 +12, others -4 -> [44,-36,28,-36]
    r = score("baibian", [0, 2, 1, 3], [b(0, HEAVENLY)])
    assert r["multiplier"] == 8
    assert r["total"] == [44, -36, 28, -36]


def test_baibian_four_card_bombs_do_nothing():
    r = score("baibian", [0, 2, 1, 3], [b(0, B4), b(1, B4), b(2, B4)])
    assert r["multiplier"] == 1 and r["total"] == [4, -4, 4, -4]


def test_baibian_same_bomb_twice_pays_twice():
    # double; seat 0 plays two 6-star bombs: x4 (largest only), contribution
    # paid per bomb: seat0 +12, others -4 -> [16+12, -16-4, 16-4, -16-4]
    r = score("baibian", [0, 2, 1, 3], [b(0, B6), b(0, B6)])
    assert r["total"] == [28, -20, 12, -20]


# ===========================================================================
# qianbian: base common, star_max from all, team contribution, uneven max
# ===========================================================================


def test_qianbian_losers_bomb_counts():
    # double for {0,2}: base [4,-4,4,-4]; loser seat 1's 6-card bomb counts
    # (multiplier_from all) -> x4 -> [16,-16,16,-16]
    # team contribution: seats 1,3 +6 each, seats 0,2 -2 each -> [-2,6,-2,6]
    # -> [14,-10,14,-10]; not zero-sum (sum 8)
    r = score("qianbian", [0, 2, 1, 3], [b(1, B6)])
    assert r["multiplier"] == 4
    assert r["contribution"] == [-2, 6, -2, 6]
    assert r["total"] == [14, -10, 14, -10]
    assert sum(r["total"]) == 8


def test_qianbian_uneven_chain_max():
    # fo 2,0,3,1 -> double for {0,2}: base [4,-4,4,-4]
    # seat 2's 7777 88888 99999999 = 8 + 3 = 11 stars -> x16 -> [64,-64,64,-64]
    # +18 to seats 2 and 0, -6 to seats 1 and 3 -> [82,-70,82,-70]
    r = score("qianbian", [2, 0, 3, 1], [(2, "uneven_chain_bomb", "7 7 7 7 8 8 8 8 8 9 9 9 9 9 9 9 9")])
    assert r["multiplier"] == 16
    assert r["total"] == [82, -70, 82, -70]


def test_qianbian_single_losers_bigger_bomb():
    # fo 3,0,1,2: seat 3 first, seat 1 third -> single for {1,3}
    # seat3 2, seat0 -2, seat1 2, seat2 -2 -> base [-2,2,-2,2]
    # loser seat 0 7-card (7 stars), winner seat 3 5-card: max 7 -> x8
    # -> [-16,16,-16,16]; contribution for seat 0's 7 stars: seats 0,2 +12,
    # seats 1,3 -4 -> [12,-4,12,-4]; total [-4,12,-4,12]
    r = score("qianbian", [3, 0, 1, 2], [b(0, B7), b(3, B5)])
    assert r["outcome"] == "single"
    assert r["multiplier"] == 8
    assert r["total"] == [-4, 12, -4, 12]


def test_qianbian_draw():
    # fo 1,0,2,3: seat 1 first, seat 3 fourth -> draw for {1,3}
    # common draw by place: seat1 1, seat0 0, seat2 0, seat3 1 -> [0,1,0,1]
    # loser seat 0 heavenly kings (7 stars) -> x8 -> [0,8,0,8]
    # contribution seats 0,2 +12, seats 1,3 -4 -> [12,4,12,4]
    r = score("qianbian", [1, 0, 2, 3], [b(0, HEAVENLY)])
    assert r["outcome"] == "draw"
    assert r["base"] == [0, 1, 0, 1]
    assert r["total"] == [12, 4, 12, 4]


def test_qianbian_two_bombs_pay_twice():
    # double for {0,2}; seat 0 plays two 6-card bombs: x4 -> [16,-16,16,-16]
    # no collection: each bomb pays +6 to seats 0,2 and -2 to seats 1,3
    # -> [16+12, -16-4, 16+12, -16-4] = [28,-20,28,-20]
    r = score("qianbian", [0, 2, 1, 3], [b(0, B6), b(0, B6)])
    assert r["multiplier"] == 4
    assert r["total"] == [28, -20, 28, -20]


def test_qianbian_five_star_loser_bomb():
    # double for {0,2}; loser seat 3's 5-card bomb counts -> x2, no contribution
    r = score("qianbian", [0, 2, 1, 3], [b(3, B5)])
    assert r["multiplier"] == 2 and r["total"] == [8, -8, 8, -8]


def test_qianbian_uneven_15_cards_is_10_stars():
    # 3333 4444444 5555 under max = 7 + 3 = 10 stars; seat 1 plays it;
    # double for {0,2}: x16 -> [64,-64,64,-64]; +18 seats 1,3; -6 seats 0,2
    # -> [58,-46,58,-46]
    r = score("qianbian", [0, 2, 1, 3], [b(1, UNEVEN_4_7_4)])
    assert r["multiplier"] == 16
    assert r["total"] == [58, -46, 58, -46]


# ===========================================================================
# qianbian_collect: collected star levels, paid once, uneven min
# ===========================================================================


def test_collect_two_five_card_bombs_make_six():
    # double for {0,2}; seat 0 plays two 5-card bombs -> level 6 -> x4
    # -> [16,-16,16,-16]; paid once for level 6: seats 0,2 +6, seats 1,3 -2
    # -> [22,-18,22,-18]
    r = score("qianbian_collect", [0, 2, 1, 3], [b(0, B5), b(0, B5)])
    assert r["multiplier"] == 4
    assert r["contribution"] == [6, -2, 6, -2]
    assert r["total"] == [22, -18, 22, -18]


def test_collect_single_losers_bomb():
    # as qianbian: double for {0,2}, loser seat 1 6-card -> level 6 -> x4;
    # +6 seats 1,3, -2 seats 0,2 -> [14,-10,14,-10]
    r = score("qianbian_collect", [0, 2, 1, 3], [b(1, B6)])
    assert r["total"] == [14, -10, 14, -10]


def test_collect_four_small_bombs():
    # fo 1,3,0,2 -> double for {1,3}: base [-4,4,-4,4]; seat 3 plays four
    # 4-card bombs -> level 4 + 2 = 6 -> x4 -> [-16,16,-16,16]
    # paid once: seats 1,3 +6, seats 0,2 -2 -> [-18,22,-18,22]
    r = score("qianbian_collect", [1, 3, 0, 2], [b(3, B4)] * 4)
    assert r["multiplier"] == 4
    assert r["total"] == [-18, 22, -18, 22]


def test_collect_paid_once_not_per_bomb():
    # fo 2,0,1,3 -> double for {0,2}: base [4,-4,4,-4]
    # seat 2 plays two 7-card bombs -> level 7 + 2 - 1 = 8 -> x16
    # -> [64,-64,64,-64]; paid ONCE for level 8: +18 seats 0,2, -6 seats 1,3
    # (per bomb would have been 2 x 12) -> [82,-70,82,-70]
    r = score("qianbian_collect", [2, 0, 1, 3], [b(2, B7), b(2, B7)])
    assert r["multiplier"] == 16
    assert r["contribution"] == [18, -6, 18, -6]
    assert r["total"] == [82, -70, 82, -70]


def test_collect_uneven_min():
    # 3333 4444444 5555 under min = 4 + 3 = 7 stars; seat 1 plays it
    # double for {0,2}: level 7 -> x8 -> [32,-32,32,-32]
    # +12 seats 1,3, -4 seats 0,2 -> [28,-20,28,-20]
    r = score("qianbian_collect", [0, 2, 1, 3], [b(1, UNEVEN_4_7_4)])
    assert r["multiplier"] == 8
    assert r["total"] == [28, -20, 28, -20]


def test_collect_levels_per_player():
    # seat 0: one 6-card -> level 6; seat 1: two 5-card -> level 6;
    # seat 3: one 8-card -> level 8; seat 2: nothing. Multiplier from all:
    # max level 8 -> x16.
    # fo 0,1,3,2: seat 0 first, seat 2 fourth -> draw for {0,2}
    # base (common draw) [1,0,1,0] -> x16 -> [16,0,16,0]
    # contributions: seat 0 level 6: +6 seats 0,2, -2 seats 1,3
    #                seat 1 level 6: +6 seats 1,3, -2 seats 0,2
    #                seat 3 level 8: +18 seats 1,3, -6 seats 0,2
    # seat0 = 6-2-6 = -2, seat2 = -2, seat1 = -2+6+18 = 22, seat3 = 22
    # totals [14, 22, 14, 22]
    r = score("qianbian_collect", [0, 1, 3, 2], [b(0, B6), b(1, B5), b(1, B5), b(3, B8)])
    assert r["outcome"] == "draw"
    assert r["multiplier"] == 16
    assert r["contribution"] == [-2, 22, -2, 22]
    assert r["total"] == [14, 22, 14, 22]


def test_collect_three_kings_plus_six_card():
    # seat 0: three kings (6) + 6-card (6) -> X=6, n=2 -> 7 -> x8
    # double for {0,2} -> [32,-32,32,-32]; once +12 seats 0,2, -4 seats 1,3
    # -> [44,-36,44,-36]
    r = score("qianbian_collect", [0, 2, 1, 3], [b(0, THREE_KINGS), b(0, B6)])
    assert r["multiplier"] == 8
    assert r["total"] == [44, -36, 44, -36]


def test_collect_partners_do_not_pool():
    # seat 0 one 5-card, seat 2 one 5-card: each player's level is 5 (bombs
    # are collected per player, not per team) -> x2, no contribution
    r = score("qianbian_collect", [0, 2, 1, 3], [b(0, B5), b(2, B5)])
    assert r["multiplier"] == 2
    assert r["total"] == [8, -8, 8, -8]


def test_collect_with_multiplier_from_winners():
    # custom: collected levels but multiplier from winners only.
    # double for {0,2}; loser seat 1 level 8 (not counted), winner seat 0
    # level 6 -> x4 -> [16,-16,16,-16]
    # contributions: seat 1 level 8: +18 seats 1,3, -6 seats 0,2;
    #                seat 0 level 6: +6 seats 0,2, -2 seats 1,3
    # -> [0,16,0,16] -> totals [16,0,16,0]
    r = score("qianbian_collect", [0, 2, 1, 3], [b(1, B8), b(0, B6)], multiplier_from="winners")
    assert r["multiplier"] == 4
    assert r["total"] == [16, 0, 16, 0]


# ===========================================================================
# jj: base jj, star_product over every bomb, no contribution
# ===========================================================================


def test_jj_double_no_bombs():
    assert score("jj", [0, 2, 1, 3], [])["total"] == [6, -6, 6, -6]


def test_jj_single_three_kings_times_heavenly():
    # fo 1,2,3,0 -> single for {1,3}: seat1 3, seat2 -3, seat3 3, seat0 -3
    # -> base [-3,3,-3,3]; three kings x2 (seat 0) * heavenly x3 (seat 2) = x6
    # -> [-18,18,-18,18]
    r = score("jj", [1, 2, 3, 0], [b(0, THREE_KINGS), b(2, HEAVENLY)])
    assert r["outcome"] == "single"
    assert r["base"] == [-3, 3, -3, 3]
    assert r["multiplier"] == 6
    assert r["total"] == [-18, 18, -18, 18]


def test_jj_draw_table():
    # fo 0,3,1,2 -> draw for {0,2}: jj draw 1/-1/-1/1 by place:
    # seat0 1, seat3 -1, seat1 -1, seat2 1 -> [1,-1,1,-1]
    # loser seat 1's 8-card bomb x4 -> [4,-4,4,-4]
    r = score("jj", [0, 3, 1, 2], [b(1, B8)])
    assert r["outcome"] == "draw"
    assert r["base"] == [1, -1, 1, -1]
    assert r["total"] == [4, -4, 4, -4]


def test_jj_five_star_bombs_do_not_multiply():
    r = score("jj", [0, 2, 1, 3], [b(0, B5), b(1, B5), b(2, B4)])
    assert r["multiplier"] == 1 and r["total"] == [6, -6, 6, -6]


def test_jj_product_of_many():
    # 6 (x2) * 6 (x2) * 7 (x3) * 8 (x4) = x48; double -> 6*48 = 288
    r = score("jj", [0, 2, 1, 3], [b(0, B6), b(1, THREE_KINGS), b(3, CHAIN_7), b(2, B8)])
    assert r["multiplier"] == 48
    assert r["total"] == [288, -288, 288, -288]


def test_jj_three_kings_x2_and_heavenly_x3_alone():
    # three kings alone x2 -> 12; heavenly alone x3 -> 18
    assert score("jj", [0, 2, 1, 3], [b(3, THREE_KINGS)])["total"] == [12, -12, 12, -12]
    assert score("jj", [0, 2, 1, 3], [b(3, HEAVENLY)])["total"] == [18, -18, 18, -18]


def test_jj_nine_star_chain_bomb_is_x4():
    # TTTT JJJJ QQQQ KKKK AAAA = 4 + 5 = 9 stars -> x4 (>= 8); single for
    # {0,2} (fo 2,1,0,3): seat2 3, seat1 -3, seat0 3, seat3 -3 -> [3,-3,3,-3] x4
    r = score("jj", [2, 1, 0, 3], [(1, "chain_bomb", "T T T T J J J J Q Q Q Q K K K K A A A A")])
    assert r["multiplier"] == 4
    assert r["total"] == [12, -12, 12, -12]


# ===========================================================================
# Cross-variant properties
# ===========================================================================


def test_draw_base_tables_differ():
    # the same draw (fo 0,1,3,2) by seat: common [1,0,1,0], jj [1,-1,1,-1],
    # classic [0,0,0,0]
    fo = [0, 1, 3, 2]
    assert score("baibian", fo, [])["base"] == [1, 0, 1, 0]
    assert score("qianbian", fo, [])["base"] == [1, 0, 1, 0]
    assert score("jj", fo, [])["base"] == [1, -1, 1, -1]
    assert score("classic", fo, [])["base"] == [0, 0, 0, 0]


@pytest.mark.parametrize(
    "fo,outcome",
    [
        ([0, 2, 1, 3], "double"),
        ([1, 3, 2, 0], "double"),
        ([0, 1, 2, 3], "single"),
        ([3, 0, 1, 2], "single"),
        ([0, 1, 3, 2], "draw"),
        ([1, 2, 0, 3], "draw"),
    ],
)
def test_outcomes(fo, outcome):
    for preset in PRESETS:
        assert score(preset, fo, [])["outcome"] == outcome


ALL_BOMBS = [B4, B5, B6, B7, B8, THREE_KINGS, HEAVENLY, CHAIN_7]
ALL_ORDERS = [[0, 2, 1, 3], [1, 3, 0, 2], [0, 1, 2, 3], [3, 2, 1, 0], [0, 1, 3, 2], [2, 3, 1, 0]]


def _some_bomb_sets():
    sets = [[]]
    for i, kb in enumerate(ALL_BOMBS):
        sets.append([b(i % 4, kb)])
        sets.append([b(i % 4, kb), b((i + 1) % 4, ALL_BOMBS[(i + 3) % len(ALL_BOMBS)])])
    return sets


def test_zero_sum_presets():
    # classic and jj: zero-sum in every outcome. baibian: zero-sum except the
    # common draw row (1/0/0/1), whose excess is exactly 2 x multiplier.
    for fo in ALL_ORDERS:
        for bombs in _some_bomb_sets():
            for preset in ("classic", "jj"):
                if preset == "classic" and any(k in ("chain_bomb", "three_kings") for _, k, _ in bombs):
                    continue
                assert sum(score(preset, fo, bombs)["total"]) == 0
            r = score("baibian", fo, bombs)
            assert sum(r["contribution"]) == 0
            assert sum(r["total"]) == (2 * r["multiplier"] if r["outcome"] == "draw" else 0)


def test_qianbian_team_contributions_not_zero_sum():
    # a bomb worth `amount` (6/12/18) gives +amount to the bomber and partner
    # and -amount/3 to each opponent: net 2*amount - 2*amount/3 = 4/3 amount,
    # i.e. 6 stars -> +8, 7 -> +16, >= 8 -> +24; 5 stars -> 0
    for kb, net in [(B6, 8), (B7, 16), (B8, 24), (THREE_KINGS, 8), (HEAVENLY, 16), (B5, 0)]:
        r = score("qianbian", [0, 2, 1, 3], [b(1, kb)])
        assert sum(r["contribution"]) == net
        assert sum(r["total"]) == net  # double: base sums to 0


def test_total_is_base_times_multiplier_plus_contribution():
    for preset in PRESETS:
        for fo in ALL_ORDERS:
            for bombs in _some_bomb_sets():
                if preset == "classic" and any(k in ("chain_bomb", "three_kings") for _, k, _ in bombs):
                    continue
                r = score(preset, fo, bombs)
                assert r["total"] == [r["base"][p] * r["multiplier"] + r["contribution"][p] for p in range(4)]


@pytest.mark.parametrize("fo", [[0, 1, 2], [0, 1, 2, 2], [0, 1, 2, 4], [-1, 0, 1, 2], [0, 1, 2, 3, 0]])
def test_bad_finish_order(fo):
    with pytest.raises(ValueError):
        score("baibian", fo, [])


def test_preset_params_shape():
    keys = set(preset_params("classic"))
    assert len(keys) == 16
    for name in PRESETS:
        p = preset_params(name)
        assert set(p) == keys
        assert all(isinstance(v, str) for v in p.values())
    with pytest.raises(ValueError):
        preset_params("nope")
