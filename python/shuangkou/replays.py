"""Replay files: JSON lines (gzip or plain), one recorded deal per line.

A line is a deal record as `Game.to_json` writes it, with an "agents" key naming who
sat in each seat (`selfplay --replays`, `arena --replays`, the deals `play --out`
saves); `Game.from_json` replays it as it is. `read_replays` also reads records
without "agents" and the `{"agents": [...], "record": {...}}` lines of earlier `play`
versions.

from shuangkou.replays import ReplayWriter, read_replays
w = ReplayWriter("runs/x/replays.jsonl.gz"); w.write(records); w.close()
deals = read_replays("runs/x/replays.jsonl.gz")
"""

from __future__ import annotations

import gzip
import json
import os
from dataclasses import dataclass

from . import _core

__all__ = ["RecordedDeal", "ReplayWriter", "read_replays"]


class ReplayWriter:
    """Gzip JSON lines, one deal record per line, written as blocks arrive.

    Opening, every write and the close are checked: a failure raises
    ``OSError`` naming the file (a replay that cannot be written is never
    reported as written)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = os.fspath(path)
        try:
            self._file = gzip.open(self.path, "wt", encoding="utf-8", compresslevel=6)
        except OSError as e:
            raise OSError(e.errno, f"cannot write replays to '{self.path}': {e.strerror}") from None

    def write(self, records: list[str]) -> None:
        """Writes deal records (`Game.to_json` texts), one a line."""
        self._write(records)

    def for_seats(self, agents: list[str]) -> _SeatedWriter:
        """A writer into this file that adds the seats' labels to each record (its
        "agents" key, which `Game.from_json` reads past)."""
        return _SeatedWriter(self, json.dumps({"agents": list(agents)}, ensure_ascii=False)[:-1])

    def _write(self, lines: list[str]) -> None:
        try:
            for r in lines:
                self._file.write(r)
                self._file.write("\n")
        except OSError as e:
            raise OSError(e.errno, f"writing replays to '{self.path}' failed: {e.strerror}") from None

    def close(self) -> None:
        try:
            self._file.close()
        except OSError as e:
            raise OSError(e.errno, f"writing replays to '{self.path}' failed: {e.strerror}") from None


class _SeatedWriter:
    """ReplayWriter.for_seats: records that name who sat where; closing it leaves the
    file open (its ReplayWriter closes it)."""

    def __init__(self, file: ReplayWriter, head: str) -> None:
        self._file, self._head = file, head  # head: '{"agents": [...]', the key to put first

    def write(self, records: list[str]) -> None:
        self._file._write([f"{self._head}, {r[1:]}" for r in records])  # (a record is a JSON object: "{...}")

    def close(self) -> None:
        pass


@dataclass
class RecordedDeal:
    """One deal of a replay file: the seats' labels (None where the file names none)
    and the record (`Game.from_json` text)."""

    agents: list[str] | None
    record: str  # (with its "agents" where it has them)


MAX_REPLAY_DEALS = 10_000  # the deals a viewer reads from one file


def read_replays(path: str | os.PathLike, limit: int = MAX_REPLAY_DEALS) -> tuple[list[RecordedDeal], bool]:
    """The first `limit` deals of a replay file (gzip or plain JSON lines) and whether
    the file holds more. Every record is checked (`Game.from_json`); ValueError naming
    the file and line of the first bad one, OSError naming a file that cannot be read."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            gz = f.read(2) == b"\x1f\x8b"
        f = gzip.open(path, "rt", encoding="utf-8") if gz else open(path, encoding="utf-8")
    except OSError as e:
        raise OSError(e.errno, f"cannot read replays from '{path}': {e.strerror}") from None
    deals: list[RecordedDeal] = []
    with f:
        try:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                if len(deals) == limit:
                    return deals, True
                deals.append(_parse_line(line, f"{path}:{number}"))
        except (OSError, EOFError, UnicodeDecodeError) as e:
            raise ValueError(f"{path}: not a readable replay file ({e})") from None
    if not deals:
        raise ValueError(f"{path}: no recorded deals in it")
    return deals, False


def _parse_line(line: str, where: str) -> RecordedDeal:
    try:
        obj = json.loads(line)
    except ValueError as e:
        raise ValueError(f"{where}: not JSON ({e})") from None
    if isinstance(obj, dict) and "record" in obj:  # (the lines of earlier `play` versions)
        obj = {"agents": obj.get("agents"), **obj["record"]} if isinstance(obj["record"], dict) else None
    if not isinstance(obj, dict):
        raise ValueError(f"{where}: a deal record is a JSON object")
    agents = obj.get("agents")
    record = json.dumps(obj)
    try:
        _core.Game.from_json(record)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    return RecordedDeal(agents, record)
