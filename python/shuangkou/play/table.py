"""One table of `shuangkou play`: four seats (people or agents), a deal or a match, and
what each seat may see. No web code here: the server (server.py) relays messages to
`Table.handle` and sends each seat `Table.view(seat)`.

The rules, the state and the bots are the C++ core's (`Game`, `Match`, `Bot`); the table
adds what the game rooms add around them: seats, 托管 (a helper bot plays a seat), the
turn timer with its strikes, hints, and the settlement at the end of a deal.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _core
from ..agents import Agent, AgentLike, Decisions, agent_label, is_bot, resolve_agent

HUMAN = "human"
STRIKES_TO_AUTO = 3  # the third timeout puts the seat under 托管

# Pattern groups of 排序, strongest first (bombs, chains, triples, pairs, singles).
_GROUP_ORDER = ["bomb", "chain", "triple", "pair", "single"]
_RANKS = "3 4 5 6 7 8 9 T J Q K A 2 SJ BJ".split()


def _rank(p: _core.Play) -> int:
    """The rank a play is compared by, as an index (3 lowest, the big joker highest)."""
    return _RANKS.index(p.key) if p.key in _RANKS else len(_RANKS)


class TableError(ValueError):
    """A message the table refuses: it names why, and nothing changed."""


@dataclass
class SeatState:
    agent: AgentLike | None  # None: a person's seat
    label: str
    token: str | None = None  # the secret of a person's seat
    auto: bool = False  # 托管
    away: bool = False  # under 托管 because every connection closed
    strikes: int = 0
    connected: int = 0  # open connections
    hint_at: int = -1  # the last hint given this turn (index into the hint list)


def agent_action(agent: AgentLike, game: _core.Game) -> int:
    """The legal action id `agent` plays for the player to act in `game`."""
    if is_bot(agent):
        return agent.step(game)
    seat = game.current_player()
    ids = np.asarray(game.legal_action_ids(), dtype=np.int64)
    rules = game.rules
    obs = _core.encode_observation(game, seat)[None, :]
    mask = np.zeros((1, rules.num_actions), dtype=np.int8)
    mask[0, ids] = 1
    seats = np.array([seat], dtype=np.int64)
    if isinstance(agent, Agent):
        patterns = [rules.catalogue.pattern(int(i)) for i in ids]
        d = Decisions(obs, mask, seats, [ids.astype(np.int32)], [_core.encode_moves(patterns)], rules)
        chosen = agent.act(d)
    else:
        chosen = agent(obs, mask, seats)
    action = int(np.asarray(chosen).reshape(-1)[0])
    if action not in set(ids.tolist()):
        raise TableError(f"agent {agent_label(agent)} chose action {action}, which is not legal here")
    return action


def _tokens(cards: str) -> list[str]:
    return cards.split() if cards else []


def _high_to_low(cards: str) -> list[str]:
    return list(reversed(_tokens(cards)))  # (the core lists low to high, jokers last)


@dataclass
class Table:
    """A table: `seats` lists four agents or "human"; `deals` deals in a row (a match when
    `match`), dealt from `seed`; `helper` plays seats under 托管; `turn_seconds` (None: no
    timer) is how long a person may take over a move."""

    rules: _core.Rules
    seats: list[Any]
    seed: int = 0
    deals: int = 1
    match: bool = False
    helper: AgentLike = "heuristic"
    turn_seconds: float | None = 30.0
    clock: Callable[[], float] = time.monotonic
    on_deal_end: Callable[[_core.Game, list[str]], None] | None = None
    state: list[SeatState] = field(init=False)

    def __post_init__(self) -> None:
        if len(self.seats) != 4:
            raise ValueError(f"seats: four entries (an agent or 'human' per seat), got {len(self.seats)}")
        if isinstance(self.deals, bool) or not isinstance(self.deals, int) or self.deals < 1:
            raise ValueError(f"deals: an integer >= 1, got {self.deals!r}")
        if self.turn_seconds is not None and not self.turn_seconds > 0:
            raise ValueError(f"turn_seconds: above 0, or None for no timer, got {self.turn_seconds!r}")
        self.helper = resolve_agent(self.helper)
        self.state = []
        for s, spec in enumerate(self.seats):
            if isinstance(spec, str) and spec.strip() == HUMAN:
                self.state.append(SeatState(None, f"玩家 {s + 1}", token=secrets.token_urlsafe(16)))
            else:
                agent = resolve_agent(spec)
                self.state.append(SeatState(agent, agent_label(agent)))
        if not any(st.agent is None for st in self.state):
            raise ValueError("seats: at least one seat is 'human' (a table of agents alone is the arena's job)")
        self._match = _core.Match(self.rules, seed=self.seed, deals=self.deals) if self.match else None
        self.deal_index = 0
        self._game = self._match.game if self._match else _core.Game(self.rules, seed=self.seed)
        self.deadline: float | None = None
        self._start_turn()

    # -- the deal -------------------------------------------------------------------

    @property
    def game(self) -> _core.Game:
        return self._match.game if self._match else self._game

    def seat_of_token(self, token: str) -> int | None:
        """The person's seat a token opens, or None."""
        for s, st in enumerate(self.state):
            if st.token is not None and secrets.compare_digest(st.token, token):
                return s
        return None

    def _acts_itself(self, seat: int) -> bool:
        st = self.state[seat]
        return st.agent is not None or st.auto

    def _start_turn(self) -> None:
        g = self.game
        for st in self.state:
            st.hint_at = -1
        seat = g.current_player()
        human_turn = seat >= 0 and not self._acts_itself(seat)
        self.deadline = self.clock() + self.turn_seconds if human_turn and self.turn_seconds else None

    def _apply(self, action: int) -> None:
        self.game.apply_action(action)
        if self.game.is_over():
            for st in self.state:
                st.auto = st.away = False  # 托管 ends with the deal
            if self.on_deal_end:
                self.on_deal_end(self.game, [st.label for st in self.state])
        self._start_turn()

    def set_away(self, seat: int, away: bool) -> None:
        """A person's seat lost its last connection (托管 until they come back) or came
        back during the same deal (托管 off again, unless they had asked for it)."""
        st = self.state[seat]
        if away and not self.game.is_over() and not st.auto:
            st.auto = st.away = True
        elif not away and st.away:
            st.auto = st.away = False
        self._start_turn()

    def advance(self) -> bool:
        """Plays the agents' and 托管 seats' moves until a person must act or the deal
        ends. Returns whether anything was played."""
        played = False
        g = self.game
        while not g.is_over() and self._acts_itself(g.current_player()):
            st = self.state[g.current_player()]
            self._apply(agent_action(st.agent if st.agent is not None else self.helper, g))
            played = True
        return played

    def tick(self) -> bool:
        """The turn timer: a person past the deadline gets a strike and the helper plays
        this move; the third strike puts the seat under 托管. Returns whether it acted."""
        if self.deadline is None or self.clock() < self.deadline or self.game.is_over():
            return False
        seat = self.game.current_player()
        st = self.state[seat]
        st.strikes += 1
        if st.strikes >= STRIKES_TO_AUTO:
            st.auto = True
        self._apply(agent_action(self.helper, self.game))
        return True

    # -- messages ---------------------------------------------------------------------

    def handle(self, seat: int, msg: dict[str, Any]) -> dict[str, Any] | None:
        """Applies one message from `seat` (already checked for shape by the server).
        Returns a reply for that seat only (a hint, a reading choice), or None when the
        change is for every seat's view. TableError, changing nothing, when refused."""
        kind = msg["type"]
        if kind == "auto":
            on = msg.get("on")
            if not isinstance(on, bool):
                raise TableError("auto: 'on' must be true or false")
            if self.game.is_over() and on:
                raise TableError("auto: the deal is over")
            self.state[seat].auto = on
            self.state[seat].away = False
            if not on:
                self.state[seat].strikes = 0
            self._start_turn()
            return None
        if kind == "start":
            return self._start_next(seat)
        if self.game.is_over():
            raise TableError(f"{kind}: the deal is over")
        if self.state[seat].auto:
            raise TableError(f"{kind}: the seat is under 托管 (press 托管 to take it back)")
        if kind == "hint":
            return self._hint(seat)
        if self.game.current_player() != seat:
            raise TableError(f"{kind}: it is seat {self.game.current_player()}'s turn, not yours")
        if kind == "pass":
            if not self.game.can_pass():
                raise TableError("pass: you lead this trick, so you must play")
            self._apply(0)
            return None
        if kind == "play":
            return self._play(seat, msg)
        raise TableError(f"unknown message type {kind!r}")

    def _play(self, seat: int, msg: dict[str, Any]) -> dict[str, Any] | None:
        cards = msg.get("cards")
        if not isinstance(cards, list) or not cards or not all(isinstance(c, str) and len(c) <= 3 for c in cards):
            raise TableError("play: 'cards' must be a non-empty list of card tokens")
        try:
            text = _core.parse_cards(" ".join(cards))
        except ValueError as e:
            raise TableError(f"play: {e}") from None
        in_hand = _tokens(self.game.hand(seat))
        for c in set(text.split()):
            if text.split().count(c) > in_hand.count(c):
                raise TableError(f"play: you do not hold {text.split().count(c)} × {c}")
        options = [p for p in self.game.legal_moves() if p.cards == text]
        if not options:
            raise TableError(f"play: {self._why_not(text)}")
        readings = sorted({(p.kind, p.reading): p for p in options}.values(), key=lambda p: (p.kind, p.reading))
        choice = msg.get("reading")
        if len(readings) > 1 and choice is None:
            return {"type": "choose", "readings": [{"kind": p.kind, "text": f"{p.kind} {p.reading}"} for p in readings]}
        if choice is not None and (isinstance(choice, bool) or not isinstance(choice, int)):
            raise TableError("play: 'reading' must be an index into the readings offered")
        pick = readings[0] if choice is None else readings[choice] if 0 <= choice < len(readings) else None
        if pick is None:
            raise TableError(f"play: reading {choice} is not one of the {len(readings)} offered")
        self._apply(self.rules.catalogue.id_of(pick))
        return None

    def _why_not(self, text: str) -> str:
        if not self.rules.readings(text):
            return f"{text} is not a play under these rules"
        top = self.game.top()
        if top is None:
            return f"{text} cannot lead here"
        return f"{text} does not beat {top.kind} {top.cards} on the table"

    def _hint(self, seat: int) -> dict[str, Any]:
        if self.game.current_player() != seat:
            raise TableError(f"hint: it is seat {self.game.current_player()}'s turn, not yours")
        plays = sorted(self.game.legal_moves(), key=lambda p: (p.is_bomb, _rank(p), len(p), p.kind))
        if not plays:
            return {"type": "hint", "cards": [], "index": 0, "count": 0}
        st = self.state[seat]
        st.hint_at = (st.hint_at + 1) % len(plays)
        return {"type": "hint", "cards": _tokens(plays[st.hint_at].cards), "index": st.hint_at, "count": len(plays)}

    def _start_next(self, seat: int) -> None:
        if not self.game.is_over():
            raise TableError("start: the deal is still being played")
        if self._match is not None:
            if self._match.is_over():
                raise TableError("start: the match is over")
            self._match.next_deal()
        elif self.deal_index + 1 >= self.deals:
            raise TableError("start: every deal has been played")
        else:
            self._game = _core.Game(self.rules, seed=self.seed + self.deal_index + 1)  # deal i: seed + i
        self.deal_index += 1
        for st in self.state:
            st.strikes = 0
        self._start_turn()
        return None

    # -- views ------------------------------------------------------------------------

    def view(self, seat: int) -> dict[str, Any]:
        """What `seat` may see (docs/play.md: the `state` message)."""
        g = self.game
        obs = g.observation(seat)
        to_act = g.current_player()
        top = g.top()
        actions = g.history()  # (converted once: a view is built for every seat after every move)
        history = [
            {"seat": s, "cards": _tokens(p.cards) if p else [], "kind": p.kind if p else "pass"} for s, p in actions
        ]
        bombs = [{"seat": s, "cards": _tokens(p.cards), "stars": p.stars} for s, p in actions if p and p.is_bomb]
        revealed = g.revealed_card
        out: dict[str, Any] = {
            "type": "state",
            "seat": seat,
            "names": [st.label for st in self.state],
            "variant": self.rules.name,
            "deal": self.deal_index + 1,
            "deals": self.deals,
            "match": self._match is not None,
            "phase": "over" if g.is_over() else "playing",
            "to_act": to_act,
            "your_turn": to_act == seat,
            "can_pass": bool(to_act == seat and g.can_pass()),
            "hand": _high_to_low(obs["hand"]),
            "groups": self._groups(obs["hand"]),
            "partner_hand": self._partner_hand(seat, obs),
            "cards_left": obs["cards_left"],
            "table": {"cards": _tokens(top.cards), "kind": top.kind, "by": g.top_owner()} if top else None,
            "passes": obs["passes"],
            "history": history,
            "auto": [st.auto for st in self.state],
            "strikes": [st.strikes for st in self.state],
            "deadline": max(0.0, self.deadline - self.clock()) if self.deadline is not None else None,
            "revealed": {"card": revealed["rank"], "holder": revealed["holder"]} if revealed else None,
            "swapped": list(g.swapped) if g.swapped else None,
            "bombs": bombs,
            "finish_order": obs["finish_order"],
        }
        if self._match is not None:
            out["totals"] = self._match.totals()
            out["titles"] = [list(t) for t in self._match.titles()]
        if g.is_over():
            b = g.score_breakdown()
            out["multiplier"] = b["multiplier"]
            out["settlement"] = {
                "hands": [_high_to_low(g.hand(s)) for s in range(4)],
                "places": g.finish_order(),
                "outcome": b["outcome"],
                "base": b["base"],
                "multiplier": b["multiplier"],
                "contributions": b["contribution"],
                "scores": b["total"],
            }
        return out

    def _partner_hand(self, seat: int, obs: dict[str, Any]) -> list[str] | None:
        """The partner's hand where the seat may see it: where the variant shows it (JJ),
        and once the seat has gone out, for the rest of the deal."""
        if obs["partner_hand"] is not None:
            return _high_to_low(obs["partner_hand"])
        if seat in obs["finish_order"]:
            return _high_to_low(self.game.hand((seat + 2) % 4))
        return None

    def _groups(self, hand: str) -> list[list[str]]:
        """The hand grouped for 排序: bombs, then chains, triples, pairs and singles, each
        group strongest first; a card in no larger group is a single."""
        left = _tokens(hand)
        groups: list[list[str]] = []
        if not left:
            return groups
        plays = self.rules.legal_moves(hand)
        for family in _GROUP_ORDER:
            chosen = [p for p in plays if _family(p) == family]
            for p in sorted(chosen, key=lambda p: (len(p), _rank(p)), reverse=True):
                cards = _tokens(p.cards)
                if all(left.count(c) >= cards.count(c) for c in set(cards)):
                    for c in cards:
                        left.remove(c)
                    groups.append(list(reversed(cards)))
        return [g for g in groups if g]


def _family(p: _core.Play) -> str:
    if p.is_bomb:
        return "bomb"
    if "chain" in p.kind or p.kind == "straight":
        return "chain"
    return p.kind if p.kind in ("triple", "pair", "single") else "other"
