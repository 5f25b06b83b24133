"""Replay files: gzip JSON lines, one deal record (`Game.to_json`) per line.

from shuangkou.replays import ReplayWriter
w = ReplayWriter("runs/x/replays.jsonl.gz"); w.write(records); w.close()
"""

from __future__ import annotations

import gzip
import os

__all__ = ["ReplayWriter"]


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
        try:
            for r in records:
                self._file.write(r)
                self._file.write("\n")
        except OSError as e:
            raise OSError(e.errno, f"writing replays to '{self.path}' failed: {e.strerror}") from None

    def close(self) -> None:
        try:
            self._file.close()
        except OSError as e:
            raise OSError(e.errno, f"writing replays to '{self.path}' failed: {e.strerror}") from None
