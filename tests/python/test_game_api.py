"""Behaviour of the Python game API (sk.Game, sk.Match, Rules.score, sk.level_title).

The contract under test::

    r = sk.Rules("baibian")
    r.score(finish_order=[0, 2, 1, 3], bombs=[(2, "3 3 3 3 3 3")])   # [s0..s3]
    r.score_breakdown(...)   # outcome, base (4), multiplier, contribution (4), total (4)
    g = sk.Game("jj", seed=7)                        # one deal dealt from the seed
    g = sk.Game("baibian", hands=[...4 strings], leader=0)   # a set deal
    g.current_player(); g.legal_moves(); g.apply(move); g.is_over(); g.scores()
    g.hand(seat); g.history(); g.finish_order(); g.to_json(); sk.Game.from_json(text)
    sk.level_title(total_points)
    extras: can_pass, is_leading, top, top_owner, played, initial_hands, outcome,
    score_breakdown, observation, leader, revealed_card, swapped, params, clone;
    sk.Match(variant, seed=, deals=) with game, next_deal, is_over, totals, seating,
    player_in_seat, seat_of, titles, results, num_deals, deals_played.

Every expected outcome and score below is worked out by hand from the rules
(docs/rules.md §6–13, §15); the reasoning is in the comments.

Script notation for the hand-written deals: ``"S> cards"`` means seat S
leads a new trick (so ``is_leading()`` must be true before the move),
``"S: cards"`` means seat S follows (or passes), and a trailing ``" out"``
marks the move with which seat S plays its last card.
"""

import collections
import json
import os
import random
import re

import pytest
import shuangkou as sk
from snippet_util import snippet_outcome

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RANKS = "3 4 5 6 7 8 9 T J Q K A 2 SJ BJ".split()
IDX = {t: i for i, t in enumerate(RANKS)}
PRESETS = ["classic", "baibian", "qianbian", "qianbian_collect", "jj"]
REVEALED = ["baibian", "qianbian", "jj"]


# --------------------------------------------------------------------------
# helpers (pure bookkeeping; no game rules)


def norm(cards):
    """A card string sorted low to high, jokers last (the API's normal form)."""
    return " ".join(sorted(cards.split(), key=IDX.__getitem__))


def minus(hand, cards):
    c = collections.Counter(hand.split())
    c.subtract(cards.split())
    assert all(v >= 0 for v in c.values()), (hand, cards)
    return norm(" ".join(t for t, n in c.items() for _ in range(n)))


def ncards(cards):
    return len(cards.split())


def parse_step(step):
    m = re.fullmatch(r"(\d)([>:])\s*(.*?)(\s+out)?", step)
    assert m, step
    return int(m.group(1)), m.group(2) == ">", m.group(3), bool(m.group(4))


def play_script(g, hands, script, checkpoints=None, running=None):
    """Plays `script` on g, checking after every action: the player to act, leading
    or following, the play returned, history(), hand() of every seat, played(),
    finish_order() before the end, and the running scores given by step number
    (1-based) in `running`. `checkpoints` maps a step number to a callable run
    after that step."""
    hands = [norm(h) for h in hands]
    played = [""] * 4
    history = []
    out = []
    for n, step in enumerate(script, start=1):
        seat, lead, cards, goes_out = parse_step(step)
        assert not g.is_over(), f"step {n}: over too early"
        assert g.current_player() == seat, f"step {n} ({step}): current {g.current_player()}"
        assert g.is_leading() == lead, f"step {n} ({step}): is_leading"
        assert g.can_pass() == (not lead), f"step {n} ({step}): can_pass"
        if lead:
            assert g.top() is None and g.top_owner() is None
        else:
            assert g.top() is not None and g.top_owner() is not None
        res = g.apply(cards)
        if cards == "pass":
            assert res is None, f"step {n}"
            history.append((seat, None))
        else:
            assert res is not None and res.cards == norm(cards), f"step {n}: {res!r}"
            history.append((seat, res))
            hands[seat] = minus(hands[seat], cards)
            played[seat] = norm(played[seat] + " " + cards)
            assert g.top() == res and g.top_owner() == seat
        assert (hands[seat] == "") == goes_out, f"step {n}: 'out' marker vs hand {hands[seat]!r}"
        if goes_out:
            out.append(seat)
        assert g.history() == history, f"step {n}"
        for s in range(4):
            assert g.hand(s) == hands[s], f"step {n}: hand of seat {s}"
            assert g.played(s) == played[s], f"step {n}: played by seat {s}"
        if not g.is_over():
            assert g.finish_order() == out, f"step {n}"
        if running and n in running:
            assert g.scores() == running[n], f"step {n}: running scores"
        if checkpoints and n in checkpoints:
            checkpoints[n](g)
    assert g.is_over()
    assert g.current_player() == -1
    assert g.legal_moves() == []
    assert g.finish_order()[: len(out)] == out
    return g


def random_move(g, rnd):
    moves = list(g.legal_moves())
    if g.can_pass():
        moves.append("pass")
    return rnd.choice(moves)


def play_random(g, rnd, max_actions=2000):
    for _ in range(max_actions):
        if g.is_over():
            return g
        g.apply(random_move(g, rnd))
    raise AssertionError("deal did not end")


# --------------------------------------------------------------------------
# 1. hand-written deals, one per variant

# ---- classic ---------------------------------------------------------------
# Leader seat 0; turn order 0 1 2 3.
CLASSIC_HANDS = ["3 7 7 7 7 7 9 T T K", "4 J J 2", "5 A 2", "6 8 8 Q"]
CLASSIC_SCRIPT = [
    "0> 3",  # 1
    "1: 4",  # 2
    "2: pass",  # 3
    "3: 6",  # 4
    "0: pass",  # 5  (a pass does not bar...)
    "1: pass",  # 6
    "2: pass",  # 7  every other holder passed since 3's 6: trick ends, seat 3 leads
    "3> 8 8",  # 8
    "0: T T",  # 9
    "1: pass",  # 10 (seat 1 could beat with J J; passing is always allowed)
    "2: pass",  # 11
    "3: pass",  # 12 -> seat 0 won the trick and leads again
    "0> K",  # 13
    "1: 2",  # 14
    "2: pass",  # 15
    "3: pass",  # 16
    "0: 7 7 7 7 7",  # 17 a 5-card bomb of the winning team: x2 (docs/rules.md §10, classic)
    "1: pass",  # 18
    "2: pass",  # 19
    "3: pass",  # 20 -> seat 0 leads
    "0> 9 out",  # 21 seat 0 goes out 1st
    "1: pass",  # 22
    "2: pass",  # 23
    "3: pass",  # 24 the last card won the trick: 接风, partner seat 2 leads
    "2> 5",  # 25
    "3: Q out",  # 26 seat 3 out 2nd; seat 0 is skipped
    "1: pass",  # 27
    "2: A",  # 28 seat 2 beats the finishing play
    "1: pass",  # 29 only seat 1 else holds cards: trick ends; winner seat 2 leads (no 接风 to 1)
    "2> 2 out",  # 30 seat 2 out 3rd: team {0,2} is out, the deal ends at once
]
# Places [0, 3, 2, 1]: team {0,2} has 1st and 3rd -> single (单扣).
# Classic base single 2/-2/2/-2 by place: s0 +2, s3 -2, s2 +2, s1 -2.
# Winning team bombed with 5 cards -> x2. No contribution.
# Scores: [4, -4, 4, -4].


def test_classic_scripted_deal():
    g = sk.Game("classic", hands=CLASSIC_HANDS, leader=0)
    assert g.leader == 0 and g.revealed_card is None and g.swapped is None
    assert g.initial_hands() == [norm(h) for h in CLASSIC_HANDS]
    zero = {n: [0, 0, 0, 0] for n in range(1, 30)}  # classic: no contribution, nothing credited

    def after_17(g):
        assert g.history()[-1][1].kind == "bomb" and g.history()[-1][1].stars == 5

    def after_24(g):  # 接风
        assert g.current_player() == 2 and g.is_leading()
        assert g.finish_order() == [0]

    def after_29(g):
        assert g.current_player() == 2 and g.is_leading()
        assert g.finish_order() == [0, 3]
        assert g.hand(1) == "J J" and g.hand(2) == "2"

    play_script(g, CLASSIC_HANDS, CLASSIC_SCRIPT, {17: after_17, 24: after_24, 29: after_29}, zero)
    assert g.finish_order() == [0, 3, 2, 1]
    assert g.outcome() == "single"
    assert g.scores() == [4, -4, 4, -4]
    b = g.score_breakdown()
    assert b == {
        "outcome": "single",
        "base": [2, -2, 2, -2],
        "multiplier": 2,
        "contribution": [0, 0, 0, 0],
        "total": [4, -4, 4, -4],
    }
    assert sk.Rules("classic").score([0, 3, 2, 1], [(0, "7 7 7 7 7")]) == [4, -4, 4, -4]
    assert g.hand(1) == "J J"
    assert len(g.history()) == 30


