"""A bounded load test of `shuangkou play` over loopback.

    python bench/play_load.py --tables 100 --seconds 60 --bots heuristic --variant baibian \\
        --seed 0 --out experiments/play_load.json
    python bench/play_load.py --tables 20 --seconds 60 --stalled 5 --out experiments/play_load_stalled.json

It starts the real server (uvicorn serving `make_app(room)`) in a separate process, bound
to 127.0.0.1 on a free port, with TABLES tables of one human seat (seat 0) and three bots.
Table i is dealt from SEED + 1,000,000 * i (deal j of it from that + j), so no two tables
share a deal. An asyncio client (the `websockets` package) then opens one connection per
table and plays the human seat by script for SECONDS: on its turn it asks `hint` and plays
the hinted cards (reading 0 where the server asks which reading), passing where nothing
beats; at the end of a deal it sends `start` and waits for the next deal to be playing.

It measures, for every human play or pass, the time from sending it to the first `state`
where it is that seat's turn again or the deal is over ("play -> next human turn": the
server applies the move, the three bots play in a worker thread, the view comes back),
and the hint round trip. It reports their p50/p90/p99/max, the human decisions and the
deals finished, the server's memory (VmHWM and VmRSS from /proc, sampled every second),
its CPU time, the lag of its event loop, where its time went (Table.handle, Table.advance,
the bots' moves, Table.view, Room.broadcast), and every error: an `error` message, an
exception, a disconnect, a timeout, an exception the server logged. The report is
written as JSON to OUT (a temporary file, then renamed); experiments/play_load.md reads it.

With --stalled K, the human seat of each of the first K tables also has a second page
open (its link opened twice) that completes the WebSocket handshake, without
permessage-deflate and with a 4 KiB receive buffer, and then never reads. The report
gives the play -> next human turn latencies of those tables and of the others apart,
when the server was seen to cut each stalled page during the run (a reset), how many it
dropped by its own count, and how many had ended by the end of the run (cut, or closed
by uvicorn's keepalive ping); a stalled page still open then is an error.

Exit status: 0 without errors, 1 with any error, 2 when the server did not start or an
argument is wrong. Without the package installed, run it with PYTHONPATH=python.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import cProfile
import faulthandler
import importlib.util
import inspect
import json
import os
import platform
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

DEALS_PER_TABLE = 10**6  # (a table never runs out of deals within a run)
TABLE_SEED_STRIDE = 10**6  # table i: deals from seed + i * stride
MAX_ERRORS_KEPT = 20  # the texts kept in the report (every error is counted)
MAX_ERRORS_PER_TABLE = 5  # a table's client gives up after this many
PERCENTILES = (50, 90, 99)
TCP_ESTABLISHED = 1  # (Linux's tcpi_state of an open connection)


# ------------------------------------------------------------------------------ the server


def _emit(out: Any, obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj) + "\n")
    out.flush()


def _install_timers(totals: dict[str, list[float]]) -> None:
    """Wraps the table's and room's methods that do the work, adding up calls, seconds
    and the longest call in `totals` (name -> [calls, seconds, max seconds])."""
    from shuangkou.play import server, table

    lock = threading.Lock()

    def add(name: str, seconds: float) -> None:
        with lock:
            t = totals.setdefault(name, [0, 0.0, 0.0])
            t[0] += 1
            t[1] += seconds
            t[2] = max(t[2], seconds)

    def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                add(name, time.perf_counter() - start)

        return wrapper

    def timed_async(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await fn(*args, **kwargs)
            finally:
                add(name, time.perf_counter() - start)

        return wrapper

    for name in ("handle", "advance", "view"):
        setattr(table.Table, name, timed(f"Table.{name}", getattr(table.Table, name)))
    for name in ("agent_step", "agent_action"):  # (the bots' move, as table.py names it; looked up at each call)
        if callable(getattr(table, name, None)):
            setattr(table, name, timed(f"bot move ({name})", getattr(table, name)))
            break
    broadcast = server.Room.broadcast  # (a coroutine up to the outgoing queues; now it only queues)
    wrap = timed_async if inspect.iscoroutinefunction(broadcast) else timed
    server.Room.broadcast = wrap("Room.broadcast", broadcast)


async def _loop_lag(lags: list[float], period: float = 0.01) -> None:
    """How late the event loop wakes a task that sleeps `period` (seconds)."""
    loop = asyncio.get_running_loop()
    while True:
        start = loop.time()
        await asyncio.sleep(period)
        lags.append(loop.time() - start - period)


def serve_child(spec: dict[str, Any]) -> None:
    """The server process: builds the tables, serves them, prints one JSON line with the
    port and the human seats' tokens, then answers `stats` lines on stdin with a JSON line
    of its timers; stdin closing stops it."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # (anything else printed goes to stderr, not into the replies)
    faulthandler.enable(all_threads=True)  # (a crash in the core leaves every thread's stack in the log)
    import shuangkou as sk
    from shuangkou.play.server import Room, make_app, start, uvicorn_server
    from shuangkou.play.table import Table

    totals: dict[str, list[float]] = {}
    _install_timers(totals)
    room = Room()
    tokens = {}
    for i in range(spec["tables"]):
        seed = spec["seed"] + TABLE_SEED_STRIDE * i
        table = Table(
            sk.Rules(spec["variant"]), ["human", *spec["bots"]], seed=seed, deals=DEALS_PER_TABLE, turn_seconds=None
        )
        room.add(f"t{i}", table)
        tokens[f"t{i}"] = table.state[0].token
    server = uvicorn_server(make_app(room), "127.0.0.1", 0)
    lags: list[float] = []

    def stats() -> None:
        figures = {"timers": totals, "loop_lag": summary(lags), "tables": len(room.tables)}
        _emit(out, {"stats": {**figures, "dropped": getattr(room, "dropped", None)}})  # (sockets cut: not reading)

    async def main() -> None:
        task, port = await start(server)
        if port is None:
            await task
            return
        loop = asyncio.get_running_loop()
        lag_task = loop.create_task(_loop_lag(lags))

        def commands() -> None:
            for line in sys.stdin:
                if line.strip() == "stats":
                    loop.call_soon_threadsafe(stats)
            loop.call_soon_threadsafe(setattr, server, "should_exit", True)

        threading.Thread(target=commands, daemon=True).start()
        _emit(out, {"ready": True, "port": port, "tokens": tokens, "pid": os.getpid(), "version": sk.__version__})
        await task
        lag_task.cancel()

    if not spec.get("profile"):
        asyncio.run(main())
        return
    profile = cProfile.Profile()  # (the event loop's thread; the bots' worker threads are not in it)
    profile.enable()
    try:
        asyncio.run(main())
    finally:
        profile.disable()
        profile.dump_stats(spec["profile"])


