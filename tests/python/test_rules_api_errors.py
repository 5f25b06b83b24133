"""Bad input to every public entry point of the Python rules API (sk.parse_cards,
sk.Rules and its methods).

Every failure must be a ValueError whose message names the problem (the bad
token, the parameter, the allowed values, ...), and a failed call must change
no state: the same Rules object answers exactly as before, and a failed
construction leaves no object behind and no preset altered.

Where the API takes cards, both a card string and a list (or tuple) of tokens
are accepted, so bad cards are tried in both forms.
"""

import re

import pytest
import shuangkou as sk

PRESETS = ["classic", "baibian", "qianbian", "qianbian_collect", "jj"]


def as_list(cards):
    return cards.split()


def as_tuple(cards):
    return tuple(cards.split())


def as_str(cards):
    return cards


CARD_FORMS = pytest.mark.parametrize("form", [as_str, as_list, as_tuple], ids=["str", "list", "tuple"])


def snapshot(plays):
    return [(p.kind, p.cards, p.reading, p.key, p.stars, len(p)) for p in plays]


# Bad cards: (cards, substrings the message must contain).
BAD_CARDS = [
    ("5 X", ["'X'"]),
    ("5 6 7 8 11", ["'11'"]),
    ("X7", ["'X7'"]),
    ("5 1", ["'1'"]),
    ("5 0 6", ["'0'"]),
    ("SJJ", ["'SJJ'"]),
    ("LJ", ["'LJ'"]),
    ("5 6 joker", ["'joker'"]),
    ("-", ["'-'"]),
    ("7 7 7 7 7 7 7 7 7", ["more than 8", "'7'"]),  # nine 7s
    ("SJ SJ SJ", ["more than 2", "'SJ'"]),  # three SJ
    ("BJ 5 BJ bj", ["more than 2", "'BJ'"]),  # case-folded count
    ("10 T 10 t T 10 T t 10", ["more than 8", "'T'"]),  # nine tens, both spellings
]
BAD_CARD_IDS = [c for c, _ in BAD_CARDS]


def check_message(exc_info, needles):
    msg = str(exc_info.value)
    for needle in needles:
        assert needle in msg, f"{needle!r} not in error message {msg!r}"


# --------------------------------------------------------------------------
# sk.parse_cards


@CARD_FORMS
@pytest.mark.parametrize("cards,needles", BAD_CARDS, ids=BAD_CARD_IDS)
def test_parse_cards_bad_cards(form, cards, needles):
    with pytest.raises(ValueError) as exc_info:
        sk.parse_cards(form(cards))
    check_message(exc_info, needles)


@pytest.mark.parametrize(
    "value,needle",
    [
        (5, "int"),
        (None, "NoneType"),
        (5.0, "float"),
        ({"5": 1}, "dict"),
        ([5, 6], "int"),  # tokens must be strings
        (["5", None], "NoneType"),
        ([["5"]], "list"),
    ],
    ids=["int", "None", "float", "dict", "list-of-int", "list-with-None", "nested-list"],
)
def test_parse_cards_wrong_types(value, needle):
    with pytest.raises(ValueError) as exc_info:
        sk.parse_cards(value)
    check_message(exc_info, [needle])


def test_parse_cards_eight_copies_and_two_jokers_are_fine():
    assert sk.parse_cards("7 " * 8) == " ".join(["7"] * 8)
    assert sk.parse_cards("SJ SJ BJ BJ") == "SJ SJ BJ BJ"


@pytest.mark.parametrize(
    "tokens",
    [["5 6"], ["5,6"], ["5", ""], ["5", " 6"]],
    ids=["space-inside", "comma-inside", "empty-token", "leading-space"],
)
def test_parse_cards_list_item_must_be_one_token(tokens):
    with pytest.raises(ValueError):
        sk.parse_cards(tokens)


# --------------------------------------------------------------------------
# sk.Rules(...)


def test_unknown_preset_names_it_and_the_known_ones():
    with pytest.raises(ValueError) as exc_info:
        sk.Rules("doubledeck")
    check_message(exc_info, ["'doubledeck'", "preset"] + PRESETS)


@pytest.mark.parametrize("name", ["", "baibian ", "qian bian", "classic2", "max_bomb"])
def test_other_unknown_presets(name):
    with pytest.raises(ValueError) as exc_info:
        sk.Rules(name)
    check_message(exc_info, [f"'{name}'", "classic"])


@pytest.mark.parametrize("value", [1, "true", 8.5, None], ids=["int", "str", "float", "None"])
def test_unknown_parameter_names_it(value):
    with pytest.raises(ValueError) as exc_info:
        sk.Rules("baibian", max_bombs=value)
    check_message(exc_info, ["'max_bombs'", "unknown"])