# ---- baibian ---------------------------------------------------------------
# Leader seat 2; turn order 2 3 0 1. BJ wild.
BAIBIAN_HANDS = ["3 3 5 5 5 5 5 Q 2 BJ", "3 4 6 6 9 9 9 9 9 9 9 T K K SJ", "4 5 6 6 7 Q Q BJ", "5 6 7 8 9 J A"]
BAIBIAN_SCRIPT = [
    "2> 4 5 6 7 BJ",  # 1  straight, highest reading 4-8
    "3: 5 6 7 8 9",  # 2  straight 5-9 beats 4-8
    "0: pass",  # 3
    "1: pass",  # 4
    "2: pass",  # 5  -> seat 3 won, leads
    "3> J",  # 6
    "0: Q",  # 7
    "1: pass",  # 8
    "2: pass",  # 9
    "3: pass",  # 10 -> seat 0 leads
    "0> 3 3",  # 11
    "1: K K",  # 12
    "2: pass",  # 13
    "3: pass",  # 14
    "0: 5 5 5 5 5 BJ",  # 15 six 5s: 6 stars; +6 seat 0, -2 each other
    "1: 9 9 9 9 9 9 9",  # 16 seven 9s: 7 stars; +12 seat 1, -4 each other
    "2: pass",  # 17
    "3: pass",  # 18
    "0: pass",  # 19 -> seat 1 leads
    "1> T",  # 20
    "2: pass",  # 21
    "3: A out",  # 22 seat 3 out 1st
    "0: pass",  # 23
    "1: pass",  # 24
    "2: pass",  # 25 last card won: 接风, partner seat 1 leads
    "1> 4",  # 26
    "2: 6",  # 27
    "0: 2 out",  # 28 seat 0 out 2nd
    "1: SJ",  # 29 seat 1 beats the finishing play (SJ is a plain single here)
    "2: pass",  # 30 -> seat 1 leads (it won; it still holds cards)
    "1> 6 6",  # 31
    "2: Q Q out",  # 32 seat 2 out: team {0,2} is out, the deal ends; seat 1 last
]
# Places [3, 0, 2, 1]: team {1,3} (first finisher's) has 1st and 4th -> draw (平扣).
# Common base draw 1/0/0/1 by place: s3 1, s0 0, s2 0, s1 1 -> by seat [0, 1, 0, 1].
# Multiplier (star_max, winners only): team {1,3} played a 7-star bomb -> x8
# (seat 0's 6-star bomb is the losers' and does not count): [0, 8, 0, 8].
# Contribution (player): six 5s (6 stars) by 0: [+6, -2, -2, -2];
# seven 9s (7 stars) by 1: [-4, +12, -4, -4]; sum [2, 10, -6, -6].
# Scores: [2, 18, -6, 2].


def test_baibian_scripted_deal():
    g = sk.Game("baibian", hands=BAIBIAN_HANDS, leader=2)
    assert g.leader == 2 and g.revealed_card is None and g.swapped is None
    running = {n: [0, 0, 0, 0] for n in range(1, 15)}
    running.update({15: [6, -2, -2, -2]})
    running.update({n: [2, 10, -6, -6] for n in range(16, 32)})

    def after_1(g):
        p = g.history()[0][1]
        assert p.kind == "straight" and p.reading == "4 5 6 7 8"

    def after_15(g):
        p = g.top()
        assert p.kind == "bomb" and p.stars == 6 and p.reading == "5 5 5 5 5 5"

    def after_25(g):
        assert g.current_player() == 1 and g.is_leading() and g.finish_order() == [3]

    def after_30(g):
        assert g.current_player() == 1 and g.is_leading() and g.finish_order() == [3, 0]

    play_script(g, BAIBIAN_HANDS, BAIBIAN_SCRIPT, {1: after_1, 15: after_15, 25: after_25, 30: after_30}, running)
    assert g.finish_order() == [3, 0, 2, 1]
    assert g.outcome() == "draw"
    assert g.scores() == [2, 18, -6, 2]
    assert g.score_breakdown() == {
        "outcome": "draw",
        "base": [0, 1, 0, 1],
        "multiplier": 8,
        "contribution": [2, 10, -6, -6],
        "total": [2, 18, -6, 2],
    }
    assert g.hand(1) == "3"
    r = sk.Rules("baibian")
    assert r.score([3, 0, 2, 1], [(0, "5 5 5 5 5 BJ"), (1, "9 9 9 9 9 9 9")]) == [2, 18, -6, 2]


# ---- qianbian --------------------------------------------------------------
# Leader seat 1; turn order 1 2 3 0. SJ and BJ wild.
QIANBIAN_HANDS = ["3 3 4 4 8 8 8 8 8 SJ BJ", "5 5 T J J J Q Q SJ", "7 7 9 9 9 A", "6 K K K 2"]
QIANBIAN_SCRIPT = [
    "1> 5 5 SJ",  # 1  triple of 5s (SJ wild)
    "2: 9 9 9",  # 2
    "3: pass",  # 3
    "0: pass",  # 4
    "1: J J J",  # 5
    "2: pass",  # 6
    "3: K K K",  # 7  seat 3 passed before and still plays in the same trick
    "0: pass",  # 8
    "1: pass",  # 9
    "2: pass",  # 10 -> seat 3 leads
    "3> 6",  # 11
    "0: 8 8 8 8 8 SJ",  # 12 six 8s, 6 stars: team contribution +6 to 0 and 2, -2 to 1 and 3
    "1: pass",  # 13
    "2: pass",  # 14
    "3: pass",  # 15 -> seat 0 leads
    "0> 3",  # 16
    "1: T",  # 17
    "2: A",  # 18
    "3: 2 out",  # 19 seat 3 out 1st
    "0: BJ",  # 20 seat 0 beats the finishing play (a lone BJ is a single)
    "1: pass",  # 21
    "2: pass",  # 22 -> seat 0 leads (no 接风 for seat 1)
    "0> 4 4",  # 23
    "1: Q Q out",  # 24 seat 1 out: team {1,3} out; the deal ends
]
# Places: 3, 1, then the two holders in turn order after seat 1: seat 2, then
# seat 0 -> [3, 1, 2, 0]. Team {1,3} has 1st and 2nd -> double (双扣).
# Common base double by place 4/4/-4/-4: by seat [-4, 4, -4, 4].
# Multiplier (star_max over all bombs): the losers' 6-star bomb counts -> x4:
# [-16, 16, -16, 16]. Contribution (team): [+6, -2, +6, -2].
# Scores: [-10, 14, -10, 14].


def test_qianbian_scripted_deal():
    g = sk.Game("qianbian", hands=QIANBIAN_HANDS, leader=1)
    running = {n: [0, 0, 0, 0] for n in range(1, 12)}
    running.update({n: [6, -2, 6, -2] for n in range(12, 24)})

    def after_1(g):
        p = g.top()
        assert p.kind == "triple" and p.reading == "5 5 5"

    def after_22(g):
        assert g.current_player() == 0 and g.is_leading() and g.finish_order() == [3]

    play_script(g, QIANBIAN_HANDS, QIANBIAN_SCRIPT, {1: after_1, 22: after_22}, running)
    assert g.finish_order() == [3, 1, 2, 0]
    assert g.outcome() == "double"
    assert g.scores() == [-10, 14, -10, 14]
    assert g.score_breakdown() == {
        "outcome": "double",
        "base": [-4, 4, -4, 4],
        "multiplier": 4,
        "contribution": [6, -2, 6, -2],
        "total": [-10, 14, -10, 14],
    }
    assert g.hand(0) == "3" and g.hand(2) == "7 7"
    assert sk.Rules("qianbian").score([3, 1, 2, 0], [(0, "8 8 8 8 8 SJ")]) == [-10, 14, -10, 14]


