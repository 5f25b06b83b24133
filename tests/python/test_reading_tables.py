"""Table tests for ``Rules.read`` (and a few for ``Rules.readings``).

Every expected value below was derived by hand from the rules
(docs/rules.md §1, §3, §4, §5, §13, §14, §17) and, where they leave a choice, from
docs/rule_readings.md -- such cases carry a comment "RR n" naming the item of
docs/rule_readings.md they rest on.

Table rows: (rules spec, cards, kind, reading, key, stars).
* rules spec: a preset name, optionally followed by keyword overrides,
  e.g. "qianbian_collect uneven_star=max" -> sk.Rules("qianbian_collect",
  uneven_star="max").
* kind None means read() must return None (invalid set).
* stars is 0 for non-bombs.
"""

import pytest
import shuangkou as sk

RANKS = "3 4 5 6 7 8 9 T J Q K A 2 SJ BJ".split()


def normalize(cards):
    """The canonical card string: '10' -> 'T', low to high, jokers last."""
    toks = ["T" if t == "10" else t for t in cards.split()]
    return " ".join(sorted(toks, key=RANKS.index))


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


# ---------------------------------------------------------------------------
# classic: no wilds, max_bomb 8, no chain bombs, no uneven, no three kings,
# bomb_order count, tianwang top
# ---------------------------------------------------------------------------
CLASSIC = [
    ("classic", "3", "single", "3", "3", 0),
    ("classic", "SJ", "single", "SJ", "SJ", 0),
    ("classic", "BJ", "single", "BJ", "BJ", 0),
    ("classic", "10 10", "pair", "T T", "T", 0),  # '10' accepted for T
    ("classic", "2 2 2", "triple", "2 2 2", "2", 0),
    ("classic", "SJ SJ", "pair", "SJ SJ", "SJ", 0),
    ("classic", "BJ BJ", "pair", "BJ BJ", "BJ", 0),
    ("classic", "SJ BJ", None, None, None, None),  # no wild: SJ BJ invalid
    ("classic", "5 5 BJ", None, None, None, None),  # BJ not wild here
    ("classic", "5 6 7 8 SJ", None, None, None, None),
    ("classic", "3 4 5 6 7", "straight", "3 4 5 6 7", "7", 0),
    ("classic", "9 7 5 8 6", "straight", "5 6 7 8 9", "9", 0),  # unordered input
    ("classic", "T J Q K A", "straight", "T J Q K A", "A", 0),
    ("classic", "3 4 5 6 7 8 9 T J Q K A", "straight", "3 4 5 6 7 8 9 T J Q K A", "A", 0),
    ("classic", "J Q K A 2", None, None, None, None),  # 2 never in a sequence
    ("classic", "Q K A 2 3", None, None, None, None),  # no wrap-around
    ("classic", "3 4 5 6", None, None, None, None),  # straight needs >= 5
    ("classic", "3 4 5 6 7 9", None, None, None, None),  # gap
    ("classic", "3 3 4 4 5 5", "pair_chain", "3 3 4 4 5 5", "5", 0),
    ("classic", "3 3 4 4", None, None, None, None),  # two pairs: no chain
    ("classic", "K K A A 2 2", None, None, None, None),
    ("classic", "5 5 5 6 6 6", None, None, None, None),  # 555 666 invalid
    ("classic", "5 5 5 6 6 6 7 7 7", "triple_chain", "5 5 5 6 6 6 7 7 7", "7", 0),
    ("classic", "Q Q Q K K K A A A", "triple_chain", "Q Q Q K K K A A A", "A", 0),
    ("classic", "K K K A A A 2 2 2", None, None, None, None),
    ("classic", "7 7 7 7", "bomb", "7 7 7 7", "7", 4),
    ("classic", "6 6 6 6 6", "bomb", "6 6 6 6 6", "6", 5),
    ("classic", "2 2 2 2 2 2 2 2", "bomb", "2 2 2 2 2 2 2 2", "2", 8),
    ("classic", "3 3 3 3 4 4 4 4 5 5 5 5", None, None, None, None),  # no chain bombs
    ("classic", "3 3 3 3 4 4 4 4 4 5 5 5 5", None, None, None, None),
    ("classic", "SJ SJ BJ", None, None, None, None),  # three_kings off
    # RR 1 (key BJ, natural reading), RR 6 (7 "stars" under count order)
    ("classic", "SJ SJ BJ BJ", "heavenly_kings", "SJ SJ BJ BJ", "BJ", 7),
    ("classic", "SJ BJ SJ BJ", "heavenly_kings", "SJ SJ BJ BJ", "BJ", 7),
    # keyword overrides
    # RR 6: three kings count as 6 under count order; RR 1: key BJ
    ("classic three_kings=True", "SJ SJ BJ", "three_kings", "SJ SJ BJ", "BJ", 6),
    # RR 6: stars under count order = card count
    ("classic chain_bomb=True", "3 3 3 3 4 4 4 4 5 5 5 5", "chain_bomb", "3 3 3 3 4 4 4 4 5 5 5 5", "5", 12),
    ("classic wild=both", "5 5 SJ", "triple", "5 5 5", "5", 0),
    ("classic wild=BJ", "5 6 7 8 BJ", "straight", "5 6 7 8 9", "9", 0),
    ("classic wild=BJ", "5 5 SJ", None, None, None, None),
]