def test_unknown_parameter_lists_the_known_ones():
    with pytest.raises(ValueError) as exc_info:
        sk.Rules("classic", jokers_wild="BJ")
    check_message(exc_info, ["'jokers_wild'", "max_bomb", "wild_jokers", "bomb_order"])


@pytest.mark.parametrize(
    "value",
    [3, 13, 0, -1, 100, "eight", "3", "13", "8.0", "", " 8", 8.5, 8.0, True, False, None, [8]],
    ids=lambda v: repr(v),
)
def test_max_bomb_bad_value(value):
    with pytest.raises(ValueError) as exc_info:
        sk.Rules("qianbian", max_bomb=value)
    check_message(exc_info, ["max_bomb", "4..12"])


@pytest.mark.parametrize("name", ["max_bomb", "chain_bomb", "bomb_order"])
@pytest.mark.parametrize("value", [10**30, -(10**30)], ids=["huge", "-huge"])
def test_huge_int_override_is_a_value_error(name, value):
    with pytest.raises(ValueError) as exc_info:
        sk.Rules("qianbian", **{name: value})
    check_message(exc_info, [name])


@pytest.mark.parametrize("alias", ["wild", "wild_jokers"])
@pytest.mark.parametrize("value", ["SJ", "sj only", "all", "true", 1, 2.0], ids=lambda v: repr(v))
def test_wild_bad_value(alias, value):
    with pytest.raises(ValueError) as exc_info:
        sk.Rules("baibian", **{alias: value})
    check_message(exc_info, ["wild", "none", "BJ", "both"])


def test_wild_sj_names_the_value():
    with pytest.raises(ValueError) as exc_info:
        sk.Rules("baibian", wild="SJ")
    check_message(exc_info, ["'SJ'", "wild", "allowed"])


@pytest.mark.parametrize("value", [["SJ"], ("SJ", "5"), ["BJ", "BJ", "X"]], ids=repr)
def test_wild_bad_joker_set(value):
    with pytest.raises(ValueError) as exc_info:
        sk.Rules("baibian", wild=value)
    check_message(exc_info, ["wild", "both"])


ENUM_PARAMS = {
    "bomb_order": ["count", "stars"],
    "uneven_star": ["max", "min"],
    "tianwang": ["top", "bottom"],
    "first_lead": ["revealed_card", "previous_winner", "random"],
    "team_formation": ["by_rule", "fixed"],
    "base_table": ["classic", "common", "jj"],
    "multiplier": ["bomb_count_max", "star_max", "star_product"],
    "multiplier_from": ["winners", "all"],
    "contribution": ["none", "player", "team"],
}


@pytest.mark.parametrize("name", sorted(ENUM_PARAMS))
@pytest.mark.parametrize("value", ["size", "", 7, True, 1.5], ids=repr)
def test_enum_param_bad_value(name, value):
    with pytest.raises(ValueError) as exc_info:
        sk.Rules("qianbian", **{name: value})
    check_message(exc_info, [name] + ENUM_PARAMS[name])


def test_bomb_order_size_names_value_and_allowed():
    with pytest.raises(ValueError) as exc_info:
        sk.Rules("classic", bomb_order="size")
    check_message(exc_info, ["'size'", "bomb_order", "count", "stars"])


BOOL_PARAMS = ["chain_bomb", "uneven_chain", "three_kings", "collect_stars", "partner_visible"]


@pytest.mark.parametrize("name", BOOL_PARAMS)
@pytest.mark.parametrize("value", ["maybe", "", "2", 2, -1, 0.5, None], ids=repr)
def test_bool_param_bad_value(name, value):
    with pytest.raises(ValueError) as exc_info:
        sk.Rules("baibian", **{name: value})
    check_message(exc_info, [name, "true", "false"])


@pytest.mark.parametrize("name", BOOL_PARAMS)
def test_bool_param_maybe_names_the_value(name):
    with pytest.raises(ValueError) as exc_info:
        sk.Rules("jj", **{name: "maybe"})
    check_message(exc_info, ["'maybe'", name])


@pytest.mark.parametrize("preset", PRESETS)
def test_failed_construction_leaves_nothing_behind(preset):
    before = sk.Rules(preset).params
    rules = "untouched"
    # A good override followed by a bad one: nothing may stick.
    with pytest.raises(ValueError):
        rules = sk.Rules(preset, max_bomb=10, tianwang="bottom", chain_bomb="maybe")
    assert rules == "untouched"
    with pytest.raises(ValueError):
        rules = sk.Rules(preset, wild="both", three_kings=False, bogus=1)
    assert rules == "untouched"
    with pytest.raises(ValueError):
        rules = sk.Rules(preset + "_x")
    assert rules == "untouched"
    # The presets themselves are unchanged.
    assert sk.Rules(preset).params == before


