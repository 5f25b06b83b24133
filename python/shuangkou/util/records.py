"""Replay files: JSON lines (gzip or plain), one recorded deal per line.

A line is a deal record as `Game.to_json` writes it, with an "agents" key naming who
sat in each seat (`selfplay --replays`, `arena --replays`, the deals `play --out`
saves); `Game.from_json` replays it as it is. `read_replays` also reads records
without "agents" and the `{"agents": [...], "record": {...}}` lines of earlier `play`
versions. It reads a regular file only (a FIFO or device is refused unopened for
reading), a line at most 1 MiB (refused while it is read, never read whole), and at most
128 MiB of text (decompressed) for the deals it returns (docs/errors.md#replay-files).

from shuangkou.util.records import ReplayWriter, read_replays
w = ReplayWriter("runs/x/replays.jsonl.gz"); w.write(records); w.close()
deals = read_replays("runs/x/replays.jsonl.gz")
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from .. import _core
from ..errors import clip

__all__ = ["DealLog", "RecordedDeal", "ReplayWriter", "read_replays"]


def seats_head(agents: list[str]) -> str:
    """The start of a seated record: '{"agents": [...]', the key that names the seats."""
    return json.dumps({"agents": list(agents)}, ensure_ascii=False)[:-1]


def seated(head: str, record: str) -> str:
    """A deal record (`Game.to_json`, a JSON object) with the seats' labels put first:
    the one line format of replay files and the table's deals.jsonl."""
    return f"{head}, {record[1:]}"


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
        return _SeatedWriter(self, seats_head(agents))

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
        self._file._write([seated(self._head, r) for r in records])

    def close(self) -> None:
        pass


class DealLog:
    """Plain JSON lines of finished deals, appended as they end (the web table's
    OUT/deals.jsonl): each record names the seats ("agents"), as ReplayWriter.for_seats
    writes them, and `read_replays` reads it. A record that
    cannot be written is kept in memory and written with the next one; the call raises
    OSError naming the file and how many records wait (the table reports it and goes on)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.pending: list[str] = []

    def __call__(self, game: _core.Game, labels: list[str]) -> None:
        self.pending.append(seated(seats_head(labels), game.to_json()) + "\n")
        self.flush("kept in memory, written at the next deal's end")

    def flush(self, otherwise: str) -> None:
        """Writes every waiting record, all or none (a partial write is cut back off);
        OSError naming the file, the records waiting and `otherwise` (what becomes of them)."""
        if not self.pending:
            return
        try:
            with open(self.path, "a", encoding="utf-8") as f:
                start = f.tell()
                try:
                    f.write("".join(self.pending))
                    f.flush()
                except OSError:
                    with contextlib.suppress(OSError):
                        f.truncate(start)
                    raise
        except OSError as e:
            n = len(self.pending)
            raise OSError(
                f"cannot write {self.path} ({e.strerror or e}): {n} deal record{'s' * (n != 1)} {otherwise}"
            ) from None
        self.pending.clear()


@dataclass
class RecordedDeal:
    """One deal of a replay file: the seats' labels (None where the file names none)
    and the record (`Game.from_json` text)."""

    agents: list[str] | None
    record: str  # (with its "agents" where it has them)


MAX_REPLAY_DEALS = 10_000  # the deals a viewer reads from one file
# A line is one deal record: at most the core's record bound (1 MiB; real ones are a few
# KB). A longer line is refused once this much of it has been read, never read whole.
MAX_LINE_BYTES = 1 << 20
# Text read from one file (decompressed, blank lines included) for its first
# MAX_REPLAY_DEALS deals: real records take 6-8 KB (10,000 of them 60-80 MB). The deals
# kept then take at most about twice this in memory.
MAX_REPLAY_BYTES = 128 << 20
# Blank lines a file may hold (a writer leaves none; a file of newlines is not replays).
MAX_BLANK_LINES = 1_000
_CHUNK = 1 << 16  # bytes a long line is read at a time


def read_replays(path: str | os.PathLike, limit: int = MAX_REPLAY_DEALS) -> tuple[list[RecordedDeal], bool]:
    """The first `limit` deals of a replay file (gzip or plain JSON lines) and whether
    the file holds more. Every record is checked (`Game.from_json`).

    The file must be a regular file (a FIFO or a device is refused without reading it);
    a line may hold at most MAX_LINE_BYTES, the file at most MAX_BLANK_LINES blank lines,
    and at most MAX_REPLAY_BYTES are read (decompressed) for its deals. ValueError naming
    the file (and the line) for any of these, a file that is not gzip or UTF-8 text, and
    the first bad record; OSError naming a file that cannot be opened."""
    path = os.fspath(path)
    with _open_replays(path) as f:
        deals, more = _read_deals(f, path, limit)
    if not deals:
        raise ValueError(f"{path}: no recorded deals in it")
    return deals, more


@contextlib.contextmanager
def _open_replays(path: str) -> Iterator[io.BufferedIOBase]:
    """The file at `path` as a binary stream of its text (decompressed when it is gzip);
    a regular file only, opened without blocking (a FIFO waits for no writer)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise OSError(e.errno, f"cannot read replays from '{path}': {e.strerror}") from None
    except ValueError:  # a NUL byte in the name
        raise ValueError(f"cannot read replays from {clip(repr(path))}: the name holds a NUL byte") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
            raise ValueError(f"cannot read replays from '{path}': {kind} (give a .jsonl.gz or .jsonl file)")
        os.set_blocking(fd, True)
        raw = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with raw:
        try:
            gz = raw.read(2) == b"\x1f\x8b"
            raw.seek(0)
        except OSError as e:
            raise OSError(e.errno, f"cannot read replays from '{path}': {e.strerror}") from None
        if not gz:
            yield raw
            return
        with gzip.GzipFile(fileobj=raw, mode="rb") as f:
            yield f


