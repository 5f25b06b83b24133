"""Output files of the commands (self-play, arena, training, play): checked before a
run, never written over an earlier run's without being asked, and written so that a
failure names the file and never leaves half a file behind.

    from shuangkou.util.outputs import output_file, prepare_out
    prepare_out(Path("runs/x"), ["summary.json"])     # before the long run: ValueError naming the path
    with output_file(Path("runs/x/summary.json")) as f:  # after it: OSError naming the path
        f.write(text)

`prepare_out` refuses a folder that already holds an earlier run's outputs (its
`marks`: any file the command writes) unless `force` is given, and then removes them
before the run starts, so the folder never mixes two runs. Nothing is written or
removed before a refusal.

`output_file` writes into a temporary file beside the target and renames it over the
target only when the block ends without an error, so a disk that fills up, a
``Ctrl-C`` or an exception inside the block leaves the previous file (or none) in
place, never a truncated one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

__all__ = ["output_file", "prepare_out", "removed_if_empty"]


def _umask() -> int:
    mask = os.umask(0o022)  # (read it by setting it; put back at once)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()  # what open() would give a new file


def prepare_out(
    out: str | os.PathLike,
    names: Sequence[str],
    what: str = "--out",
    *,
    marks: Sequence[str] | None = None,
    force: bool = False,
    hint: str = "give --force to replace it",
) -> bool:
    """Makes the output folder and checks, by writing a probe file, that it and the
    files `names` in it can be written; ValueError naming the path otherwise.

    `marks` (default: `names`) are the files that show the folder holds an earlier
    run of the command. When one of them exists, the folder is refused (a ValueError
    naming the folder, the files and `hint`: how to go on) unless `force`; with `force`
    they are removed once every check has passed. Nothing is written or removed before
    a refusal. Give ``marks=()`` for a run that goes on in the folder (a resume).

    Returns whether it made the folder (`removed_if_empty` undoes that after a refusal)."""
    out = Path(out)
    made = not out.exists()
    if out.exists() and not out.is_dir():
        raise ValueError(f"{what} '{out}' exists and is not a folder")
    for name in names:
        path = out / name
        if path.is_dir():
            raise ValueError(f"cannot write '{path}': it is a folder")
        if path.exists() and not path.is_file():
            raise ValueError(f"cannot write '{path}': it is not a regular file")
        if path.exists() and not os.access(path, os.W_OK):
            raise ValueError(f"cannot write '{path}': permission denied")
    found = [m for m in (names if marks is None else marks) if (out / m).is_file() or (out / m).is_symlink()]
    if found and not force:
        raise ValueError(
            f"{what} '{out}' already holds an earlier run ({', '.join(found)}): {hint}, "
            "or choose another folder (nothing was written)"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-test-"):
            pass
    except OSError as e:
        raise ValueError(f"{what} '{out}' cannot be written: {e.strerror or e}") from None
    for name in found:  # (force) the earlier run's files go: the folder never mixes two runs
        try:
            (out / name).unlink(missing_ok=True)
        except OSError as e:
            raise ValueError(f"{what}: cannot remove the earlier '{out / name}': {e.strerror or e}") from None
    return made


@contextlib.contextmanager
def removed_if_empty(out: str | os.PathLike, made: bool) -> Iterator[None]:
    """Removes the folder `out` when the block raises, if prepare_out made it (`made`) and
    nothing was written into it: a refused or failed command leaves no empty folder."""
    try:
        yield
    except BaseException:
        if made:
            with contextlib.suppress(OSError):
                Path(out).rmdir()  # (only an empty folder goes)
        raise


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
