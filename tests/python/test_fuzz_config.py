"""The fuzz target of the variant config loader (tests/fuzz/config_fuzz.py)
in its short mode: atheris from the target's structured seeds for a few
hundred inputs (about 10 s), in a subprocess; any input for which
parse_entries or Rules raises something other than ValueError fails it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("atheris")

TARGET = Path(__file__).resolve().parents[2] / "tests" / "fuzz" / "config_fuzz.py"


def test_config_loader_raises_only_value_error(tmp_path):
    # -seed fixes the inputs; -max_total_time bounds a slow machine; crash
    # files go to tmp_path, and no corpus is written.
    args = ["-runs=600", "-seed=1", "-max_total_time=20", "-timeout=60", f"-artifact_prefix={tmp_path}/"]
    r = subprocess.run([sys.executable, str(TARGET), *args], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    out = r.stdout + r.stderr
    # The failing text, and the exception that escaped.
    found = dict.fromkeys(
        line[:600]
        for line in out.splitlines()
        if line.startswith("config_fuzz:") or re.match(r"\w+(Error|Exception)\b", line)
    )
    tail = "\n".join(line for line in out.splitlines()[-40:] if not line.startswith("INFO: Instrumenting"))
    assert r.returncode == 0, f"config_fuzz exited {r.returncode}:\n" + "\n".join(found) + "\n...\n" + tail
