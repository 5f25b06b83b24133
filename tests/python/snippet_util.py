"""Running Python code in a fresh interpreter from tests: a crash (a segfault, an
abort) or a hang there fails only the calling test instead of killing the pytest run."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest


def run_snippet(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs Python code in a fresh interpreter (a crash there fails only the caller)."""
    try:
        p = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"subprocess still running after {timeout} s")
    assert p.returncode >= 0, f"the subprocess crashed (signal {-p.returncode}); stderr: {p.stderr[-3000:]}"
    return p


# A subprocess snippet's result: the last stdout line, JSON {"type": ..., "message": ...}.
_REPORT = """
import json as _json
def _report(fn):
    try:
        fn()
    except BaseException as e:  # noqa: B902
        print(_json.dumps({"type": type(e).__name__, "message": str(e)[:5000]}))
    else:
        print(_json.dumps({"type": None, "message": ""}))
"""


def snippet_outcome(body: str, timeout: float = 120) -> dict:
    p = run_snippet(_REPORT + textwrap.dedent(body), timeout=timeout)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])
