"""The web table's server (shuangkou.play), driven through Starlette's ASGI test client:
every message type, every refusal, what each seat may see, timeouts, disconnects."""

import json

import pytest
import shuangkou as sk
from shuangkou.play import server as play_server
from shuangkou.play.server import MAX_MESSAGE_BYTES, Room, make_app
from shuangkou.play.table import Table, TableError
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from unshipped import without_network

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


class Client(TestClient):
    """The test client of one table; its sockets are closed before it stops (a socket
    left open would keep the server, and the test, waiting)."""

    def __init__(self, app):
        super().__init__(app)
        self.conns = []

    def __exit__(self, *exc):
        for conn in self.conns:
            conn.close()
        return super().__exit__(*exc)


def make_client(seats, variant="baibian", seed=4, **table_args):
    table = Table(sk.Rules(variant), seats, seed=seed, **{"turn_seconds": None, **table_args})
    room = Room()
    room.add("t1", table)
    return Client(make_app(room)), table


class Conn:
    """One page's socket: sends with growing seq, reads until a condition holds."""

    def __init__(self, client, table, seat, **headers):
        self.ws = client.websocket_connect(f"/ws?table=t1&token={table.state[seat].token}", headers=headers)
        self.ws.__enter__()
        self.seq = 0
        self.last = None
        self.open = True
        client.conns.append(self)

    def send(self, kind, **fields):
        self.seq += 1
        self.ws.send_text(json.dumps({"type": kind, "seq": self.seq, **fields}))

    def read(self):
        msg = self.ws.receive_json()
        if msg["type"] == "state":
            self.last = msg
        return msg

    def until(self, pred, limit=400):
        for _ in range(limit):
            msg = self.read()
            if pred(msg):
                return msg
        raise AssertionError("condition not reached")

    def my_turn(self):
        return self.until(lambda m: m["type"] == "state" and (m["your_turn"] or m["phase"] == "over"))

    def close(self):
        if self.open:
            self.open = False
            self.ws.__exit__(None, None, None)


def play_by_hints(conn):
    """Plays the seat's turns with the first hint (passing where nothing beats) to the end."""
    state = conn.my_turn()
    while state["phase"] != "over":
        conn.send("hint")
        hint = conn.until(lambda m: m["type"] == "hint")
        if hint["count"] == 0 or hint.get("pass"):
            conn.send("pass")
        else:
            conn.send("play", cards=hint["cards"])
        reply = conn.until(lambda m: m["type"] in ("state", "choose", "error"))
        assert reply["type"] != "error", reply
        if reply["type"] == "choose":
            conn.send("play", cards=hint["cards"], reading=0)
        # The next turn, or the end: a state after this move (it may be the very reply:
        # the lead comes back at once after the partner went out, or the move ended the deal).
        moves = len(state["history"])

        def next_turn(m, n=moves):
            return m["type"] == "state" and len(m["history"]) > n and (m["your_turn"] or m["phase"] == "over")

        state = reply if next_turn(reply) else conn.until(next_turn)
    return state


def test_a_whole_deal_against_three_bots_ends_in_a_settlement():
    client, table = make_client(["human", "heuristic", "greedy", "heuristic"])
    with client:
        conn = Conn(client, table, 0)
        final = play_by_hints(conn)
        s = final["settlement"]
        assert sorted(s["places"]) == [0, 1, 2, 3] and len(s["hands"]) == 4
        assert sum(s["scores"]) == 0 and s["scores"] == table.game.score_breakdown()["total"]
        assert final["history"] and final["history"][0]["seat"] == table.game.history()[0][0]
        conn.close()


PUBLIC_KEYS = {
    "type", "seat", "names", "variant", "deal", "deals", "match", "phase", "to_act", "your_turn", "can_pass",
    "hand", "groups", "partner_hand", "cards_left", "table", "passes", "history", "auto", "strikes", "deadline",
    "revealed", "swapped", "bombs", "multipliers", "finish_order", "ready", "waiting", "ready_deadline", "more_deals", "advisor",
}  # fmt: skip


def record_deal(seats, seed):
    """Every state message seat 0 receives in a deal it plays by hints."""
    client, table = make_client(seats, seed=seed)
    states = []
    with client:
        conn = Conn(client, table, 0)
        original = conn.read

        def recording_read():
            msg = original()
            if msg["type"] == "state":
                states.append(msg)
            return msg

        conn.read = recording_read
        play_by_hints(conn)
        conn.close()
    return states