def test_failed_construction_does_not_affect_existing_objects():
    r = sk.Rules("qianbian")
    params = r.params
    moves = snapshot(r.legal_moves("5 6 7 SJ SJ BJ"))
    with pytest.raises(ValueError):
        sk.Rules("qianbian", max_bomb=13)
    with pytest.raises(ValueError):
        sk.Rules("qianbian", wild="SJ")
    assert r.params == params
    assert snapshot(r.legal_moves("5 6 7 SJ SJ BJ")) == moves


def test_params_dict_is_a_copy():
    r = sk.Rules("baibian")
    p = r.params
    p["max_bomb"] = "12"
    p["wild_jokers"] = "none"
    assert r.params["max_bomb"] == "8"
    assert r.params["wild_jokers"] == "BJ"
    assert r.read("5 6 7 8 BJ").reading == "5 6 7 8 9"


# --------------------------------------------------------------------------
# Rules.read and Rules.readings


@pytest.mark.parametrize("method", ["read", "readings"])
@CARD_FORMS
@pytest.mark.parametrize("cards,needles", BAD_CARDS, ids=BAD_CARD_IDS)
def test_read_bad_cards(method, form, cards, needles):
    r = sk.Rules("qianbian")
    with pytest.raises(ValueError) as exc_info:
        getattr(r, method)(form(cards))
    check_message(exc_info, needles)


@pytest.mark.parametrize("method", ["read", "readings"])
@pytest.mark.parametrize(
    "value,needle",
    [(5, "int"), (None, "NoneType"), ([7, 7], "int"), (7.0, "float")],
    ids=["int", "None", "list-int", "float"],
)
def test_read_wrong_types(method, value, needle):
    r = sk.Rules("baibian")
    with pytest.raises(ValueError) as exc_info:
        getattr(r, method)(value)
    check_message(exc_info, [needle])


def test_read_invalid_set_is_none_not_an_error():
    r = sk.Rules("baibian")
    assert r.read("5 5 5 6 6 6") is None
    assert r.read("") is None
    assert r.readings("5 5 5 6 6 6") == []
    assert r.readings([]) == []


# --------------------------------------------------------------------------
# Rules.beats


@CARD_FORMS
@pytest.mark.parametrize("cards,needles", BAD_CARDS, ids=BAD_CARD_IDS)
def test_beats_bad_cards_in_a(form, cards, needles):
    r = sk.Rules("baibian")
    with pytest.raises(ValueError) as exc_info:
        r.beats(form(cards), "3")
    check_message(exc_info, needles + ["a"])


@CARD_FORMS
@pytest.mark.parametrize("cards,needles", BAD_CARDS, ids=BAD_CARD_IDS)
def test_beats_bad_cards_in_b(form, cards, needles):
    r = sk.Rules("baibian")
    with pytest.raises(ValueError) as exc_info:
        r.beats("SJ SJ BJ BJ", form(cards))
    check_message(exc_info, needles + ["b"])


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("b", ["5 6", "", "5 5 5 6 6 6", "Q K A 2 3", "3 3 4 4", "5 6 7 8"], ids=repr)
def test_beats_b_not_a_valid_play(preset, b):
    r = sk.Rules(preset)
    with pytest.raises(ValueError) as exc_info:
        r.beats("SJ SJ BJ BJ", b)
    check_message(exc_info, ["b", "not a valid play", f"'{b}'"])


@pytest.mark.parametrize(
    "preset,b",
    [
        ("classic", "5 6 7 8 BJ"),  # no wild jokers in classic
        ("classic", "SJ BJ"),
        ("baibian", "5 5 SJ"),  # SJ is not wild in baibian
        ("jj", "5 5 SJ"),
        ("classic", "SJ SJ BJ"),  # no three-king bomb in classic
    ],
)
def test_beats_b_invalid_string_under_these_rules(preset, b):
    r = sk.Rules(preset)
    with pytest.raises(ValueError) as exc_info:
        r.beats("SJ SJ BJ BJ", b)
    check_message(exc_info, ["not a valid play", f"'{b}'"])


