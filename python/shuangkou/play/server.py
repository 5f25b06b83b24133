"""The web server of `shuangkou play` (docs/play.md): Starlette on uvicorn.

It serves the static page and one WebSocket per open page. Every message is checked
(size, JSON, type, sequence number, the seat's token, the origin of the handshake) before
the table sees it; a refused message gets an `error` reply, changes nothing and leaves
the connection open. Each seat is sent only its own view (`Table.view`). Agents play in
a worker thread, so one table's slow bot never blocks another table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..replays import RecordedDeal
from . import replay
from .table import Table, TableError

STATIC = Path(__file__).resolve().parent / "static"
MAX_MESSAGE_BYTES = 4096
MAX_CONNECTIONS = 256
MAX_TABLES = 1000
MESSAGE_TYPES = {"play", "pass", "hint", "advise", "auto", "leave", "start"}
TICK_SECONDS = 0.25  # how often turn timers are checked


class Room:
    """The tables one server holds, each with its lock and its open connections."""

    def __init__(self) -> None:
        self.tables: dict[str, Table] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.sockets: dict[str, set[tuple[int, WebSocket]]] = {}
        self.connections = 0

    def add(self, table_id: str, table: Table) -> None:
        if len(self.tables) >= MAX_TABLES:
            raise ValueError(f"a server holds at most {MAX_TABLES} tables")
        self.tables[table_id] = table
        self.locks[table_id] = asyncio.Lock()
        self.sockets[table_id] = set()

    async def broadcast(self, table_id: str) -> None:
        """Sends every connected seat of the table its own view."""
        table = self.tables[table_id]
        for seat, ws in list(self.sockets[table_id]):
            try:
                await ws.send_json(table.view(seat))
            except Exception:  # noqa: BLE001 - a socket closing meanwhile is dropped on its own side
                self.sockets[table_id].discard((seat, ws))

    async def advance(self, table_id: str) -> None:
        """Lets the agents and 托管 seats play (in a worker thread), then broadcasts."""
        table = self.tables[table_id]
        if await asyncio.to_thread(table.advance):
            await self.broadcast(table_id)

    async def tick(self) -> None:
        """The turn timers of every table, every TICK_SECONDS."""
        while True:
            await asyncio.sleep(TICK_SECONDS)
            for table_id, table in list(self.tables.items()):
                async with self.locks[table_id]:
                    if await asyncio.to_thread(table.tick):
                        await self.broadcast(table_id)
                        await self.advance(table_id)


def _same_origin(ws: WebSocket) -> bool:
    """A browser's handshake must come from a page of this server (a page elsewhere
    cannot drive a local table); clients that send no Origin are not browsers."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc == ws.headers.get("host", "")


def seq_of(text: str) -> int | None:
    """The `seq` of a message, where it can be read (for the error reply naming it)."""
    try:
        seq = json.loads(text).get("seq") if len(text) <= MAX_MESSAGE_BYTES else None
    except (ValueError, AttributeError):
        return None
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


def check_message(text: str, last_seq: int) -> dict[str, Any]:
    """The message as a dict, checked for size, JSON, type and sequence number;
    TableError naming the first problem."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
        raise TableError(f"message over {MAX_MESSAGE_BYTES} bytes", f"消息超过 {MAX_MESSAGE_BYTES} 字节")
    try:
        msg = json.loads(text)
    except ValueError:
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


def make_app(room: Room) -> Starlette:
    """The ASGI app serving `room`'s tables."""

    async def table_socket(ws: WebSocket) -> None:
        table_id = ws.query_params.get("table", next(iter(room.tables), ""))
        table = room.tables.get(table_id)
        seat = table.seat_of_token(ws.query_params.get("token", "")) if table else None
        if not _same_origin(ws) or table is None or seat is None or room.connections >= MAX_CONNECTIONS:
            await ws.close(code=4403)  # (refused before it is accepted: no state is sent)
            return
        await ws.accept()
        room.connections += 1
        room.sockets[table_id].add((seat, ws))
        table.state[seat].connected += 1
        last_seq = 0
        try:
            async with room.locks[table_id]:
                table.set_away(seat, False)  # back from a disconnect: the seat is theirs again
                await room.broadcast(table_id)
            while True:
                text = await ws.receive_text()
                try:
                    msg = check_message(text, last_seq)
                    last_seq = msg["seq"]
                    async with room.locks[table_id]:
                        reply = await asyncio.to_thread(table.handle, seat, msg)
                        if reply is not None:
                            await ws.send_json(reply)
                        else:
                            await room.broadcast(table_id)
                            await room.advance(table_id)
                except TableError as e:
                    await ws.send_json({"type": "error", "seq": seq_of(text), "message": str(e), "message_zh": e.zh})
        except WebSocketDisconnect:
            pass
        finally:
            room.connections -= 1
            room.sockets[table_id].discard((seat, ws))
            table.state[seat].connected -= 1
            if table.state[seat].connected == 0:
                async with room.locks[table_id]:
                    table.set_away(seat, True)  # disconnected: a helper plays the seat
                    await room.broadcast(table_id)
                    await room.advance(table_id)

    async def health(request: Request) -> Response:
        return PlainTextResponse("ok")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        for table_id in room.tables:
            room.locks[table_id] = asyncio.Lock()  # (bound to this event loop)
            await room.advance(table_id)
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
    listing = {"file": file_name, "deals": replay.index(deals)}

    async def deal_index(request: Request) -> Response:
        return JSONResponse(listing)

    async def deal(request: Request) -> Response:
        k = request.path_params["k"]
        if not 0 <= k < len(deals):
            return PlainTextResponse(f"no deal {k}: the file holds deals 0..{len(deals) - 1}", status_code=404)
        frames = await asyncio.to_thread(replay.frames, deals[k])
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


def uvicorn_server(app: Starlette, host: str, port: int) -> Any:
    """A uvicorn server for `app` (WebSocket frames capped at 64 KiB: the messages
    themselves are capped lower, MAX_MESSAGE_BYTES)."""
    import uvicorn

    return uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", ws_max_size=1 << 16))


async def start(server: Any) -> tuple[asyncio.Task[None], int | None]:
    """Starts a uvicorn server in the running loop; returns its task and, once it
    listens, its port (None when it stopped before listening: await the task for why)."""
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            return task, None
        await asyncio.sleep(0.05)
    return task, server.servers[0].sockets[0].getsockname()[1]
