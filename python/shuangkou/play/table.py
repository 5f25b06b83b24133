"""One table of `shuangkou play`: four seats (people or agents), a deal or a match, and
what each seat may see. No web code here: the server (server.py) relays messages to
`Table.handle` and sends each seat `Table.view(seat)`.

The rules, the state and the bots are the C++ core's (`Game`, `Match`, `Bot`); the table
adds what the game rooms add around them: seats, 托管 (a helper bot plays a seat), the
turn timer with its strikes, hints, and the settlement at the end of a deal.
"""

from __future__ import annotations

import functools
import math
import secrets
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .. import _core
from ..agents import AgentLike, agent_label, agent_step, is_bot, resolve_agent
from ..errors import clip
from .view import action_view, deal_view, rank_index, tokens

HUMAN = "human"
STRIKES_TO_AUTO = 3  # the third timeout puts the seat under 托管
READY_SECONDS = 30.0  # between deals: a person who does not press 开始 by then sits out
FALLBACK_HELPER = "heuristic"  # plays for a helper that failed (the built-in bot)
ADVICE_VALUES = 5  # the advisor's values shown: its best few plays


class TableError(ValueError):
    """A message the table refuses: it names why (in English, and in Chinese as `zh`
    for the page), and nothing changed."""

    def __init__(self, message: str, zh: str | None = None) -> None:
        super().__init__(message)
        self.zh = zh or message


@dataclass
class SeatState:
    agent: AgentLike | None  # None: a person's seat
    label: str
    token: str | None = None  # the secret of a person's seat
    auto: bool = False  # 托管: the helper plays the seat
    away: bool = False  # under 托管 because the person is gone (disconnected, left, sat out)
    ready: bool = False  # pressed 开始 for the next deal (agents are always ready)
    waiting: bool = False  # did not press 开始 in time: sits out (away) until they do
    strikes: int = 0
    connected: int = 0  # open connections
    hint_at: int = -1  # the last hint given this turn (index into the hint list)
    failed: bool = False  # its agent failed: the helper plays the seat from then on


_F = TypeVar("_F", bound=Callable[..., Any])


def _one_card(token: Any) -> bool:
    """Whether `token` is one card's token ("3", "T", "10", "SJ", ...): not two, not none."""
    if not isinstance(token, str) or not 0 < len(token) <= 3 or token.strip() != token or " " in token:
        return False
    try:
        return len(_core.parse_cards(token).split()) == 1
    except ValueError:
        return False


def _describe(e: BaseException) -> str:
    """An exception in one short line: its type and message."""
    text = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {clip(text, 200)}" if text else type(e).__name__


