"""Output files and folders (shuangkou.outputs): `--out` is probed before a run
starts, every output file is written to a temporary name and renamed into place
(never half a file), and a file that cannot be written is named."""

from __future__ import annotations

import resource
import signal
import subprocess
from pathlib import Path

import pytest
from cli_util import assert_cli_error, cli_command, run_cli

# ---------------------------------------------------------------------------- --out checked before the run


@pytest.fixture
def regular_file(tmp_path: Path) -> Path:
    f = tmp_path / "a_file"
    f.write_text("not a folder\n")
    return f


@pytest.mark.parametrize("replays", [["--replays", "all"], []], ids=["replays", "no-replays"])
@pytest.mark.parametrize("where", ["under-a-file", "proc"])
def test_cli_selfplay_unwritable_out_fails_before_playing(regular_file, where, replays):
    """4: `--out DIR` where nothing can be written played every deal first and
    failed only when writing the summary (with /proc: 300,000 deals, then an error).
    Fixed: it fails before playing (here within 10 s although the deals would take far
    longer), non-zero exit, one line on stderr naming the path, no summary printed."""
    out = str(regular_file / "sub") if where == "under-a-file" else "/proc"
    p = run_cli("selfplay", "--games", "3000000", "--quiet", "--out", out, *replays, timeout=10)
    assert_cli_error(p, out)
    assert b"deals of" not in p.stdout, "it played before failing"


@pytest.mark.parametrize("kind", ["existing-file", "under-a-file", "proc"])
def test_cli_out_that_cannot_be_a_folder_fails_cleanly(regular_file, kind):
    """9: --out naming an existing file, a path under a file, or a place that
    cannot be created: a one-line error naming the path."""
    out = {"existing-file": str(regular_file), "under-a-file": str(regular_file / "x"), "proc": "/proc/x"}[kind]
    p = run_cli("selfplay", "--games", "10", "--quiet", "--out", out, timeout=30)
    assert_cli_error(p, out)


def test_an_output_that_is_not_a_regular_file_is_refused_before_the_run(tmp_path):
    import os

    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "summary.json")
    p = subprocess.run(
        [*cli_command(), "selfplay", "--games", "10", "--quiet", "--out", str(out)], capture_output=True, timeout=60
    )
    assert_cli_error(p, str(out / "summary.json"), "not a regular file")


# ---------------------------------------------------------------------------- files written whole, or named when they cannot be


def _limit_file_size(limit: int):
    def preexec() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return preexec


@pytest.mark.parametrize(
    "args, name",
    [
        (["arena", "--agents", "greedy,random", "--deals", "20"], "results.json"),
        (["selfplay", "--games", "20"], "summary.json"),
    ],
)
def test_an_output_that_cannot_be_written_is_named(tmp_path, args, name):
    out = tmp_path / "out"
    p = subprocess.run(
        [*cli_command(), *args, "--quiet", "--out", str(out)],
        capture_output=True,
        timeout=180,
        preexec_fn=_limit_file_size(1500),  # smaller than the file, larger than nothing
    )
    err = assert_cli_error(p, str(out / name))
    assert "too large" in err.lower()
    assert not (out / name).exists()  # never half a file
    assert not [f for f in out.iterdir() if f.name.endswith(".tmp")]  # and no temporary left behind


def test_output_file_replaces_whole_or_not_at_all(tmp_path):
    from shuangkou.util.outputs import output_file

    target = tmp_path / "x.json"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with output_file(target) as f:
            f.write("new, half")
            raise RuntimeError("stopped")
    assert target.read_text() == "old"
    with output_file(target) as f:
        f.write("new")
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]
    assert (target.stat().st_mode & 0o777) == (0o666 & ~_umask())


def _umask() -> int:
    import os

    mask = os.umask(0o022)
    os.umask(mask)
    return mask