# ---------------------------------------------------------------------------
# baibian: BJ wild, max_bomb 8, equal chain bombs, no uneven, three kings,
# bomb_order stars, tianwang top
# ---------------------------------------------------------------------------
BAIBIAN = [
    ("baibian", "BJ 8 7 6 5", "straight", "5 6 7 8 9", "9", 0),  # highest, not 4-8
    ("baibian", "T J Q K BJ", "straight", "T J Q K A", "A", 0),
    ("baibian", "J Q K A BJ", "straight", "T J Q K A", "A", 0),  # wild never 2 in a sequence
    ("baibian", "Q K A BJ BJ", "straight", "T J Q K A", "A", 0),
    ("baibian", "3 4 5 6 BJ", "straight", "3 4 5 6 7", "7", 0),
    ("baibian", "4 6 7 8 BJ", "straight", "4 5 6 7 8", "8", 0),  # wild fills the gap
    ("baibian", "9 T J BJ BJ", "straight", "9 T J Q K", "K", 0),
    ("baibian", "4 5 6 7 8 9 T J Q K A BJ", "straight", "3 4 5 6 7 8 9 T J Q K A", "A", 0),  # wild can only be the 3
    ("baibian", "3 4 5 6 7 8 9 T J Q K BJ", "straight", "3 4 5 6 7 8 9 T J Q K A", "A", 0),
    ("baibian", "Q K A 2 BJ", None, None, None, None),
    ("baibian", "3 K A BJ BJ", None, None, None, None),  # would need wrap-around
    ("baibian", "7 7 8 8 BJ BJ", "pair_chain", "7 7 8 8 9 9", "9", 0),  # not 66 77 88
    ("baibian", "K K A A BJ BJ", "pair_chain", "Q Q K K A A", "A", 0),  # not KK AA 22
    ("baibian", "7 7 8 8 9 BJ", "pair_chain", "7 7 8 8 9 9", "9", 0),
    ("baibian", "5 5 6 BJ", None, None, None, None),  # two pairs
    ("baibian", "5 5 6 6 BJ", None, None, None, None),
    ("baibian", "5 5 5 6 6 6 7 7 BJ", "triple_chain", "5 5 5 6 6 6 7 7 7", "7", 0),
    ("baibian", "5 5 5 6 6 6 BJ", None, None, None, None),
    ("baibian", "A BJ", "pair", "A A", "A", 0),
    ("baibian", "2 BJ", "pair", "2 2", "2", 0),  # wild may be a 2 in a pair
    ("baibian", "2 2 BJ", "triple", "2 2 2", "2", 0),
    ("baibian", "7 BJ BJ", "triple", "7 7 7", "7", 0),
    ("baibian", "2 2 2 BJ", "bomb", "2 2 2 2", "2", 4),
    ("baibian", "7 7 BJ BJ", "bomb", "7 7 7 7", "7", 4),
    ("baibian", "A A BJ BJ", "bomb", "A A A A", "A", 4),
    ("baibian", "7 7 7 7 7 7 7 BJ", "bomb", "7 7 7 7 7 7 7 7", "7", 8),
    ("baibian", "7 7 7 7 7 7 7 7 BJ", None, None, None, None),  # 9 > max_bomb 8
    ("baibian", "5 6 7 SJ BJ", None, None, None, None),  # SJ not wild
    ("baibian", "7 7 7 7 SJ", None, None, None, None),
    ("baibian", "SJ", "single", "SJ", "SJ", 0),
    ("baibian", "BJ", "single", "BJ", "BJ", 0),
    ("baibian", "SJ SJ", "pair", "SJ SJ", "SJ", 0),
    ("baibian", "BJ BJ", "pair", "BJ BJ", "BJ", 0),
    ("baibian", "BJ SJ", "pair", "SJ SJ", "SJ", 0),  # BJ stands for SJ
    ("baibian", "SJ BJ BJ", "three_kings", "SJ BJ BJ", "BJ", 6),  # RR 1: key BJ
    ("baibian", "SJ SJ BJ BJ", "heavenly_kings", "SJ SJ BJ BJ", "BJ", 7),
    ("baibian", "3 3 3 3 4 4 4 4 5 5 5 5", "chain_bomb", "3 3 3 3 4 4 4 4 5 5 5 5", "5", 7),
    ("baibian", "Q Q Q Q K K K K A A A BJ", "chain_bomb", "Q Q Q Q K K K K A A A A", "A", 7),
    ("baibian", "7 7 7 7 8 8 8 8 9 9 BJ BJ", "chain_bomb", "7 7 7 7 8 8 8 8 9 9 9 9", "9", 7),
    ("baibian", "K K K K A A A A 2 2 2 2", None, None, None, None),
    ("baibian", "3 3 3 3 4 4 4 4", None, None, None, None),  # Y = 2 < 3
    ("baibian", "K K K K A A A A BJ BJ", None, None, None, None),
    ("baibian", "3 3 3 3 4 4 4 4 4 5 5 5 5", None, None, None, None),  # uneven off
    ("baibian", "7 7 7 7 8 8 8 8 9 9 9 9 BJ", None, None, None, None),
    (
        "baibian",
        "3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 8 8 8 8",
        "chain_bomb",
        "3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 8 8 8 8",
        "8",
        10,
    ),
    ("baibian", "3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 8 8 8 8 9 9 9 9", None, None, None, None),  # Y = 7 > 6
    ("baibian", "7 7 7 8 8 8 9 9 9 SJ SJ BJ", None, None, None, None),
    # keyword overrides
    ("baibian max_bomb=10", "7 7 7 7 7 7 7 7 BJ BJ", "bomb", "7 7 7 7 7 7 7 7 7 7", "7", 10),
    ("baibian three_kings=False", "SJ SJ BJ", None, None, None, None),  # RR 1
    (
        "baibian wild=both chain_bomb=False",
        "7 7 7 8 8 8 9 9 9 SJ SJ BJ",
        "triple_chain",
        "7 7 7 8 8 8 9 9 9 T T T",
        "T",
        0,
    ),
    (
        "baibian wild=both",
        "7 7 7 8 8 8 9 9 9 SJ SJ BJ",
        "chain_bomb",
        "7 7 7 7 8 8 8 8 9 9 9 9",
        "9",
        7,
    ),  # bomb beats the triple chain reading
    ("baibian wild=none", "SJ BJ", None, None, None, None),
    # RR 6: stars under count order = card count
    ("baibian bomb_order=count", "3 3 3 3 4 4 4 4 5 5 5 5", "chain_bomb", "3 3 3 3 4 4 4 4 5 5 5 5", "5", 12),
    (
        "baibian uneven_chain=True uneven_star=min",
        "3 3 3 3 4 4 4 4 4 5 5 5 5",
        "uneven_chain_bomb",
        "3 3 3 3 4 4 4 4 4 5 5 5 5",
        "5",
        7,
    ),
    (
        "baibian uneven_chain=True uneven_star=max",
        "3 3 3 3 4 4 4 4 4 5 5 5 5",
        "uneven_chain_bomb",
        "3 3 3 3 4 4 4 4 4 5 5 5 5",
        "5",
        8,
    ),
]

