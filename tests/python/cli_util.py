"""Running the ``shuangkou`` command line from tests: the venv's console script as
a subprocess, and the check that a failure is clean (used by the CLI test files)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

_SCRIPT = Path(sys.executable).with_name("shuangkou")


def cli_command() -> list[str]:
    """The installed ``shuangkou`` console script of this venv (else ``python -m shuangkou``)."""
    return [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "shuangkou"]


def run_cli(*args: str | bytes, timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs the CLI; stdout and stderr are bytes. A run past `timeout` fails the test."""
    try:
        return subprocess.run([*cli_command(), *args], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"shuangkou {' '.join(map(str, args))} still running after {timeout} s")


def assert_cli_error(p: subprocess.CompletedProcess, *needles: str) -> str:
    """A clean CLI failure: non-zero exit, no traceback, stderr one 'error:' line (or
    argparse's usage + 'prog: error:' lines), naming each of `needles`. Returns stderr."""
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode != 0, f"exit code 0; stderr: {err!r}"
    assert p.returncode > 0, f"killed by signal {-p.returncode}; stderr: {err[-2000:]!r}"
    assert "Traceback" not in err, err[-3000:]
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines, "nothing on stderr"
    if lines[0].startswith("usage:"):
        assert re.match(r"^shuangkou(?: \w+)?: error: ", lines[-1]), err
    else:
        assert len(lines) == 1, f"stderr is not one line: {err!r}"
        assert lines[0].startswith("error:"), err
    for needle in needles:
        assert needle in err, f"{needle!r} not named in stderr {err!r}"
    return err
