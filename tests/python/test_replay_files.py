"""Replay files that are no replay files (`shuangkou.replays.read_replays`, the one
reader of record files, and `shuangkou replay`): a FIFO, a device, a folder, a corrupt
gzip, a line that never ends, a file of newlines and records padded to fill memory are
each refused at once, with one error naming the file, in bounded time and memory.

The files that could hang or exhaust the reader run in a subprocess with a timeout (and,
for the command, an address-space limit), so a regression fails the test, not the run."""

from __future__ import annotations

import gzip
import json
import os
import resource
import subprocess
import time

import pytest
import shuangkou as sk
from cli_util import assert_cli_error, cli_command
from shuangkou.util.records import MAX_BLANK_LINES, MAX_LINE_BYTES, MAX_REPLAY_BYTES, read_replays
from snippet_util import run_snippet

MEMORY_LIMIT = 3 << 30  # the address space a `shuangkou replay` subprocess may take


def a_record(seed: int = 1, agents: list[str] | None = None) -> str:
    """One line of a replay file: a finished deal's record (naming `agents` when given)."""
    g = sk.Game(sk.Rules("classic"), seed=seed)
    bot = sk.Bot("greedy")
    for _ in range(2000):  # (a deal ends in a few hundred actions)
        if g.is_over():
            break
        g.apply_action(bot.step(g))
    record = json.loads(g.to_json())
    return json.dumps({"agents": agents, **record} if agents else record)


