"""The web table's server (`shuangkou play`, `shuangkou replay`) when something fails:
pages that open too many connections or stop reading, malformed frames, foreign Host
headers, half-sent requests, agents and helpers that raise, a record file that cannot be
written, a port in use (docs/play.md, "When something fails"). Each test runs the real
command in a subprocess, served by uvicorn on 127.0.0.1, and talks to it over loopback;
every wait is bounded in time and count."""

from __future__ import annotations

import base64
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")
websockets = pytest.importorskip("websockets")

from cli_util import assert_cli_error, cli_command, run_cli  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

START_SECONDS = 60  # longest wait for the server to print its links
FAULTY_AGENTS = """
import numpy as np

def boom(obs, mask, seats):
    raise RuntimeError("boom from the test agent")
"""


class PlayServer:
    """`shuangkou play ARGS` on 127.0.0.1 (a free port), its stderr in a file; stopped
    (terminated, then killed) on exit."""

    def __init__(self, tmp_path: Path, *args: str, command: str = "play") -> None:
        (tmp_path / "faulty.py").write_text(FAULTY_AGENTS, encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
        self.log_path = tmp_path / f"server-{time.monotonic_ns()}.log"
        self.log = open(self.log_path, "w+", encoding="utf-8")  # noqa: SIM115 - closed in stop()
        cmd = [*cli_command(), command, "--no-browser", *args]
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.log, text=True, env=env)
        self.lines: list[str] = []
        reader = threading.Thread(target=lambda: self.lines.extend(self.p.stdout), daemon=True)
        reader.start()
        want = 1 if command == "replay" else 4
        deadline = time.monotonic() + START_SECONDS
        while len(self.lines) < want and time.monotonic() < deadline and self.p.poll() is None:
            time.sleep(0.05)
        if len(self.lines) < want:
            self.stop()
            raise AssertionError(f"the server did not start: {self.lines} {self.stderr()[-3000:]}")
        self.links = [urlsplit(line.strip().split(": ", 1)[1]) for line in self.lines[:want]]
        self.port = self.links[0].port

    def ws_url(self, seat: int) -> str:
        return f"ws://127.0.0.1:{self.port}/ws?{self.links[seat].query}"

    def stderr(self) -> str:
        if not self.log.closed:
            self.log.flush()
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait(timeout=15)
        self.log.close()

    def __enter__(self) -> PlayServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Page:
    """One page's socket: sends with a growing seq; reads until a condition holds (at most
    `limit` messages and `seconds`)."""

    def __init__(self, url: str, **kwargs) -> None:
        self._connection = connect(url, **kwargs)
        self.ws = self._connection.__enter__()
        self.seq = 0
        self.seen: list[dict] = []

    def send(self, kind: str, **fields) -> None:
        self.seq += 1
        self.ws.send(json.dumps({"type": kind, "seq": self.seq, **fields}))

    def until(self, pred, seconds: float = 30, limit: int = 5000) -> dict:
        deadline = time.monotonic() + seconds
        for _ in range(limit):
            msg = json.loads(self.ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            self.seen.append(msg)
            if pred(msg):
                return msg
        raise AssertionError(f"condition not reached in {limit} messages")

    def state(self, pred=lambda m: True, seconds: float = 30) -> dict:
        return self.until(lambda m: m["type"] == "state" and pred(m), seconds)

    def close(self) -> None:
        self._connection.__exit__(None, None, None)


def raw_upgrade(port: int, query: str, rcvbuf: int | None = None, host: str | None = None):
    """A WebSocket handshake on a plain socket (no permessage-deflate), reading only the
    status of the answer: with 101, the page that then stops reading. Returns the socket
    and the status."""
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(
        f"GET /ws?{query} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    status = s.recv(12)
    assert status.startswith(b"HTTP/1.1 "), status
    return s, int(status[9:12])


def closed_within(s: socket.socket, seconds: float) -> bool:
    """Whether the server ends the socket within `seconds` (reading what it still sends)."""
    deadline = time.monotonic() + seconds
    s.settimeout(0.5)
    while time.monotonic() < deadline:
        try:
            if not s.recv(1 << 16):
                return True
        except socket.timeout:
            continue
        except OSError:  # (reset: the server aborted it)
            return True
    return False


def test_a_seat_holds_at_most_four_connections_and_never_locks_out_another(tmp_path):
    # Before: one pool of 256 for the server, which one seat's token could fill.
    with PlayServer(tmp_path, "--seats", "human,greedy,human,greedy", "--turn-seconds", "0") as server:
        pages = [Page(server.ws_url(0)) for _ in range(4)]
        for page in pages:
            assert page.state()["seat"] == 0
        with connect(server.ws_url(0)) as fifth, pytest.raises(ConnectionClosed) as refused:
            fifth.recv(timeout=10)  # (no state: closed at once, naming why)
        assert refused.value.rcvd.code == 4429 and "4 open connections" in refused.value.rcvd.reason
        other = Page(server.ws_url(2))
        assert other.state()["seat"] == 2  # another seat still joins
        pages.pop().close()
        again = Page(server.ws_url(0))  # a closed page frees its place
        assert again.state()["seat"] == 0
        for page in [*pages, other, again]:
            page.close()


def test_malformed_frames_get_an_error_and_change_nothing(tmp_path):
    # Before: a binary frame or JSON nested 1,900 deep dropped the socket (the seat then
    # went under 托管), and 'A A', '' and ' ' were taken as cards.
    with PlayServer(tmp_path, "--seats", "human,greedy,greedy,greedy", "--turn-seconds", "0") as server:
        page = Page(server.ws_url(0))
        before = page.state(lambda m: m["your_turn"])
        cases = [
            (b"\x00\x01binary", "binary frame"),
            ("[" * 1900 + "]" * 1900, "nested over"),
            ('{"type": "hint", "seq": 1, "x": ' + "[" * 1900 + "]" * 1900 + "}", "nested over"),
        ]
        for frame, needle in cases:
            page.ws.send(frame)
            err = page.until(lambda m: m["type"] != "state")
            assert err["type"] == "error" and needle in err["message"], err
        for cards in (["A A"], [""], [" "], [before["hand"][0], "A A"]):
            page.send("play", cards=cards)
            err = page.until(lambda m: m["type"] != "state")
            assert err["type"] == "error" and "one card each" in err["message"], (cards, err)
        page.send("hint")  # the connection stays usable
        assert page.until(lambda m: m["type"] != "state")["type"] == "hint"
        page.send("auto", on=False)  # (changes nothing: a fresh state to compare)
        after = page.state()
        assert not after["auto"][0] and after["hand"] == before["hand"] and after["history"] == before["history"]
        page.close()
    assert "Traceback" not in server.stderr()


def test_a_non_ascii_token_and_a_foreign_host_are_refused(tmp_path):
    # Before: a non-ASCII token gave HTTP 500 (compare_digest's TypeError), and any Host
    # was served (a page elsewhere could read every hand through DNS rebinding).
    with PlayServer(tmp_path, "--seats", "human,greedy,greedy,greedy", "--turn-seconds", "0") as server:
        with (
            pytest.raises(InvalidStatus) as bad_token,
            connect(f"ws://127.0.0.1:{server.port}/ws?table=t1&token=%C3%BC%E2%9C%93"),
        ):
            pass
        assert bad_token.value.response.status_code == 403
        for host, status in [
            (f"127.0.0.1:{server.port}", 200),
            (f"localhost:{server.port}", 200),
            (f"[::1]:{server.port}", 200),
            (f"evil.example:{server.port}", 403),
            (f"127.0.0.1.evil.example:{server.port}", 403),
            ("127.0.0.1:1", 403),
            (f"evil.example@127.0.0.1:{server.port}", 403),
        ]:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            conn.request("GET", "/", headers={"Host": host})
            assert conn.getresponse().status == status, host
            conn.close()
        for host, status in [(f"localhost:{server.port}", 101), (f"evil.example:{server.port}", 403)]:
            s, answer = raw_upgrade(server.port, server.links[0].query, host=host)
            assert answer == status, host
            s.close()
    assert "Traceback" not in server.stderr()


def test_the_viewer_refuses_a_foreign_host(tmp_path):
    import shuangkou as sk

    path = tmp_path / "replays.jsonl.gz"
    sk.arena("baibian", ["heuristic", "greedy"], deals=2, threads=1, seed=3, replays=1, replay_path=path)
    with PlayServer(tmp_path, str(path), command="replay") as server:
        for host, status in [(f"127.0.0.1:{server.port}", 200), (f"rebound.example:{server.port}", 403)]:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            conn.request("GET", "/replay/index", headers={"Host": host})
            assert conn.getresponse().status == status, host
            conn.close()


def test_requests_that_never_finish_their_headers_are_closed(tmp_path):
    # Before: 300 half-sent requests were all still held after 7 s (uvicorn has no
    # timeout for request headers).
    with PlayServer(tmp_path, "--seats", "human,greedy,greedy,greedy", "--turn-seconds", "0") as server:
        socks = []
        for _ in range(50):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            s.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nX-Slow: ".encode())
            socks.append(s)
        t0 = time.monotonic()
        assert all(closed_within(s, 12 - (time.monotonic() - t0)) for s in socks)
        assert time.monotonic() - t0 < 12
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)  # a whole request is served
        conn.request("GET", "/health")
        assert conn.getresponse().read() == b"ok"
        for s in socks:
            s.close()


def test_a_page_that_stops_reading_is_dropped_and_the_table_goes_on(tmp_path):
    # Before: the broadcast waited on the stalled socket while holding the table's lock:
    # after about 2,000 messages every other seat got no answer for ~40 s.
    with PlayServer(tmp_path, "--seats", "human,greedy,human,greedy", "--turn-seconds", "0") as server:
        stalled, status = raw_upgrade(server.port, server.links[0].query, rcvbuf=2048)
        assert status == 101
        page = Page(server.ws_url(2))
        page.state()
        latencies = []
        t0 = time.monotonic()
        for _ in range(80):  # 80 bursts of 50 messages, each answered by a state to every seat
            sent = []
            for _ in range(50):
                page.send("auto", on=False)
                sent.append(time.monotonic())
            for at in sent:
                page.state(seconds=10)
                latencies.append(time.monotonic() - at)
            if "dropped a connection" in server.stderr() and len(latencies) >= 1000:
                break
            assert time.monotonic() - t0 < 120
        latencies.sort()
        assert latencies[int(0.99 * len(latencies))] < 2.0, latencies[-10:]
        log = server.stderr()
        assert "seat 0: dropped a connection that does not read" in log, log[-2000:]
        assert closed_within(stalled, 10)
        page.send("hint")  # the table still answers
        assert page.until(lambda m: m["type"] in ("hint", "error"))
        page.close()


def test_a_seat_agent_that_raises_is_replaced_by_the_helper_and_the_deal_ends(tmp_path):
    # Before: the exception escaped the message loop, dropped the person's connection and
    # left the deal stuck at the agent's turn.
    with PlayServer(tmp_path, "--seats", "human,faulty:boom,greedy,greedy", "--turn-seconds", "0") as server:
        page = Page(server.ws_url(0))
        page.state()
        page.send("auto", on=True)  # the helper plays seat 0 too: the deal runs to its end
        final = page.state(lambda m: m["phase"] == "over")
        notices = [m for m in page.seen if m["type"] == "notice"]
        assert len(notices) == 1, notices
        assert "faulty:boom failed" in notices[0]["message"] and "boom from the test agent" in notices[0]["message"]
        assert notices[0]["message_zh"]
        assert final["names"][1] == "faulty:boom → heuristic" and sorted(final["settlement"]["places"]) == [0, 1, 2, 3]
        page.send("pass")  # the connection is still open
        assert "the deal is over" in page.until(lambda m: m["type"] == "error")["message"]
        page.close()
    log = server.stderr()
    assert "play: seat 1's agent faulty:boom failed" in log and "RuntimeError: boom from the test agent" in log


def test_a_helper_that_raises_does_not_stop_the_turn_timers(tmp_path):
    # Before: the helper's exception ended the timer task for good: one strike, then the
    # seat's turn never timed out again (and no other table's either).
    args = ["--seats", "human,greedy,greedy,greedy", "--helper", "faulty:boom", "--turn-seconds", "0.3"]
    with PlayServer(tmp_path, *args) as server:
        page = Page(server.ws_url(0))
        third = page.state(lambda m: m["strikes"][0] >= 3 or m["phase"] == "over", seconds=60)
        assert third["strikes"][0] == 3 and third["auto"][0], third["strikes"]  # the third strike: 托管
        final = page.state(lambda m: m["phase"] == "over", seconds=60)  # the fallback helper plays on
        assert sorted(final["settlement"]["places"]) == [0, 1, 2, 3]
        notices = [m for m in page.seen if m["type"] == "notice"]
        assert len(notices) == 1 and "the helper faulty:boom failed" in notices[0]["message"], notices
        page.close()
    assert "play: the helper faulty:boom failed" in server.stderr()


def test_a_deal_record_that_cannot_be_written_is_kept_and_written_at_the_next_deal_end(tmp_path):
    # Before: the write's OSError dropped the person's connection and the record was lost.
    out = tmp_path / "out"
    args = ["--seats", "human,greedy,greedy,greedy", "--turn-seconds", "0", "--deals", "2", "--out", str(out)]
    with PlayServer(tmp_path, *args) as server:
        (out / "deals.jsonl").mkdir()  # (open(..., "a") fails on a folder, also for root)
        page = Page(server.ws_url(0))
        page.state()
        page.send("auto", on=True)
        first = page.state(lambda m: m["phase"] == "over")
        notices = [m for m in page.seen if m["type"] == "notice"]
        assert len(notices) == 1 and "1 deal record kept in memory" in notices[0]["message"], notices
        assert "deals.jsonl" in notices[0]["message"] and "1 deal record kept" in server.stderr()
        (out / "deals.jsonl").rmdir()
        page.send("start")
        page.state(lambda m: m["phase"] == "playing" and m["deal"] == 2)
        page.send("auto", on=True)
        page.state(lambda m: m["phase"] == "over" and m["deal"] == 2)
        lines = (out / "deals.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(lines) == 2 and len([m for m in page.seen if m["type"] == "notice"]) == 1
        import shuangkou as sk

        records = [json.loads(line) for line in lines]
        assert records[0]["agents"] == first["names"]
        assert [sk.Game.from_json(line).is_over() for line in lines] == [True, True]
        page.close()
    assert "Traceback" not in server.stderr()


def test_records_still_waiting_at_shutdown_are_one_error_line_and_exit_status_1(tmp_path):
    out = tmp_path / "out"
    args = ["--seats", "human,greedy,greedy,greedy", "--turn-seconds", "0", "--out", str(out)]
    with PlayServer(tmp_path, *args) as server:
        (out / "deals.jsonl").mkdir()
        page = Page(server.ws_url(0))
        page.state()
        page.send("auto", on=True)
        page.state(lambda m: m["phase"] == "over")
        page.close()
        server.p.send_signal(signal.SIGINT)  # (how the server is stopped)
        assert server.p.wait(timeout=30) == 1
        lines = [line for line in server.stderr().splitlines() if line.strip()]
        assert (
            lines[-1].startswith("error: cannot write") and "1 deal record not written: the server stopped" in lines[-1]
        ), lines
        assert "Traceback" not in server.stderr()


def test_a_port_in_use_is_one_error_line(tmp_path):
    # Before: two tracebacks and exit status 3.
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        p = run_cli("play", "--no-browser", "--port", str(port))
        err = assert_cli_error(p, f"--port {port}", "Address already in use")
        assert p.returncode == 2, err