@pytest.mark.parametrize(
    "source,cards,target",
    [
        ("qianbian", "5 5 SJ", "baibian"),  # SJ wild only in qianbian
        ("baibian", "5 6 7 8 BJ", "classic"),  # no wilds in classic
        ("baibian", "SJ SJ BJ", "classic"),  # no three kings in classic
        ("qianbian_collect", "8 8 8 8 8 8 8 8 SJ BJ", "qianbian"),  # ten-card bomb > max_bomb 8
        ("qianbian", "7 7 7 7 8 8 8 8 8 9 9 9 9", "baibian"),  # no uneven chain bombs
        ("baibian", "7 7 7 7 8 8 8 8 9 9 9 9", "classic"),  # no chain bombs in classic
    ],
)
def test_beats_b_play_invalid_under_these_rules(source, cards, target):
    p = sk.Rules(source).read(cards)
    assert p is not None
    r = sk.Rules(target)
    with pytest.raises(ValueError) as exc_info:
        r.beats("SJ SJ BJ BJ", p)
    check_message(exc_info, ["b", "not a valid play", cards])


@pytest.mark.parametrize(
    "value,needle", [(5, "int"), (None, "NoneType"), ([3, 4], "int")], ids=["int", "None", "list-int"]
)
def test_beats_wrong_types(value, needle):
    r = sk.Rules("classic")
    with pytest.raises(ValueError) as exc_info:
        r.beats(value, "3")
    check_message(exc_info, [needle])
    with pytest.raises(ValueError) as exc_info:
        r.beats("4", value)
    check_message(exc_info, [needle])


# --------------------------------------------------------------------------
# Rules.legal_moves


@CARD_FORMS
@pytest.mark.parametrize("cards,needles", BAD_CARDS, ids=BAD_CARD_IDS)
def test_legal_moves_bad_hand(form, cards, needles):
    r = sk.Rules("qianbian")
    with pytest.raises(ValueError) as exc_info:
        r.legal_moves(form(cards))
    check_message(exc_info, needles + ["hand"])
    with pytest.raises(ValueError) as exc_info:
        r.legal_moves(form(cards), "3")
    check_message(exc_info, needles + ["hand"])


def test_legal_moves_nine_sevens_and_three_small_jokers():
    r = sk.Rules("qianbian")
    with pytest.raises(ValueError) as exc_info:
        r.legal_moves("3 4 7 7 7 7 7 7 7 7 7 BJ")
    check_message(exc_info, ["hand", "'7'", "8"])
    with pytest.raises(ValueError) as exc_info:
        r.legal_moves(["SJ", "5", "SJ", "6", "SJ"])
    check_message(exc_info, ["hand", "'SJ'", "2"])


@CARD_FORMS
@pytest.mark.parametrize("cards,needles", BAD_CARDS, ids=BAD_CARD_IDS)
def test_legal_moves_previous_with_bad_cards(form, cards, needles):
    r = sk.Rules("qianbian")
    with pytest.raises(ValueError) as exc_info:
        r.legal_moves("3 4 5 6 7", form(cards))
    check_message(exc_info, needles + ["previous"])


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("previous", ["5 6", "", "5 5 5 6 6 6", "2 3 4 5 6", "3 3 4 4"], ids=repr)
def test_legal_moves_previous_not_a_valid_play(preset, previous):
    r = sk.Rules(preset)
    with pytest.raises(ValueError) as exc_info:
        r.legal_moves("3 4 5 6 7 SJ BJ", previous)
    check_message(exc_info, ["previous", "not a valid play", f"'{previous}'"])
    with pytest.raises(ValueError) as exc_info:
        r.legal_moves("3 4 5 6 7 SJ BJ", previous=previous.split())
    check_message(exc_info, ["previous", "not a valid play"])


def test_legal_moves_previous_play_invalid_under_these_rules():
    p = sk.Rules("qianbian").read("5 5 SJ")
    with pytest.raises(ValueError) as exc_info:
        sk.Rules("baibian").legal_moves("6 6 6", p)
    check_message(exc_info, ["previous", "not a valid play", "5 5 SJ"])


@pytest.mark.parametrize(
    "value,needle",
    [(5, "int"), (5.5, "float"), ({"5": 1}, "dict"), ([5], "int"), (["5", 6], "int")],
    ids=["int", "float", "dict", "list-int", "mixed-list"],
)
def test_legal_moves_wrong_types(value, needle):
    r = sk.Rules("baibian")
    with pytest.raises(ValueError) as exc_info:
        r.legal_moves(value)
    check_message(exc_info, ["hand", needle])
    with pytest.raises(ValueError) as exc_info:
        r.legal_moves("3 4 5 6 7", value)
    check_message(exc_info, ["previous", needle])
    with pytest.raises(ValueError) as exc_info:
        r.legal_moves(hand="3 4 5 6 7", previous=value)
    check_message(exc_info, ["previous", needle])