# ---- qianbian_collect ------------------------------------------------------
# Leader seat 3 (a set deal names it; the variant's rule is random); turn order 3 0 1 2.
COLLECT_HANDS = ["4 8 8 A A", "4 5 6 7 8 9 9 9 9 9 T T", "6 6 6 6 6 J J J J J K", "3 3 4 5 5 6 7 Q Q"]
COLLECT_SCRIPT = [
    "3> 3 4 5 6 7",  # 1
    "0: pass",  # 2
    "1: 4 5 6 7 8",  # 3
    "2: 6 6 6 6 6",  # 4  5 stars
    "3: pass",  # 5
    "0: pass",  # 6
    "1: 9 9 9 9 9",  # 7  5 stars, fewer-or-equal cards, higher key: beats
    "2: J J J J J",  # 8  5 stars, key J: beats
    "3: pass",  # 9
    "0: pass",  # 10
    "1: pass",  # 11 -> seat 2 leads
    "2> K out",  # 12 seat 2 out 1st
    "3: pass",  # 13
    "0: pass",  # 14
    "1: pass",  # 15 last card won: 接风, seat 0 leads
    "0> 8 8",  # 16
    "1: T T out",  # 17 seat 1 out 2nd
    "3: pass",  # 18
    "0: A A",  # 19 seat 0 beats the finishing play
    "3: pass",  # 20 -> seat 0 won and holds cards: it leads (接风 would give seat 3)
    "0> 4 out",  # 21 seat 0 out: team {0,2} out; seat 3 last
]
# Places [2, 1, 0, 3]: team {0,2} 1st and 3rd -> single. Base 2/-2/2/-2 by place:
# by seat [2, -2, 2, -2].
# Star levels (docs/rules.md §12): seat 2 played two 5-card bombs -> X=5, n=2: 5+2-1 = 6;
# seat 1 one 5-card bomb -> 5. Multiplier star_max over all: 6 -> x4:
# [8, -8, 8, -8]. Contribution (team, once, from final levels): seat 2 level 6 ->
# +6 to 2 and 0, -2 to 1 and 3; seat 1 level 5 -> nothing.
# Scores: [14, -10, 14, -10]. Nothing is credited before the end.


def test_qianbian_collect_scripted_deal():
    g = sk.Game("qianbian_collect", hands=COLLECT_HANDS, leader=3)
    running = {n: [0, 0, 0, 0] for n in range(1, 21)}

    def after_15(g):
        assert g.current_player() == 0 and g.is_leading() and g.finish_order() == [2]

    def after_20(g):
        assert g.current_player() == 0 and g.is_leading() and g.finish_order() == [2, 1]

    play_script(g, COLLECT_HANDS, COLLECT_SCRIPT, {15: after_15, 20: after_20}, running)
    assert g.finish_order() == [2, 1, 0, 3]
    assert g.outcome() == "single"
    assert g.scores() == [14, -10, 14, -10]
    assert g.score_breakdown() == {
        "outcome": "single",
        "base": [2, -2, 2, -2],
        "multiplier": 4,
        "contribution": [6, -2, 6, -2],
        "total": [14, -10, 14, -10],
    }
    assert g.hand(3) == "3 5 Q Q"
    r = sk.Rules("qianbian_collect")
    assert r.score([2, 1, 0, 3], [(2, "6 6 6 6 6"), (1, "9 9 9 9 9"), (2, "J J J J J")]) == [14, -10, 14, -10]


# ---- jj --------------------------------------------------------------------
# Leader seat 0; turn order 0 1 2 3. BJ wild; partner's hand visible.
JJ_HANDS = ["3 3 4 4 5 5 7 7 7 7 7 7 Q K BJ", "6 6 A SJ SJ BJ", "5 8 8 9 9 9 T T 2", "4 T J"]
JJ_SCRIPT = [
    "0> 3 3 4 4 5 5",  # 1 pair chain
    "1: pass",  # 2
    "2: 8 8 9 9 T T",  # 3
    "3: pass",  # 4
    "0: pass",  # 5
    "1: pass",  # 6 -> seat 2 leads
    "2> 9",  # 7
    "3: J",  # 8
    "0: K",  # 9
    "1: SJ SJ BJ",  # 10 three-king bomb, 6 stars -> x2
    "2: pass",  # 11
    "3: pass",  # 12
    "0: 7 7 7 7 7 7 BJ",  # 13 seven 7s, 7 stars -> x3
    "1: pass",  # 14
    "2: pass",  # 15
    "3: pass",  # 16 -> seat 0 leads
    "0> Q out",  # 17 seat 0 out 1st
    "1: A",  # 18 an opponent beats the finishing play
    "2: 2",  # 19
    "3: pass",  # 20
    "1: pass",  # 21 -> seat 2 leads (its own trick)
    "2> 5 out",  # 22 seat 2 out 2nd: team {0,2} out
]
# Places: 0, 2, then the holders in turn order after seat 2: seat 3, seat 1 ->
# [0, 2, 3, 1]: double. JJ base double 6/6/-6/-6: by seat [6, -6, 6, -6].
# Multiplier star_product: 6-star three kings x2, 7-star bomb x3 -> x6 (both
# teams' bombs count): [36, -36, 36, -36] (the worked example of docs/rules.md §16). No contribution.


def test_jj_scripted_deal():
    g = sk.Game("jj", hands=JJ_HANDS, leader=0)
    zero = {n: [0, 0, 0, 0] for n in range(1, 22)}

    def after_10(g):
        assert g.top().kind == "three_kings" and g.top().stars == 6

    def after_13(g):
        assert g.top().kind == "bomb" and g.top().stars == 7 and g.top().reading == "7 7 7 7 7 7 7"

    def after_21(g):
        assert g.current_player() == 2 and g.is_leading() and g.finish_order() == [0]
        o = g.observation(2)
        assert o["partner_hand"] == "" and o["hand"] == "5"
        assert g.observation(1)["partner_hand"] == "4 T"

    def after_3(g):
        for s in range(4):
            assert g.observation(s)["partner_hand"] == g.hand(s ^ 2)

    play_script(g, JJ_HANDS, JJ_SCRIPT, {3: after_3, 10: after_10, 13: after_13, 21: after_21}, zero)
    assert g.finish_order() == [0, 2, 3, 1]
    assert g.outcome() == "double"
    assert g.scores() == [36, -36, 36, -36]
    assert g.score_breakdown() == {
        "outcome": "double",
        "base": [6, -6, 6, -6],
        "multiplier": 6,
        "contribution": [0, 0, 0, 0],
        "total": [36, -36, 36, -36],
    }
    assert g.hand(1) == "6 6" and g.hand(3) == "4 T"
    assert sk.Rules("jj").score([0, 2, 3, 1], [(1, "SJ SJ BJ"), (0, "7 7 7 7 7 7 BJ")]) == [36, -36, 36, -36]


SCRIPTED = [
    ("classic", CLASSIC_HANDS, 0, CLASSIC_SCRIPT),
    ("baibian", BAIBIAN_HANDS, 2, BAIBIAN_SCRIPT),
    ("qianbian", QIANBIAN_HANDS, 1, QIANBIAN_SCRIPT),
    ("qianbian_collect", COLLECT_HANDS, 3, COLLECT_SCRIPT),
    ("jj", JJ_HANDS, 0, JJ_SCRIPT),
]


@pytest.mark.parametrize("variant,hands,leader,script", SCRIPTED, ids=[s[0] for s in SCRIPTED])
def test_scripted_deal_replays_from_json(variant, hands, leader, script):
    """Each scripted deal, replayed from its record at every step, gives the same state."""
    g = sk.Game(variant, hands=hands, leader=leader)
    for step in script:
        _, _, cards, _ = parse_step(step)
        g.apply(cards)
        rec = g.to_json()
        h = sk.Game.from_json(rec)
        assert h.to_json() == rec
        assert h.history() == g.history()
        assert h.scores() == g.scores()
    d = json.loads(g.to_json())
    assert d["over"] is True
    assert d["dealt"] is False and d["revealed_card"] is None and d["leader"] == leader
    assert d["hands"] == [norm(x) for x in hands]
    assert d["scores"] == g.scores() and d["finish_order"] == g.finish_order()
    assert d["outcome"] == g.outcome()


@pytest.mark.parametrize("variant,hands,leader,script", SCRIPTED, ids=[s[0] for s in SCRIPTED])
def test_scripted_deal_legal_moves_contain_script(variant, hands, leader, script):
    """Each scripted play is a legal move offered by legal_moves() (canonical moves
    spend natural cards first; our scripts only use wilds where no natural card is
    held), and applying the Play itself works the same as the card string."""
    g = sk.Game(variant, hands=hands, leader=leader)
    ref = sk.Game(variant, hands=hands, leader=leader)
    for step in script:
        _, _, cards, _ = parse_step(step)
        if cards == "pass":
            g.apply("pass")
        else:
            matches = [m for m in g.legal_moves() if m.cards == norm(cards)]
            assert matches, (step, g.legal_moves())
            expected = ref.clone().apply(cards)
            assert expected in matches, step
            g.apply(expected)
        ref.apply(cards)
        assert g.to_json() == ref.to_json()


# --------------------------------------------------------------------------
# 2. small set deals: turn rules in isolation


