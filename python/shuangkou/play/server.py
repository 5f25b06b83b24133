"""The web server of `shuangkou play` (docs/play.md): Starlette on uvicorn.

It serves the static page and one WebSocket per open page. Every frame is checked (text,
size, nesting, JSON, type, sequence number) before the table sees it, and the handshake
too (the seat's token, the origin, the Host header, the seat's and the server's
connection caps); a refused message gets an `error` reply, changes nothing and leaves the
connection open. Each seat is sent only its own view (`Table.view`). Agents play in a
worker thread, so one table's slow bot never blocks another table. Nothing waits on one
socket: every message goes through the socket's bounded outgoing queue, sent by its own
writer task, and a socket that does not take its messages is dropped (docs/play.md,
"When something fails").
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import ipaddress
import json
import re
import socket
import struct
import sys
import traceback
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from ..util.records import RecordedDeal
from . import viewer
from .table import Table, TableError

STATIC = Path(__file__).resolve().parent / "static"
MAX_MESSAGE_BYTES = 4096
MAX_NESTING = 8  # arrays and objects in one message (a real one nests 2 deep)
MAX_PER_SEAT = 4  # open connections of one seat (its pages): one seat never locks out another
# Open connections of the whole server: a bound on its sockets (file descriptors), not a
# share between seats (MAX_PER_SEAT is): a table holds at most 4 x MAX_PER_SEAT = 16.
MAX_CONNECTIONS = 512
MAX_TABLES = 1000
MAX_QUEUED = 64  # messages waiting to be sent to one socket; one more drops the socket
SEND_SECONDS = 10.0  # a socket that takes longer to take one message is dropped
HEADER_SECONDS = 5.0  # an HTTP request whose headers are not complete by then is closed
SHUTDOWN_SECONDS = 5  # Ctrl-C: connections still open by then (a page that does not read) are cut
MESSAGE_TYPES = {"play", "pass", "hint", "advise", "auto", "leave", "start"}
TICK_SECONDS = 0.25  # how often turn timers are checked
CLOSE_REFUSED = 4403  # a close code: a wrong token, origin or Host
CLOSE_FULL = 4429  # a close code: the seat (or the server) has its most connections
ABORT = "shuangkou.abort"  # (scope key: aborts the socket's transport, where the server has one)


def log(text: str) -> None:
    """One line on the server's stderr (its log)."""
    print(f"play: {text}", file=sys.stderr, flush=True)