# ---------------------------------------------------------------------------
# qianbian: SJ and BJ wild, max_bomb 8, chain bombs, uneven (max), three
# kings, bomb_order stars, tianwang top
# ---------------------------------------------------------------------------
QIANBIAN = [
    ("qianbian", "5 6 7 8 SJ", "straight", "5 6 7 8 9", "9", 0),
    ("qianbian", "4 5 6 7 SJ", "straight", "4 5 6 7 8", "8", 0),  # docs/rules.md §14
    ("qianbian", "8 9 T SJ BJ", "straight", "8 9 T J Q", "Q", 0),
    ("qianbian", "K A SJ SJ BJ", "straight", "T J Q K A", "A", 0),
    ("qianbian", "3 5 7 SJ BJ", "straight", "3 4 5 6 7", "7", 0),
    ("qianbian", "3 4 5 6 7 8 9 T J Q SJ BJ", "straight", "3 4 5 6 7 8 9 T J Q K A", "A", 0),
    ("qianbian", "5 6 7 8 9 T J Q SJ BJ", "straight", "5 6 7 8 9 T J Q K A", "A", 0),  # not 3-Q or 4-K
    ("qianbian", "J Q K A SJ", "straight", "T J Q K A", "A", 0),
    # RR 5: straight 5-T and pair chain 55 66 77 -> the later kind (pair_chain)
    ("qianbian", "5 6 7 SJ SJ BJ", "pair_chain", "5 5 6 6 7 7", "7", 0),
    ("qianbian", "9 9 9 T T T SJ SJ BJ", "triple_chain", "9 9 9 T T T J J J", "J", 0),
    ("qianbian", "K K K A A A SJ SJ BJ", "triple_chain", "Q Q Q K K K A A A", "A", 0),
    ("qianbian", "5 5 5 6 6 6 SJ SJ BJ", "triple_chain", "5 5 5 6 6 6 7 7 7", "7", 0),
    ("qianbian", "5 5 5 6 6 6 SJ BJ", None, None, None, None),
    ("qianbian", "5 5 6 SJ", None, None, None, None),  # two pairs
    ("qianbian", "2 SJ", "pair", "2 2", "2", 0),
    ("qianbian", "3 SJ BJ", "triple", "3 3 3", "3", 0),  # wild never a joker
    ("qianbian", "2 2 SJ BJ", "bomb", "2 2 2 2", "2", 4),
    # bomb 77777 beats the straight 7-J reading
    ("qianbian", "7 SJ SJ BJ BJ", "bomb", "7 7 7 7 7", "7", 5),
    ("qianbian", "SJ", "single", "SJ", "SJ", 0),
    ("qianbian", "SJ SJ", "pair", "SJ SJ", "SJ", 0),
    ("qianbian", "SJ SJ BJ", "three_kings", "SJ SJ BJ", "BJ", 6),  # RR 1: key BJ
    ("qianbian", "BJ SJ BJ SJ", "heavenly_kings", "SJ SJ BJ BJ", "BJ", 7),
    ("qianbian", "7 7 7 7 7 7 7 7 SJ", None, None, None, None),  # 9 > max_bomb 8
    ("qianbian", "7 7 7 7 7 7 7 SJ", "bomb", "7 7 7 7 7 7 7 7", "7", 8),
    (
        "qianbian",
        "7 7 7 8 8 8 9 9 9 SJ SJ BJ",
        "chain_bomb",
        "7 7 7 7 8 8 8 8 9 9 9 9",
        "9",
        7,
    ),  # bomb beats triple chain 7-T
    # RR 3: equal counts -> chain_bomb, never uneven_chain_bomb
    ("qianbian", "3 3 3 3 4 4 4 4 5 5 5 5", "chain_bomb", "3 3 3 3 4 4 4 4 5 5 5 5", "5", 7),
    ("qianbian", "3 3 3 3 4 4 4 4 4 5 5 5 5", "uneven_chain_bomb", "3 3 3 3 4 4 4 4 4 5 5 5 5", "5", 8),
    # RR 4: 8 stars wherever the wild goes; more cards at higher ranks wins
    ("qianbian", "7 7 7 7 8 8 8 8 9 9 9 9 BJ", "uneven_chain_bomb", "7 7 7 7 8 8 8 8 9 9 9 9 9", "9", 8),
    # max: all three wilds on one rank (7+3 = 10 stars) beats 5/5/5 (8 stars);
    # RR 4 puts them on the 9
    ("qianbian", "7 7 7 7 8 8 8 8 9 9 9 9 SJ SJ BJ", "uneven_chain_bomb", "7 7 7 7 8 8 8 8 9 9 9 9 9 9 9", "9", 10),
    # wild cannot make nine 3s (max_bomb 8): 8+3 = 11 stars; RR 4 picks 55555
    (
        "qianbian",
        "3 3 3 3 3 3 3 3 4 4 4 4 5 5 5 5 SJ",
        "uneven_chain_bomb",
        "3 3 3 3 3 3 3 3 4 4 4 4 5 5 5 5 5",
        "5",
        11,
    ),
    (
        "qianbian",
        "3 3 3 3 4 4 4 4 4 5 5 5 5 5 5 6 6 6 6 6 6 6 6",
        "uneven_chain_bomb",
        "3 3 3 3 4 4 4 4 4 5 5 5 5 5 5 6 6 6 6 6 6 6 6",
        "6",
        12,
    ),
    (
        "qianbian",
        "3 3 3 3 3 3 3 3 4 4 4 4 4 4 4 4 5 5 5 5 5 5 5 5",
        "chain_bomb",
        "3 3 3 3 3 3 3 3 4 4 4 4 4 4 4 4 5 5 5 5 5 5 5 5",
        "5",
        11,
    ),
    # every rank already at max_bomb 8: the wild has nowhere to go
    ("qianbian", "3 3 3 3 3 3 3 3 4 4 4 4 4 4 4 4 5 5 5 5 5 5 5 5 SJ", None, None, None, None),
    ("qianbian", "2 2 2 2 3 3 3 3 4 4 4 4", None, None, None, None),
    ("qianbian", "A A A A 2 2 2 2 SJ SJ BJ BJ", None, None, None, None),
    # keyword overrides
    ("qianbian max_bomb=10", "7 7 7 7 7 7 7 7 SJ BJ", "bomb", "7 7 7 7 7 7 7 7 7 7", "7", 10),
    # min: 5/5/5 (equal, 8 stars) beats any uneven split (min 4 -> 7 stars)
    (
        "qianbian uneven_star=min",
        "7 7 7 7 8 8 8 8 9 9 9 9 SJ SJ BJ",
        "chain_bomb",
        "7 7 7 7 7 8 8 8 8 8 9 9 9 9 9",
        "9",
        8,
    ),
    ("qianbian wild=BJ", "5 5 SJ", None, None, None, None),
    ("qianbian wild=BJ", "SJ BJ", "pair", "SJ SJ", "SJ", 0),
    ("qianbian tianwang=bottom", "SJ SJ BJ BJ", "heavenly_kings", "SJ SJ BJ BJ", "BJ", 7),
    ("qianbian uneven_chain=False", "3 3 3 3 4 4 4 4 4 5 5 5 5", None, None, None, None),
    ("qianbian three_kings=False", "SJ BJ BJ", None, None, None, None),  # RR 1
]

