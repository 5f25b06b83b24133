"""Independent scoring reference for Shuangkou (双扣), in plain Python.

Written from docs/rules.md (§5, §8–13) alone, without
looking at the C++ engine, so that the engine's scores can be cross-checked
against it. It is deliberately simple: no speed tricks, one function per rule.

Public functions:

* ``preset_params(name)``      -- the string parameters of a preset (docs/rules.md §13).
* ``bomb_stars(params, kind, reading)``  -- stars of one bomb (docs/rules.md §5).
* ``star_level(params, stars_list)``     -- collected star level (docs/rules.md §12).
* ``reference_breakdown(record)``        -- the score of one deal record
  (docs/rules.md §8–12): outcome, base, multiplier, contribution, total.

A deal *record* is the dict the engine's ``Game.to_json()`` produces (after
``json.loads``)::

    {"variant": {<param name>: <string value>, ...},
     "moves": [{"seat": 0, "kind": "bomb", "cards": "7 7 7 7 BJ",
                "reading": "7 7 7 7 7"}, {"seat": 1, "kind": "pass"}, ...],
     "finish_order": [0, 2, 1, 3], ...}

Only ``variant``, ``moves`` (their ``seat``, ``kind`` and ``reading``) and
``finish_order`` are used.
"""

from collections import Counter

RANKS = "3 4 5 6 7 8 9 T J Q K A 2 SJ BJ".split()
RANK_INDEX = {r: i for i, r in enumerate(RANKS)}
SEQUENCE_RANKS = RANKS[:12]  # 3 .. A
JOKERS = ("SJ", "BJ")

BOMB_KINDS = ("bomb", "chain_bomb", "uneven_chain_bomb", "three_kings", "heavenly_kings")

# ---------------------------------------------------------------------------
# Presets (docs/rules.md §13). Values are strings, exactly as in a record's "variant".
# ---------------------------------------------------------------------------

_PRESETS = {
    "classic": {
        "wild_jokers": "none",
        "max_bomb": "8",
        "chain_bomb": "false",
        "uneven_chain": "false",
        "uneven_star": "max",
        "three_kings": "false",
        "bomb_order": "count",
        "tianwang": "top",
        "first_lead": "previous_winner",
        "team_formation": "by_rule",
        "base_table": "classic",
        "multiplier": "bomb_count_max",
        "multiplier_from": "winners",
        "contribution": "none",
        "collect_stars": "false",
        "partner_visible": "false",
    },
    "baibian": {
        "wild_jokers": "BJ",
        "max_bomb": "8",
        "chain_bomb": "true",
        "uneven_chain": "false",
        "uneven_star": "max",
        "three_kings": "true",
        "bomb_order": "stars",
        "tianwang": "top",
        "first_lead": "revealed_card",
        "team_formation": "by_rule",
        "base_table": "common",
        "multiplier": "star_max",
        "multiplier_from": "winners",
        "contribution": "player",
        "collect_stars": "false",
        "partner_visible": "false",
    },
    "qianbian": {
        "wild_jokers": "both",
        "max_bomb": "8",
        "chain_bomb": "true",
        "uneven_chain": "true",
        "uneven_star": "max",
        "three_kings": "true",
        "bomb_order": "stars",
        "tianwang": "top",
        "first_lead": "revealed_card",
        "team_formation": "by_rule",
        "base_table": "common",
        "multiplier": "star_max",
        "multiplier_from": "all",
        "contribution": "team",
        "collect_stars": "false",
        "partner_visible": "false",
    },
    "qianbian_collect": {
        "wild_jokers": "both",
        "max_bomb": "12",
        "chain_bomb": "true",
        "uneven_chain": "true",
        "uneven_star": "min",
        "three_kings": "true",
        "bomb_order": "stars",
        "tianwang": "bottom",
        "first_lead": "random",
        "team_formation": "by_rule",
        "base_table": "common",
        "multiplier": "star_max",
        "multiplier_from": "all",
        "contribution": "team",
        "collect_stars": "true",
        "partner_visible": "false",
    },
    "jj": {
        "wild_jokers": "BJ",
        "max_bomb": "8",
        "chain_bomb": "true",
        "uneven_chain": "false",
        "uneven_star": "max",
        "three_kings": "true",
        "bomb_order": "stars",
        "tianwang": "top",
        "first_lead": "revealed_card",
        "team_formation": "by_rule",
        "base_table": "jj",
        # docs/rules.md §10 JJ: "every bomb played by anyone multiplies the deal".
        "multiplier": "star_product",
        "multiplier_from": "all",
        "contribution": "none",
        "collect_stars": "false",
        "partner_visible": "true",
    },
}