def replay_command(path: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """`shuangkou replay --no-browser PATH` in a subprocess of at most MEMORY_LIMIT of
    address space; a run past `timeout` fails the test (a good file would be served
    forever: only bad files are given here)."""
    pytest.importorskip("uvicorn")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    try:
        return subprocess.run(
            [*cli_command(), "replay", "--no-browser", path], capture_output=True, timeout=timeout, preexec_fn=limit
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"shuangkou replay {path} still running after {timeout} s")


def corrupt_gzip(path) -> None:
    """A gzip header followed by deflate data that is no deflate data (a reserved block
    type): zlib refuses it as soon as it is read."""
    good = gzip.compress((a_record() + "\n").encode())
    path.write_bytes(good[:10] + b"\xff" * 64 + good[-8:])


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder", "corrupt-gzip"])
def test_the_replay_command_refuses_a_file_that_is_no_replay_file_at_once(tmp_path, kind):
    path = tmp_path / "replays.jsonl.gz"
    if kind == "fifo":
        os.mkfifo(path)  # (no writer ever comes: opening it for reading would wait forever)
    elif kind == "folder":
        path.mkdir()
    elif kind == "corrupt-gzip":
        corrupt_gzip(path)
    name = "/dev/zero" if kind == "dev-zero" else str(path)
    start = time.monotonic()
    p = replay_command(name)
    needle = {"fifo": "not a regular file", "dev-zero": "not a regular file", "folder": "a folder"}
    err = assert_cli_error(p, name, needle.get(kind, "not a readable replay file"))
    assert p.returncode == 2, err  # bad input, not a failed run
    assert time.monotonic() - start < 50


def test_a_corrupt_gzip_is_one_value_error_naming_the_file(tmp_path):
    path = tmp_path / "bad.jsonl.gz"
    corrupt_gzip(path)
    with pytest.raises(ValueError, match=f"{path}: not a readable replay file \\(error: .*invalid block type"):
        read_replays(path)
    with pytest.raises(ValueError, match=f"cannot read replays from '{tmp_path}': a folder"):
        read_replays(tmp_path)


def _read_in_subprocess(path, timeout: float = 120) -> dict:
    """read_replays(path) in a fresh interpreter of at most MEMORY_LIMIT of address space:
    what it raised (type, message) and how much its peak resident memory grew while
    reading (KiB)."""
    code = f"""
        import json, resource
        from shuangkou.util.records import read_replays
        resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT}))
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            deals, more = read_replays({str(path)!r})
            outcome = {{"type": None, "message": f"{{len(deals)}} deals"}}
        except Exception as e:
            outcome = {{"type": type(e).__name__, "message": str(e)[:2000]}}
        outcome["grew_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        print(json.dumps(outcome))
    """
    p = run_snippet(code, timeout=timeout)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_read_replays_refuses_a_fifo_or_a_device_without_reading_it(tmp_path):
    fifo = tmp_path / "deals.jsonl"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero"):
        out = _read_in_subprocess(path, timeout=30)
        assert out["type"] == "ValueError", out
        assert (
            out["message"] == f"cannot read replays from '{path}': not a regular file (give a .jsonl.gz or .jsonl file)"
        )


def test_a_line_that_never_ends_is_refused_while_it_is_read(tmp_path):
    # 64 KiB of gzip holding one 64 MiB line: read whole, it would take 64 MiB and more.
    path = tmp_path / "bomb.jsonl.gz"
    block = b"x" * (1 << 20)
    with gzip.open(path, "wb", compresslevel=9) as f:
        for _ in range(64):
            f.write(block)
    assert path.stat().st_size < 1 << 20
    out = _read_in_subprocess(path)
    assert out["type"] == "ValueError" and f"{path}:1: a line longer than 1 MiB" in out["message"], out
    assert out["grew_kib"] < 24 << 10, out  # a bounded piece of the line, never the line


def test_a_file_of_newlines_is_refused_after_the_blank_lines_allowed(tmp_path):
    ok = tmp_path / "ok.jsonl"
    ok.write_text("\n" * MAX_BLANK_LINES + a_record() + "\n")
    assert len(read_replays(ok)[0]) == 1  # blank lines up to the cap are read past
    many = tmp_path / "newlines.jsonl.gz"
    many.write_bytes(gzip.compress(b"\n" * (64 << 20) + a_record().encode() + b"\n", compresslevel=9))
    start = time.monotonic()
    with pytest.raises(ValueError, match=f"{many}: more than {MAX_BLANK_LINES:,} blank lines"):
        read_replays(many)
    assert time.monotonic() - start < 5  # (reading the 64 Mi lines one by one takes half a minute)


def test_padded_records_are_refused_past_the_total_cap(tmp_path):
    # Records whose seats carry 0.9 MB labels: each is a valid record, but 160 of them are
    # more text than a replay file may hold; the reader stops at the cap.
    path = tmp_path / "padded.jsonl.gz"
    line = (a_record(agents=["x" * 225_000] * 4) + "\n").encode()
    count = MAX_REPLAY_BYTES // len(line) + 10
    with gzip.open(path, "wb", compresslevel=1) as f:
        for _ in range(count):
            f.write(line)
    out = _read_in_subprocess(path, timeout=300)
    kept = MAX_REPLAY_BYTES // len(line)
    assert out["type"] == "ValueError", out
    cap = f"more than {MAX_REPLAY_BYTES >> 20} MiB of text by line {kept + 1:,} (after {kept:,} deals"
    assert f"{path}: {cap}" in out["message"], out  # refused at the cap, the rest never read
    assert out["grew_kib"] < 3 * MAX_REPLAY_BYTES >> 10, out


def test_a_line_at_the_cap_is_read_and_one_past_it_is_not(tmp_path):
    record = a_record()
    at_cap = record[:-1] + " " * (MAX_LINE_BYTES - len(record)) + "}"  # (JSON space: the same record)
    path = tmp_path / "long.jsonl"
    path.write_text(at_cap + "\n")
    assert len(at_cap) == MAX_LINE_BYTES and len(read_replays(path)[0]) == 1
    path.write_text(record + "\n" + " " + at_cap + "\n")
    with pytest.raises(ValueError, match=f"{path}:2: a line longer than 1 MiB"):
        read_replays(path)


def test_a_file_not_in_utf8_names_the_line(tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(a_record().encode() + b"\n" + b'{"agents": ["caf\xe9"]}\n')
    with pytest.raises(ValueError, match=f"{path}:2: not UTF-8"):
        read_replays(path)
