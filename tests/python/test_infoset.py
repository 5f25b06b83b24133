"""The information-set view of Python agents (`Decisions.views`, `InfoView`): what a seat
may know, worlds drawn from it, and a pure-Python search agent playing in the arena."""

from __future__ import annotations

import random

import numpy as np
import pytest
import shuangkou as sk


def positions(variant: str, count: int, seed: int) -> list[sk.Game]:
    """Games of `variant` stopped at random points by random legal moves."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        g = sk.Game(variant, seed=seed * 100 + k)
        for _ in range(int(rng.integers(1, 120))):
            if g.is_over():
                break
            ids = g.legal_action_ids()
            g.apply_action(int(ids[rng.integers(len(ids))]))
        out.append(g)
    return out


@pytest.mark.parametrize("variant", sk.preset_names())
def test_resampling_the_hidden_cards_leaves_the_view_unchanged(variant):
    for g in positions(variant, 12, 1):
        if g.is_over():
            continue
        seat = g.current_player()
        view = sk.InfoView(g, seat)
        for k in range(4):
            world = view.sample_world(np.random.default_rng(k))
            other = sk.InfoView(world, seat)
            assert other == view and str(other) == str(view) and hash(other) == hash(view)
            assert other.observation() == view.observation()
            assert (other.legal_action_ids() == view.legal_action_ids()).all()
            assert (other.encode_observation() == view.encode_observation()).all()
            # What a world holds depends on the view and the generator only.
            again = other.sample_world(np.random.default_rng(99))
            assert again.to_json() == view.sample_world(np.random.default_rng(99)).to_json()


@pytest.mark.parametrize("variant", ["classic", "jj"])
def test_a_world_is_a_complete_game_consistent_with_the_seat(variant):
    hidden_differ = 0
    for g in positions(variant, 10, 2):
        if g.is_over():
            continue
        seat = g.current_player()
        view = sk.InfoView(g, seat)
        rng = np.random.default_rng(5)
        world = view.sample_world(rng)
        assert isinstance(world, sk.Game) and world.current_player() == seat
        assert world.hand(seat) == g.hand(seat)
        partner = (seat + 2) % 4
        if variant == "jj":  # the partner's hand is shown there
            assert view.partner_hand == g.hand(partner) and world.hand(partner) == g.hand(partner)
        else:
            assert view.partner_hand is None
        for s in range(4):
            assert len(world.hand(s).split()) == len(g.hand(s).split())
            assert world.played(s) == g.played(s)
        hidden_differ += any(world.hand(s) != g.hand(s) for s in range(4))
        assert world.history() == g.history()
        assert (world.legal_action_ids() == g.legal_action_ids()).all()
        # An ordinary game: cloned, stepped to the end, scored, recorded and replayed.
        clone = world.clone()
        heuristic = sk.Bot("heuristic")
        while not clone.is_over():
            clone.apply_action(heuristic.step(clone))
        assert sum(clone.scores()[s] for s in range(4)) == 0 and clone.outcome() in ("double", "single", "draw")
        assert sk.Game.from_json(clone.to_json()).to_json() == clone.to_json()
        assert not world.is_over()  # the clone moved, not the world
    assert hidden_differ > 0


def test_sample_world_takes_a_numpy_generator_and_nothing_else():
    view = sk.InfoView(sk.Game("classic", seed=3))
    for bad in (3, None, random.Random(3), np.random.RandomState(3), "rng"):
        with pytest.raises(TypeError, match="numpy.random.Generator"):
            view.sample_world(bad)
    a, b = np.random.default_rng(8), np.random.default_rng(8)
    assert view.sample_world(a).to_json() == view.sample_world(b).to_json()
    assert view.sample_world(a).to_json() == view.sample_world(b).to_json()  # the generators advance alike


def test_another_seats_view_and_bad_seats():
    g = sk.Game("classic", seed=4)
    other = (g.current_player() + 1) % 4
    view = sk.InfoView(g, other)
    assert view.seat == other and view.hand == g.hand(other)
    assert len(view.legal_action_ids()) == 0  # not its turn
    assert view.sample_world(np.random.default_rng(0)).hand(other) == g.hand(other)
    for bad in (4, -1, "north", 1.5):
        with pytest.raises(ValueError, match="seat"):
            sk.InfoView(g, bad)
    assert "123" not in str(sk.InfoView(sk.Game("classic", seed=123), 0))  # no deal seed in the view


def test_the_view_of_a_finished_deal_names_why_no_seat_is_to_act():
    g = sk.Game("classic", seed=4)
    while not g.is_over():
        g.apply_action(int(g.legal_action_ids()[0]))
    for seat in (None, -1, g.current_player()):
        with pytest.raises(ValueError, match="the deal is over, so no seat is to act"):
            sk.InfoView(g, seat)
    assert sk.InfoView(g, 2).is_over() and sk.InfoView(g, 2).seat == 2  # a named seat still has its view


class _LooksForTheDeal(sk.Agent):
    """Collects every Game reachable from its Decisions' public attributes and from
    its views (an agent may see its seat's information and nothing more)."""

    def __init__(self):
        self.games, self.hidden_equal = [], 0

    def act(self, d):
        for name in dir(d):
            if not name.startswith("_"):
                value = getattr(d, name)
                if callable(value) and not hasattr(value, "__self__"):  # (a function kept on it: ask it for row 0)
                    value = value(0)
                items = value if isinstance(value, (list, tuple)) else [value]
                self.games += [x for x in items if isinstance(x, sk.Game)]
        for i in range(len(d)):
            view = d.views[i]
            self.games += [getattr(view, n) for n in dir(view) if isinstance(getattr(view, n, None), sk.Game)]
        return np.array([ids[0] for ids in d.legal_ids], dtype=np.int64)


def test_an_agent_gets_what_its_seat_may_see_and_no_game_of_the_whole_deal():
    agent = _LooksForTheDeal()
    sk.selfplay("baibian", games=2, agents=[agent, "greedy"], seed=3, batch=2)
    sk.agents.agent_step(agent, sk.Game("baibian", seed=1))
    assert agent.games == []
    assert not hasattr(sk.Decisions, "game_of")


class _Writes(sk.Agent):
    def __init__(self, target):
        self.target = target

    def act(self, d):
        if self.target == "legal_ids":
            d.legal_ids[0][0] = 5
        elif self.target == "legal_features":
            d.legal_features[0][0, 0] = 1.0
        else:
            getattr(d, self.target)[0] = 0
        return np.array([ids[0] for ids in d.legal_ids], dtype=np.int64)


@pytest.mark.parametrize("target", ["legal_ids", "legal_features"])
def test_an_agent_cannot_write_into_the_runner_s_legal_ids_or_features(target):
    with pytest.raises(sk.agents.AgentError, match="read-only"):
        sk.selfplay("classic", games=1, agents=[_Writes(target), "random"], seed=1, batch=1)


@pytest.mark.parametrize("target", ["seats", "mask", "obs"])
def test_an_agent_that_writes_into_its_copies_changes_nothing_the_runner_uses(target):
    class First(sk.Agent):
        def act(self, d):
            return np.array([ids[0] for ids in d.legal_ids], dtype=np.int64)

    def run(agent):
        agent.name = "first legal"  # (one label: the summaries compare whole)
        return sk.selfplay("baibian", games=3, agents=[agent, "greedy"], seed=5, batch=2)["scores"]

    writes = run(_Writes(target))
    assert writes == run(First())


def test_a_callable_that_unlocks_the_mask_still_cannot_make_a_move_legal():
    def cheats(obs, mask, seats):
        mask.flags.writeable = True  # (numpy allows it on a view of a writeable array)
        illegal = np.array([int(np.flatnonzero(row == 0)[0]) for row in mask])
        mask[np.arange(len(mask)), illegal] = 1
        return illegal

    with pytest.raises(sk.agents.AgentActionError, match="not legal"):
        sk.selfplay("classic", games=1, agents=[cheats, "random"], seed=1, batch=1)
    with pytest.raises(sk.agents.AgentActionError, match="not legal"):
        sk.agents.agent_step(cheats, sk.Game("classic", seed=1))


class _ChecksItsViews(sk.Agent):
    """Plays the first legal id, checking every row's view against the row."""

    def __init__(self):
        self.checked = 0

    def act(self, d):
        for i in range(len(d)):
            view = d.views[i]
            assert view.seat == d.seats[i] == view.current_player()
            assert (view.legal_action_ids() == d.legal_ids[i]).all()
            assert (view.encode_observation() == d.obs[i]).all()
            self.checked += 1
        return np.array([ids[0] for ids in d.legal_ids], dtype=np.int64)


@pytest.mark.parametrize("variant", ["baibian", "jj"])
def test_each_row_gets_the_view_of_its_own_deal(variant):
    agent = _ChecksItsViews()
    sk.selfplay(variant, games=6, agents=[agent, "greedy"], seed=2, batch=3)
    assert agent.checked > 100
    # One position at a time too (the web table, Bot-free tools).
    g = sk.Game(variant, seed=1)
    sk.agents.agent_step(agent, g)


def test_views_not_read_during_act_cannot_be_read_after():
    kept = []

    class Keeps(sk.Agent):
        def act(self, d):
            kept.append(d)
            if len(kept) == 1:
                kept.append(d.views[0])  # read while acting: stays valid
            return np.array([ids[0] for ids in d.legal_ids], dtype=np.int64)

    sk.selfplay("classic", games=1, agents=[Keeps(), "random"], seed=1, batch=1)
    assert isinstance(kept[1], sk.InfoView) and kept[0].views[0] is kept[1]
    with pytest.raises(RuntimeError, match="while act"):
        kept[2].views[0]
    with pytest.raises(IndexError):
        kept[0].views[5]


class Pimc(sk.Agent):
    """Perfect-information Monte Carlo in pure Python: each legal play (the few the
    heuristic ranks first, and the pass) is played in the same sampled worlds and the
    deal finished by a built-in bot; the play with the best mean team reward wins."""

    def __init__(self, worlds: int = 3, candidates: int = 3, seed: int = 0):
        self.worlds, self.candidates = worlds, candidates
        self.rng = np.random.default_rng(seed)
        self.rollout = sk.Bot("heuristic")

    def act(self, d):
        chosen = []
        for i in range(len(d)):
            ids = d.legal_ids[i]
            if len(ids) == 1:
                chosen.append(int(ids[0]))
                continue
            view = d.views[i]
            worlds = [view.sample_world(self.rng) for _ in range(self.worlds)]
            first = self.rollout.step(worlds[0])  # the heuristic's own choice is a candidate
            pool = [first] + [int(a) for a in ids if a != first]
            candidates = pool[: self.candidates]
            values = [np.mean([self._value(w, a, view.seat) for w in worlds]) for a in candidates]
            chosen.append(candidates[int(np.argmax(values))])
        return np.array(chosen, dtype=np.int64)

    def _value(self, world, action, seat):
        g = world.clone()
        g.apply_action(action)
        while not g.is_over():
            g.apply_action(self.rollout.step(g))
        return g.rewards("score")[seat]


def test_a_pure_python_pimc_agent_plays_in_the_arena():
    result = sk.arena("classic", agents=[Pimc(), "random"], deals=6, seed=3, batch=6)
    pair = result["pairs"][0]
    assert pair["a"] == "Pimc" and pair["b"] == "random"
    assert pair["wp"] >= 0.75  # a search on heuristic rollouts beats random play