def test_set_deal_one_liner_and_skip_finished():
    # Seat 0 plays its only card 3 and is out; seat 1 (4 4) may follow only with a single 4.
    g = sk.Game("baibian", hands=["3", "4 4", "5 5 7", "6 6"], leader=0)
    assert g.legal_moves() == [sk.Rules("baibian").read("3")]
    assert g.apply("3").cards == "3"
    assert g.finish_order() == [0] and g.current_player() == 1
    assert [m.cards for m in g.legal_moves()] == ["4"]
    g.apply("pass")
    g.apply("pass")
    g.apply("pass")  # trick ends, seat 0 is out: 接风 to seat 2
    assert g.current_player() == 2 and g.is_leading()
    g.apply("5 5")  # seat 3 next (seat 0 skipped forever)
    assert g.current_player() == 3
    g.apply("6 6")  # seat 3 out; next is seat 1 (seat 0 skipped)
    assert g.finish_order() == [0, 3] and g.current_player() == 1
    g.apply("pass")
    assert g.current_player() == 2
    g.apply("pass")  # seat 2 passes too: 接风 to seat 1 (seat 3's partner)
    assert g.current_player() == 1 and g.is_leading()
    g.apply("4 4")  # seat 1 out: team {1,3} out
    # places [0, 3, 1, 2]: team {0,2} (first finisher) holds 1st and 4th -> draw.
    # Common draw 1/0/0/1 by place: s0 1, s3 0, s1 0, s2 1. No bombs.
    assert g.is_over() and g.finish_order() == [0, 3, 1, 2]
    assert g.outcome() == "draw" and g.scores() == [1, 0, 1, 0]
    assert g.hand(2) == "7"


def test_apply_accepts_play_list_and_pass_forms():
    g = sk.Game("classic", hands=["3 3 4", "5 5 6", "7 8", "9 9"], leader=0)
    assert g.apply(["3", "3"]).kind == "pair"  # a list of tokens
    assert g.apply("PASS") is None  # case-insensitive pass (seat 1)
    assert g.apply(None) is None  # None passes too (seat 2)
    assert g.current_player() == 3
    m = [x for x in g.legal_moves() if x.cards == "9 9"][0]
    assert g.apply(m) == m  # a Play from legal_moves; seat 3 out
    assert [a[1] is None for a in g.history()] == [False, True, True, False]
    assert g.finish_order() == [3] and g.current_player() == 0


# --------------------------------------------------------------------------
# 3. revealed-card rule on dealt games


@pytest.mark.parametrize("variant", REVEALED)
def test_revealed_card_rule(variant):
    cases = collections.Counter()
    for seed in range(301):
        g = sk.Game(variant, seed=seed)
        rc = g.revealed_card
        assert rc is not None and set(rc) >= {"id", "rank", "holder", "other_copy_holder"}
        L = g.leader
        assert L == rc["holder"] == g.current_player()
        hands = g.initial_hands()
        assert all(ncards(h) == 27 for h in hands)
        rank = rc["rank"]
        assert rank in RANKS
        H = rc["other_copy_holder"]
        assert hands[L].split().count(rank) >= 1
        if H == L:
            cases["same"] += 1
            assert hands[L].split().count(rank) >= 2
            assert g.swapped is None
        elif H == L ^ 2:
            cases["opposite"] += 1
            assert hands[L ^ 2].split().count(rank) >= 1
            assert g.swapped is None
        else:
            cases["swapped"] += 1
            assert g.swapped is not None and set(g.swapped) == {H, L ^ 2}
            assert hands[L ^ 2].split().count(rank) >= 1
        # fixed seats: same revealed card and leader, no swap, hands as dealt
        f = sk.Game(variant, seed=seed, team_formation="fixed")
        assert f.swapped is None
        assert f.leader == L and f.revealed_card == rc
        fh = f.initial_hands()
        if g.swapped is None:
            assert fh == hands
        else:
            a, b = g.swapped
            back = list(hands)
            back[a], back[b] = back[b], back[a]
            assert fh == back
            assert fh[H].split().count(rank) >= 1
    assert cases["same"] > 0 and cases["opposite"] > 0 and cases["swapped"] > 0, cases


def test_non_revealed_variants_have_no_revealed_card():
    for variant in ["classic", "qianbian_collect"]:
        leaders = set()
        for seed in range(40):
            g = sk.Game(variant, seed=seed)
            assert g.revealed_card is None and g.swapped is None
            assert 0 <= g.leader <= 3 and g.current_player() == g.leader
            leaders.add(g.leader)
        assert leaders == {0, 1, 2, 3}  # uniformly random leader: all seats occur


def test_dealt_game_uses_two_full_decks():
    for variant in PRESETS:
        for seed in (0, 1, 99):
            hands = sk.Game(variant, seed=seed).initial_hands()
            c = collections.Counter(" ".join(hands).split())
            assert all(c[r] == 8 for r in RANKS[:13]) and c["SJ"] == 2 and c["BJ"] == 2


# --------------------------------------------------------------------------
# 4. matches


def play_match(m, rnd):
    while True:
        play_random(m.game, rnd)
        m.next_deal()
        if m.is_over():
            return m


def test_previous_winner_classic_match():
    after_double_leaders = []
    after_double_not_previous = 0
    first_leaders = set()
    checked_single_draw = 0
    for seed in range(12):
        rnd = random.Random(seed)
        m = sk.Match("classic", seed=seed, deals=10)
        assert m.num_deals == 10 and m.deals_played == 0 and not m.is_over()
        first_leaders.add(m.game.leader)
        for k in range(10):
            g = m.game
            assert m.seating() == [0, 1, 2, 3]  # classic: teams fixed, nobody moves
            if k > 0:
                prev = m.results()[-1]
                first = prev["seating"][prev["finish_order"][0]]  # a player
                if prev["outcome"] in ("single", "draw"):
                    assert g.leader == m.seat_of(first)
                    assert json.loads(g.to_json())["previous_first_finisher"] == m.seat_of(first)
                    checked_single_draw += 1
                else:
                    assert 0 <= g.leader <= 3
                    after_double_leaders.append(g.leader)
                    after_double_not_previous += g.leader != m.seat_of(first)
            assert g.current_player() == g.leader
            play_random(g, rnd)
            scores, outcome, places = g.scores(), g.outcome(), g.finish_order()
            m.next_deal()
            assert m.deals_played == k + 1
            r = m.results()[-1]
            assert r["outcome"] == outcome and r["finish_order"] == places
            assert r["seating"] == [0, 1, 2, 3]
            assert r["points"] == scores  # seats = players in classic
        assert m.is_over()
        res = m.results()
        assert len(res) == 10
        assert m.totals() == [sum(r["points"][p] for r in res) for p in range(4)]
        assert m.titles() == [sk.level_title(t) for t in m.totals()]
    assert checked_single_draw > 20
    assert len(after_double_leaders) > 5 and after_double_not_previous > 0
    assert len(set(after_double_leaders)) > 1
    assert len(first_leaders) > 1


def test_revealed_card_match_moves_players():
    for seed in range(5):
        rnd = random.Random(100 + seed)
        m = sk.Match("baibian", seed=seed, deals=6)
        seating = [0, 1, 2, 3]
        while True:
            g = m.game
            if g.swapped is not None:
                a, b = g.swapped
                seating[a], seating[b] = seating[b], seating[a]
            assert m.seating() == seating
            assert [m.player_in_seat(s) for s in range(4)] == seating
            assert [m.seat_of(p) for p in range(4)] == [seating.index(p) for p in range(4)]
            play_random(g, rnd)
            scores, places, outcome = g.scores(), g.finish_order(), g.outcome()
            m.next_deal()
            r = m.results()[-1]
            assert r["seating"] == seating
            assert r["points"] == [scores[seating.index(p)] for p in range(4)]
            assert r["finish_order"] == places and r["outcome"] == outcome
            if m.is_over():
                break
        assert m.totals() == [sum(r["points"][p] for r in m.results()) for p in range(4)]
        assert m.deals_played == 6


# --------------------------------------------------------------------------
# 5. errors


def set_game():
    # seat 0: 3 3 5 K; seat 1: 4 6 6 A; seat 2: 7 8; seat 3: 9 T
    return sk.Game("classic", hands=["3 3 5 K", "4 6 6 A", "7 8", "9 T"], leader=0)


def unchanged_error(g, move, pattern):
    before = g.to_json()
    with pytest.raises(ValueError, match=pattern):
        g.apply(move)
    assert g.to_json() == before