def test_legal_moves_hand_none_is_an_error():
    with pytest.raises(ValueError) as exc_info:
        sk.Rules("baibian").legal_moves(None)
    check_message(exc_info, ["hand", "NoneType"])


# --------------------------------------------------------------------------
# A failed call changes no state.


@pytest.mark.parametrize("preset", PRESETS)
def test_failed_calls_change_nothing(preset):
    r = sk.Rules(preset)
    hand = "3 3 4 5 6 7 7 7 7 SJ BJ BJ"
    prev = "4 4"
    leads = r.legal_moves(hand)
    leads_snap = snapshot(leads)
    follows_snap = snapshot(r.legal_moves(hand, prev))
    read_snap = snapshot([r.read("7 7 7 7")])
    readings_snap = snapshot(r.readings("7 7 7 7"))
    params = r.params
    beats = r.beats("7 7 7 7", "5 5")

    failing = [
        lambda: r.legal_moves("3 X 5"),
        lambda: r.legal_moves("7 " * 9),
        lambda: r.legal_moves("SJ SJ SJ"),
        lambda: r.legal_moves(hand, "5 6"),
        lambda: r.legal_moves(hand, ""),
        lambda: r.legal_moves(hand, "5 Z"),
        lambda: r.legal_moves(5),
        lambda: r.legal_moves(hand, 5),
        lambda: r.read("5 X"),
        lambda: r.readings(["5", "X"]),
        lambda: r.beats("5 X", "3"),
        lambda: r.beats("5", "5 6"),
        lambda: r.beats("5", "X"),
    ]
    for call in failing:
        with pytest.raises(ValueError):
            call()
        # After every failure the same object answers exactly as before.
        assert snapshot(r.legal_moves(hand)) == leads_snap
        assert snapshot(r.legal_moves(hand, prev)) == follows_snap
    assert snapshot([r.read("7 7 7 7")]) == read_snap
    assert snapshot(r.readings("7 7 7 7")) == readings_snap
    assert r.params == params
    assert r.beats("7 7 7 7", "5 5") == beats
    # A list returned earlier is not touched by later calls.
    assert snapshot(leads) == leads_snap


def test_failed_follow_after_a_successful_one_keeps_returned_lists():
    r = sk.Rules("qianbian")
    hand = "5 6 7 SJ SJ BJ"
    follows = r.legal_moves(hand, "3 3")
    snap = snapshot(follows)
    with pytest.raises(ValueError):
        r.legal_moves(hand, "3 4")
    assert snapshot(follows) == snap
    assert snapshot(r.legal_moves(hand, "3 3")) == snap


# --------------------------------------------------------------------------
# Hands over 27 cards


_RANKS = "3 4 5 6 7 8 9 T J Q K A 2".split()


@pytest.mark.parametrize("size", [28, 30, 60, 108])
def test_legal_moves_of_a_hand_over_27_cards_names_the_size(size):
    """Rules.legal_moves of more than 27 cards returned moves (28, 30 cards) or failed
    with "MoveList capacity (2048) exceeded". Fixed: ValueError naming the hand size."""
    deck = [r for r in _RANKS for _ in range(8)] + ["SJ", "SJ", "BJ", "BJ"]
    hand = " ".join(deck[:size])
    for variant in ("classic", "qianbian"):
        with pytest.raises(ValueError) as exc_info:
            sk.Rules(variant).legal_moves(hand)
        msg = str(exc_info.value)
        assert str(size) in msg and "capacity" not in msg, msg


def test_legal_moves_of_27_cards_still_works():
    hand = "3 3 4 5 5 6 6 7 7 7 8 8 9 T T J Q Q K A A 2 2 2 2 SJ BJ"
    assert len(sk.Rules("qianbian").legal_moves(hand)) > 0


# --------------------------------------------------------------------------
# Both names of one parameter


@pytest.mark.parametrize("wild,wild_jokers", [("both", "none"), ("both", "both"), ("BJ", "none")])
def test_both_names_of_one_parameter_raise_value_error(wild, wild_jokers):
    """sk.Rules('baibian', wild='both', wild_jokers='none') was accepted (one silently
    won). Fixed: ValueError naming both spellings, whatever the values."""
    for make in (sk.Rules, sk.Game):
        with pytest.raises(ValueError) as exc_info:
            make("baibian", wild=wild, wild_jokers=wild_jokers)
        msg = str(exc_info.value)
        assert "wild_jokers" in msg and re.search(r"\bwild\b", msg.replace("wild_jokers", "")), msg
