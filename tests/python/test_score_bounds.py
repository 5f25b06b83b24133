"""Rules.score_bounds (cpp/src/core/score_bounds.cc), the bounds OpenSpiel keeps as a
game's min and max utility, against the Python derivation the OpenSpiel adapter used
before they moved into the C++ scoring (kept here as the reference), on every preset
and on a grid of the parameters they depend on; and held by real scores."""

from __future__ import annotations

import itertools
import math

import pytest
import shuangkou as sk

NUM_CARDS, NUM_SEATS = 108, 4
_JOKER_BOMBS = ("three_kings", "heavenly_kings")


def _factor(stars: int, table: str) -> float:
    """A bomb's multiplier factor from its stars (or size), docs/rules.md §10."""
    if table == "star_product":
        return 1.0 if stars <= 5 else float(min(stars - 4, 4))
    return float(max(stars - 3, 1))


def reference_bounds(params: dict) -> tuple[float, float]:
    """(lowest, highest) deal score of one seat under the rules of `params` (every parameter):
    a bound, from the bombs of the rules' action catalogue and the 108 cards they can use."""
    rules = sk.Rules("classic", **params)
    p = rules.params
    base = max(
        abs(b) for order in ([0, 2, 1, 3], [0, 1, 2, 3], [0, 1, 3, 2]) for b in rules.score_breakdown(order)["base"]
    )
    pattern = rules.catalogue.pattern
    bombs = [b for b in (pattern(i) for i in range(1, rules.num_actions)) if b is not None and b.is_bomb]
    size = {b: max(b.stars, len(b)) for b in bombs}  # stars, or cards under count order: the larger
    collect = p["collect_stars"] == "true"
    if p["multiplier"] == "star_max":
        mult = 16.0
    elif p["multiplier"] == "bomb_count_max":  # the largest single factor; heavenly kings x4
        mult = max([4.0] + [_factor(size[b] + (7 if collect else 0), "count") for b in bombs])
    else:  # star_product: factors multiply; per card, no bomb beats the best ratio f**(1/cards)
        plain = [b for b in bombs if b.kind not in _JOKER_BOMBS]
        ratio = max([1.0] + [_factor(size[b], "star_product") ** (1.0 / len(b)) for b in plain])
        jokers = [_factor(size[b], "star_product") * ratio ** (NUM_CARDS - len(b)) for b in bombs if b not in plain]
        mult = max([ratio**NUM_CARDS, 4.0**NUM_SEATS if collect else 1.0] + jokers)
    qualifying = 0  # bombs that pay contributions (6 or more stars)
    if p["contribution"] != "none":
        smallest = min([len(b) for b in bombs if size[b] >= 6 and b.kind not in _JOKER_BOMBS] or [NUM_CARDS])
        jokers = [1 + (NUM_CARDS - len(b)) // smallest for b in bombs if b.kind in _JOKER_BOMBS and size[b] >= 6]
        qualifying = NUM_SEATS if collect else max([NUM_CARDS // smallest] + jokers)
    return -_whole(base * mult + 6.0 * qualifying), _whole(base * mult + 18.0 * qualifying)


def _whole(bound: float) -> float:
    """`bound` up to a whole number (scores are integers); a float power a hair below one is that one."""
    near = round(bound)
    return float(near if abs(bound - near) <= 1e-9 * max(1.0, bound) else math.ceil(bound))


GRID = [
    dict(zip(("multiplier", "contribution", "collect_stars", "max_bomb", "bomb_order"), values))
    for values in itertools.product(
        ["bomb_count_max", "star_max", "star_product"],
        ["none", "player", "team"],
        [False, True],
        [8, 12],
        ["stars", "count"],
    )
]


@pytest.mark.parametrize("variant", sk.preset_names())
def test_every_preset_s_bounds_are_the_reference_s(variant):
    rules = sk.Rules(variant)
    assert rules.score_bounds == reference_bounds(dict(rules.params))


def test_a_grid_of_the_parameters_they_depend_on():
    checked = 0
    for change in GRID:
        try:
            rules = sk.Rules("baibian", **change)
        except ValueError:  # (a combination the rules refuse)
            continue
        assert rules.score_bounds == reference_bounds(dict(rules.params)), change
        checked += 1
    assert checked > 30


def test_real_scores_stay_inside():
    bombs = [(0, "SJ SJ BJ BJ"), (0, "3 3 3 3 3 3 3 3"), (0, "4 4 4 4 4 4 4 4"), (0, "5 5 5 5 5 5 5")]
    bombs += [(2, " ".join([rank] * 8)) for rank in "678"] + [(1, "9 9 9 9 9 9 9 9"), (3, "T T T T T T T T")]
    for variant in sk.preset_names():
        rules = sk.Rules(variant)
        low, high = rules.score_bounds
        for order in ([0, 2, 1, 3], [1, 3, 0, 2], [0, 1, 3, 2]):
            assert all(low <= s <= high for s in rules.score(finish_order=order, bombs=bombs)), variant
    assert sk.Rules("classic").score_bounds == (-20.0, 20.0)