def encode(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def error_reply(e: TableError, seq: int | None) -> dict[str, Any]:
    return {"type": "error", "seq": seq, "message": str(e), "message_zh": e.zh}


class Peer:
    """One open page of a seat: its outgoing messages wait in a bounded queue that its
    writer task sends, so nothing else ever waits on this socket. A socket whose queue
    overflows, or that takes over SEND_SECONDS to take one message, is dropped."""

    def __init__(self, ws: WebSocket, table_id: str, seat: int, on_drop: Callable[[Peer, str | None], None]) -> None:
        self.ws, self.table_id, self.seat = ws, table_id, seat
        self.queue: asyncio.Queue[str] = asyncio.Queue(MAX_QUEUED)
        self.gone = False
        self.receiving = False  # its reader waits for a frame (and may be cancelled there)
        self.reader = asyncio.current_task()
        self.writer: asyncio.Task[None] | None = None
        self._on_drop = on_drop

    def start(self) -> None:
        self.writer = asyncio.get_running_loop().create_task(self._write())

    def send(self, message: dict[str, Any] | str) -> None:
        if self.gone:
            return
        try:
            self.queue.put_nowait(message if isinstance(message, str) else encode(message))
        except asyncio.QueueFull:
            self.drop(f"{MAX_QUEUED} messages were waiting to be sent")

    async def _write(self) -> None:
        while True:
            text = await self.queue.get()
            try:
                await asyncio.wait_for(self.ws.send_text(text), SEND_SECONDS)
            except asyncio.TimeoutError:
                self.drop(f"a message was not taken in {SEND_SECONDS:g} s")
                return
            except Exception:  # noqa: BLE001 - the socket closed meanwhile: its reader ends the connection
                self.drop(None)
                return

    def drop(self, why: str | None) -> None:
        """Stops sending to this socket; with a reason (a socket that does not read),
        also aborts it and ends its reader."""
        if self.gone:
            return
        self.gone = True
        self._on_drop(self, why)
        if self.writer is not None and self.writer is not asyncio.current_task():
            self.writer.cancel()
        if why is None:
            return
        abort = self.ws.scope.get(ABORT)
        if abort is not None:
            abort()
        if self.receiving and self.reader is not None:
            self.reader.cancel()

    def close(self) -> None:
        self.gone = True
        if self.writer is not None:
            self.writer.cancel()


class Room:
    """The tables one server holds, each with its lock and its open connections."""

    def __init__(self) -> None:
        self.tables: dict[str, Table] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.peers: dict[str, set[Peer]] = {}
        self.connections = 0
        self.dropped = 0  # sockets dropped for not taking their messages
        self.tick_failures: dict[str, int] = {}

    def add(self, table_id: str, table: Table) -> None:
        if len(self.tables) >= MAX_TABLES:
            raise ValueError(f"a server holds at most {MAX_TABLES} tables")
        self.tables[table_id] = table
        self.locks[table_id] = asyncio.Lock()
        self.peers[table_id] = set()

    def join(self, table_id: str, seat: int, ws: WebSocket) -> Peer | TableError:
        """Counts a new connection of `seat`, or names why it is refused: the seat already
        has MAX_PER_SEAT open, or the server MAX_CONNECTIONS."""
        st = self.tables[table_id].state[seat]
        if st.connected >= MAX_PER_SEAT:
            return TableError(
                f"seat {seat} already has {MAX_PER_SEAT} open connections: close one of its pages",
                f"座位 {seat + 1} 已有 {MAX_PER_SEAT} 个连接，请先关闭一个页面",
            )
        if self.connections >= MAX_CONNECTIONS:
            return TableError(f"the server holds its most connections ({MAX_CONNECTIONS})", "服务器连接已满")
        self.connections += 1
        st.connected += 1
        peer = Peer(ws, table_id, seat, self._dropped)
        self.peers[table_id].add(peer)
        return peer

    def _dropped(self, peer: Peer, why: str | None) -> None:
        self.peers[peer.table_id].discard(peer)
        if why is not None:
            self.dropped += 1
            log(f"table {peer.table_id}, seat {peer.seat}: dropped a connection that does not read ({why})")

    async def leave(self, peer: Peer) -> None:
        """A connection ended: a seat left with none is under 托管 (a helper plays it)."""
        peer.close()
        self.peers[peer.table_id].discard(peer)
        self.connections -= 1
        table = self.tables[peer.table_id]
        table.state[peer.seat].connected -= 1
        if table.state[peer.seat].connected > 0:
            return
        try:
            async with self.locks[peer.table_id]:
                table.set_away(peer.seat, True)
                self.broadcast(peer.table_id)
                await self.advance(peer.table_id)
        except Exception:  # noqa: BLE001 - logged; the table goes on
            log(f"table {peer.table_id}: failed after seat {peer.seat} left\n{traceback.format_exc()}")

    def broadcast(self, table_id: str) -> None:
        """Queues every connected seat of the table the table's notices, then its own view
        (never waits on a socket)."""
        table = self.tables[table_id]
        notices = [encode(n) for n in table.take_notices()]
        views: dict[int, str] = {}
        for peer in list(self.peers[table_id]):
            for notice in notices:
                peer.send(notice)
            if peer.seat not in views:
                views[peer.seat] = encode(table.view(peer.seat))
            peer.send(views[peer.seat])

    async def advance(self, table_id: str) -> None:
        """Lets the agents and 托管 seats play (in a worker thread), then broadcasts."""
        table = self.tables[table_id]
        if await asyncio.to_thread(table.advance):
            self.broadcast(table_id)

    async def tick(self) -> None:
        """The turn timers of every table, every TICK_SECONDS. A table busy with a message
        is checked at the next round; a table whose timers fail is logged and the others
        go on: nothing here waits on a socket or on one table."""
        while True:
            await asyncio.sleep(TICK_SECONDS)
            for table_id in list(self.tables):
                if not self.locks[table_id].locked():
                    await self._tick_table(table_id)

    async def _tick_table(self, table_id: str) -> None:
        try:
            async with self.locks[table_id]:
                if await asyncio.to_thread(self.tables[table_id].tick):
                    self.broadcast(table_id)
                    await self.advance(table_id)
        except Exception:  # noqa: BLE001 - logged (the first time, then every 100th); the timers go on
            n = self.tick_failures[table_id] = self.tick_failures.get(table_id, 0) + 1
            if n == 1 or n % 100 == 0:
                log(f"table {table_id}: its timers failed ({n} times so far)\n{traceback.format_exc()}")


def _same_origin(ws: WebSocket) -> bool:
    """A browser's handshake must come from a page of this server (a page elsewhere
    cannot drive a local table); clients that send no Origin are not browsers."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    try:
        return urlsplit(origin).netloc == ws.headers.get("host", "")
    except ValueError:
        return False


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def nesting(text: str) -> int:
    """How deep arrays and objects nest in the JSON `text` (at most; strings skipped),
    read without parsing it (json.loads recurses, and fails, on deep nesting)."""
    opened = text.count("[") + text.count("{")
    if opened <= MAX_NESTING:
        return opened
    depth = deepest = 0
    for b in _BRACKET.findall(_STRING.sub('""', text)):
        depth += 1 if b in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def seq_of(text: str) -> int | None:
    """The `seq` of a message, where it can be read (for the error reply naming it)."""
    if len(text) > MAX_MESSAGE_BYTES or nesting(text) > MAX_NESTING:
        return None
    try:
        seq = json.loads(text).get("seq")
    except (ValueError, AttributeError, RecursionError):
        return None
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


def frame_text(message: dict[str, Any]) -> str:
    """The text of a received WebSocket frame; TableError for a binary one."""
    text = message.get("text")
    if text is None:
        raise TableError(
            "a binary frame is not a message: send JSON in a text frame", "消息须为文本帧（JSON），不能是二进制帧"
        )
    return text


def check_message(text: str, last_seq: int) -> dict[str, Any]:
    """The message as a dict, checked for size, nesting, JSON, type and sequence number;
    TableError naming the first problem."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
        raise TableError(f"message over {MAX_MESSAGE_BYTES} bytes", f"消息超过 {MAX_MESSAGE_BYTES} 字节")
    if nesting(text) > MAX_NESTING:
        raise TableError(f"message nested over {MAX_NESTING} deep", f"消息嵌套超过 {MAX_NESTING} 层")
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        raise TableError("message is not JSON", "消息不是 JSON") from None
    if not isinstance(msg, dict):
        raise TableError("message must be a JSON object", "消息须为 JSON 对象")
    kind = msg.get("type")
    if kind not in MESSAGE_TYPES:
        known = ", ".join(sorted(MESSAGE_TYPES))
        raise TableError(
            f"unknown message type {str(kind)[:40]!r} (known: {known})", f"未知的消息类型（可用：{known}）"
        )
    seq = msg.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise TableError("message needs 'seq', an integer that grows with every message", "消息缺少递增的序号 seq")
    if seq <= last_seq:
        raise TableError(
            f"seq {seq} was already used (the last was {last_seq}): a replayed message",
            f"重复的消息（序号 {seq} 已用过）",
        )
    return msg


async def page(request: Request) -> Response:
    """The page (a table or the viewer: its script reads which from the address)."""
    return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")


def _page_routes() -> list[Any]:
    return [Route("/", page), Mount("/static", StaticFiles(directory=STATIC), name="static")]


async def _on_frame(room: Room, peer: Peer, message: dict[str, Any], last_seq: int) -> int:
    """Handles one frame from `peer`'s page; returns the last seq used."""
    try:
        text = frame_text(message)
        msg = check_message(text, last_seq)
    except TableError as e:
        peer.send(error_reply(e, seq_of(message.get("text") or "")))
        return last_seq
    table, seq = room.tables[peer.table_id], msg["seq"]
    async with room.locks[peer.table_id]:
        try:
            reply = await asyncio.to_thread(table.handle, peer.seat, msg)
            if reply is not None:
                peer.send(reply)
            else:
                room.broadcast(peer.table_id)
                await room.advance(peer.table_id)
        except TableError as e:
            peer.send(error_reply(e, seq))
        except Exception as e:  # noqa: BLE001 - a bug: logged, named to the seat; the table goes on
            log(f"table {peer.table_id}, seat {peer.seat}: {msg['type']} failed\n{traceback.format_exc()}")
            why = f"the server failed on this message ({type(e).__name__}: {e})"
            peer.send(error_reply(TableError(why, f"服务器处理此消息时出错（{type(e).__name__}）"), seq))
            room.broadcast(peer.table_id)
    return seq


async def _receive(peer: Peer) -> dict[str, Any] | None:
    """The next frame of the peer's page, or None once it is gone (disconnected, or
    dropped for not reading)."""
    peer.receiving = True
    try:
        return await peer.ws.receive()
    except asyncio.CancelledError:
        if not peer.gone:
            raise
        task = asyncio.current_task()
        if task is not None and hasattr(task, "uncancel"):  # (Python 3.11+)
            task.uncancel()  # (dropped: this connection ends here, not the server)
        return None
    finally:
        peer.receiving = False


def _opened(room: Room, ws: WebSocket) -> tuple[str, int | None]:
    """The table and the seat a handshake's token opens (None: no seat)."""
    table_id = ws.query_params.get("table", next(iter(room.tables), ""))
    table = room.tables.get(table_id)
    seat = table.seat_of_token(ws.query_params.get("token", "")) if table else None
    return table_id, seat


def make_app(room: Room) -> Starlette:
    """The ASGI app serving `room`'s tables."""

    async def table_socket(ws: WebSocket) -> None:
        table_id, seat = _opened(room, ws)
        if seat is None or not _same_origin(ws):
            await ws.close(code=CLOSE_REFUSED)  # (refused before it is accepted: no state is sent)
            return
        joined = room.join(table_id, seat, ws)
        if isinstance(joined, TableError):  # (accepted, to name why on the page; no state is sent)
            await ws.accept()
            await ws.close(code=CLOSE_FULL, reason=str(joined)[:120])
            return
        peer = joined
        try:
            await ws.accept()
            peer.start()
            async with room.locks[table_id]:
                room.tables[table_id].set_away(seat, False)  # back from a disconnect: the seat is theirs again
                room.broadcast(table_id)
            last_seq = 0
            while not peer.gone:
                message = await _receive(peer)
                if message is None or message["type"] == "websocket.disconnect":
                    break
                last_seq = await _on_frame(room, peer, message, last_seq)
        finally:
            await room.leave(peer)

    async def health(request: Request) -> Response:
        return PlainTextResponse("ok")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        for table_id in room.tables:
            room.locks[table_id] = asyncio.Lock()  # (bound to this event loop)
            try:
                await room.advance(table_id)
            except Exception:  # noqa: BLE001 - logged; the timers try again
                log(f"table {table_id}: failed at the start\n{traceback.format_exc()}")
        ticker = asyncio.get_running_loop().create_task(room.tick())
        try:
            yield
        finally:
            ticker.cancel()

    return Starlette(
        routes=[*_page_routes(), Route("/health", health), WebSocketRoute("/ws", table_socket)],
        lifespan=lifespan,
    )


def make_replay_app(deals: list[RecordedDeal], file_name: str) -> Starlette:
    """The ASGI app of the viewer: the page, and the deals of one replay file (by their
    index in it; nothing else is served)."""
    listing = {"file": file_name, "deals": viewer.index(deals)}

    async def deal_index(request: Request) -> Response:
        return JSONResponse(listing)

    async def deal(request: Request) -> Response:
        k = request.path_params["k"]
        if not 0 <= k < len(deals):
            return PlainTextResponse(f"no deal {k}: the file holds deals 0..{len(deals) - 1}", status_code=404)
        frames = await asyncio.to_thread(viewer.frames, deals[k])
        body = {
            "type": "replay",
            "index": k,
            "deals": len(deals),
            "file": file_name,
            "variant": listing["deals"][k]["variant"],
            "names": listing["deals"][k]["names"],
            "frames": frames,
        }
        return JSONResponse(body)

    return Starlette(routes=[*_page_routes(), Route("/replay/index", deal_index), Route("/replay/deal/{k:int}", deal)])


# ------------------------------------------------------------------------------ serving

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
_HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::([0-9]{1,5}))?")