def test_what_a_seat_receives_is_only_what_it_may_see():
    # Every state seat 0 receives during a deal: its own hand, the partner's only once
    # seat 0 has gone out, the public record; every hand only in the settlement.
    seats = ["human", "random", "random", "random"]
    for seed in range(1, 20):  # the first deal in which seat 0 goes out before its partner
        states = record_deal(seats, seed)
        if any(v["partner_hand"] for v in states):
            break
    table = Table(sk.Rules("baibian"), seats, seed=seed, turn_seconds=None)
    initial = [h.split() for h in table.game.initial_hands()]

    def left(seat, history):  # a hand as the message's own history leaves it
        cards = list(initial[seat])
        for a in history:
            if a["seat"] == seat:
                for c in a["cards"]:
                    cards.remove(c)
        return sorted(cards)

    assert len(states) > 10 and any(v["partner_hand"] for v in states)
    for v in states:
        over = v["phase"] == "over"
        assert set(v) == PUBLIC_KEYS | ({"settlement", "multiplier"} if over else set()), set(v) ^ PUBLIC_KEYS
        if over:
            continue
        assert sorted(v["hand"]) == left(0, v["history"])
        assert sorted(c for g in v["groups"] for c in g) == sorted(v["hand"])
        if 0 in v["finish_order"]:
            assert sorted(v["partner_hand"]) == left(2, v["history"])
        else:
            assert v["partner_hand"] is None


def test_jj_shows_the_partner_hand_from_the_start():
    client, table = make_client(["human", "heuristic", "heuristic", "heuristic"], variant="jj")
    with client:
        conn = Conn(client, table, 0)
        v = conn.until(lambda m: m["type"] == "state")
        assert v["partner_hand"] is not None and len(v["partner_hand"]) == v["cards_left"][2]
        conn.close()
    client, table = make_client(["human", "heuristic", "heuristic", "heuristic"], variant="classic")
    with client:
        conn = Conn(client, table, 0)
        assert conn.until(lambda m: m["type"] == "state")["partner_hand"] is None
        conn.close()


@pytest.mark.parametrize(
    "text, needle",
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"type": "dance", "seq": 1}', "unknown message type"),
        ('{"type": "pass"}', "needs 'seq'"),
        ('{"type": "pass", "seq": true}', "needs 'seq'"),
        ('{"type": "play", "seq": 1, "cards": "3"}', "list of card tokens"),
        ('{"type": "play", "seq": 1, "cards": ["Z"]}', "play:"),
        ('{"type": "play", "seq": 1, "cards": ["3", "3", "3", "3", "3"]}', "you do not hold"),
        ('{"type": "auto", "seq": 1, "on": "yes"}', "true or false"),
        ('{"type": "start", "seq": 1}', "still being played"),
        ("x" * (MAX_MESSAGE_BYTES + 1), f"over {MAX_MESSAGE_BYTES} bytes"),
    ],
)
def test_bad_messages_are_refused_and_change_nothing(text, needle):
    client, table = make_client(["human", "heuristic", "heuristic", "heuristic"])
    with client:
        conn = Conn(client, table, 0)
        before = conn.my_turn()
        record = table.game.to_json()
        conn.ws.send_text(text)
        err = conn.until(lambda m: m["type"] == "error")
        assert needle in err["message"], err
        assert table.game.to_json() == record
        conn.seq = 100  # the connection stays usable
        conn.send("hint")
        assert conn.until(lambda m: m["type"] == "hint")["count"] >= 1
        assert before["your_turn"]
        conn.close()


def test_an_illegal_play_names_why_and_a_replayed_seq_is_refused():
    client, table = make_client(["human", "heuristic", "heuristic", "heuristic"])
    with client:
        conn = Conn(client, table, 0)
        state = conn.my_turn()
        hand = state["hand"]
        singles = [c for c in dict.fromkeys(hand) if hand.count(c) == 1]
        pair_of_different = [hand[0], hand[-1]] if hand[0] != hand[-1] else None
        record = table.game.to_json()
        if pair_of_different:
            conn.send("play", cards=pair_of_different)
            err = conn.until(lambda m: m["type"] == "error")
            assert (
                "not a play" in err["message"] or "does not beat" in err["message"] or "cannot lead" in err["message"]
            )
            assert err["seq"] == conn.seq and table.game.to_json() == record
        conn.ws.send_text(json.dumps({"type": "hint", "seq": conn.seq}))  # the same seq again
        assert "already used" in conn.until(lambda m: m["type"] == "error")["message"]
        assert singles is not None
        conn.close()