# ---------------------------------------------------------------------------
# qianbian_collect: SJ and BJ wild, max_bomb 12, chain bombs, uneven (min),
# three kings, bomb_order stars, tianwang bottom
# ---------------------------------------------------------------------------
COLLECT = [
    ("qianbian_collect", "5 6 7 8 SJ", "straight", "5 6 7 8 9", "9", 0),
    ("qianbian_collect", "5 5 SJ", "triple", "5 5 5", "5", 0),
    ("qianbian_collect", "T J Q K BJ", "straight", "T J Q K A", "A", 0),
    ("qianbian_collect", "SJ BJ", "pair", "BJ BJ", "BJ", 0),
    ("qianbian_collect", "SJ SJ BJ", "three_kings", "SJ SJ BJ", "BJ", 6),
    ("qianbian_collect", "SJ SJ BJ BJ", "heavenly_kings", "SJ SJ BJ BJ", "BJ", 7),
    ("qianbian_collect", "7 7 7 7 7 7 7 7 SJ", "bomb", "7 7 7 7 7 7 7 7 7", "7", 9),  # max_bomb 12
    ("qianbian_collect", "7 7 7 7 7 7 7 7 SJ SJ BJ", "bomb", "7 7 7 7 7 7 7 7 7 7 7", "7", 11),
    ("qianbian_collect", "7 7 7 7 7 7 7 7 SJ SJ BJ BJ", "bomb", "7 7 7 7 7 7 7 7 7 7 7 7", "7", 12),
    ("qianbian_collect", "2 2 2 2 2 2 2 2 SJ SJ", "bomb", "2 2 2 2 2 2 2 2 2 2", "2", 10),
    ("qianbian_collect", "3 3 3 3 4 4 4 4 5 5 5 5", "chain_bomb", "3 3 3 3 4 4 4 4 5 5 5 5", "5", 7),
    (
        "qianbian_collect",
        "3 3 3 3 4 4 4 4 4 5 5 5 5",
        "uneven_chain_bomb",
        "3 3 3 3 4 4 4 4 4 5 5 5 5",
        "5",
        7,
    ),  # min 4 + 3
    (
        "qianbian_collect",
        "3 3 3 3 4 4 4 4 4 5 5 5 5 5 5 6 6 6 6 6 6 6 6",
        "uneven_chain_bomb",
        "3 3 3 3 4 4 4 4 4 5 5 5 5 5 5 6 6 6 6 6 6 6 6",
        "6",
        8,
    ),
    # min: 5/5/5 equal chain (8 stars) beats any uneven split (7 stars)
    ("qianbian_collect", "7 7 7 7 8 8 8 8 9 9 9 9 SJ SJ BJ", "chain_bomb", "7 7 7 7 7 8 8 8 8 8 9 9 9 9 9", "9", 8),
    # min: 5/6/6, 6/5/6 and 5/5/7 all give 5+3 = 8 stars; RR 4 picks 5/5/7
    # (most cards at the highest rank)
    (
        "qianbian_collect",
        "7 7 7 7 8 8 8 8 8 9 9 9 9 9 9 BJ SJ",
        "uneven_chain_bomb",
        "7 7 7 7 7 8 8 8 8 8 9 9 9 9 9 9 9",
        "9",
        8,
    ),
    # RR 4: all placements give 7 stars; the wild goes to the 9s
    ("qianbian_collect", "7 7 7 7 8 8 8 8 9 9 9 9 BJ", "uneven_chain_bomb", "7 7 7 7 8 8 8 8 9 9 9 9 9", "9", 7),
    # RR 4: min stays 4 wherever the wild goes; it goes to the 5s
    (
        "qianbian_collect",
        "3 3 3 3 3 3 3 3 4 4 4 4 5 5 5 5 SJ",
        "uneven_chain_bomb",
        "3 3 3 3 3 3 3 3 4 4 4 4 5 5 5 5 5",
        "5",
        7,
    ),
    # max with max_bomb 12: nine 3s -> 9+3 = 12 stars beats 8+3
    (
        "qianbian_collect uneven_star=max",
        "3 3 3 3 3 3 3 3 4 4 4 4 5 5 5 5 SJ",
        "uneven_chain_bomb",
        "3 3 3 3 3 3 3 3 3 4 4 4 4 5 5 5 5",
        "5",
        12,
    ),
    (
        "qianbian_collect",
        "3 3 3 3 3 3 3 3 4 4 4 4 4 4 4 4 5 5 5 5 5 5 5 5",
        "chain_bomb",
        "3 3 3 3 3 3 3 3 4 4 4 4 4 4 4 4 5 5 5 5 5 5 5 5",
        "5",
        11,
    ),
    # counts above 8 allowed in chains here; min 8 + 3 = 11; RR 4: wild on the 5s
    (
        "qianbian_collect",
        "3 3 3 3 3 3 3 3 4 4 4 4 4 4 4 4 5 5 5 5 5 5 5 5 SJ",
        "uneven_chain_bomb",
        "3 3 3 3 3 3 3 3 4 4 4 4 4 4 4 4 5 5 5 5 5 5 5 5 5",
        "5",
        11,
    ),
    ("qianbian_collect", "Q K A 2 SJ", None, None, None, None),
    ("qianbian_collect", "5 5 5 6 6 6", None, None, None, None),
    ("qianbian_collect max_bomb=8", "7 7 7 7 7 7 7 7 SJ", None, None, None, None),
]