def host_allowed(header: str, host: str, port: int | None) -> bool:
    """Whether a request's Host header names this server: 127.0.0.1, localhost, [::1] or
    the --host it serves on, with its port (a page of another site that a DNS rebinding
    points at this server names that site instead). On a wildcard --host (0.0.0.0, ::)
    any IP address with the port is this server too: people type the machine's address."""
    m = _HOST.fullmatch(header)
    if m is None:
        return False
    name = m.group(1).strip("[]").lower()
    if port is not None and int(m.group(2) or 80) != port:
        return False
    if name in LOOPBACK_NAMES or name == host.strip("[]").lower():
        return True
    if host in WILDCARD_HOSTS:
        with contextlib.suppress(ValueError):
            return ipaddress.ip_address(name) is not None
    return False


def host_guard(app: Any, host: str) -> Any:
    """`app` behind the Host check (HTTP: 403; WebSocket: closed with CLOSE_REFUSED
    before it is accepted). A WebSocket's scope also gets ABORT, a way to cut the socket
    of a page that stopped reading (uvicorn's transport; absent under other servers)."""

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await app(scope, receive, send)
            return
        header = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
        port = (scope.get("server") or (None, None))[1]
        if not host_allowed(header, host, port):
            why = f"Host {header[:80]!r} is not this server's address (127.0.0.1, localhost, [::1] or --host)"
            if scope["type"] == "http":
                await PlainTextResponse(why, status_code=403)(scope, receive, send)
            else:
                await receive()  # (websocket.connect)
                await send({"type": "websocket.close", "code": CLOSE_REFUSED, "reason": why[:120]})
            return
        transport = getattr(getattr(send, "__self__", None), "transport", None)
        if scope["type"] == "websocket" and callable(getattr(transport, "abort", None)):
            scope = {**scope, ABORT: functools.partial(_cut, transport)}
        await app(scope, receive, send)

    return guarded


