"""`shuangkou play` (builds the table, serves it, prints the join links) and
`shuangkou replay` (serves the viewer of a replay file)."""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..play.table import HUMAN, Table
from ..util.outputs import prepare_out
from ..util.records import DealLog, read_replays
from .options import add_out_options, add_seed_option, add_server_options, add_variant_options, variant_rules

DEFAULT_SEATS = "human,heuristic,heuristic,heuristic"


def _records(out: str | None) -> DealLog | None:
    """The deal-end hook writing OUT/deals.jsonl, or None without --out."""
    return None if out is None else DealLog(os.path.join(out, "deals.jsonl"))


def _web_stack() -> Any:
    """The server module, with the optional web stack it needs (the rest of the CLI
    works without it)."""
    try:
        import uvicorn  # noqa: F401 - (checked here: server.py imports it only when serving)

        from ..play import server
    except ImportError as e:
        raise ValueError(
            "shuangkou play and replay need the web stack: bash scripts/setup.sh --play "
            f"(or pip install '.[play]' in the clone); importing it failed: {e}"
        ) from None
    return server


def _check_address(args: Any) -> None:
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port: 0..65535, got {args.port}")
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"warning: serving on {args.host}: anyone who can reach this address can open the page"
            " (and, with a seat's link, play)",
            file=sys.stderr,
        )


def _serve(app: Any, args: Any, links: Callable[[int], list[tuple[str, str]]]) -> int:
    """Serves `app` until Ctrl-C; prints `links(port)` (label, address) once it listens
    and opens the browser on the first address (unless --no-browser)."""
    web = _web_stack()
    server = web.uvicorn_server(app, args.host, args.port)

    async def serve() -> None:
        task, port = await web.start(server)
        if port is None:
            await task  # (it stopped: a port in use, ...)
            return
        shown = links(port)
        for label, address in shown:
            print(f"{label}: {address}", flush=True)
        if not args.no_browser:
            webbrowser.open(next(a for _, a in shown if a.startswith("http")))
        await task

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
    return 0


def play(args: Any) -> int:
    """Runs the table until Ctrl-C."""
    server = _web_stack()
    seats = [s.strip() for s in args.seats.split(",")]
    if not (args.turn_seconds >= 0 and math.isfinite(args.turn_seconds)):
        raise ValueError(f"--turn-seconds: a finite number of seconds, 0 (no timer) or more, got {args.turn_seconds}")
    if not (args.ready_seconds > 0 and math.isfinite(args.ready_seconds)):
        raise ValueError(f"--ready-seconds: a finite number of seconds above 0, got {args.ready_seconds}")
    rules, _ = variant_rules(args)
    _check_address(args)
    if args.out is not None:
        prepare_out(Path(args.out), ["deals.jsonl"], force=args.force)
    table = Table(
        rules,
        seats,
        seed=args.seed,
        deals=args.deals,
        match=args.match,
        helper=args.helper,
        advisor=args.advisor,
        turn_seconds=args.turn_seconds or None,
        ready_seconds=args.ready_seconds,
        on_deal_end=(records := _records(args.out)),
    )
    room = server.Room()
    room.add("t1", table)

    def links(port: int) -> list[tuple[str, str]]:
        base = f"http://{args.host}:{port}/?table=t1"
        return [
            (f"seat {s}", f"{base}&seat={s}&token={st.token}&lang={args.lang}" if st.token else st.label)
            for s, st in enumerate(table.state)
        ]

    code = _serve(server.make_app(room), args, links)
    if records is not None and records.pending:  # (written at the next deal's end, which did not come)
        records.flush("not written: the server stopped")  # OSError: one error line, exit 1
    return code


def replay(args: Any) -> int:
    """Serves the viewer of one replay file until Ctrl-C."""
    server = _web_stack()
    _check_address(args)
    deals, more = read_replays(args.file)
    if more:
        print(f"warning: {args.file} holds more than {len(deals)} deals; the viewer shows the first {len(deals)}")
    if not 0 <= args.deal < len(deals):
        raise ValueError(f"--deal: 0..{len(deals) - 1} (the file holds {len(deals)} deals), got {args.deal}")
    app = server.make_replay_app(deals, os.path.basename(args.file))

    def links(port: int) -> list[tuple[str, str]]:
        return [("viewer", f"http://{args.host}:{port}/?mode=replay&deal={args.deal}&lang={args.lang}")]

    return _serve(app, args, links)


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "play",
        help="sit at a web table with the bots (出牌, 不出, 提示, 排序, 托管; docs/play.md)",
        description="Starts a local web table and prints each human seat's join link (it holds the seat's "
        "secret token). Needs the optional web stack: bash scripts/setup.sh --play (or pip install "
        "'.[play]' in the clone).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_variant_options(p)
    p.add_argument(
        "--seats",
        default=DEFAULT_SEATS,
        help=f"four comma-separated seats: '{HUMAN}' for a person, or any agent the arena takes",
    )
    p.add_argument("--deals", type=int, default=1, help="deals to play (one after another, 开始 between them)")
    p.add_argument("--match", action="store_true", help="play the deals as a match: seat swaps, totals, titles")
    add_seed_option(p, "deal i is dealt from seed + i")
    p.add_argument("--helper", default="heuristic", help="the agent that plays a seat under 托管")
    p.add_argument(
        "--advisor", default=None, help="an agent whose advice (its play, and a Q network's values) a seat can ask for"
    )
    p.add_argument("--turn-seconds", type=float, default=30.0, help="time a person has for a move (0: no timer)")
    p.add_argument(
        "--ready-seconds",
        type=float,
        default=30.0,
        help="between deals, time a person has to press 开始 before they sit out (the helper plays their seat)",
    )
    add_server_options(p, "address to serve on (others can join from any address)")
    add_out_options(p, "deals.jsonl, every finished deal's record", "deals.jsonl")
    p.set_defaults(func=play)


def add_replay_parser(sub: Any) -> None:
    p = sub.add_parser(
        "replay",
        help="watch recorded deals on the table's page: every hand, step by step (docs/play.md)",
        description="Opens a viewer of the deals in FILE: selfplay's and arena's replays.jsonl.gz "
        "(--replays N) and the deals.jsonl play writes (--out). It shows every hand and steps forwards "
        "and backwards by action or by trick. Serves only FILE. Needs the web stack: "
        "bash scripts/setup.sh --play (or pip install '.[play]' in the clone).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("file", help="a replay file (.jsonl.gz or .jsonl)")
    p.add_argument("--deal", type=int, default=0, help="the deal to open first (its index in the file)")
    add_server_options(p, "address to serve on")
    p.set_defaults(func=replay)