# ------------------------------------------------------------------------------ measures


def summary(seconds: list[float]) -> dict[str, Any]:
    """Count, p50/p90/p99, mean and max of durations given in seconds, in milliseconds."""
    if not seconds:
        return {"count": 0}
    ordered = sorted(seconds)

    def pct(p: float) -> float:  # (nearest rank: a value that was measured)
        return ordered[min(len(ordered) - 1, max(0, -(-len(ordered) * p // 100) - 1))] * 1000

    out: dict[str, Any] = {"count": len(ordered)}
    out.update({f"p{p}_ms": round(pct(p), 3) for p in PERCENTILES})
    out["mean_ms"] = round(sum(ordered) / len(ordered) * 1000, 3)
    out["max_ms"] = round(ordered[-1] * 1000, 3)
    return out


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS, VmHWM (the peak) and the like of a process, in bytes, from /proc."""
    out = {}
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.startswith("Vm") and value.strip().endswith("kB"):
                out[key] = int(value.split()[0]) * 1024
    return out


def proc_cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process (its threads included), from /proc."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine() -> dict[str, Any]:
    """The machine the run was made on."""
    model = platform.processor() or platform.machine()
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem = None
    with contextlib.suppress(OSError), open("/proc/meminfo", encoding="ascii") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) * 1024
    versions = {}
    for name in ("uvicorn", "starlette", "websockets"):
        with contextlib.suppress(Exception):
            versions[name] = getattr(__import__(name), "__version__", "?")
    return {
        "cores": os.cpu_count(),
        "cpu": model,
        "memory_bytes": mem,
        "loadavg_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": versions,
    }


@dataclass
class Stats:
    """What the clients measured, all tables together."""

    turn: list[float] = field(default_factory=list)  # play/pass -> next human turn (seconds)
    turn_stalled: list[float] = field(default_factory=list)  # the same, tables with a stalled reader
    turn_others: list[float] = field(default_factory=list)  # the same, the other tables
    hint: list[float] = field(default_factory=list)  # hint round trip
    start: list[float] = field(default_factory=list)  # start -> the next deal's first human turn
    decisions: int = 0
    plays: int = 0
    passes: int = 0
    chooses: int = 0
    deals: int = 0
    errors: int = 0
    error_texts: list[str] = field(default_factory=list)

    def error(self, text: str) -> None:
        self.errors += 1
        if len(self.error_texts) < MAX_ERRORS_KEPT:
            self.error_texts.append(text)


# ------------------------------------------------------------------------------ the client


class ClientError(Exception):
    """A table's client cannot go on (the reason is already counted as an error)."""


def _connect(url: str) -> Any:
    try:
        from websockets.asyncio.client import connect
    except ImportError:  # (websockets < 13)
        from websockets import connect  # type: ignore[no-redef]
    kwargs: dict[str, Any] = {"max_size": 1 << 22, "open_timeout": 60}
    if "proxy" in inspect.signature(connect).parameters:
        kwargs["proxy"] = None  # (loopback: never through a proxy from the environment)
    return connect(url, **kwargs)


def _is_state(m: dict[str, Any]) -> bool:
    return m.get("type") == "state"


def _my_turn_or_over(m: dict[str, Any]) -> bool:
    return _is_state(m) and (m.get("phase") != "playing" or bool(m.get("your_turn")))


class TableClient:
    """Plays the human seat of one table by script until `deadline` (perf_counter)."""

    def __init__(self, table_id: str, url: str, stats: Stats, deadline: float, timeout: float) -> None:
        self.stalled = False  # another page of this seat stopped reading
        self.table_id = table_id
        self.url = url
        self.stats = stats
        self.deadline = deadline
        self.timeout = timeout
        self.seq = 0
        self.errors = 0
        self.ws: Any = None
        self.last: dict[str, Any] = {}

    def error(self, text: str) -> None:
        self.errors += 1
        self.stats.error(f"{self.table_id}: {text}")
        if self.errors >= MAX_ERRORS_PER_TABLE:
            raise ClientError(text)

    async def send(self, kind: str, **fields: Any) -> None:
        self.seq += 1
        await self.ws.send(json.dumps({"type": kind, "seq": self.seq, **fields}))

    async def recv(self, waiting_for: str) -> dict[str, Any]:
        """The next message; `error` messages are counted (and returned)."""
        try:
            text = await asyncio.wait_for(self.ws.recv(), self.timeout)
        except asyncio.TimeoutError:
            self.error(f"no message within {self.timeout:g} s, waiting for {waiting_for}")
            raise ClientError("timeout") from None
        msg = json.loads(text)
        if _is_state(msg):
            self.last = msg
        elif msg.get("type") == "error":
            self.error(f"error reply while waiting for {waiting_for}: {msg.get('message')!r} (seq {msg.get('seq')})")
        return msg

    async def until(self, pred: Callable[[dict[str, Any]], bool], waiting_for: str) -> dict[str, Any]:
        while True:
            msg = await self.recv(waiting_for)
            if pred(msg):
                return msg

    async def run(self, done: asyncio.Event, close: asyncio.Event) -> None:
        try:
            async with _connect(self.url) as ws:
                self.ws = ws
                try:
                    await self.play()
                finally:
                    done.set()
                    await close.wait()  # (open until every table is done: a closed seat goes to 托管)
        except ClientError:
            pass
        except Exception as e:  # noqa: BLE001 - every exception and disconnect is an error of the run
            self.stats.error(f"{self.table_id}: {type(e).__name__}: {e}")
        finally:
            done.set()

    async def play(self) -> None:
        state = await self.until(_my_turn_or_over, "the first human turn")
        while time.perf_counter() < self.deadline:
            if state.get("phase") == "playing" and not state.get("your_turn"):
                state = await self.until(_my_turn_or_over, "the human turn")
            elif state.get("phase") == "playing":
                state = await self.decide(state)
            else:
                state = await self.next_deal(state)

    async def decide(self, state: dict[str, Any]) -> dict[str, Any]:
        """One human decision: hint, then play the hinted cards (or pass), then wait for
        the next human turn or the end of the deal."""
        sent = time.perf_counter()
        await self.send("hint")
        hint = await self.until(lambda m: m.get("type") in ("hint", "error"), "a hint")
        if hint["type"] == "error":
            return self.last
        self.stats.hint.append(time.perf_counter() - sent)
        cards = hint.get("cards") or []
        if cards:
            move: dict[str, Any] = {"cards": cards}
            await self.send("play", **move)
        elif state.get("can_pass"):
            move = {}
            await self.send("pass")
        else:
            self.error(f"the hint is empty and passing is not legal (deal {state.get('deal')})")
            return self.last
        sent = time.perf_counter()
        acknowledged = False
        while True:
            msg = await self.recv("the next human turn")
            kind = msg.get("type")
            if kind == "error":
                return self.last  # (still this seat's turn: the next hint is the next play)
            if kind == "choose":
                if "reading" in move:
                    self.error(f"offered readings again after choosing reading 0 for {cards}")
                    return self.last
                move["reading"] = 0
                self.stats.chooses += 1
                await self.send("play", **move)
            elif _is_state(msg):
                over = msg.get("phase") != "playing" or msg.get("deal") != state.get("deal")
                # (the turn can come straight back, with no bot moving: a partner went out
                # on a trick this seat passed, and the lead passed to it)
                grown = len(msg.get("history") or []) > len(state.get("history") or [])
                acknowledged = acknowledged or over or grown or not msg.get("your_turn")
                if acknowledged and (over or msg.get("your_turn")):
                    break
        took = time.perf_counter() - sent
        self.stats.turn.append(took)
        (self.stats.turn_stalled if self.stalled else self.stats.turn_others).append(took)
        self.stats.decisions += 1
        if cards:
            self.stats.plays += 1
        else:
            self.stats.passes += 1
        return msg

    async def next_deal(self, state: dict[str, Any]) -> dict[str, Any]:
        """The deal is over: `start` (the seat is ready), then wait until the next deal is
        being played and it is this seat's turn."""
        if state.get("phase") == "over":
            self.stats.deals += 1
        deal = state.get("deal")
        sent = time.perf_counter()
        await self.send("start")
        state = await self.until(
            lambda m: (
                m.get("type") == "error" or (_is_state(m) and m.get("phase") == "playing" and m.get("deal") != deal)
            ),
            "the next deal",
        )
        if state["type"] == "error":
            raise ClientError("start refused")
        if not _my_turn_or_over(state):
            state = await self.until(_my_turn_or_over, "the first human turn of the deal")
        self.stats.start.append(time.perf_counter() - sent)
        return state


class StalledReader:
    """A page that opens the seat's link, completes the WebSocket handshake (no
    permessage-deflate, a 4 KiB receive buffer) and then never reads (a plain socket:
    nothing reads it in the background)."""

    def __init__(self, port: int, query: str, timeout: float) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            f"GET /ws?{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        status = self.sock.recv(12)
        if status != b"HTTP/1.1 101":
            raise RuntimeError(f"the stalled reader's handshake was answered {status!r}")
        self.cut_at: float | None = None  # when the server was first seen to have cut it (perf_counter)

    def poll(self) -> None:
        """Notes when the server has cut the socket, without reading anything (what it
        sent stays unread): the socket's TCP state, from TCP_INFO, is no longer
        ESTABLISHED (a reset closes it, the server's end of the stream half-closes it)."""
        if self.cut_at is not None or not hasattr(socket, "TCP_INFO"):
            return
        with contextlib.suppress(OSError):
            if self.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0] != TCP_ESTABLISHED:
                self.cut_at = time.perf_counter()

    def ended_by_server(self, seconds: float) -> bool:
        """Whether the server ends the socket within `seconds` (what it sent is read)."""
        deadline = time.monotonic() + seconds
        self.sock.settimeout(0.5)
        try:
            while time.monotonic() < deadline:
                try:
                    if not self.sock.recv(1 << 16):
                        return True
                except socket.timeout:  # (TimeoutError from Python 3.10)
                    continue
                except OSError:  # (reset: aborted)
                    return True
            return False
        finally:
            self.sock.close()


async def _open_stalled(
    port: int, tokens: dict[str, str], count: int, timeout: float, stats: Stats
) -> list[StalledReader]:
    """The stalled readers of the first `count` tables (one that cannot open is an error)."""
    readers = []
    for table_id, token in list(tokens.items())[:count]:
        try:
            readers.append(await asyncio.to_thread(StalledReader, port, f"table={table_id}&token={token}", timeout))
        except (OSError, RuntimeError) as e:
            stats.error(f"{table_id}: the stalled reader did not connect ({type(e).__name__}: {e})")
    return readers


async def _watch_stalled(readers: list[StalledReader], period: float = 0.25) -> None:
    while True:
        for reader in readers:
            reader.poll()
        await asyncio.sleep(period)


async def _close_stalled(readers: list[StalledReader]) -> int:
    """How many of the stalled readers the server had ended (each checked for up to 10 s)."""
    ended = await asyncio.gather(*(asyncio.to_thread(r.ended_by_server, 10.0) for r in readers))
    return sum(ended)


# ------------------------------------------------------------------------------ the run


def package_dir() -> str | None:
    """The folder of the `shuangkou` package this Python imports (without importing it)."""
    found = importlib.util.find_spec("shuangkou")
    return os.path.dirname(found.origin) if found is not None and found.origin else None


def core_files() -> dict[str, int]:
    """The compiled core's files and their modification times (ns): one replaced during a
    run (rebuilt in place) can crash the server that has it mapped."""
    folder = package_dir()
    if folder is None:
        return {}
    return {
        os.path.join(folder, n): os.stat(os.path.join(folder, n)).st_mtime_ns
        for n in sorted(os.listdir(folder))
        if n.startswith("_core") and n.endswith((".so", ".pyd"))
    }


async def _start_server(spec: dict[str, Any], log: Any) -> tuple[asyncio.subprocess.Process, dict[str, Any]]:
    env = dict(os.environ)
    folder = package_dir()
    if folder is not None:  # (the child imports the same package)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (os.path.dirname(folder), env.get("PYTHONPATH")) if p)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        os.path.abspath(__file__),
        "--serve-child",
        json.dumps(spec),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=log,
        env=env,
    )
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 300)
    if not line:
        await proc.wait()
        log.seek(0)
        raise RuntimeError(f"the server did not start (exit {proc.returncode}):\n{log.read()[-4000:]}")
    return proc, json.loads(line)


async def _server_stats(proc: asyncio.subprocess.Process) -> dict[str, Any]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"stats\n")
    await proc.stdin.drain()
    line = await asyncio.wait_for(proc.stdout.readline(), 60)
    return json.loads(line)["stats"] if line else {}


