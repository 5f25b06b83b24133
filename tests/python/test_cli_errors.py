"""The command line driven as a subprocess with bad arguments, and a few good ones.

A bad argument must end the command with a non-zero exit code and a message on
stderr that names it: one line starting with "error:" (the command's own checks) or
argparse's usage lines and its "shuangkou ...: error: ..." line; never a traceback.
The script run is this venv's ``shuangkou`` console script.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import shuangkou as sk
from cli_util import assert_cli_error, run_cli

ROOT = Path(__file__).resolve().parents[2]


SELFPLAY = ["selfplay", "--games", "20", "--threads", "1", "--quiet"]

# ---------------------------------------------------------------------------- commands and options


@pytest.mark.parametrize(
    "args,needles",
    [
        (["frobnicate"], ["frobnicate"]),
        (["SELFPLAY"], ["SELFPLAY"]),
        ([], ["command"]),
        (["--frob"], []),  # argparse reports the missing command first
        (["--frob", "read", "5"], ["--frob"]),
        (["selfplay", "--frob"], ["--frob"]),
        (["selfplay", "--games"], ["--games"]),
        (["selfplay", "extra"], ["extra"]),
        (["moves", "--frob"], ["--frob"]),
        (["moves", "--hand"], ["--hand"]),
        (["read"], ["cards"]),
        (["read", "5", "6"], ["6"]),
        (["read", "5", "--frob"], ["--frob"]),
    ],
    ids=[
        "unknown-command",
        "command-case",
        "no-command",
        "unknown-top-option",
        "unknown-top-option-with-command",
        "selfplay-unknown-option",
        "games-without-value",
        "selfplay-extra-argument",
        "moves-unknown-option",
        "hand-without-value",
        "read-without-cards",
        "read-two-arguments",
        "read-unknown-option",
    ],
)
def test_unknown_commands_and_options(args, needles):
    assert_cli_error(run_cli(*args), *needles)


# ---------------------------------------------------------------------------- --variant


@pytest.fixture
def bad_files(tmp_path: Path) -> dict[str, str]:
    garbage = tmp_path / "garbage.yaml"
    garbage.write_text("max_bomb: [\n")
    partial = tmp_path / "partial.yaml"
    partial.write_text("max_bomb: 8\n")
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text((ROOT / "configs/variants/baibian.yaml").read_text() + "no_such_parameter: 1\n")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00max_bomb: 8\n")
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    return {
        "missing": str(tmp_path / "missing.yaml"),
        "garbage": str(garbage),
        "partial": str(partial),
        "unknown": str(unknown),
        "binary": str(binary),
        "folder": str(folder),
        "device": "/dev/zero",
    }


@pytest.mark.parametrize("value", ["nosuch", "", "baibian ", "bai bian", "max_bomb=10"])
def test_selfplay_bad_variant_name(value):
    assert_cli_error(run_cli(*SELFPLAY, "--variant", value), f"'{value}'")


@pytest.mark.parametrize("kind", ["missing", "garbage", "partial", "unknown", "binary", "folder", "device"])
def test_selfplay_bad_variant_file(bad_files, kind):
    assert_cli_error(run_cli(*SELFPLAY, "--variant", bad_files[kind]), bad_files[kind])


@pytest.mark.parametrize("command", [["moves"], ["read", "5 6 7 8 9"]], ids=["moves", "read"])
@pytest.mark.parametrize("value", ["nosuch", ""])
def test_moves_and_read_bad_variant(command, value):
    assert_cli_error(run_cli(*command, "--variant", value), f"'{value}'")


def test_bad_variant_is_reported_before_any_progress_bar():
    """Without --quiet a bad variant printed a 0% progress bar to stderr before the error."""
    p = run_cli("selfplay", "--games", "20", "--variant", "nosuch")
    assert_cli_error(p, "'nosuch'")


# ---------------------------------------------------------------------------- --set


@pytest.mark.parametrize(
    "pairs,needles",
    [
        (["max_bomb"], ["max_bomb"]),
        (["=5"], ["=5"]),
        (["max_bomb=99"], ["99", "max_bomb"]),
        (["max_bomb=ten"], ["ten", "max_bomb"]),
        (["max_bomb="], ["max_bomb"]),
        (["max_bomb=10.5"], ["10.5"]),
        (["max_bomb=99999999999999999999999"], ["99999999999999999999999"]),
        (["nosuch=1"], ["nosuch"]),
        (["chain_bomb=maybe"], ["maybe", "chain_bomb"]),
        (["wild_jokers=SJ"], ["SJ", "wild_jokers"]),
        (["tianwang=middle"], ["middle"]),
        (["wild=both", "wild_jokers=none"], ["wild", "wild_jokers"]),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else "",
)
def test_selfplay_bad_set(pairs, needles):
    args = [a for pair in pairs for a in ("--set", pair)]
    assert_cli_error(run_cli(*SELFPLAY, *args), *needles)


def test_selfplay_set_with_non_utf8_value():
    assert_cli_error(run_cli(*SELFPLAY, "--set", b"tianwang=\xff\xfe"), "tianwang")


# ---------------------------------------------------------------------------- --agents


@pytest.mark.parametrize(
    "value,needles",
    [
        ("foo", ["'foo'"]),
        ("heuristic,foo", ["'foo'"]),
        ("Random", ["'Random'"]),
        ("random,random,random", ["3"]),
        ("random,random,random,random,random", ["5"]),
        ("", ["''"]),
        ("random,,random,random", ["''"]),
    ],
)
def test_selfplay_bad_agents(value, needles):
    assert_cli_error(run_cli(*SELFPLAY, "--agents", value), *needles)


# ---------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    "option,value",
    [
        ("--games", "-1"),
        ("--games", "0"),
        ("--games", "abc"),
        ("--games", "1.5"),
        ("--games", "1e3"),
        ("--games", "18446744073709551616"),
        ("--games", "-18446744073709551616"),
        ("--games", "1" + "0" * 30),
        ("--threads", "-1"),
        ("--threads", "abc"),
        ("--threads", "200000"),
        ("--threads", "99999999999999999999"),
        ("--seed", "-1"),
        ("--seed", "18446744073709551616"),
        ("--seed", "abc"),
        ("--seed", "1.5"),
        ("--seed", "1" + "0" * 400),
    ],
    ids=lambda v: v if len(v) < 25 else f"{v[:3]}...({len(v)} digits)",
)
def test_selfplay_bad_numbers(option, value):
    args = ["selfplay", "--quiet", option, value]
    args += ["--games", "20"] if option != "--games" else []
    args += ["--threads", "1"] if option != "--threads" else []
    err = assert_cli_error(run_cli(*args))
    assert value[:20] in err or option.lstrip("-") in err, err


@pytest.mark.parametrize(
    "value,needles",
    [
        ("-3", ["-3"]),
        ("some", ["some"]),
        ("", ["''"]),
        ("1.5", ["1.5"]),
        ("100000000000000000000", ["100000000000000000000"]),
        ("1" + "0" * 400, ["replays"]),
    ],
    ids=["negative", "word", "empty", "float", "1e20", "400-digits"],
)
def test_selfplay_bad_replays(tmp_path, value, needles):
    assert_cli_error(run_cli(*SELFPLAY, "--out", str(tmp_path / "out"), "--replays", value), *needles)


def test_selfplay_replays_without_out():
    assert_cli_error(run_cli(*SELFPLAY, "--replays", "5"), "--out")


def test_selfplay_out_is_a_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    assert_cli_error(run_cli(*SELFPLAY, "--out", str(f)), str(f))


# ---------------------------------------------------------------------------- cards


@pytest.mark.parametrize(
    "cards,needles",
    [
        ("5 X", ["'X'"]),
        ("5 6 joker", ["'joker'"]),
        ("11", ["'11'"]),
        ("SJ SJ SJ", ["SJ"]),
        ("7 7 7 7 7 7 7 7 7", ["7"]),
        ("３", ["３"]),
    ],
)
def test_read_bad_cards(cards, needles):
    assert_cli_error(run_cli("read", cards), *needles)


@pytest.mark.parametrize(
    "raw",
    [b"\xff\xfe", b"5 6 \xff", b"\xed\xa0\x80"],
    ids=["ff-fe", "tail", "encoded-surrogate"],
)
def test_read_non_utf8_cards(raw):
    assert_cli_error(run_cli(b"read", raw))


@pytest.mark.parametrize(
    "args,needles",
    [
        (["--hand", "5 X"], ["'X'"]),
        (["--hand", "7 7 7 7 7 7 7 7 7"], ["7"]),
        (["--hand", "3 3 3 3 3 3 3 3 4 4 4 4 4 4 4 4 5 5 5 5 5 5 5 5 6 6 6 6"], ["28"]),
        (["--hand", "3 4", "--previous", "9 X"], ["'X'"]),
        (["--hand", "3 4", "--previous", "3 4"], ["3 4"]),
        (["--hand", "3 4", "--previous", "SJ SJ SJ"], ["SJ"]),
    ],
    ids=["bad-card", "nine-7s", "28-cards", "bad-previous", "previous-no-play", "previous-three-SJ"],
)
def test_moves_bad_cards(args, needles):
    assert_cli_error(run_cli("moves", *args), *needles)


def test_moves_non_utf8_hand():
    assert_cli_error(run_cli(b"moves", b"--hand", b"\xff\xfe"))


# ---------------------------------------------------------------------------- good invocations


def test_version():
    p = run_cli("--version")
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode().strip() == f"shuangkou {sk.__version__}"


def test_python_dash_m_version():
    p = subprocess.run([sys.executable, "-m", "shuangkou", "--version"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == f"shuangkou {sk.__version__}", p.stderr


def test_read_a_straight():
    p = run_cli("read", "5 6 7 8 BJ")
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode().strip() == "* straight: 5 6 7 8 9 (key 9)"
    assert p.stderr == b""


def test_read_with_ten_spelled_10():
    p = run_cli("read", "10 J Q K A", "--variant", "classic")
    assert p.returncode == 0, p.stderr
    assert "straight: T J Q K A" in p.stdout.decode()


def test_moves_of_a_small_hand():
    p = run_cli("moves", "--hand", "3 4")
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert "hand of 2: 3 4" in out and out.strip().endswith("2 moves")


def test_moves_to_beat_a_pair():
    p = run_cli("moves", "--variant", "baibian", "--hand", "T J J Q BJ", "--previous", "9 9")
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode().strip().endswith("3 moves")


def test_small_selfplay_writes_its_outputs(tmp_path):
    out = tmp_path / "run"
    p = run_cli(
        "selfplay",
        "--variant",
        "classic",
        "--games",
        "200",
        "--threads",
        "2",
        "--agents",
        "heuristic,random",
        "--seed",
        "7",
        "--replays",
        "5",
        "--set",
        "max_bomb=10",
        "--quiet",
        "--out",
        str(out),
        timeout=120,
    )
    assert p.returncode == 0, p.stderr.decode()
    assert "Traceback" not in p.stderr.decode()
    stdout = p.stdout.decode()
    assert stdout.startswith("200 deals of classic (seed 7, agents by seat: heuristic, random, heuristic, random)")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 200 and summary["params"]["max_bomb"] == "10"
    assert (out / "deals.npz").stat().st_size > 0
    with gzip.open(out / "replays.jsonl.gz", "rt", encoding="utf-8") as f:
        records = [line for line in f.read().splitlines() if line]
    assert len(records) == 5
    for r in records:
        line = json.loads(r)
        assert line["agents"] == ["heuristic", "random", "heuristic", "random"]  # a record names its seats
        g = sk.Game.from_json(r)  # (it replays as it is)
        assert g.is_over() and g.params["max_bomb"] == "10" and line["seed"] is not None


def test_selfplay_help():
    p = run_cli("selfplay", "--help")
    assert p.returncode == 0 and b"--games" in p.stdout and p.stderr == b""


# ---------------------------------------------------------------------------- numbers and text the command line cannot take


def test_cli_selfplay_with_200000_threads_fails_cleanly():
    """3: `shuangkou selfplay --threads 200000` segfaulted. Fixed: a one-line error."""
    p = run_cli("selfplay", "--games", "100", "--threads", "200000", "--quiet", timeout=60)
    err = assert_cli_error(p)
    assert "thread" in err.lower(), err


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--games", "18446744073709551616"], "18446744073709551616"),
        (["--games", "100000000000000000000000"], "100000000000000000000000"),
        (["--games", "10", "--replays", "100000000000000000000"], "100000000000000000000"),
        (["--games", "10", "--threads", "99999999999999999999"], "99999999999999999999"),
        (["--games", "10", "--seed", "1" + "0" * 400], "seed"),
    ],
    ids=["games-2**64", "games-1e23", "replays-1e20", "threads-1e20", "seed-400-digits"],
)
def test_cli_huge_numbers_fail_cleanly(tmp_path, args, needle):
    """9: --games 18446744073709551616 and --replays 100000000000000000000 ended
    in a TypeError traceback. Fixed: a one-line error naming the value."""
    p = run_cli("selfplay", "--quiet", "--out", str(tmp_path / "out"), *args, timeout=30)
    assert_cli_error(p, needle)


def test_cli_a_billion_games_is_refused_quickly():
    """9: --games 1000000000 tried to allocate every per-deal result up front
    (MemoryError traceback, or on a big machine, gigabytes). Fixed: refused within 10 s
    with a one-line error about the count or memory."""
    p = run_cli("selfplay", "--games", "1000000000", "--quiet", timeout=10)
    err = assert_cli_error(p)
    assert re.search(r"memory|1000000000|1,000,000,000|1e9|games", err, re.IGNORECASE), err


@pytest.mark.parametrize(
    "argv",
    [
        [b"read", b"\xff\xfe"],
        [b"read", b"5 6 7 8 \xff"],
        [b"moves", b"--hand", b"\xff\xfe"],
        [b"moves", b"--hand", b"3 4", b"--previous", b"\xff"],
    ],
    ids=["read", "read-tail", "moves-hand", "moves-previous"],
)
def test_cli_non_utf8_argument_fails_cleanly(argv):
    """A non-UTF-8 argument to `shuangkou read` ended in a RuntimeError
    traceback. Fixed: a one-line error."""
    assert_cli_error(run_cli(*argv, timeout=30))


# ---------------------------------------------------------------------------- help and last resorts


def test_cli_selfplay_help_has_no_doubled_percent():
    """`shuangkou selfplay --help` printed "95%% confidence" (a %% escape in a
    description that argparse's formatter class does not expand)."""
    p = run_cli("selfplay", "--help", timeout=30)
    assert p.returncode == 0
    out = p.stdout.decode()
    assert "%%" not in out, [line for line in out.splitlines() if "%%" in line]
    assert "95% confidence" in " ".join(out.split())


def test_a_reader_that_goes_away_is_not_an_error():
    """`shuangkou moves | head -1`: BrokenPipeError is an OSError, and was reported as
    'error: [Errno 32] Broken pipe' with exit 1 because the OSError branch came first.
    Now it stops quietly with 141, as a command killed by SIGPIPE (test_cli_consistency.py
    runs the real command with a closed pipe)."""
    import sys

    code = textwrap.dedent(
        """
        import os, sys
        r, w = os.pipe()
        os.close(r)
        os.dup2(w, 1)
        sys.stdout.reconfigure(line_buffering=True)
        from shuangkou.cli import main
        rc = main(["moves"])
        sys.stderr.write(f"rc={rc}\\n")
        """
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.stderr.strip().splitlines()[-1] == "rc=141", p.stderr
    assert "error" not in p.stderr