def _cut(transport: asyncio.Transport) -> None:
    """Cuts a connection at once: a reset (SO_LINGER 0), so that neither this process nor
    the kernel keeps what the peer never read."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


@functools.cache
def header_timeout_protocol() -> type:
    """uvicorn's h11 HTTP protocol, closing a connection whose request headers are not
    complete HEADER_SECONDS after it opened, or after its last response (uvicorn has no
    such timeout: a client that sends half a request would hold its connection forever)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderTimeoutH11Protocol(H11Protocol):  # type: ignore[misc]
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._header_timer = self.loop.call_later(HEADER_SECONDS, self._headers_late)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_late(self) -> None:
            self._header_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state is not h11.IDLE:  # (headers complete, or an upgrade to a WebSocket)
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HeaderTimeoutH11Protocol


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to host:port (0: any free port); ValueError naming the port when
    it cannot be (in use, not allowed) or the host does not resolve."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as e:
        raise ValueError(f"--host {host}: not an address of this machine ({e.strerror})") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as e:
        sock.close()
        hint = (
            ": another program holds it (pick another --port, or 0 for any free one)"
            if e.errno == errno.EADDRINUSE
            else ""
        )
        raise ValueError(f"--port {port}: cannot listen on {host}:{port} ({e.strerror}){hint}") from None
    return sock