async def _stop_server(proc: asyncio.subprocess.Process) -> int | None:
    assert proc.stdin is not None
    proc.stdin.close()
    try:
        return await asyncio.wait_for(proc.wait(), 30)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
        return None


class Progress:
    """A bar on a terminal (tqdm), else a line every 10 s; nothing when quiet."""

    def __init__(self, seconds: float, quiet: bool) -> None:
        self.bar = None
        self.quiet = quiet
        self.last_line = 0.0
        if not quiet and sys.stderr.isatty():
            with contextlib.suppress(ImportError):
                from tqdm import tqdm

                self.bar = tqdm(total=round(seconds), unit="s", desc="load", leave=False)

    def update(self, elapsed: float, stats: Stats, rss: int) -> None:
        text = f"decisions={stats.decisions} deals={stats.deals} errors={stats.errors} rss={rss / 2**20:.0f}MiB"
        if self.bar is not None:
            self.bar.n = min(self.bar.total, round(elapsed))
            self.bar.set_postfix_str(text)
        elif not self.quiet and elapsed - self.last_line >= 10:
            self.last_line = elapsed
            print(f"  {elapsed:5.0f} s  {text}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


async def _sample(pid: int, t0: float, stats: Stats, samples: list[dict[str, Any]], progress: Progress) -> None:
    while True:
        vm = proc_status(pid)
        elapsed = time.perf_counter() - t0
        samples.append({"t": round(elapsed, 2), "rss_bytes": vm.get("VmRSS", 0), "decisions": stats.decisions})
        progress.update(elapsed, stats, vm.get("VmRSS", 0))
        await asyncio.sleep(1.0)


def _server_spec(tables: int, seconds: float, bots: str, variant: str, seed: int, stalled: int) -> dict[str, Any]:
    """The server process's tables, checked (ValueError naming a bad argument)."""
    bot_list = [b.strip() for b in bots.split(",")]
    if len(bot_list) == 1:
        bot_list *= 3
    if len(bot_list) != 3 or not all(bot_list):
        raise ValueError(f"--bots: one agent, or three comma-separated ones, got {bots!r}")
    if tables < 1 or seconds <= 0:
        raise ValueError("--tables must be at least 1 and --seconds above 0")
    if not 0 <= stalled <= tables:
        raise ValueError(f"--stalled: 0..{tables} (the tables), got {stalled}")
    return {"tables": tables, "variant": variant, "bots": bot_list, "seed": seed}


def _check_run(stats: Stats, server_log: str, code: int | None, core_before: dict[str, int], kept: int) -> None:
    """Counts as errors what went wrong around the clients: the server's log, its exit,
    the core replaced, no decision, `kept` stalled pages the server did not drop."""
    signs = ("Traceback", "ERROR", "Fatal Python error")
    logged = [line for line in server_log.splitlines() if any(line.startswith(s) for s in signs)]
    for line in logged[:MAX_ERRORS_KEPT]:
        stats.error(f"server log: {line}")
    if code != 0:
        stats.error(f"the server exited with status {code} (None: killed after 30 s; below 0: the signal)")
    if core_files() != core_before:
        stats.error("the compiled core (_core) was replaced during the run: a process that has it mapped can crash")
    if stats.decisions == 0:
        stats.error("no human decision was made")
    if kept > 0:
        stats.error(f"the server did not drop {kept} of the pages that stopped reading")


def _table_clients(
    hello: dict[str, Any], stats: Stats, deadline: float, timeout: float, stalled: int
) -> list[TableClient]:
    """One client per table; the first `stalled` are the tables with a stalled reader."""
    clients = []
    for table_id, token in hello["tokens"].items():
        url = f"ws://127.0.0.1:{hello['port']}/ws?table={table_id}&token={token}"
        client = TableClient(table_id, url, stats, deadline, timeout)
        client.stalled = len(clients) < stalled
        clients.append(client)
    return clients


def _figures(stats: Stats, wall: float) -> dict[str, Any]:
    """The clients' figures for the report."""
    return {
        "wall_s": round(wall, 3),
        "human_decisions": stats.decisions,
        "decisions_per_s": round(stats.decisions / wall, 1),
        "plays": stats.plays,
        "passes": stats.passes,
        "readings_chosen": stats.chooses,
        "deals_finished": stats.deals,
        "play_to_next_human_turn": summary(stats.turn),
        "hint_round_trip": summary(stats.hint),
        "start_to_first_human_turn": summary(stats.start),
    }


async def run_load(
    tables: int = 100,
    seconds: float = 60.0,
    bots: str = "heuristic",
    variant: str = "baibian",
    seed: int = 0,
    timeout: float = 30.0,
    quiet: bool = False,
    profile: str | None = None,
    stalled: int = 0,
) -> dict[str, Any]:
    """Runs the load test and returns its report (see the module's docstring)."""
    spec = _server_spec(tables, seconds, bots, variant, seed, stalled)
    params = {**spec, "seconds": seconds, "timeout": timeout, "human_seat": 0, "deals_per_table": DEALS_PER_TABLE}
    params["stalled"] = stalled
    stats = Stats()
    core_before = core_files()
    if profile:
        spec["profile"] = os.path.abspath(profile)
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
        built = time.perf_counter()
        proc, hello = await _start_server(spec, log)
        report: dict[str, Any] = {"parameters": params, "machine": machine(), "shuangkou": hello.get("version")}
        report["server_start_s"] = round(time.perf_counter() - built, 3)
        run = await _drive(proc, hello, stats, seconds, timeout, quiet, stalled)
        log.seek(0)
        server_log = log.read()
    _check_run(stats, server_log, run["code"], core_before, stalled - run["ended"])
    report.update(_figures(stats, run["wall"]))
    report["stalled_readers"] = {
        "count": stalled,
        "ended_by_server": run["ended"],
        "dropped_by_server": run["server"].get("dropped"),
        "cut_during_run_after_s": run["cut"],
        "play_to_next_human_turn_their_tables": summary(stats.turn_stalled),
        "play_to_next_human_turn_other_tables": summary(stats.turn_others),
    }
    report.update({"server_memory": run["memory"], "cpu": run["cpu"], "server": run["server"]})
    report["server_exit_status"] = run["code"]
    report["server_log_tail"] = server_log[-4000:]
    report["errors"] = {"count": stats.errors, "first": stats.error_texts}
    return report


async def _drive(
    proc: asyncio.subprocess.Process,
    hello: dict[str, Any],
    stats: Stats,
    seconds: float,
    timeout: float,
    quiet: bool,
    stalled: int,
) -> dict[str, Any]:
    """Plays every table for `seconds` (with `stalled` stalled readers), then stops the
    server; returns the run's wall time, memory, CPU, server stats and exit status."""
    pid = hello["pid"]
    samples: list[dict[str, Any]] = []
    progress = Progress(seconds, quiet)
    t0 = time.perf_counter()
    cpu0 = proc_cpu_seconds(pid), time.process_time()
    sampler = asyncio.create_task(_sample(pid, t0, stats, samples, progress))
    close = asyncio.Event()
    clients = _table_clients(hello, stats, t0 + seconds, timeout, stalled)
    done = [asyncio.Event() for _ in clients]
    readers = await _open_stalled(hello["port"], hello["tokens"], stalled, timeout, stats)
    tasks = [asyncio.create_task(c.run(d, close)) for c, d in zip(clients, done)]
    watcher = asyncio.create_task(_watch_stalled(readers))
    await asyncio.gather(*(d.wait() for d in done))
    wall = time.perf_counter() - t0
    watcher.cancel()
    cut = [None if r.cut_at is None else round(r.cut_at - t0, 2) for r in readers]
    cpu1 = proc_cpu_seconds(pid), time.process_time()
    vm_end = proc_status(pid)
    try:
        server_stats = await _server_stats(proc)
    except (OSError, ValueError, asyncio.TimeoutError) as e:
        stats.error(f"the server did not answer 'stats' ({type(e).__name__}: {e}; exit status {proc.returncode})")
        server_stats = {}
    finally:
        sampler.cancel()
        progress.close()
        close.set()
        await asyncio.gather(*tasks)
        ended = await _close_stalled(readers)
        vm_after = proc_status(pid)
        code = await _stop_server(proc)
    memory = {
        "vm_hwm_bytes": vm_after.get("VmHWM", vm_end.get("VmHWM")),
        "vm_rss_end_bytes": vm_end.get("VmRSS"),
        "rss_samples": samples,
    }
    server_cpu = cpu1[0] - cpu0[0]
    cpu = {
        "server_s": round(server_cpu, 2),
        "client_s": round(cpu1[1] - cpu0[1], 2),
        "server_share_of_one_core": round(server_cpu / wall, 3),
    }
    return {
        "wall": wall,
        "memory": memory,
        "cpu": cpu,
        "server": server_stats,
        "code": code,
        "ended": ended,
        "cut": cut,
    }


def write_json(path: str, report: dict[str, Any]) -> None:
    """Writes `report` to `path` through a temporary file in the same folder, renamed."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".play_load.", suffix=".json", dir=folder)
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)  # (as an ordinary file, not mkstemp's 0600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, ensure_ascii=False)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def format_report(r: dict[str, Any]) -> str:
    """The short table printed at the end."""
    p = r["parameters"]
    m = r["machine"]

    def lat(s: dict[str, Any]) -> str:
        if not s.get("count"):
            return "-"
        return " ".join(f"p{q} {s[f'p{q}_ms']:.1f}" for q in PERCENTILES) + f"  max {s['max_ms']:.1f} ms"

    mem = r["server_memory"]
    rows = [
        (
            "run",
            f"{p['tables']} tables x {r['wall_s']:.1f} s, bots {','.join(p['bots'])}, {p['variant']}, seed {p['seed']}",
        ),
        ("machine", f"{m['cores']} cores, {m['cpu']}"),
        ("human decisions", f"{r['human_decisions']} ({r['decisions_per_s']}/s)"),
        ("deals finished", str(r["deals_finished"])),
        ("play -> next turn", lat(r["play_to_next_human_turn"])),
        ("hint round trip", lat(r["hint_round_trip"])),
        ("start -> first turn", lat(r["start_to_first_human_turn"])),
    ]
    st = r.get("stalled_readers") or {}
    if st.get("count"):
        rows += [
            ("stalled readers", f"{st['count']}: {st['ended_by_server']} ended by the server"),
            ("  their tables", lat(st["play_to_next_human_turn_their_tables"])),
            ("  other tables", lat(st["play_to_next_human_turn_other_tables"])),
        ]
    rows += [
        (
            "server memory",
            f"peak {(mem['vm_hwm_bytes'] or 0) / 2**20:.0f} MiB (VmHWM), {(mem['vm_rss_end_bytes'] or 0) / 2**20:.0f} MiB at the end",
        ),
        ("server CPU", f"{r['cpu']['server_s']} s ({r['cpu']['server_share_of_one_core']:.0%} of one core)"),
        ("errors", str(r["errors"]["count"])),
    ]
    lines = [f"{k:<20} {v}" for k, v in rows]
    lines += [f"  {t}" for t in r["errors"]["first"][:5]]
    return "\n".join(lines)


class _Help(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """The module's docstring as written, and each option's default."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="play_load.py", description=__doc__, formatter_class=_Help)
    parser.add_argument("--tables", type=int, default=100, help="tables played at once, one connection each")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the clients play")
    parser.add_argument("--bots", default="heuristic", help="the three bots' agent: one name, or three comma-separated")
    parser.add_argument("--variant", default="baibian", help="a preset or a variant YAML file")
    parser.add_argument("--seed", type=int, default=0, help="table i is dealt from SEED + 1,000,000 * i")
    parser.add_argument("--timeout", type=float, default=30.0, help="longest wait for one message (an error)")
    parser.add_argument("--out", default=None, help="the JSON report, e.g. experiments/play_load.json")
    parser.add_argument("--quiet", action="store_true", help="no progress and no table")
    parser.add_argument(
        "--stalled", type=int, default=0, help="tables whose human seat also has a page open that never reads"
    )
    parser.add_argument(
        "--profile", default=None, help="cProfile the server's event loop into this file (python -m pstats FILE)"
    )
    parser.add_argument("--serve-child", default=None, help=argparse.SUPPRESS)  # (the server process)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.serve_child is not None:
        serve_child(json.loads(args.serve_child))
        return 0
    try:
        report = asyncio.run(
            run_load(
                args.tables,
                args.seconds,
                args.bots,
                args.variant,
                args.seed,
                args.timeout,
                args.quiet,
                args.profile,
                args.stalled,
            )
        )
    except (RuntimeError, ValueError) as e:  # (the server did not start, or a bad argument)
        print(f"play_load: {e}", file=sys.stderr)
        return 2
    if args.out:
        write_json(args.out, report)
    if not args.quiet:
        print(format_report(report))
    return 1 if report["errors"]["count"] else 0


if __name__ == "__main__":
    sys.exit(main())