def test_apply_errors_leave_game_unchanged():
    g = set_game()
    unchanged_error(g, [3], r"strings")  # a token that is not a string
    unchanged_error(g, "pass", r"may not pass")
    unchanged_error(g, None, r"may not pass")
    unchanged_error(g, "2", r"does not hold")  # not held
    unchanged_error(g, "X", r"unknown card")  # bad token
    unchanged_error(g, ["3", "Z"], r"unknown card")
    unchanged_error(g, "3 5", r"not a valid play")  # not a pattern
    unchanged_error(g, "", r"no cards")
    lead_moves = g.legal_moves()
    pair33 = [m for m in lead_moves if m.cards == "3 3"][0]
    single5 = [m for m in lead_moves if m.cards == "5"][0]
    g.apply("5")
    # seat 1: 4 6 6 A; the trick is a single 5
    unchanged_error(g, "4", r"does not beat")  # held but lower
    unchanged_error(g, "K", r"does not hold")  # beats but not held
    unchanged_error(g, pair33, r"does not hold")  # a Play of another position
    unchanged_error(g, single5, r"does not hold")
    unchanged_error(g, "6 6", r"does not beat")  # a pair on a single
    g2 = g.clone()
    g2.apply("pass")
    # a Play of seat 1's position applied at seat 2's
    six = [m for m in g.legal_moves() if m.cards == "6"][0]
    unchanged_error(g2, six, r"does not hold")


def test_apply_after_game_over():
    g = sk.Game("classic", hands=["3", "4", "5", "6"], leader=0)
    g.apply("3")
    g.apply("pass"), g.apply("pass"), g.apply("pass")  # 接风: seat 2 leads
    g.apply("5")
    assert g.is_over() and g.finish_order() == [0, 2, 3, 1]
    unchanged_error(g, "pass", r"over")
    unchanged_error(g, "4", r"over")
    unchanged_error(g, sk.Rules("classic").read("4"), r"over")


def test_play_with_wrong_kind_of_same_cards():
    # qianbian: 5 6 7 SJ SJ BJ reads as a straight or a pair chain (docs/rules.md §3: the
    # mover names the type). A straight Play cannot follow a pair chain.
    g = sk.Game("qianbian", hands=["3 3 4 4 5 5", "5 6 7 SJ SJ BJ", "8", "9"], leader=0)
    g.apply("3 3 4 4 5 5")
    straights = [r for r in sk.Rules("qianbian").readings("5 6 7 SJ SJ BJ") if r.kind == "straight"]
    assert straights
    unchanged_error(g, straights[0], r"does not beat")
    p = g.apply("5 6 7 SJ SJ BJ")  # read as the trick requires: a pair chain
    assert p.kind == "pair_chain"


@pytest.mark.parametrize(
    "hands,pattern",
    [
        (["3 3 3 3 3", "3 3 3 3", "4", "5"], r"copies of '3'"),
        (["BJ", "BJ", "BJ", "5"], r"copies of 'BJ'"),
        (["SJ SJ", "4", "SJ", "5"], r"copies of 'SJ'"),
        (["", "4", "5", "6"], r"seat 0 is empty"),
        (["3", "4", "5", ""], r"seat 3 is empty"),
        (["3 3 3 3 3 3 3 3 4 4 4 4 4 4 4 4 5 5 5 5 5 5 5 5 6 6 6 6", "7", "8", "9"], r"28 cards"),
        (["3", "4", "5"], r"four"),
        (["3", "4", "5", "6", "7"], r"four"),
        ("3 4 5 6", r"four"),
        (["3", "4", "5", "Z"], r"unknown card"),
    ],
)
def test_bad_set_deals(hands, pattern):
    with pytest.raises(ValueError, match=pattern):
        sk.Game("baibian", hands=hands, leader=0)


def test_hand_of_27_is_fine():
    h = "3 3 3 3 3 3 3 3 4 4 4 4 4 4 4 4 5 5 5 5 5 5 5 5 6 6 6"
    g = sk.Game("baibian", hands=[h, "7", "8", "9"], leader=1)
    assert g.hand(0) == h and g.current_player() == 1


@pytest.mark.parametrize("leader", [4, -1, "0", 1.0, True])
def test_bad_leader(leader):
    with pytest.raises(ValueError, match=r"leader"):
        sk.Game("baibian", hands=["3", "4", "5", "6"], leader=leader)


def test_leader_for_dealt_game():
    with pytest.raises(ValueError, match=r"leader"):
        sk.Game("jj", seed=1, leader=0)


@pytest.mark.parametrize("seed", [-1, 2**64, "7", 1.5, True])
def test_bad_seed(seed):
    with pytest.raises(ValueError, match=r"seed"):
        sk.Game("jj", seed=seed)
    with pytest.raises(ValueError, match=r"seed"):
        sk.Match("classic", seed=seed, deals=2)


def test_largest_seed_is_fine():
    g = sk.Game("jj", seed=2**64 - 1)
    assert json.loads(g.to_json())["seed"] == 2**64 - 1
    assert sk.Game.from_json(g.to_json()).initial_hands() == g.initial_hands()


def test_unknown_variant_and_bad_overrides():
    with pytest.raises(ValueError, match=r"nosuchvariant"):
        sk.Game("nosuchvariant", seed=1)
    with pytest.raises(ValueError):
        sk.Game("configs/variants/nosuch.yaml", seed=1)
    with pytest.raises(ValueError, match=r"team_formation"):
        sk.Game("baibian", seed=1, team_formation="sideways")
    with pytest.raises(ValueError, match=r"no_such_param"):
        sk.Game("baibian", seed=1, no_such_param=3)
    with pytest.raises(ValueError, match=r"max_bomb"):
        sk.Game("baibian", seed=1, max_bomb=99)
    with pytest.raises(ValueError, match=r"team_formation"):
        sk.Rules("baibian", team_formation="sideways")
    with pytest.raises(ValueError, match=r"team_formation"):
        sk.Match("baibian", seed=1, deals=2, team_formation="sideways")
    with pytest.raises(ValueError, match=r"nosuchvariant"):
        sk.Match("nosuchvariant", seed=1, deals=2)


@pytest.mark.parametrize("deals", [0, -3])
def test_match_needs_a_deal(deals):
    with pytest.raises(ValueError, match=r"at least 1 deal"):
        sk.Match("classic", seed=7, deals=deals)


def test_bad_seat_arguments():
    g = set_game()
    for bad in (4, -1, "0"):
        with pytest.raises(ValueError, match=r"seat"):
            g.hand(bad)
        with pytest.raises(ValueError, match=r"seat"):
            g.observation(bad)


def test_score_breakdown_before_end():
    g = set_game()
    with pytest.raises(ValueError, match=r"not over"):
        g.score_breakdown()
    assert g.outcome() is None


def finished_record(variant="baibian", seed=5):
    g = play_random(sk.Game(variant, seed=seed), random.Random(seed))
    return g, json.loads(g.to_json())