def preset_params(name):
    """The string parameters of preset ``name`` (a fresh dict)."""
    if name not in _PRESETS:
        raise ValueError(f"unknown preset {name!r}")
    return dict(_PRESETS[name])


# ---------------------------------------------------------------------------
# Parameter parsing
# ---------------------------------------------------------------------------


def _choice(params, key, allowed):
    value = params[key]
    if value not in allowed:
        raise ValueError(f"parameter {key}={value!r}, expected one of {allowed}")
    return value


def _flag(params, key):
    return _choice(params, key, ("true", "false")) == "true"


# ---------------------------------------------------------------------------
# Stars (docs/rules.md §5)
# ---------------------------------------------------------------------------


def _reading_counts(kind, reading):
    """Per-rank counts of a bomb reading, checked against its kind.

    Returns a list of (rank index, count) sorted by rank.
    """
    tokens = ["T" if t == "10" else t for t in reading.split()]
    for t in tokens:
        if t not in RANK_INDEX:
            raise ValueError(f"bad card token {t!r} in reading {reading!r}")
    counts = sorted((RANK_INDEX[r], c) for r, c in Counter(tokens).items())
    if kind in ("three_kings", "heavenly_kings"):
        want = 3 if kind == "three_kings" else 4
        if len(tokens) != want or any(t not in JOKERS for t in tokens):
            raise ValueError(f"{kind} reading {reading!r} is not {want} jokers")
        return counts
    if any(t in JOKERS for t in tokens):
        raise ValueError(f"{kind} reading {reading!r} holds a joker")
    if any(c < 4 for _, c in counts):
        raise ValueError(f"{kind} reading {reading!r} has a rank with fewer than 4 cards")
    if kind == "bomb":
        if len(counts) != 1:
            raise ValueError(f"bomb reading {reading!r} has more than one rank")
        return counts
    if kind in ("chain_bomb", "uneven_chain_bomb"):
        idx = [i for i, _ in counts]
        if not 3 <= len(idx) <= 6:
            raise ValueError(f"{kind} reading {reading!r} must span 3..6 ranks")
        if idx[-1] >= len(SEQUENCE_RANKS) or idx != list(range(idx[0], idx[0] + len(idx))):
            raise ValueError(f"{kind} reading {reading!r} is not consecutive sequence ranks")
        equal = len({c for _, c in counts}) == 1
        # docs/rule_readings.md item 3: the two kinds never describe the same reading.
        if kind == "chain_bomb" and not equal:
            raise ValueError(f"chain_bomb reading {reading!r} has unequal counts")
        if kind == "uneven_chain_bomb" and equal:
            raise ValueError(f"uneven_chain_bomb reading {reading!r} has equal counts")
        return counts
    raise ValueError(f"not a bomb kind: {kind!r}")