def uvicorn_server(app: Starlette, host: str, port: int) -> Any:
    """A uvicorn server for `app` behind the Host check (host_guard), on a socket bound
    now (ValueError naming the port when it cannot be). WebSocket frames are capped at
    64 KiB (the messages themselves lower, MAX_MESSAGE_BYTES); a request's headers are
    due within HEADER_SECONDS; on shutdown, connections get SHUTDOWN_SECONDS to close."""
    import uvicorn

    sock = bind(host, port)

    class BoundServer(uvicorn.Server):  # type: ignore[misc]
        async def serve(self, sockets: list[socket.socket] | None = None) -> None:
            await super().serve(sockets=sockets or [sock])

    config = uvicorn.Config(
        host_guard(app, host),
        host=host,
        port=sock.getsockname()[1],
        log_level="warning",
        ws_max_size=1 << 16,
        http=header_timeout_protocol(),
        timeout_graceful_shutdown=SHUTDOWN_SECONDS,
    )
    return BoundServer(config)


async def start(server: Any) -> tuple[asyncio.Task[None], int | None]:
    """Starts a uvicorn server in the running loop; returns its task and, once it
    listens, its port (None when it stopped before listening: await the task for why)."""
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            return task, None
        await asyncio.sleep(0.05)
    return task, server.servers[0].sockets[0].getsockname()[1]