def test_acting_out_of_turn_is_refused():
    client, table = make_client(["human", "human", "heuristic", "heuristic"])
    with client:
        a, b = Conn(client, table, 0), Conn(client, table, 1)
        # (the bots may still be playing: wait for a person's turn)
        state = a.until(lambda m: m["type"] == "state" and m["to_act"] in (0, 1))
        waiting = b if state["to_act"] == 0 else a
        waiting.send("pass")
        err = waiting.until(lambda m: m["type"] == "error")
        assert "turn, not yours" in err["message"]
        a.close()
        b.close()


def test_a_wrong_token_or_a_foreign_origin_is_refused_at_the_handshake():
    client, table = make_client(["human", "heuristic", "heuristic", "heuristic"])
    with client:
        with pytest.raises(WebSocketDisconnect):
            with client.websocket_connect("/ws?table=t1&token=not-a-token") as ws:
                ws.receive_json()
        with pytest.raises(WebSocketDisconnect):
            headers = {"origin": "http://evil.example"}
            with client.websocket_connect(f"/ws?table=t1&token={table.state[0].token}", headers=headers) as ws:
                ws.receive_json()
        ok = Conn(client, table, 0, origin="http://testserver")  # the page's own origin is fine
        assert ok.until(lambda m: m["type"] == "state")["seat"] == 0
        ok.close()


def test_auto_play_takes_the_seat_and_gives_it_back():
    # Seat 1 is a person who does not act, so the deal waits there with seat 0 under 托管.
    client, table = make_client(["human", "human", "heuristic", "heuristic"])
    with client:
        conn, other = Conn(client, table, 0), Conn(client, table, 1)
        conn.until(lambda m: m["type"] == "state")
        conn.send("auto", on=True)
        v = conn.until(lambda m: m["type"] == "state" and m["auto"][0])
        assert v["auto"] == [True, False, False, False]
        conn.until(lambda m: m["type"] == "state" and m["to_act"] == 1)
        conn.send("hint")
        assert "托管" in conn.until(lambda m: m["type"] == "error")["message"]  # every button but 托管 is off
        conn.send("auto", on=False)
        assert conn.until(lambda m: m["type"] == "state" and not m["auto"][0])["auto"][0] is False
        assert not table.state[0].auto and table.game.current_player() == 1 and other.open


def test_three_timeouts_put_the_seat_under_auto_play(monkeypatch):
    monkeypatch.setattr(play_server, "TICK_SECONDS", 0.02)
    client, table = make_client(["human", "heuristic", "heuristic", "heuristic"], turn_seconds=0.05)
    with client:
        conn = Conn(client, table, 0)
        v = conn.until(lambda m: m["type"] == "state" and (m["auto"][0] or m["phase"] == "over"), limit=2000)
        assert v["phase"] == "over" or (v["auto"][0] and v["strikes"][0] == 3)
        conn.close()


def test_a_disconnect_puts_the_seat_under_auto_play_and_a_reconnect_takes_it_back():
    client, table = make_client(["human", "human", "heuristic", "heuristic"])
    with client:
        a, b = Conn(client, table, 0), Conn(client, table, 1)
        a.until(lambda m: m["type"] == "state")
        b.close()
        v = a.until(lambda m: m["type"] == "state" and (m["auto"][1] or m["phase"] == "over"))
        assert v["auto"][1] or v["phase"] == "over"
        if v["phase"] != "over":
            b = Conn(client, table, 1)
            back = b.until(lambda m: m["type"] == "state")
            assert back["auto"][1] is False and back["seat"] == 1
            b.close()
        a.close()


def test_the_page_and_its_files_are_served():
    client, _ = make_client(["human", "heuristic", "heuristic", "heuristic"])
    with client:
        page = client.get("/")
        assert page.status_code == 200 and "table.js" in page.text
        assert client.get("/static/table.js").status_code == 200
        assert client.get("/static/../server.py").status_code == 404


