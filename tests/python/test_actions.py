"""The action catalogue of a variant (shuangkou.envs.actions: play_to_action,
action_to_play, ActionCatalogue.id_of): a play the catalogue lacks has no id."""

from __future__ import annotations

import pytest
import shuangkou as sk

_LACKING = [
    ("qianbian_collect", "3 3 3 3 3 3 3 3 SJ SJ", "classic"),  # a 10-card bomb; classic stops at 8
    ("qianbian_collect", "3 3 3 3 3 3 3 3 SJ SJ BJ BJ", "classic"),  # a 12-card bomb
    ("qianbian_collect", "3 3 3 3 3 3 3 3 SJ SJ", "baibian"),
    ("qianbian_collect", "3 3 3 3 3 3 3 3 SJ SJ BJ BJ", "jj"),
    ("qianbian", "3 3 3 3 4 4 4 4 5 5 5 5", "classic"),  # a chain bomb; classic has none
    ("qianbian", "3 3 3 3 4 4 4 4 4 5 5 5 5", "baibian"),  # an uneven chain bomb; baibian has none
    ("baibian", "SJ SJ BJ", "classic"),  # three kings; classic has none
]


@pytest.mark.parametrize("source,cards,target", _LACKING, ids=[f"{t}-{c}" for s, c, t in _LACKING])
def test_play_to_action_refuses_a_play_the_catalogue_lacks(source, cards, target):
    """7: play_to_action gave a play the target catalogue lacks the id of some
    other pattern (a 10-card bomb of 3s -> a 5-card bomb of 4s, a chain bomb -> 0, the
    pass, three kings -> heavenly kings). Fixed: ValueError."""
    plays = sk.Rules(source).readings(cards)
    assert plays, f"{cards!r} reads as nothing in {source}"
    play = plays[-1]
    with pytest.raises(ValueError):
        got = sk.play_to_action(target, play)
        pattern = sk.action_to_play(target, got)
        pytest.fail(f"{play!r} -> id {got} = {pattern!r}")


@pytest.mark.parametrize(
    "source,cards,target",
    [
        ("qianbian_collect", "3 3 3 3 3 3 3 3", "classic"),
        ("qianbian_collect", "3 3 3 3 3 3 3 3 SJ SJ", "qianbian_collect"),
        ("qianbian", "3 3 3 3 4 4 4 4 5 5 5 5", "baibian"),
        ("baibian", "5 6 7 8 BJ", "classic"),
        ("classic", "SJ SJ BJ BJ", "baibian"),
    ],
)
def test_play_to_action_of_a_play_the_catalogue_has_round_trips(source, cards, target):
    play = sk.Rules(source).readings(cards)[-1]
    pattern = sk.action_to_play(target, sk.play_to_action(target, play))
    assert pattern is not None and (pattern.kind, pattern.reading) == (play.kind, play.reading)


@pytest.mark.parametrize("value", ["5", 5, 2**70, b"5", 5.0], ids=["str", "int", "huge-int", "bytes", "float"])
def test_catalogue_id_of_a_non_play_raises_value_error(value):
    """8: ActionCatalogue.id_of("5") raised RuntimeError. Fixed: ValueError."""
    cat = sk.VectorEnv(num_envs=1, variant="classic").catalogue
    with pytest.raises(ValueError):
        cat.id_of(value)
