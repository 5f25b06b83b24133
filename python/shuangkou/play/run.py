"""`shuangkou play`: builds the table, starts the server, prints the join links."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import webbrowser
from pathlib import Path
from typing import Any

from .. import _core
from ..outputs import prepare_out
from .table import HUMAN, Table

DEFAULT_SEATS = "human,heuristic,heuristic,heuristic"


def _records(out: str | None) -> Any:
    """A deal-end hook writing each finished deal's record, with the seats' names, to
    OUT/deals.jsonl (one JSON object a line: {"agents": [...], "record": ...})."""
    if out is None:
        return None
    path = os.path.join(out, "deals.jsonl")

    def write(game: _core.Game, labels: list[str]) -> None:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"agents": labels, "record": json.loads(game.to_json())}, ensure_ascii=False) + "\n")

    return write


def play(args: Any) -> int:
    """Runs the table until Ctrl-C."""
    try:  # (the optional web stack: the rest of the CLI works without it)
        import uvicorn

        from .server import Room, make_app
    except ImportError as e:
        raise ValueError(f"shuangkou play needs the web stack: pip install '.[play]' ({e})") from None

    seats = [s.strip() for s in args.seats.split(",")]
    if args.turn_seconds < 0:
        raise ValueError(f"--turn-seconds: 0 (no timer) or more, got {args.turn_seconds}")
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port: 0..65535, got {args.port}")
    if args.out is not None:
        prepare_out(Path(args.out), ["deals.jsonl"])
    rules = _core.Rules(args.variant)
    table = Table(
        rules,
        seats,
        seed=args.seed,
        deals=args.deals,
        match=args.match,
        helper=args.helper,
        turn_seconds=args.turn_seconds or None,
        on_deal_end=_records(args.out),
    )
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"warning: serving on {args.host}: anyone who can reach this address and holds a seat's link can play",
            file=sys.stderr,
        )
    room = Room()
    room.add("t1", table)
    config = uvicorn.Config(make_app(room), host=args.host, port=args.port, log_level="warning", ws_max_size=1 << 16)
    server = uvicorn.Server(config)

    async def serve() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started:
            if task.done():
                await task
                return
            await asyncio.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        links = {
            s: f"http://{args.host}:{port}/?table=t1&seat={s}&token={st.token}&lang={args.lang}"
            for s, st in enumerate(table.state)
            if st.token is not None
        }
        for s, st in enumerate(table.state):
            print(f"seat {s}: {links.get(s, st.label)}", flush=True)
        if not args.no_browser:
            webbrowser.open(next(iter(links.values())))
        await task

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
    return 0


def add_parser(sub: Any) -> None:
    import argparse

    p = sub.add_parser(
        "play",
        help="sit at a web table with the bots (出牌, 不出, 提示, 排序, 托管; docs/play.md)",
        description="Starts a local web table and prints each human seat's join link (it holds the seat's "
        "secret token). Needs the optional web stack: pip install '.[play]'.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--variant", default="baibian", help="a preset or a variant YAML file")
    p.add_argument(
        "--seats",
        default=DEFAULT_SEATS,
        help=f"four comma-separated seats: '{HUMAN}' for a person, or any agent the arena takes",
    )
    p.add_argument("--deals", type=int, default=1, help="deals to play (one after another, 开始 between them)")
    p.add_argument("--match", action="store_true", help="play the deals as a match: seat swaps, totals, titles")
    p.add_argument("--seed", type=int, default=0, help="deal i is dealt from seed + i")
    p.add_argument("--helper", default="heuristic", help="the agent that plays a seat under 托管")
    p.add_argument("--turn-seconds", type=float, default=30.0, help="time a person has for a move (0: no timer)")
    p.add_argument("--lang", choices=["zh", "en"], default="zh", help="the page's language")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (others can join from any address)")
    p.add_argument("--port", type=int, default=0, help="port (0: any free one)")
    p.add_argument("--out", default=None, help="folder for deals.jsonl, every finished deal's record")
    p.add_argument("--no-browser", action="store_true", help="do not open the browser")
    p.set_defaults(func=play)