def bomb_stars(params, kind, reading):
    """Stars of a bomb (docs/rules.md §5; docs/rule_readings.md item 6 for `count`)."""
    counts = _reading_counts(kind, reading)
    order = _choice(params, "bomb_order", ("count", "stars"))
    if kind == "three_kings":
        return 6
    if kind == "heavenly_kings":
        return 7
    n_cards = sum(c for _, c in counts)
    if order == "count":
        # Under `count` order the "stars" of a bomb of any shape is its card count.
        return n_cards
    if kind == "bomb":
        return n_cards  # X cards -> X stars
    y = len(counts)  # Y consecutive ranks
    if kind == "chain_bomb":
        return counts[0][1] + y  # X + Y
    # uneven chain bomb: Z + Y
    which = _choice(params, "uneven_star", ("max", "min"))
    z = max(c for _, c in counts) if which == "max" else min(c for _, c in counts)
    return z + y


def star_level(params, stars_list):
    """A player's collected star level (docs/rules.md §12) from the stars of the bombs
    they played (chain bombs count as one bomb each). 0 when they played none.

    The level is the largest of:
      * the stars of each bomb;
      * n + 2 when the player played n >= 4 bombs of any size;
      * X + n - 1 for every X >= 5 such that n >= 2 bombs each have >= X stars
        (for a given X, using every bomb with >= X stars gives the largest n).
    """
    del params  # the rule does not depend on any parameter
    stars_list = list(stars_list)
    candidates = [0]
    candidates.extend(stars_list)
    n = len(stars_list)
    if n >= 4:
        candidates.append(n + 2)
    top = max(stars_list) if stars_list else 0
    for x in range(5, top + 1):
        n_x = sum(1 for s in stars_list if s >= x)
        if n_x >= 2:
            candidates.append(x + n_x - 1)
    return max(candidates)


# ---------------------------------------------------------------------------
# Base table (docs/rules.md §9), multiplier (§10), contribution (§11, §12)
# ---------------------------------------------------------------------------

# points by place (1st, 2nd, 3rd, 4th)
BASE_TABLES = {
    "classic": {"double": (4, 4, -4, -4), "single": (2, -2, 2, -2), "draw": (0, 0, 0, 0)},
    "common": {"double": (4, 4, -4, -4), "single": (2, -2, 2, -2), "draw": (1, 0, 0, 1)},
    "jj": {"double": (6, 6, -6, -6), "single": (3, -3, 3, -3), "draw": (1, -1, -1, 1)},
}


def team_of(seat):
    return seat % 2


def partner_of(seat):
    return (seat + 2) % 4


def bomb_count_factor(params, kind, reading):
    """Classic factor of one bomb (docs/rules.md §10 `bomb_count_max`).

    The table gives 5/6/7/8 cards -> x2/x3/x4/x5 and heavenly kings -> x4.
    Reading for sizes beyond the table (recorded in docs/rule_readings.md):
    factor = size - 3 when size >= 5, else 1, where size is the bomb's
    `count`-order stars (its card count; three kings 6; heavenly kings 7).
    This reproduces every listed entry (5->2, 6->3, 7->4, 8->5, heavenly
    7->4) and extends it to 9+ card bombs (x6, ...) and to a three-king bomb
    (6 -> x3) where a custom rule set has one under `count` order.
    The size is taken by `count` order even if the rule set says `stars`
    (the rule speaks of card counts; no preset mixes these).
    """
    size = bomb_stars(dict(params, bomb_order="count"), kind, reading)
    return size - 3 if size >= 5 else 1


def star_max_factor(s):
    """docs/rules.md §10 `star_max`: 5 -> x2, 6 -> x4, 7 -> x8, >= 8 -> x16, else x1."""
    if s >= 8:
        return 16
    return {5: 2, 6: 4, 7: 8}.get(s, 1)


def star_product_factor(s):
    """docs/rules.md §10 `star_product`: 6 -> x2, 7 -> x3, >= 8 -> x4, else x1."""
    if s >= 8:
        return 4
    return {6: 2, 7: 3}.get(s, 1)


def contribution_amount(s):
    """Points won by the bomber (and partner under `team`) for s stars:
    6 -> 6, 7 -> 12, >= 8 -> 18, else 0. Each opponent pays a third of it."""
    if s >= 8:
        return 18
    return {6: 6, 7: 12}.get(s, 0)


