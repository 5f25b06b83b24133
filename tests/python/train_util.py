"""A tiny training run for the training tests: its settings as a TrainConfig or a
YAML file, and readers of its logs and folder."""

from __future__ import annotations

import csv
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from shuangkou.dmc.learner import TrainConfig

# A run of a few seconds: six updates, a checkpoint and evaluation at 3 and 6.
TINY = {
    "variant": "baibian",
    "hidden": [8],
    "num_envs": 16,
    "threads": 1,
    "collect": 64,
    "batch_size": 64,
    "updates": 6,
    "push_every": 1,
    "log_every": 1,
    "eval_every": 3,
    "eval_deals": 2,
    "eval_opponent": "random",
    "device": "cpu",
}


def tiny(**change) -> TrainConfig:
    return TrainConfig.from_dict({**TINY, **change})


def tiny_yaml(path: Path, **change) -> Path:
    lines = [f"{k}: {list(v) if isinstance(v, list) else v}" for k, v in {**TINY, **change}.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def log(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


def updates(path: Path) -> list[int]:
    return [int(r["update"]) for r in log(path)]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()} if folder.exists() else {}


# "Billion laughs": six levels of ten aliases, a million values once expanded.
BOMB = (
    "[&a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "
    + ", ".join(f"&{c} [{', '.join(['*' + p] * 10)}]" for p, c in zip("abcde", "bcdef"))
    + "]"
)


def signal_run(cmd: list[str], ready: Callable[[], bool], sig: int = signal.SIGINT) -> tuple[int, str, str]:
    """Runs `cmd`, sends it `sig` once `ready()` (polled for at most 90 s) and returns
    (exit code, stdout, stderr); the process is killed however this ends."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None and not ready():
            time.sleep(0.1)
        assert proc.poll() is None, f"the run ended before the signal: {proc.communicate()}"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    return proc.returncode, out, err


def rows_past(path: Path, n: int) -> Callable[[], bool]:
    """A `ready` for signal_run: the log at `path` holds more than `n` rows."""

    def ready() -> bool:
        try:
            return len(path.read_text(encoding="utf-8").splitlines()) > n + 1
        except OSError:
            return False

    return ready