def test_from_json_malformed():
    g, rec = finished_record()
    assert sk.Game.from_json(json.dumps(rec)).to_json() == g.to_json()

    with pytest.raises(ValueError, match=r"JSON"):
        sk.Game.from_json("this is not json")
    with pytest.raises(ValueError, match=r"JSON"):
        sk.Game.from_json(g.to_json()[:-5])
    with pytest.raises(ValueError):
        sk.Game.from_json("[1, 2, 3]")
    for key in ["format", "variant", "hands", "moves", "leader"]:
        bad = dict(rec)
        del bad[key]
        with pytest.raises(ValueError, match=key):
            sk.Game.from_json(json.dumps(bad))

    # a tampered move: the first play's cards replaced by cards nobody leads with
    bad = json.loads(json.dumps(rec))
    first_play = next(i for i, m in enumerate(bad["moves"]) if m["kind"] != "pass")
    bad["moves"][first_play]["cards"] = "SJ SJ BJ BJ SJ"
    with pytest.raises(ValueError, match=r"copies of 'SJ'"):
        sk.Game.from_json(json.dumps(bad))
    # a tampered move: cards the seat does not hold
    bad = json.loads(json.dumps(rec))
    bad["moves"][first_play]["cards"] = "3 4 5 6 7 8 9 T J Q K A"
    bad["moves"][first_play]["kind"] = "straight"
    with pytest.raises(ValueError, match=rf"move {first_play}: .*does not hold"):
        sk.Game.from_json(json.dumps(bad))
    # a tampered move: another kind for the same cards
    bad = json.loads(json.dumps(rec))
    bad["moves"][first_play]["kind"] = "heavenly_kings"
    with pytest.raises(ValueError, match=rf"move {first_play}: .*not a valid heavenly_kings"):
        sk.Game.from_json(json.dumps(bad))
    # a tampered move: a reading the cards do not have
    bad = json.loads(json.dumps(rec))
    bad["moves"][first_play]["reading"] = "3"
    with pytest.raises(ValueError, match=rf"move {first_play} differs from its replay"):
        sk.Game.from_json(json.dumps(bad))
    # an unknown kind
    bad = json.loads(json.dumps(rec))
    bad["moves"][first_play]["kind"] = "foo"
    with pytest.raises(ValueError, match=r"kind 'foo'"):
        sk.Game.from_json(json.dumps(bad))
    # a move after the end
    bad = json.loads(json.dumps(rec))
    bad["moves"].append({"seat": 0, "kind": "pass"})
    with pytest.raises(ValueError, match=r"move"):
        sk.Game.from_json(json.dumps(bad))
    # wrong types
    for key, value in [("seed", "5"), ("leader", "x"), ("dealt", "yes"), ("moves", "none")]:
        with pytest.raises(ValueError):
            sk.Game.from_json(json.dumps(dict(rec, **{key: value})))
    # a tampered move: a pass by the leader
    bad = json.loads(json.dumps(rec))
    bad["moves"][0] = {"seat": bad["moves"][0]["seat"], "kind": "pass"}
    with pytest.raises(ValueError, match=r"pass"):
        sk.Game.from_json(json.dumps(bad))
    # a tampered move: the wrong seat
    bad = json.loads(json.dumps(rec))
    bad["moves"][0]["seat"] = (bad["moves"][0]["seat"] + 1) % 4
    with pytest.raises(ValueError, match=r"seat"):
        sk.Game.from_json(json.dumps(bad))
    # tampered scores
    bad = json.loads(json.dumps(rec))
    bad["scores"] = [s + 1 for s in bad["scores"]]
    with pytest.raises(ValueError, match=r"scores"):
        sk.Game.from_json(json.dumps(bad))
    # tampered finish order
    bad = json.loads(json.dumps(rec))
    bad["finish_order"] = bad["finish_order"][::-1]
    with pytest.raises(ValueError, match=r"finish_order"):
        sk.Game.from_json(json.dumps(bad))
    # tampered hands of a dealt game
    bad = json.loads(json.dumps(rec))
    bad["hands"][0], bad["hands"][1] = bad["hands"][1], bad["hands"][0]
    with pytest.raises(ValueError, match=r"hands"):
        sk.Game.from_json(json.dumps(bad))
    # a record that says over, with its last move removed
    bad = json.loads(json.dumps(rec))
    bad["moves"] = bad["moves"][:-1]
    with pytest.raises(ValueError, match=r"over"):
        sk.Game.from_json(json.dumps(bad))
    # wrong format tag
    bad = dict(rec, format="something-else/9")
    with pytest.raises(ValueError, match=r"format"):
        sk.Game.from_json(json.dumps(bad))


# --------------------------------------------------------------------------
# 6. to_json -> from_json at every step


@pytest.mark.parametrize("variant", PRESETS)
def test_json_round_trip_every_step(variant):
    for seed in (1, 2, 3):
        rnd = random.Random(1000 + seed)
        g = sk.Game(variant, seed=seed)
        while True:
            rec = g.to_json()
            h = sk.Game.from_json(rec)
            assert h.to_json() == rec
            assert h.current_player() == g.current_player()
            assert h.legal_moves() == g.legal_moves()
            assert h.can_pass() == g.can_pass()
            assert [h.hand(s) for s in range(4)] == [g.hand(s) for s in range(4)]
            assert h.history() == g.history()
            assert h.finish_order() == g.finish_order()
            assert h.scores() == g.scores()
            assert h.leader == g.leader and h.revealed_card == g.revealed_card and h.swapped == g.swapped
            if g.is_over():
                assert h.outcome() == g.outcome()
                assert h.score_breakdown() == g.score_breakdown()
                break
            g.apply(random_move(g, rnd))


def test_json_round_trip_with_overrides_and_set_deals():
    g = sk.Game("baibian", seed=4, team_formation="fixed", max_bomb=10)
    play_random(g, random.Random(4))
    h = sk.Game.from_json(g.to_json())
    assert h.to_json() == g.to_json()
    assert h.params == g.params and g.params["team_formation"] == "fixed" and g.params["max_bomb"] == "10"
    s = sk.Game("jj", hands=JJ_HANDS, leader=0)
    s.apply("3 3 4 4 5 5")
    assert sk.Game.from_json(s.to_json()).to_json() == s.to_json()


# --------------------------------------------------------------------------
# 7. seeds and clones


@pytest.mark.parametrize("variant", PRESETS)
def test_same_seed_same_deal(variant):
    a = sk.Game(variant, seed=42)
    b = sk.Game(variant, seed=42)
    assert a.initial_hands() == b.initial_hands() and a.leader == b.leader
    assert a.revealed_card == b.revealed_card and a.to_json() == b.to_json()
    others = [sk.Game(variant, seed=s).initial_hands() for s in (43, 44, 10**12)]
    assert all(o != a.initial_hands() for o in others)


def test_clone_is_independent():
    g = sk.Game("qianbian", seed=9)
    rnd = random.Random(9)
    for _ in range(5):
        g.apply(random_move(g, rnd))
    c = g.clone()
    assert c.to_json() == g.to_json()
    before = g.to_json()
    play_random(c, rnd)
    assert c.is_over()
    assert g.to_json() == before and not g.is_over()
    import copy

    d = copy.deepcopy(g)
    d.apply(random_move(d, rnd))
    assert g.to_json() == before
    e = copy.copy(g)
    e.apply(random_move(e, rnd))
    assert g.to_json() == before


# --------------------------------------------------------------------------
# 8. observations

OBS_KEYS = {
    "seat",
    "hand",
    "partner_hand",
    "cards_left",
    "played",
    "top",
    "top_owner",
    "passes",
    "finish_order",
    "scores",
    "history",
}


@pytest.mark.parametrize("variant", PRESETS)
def test_observation(variant):
    g = sk.Game(variant, seed=11)
    rnd = random.Random(11)
    steps = 0
    while not g.is_over():
        if steps % 7 == 0:
            cur = g.observation()
            assert cur["seat"] == g.current_player()
            for s in range(4):
                o = g.observation(s)
                assert set(o) == OBS_KEYS
                assert o["seat"] == s
                assert o["hand"] == g.hand(s)
                if variant == "jj":
                    assert o["partner_hand"] == g.hand(s ^ 2)
                else:
                    assert o["partner_hand"] is None
                assert o["cards_left"] == [ncards(g.hand(i)) for i in range(4)]
                assert sum(o["cards_left"]) == sum(ncards(g.hand(i)) for i in range(4))
                assert o["played"] == [g.played(i) for i in range(4)]
                assert o["top"] == g.top() and o["top_owner"] == g.top_owner()
                assert o["finish_order"] == g.finish_order()
                assert o["scores"] == g.scores()
                assert o["history"] == g.history()
                # nothing else about other hands: no opponent's hand string appears as a value
                vals = [v for k, v in o.items() if isinstance(v, str)]
                assert vals == [o["hand"]] + ([o["partner_hand"]] if variant == "jj" else [])
        g.apply(random_move(g, rnd))
        steps += 1
    assert sum(g.observation(0)["cards_left"]) == sum(ncards(g.hand(i)) for i in range(4))


def test_observation_passes_counter():
    g = sk.Game("classic", hands=["3 4", "5", "6 7", "8 9"], leader=0)
    g.apply("3")
    g.apply("pass")
    assert g.observation(2)["passes"] == 1
    g.apply("pass")
    assert g.observation(2)["passes"] == 2 and g.observation()["seat"] == 3


# --------------------------------------------------------------------------
# 9. levels (docs/rules.md §15)

LEVELS = [
    (1, "包身工", None),
    (2, "短工", 60),
    (3, "长工", 140),
    (4, "佃户", 300),
    (5, "贫农", 720),
    (6, "渔夫", 1400),
    (7, "猎人", 2000),
    (8, "中农", 3000),
    (9, "富农", 4500),
    (10, "掌柜", 6200),
    (11, "商人", 8000),
    (12, "衙役", 12000),
    (13, "小财主", 17000),
    (14, "大财主", 22000),
    (15, "小地主", 28000),
    (16, "大地主", 40000),
    (17, "知县", 60000),
    (18, "通判", 90000),
    (19, "知府", 140000),
    (20, "总督", 300000),
    (21, "巡抚", 450000),
    (22, "丞相", 600000),
    (23, "帝王", 1000000),
]


@pytest.mark.parametrize("k", range(1, len(LEVELS)))
def test_level_title_boundaries(k):
    level, title, start = LEVELS[k]
    prev_level, prev_title, _ = LEVELS[k - 1]
    assert sk.level_title(start) == (level, title)
    assert sk.level_title(start - 1) == (prev_level, prev_title)
    assert sk.level_title(start + 1) == (level, title)


