"""A fully annotated use of the public API, checked with `mypy --strict` against the stubs.

Run it (it plays a few deals and prints a line each) or type-check it:
    python tests/typing/typed_example.py
    python -m mypy --strict tests/typing/typed_example.py
"""

from __future__ import annotations

import random

import shuangkou as sk


def pick(g: sk.Game, rnd: random.Random) -> sk.Play | None:
    """A random legal action: one of the plays, or None (a pass) where passing is allowed."""
    moves: list[sk.Play] = g.legal_moves()
    choices: list[sk.Play | None] = [*moves, None] if g.can_pass() else list(moves)
    return rnd.choice(choices)


def play_out(g: sk.Game, rnd: random.Random) -> int:
    """Plays the deal to the end; returns the number of actions taken."""
    actions = 0
    while not g.is_over():
        move = pick(g, rnd)
        made: sk.Play | None = g.apply(move if move is not None else "pass")
        assert (made is None) == (move is None)
        actions += 1
    return actions


def rules_demo() -> None:
    r = sk.Rules("baibian")
    p: sk.Play | None = r.read("5 6 7 8 BJ")
    assert p is not None and p.kind == "straight" and len(p) == 5
    beats: bool = r.beats("3 3 3 3 3 3", "SJ SJ BJ")
    leads: list[sk.Play] = r.legal_moves(["4", "5", "6", "7", "SJ"])
    follows: list[sk.Play] = r.legal_moves("T J J Q BJ", previous="9 9")
    scores: list[int] = r.score([0, 2, 1, 3], bombs=[(0, "3 3 3 3 3 3")])
    tuned = sk.Rules("qianbian", max_bomb=10, tianwang="bottom")  # SJ and BJ are wild in qianbian
    kinds: list[str] = [q.kind for q in tuned.readings("7 7 7 8 8 8 9 9 9 SJ SJ BJ")]
    assert kinds == ["triple_chain", "chain_bomb"]
    print(f"{p.reading!r} kinds={kinds} beats={beats} leads={len(leads)} follows={len(follows)}")
    print(f"score={scores} {tuned.name}: max_bomb={tuned.params['max_bomb']}")
    normalised: str = sk.parse_cards("10 J BJ 5")
    level, title = sk.level_title(150)
    print(f"{normalised!r}; 150 points: level {level}, {title}")


def game_demo(seed: int) -> None:
    rnd = random.Random(seed)
    g = sk.Game("jj", seed=seed)
    n = play_out(g, rnd)
    final: list[int] = g.scores()
    record: str = g.to_json()
    replay = sk.Game.from_json(record)
    assert replay.scores() == final and replay.history() == g.history()
    print(f"deal {seed}: {n} actions, scores {final}, outcome {g.outcome()}")


def match_demo(seed: int, deals: int) -> None:
    rnd = random.Random(seed)
    m = sk.Match("classic", seed=seed, deals=deals)
    while not m.is_over():
        play_out(m.game, rnd)
        m.next_deal()
    titles: list[tuple[int, str]] = m.titles()
    print(f"match: totals {m.totals()}, levels {[lvl for lvl, _ in titles]}")


if __name__ == "__main__":
    rules_demo()
    for s in range(3):
        game_demo(s)
    match_demo(seed=7, deals=3)