def test_a_match_goes_on_to_the_next_deal_when_started():
    client, table = make_client(["human", "greedy", "greedy", "greedy"], deals=2, match=True)
    with client:
        conn = Conn(client, table, 0)
        play_by_hints(conn)
        assert conn.last["totals"] is not None
        conn.send("start")
        v = conn.until(lambda m: m["type"] == "state" and m["deal"] == 2)
        assert v["phase"] == "playing" and "settlement" not in v
        conn.close()


def test_the_play_command_serves_a_table_on_loopback(tmp_path):
    # The real server (uvicorn): the command prints each seat's link, a WebSocket client
    # joins with it and gets its seat's state; a bad origin is refused.
    import os
    import subprocess
    import sys
    from urllib.parse import parse_qs, urlsplit

    from websockets.sync.client import connect

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    cmd = [sys.executable, "-m", "shuangkou", "play", "--no-browser", "--seats", "human,greedy,human,greedy",
           "--out", str(tmp_path / "out"), "--turn-seconds", "0"]  # fmt: skip
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        lines = [p.stdout.readline().strip() for _ in range(4)]
        assert [ln.split(":")[0] for ln in lines] == ["seat 0", "seat 1", "seat 2", "seat 3"], lines
        assert lines[1].endswith("greedy") and lines[3].endswith("greedy")
        link = urlsplit(lines[2].split(": ", 1)[1])
        assert link.hostname == "127.0.0.1" and parse_qs(link.query)["seat"] == ["2"]
        with connect(f"ws://{link.netloc}/ws?{link.query}") as ws:
            state = json.loads(ws.recv(timeout=30))
            assert state["type"] == "state" and state["seat"] == 2 and len(state["hand"]) == 27
            ws.send(json.dumps({"type": "hint", "seq": 1}))
            while (msg := json.loads(ws.recv(timeout=30)))["type"] == "state":
                pass
            assert msg["type"] in ("hint", "error")
        with pytest.raises(Exception):  # noqa: B017 - the handshake is refused (a 403 from another origin)
            with connect(f"ws://{link.netloc}/ws?{link.query}", origin="http://evil.example") as ws:
                ws.recv(timeout=5)
    finally:
        p.terminate()
        p.wait(timeout=30)


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--seats", "human,greedy"], "four entries"),
        (["--seats", "greedy,greedy,greedy,greedy"], "at least one seat is 'human'"),
        (["--seats", "human,nobody,greedy,greedy"], "unknown agent 'nobody'"),
        (["--deals", "0"], "deals: an integer >= 1"),
        (["--turn-seconds", "-1"], "--turn-seconds"),
        (["--ready-seconds", "0"], "--ready-seconds"),
        (["--turn-seconds", "inf"], "--turn-seconds: a finite number"),
        (["--turn-seconds", "1e309"], "--turn-seconds: a finite number"),
        (["--turn-seconds", "nan"], "--turn-seconds: a finite number"),
        (["--ready-seconds", "inf"], "--ready-seconds: a finite number"),
        (["--ready-seconds", "nan"], "--ready-seconds: a finite number"),
        (["--port", "70000"], "--port"),
        (["--variant", "nope"], "unknown variant preset"),
    ],
)
def test_bad_play_arguments_are_one_line_errors(args, needle):
    from cli_util import assert_cli_error, run_cli

    p = run_cli("play", "--no-browser", *args)
    assert_cli_error(p, needle)