# ---------------------------------------------------------------------------
# jj: BJ wild, max_bomb 8, equal chain bombs, no uneven, three kings,
# bomb_order stars, tianwang top
# ---------------------------------------------------------------------------
JJ = [
    ("jj", "5 6 7 8 BJ", "straight", "5 6 7 8 9", "9", 0),
    ("jj", "5 6 7 8 SJ", None, None, None, None),  # SJ not wild
    ("jj", "J Q K A BJ", "straight", "T J Q K A", "A", 0),
    ("jj", "7 7 8 8 BJ BJ", "pair_chain", "7 7 8 8 9 9", "9", 0),
    ("jj", "7 7 7 SJ", None, None, None, None),
    ("jj", "A BJ BJ", "triple", "A A A", "A", 0),
    ("jj", "SJ BJ", "pair", "SJ SJ", "SJ", 0),
    ("jj", "SJ SJ BJ", "three_kings", "SJ SJ BJ", "BJ", 6),
    ("jj", "SJ SJ BJ BJ", "heavenly_kings", "SJ SJ BJ BJ", "BJ", 7),
    ("jj", "3 3 BJ BJ", "bomb", "3 3 3 3", "3", 4),
    ("jj", "7 7 7 7 BJ BJ", "bomb", "7 7 7 7 7 7", "7", 6),
    ("jj", "2 2 2 2 2 2 2 BJ", "bomb", "2 2 2 2 2 2 2 2", "2", 8),
    ("jj", "7 7 7 7 7 7 7 7 BJ", None, None, None, None),
    ("jj", "3 3 3 3 4 4 4 4 4 5 5 5 5", None, None, None, None),  # uneven off
    ("jj", "3 3 3 3 4 4 4 4 5 5 5 BJ", "chain_bomb", "3 3 3 3 4 4 4 4 5 5 5 5", "5", 7),
    ("jj", "3 3 3 3 3 4 4 4 4 4 5 5 5 5 BJ", "chain_bomb", "3 3 3 3 3 4 4 4 4 4 5 5 5 5 5", "5", 8),
    ("jj", "5 5 5 6 6 6", None, None, None, None),
]

