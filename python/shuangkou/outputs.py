"""Output files of the commands (self-play, arena, training): checked before a run,
written so that a failure names the file and never leaves half a file behind.

    from shuangkou.outputs import output_file, prepare_out
    prepare_out(Path("runs/x"), ["summary.json"])     # before the long run: ValueError naming the path
    with output_file(Path("runs/x/summary.json")) as f:  # after it: OSError naming the path
        f.write(text)

`output_file` writes into a temporary file beside the target and renames it over the
target only when the block ends without an error, so a disk that fills up, a
``Ctrl-C`` or an exception inside the block leaves the previous file (or none) in
place, never a truncated one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = ["output_file", "prepare_out"]


def _umask() -> int:
    mask = os.umask(0o022)  # (read it by setting it; put back at once)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()  # what open() would give a new file


def prepare_out(out: Path, names: list[str], what: str = "--out") -> None:
    """Makes the output folder and checks, by writing a probe file, that it and the
    files `names` in it can be written; ValueError naming the path otherwise."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"{what} '{out}' exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-test-"):
            pass
    except OSError as e:
        raise ValueError(f"{what} '{out}' cannot be written: {e.strerror or e}") from None
    for name in names:
        path = out / name
        if path.is_dir():
            raise ValueError(f"cannot write '{path}': it is a folder")
        if path.exists() and not path.is_file():
            raise ValueError(f"cannot write '{path}': it is not a regular file")
        if path.exists() and not os.access(path, os.W_OK):
            raise ValueError(f"cannot write '{path}': permission denied")


@contextlib.contextmanager
def output_file(path: str | os.PathLike, mode: str = "w", **kwargs: Any) -> Iterator[IO[Any]]:
    """Opens `path` for writing (`mode` "w" with utf-8 text by default, or "wb") through a
    temporary file in the same folder, renamed over `path` when the block ends. Any
    ``OSError`` on the way (open, write, close, rename) is raised again as an
    ``OSError`` whose message names `path`; the temporary file is removed."""
    if mode not in ("w", "wb"):
        raise ValueError(f"output_file: mode must be 'w' or 'wb', got {mode!r}")
    path = Path(path)
    if mode == "w":
        kwargs.setdefault("encoding", "utf-8")
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.fchmod(fd, _FILE_MODE)  # (mkstemp makes it private)
        with os.fdopen(fd, mode, **kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())  # on disk before the rename: a crash leaves the old file or the new one
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise OSError(e.errno, f"cannot write '{path}': {e.strerror or e}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