def test_the_cli_works_without_the_web_stack_and_play_names_what_is_missing():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['starlette'] = sys.modules['uvicorn'] = None\n"
        "from shuangkou.cli import main\n"
        "sys.argv = ['shuangkou', 'play', '--no-browser']\n"
        "sys.exit(main())"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "scripts/setup.sh --play" in p.stderr and "Traceback" not in p.stderr, p.stderr
    p = subprocess.run([sys.executable, "-m", "shuangkou", "--version"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0


def test_the_advisor_names_its_play_and_a_q_networks_best_values():
    client, table = make_client(["human", "greedy", "greedy", "greedy"], advisor="dmc")
    with client:
        conn = Conn(client, table, 0)
        state = conn.my_turn()
        assert state["advisor"] == "dmc"
        conn.send("advise")
        advice = conn.until(lambda m: m["type"] in ("advice", "error"))
        assert advice["type"] == "advice" and advice["agent"] == "dmc"
        legal = {tuple(p.cards.split()) for p in table.game.legal_moves()} | {()}
        assert tuple(sorted(advice["cards"])) in {tuple(sorted(c)) for c in legal}
        values = advice["values"]
        assert 1 <= len(values) <= 5 and [v["q"] for v in values] == sorted((v["q"] for v in values), reverse=True)
        assert sorted(values[0]["cards"]) == sorted(advice["cards"])  # (dmc plays its best value)
        q = sk.Bot("dmc").values(table.game)
        assert values[0]["q"] == pytest.approx(max(q.values()), abs=1e-4)
        conn.close()


def test_a_table_refuses_the_built_in_dmc_where_no_network_is_shipped_for_its_rules():
    for where in ({"advisor": "dmc"}, {"helper": "dmc+search"}, {"seats": ["human", "dmc", "greedy", "greedy"]}):
        args = {"seats": ["human", "greedy", "greedy", "greedy"], **where}
        with without_network("qianbian_collect"), pytest.raises(ValueError, match="no network is shipped for the"):
            Table(sk.Rules("qianbian_collect"), turn_seconds=None, **args)


def test_the_table_plays_one_move_at_a_time_whatever_the_threads_that_call_it():
    # The server calls the table from worker threads, and a worker goes on after the
    # request that started it is cancelled (a page closing): a second worker must then
    # wait, not compute a move for a position the first is about to change.
    import threading
    import time

    import numpy as np

    def slow_lowest_legal(obs, mask, seats):
        time.sleep(0.002)
        return np.argmax(mask, axis=1)

    table = Table(sk.Rules("baibian"), ["human"] + [slow_lowest_legal] * 3, seed=4, turn_seconds=None)
    table.set_away(0, True)  # (the helper plays seat 0: agents play the whole deal)
    errors = []

    def advance():
        try:
            table.advance()
        except Exception as e:  # noqa: BLE001 - collected for the assertion
            errors.append(e)

    threads = [threading.Thread(target=advance) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and table.game.is_over()
    record = table.game.to_json()
    assert sk.Game.from_json(record).to_json() == record  # (a deal of legal moves, one at a time)


def test_an_advisor_without_values_and_a_table_without_advisor():
    client, table = make_client(["human", "greedy", "greedy", "greedy"], advisor="heuristic")
    with client:
        conn = Conn(client, table, 0)
        conn.my_turn()
        conn.send("advise")
        advice = conn.until(lambda m: m["type"] == "advice")
        assert advice["agent"] == "heuristic" and advice["values"] is None
        assert advice["cards"] or advice["kind"] == "pass"
        conn.close()
    client, table = make_client(["human", "greedy", "greedy", "greedy"])
    with client:
        conn = Conn(client, table, 0)
        assert conn.my_turn()["advisor"] is None
        conn.send("advise")
        err = conn.until(lambda m: m["type"] == "error")
        assert "no advisor" in err["message"] and "建议" in err["message_zh"]
        conn.close()


def test_errors_come_in_english_and_chinese():
    client, table = make_client(["human", "greedy", "greedy", "greedy"])
    with client:
        conn = Conn(client, table, 0)
        conn.my_turn()
        conn.ws.send_text("{not json")
        err = conn.until(lambda m: m["type"] == "error")
        assert err["message"] == "message is not JSON" and err["message_zh"] == "消息不是 JSON"
        low, high = table.game.hand(0).split()[0], table.game.hand(0).split()[-1]
        conn.send("play", cards=[low, high])
        err = conn.until(lambda m: m["type"] == "error")
        assert "play:" in err["message"] and "牌" in err["message_zh"]
        conn.close()


def test_leaving_puts_the_seat_under_auto_play_until_the_person_comes_back():
    client, table = make_client(["human", "human", "greedy", "greedy"])
    with client:
        a, b = Conn(client, table, 0), Conn(client, table, 1)
        a.until(lambda m: m["type"] == "state")
        a.send("leave")
        v = b.until(lambda m: m["type"] == "state" and m["auto"][0])
        assert table.state[0].away and v["auto"][0]
        a.close()
        if not table.game.is_over():
            a = Conn(client, table, 0)
            back = a.until(lambda m: m["type"] == "state")
            assert back["auto"][0] is False and not table.state[0].away
            a.close()
        b.close()


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def two_people(connected=(0, 1), **table_args):
    """A table of two people (seats 0 and 1, those in `connected` with their page open)
    and two greedy bots, on a clock the test moves."""
    clock = Clock()
    table = Table(sk.Rules("baibian"), ["human", "human", "greedy", "greedy"], clock=clock, **table_args)
    for s in connected:
        table.state[s].connected = 1
    return table, clock


def finish_deal(table, people=(0, 1)):
    """The people under 托管: the helper plays the deal to its end."""
    for s in people:
        table.handle(s, {"type": "auto", "on": True})
    table.advance()
    assert table.game.is_over()


def test_the_next_deal_starts_once_everyone_at_the_table_pressed_start():
    table, clock = two_people(deals=3, turn_seconds=None)
    finish_deal(table)
    v = table.view(0)
    assert v["ready"] == [False, False, True, True] and v["more_deals"] and v["ready_deadline"] == 30.0
    assert v["auto"][:2] == [False, False]  # (托管 chosen by a person ends with the deal)
    table.handle(0, {"type": "start"})
    assert table.game.is_over() and table.deal_index == 0  # seat 1 is not ready yet
    clock.now = 29.0
    assert not table.tick()
    table.handle(1, {"type": "start"})
    assert not table.game.is_over() and table.deal_index == 1
    assert table.view(0)["ready_deadline"] is None


def test_a_person_who_does_not_press_start_in_time_sits_out_until_they_do():
    table, clock = two_people(deals=2, turn_seconds=None)
    finish_deal(table)
    table.handle(0, {"type": "start"})
    clock.now = 30.5
    assert table.tick()  # seat 1 sits out; the table starts without waiting for it
    assert table.deal_index == 1 and not table.game.is_over()
    st = table.state[1]
    assert st.waiting and st.auto and st.away and table.view(0)["waiting"] == [False, True, False, False]
    table.handle(1, {"type": "start"})  # back: the seat is theirs again
    assert not st.waiting and not st.auto and not st.away
    finish_deal(table)
    assert not table.more_deals() and table.view(0)["more_deals"] is False
    with pytest.raises(TableError, match="every deal has been played") as e:
        table.handle(0, {"type": "start"})
    assert e.value.zh == "所有牌局都已打完"


def test_a_disconnected_person_does_not_hold_up_the_next_deal_and_stays_under_auto_play():
    table, _ = two_people(connected=[0], deals=2, turn_seconds=None)
    table.set_away(1, True)  # seat 1's page closed
    finish_deal(table, people=[0])
    table.handle(0, {"type": "start"})
    assert table.deal_index == 1 and table.state[1].auto and table.state[1].away
    table.set_away(1, False)  # seat 1 comes back during the deal
    assert not table.state[1].auto


def test_an_empty_human_seat_is_filled_by_the_helper_at_its_first_timeout():
    table, clock = two_people(connected=[0], turn_seconds=5.0)  # seat 1's link is never opened
    for _ in range(200):
        table.advance()
        if table.game.is_over() or table.game.current_player() == 1:
            break
        table.handle(0, {"type": "auto", "on": True})  # (seat 0 lets the helper play)
        table.advance()
        table.handle(0, {"type": "auto", "on": False})
    assert table.game.current_player() == 1
    clock.now += 5.0
    assert table.tick()
    st = table.state[1]
    assert st.auto and st.away and st.strikes == 1
    table.set_away(1, False)  # someone opens the link: the seat is theirs
    assert not st.auto


def test_past_the_server_wide_cap_a_connection_is_closed_naming_why(monkeypatch):
    monkeypatch.setattr(play_server, "MAX_CONNECTIONS", 2)
    client, table = make_client(["human", "human", "human", "heuristic"])
    with client:
        a, b = Conn(client, table, 0), Conn(client, table, 1)
        assert a.until(lambda m: m["type"] == "state")["seat"] == 0
        with pytest.raises(WebSocketDisconnect) as refused:
            with client.websocket_connect(f"/ws?table=t1&token={table.state[2].token}") as ws:
                ws.receive_json()
        assert refused.value.code == play_server.CLOSE_FULL and "most connections (2)" in refused.value.reason
        assert table.state[2].connected == 0 and not table.state[2].away
        b.close()
        c = Conn(client, table, 2)  # a place came free
        assert c.until(lambda m: m["type"] == "state")["seat"] == 2
        a.close()
        c.close()


@pytest.mark.parametrize(
    "header, host, port, ok",
    [
        ("127.0.0.1:8000", "127.0.0.1", 8000, True),
        ("localhost:8000", "127.0.0.1", 8000, True),
        ("[::1]:8000", "127.0.0.1", 8000, True),
        ("LOCALHOST:8000", "127.0.0.1", 8000, True),
        ("table.lan:8000", "table.lan", 8000, True),
        ("127.0.0.1:8001", "127.0.0.1", 8000, False),
        ("127.0.0.1", "127.0.0.1", 8000, False),
        ("127.0.0.1", "127.0.0.1", 80, True),
        ("evil.example:8000", "127.0.0.1", 8000, False),
        ("localhost.evil.example:8000", "127.0.0.1", 8000, False),
        ("evil.example@127.0.0.1:8000", "127.0.0.1", 8000, False),
        ("", "127.0.0.1", 8000, False),
        ("192.168.1.20:8000", "127.0.0.1", 8000, False),
        ("192.168.1.20:8000", "0.0.0.0", 8000, True),  # a wildcard address: the machine's own addresses
        ("[fe80::1]:8000", "::", 8000, True),
        ("rebound.example:8000", "0.0.0.0", 8000, False),
    ],
)
def test_the_host_header_must_name_this_server(header, host, port, ok):
    assert play_server.host_allowed(header, host, port) is ok


def test_an_advisor_that_raises_is_named_and_the_table_goes_on():
    def broken_advisor(obs, mask, seats):
        raise RuntimeError("the advisor broke")

    client, table = make_client(["human", "heuristic", "heuristic", "heuristic"], advisor=broken_advisor)
    with client:
        conn = Conn(client, table, 0)
        conn.my_turn()
        record = table.game.to_json()
        conn.send("advise")
        err = conn.until(lambda m: m["type"] == "error")
        assert "advise: the advisor failed" in err["message"] and "the advisor broke" in err["message"], err
        assert table.game.to_json() == record and not table.state[0].auto
        conn.send("hint")  # the connection stays usable
        assert conn.until(lambda m: m["type"] == "hint")["count"] >= 1
        conn.close()


def test_a_seat_s_agent_and_then_the_helper_failing_fall_back_to_the_built_in_bot(capsys):
    def broken(obs, mask, seats):
        raise RuntimeError("broken on purpose")

    table = Table(
        sk.Rules("baibian"), ["human", broken, "heuristic", "heuristic"], seed=4, helper=broken, turn_seconds=None
    )
    table.handle(0, {"type": "auto", "on": True})  # the helper (broken too) plays seat 0
    assert table.advance() and table.game.is_over()
    notices = sorted(n["message"].split(" failed")[0] for n in table.take_notices())
    assert notices == ["seat 1's agent broken", "the helper broken"], notices
    assert table.take_notices() == []  # (each is given once)
    assert table.state[1].label == "broken → heuristic" and table.state[1].failed
    err = capsys.readouterr().err
    assert err.count("RuntimeError: broken on purpose") >= 2 and "Traceback" in err


def _table_at(hands, leader, moves):
    """A table whose deal is set: these hands, `leader` leads, then `moves`."""
    table = Table(sk.Rules("baibian"), ["human", "greedy", "greedy", "greedy"], seed=1, turn_seconds=None)
    table._game = sk.Game("baibian", hands=hands, leader=leader)  # (no match: the table plays this deal)
    for m in moves:
        table._game.apply(m)
    return table


def test_the_hint_says_pass_where_nothing_beats_the_trick_or_the_partner_holds_it():
    hands = ["3 4 5 K K", "6 7 8 9", "9 T J A", "2 Q Q Q"]
    # An opponent (seat 3) led a 2 and seat 0 holds nothing above it: the hint is 不出.
    nothing = _table_at(hands, 3, ["2"])
    assert nothing.game.current_player() == 0
    assert nothing._hint(0) == {"type": "hint", "cards": [], "index": 0, "count": 1, "pass": True, "why": "nothing"}
    # The partner (seat 2) holds the trick: 不出 first, then the plays, weakest first.
    partner = _table_at(hands, 2, ["9", None])  # seat 2 leads a 9, seat 3 passes
    assert partner.game.current_player() == 0 and partner.game.top_owner() == 2
    first, second = partner._hint(0), partner._hint(0)
    assert first["pass"] and first["why"] == "partner" and first["count"] == 2
    assert second["cards"] == ["K"] and not second.get("pass")
    # An opponent's trick that seat 0 can beat: the weakest play first, no pass.
    beatable = _table_at(hands, 3, ["Q"])
    hint = beatable._hint(0)
    assert hint["cards"] == ["K"] and "pass" not in hint