def test_level_title_extremes():
    assert sk.level_title(0) == (1, "包身工")
    assert sk.level_title(59) == (1, "包身工")
    assert sk.level_title(60) == (2, "短工")
    assert sk.level_title(-1) == (1, "包身工")
    assert sk.level_title(-(10**9)) == (1, "包身工")
    assert sk.level_title(999999) == (22, "丞相")
    assert sk.level_title(1000000) == (23, "帝王")
    assert sk.level_title(10**15) == (23, "帝王")


# --------------------------------------------------------------------------
# 10. variants from YAML paths and keyword overrides


def test_yaml_path_variant(monkeypatch):
    a = sk.Game(os.path.join(ROOT, "configs", "variants", "jj.yaml"), seed=3)
    b = sk.Game("jj", seed=3)
    assert a.initial_hands() == b.initial_hands() and a.leader == b.leader
    assert a.revealed_card == b.revealed_card and a.params == b.params
    monkeypatch.chdir(ROOT)
    c = sk.Game("configs/variants/jj.yaml", seed=3)
    assert c.initial_hands() == b.initial_hands() and c.leader == b.leader


@pytest.mark.parametrize("variant", PRESETS)
def test_every_yaml_preset_matches(variant):
    a = sk.Game(os.path.join(ROOT, "configs", "variants", variant + ".yaml"), seed=17)
    b = sk.Game(variant, seed=17)
    assert a.params == b.params
    assert a.initial_hands() == b.initial_hands() and a.leader == b.leader


def test_override_fixed_never_swaps():
    swaps = 0
    for seed in range(60):
        assert sk.Game("baibian", seed=seed, team_formation="fixed").swapped is None
        swaps += sk.Game("baibian", seed=seed).swapped is not None
    assert swaps > 0
    g = sk.Game("baibian", seed=3, team_formation="fixed")
    assert g.params["team_formation"] == "fixed"
    assert sk.Game("baibian", seed=3).params["team_formation"] == "by_rule"


def test_override_changes_scoring():
    # baibian with the JJ base table: the scripted baibian deal (draw, x8 from the
    # winners' 7-star bomb, contributions [2, 10, -6, -6]) with JJ draw base
    # 1/-1/-1/1 by place [3, 0, 2, 1] -> by seat [-1, 1, -1, 1] x8 = [-8, 8, -8, 8];
    # totals [-6, 18, -14, 2].
    g = sk.Game("baibian", hands=BAIBIAN_HANDS, leader=2, base_table="jj")
    for step in BAIBIAN_SCRIPT:
        g.apply(parse_step(step)[2])
    assert g.scores() == [-6, 18, -14, 2]
    r = sk.Rules("baibian", base_table="jj")
    assert r.score([3, 0, 2, 1], [(0, "5 5 5 5 5 BJ"), (1, "9 9 9 9 9 9 9")]) == [-6, 18, -14, 2]


# --------------------------------------------------------------------------
# 11. Rules.score examples of the contract


def test_rules_score_contract_example():
    # baibian, places [0, 2, 1, 3]: double for team {0,2}; seat 2's six 3s (6 stars):
    # multiplier x4 (winners' bomb); base 4/4/-4/-4 -> [16, -16, 16, -16];
    # contribution seat 2 +6, others -2 -> [14, -18, 22, -18].
    r = sk.Rules("baibian")
    assert r.score(finish_order=[0, 2, 1, 3], bombs=[(2, "3 3 3 3 3 3")]) == [14, -18, 22, -18]
    b = r.score_breakdown(finish_order=[0, 2, 1, 3], bombs=[(2, "3 3 3 3 3 3")])
    assert b == {
        "outcome": "double",
        "base": [4, -4, 4, -4],
        "multiplier": 4,
        "contribution": [-2, -2, 6, -2],
        "total": [14, -18, 22, -18],
    }


# --------------------------------------------------------------------------
# 11b. random deals against an independent model of the turn rules (docs/rules.md §7)
# and of the running contributions (docs/rules.md §11)


def running_contribution(variant, bombs):
    """Points credited at the moment of each bomb: 百变 to the player, 千变 to the
    team; 6 / 7 / >=8 stars pay 6 / 12 / 18 to each receiver and 2 / 4 / 6 by each
    opponent (or each other player). None in classic, JJ and star collection."""
    out = [0, 0, 0, 0]
    if variant not in ("baibian", "qianbian"):
        return out
    for seat, stars in bombs:
        if stars < 6:
            continue
        gain, loss = {6: (6, 2), 7: (12, 4)}.get(stars, (18, 6))
        winners = {seat} if variant == "baibian" else {seat, seat ^ 2}
        for s in range(4):
            out[s] += gain if s in winners else -loss
    return out


@pytest.mark.parametrize("variant", PRESETS)
def test_random_deals_follow_turn_rules(variant):
    for seed in range(25):
        rnd = random.Random(seed * 7 + 1)
        g = sk.Game(variant, seed=seed)
        left = [27] * 4
        current, owner, passed, finished, bombs = g.leader, None, set(), [], []
        while not g.is_over():
            assert g.current_player() == current
            assert g.is_leading() == (owner is None)
            move = random_move(g, rnd)
            seat = current
            p = g.apply(move)
            if p is None:
                passed.add(seat)
                others = {s for s in range(4) if left[s] > 0 and s != owner}
                if passed >= others:  # trick over: winner leads, or partner if out (接风)
                    current = owner if left[owner] > 0 else owner ^ 2
                    owner, passed = None, set()
                else:
                    current = next(s for s in [(seat + k) % 4 for k in (1, 2, 3)] if left[s] > 0)
            else:
                left[seat] -= len(p)
                owner, passed = seat, set()
                if p.is_bomb:
                    bombs.append((seat, p.stars))
                if left[seat] == 0:
                    finished.append(seat)
                    if left[seat ^ 2] == 0:
                        current = -1
                        continue
                current = next(s for s in [(seat + k) % 4 for k in (1, 2, 3)] if left[s] > 0)
            assert [ncards(g.hand(s)) for s in range(4)] == left
            if not g.is_over():
                assert g.finish_order() == finished
                assert g.scores() == running_contribution(variant, bombs)
        assert current == -1 and g.current_player() == -1
        last = finished[-1]
        rest = [s for s in [(last + k) % 4 for k in (1, 2, 3)] if left[s] > 0]
        places = finished + rest
        assert g.finish_order() == places
        team = {places[0], places[0] ^ 2}
        mine = sorted(i for i, s in enumerate(places) if s in team)
        assert g.outcome() == {(0, 1): "double", (0, 2): "single", (0, 3): "draw"}[tuple(mine)]
        played_bombs = [(s, p.cards) for s, p in g.history() if p is not None and p.is_bomb]
        assert g.scores() == sk.Rules(variant).score(places, played_bombs)
        assert g.score_breakdown()["total"] == g.scores()


# --------------------------------------------------------------------------
# 12. Game.from_json checks every key a record states against its replay


@pytest.mark.parametrize("over", [False, None], ids=["over_false", "over_missing"])
def test_from_json_rejects_tampered_scores_whatever_over_says(over):
    g, rec = finished_record()
    bad = dict(rec, scores=[99, 99, 99, 99])
    if over is None:
        del bad["over"]
    else:
        bad["over"] = over
    with pytest.raises(ValueError):
        sk.Game.from_json(json.dumps(bad))


def _tamper_outcome(rec):
    rec["outcome"] = {"double": "single", "single": "draw", "draw": "double"}[rec["outcome"]]


def _tamper_revealed(rec):
    rec["revealed_card"]["holder"] = (rec["revealed_card"]["holder"] + 1) % 4


def _tamper_swapped(rec):
    rec["swapped"] = [0, 1] if rec["swapped"] != [0, 1] else [2, 3]


def _tamper_multiplier(rec):
    rec["breakdown"]["multiplier"] += 1


@pytest.mark.parametrize(
    "tamper",
    [_tamper_outcome, _tamper_revealed, _tamper_swapped, _tamper_multiplier],
    ids=["outcome", "revealed_card", "swapped", "breakdown"],
)
def test_from_json_rejects_contradicting_derived_fields(tamper):
    g, rec = finished_record()
    bad = json.loads(json.dumps(rec))
    tamper(bad)
    with pytest.raises(ValueError):
        sk.Game.from_json(json.dumps(bad))


def test_match_records_share_the_deal_records_bounds():
    """The match reader now checks size and depth as the deal reader does (record.h),
    before the JSON library sees the text."""
    deep = '{"format": "shuangkou-match/1", "x": ' + "[" * 1000 + "]" * 1000 + "}"
    with pytest.raises(ValueError, match="nested more than 16 levels deep; a match record is not"):
        sk.Match.from_json(deep)
    m = sk.Match("classic", seed=7, deals=2)
    assert sk.Match.from_json(m.to_json()).to_json() == m.to_json()