def _read_deals(f: io.BufferedIOBase, path: str, limit: int) -> tuple[list[RecordedDeal], bool]:
    """The deals of the open file `f` (see read_replays), line by line, each line read in
    bounded pieces."""
    deals: list[RecordedDeal] = []
    number = blank = total = 0
    while True:
        number += 1
        line = _read_line(f, path, number)
        if not line:
            return deals, False
        total += len(line)
        empty = not line.strip()
        if not empty and len(deals) == limit:
            return deals, True
        if total > MAX_REPLAY_BYTES:
            raise ValueError(
                f"{path}: more than {MAX_REPLAY_BYTES >> 20} MiB of text by line {number:,} (after "
                f"{len(deals):,} deals; records are a few KB): not a replay file this reader takes"
            )
        if empty:
            blank += 1
            if blank > MAX_BLANK_LINES:
                raise ValueError(f"{path}: more than {MAX_BLANK_LINES:,} blank lines: not a replay file")
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"{path}:{number}: not UTF-8 ({e.reason} at byte {e.start})") from None
        deals.append(_parse_line(text, f"{path}:{number}"))


def _read_line(f: io.BufferedIOBase, path: str, number: int) -> bytes:
    """Line `number` of `f` (b"" at the end), read at most _CHUNK bytes at a time and
    refused once longer than MAX_LINE_BYTES; a stream that is not gzip or is cut short
    is a ValueError naming the file."""
    parts: list[bytes] = []
    size = 0
    try:
        while True:
            part = f.readline(_CHUNK)
            parts.append(part)
            size += len(part)
            ended = part.endswith(b"\n")
            if size - ended > MAX_LINE_BYTES:  # (the newline aside)
                raise ValueError(
                    f"{path}:{number}: a line longer than {MAX_LINE_BYTES >> 20} MiB: not a deal record "
                    "(they are a few KB)"
                )
            if not part or ended:
                break
    except (OSError, EOFError, zlib.error) as e:
        raise ValueError(f"{path}: not a readable replay file ({type(e).__name__}: {clip(str(e))})") from None
    return b"".join(parts)


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