def _serialized(method: _F) -> _F:
    """One of the table's entry points: it holds the table's lock, so that calls from
    several threads (the server runs them in worker threads, and a worker goes on after
    the request that started it was cancelled) act on the deal one at a time."""

    @functools.wraps(method)
    def locked(self: Table, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return locked  # type: ignore[return-value]


@dataclass
class Table:
    """A table: `seats` lists four agents or "human"; `deals` deals in a row (a match when
    `match`), dealt from `seed`; `helper` plays seats under 托管; `turn_seconds` (None: no
    timer) is how long a person may take over a move; `advisor` (an agent, or None)
    answers a person's request for advice."""

    rules: _core.Rules
    seats: list[Any]
    seed: int = 0
    deals: int = 1
    match: bool = False
    helper: AgentLike = "heuristic"
    turn_seconds: float | None = 30.0
    advisor: AgentLike | None = None
    ready_seconds: float = READY_SECONDS
    clock: Callable[[], float] = time.monotonic
    on_deal_end: Callable[[_core.Game, list[str]], None] | None = None
    state: list[SeatState] = field(init=False)
    _lock: Any = field(init=False, repr=False, default_factory=threading.RLock)  # (see _serialized)

    def __post_init__(self) -> None:
        if len(self.seats) != 4:
            raise ValueError(f"seats: four entries (an agent or 'human' per seat), got {len(self.seats)}")
        if isinstance(self.deals, bool) or not isinstance(self.deals, int) or self.deals < 1:
            raise ValueError(f"deals: an integer >= 1, got {self.deals!r}")
        if self.turn_seconds is not None and not (self.turn_seconds > 0 and math.isfinite(self.turn_seconds)):
            raise ValueError(f"turn_seconds: a finite number above 0, or None for no timer, got {self.turn_seconds!r}")
        if not (self.ready_seconds > 0 and math.isfinite(self.ready_seconds)):
            raise ValueError(f"ready_seconds: a finite number above 0, got {self.ready_seconds!r}")
        self._notices: list[dict[str, Any]] = []  # for the seats' pages (take_notices)
        self.helper = resolve_agent(self.helper)
        if self.advisor is not None:
            self.advisor = resolve_agent(self.advisor)
        self.state = []
        for s, spec in enumerate(self.seats):
            if isinstance(spec, str) and spec.strip() == HUMAN:
                self.state.append(SeatState(None, f"玩家 {s + 1}", token=secrets.token_urlsafe(16)))
            else:
                agent = resolve_agent(spec)
                self.state.append(SeatState(agent, agent_label(agent), ready=True))
        if not any(st.agent is None for st in self.state):
            raise ValueError("seats: at least one seat is 'human' (a table of agents alone is the arena's job)")
        for agent in [self.helper, self.advisor, *(st.agent for st in self.state)]:
            if is_bot(agent):
                agent.check_variant(self.rules)  # (the built-in dmc plays only the rule sets it ships a network for)
        self._match = _core.Match(self.rules, seed=self.seed, deals=self.deals) if self.match else None
        self.deal_index = 0
        self._game = self._match.game if self._match else _core.Game(self.rules, seed=self.seed)
        self.deadline: float | None = None
        self.ready_deadline: float | None = None  # between deals: when 开始 is due
        self._start_turn()

    # -- the deal -------------------------------------------------------------------

    @property
    def game(self) -> _core.Game:
        return self._match.game if self._match else self._game

    def seat_of_token(self, token: str) -> int | None:
        """The person's seat a token opens, or None."""
        given = token.encode("utf-8", "surrogatepass")  # (bytes: compare_digest refuses non-ASCII text)
        for s, st in enumerate(self.state):
            if st.token is not None and secrets.compare_digest(st.token.encode("ascii"), given):
                return s
        return None

    def more_deals(self) -> bool:
        """Whether another deal follows the one on the table."""
        if self._match is not None:
            return not self._match.is_over()
        return self.deal_index + 1 < self.deals

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
            self._end_deal()
        self._start_turn()

    def _end_deal(self) -> None:
        """托管 chosen by a person ends with the deal; a person who is gone stays away
        (the helper plays their seat next deal too, until they come back). People are
        asked to press 开始 for the next deal."""
        for st in self.state:
            if not st.away:
                st.auto = False
            if st.agent is None:
                st.ready = False
        self.ready_deadline = self.clock() + self.ready_seconds if self.more_deals() else None
        if self.on_deal_end:
            try:
                self.on_deal_end(self.game, [st.label for st in self.state])
            except OSError as e:  # (the record file: the hook keeps the record, and says so)
                self._report(str(e), f"牌局记录写入失败：{e}", None)
            except Exception as e:  # noqa: BLE001 - reported; the table goes on
                self._report(f"the deal-end hook failed ({_describe(e)})", f"本局结束时出错（{_describe(e)}）", e)

    @_serialized
    def set_away(self, seat: int, away: bool) -> None:
        """A person's seat lost its last connection or was left (托管 until they come
        back, also into the next deals), or came back (托管 off again)."""
        st = self.state[seat]
        if away:
            st.auto = st.away = True
            st.ready = False
        elif st.away:
            st.auto = st.away = st.waiting = False
        self._start_turn()

    @_serialized
    def advance(self) -> bool:
        """Plays the agents' and 托管 seats' moves until a person must act or the deal
        ends. Returns whether anything was played."""
        played = False
        g = self.game
        while not g.is_over() and self._acts_itself(g.current_player()):
            self._apply(self._move(g.current_player()))
            played = True
        return played

    def _move(self, seat: int) -> int:
        """The move of a seat that plays itself: its agent's, or the helper's (托管, or
        an agent that failed: reported, and replaced by the helper for good)."""
        st = self.state[seat]
        if st.agent is None or st.failed:
            return self._helper_move()
        try:
            return agent_step(st.agent, self.game)
        except Exception as e:  # noqa: BLE001 - any failure of the agent's code: reported, the helper plays on
            st.failed = True
            helper = agent_label(self.helper)
            self._report(
                f"seat {seat}'s agent {st.label} failed ({_describe(e)}); {helper} plays the seat from now on",
                f"座位 {seat + 1} 的 {st.label} 出错（{_describe(e)}），之后由 {helper} 代打",
                e,
            )
            st.label = f"{st.label} → {helper}"
            return self._helper_move()

    def _helper_move(self) -> int:
        """The helper's move; a helper that fails is reported and replaced by the
        built-in FALLBACK_HELPER for good."""
        try:
            return agent_step(self.helper, self.game)
        except Exception as e:  # noqa: BLE001 - the helper's code failed: reported, the built-in bot plays on
            if agent_label(self.helper) == FALLBACK_HELPER and is_bot(self.helper):
                raise  # (the built-in bot itself: a bug, for the server's log)
            self._report(
                f"the helper {agent_label(self.helper)} failed ({_describe(e)}); {FALLBACK_HELPER} helps from now on",
                f"托管 {agent_label(self.helper)} 出错（{_describe(e)}），之后由 {FALLBACK_HELPER} 托管",
                e,
            )
            self.helper = resolve_agent(FALLBACK_HELPER)
            return agent_step(self.helper, self.game)

    def _report(self, message: str, zh: str, error: BaseException | None) -> None:
        """A failure the table survived: on the server's stderr (with the traceback of
        `error`, where given) and, as a `notice`, on every seat's page."""
        trace = "".join(traceback.format_exception(type(error), error, error.__traceback__)) if error else ""
        print(f"play: {message}\n{trace}".rstrip(), file=sys.stderr, flush=True)
        self._notices.append({"type": "notice", "message": message, "message_zh": zh})

    @_serialized
    def take_notices(self) -> list[dict[str, Any]]:
        """The notices since the last call (`notice` messages for every seat)."""
        notices, self._notices = self._notices, []
        return notices

    @_serialized
    def tick(self) -> bool:
        """The timers. In a deal: a person past the turn deadline gets a strike and the
        helper plays this move; the third strike puts the seat under 托管, and so does the
        first where nobody holds the seat's link open (an empty seat). Between deals:
        a person who has not pressed 开始 in time sits out (waiting), and the next deal
        starts once everyone still at the table is ready. Returns whether anything changed."""
        now = self.clock()
        if self.game.is_over():
            if self.ready_deadline is None or now < self.ready_deadline:
                return False
            self.ready_deadline = None
            for st in self.state:
                if st.agent is None and not st.ready:
                    st.waiting = True
                    st.auto = st.away = True
            self._start_if_ready()
            return True
        if self.deadline is None or now < self.deadline:
            return False
        st = self.state[self.game.current_player()]
        st.strikes += 1
        if st.connected == 0:
            st.auto = st.away = True  # an empty seat: the helper fills it until someone opens its link
        elif st.strikes >= STRIKES_TO_AUTO:
            st.auto = True
        self._apply(self._helper_move())
        return True

    # -- messages ---------------------------------------------------------------------

    @_serialized
    def handle(self, seat: int, msg: dict[str, Any]) -> dict[str, Any] | None:
        """Applies one message from `seat` (already checked for shape by the server).
        Returns a reply for that seat only (a hint, a reading choice, advice), or None when
        the change is for every seat's view. TableError, changing nothing, when refused."""
        kind = msg["type"]
        if kind == "auto":
            return self._auto(seat, msg.get("on"))
        if kind == "leave":
            self.set_away(seat, True)
            return None
        if kind == "start":
            return self._start(seat)
        if self.game.is_over():
            raise TableError(f"{kind}: the deal is over", "本局已结束")
        if self.state[seat].auto:
            raise TableError(f"{kind}: the seat is under 托管 (press 托管 to take it back)", "托管中（再按托管可取消）")
        if self.game.current_player() != seat:
            raise TableError(
                f"{kind}: it is seat {self.game.current_player()}'s turn, not yours",
                f"还没轮到你（现在轮到座位 {self.game.current_player() + 1}）",
            )
        if kind == "hint":
            return self._hint(seat)
        if kind == "advise":
            return self._advise()
        if kind == "pass":
            if not self.game.can_pass():
                raise TableError("pass: you lead this trick, so you must play", "你是首出，必须出牌")
            self._apply(0)
            return None
        if kind == "play":
            return self._play(seat, msg)
        raise TableError(f"unknown message type {kind!r}", f"未知的消息类型 {kind!r}")

    def _auto(self, seat: int, on: Any) -> None:
        if not isinstance(on, bool):
            raise TableError("auto: 'on' must be true or false", "托管：'on' 须为 true 或 false")
        st = self.state[seat]
        if self.game.is_over() and on:
            raise TableError("auto: the deal is over", "本局已结束")
        st.auto = on
        st.away = st.waiting = False
        if not on:
            st.strikes = 0
        self._start_turn()
        return None

    def _play(self, seat: int, msg: dict[str, Any]) -> dict[str, Any] | None:
        cards = msg.get("cards")
        if not isinstance(cards, list) or not cards or not all(_one_card(c) for c in cards):
            raise TableError(
                "play: 'cards' must be a non-empty list of card tokens, one card each", "出牌：请选择要出的牌"
            )
        try:
            text = _core.parse_cards(" ".join(cards))
        except ValueError as e:
            raise TableError(f"play: {e}", f"出牌：无法识别的牌 {' '.join(cards)}") from None
        in_hand = tokens(self.game.hand(seat))
        for c in set(text.split()):
            if text.split().count(c) > in_hand.count(c):
                n = text.split().count(c)
                raise TableError(f"play: you do not hold {n} × {c}", f"你手里没有 {n} 张 {c}")
        options = [p for p in self.game.legal_moves() if p.cards == text]
        if not options:
            raise self._why_not(text)
        readings = sorted({(p.kind, p.reading): p for p in options}.values(), key=lambda p: (p.kind, p.reading))
        choice = msg.get("reading")
        if len(readings) > 1 and choice is None:
            return {
                "type": "choose",
                "readings": [{"kind": p.kind, "reading": p.reading, "text": f"{p.kind} {p.reading}"} for p in readings],
            }
        if choice is not None and (isinstance(choice, bool) or not isinstance(choice, int)):
            raise TableError("play: 'reading' must be an index into the readings offered", "出牌：请选择一种出法")
        pick = readings[0] if choice is None else readings[choice] if 0 <= choice < len(readings) else None
        if pick is None:
            raise TableError(
                f"play: reading {choice} is not one of the {len(readings)} offered", "出牌：请选择给出的出法之一"
            )
        self._apply(self.rules.catalogue.id_of(pick))
        return None

    def _why_not(self, text: str) -> TableError:
        """Why the cards `text` (held, none of the legal plays) cannot be played here."""
        if not self.rules.readings(text):
            return TableError(f"play: {text} is not a play under these rules", f"{text} 不是这个玩法里的牌型")
        top = self.game.top()
        if top is None:
            return TableError(f"play: {text} cannot lead here", f"{text} 不能首出")
        return TableError(
            f"play: {text} does not beat {top.kind} {top.cards} on the table",
            f"{text} 管不上桌上的 {top.cards}（牌型不同或不够大）",
        )

    def _hint(self, seat: int) -> dict[str, Any]:
        """The next of the seat's hints, weakest play first; 不出 (a hint with "pass")
        comes first where nothing beats the trick or the partner holds it."""
        g = self.game
        options: list[Any] = sorted(g.legal_moves(), key=lambda p: (p.is_bomb, rank_index(p), len(p), p.kind))
        owner = g.top_owner()
        partner_holds = owner is not None and owner != seat and owner % 2 == seat % 2
        if g.can_pass() and (partner_holds or not options):
            options.insert(0, None)
        if not options:
            return {"type": "hint", "cards": [], "index": 0, "count": 0}
        st = self.state[seat]
        st.hint_at = (st.hint_at + 1) % len(options)
        reply = {"type": "hint", "cards": [], "index": st.hint_at, "count": len(options)}
        pick = options[st.hint_at]
        if pick is None:
            return {**reply, "pass": True, "why": "partner" if partner_holds else "nothing"}
        return {**reply, "cards": tokens(pick.cards)}

    def _advise(self) -> dict[str, Any]:
        """What the advisor would play here, and its values of its best few plays (for
        an agent that rates plays: a Q network), or None."""
        if self.advisor is None:
            raise TableError(
                "advise: this table has no advisor (start it with --advisor AGENT)",
                "本桌没有建议（启动时加 --advisor）",
            )
        g = self.game
        try:
            action = agent_step(self.advisor, g)
            values = self.advisor.values(g) if is_bot(self.advisor) else None  # (a Q network rates its plays)
        except Exception as e:  # noqa: BLE001 - the advisor's code failed: this request is refused
            why = _describe(e)
            print(f"play: the advisor {agent_label(self.advisor)} failed ({why})", file=sys.stderr, flush=True)
            raise TableError(f"advise: the advisor failed ({why})", f"建议出错（{why}）") from None
        advice = {"type": "advice", "agent": agent_label(self.advisor), **self._action_view(action)}
        if values is not None:
            best = sorted(values.items(), key=lambda kv: -kv[1])[:ADVICE_VALUES]
            values = [{**self._action_view(a), "q": round(float(q), 4)} for a, q in best]
        advice["values"] = values
        return advice

    def _action_view(self, action: int) -> dict[str, Any]:
        """The cards and kind action `action` plays now (a pass: no cards, kind "pass")."""
        play = self.game.clone().apply_action(action)
        return action_view(play)

    def _start(self, seat: int) -> None:
        """开始: between deals, the seat is ready for the next one (which starts once every
        person still at the table is); during a deal, a seat sitting out comes back."""
        st = self.state[seat]
        if not self.game.is_over():
            if not st.away:
                raise TableError("start: the deal is still being played", "本局还在进行中")
            st.auto = st.away = st.waiting = False
            self._start_turn()
            return None
        if not self.more_deals():
            what = "the match is over" if self._match is not None else "every deal has been played"
            raise TableError(f"start: {what}", "比赛已结束" if self._match is not None else "所有牌局都已打完")
        st.ready, st.waiting, st.auto, st.away = True, False, False, False
        self._start_if_ready()
        return None

    def _start_if_ready(self) -> None:
        """Starts the next deal once a person is ready and every person still at the
        table (connected, not sitting out) is."""
        people = [st for st in self.state if st.agent is None]
        present = [st for st in people if st.connected > 0 and not st.waiting]
        if not any(st.ready for st in people) or not all(st.ready for st in present):
            return
        if self._match is not None:
            self._match.next_deal()
        else:
            self._game = _core.Game(self.rules, seed=self.seed + self.deal_index + 1)  # deal i: seed + i
        self.deal_index += 1
        self.ready_deadline = None
        for st in self.state:
            st.strikes = 0
        self._start_turn()

    # -- views ------------------------------------------------------------------------

    @_serialized
    def view(self, seat: int) -> dict[str, Any]:
        """What `seat` may see (docs/play.md: the `state` message): the deal as the seat
        sees it (view.deal_view) and the table around it."""
        out: dict[str, Any] = {
            "type": "state",
            "seat": seat,
            "names": [st.label for st in self.state],
            "deal": self.deal_index + 1,
            "deals": self.deals,
            "match": self._match is not None,
            "auto": [st.auto for st in self.state],
            "strikes": [st.strikes for st in self.state],
            "deadline": max(0.0, self.deadline - self.clock()) if self.deadline is not None else None,
            "ready": [st.ready for st in self.state],
            "waiting": [st.waiting for st in self.state],
            "ready_deadline": max(0.0, self.ready_deadline - self.clock()) if self.ready_deadline is not None else None,
            "more_deals": self.more_deals(),
            "advisor": agent_label(self.advisor) if self.advisor is not None else None,
            **deal_view(self.game, seat),
        }
        if self._match is not None:
            out["totals"] = self._match.totals()
            out["titles"] = [list(t) for t in self._match.titles()]
        return out