# --------------------------------------------------------------------------
# 13. Deal records that are too deep, too large or out of range


def _record_with(edit) -> str:
    rec = json.loads(sk.Game("baibian", seed=3).to_json())
    edit(rec)
    return json.dumps(rec)


@pytest.mark.parametrize(
    "where",
    ["scores", "breakdown", "variant.max_bomb", "variant.tianwang", "top level"],
)
def test_from_json_of_a_deeply_nested_record_raises_value_error(where):
    """A record with a value nested 100,000 deep (under a known key)
    overflowed the stack (segfault). Fixed: ValueError."""
    body = f"""
    import json
    import shuangkou as sk
    where = {where!r}
    deep = "[" * 100000 + "]" * 100000
    rec = json.loads(sk.Game("baibian", seed=3).to_json())
    if where == "top level":
        text = deep
    else:
        if where.startswith("variant."):
            rec["variant"][where.split(".")[1]] = "@@DEEP@@"
        else:
            rec[where] = "@@DEEP@@"
        text = json.dumps(rec).replace('"@@DEEP@@"', deep)
    _report(lambda: sk.Game.from_json(text))
    """
    out = snippet_outcome(body)
    assert out["type"] == "ValueError", out


def _set_scores(r, v):
    r["scores"] = v


def _set_hand0(r, v):
    r["hands"][0] = v


def _set_tianwang(r, v):
    r["variant"]["tianwang"] = v


def _set_new_key(r, v):
    r[v] = 1


@pytest.mark.parametrize(
    "edit", [_set_scores, _set_hand0, _set_tianwang, _set_new_key], ids=["scores", "hand", "tianwang", "key"]
)
def test_from_json_with_a_100_mb_string_raises_a_short_value_error(edit):
    """A record holding a 100 MB string was refused with a 100 MB message
    (the value quoted whole). Fixed: ValueError with a message under 2,000 characters."""
    text = _record_with(lambda r: edit(r, "x" * 100_000_000))
    with pytest.raises(ValueError) as exc_info:
        sk.Game.from_json(text)
    assert len(str(exc_info.value)) < 2000, f"message of {len(str(exc_info.value)):,} characters"


@pytest.mark.parametrize(
    "text",
    [
        "[1e400]",
        "1e400",
        '{"format": 1e400}',
        "[-1e400]",
    ],
)
def test_from_json_overflowing_number_raises_value_error(text):
    """8: Game.from_json('[1e400]') raised RuntimeError (json out_of_range). Fixed:
    ValueError."""
    with pytest.raises(ValueError):
        sk.Game.from_json(text)


@pytest.mark.parametrize("key", ["seed", "leader", "previous_first_finisher"])
def test_from_json_400_digit_integer_raises_value_error(key):
    rec = json.loads(sk.Game("baibian", seed=3).to_json())
    rec[key] = 10**399
    with pytest.raises(ValueError):
        sk.Game.from_json(json.dumps(rec))


@pytest.mark.parametrize("seed", [3, 2**64 - 1], ids=["seed-3", "seed-2**64-1"])
def test_from_json_with_seed_minus_one_raises_value_error_naming_it(seed):
    """A record whose seed was edited to -1 was read as 2**64-1: accepted as
    the deal of seed 2**64-1 (and refused with an unrelated message otherwise). Fixed:
    ValueError naming -1."""
    rec = json.loads(sk.Game("baibian", seed=seed).to_json())
    rec["seed"] = -1
    with pytest.raises(ValueError) as exc_info:
        sk.Game.from_json(json.dumps(rec))
    msg = str(exc_info.value)
    assert "-1" in msg and "seed" in msg, msg


# --------------------------------------------------------------------------
# 14. A failed call changes nothing


def _game() -> sk.Game:
    g = sk.Game("baibian", seed=3)
    for _ in range(5):
        g.apply(g.legal_moves()[0] if not g.can_pass() else "pass")
    return g


def test_lone_surrogate_move_raises_value_error_and_changes_nothing():
    g = _game()
    before = g.to_json()
    with pytest.raises(ValueError):
        g.apply("\ud800")
    assert g.to_json() == before


_HUGE_SEAT_CALLS = {
    "hand": lambda g: g.hand(2**70),
    "hand negative": lambda g: g.hand(-(2**70)),
    "played": lambda g: g.played(2**70),
    "observation": lambda g: g.observation(2**70),
    "encode_observation": lambda g: sk._core.encode_observation(g, 2**70),
}


@pytest.mark.parametrize("call", list(_HUGE_SEAT_CALLS.values()), ids=list(_HUGE_SEAT_CALLS))
def test_seat_beyond_int64_raises_value_error_and_changes_nothing(call):
    """Seat integers beyond int64 raised RuntimeError. Fixed: ValueError
    naming the value."""
    g = _game()
    before = g.to_json()
    with pytest.raises(ValueError) as exc_info:
        call(g)
    assert str(abs(2**70)) in str(exc_info.value)
    assert g.to_json() == before


@pytest.mark.parametrize(
    "call",
    [
        lambda: sk.Game("baibian", hands=["3", "4", "5", "6"], leader=2**70),
        lambda: sk.Rules("classic").score([2**70, 0, 1, 2]),
        lambda: sk.Match("classic", seed=1, deals=2).player_in_seat(2**70),
        lambda: sk.Match("classic", seed=1, deals=2).seat_of(2**70),
    ],
    ids=["leader", "score finish_order", "player_in_seat", "seat_of"],
)
def test_other_seats_beyond_int64_raise_value_error(call):
    with pytest.raises(ValueError) as exc_info:
        call()
    assert str(2**70) in str(exc_info.value)


def play_out(g: sk.Game) -> None:
    while not g.is_over():
        g.apply(g.legal_moves()[0] if not g.can_pass() else "pass")


def _match_snapshot(m: sk.Match) -> tuple:
    return (m.deals_played, m.totals(), m.seating(), m.results(), m.is_over(), m.game.to_json())


def test_match_next_deal_before_the_deal_is_over_raises_value_error_and_changes_nothing():
    """8: Match.next_deal() before the current deal was over raised
    RuntimeError. Fixed: ValueError; the match is unchanged."""
    m = sk.Match("classic", seed=1, deals=2)
    m.game.apply(m.game.legal_moves()[0])
    before = _match_snapshot(m)
    with pytest.raises(ValueError, match="not over"):
        m.next_deal()
    assert _match_snapshot(m) == before


def test_match_next_deal_after_the_match_is_over_raises_value_error_and_changes_nothing():
    """8: Match.next_deal() after the match was over raised RuntimeError. Fixed:
    ValueError; the match is unchanged."""
    m = sk.Match("classic", seed=1, deals=1)
    play_out(m.game)
    m.next_deal()
    assert m.is_over()
    before = _match_snapshot(m)
    with pytest.raises(ValueError, match="over"):
        m.next_deal()
    assert _match_snapshot(m) == before


# --------------------------------------------------------------------------
# 15. Rules.score of more cards than two decks hold


@pytest.mark.parametrize("count", [3, 8])
def test_score_with_more_threes_than_two_decks_hold_raises_value_error(count):
    """Rules.score with `count` bombs of four 3s by one seat (more 3s than the 8 two decks
    hold) was scored. Fixed: ValueError."""
    r = sk.Rules("classic")
    with pytest.raises(ValueError):
        r.score(finish_order=[0, 2, 1, 3], bombs=[(0, "3 3 3 3")] * count)
    with pytest.raises(ValueError):
        r.score_breakdown(finish_order=[0, 2, 1, 3], bombs=[(0, "3 3 3 3")] * count)
    with pytest.raises(ValueError):  # over several seats too
        r.score(finish_order=[0, 2, 1, 3], bombs=[(s % 4, "3 3 3 3") for s in range(count)])
    assert r.score(finish_order=[0, 2, 1, 3], bombs=[(0, "3 3 3 3"), (1, "3 3 3 3")]) is not None


@pytest.mark.parametrize("variant", ["classic", "baibian", "qianbian", "jj"])
def test_multipliers_so_far_end_as_the_one_that_counted(variant):
    bot = sk.Bot("heuristic")
    seen_bombs = 0
    for seed in range(12):
        g = sk.Game(sk.Rules(variant), seed=seed)
        assert g.multipliers() == [1, 1]
        previous = [1, 1]
        while not g.is_over():
            g.apply_action(bot.step(g))
            now = g.multipliers()
            assert all(a >= b for a, b in zip(now, previous))  # bombs only ever add
            previous = now
        winners = g.finish_order()[0] % 2
        assert g.multipliers()[winners] == g.score_breakdown()["multiplier"]
        seen_bombs += any(p and p.is_bomb for _, p in g.history())
    assert seen_bombs  # (the deals played some bombs)