CASES = CLASSIC + BAIBIAN + QIANBIAN + COLLECT + JJ


def _id(case):
    return f"{case[0]}|{case[1]}"


def test_table_size():
    assert len(CASES) >= 110
    assert {c[0].split()[0] for c in CASES} == {"classic", "baibian", "qianbian", "qianbian_collect", "jj"}


@pytest.mark.parametrize("spec,cards,kind,reading,key,stars", CASES, ids=[_id(c) for c in CASES])
def test_read(spec, cards, kind, reading, key, stars):
    p = rules(spec).read(cards)
    if kind is None:
        assert p is None, f"{spec}: {cards!r} should be invalid, got {p.kind} {p.reading}"
        return
    assert p is not None, f"{spec}: {cards!r} should be a {kind}"
    got = (p.kind, p.reading, p.key, p.stars, len(p), p.cards)
    want = (kind, reading, key, stars, len(cards.split()), normalize(cards))
    assert got == want


# ---------------------------------------------------------------------------
# readings(): the highest reading of each kind
# ---------------------------------------------------------------------------
READINGS = [
    ("qianbian", "5 6 7 SJ SJ BJ", {"straight": ("5 6 7 8 9 T", 0), "pair_chain": ("5 5 6 6 7 7", 0)}),
    (
        "qianbian",
        "7 7 7 8 8 8 9 9 9 SJ SJ BJ",
        {"triple_chain": ("7 7 7 8 8 8 9 9 9 T T T", 0), "chain_bomb": ("7 7 7 7 8 8 8 8 9 9 9 9", 7)},
    ),
    ("qianbian", "7 SJ SJ BJ BJ", {"straight": ("7 8 9 T J", 0), "bomb": ("7 7 7 7 7", 5)}),
    # RR 3 + RR 4
    (
        "qianbian",
        "7 7 7 7 8 8 8 8 9 9 9 9 SJ SJ BJ",
        {
            "chain_bomb": ("7 7 7 7 7 8 8 8 8 8 9 9 9 9 9", 8),
            "uneven_chain_bomb": ("7 7 7 7 8 8 8 8 9 9 9 9 9 9 9", 10),
        },
    ),
    # RR 3 + RR 4: every uneven split has min 4 -> 7 stars, the 9s get the wilds
    (
        "qianbian_collect",
        "7 7 7 7 8 8 8 8 9 9 9 9 SJ SJ BJ",
        {"chain_bomb": ("7 7 7 7 7 8 8 8 8 8 9 9 9 9 9", 8), "uneven_chain_bomb": ("7 7 7 7 8 8 8 8 9 9 9 9 9 9 9", 7)},
    ),
    ("baibian", "5 6 7 8 BJ", {"straight": ("5 6 7 8 9", 0)}),
    ("baibian", "7 7 7 8 8 8 9 9 9 SJ SJ BJ", {}),
    ("classic", "SJ BJ", {}),
]


@pytest.mark.parametrize("spec,cards,expected", READINGS, ids=[_id(c) for c in READINGS])
def test_readings(spec, cards, expected):
    plays = rules(spec).readings(cards)
    kinds = [p.kind for p in plays]
    assert len(kinds) == len(set(kinds)), f"duplicate kinds: {kinds}"
    got = {p.kind: (p.reading, p.stars) for p in plays}
    assert got == expected