def _outcome(finish_order):
    fo = [int(s) for s in finish_order]
    if sorted(fo) != [0, 1, 2, 3]:
        raise ValueError(f"finish_order {finish_order!r} is not a permutation of 0..3")
    winning_team = team_of(fo[0])
    partner_place = fo.index(partner_of(fo[0]))  # 1, 2 or 3 (0-based)
    outcome = {1: "double", 2: "single", 3: "draw"}[partner_place]
    return fo, winning_team, outcome


def _bombs_of(record):
    """(seat, kind, reading) of every bomb move in the record, in order."""
    bombs = []
    for move in record.get("moves", []):
        kind = move.get("kind")
        if kind in BOMB_KINDS:
            seat = int(move["seat"])
            if seat not in (0, 1, 2, 3):
                raise ValueError("bad seat {!r}".format(move["seat"]))
            bombs.append((seat, kind, move["reading"]))
    return bombs


def _pay(contribution, seat, amount, mode):
    """Credit `amount` for a bomb / star level of `seat` under `mode`."""
    if amount == 0:
        return
    loss = amount // 3
    if mode == "player":
        for p in range(4):
            contribution[p] += amount if p == seat else -loss
    elif mode == "team":
        for p in range(4):
            contribution[p] += amount if team_of(p) == team_of(seat) else -loss


def reference_breakdown(record):
    """Score one deal record: {"outcome", "base", "multiplier", "contribution", "total"}."""
    params = record["variant"]
    fo, winning_team, outcome = _outcome(record["finish_order"])

    # --- base (docs/rules.md §9): by place ---------------------------------------
    table = BASE_TABLES[_choice(params, "base_table", tuple(BASE_TABLES))]
    base = [0, 0, 0, 0]
    for place, seat in enumerate(fo):
        base[seat] = table[outcome][place]

    # --- bombs and their stars -------------------------------------------
    bombs = _bombs_of(record)
    stars = [bomb_stars(params, kind, reading) for _, kind, reading in bombs]
    collect = _flag(params, "collect_stars")
    levels = [star_level(params, [s for (seat, _, _), s in zip(bombs, stars) if seat == p]) for p in range(4)]

    frm = _choice(params, "multiplier_from", ("winners", "all"))

    def counted(seat):
        return frm == "all" or team_of(seat) == winning_team

    # --- multiplier (docs/rules.md §10, §12) --------------------------------------
    mode = _choice(params, "multiplier", ("bomb_count_max", "star_max", "star_product"))
    multiplier = 1
    if mode == "bomb_count_max":
        for seat, kind, reading in bombs:
            if counted(seat):
                multiplier = max(multiplier, bomb_count_factor(params, kind, reading))
    elif mode == "star_max":
        if collect:
            s = max([levels[p] for p in range(4) if counted(p)] + [0])
        else:
            s = max([st for (seat, _, _), st in zip(bombs, stars) if counted(seat)] + [0])
        multiplier = star_max_factor(s)
    else:  # star_product: per counted bomb (collected levels play no part here)
        for (seat, _, _), st in zip(bombs, stars):
            if counted(seat):
                multiplier *= star_product_factor(st)

    # --- contribution (docs/rules.md §11, §12) ------------------------------------
    cmode = _choice(params, "contribution", ("none", "player", "team"))
    contribution = [0, 0, 0, 0]
    if cmode != "none":
        if collect:
            for p in range(4):  # once per player, from the final star level
                _pay(contribution, p, contribution_amount(levels[p]), cmode)
        else:
            for (seat, _, _), st in zip(bombs, stars):  # every bomb, both teams
                _pay(contribution, seat, contribution_amount(st), cmode)

    total = [base[p] * multiplier + contribution[p] for p in range(4)]
    return {"outcome": outcome, "base": base, "multiplier": multiplier, "contribution": contribution, "total": total}
