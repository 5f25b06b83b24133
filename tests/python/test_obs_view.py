"""Named access to observations, states and move features (shuangkou.layout): the
names cover each vector without overlap or gap, match what docs/observation.md says,
read what they name in real positions, are views (no copies) of one vector or a batch;
`Rules.*_slices`; `Decisions.legal_plays`."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import shuangkou as sk
from test_rules_api import KINDS  # the pattern kinds in Kind order, written out once

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "observation.md"
RANKS = list(sk._core.RANKS)


def counts(cards: str) -> np.ndarray:
    c = Counter(cards.split())
    return np.array([c[r] for r in RANKS], dtype=np.float32)


# ---------------------------------------------------------------- the layouts
@pytest.mark.parametrize(
    ("slices", "size"),
    [
        (sk.observation_slices, sk._core.observation_size()),
        (sk.state_slices, sk._core.state_size()),
        (sk.move_feature_slices, sk._core.MOVE_FEATURE_SIZE),
    ],
    ids=["observation", "state", "move_features"],
)
def test_names_cover_the_vector_without_overlap_or_gap(slices, size):
    end = 0
    for name, sl in slices.items():
        assert name.isidentifier(), name  # every field reads as view.name
        assert sl.step is None and sl.start == end and sl.stop > sl.start, (name, sl)
        end = sl.stop
    assert end == size
    with pytest.raises(TypeError):
        slices["hand"] = slice(0, 1)  # read-only


def test_the_slices_are_the_encoders_own_layout():
    for rows, slices in (
        (sk._core.observation_layout(), sk.observation_slices),
        (sk._core.state_layout(), sk.state_slices),
    ):
        assert [(r["name"], r["offset"], r["size"]) for r in rows] == [
            (n, s.start, s.stop - s.start) for n, s in slices.items()
        ]
    assert list(sk.state_slices)[: len(sk.observation_slices)] == list(sk.observation_slices)
    assert list(sk.state_slices)[len(sk.observation_slices) :] == ["all_hands"]


def doc_tables() -> dict[str, list[tuple[str, int, int]]]:
    """The (name, offset, size) rows of each table of docs/observation.md, by the
    heading above it."""
    tables: dict[str, list[tuple[str, int, int]]] = {}
    heading = ""
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            heading = line[3:].strip()
        m = re.match(r"\| `(\w+)` \| (\d+) \| (\d+) \|", line)
        if m:
            tables.setdefault(heading, []).append((m.group(1), int(m.group(2)), int(m.group(3))))
    return tables


def test_every_named_slice_is_the_documented_one():
    tables = doc_tables()
    documented = {
        "Observation vector": sk.observation_slices,
        "Full-information state": {"all_hands": sk.state_slices["all_hands"]},
        "Move features": sk.move_feature_slices,
    }
    for heading, slices in documented.items():
        assert tables[heading] == [(n, s.start, s.stop - s.start) for n, s in slices.items()], heading


def test_rules_carry_the_slices():
    for variant in sk.preset_names():
        r = sk.Rules(variant)
        assert r.observation_slices is sk.observation_slices
        assert r.state_slices is sk.state_slices
        assert r.move_feature_slices is sk.move_feature_slices
    r = sk.Rules("baibian")
    assert r.observation_slices["trick_owner"] == slice(138, 142)
    assert r.observation_slices["leading"] == slice(142, 143)
    assert r.observation_slices["cards_left"] == slice(31, 35)
    assert r.move_feature_slices["kind"] == slice(30, 41)
    assert sk.Game(r, seed=1).rules.observation_slices is sk.observation_slices


# ---------------------------------------------------------------- reading observations
def play_some(game: sk.Game, n: int, rng: np.random.Generator) -> None:
    for _ in range(n):
        game.apply_action(int(rng.choice(game.legal_action_ids())))


@pytest.mark.parametrize("variant", ["classic", "baibian", "jj"])
def test_fields_read_what_they_name(variant):
    rng = np.random.default_rng(3)
    for seed in range(6):
        game = sk.Game(variant, seed=seed)
        play_some(game, int(rng.integers(0, 30)), rng)
        if game.is_over():
            continue
        seat = game.current_player()
        obs = sk._core.encode_observation(game, seat)
        v = sk.obs_view(obs)
        others = [(seat + i) % 4 for i in range(4)]  # self, next, partner, previous
        np.testing.assert_array_equal(v.hand * 8, counts(game.hand(seat)))
        np.testing.assert_allclose(v.cards_left * 27, [len(game.hand(s).split()) for s in others], atol=1e-4)
        assert v.leading.shape == () and bool(v.leading) == game.is_leading()
        for i, s in enumerate(others):
            np.testing.assert_array_equal(v.played[15 * i : 15 * i + 15] * 8, counts(game.played(s)))
        owner = game.top_owner()
        if game.is_leading():
            assert not v.trick_owner.any() and not v.trick_kind.any()
        else:
            assert v.trick_owner.tolist() == [float(s == owner) for s in others]
            top = game.top()
            assert v.trick_kind.tolist() == [float(k == top.kind) for k in KINDS]
            np.testing.assert_array_equal(v.trick_reading * 8, counts(top.reading))
            assert round(float(v.trick_size) * 27) == len(top)
        # a field is the documented slice, read in place
        for name, sl in sk.observation_slices.items():
            field = getattr(v, name)
            np.testing.assert_array_equal(np.reshape(field, -1), obs[sl])
            assert np.shares_memory(field, obs)
            assert v[name] is not None


def test_views_write_through_and_the_view_is_read_only():
    obs = np.zeros(sk._core.observation_size(), np.float32)
    v = sk.obs_view(obs)
    v.trick_owner[2] = 1
    assert obs[140] == 1
    with pytest.raises(AttributeError, match="read-only"):
        v.leading = 1
    with pytest.raises(AttributeError, match="trick_owner"):
        _ = v.trick_ownr  # the message lists the fields
    with pytest.raises(KeyError):
        _ = v["data"]
    assert "trick_owner" in dir(v) and list(v) == list(sk.observation_slices)


def test_a_batch_and_a_state():
    env = sk.VectorEnv(num_envs=8, variant="baibian", seed=0, num_threads=1)
    obs, info = env.reset()
    v = sk.obs_view(obs)
    assert v.leading.shape == (8,) and v.trick_owner.shape == (8, 4) and v.recent.shape == (8, 248)
    assert np.shares_memory(v.cards_left, obs)
    np.testing.assert_array_equal(v.cards_left, obs[:, 31:35])
    assert v.leading.tolist() == [1.0] * 8  # every deal opens with a lead
    game = sk.Game("baibian", seed=4)
    state = sk._core.encode_state(game, 1)
    s = sk.obs_view(state)
    assert s.slices is sk.state_slices
    np.testing.assert_array_equal(s.all_hands[:15] * 8, counts(game.hand(1)))
    np.testing.assert_array_equal(s.all_hands[30:45] * 8, counts(game.hand(3)))
    with pytest.raises(AttributeError):
        _ = sk.obs_view(obs).all_hands  # observations hold no other hands
    for bad in (np.zeros(100), np.float32(1.0)):
        with pytest.raises(ValueError, match="obs_view"):
            sk.obs_view(bad)
    assert sk.obs_view(obs.tolist()).leading.shape == (8,)  # lists are read as arrays


# ---------------------------------------------------------------- move features
def test_move_feature_columns_read_what_they_name():
    baibian, qianbian = sk.Rules("baibian").catalogue, sk.Rules("qianbian").catalogue
    rng = np.random.default_rng(0)
    plays = [baibian.pattern(i) for i in range(len(baibian))]  # every pattern of baibian, the pass first
    plays += [qianbian.pattern(int(i)) for i in rng.integers(1, len(qianbian), 300)]  # uneven chain bombs
    ids = range(len(plays))
    feats = sk._core.encode_moves(plays)
    m = sk.move_view(feats)
    assert m.is_pass.shape == (len(ids),) and m.kind.shape == (len(ids), 11)
    seen = set()
    for k, p in enumerate(plays):
        if p is None:
            assert m.is_pass[k] == 1 and not m.kind[k].any() and not m.reading[k].any()
            continue
        seen.add(p.kind)
        assert m.is_pass[k] == 0
        assert m.kind[k].tolist() == [float(p.kind == kind) for kind in KINDS]
        np.testing.assert_array_equal(m.reading[k] * 8, counts(p.reading))
        np.testing.assert_array_equal(m.cards[k] * 8, counts(p.cards))
        assert round(float(m.size[k]) * 27) == len(p)
        assert round(float(m.stars[k]) * 18) == p.stars
    assert len(seen) >= 10
    with pytest.raises(ValueError, match="move_view"):
        sk.move_view(np.zeros((3, 40)))


def test_move_feature_layout_is_the_slices():
    rows = sk._core.move_feature_layout()
    assert [(r["name"], r["offset"], r["size"]) for r in rows] == [
        (n, s.start, s.stop - s.start) for n, s in sk.move_feature_slices.items()
    ]
    assert all(r["meaning"] for r in rows)


# ---------------------------------------------------------------- Decisions.legal_plays
class Checker(sk.Agent):
    """Plays the highest legal id; checks legal_plays against ids and features."""

    def __init__(self) -> None:
        self.calls = 0
        self.lazy = True

    def act(self, d):
        self.lazy = self.lazy and "legal_plays" not in vars(d)
        cat = d.rules.catalogue
        plays = d.legal_plays
        assert d.legal_plays is plays  # built once
        assert len(plays) == len(d)
        for ids, row, feats in zip(d.legal_ids, plays, d.legal_features):
            assert len(row) == len(ids)
            m = sk.move_view(feats)
            for i, p, is_pass, kind in zip(ids.tolist(), row, m.is_pass, m.kind):
                assert (p is None) == (i == 0) == bool(is_pass)
                if p is not None:
                    assert cat.id_of(p) == i
                    assert KINDS[int(np.argmax(kind))] == p.kind
        self.calls += 1
        return np.array([ids[-1] for ids in d.legal_ids], dtype=np.int64)


def test_decisions_legal_plays():
    agent = Checker()
    sk.selfplay("baibian", games=3, agents=[agent, "greedy"], seed=2)
    assert agent.calls > 20 and agent.lazy


def test_an_agent_that_never_reads_legal_plays_builds_none():
    built = []

    class Plain(sk.Agent):
        def act(self, d):
            built.append("legal_plays" in vars(d))
            return np.array([ids[0] for ids in d.legal_ids], dtype=np.int64)

    sk.selfplay("classic", games=2, agents=[Plain(), "random"], seed=0)
    assert built and not any(built)
