"""Training under bad input (issue 17): config files go through the variant
reader's rules, every setting is checked (range and memory) before the first
update, a resume refuses a checkpoint that is not its own, outputs are probed
first and written whole, the logs stay in step with the checkpoint after an
interrupt, and the command line reports each failure in one line."""

from __future__ import annotations

import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import shuangkou as sk  # noqa: E402
from cli_util import assert_cli_error, run_cli  # noqa: E402
from shuangkou.dmc import config as dmc_config  # noqa: E402
from shuangkou.dmc import learner  # noqa: E402
from shuangkou.dmc.learner import TrainConfig, train  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A finished tiny run (checkpoint at update 6); tests copy it."""
    out = tmp_path_factory.mktemp("trained")
    train(tiny(), out, progress=False)
    return out


@pytest.fixture
def run_dir(trained, tmp_path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(trained, out)
    return out


# --- 1. config files: the variant reader's rules -------------------------

# "Billion laughs": six levels of ten aliases, a million values once expanded.
BOMB = (
    "[&a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "
    + ", ".join(f"&{c} [{', '.join(['*' + p] * 10)}]" for p, c in zip("abcde", "bcdef"))
    + "]"
)


@pytest.mark.parametrize(
    "text, needles",
    [
        ("variant: baibian\nlr: [0.1\n", [":3:", "YAML syntax error"]),
        ("lr: !!python/object/apply:os.system ['true']\n", [":1:", "lr", "python/object/apply"]),
        ("lr: 0.1\nupdates: 5\nlr: 0.2\n", [":3:", "'lr' is given twice (first on line 1)"]),
        ("hidden: !!set {8: null}\n", [":1:", "hidden", "!!set"]),
        ("seed: 2001-12-14\n", [":1:", "seed", "timestamp"]),
        ("'': 1\n", [":1:", "unknown setting"]),
        ("- lr\n- 0.1\n", ["the document is a list"]),
        ("", ["the file is empty"]),
        ("lr: 0.1\n---\nlr: 0.2\n", ["several YAML documents"]),
        ("lr: 0.1\nhidden: " + BOMB + "\n", [":2:", "hidden", "more than 4096 values"]),
        ("lr: 0.1\nreward: " + BOMB + "\n", [":2:", "reward", "more than 4096 values"]),
        ("hidden: &r [*r]\n", [":1:", "hidden", "nested more than"]),
        ("hidden: " + "[" * 5000 + "]" * 5000 + "\n", ["nested too deep"]),
        ("seed: " + "9" * 5000 + "\n", [":1:", "seed", "cannot read the value"]),
        ('reward: "\\ud800"\n', [":1:", "reward", "lone surrogate"]),
        ("reward: " + "x" * 100_000 + "\n", [":1:", "reward", "characters)"]),
    ],
)
def test_config_file_errors_name_the_file_and_line(tmp_path, text, needles):
    path = tmp_path / "cfg.yaml"
    path.write_text(text, encoding="utf-8")
    start = time.perf_counter()
    with pytest.raises(ValueError) as e:
        TrainConfig.from_yaml(path)
    assert time.perf_counter() - start < 5
    msg = str(e.value)
    assert type(e.value) is ValueError and msg.startswith(str(path)), msg
    assert len(msg) < 1000, f"the message echoes too much: {len(msg)} characters"
    for needle in needles:
        assert needle in msg, (needle, msg)


@pytest.mark.parametrize(
    "line, expected",
    [
        ("updates: 010", "got '010' (YAML 1.1 reads it as '8')"),
        ("updates: 0x10", "got '0x10' (YAML 1.1 reads it as '16')"),
        ("updates: 1:00", "got '1:00' (YAML 1.1 reads it as '60')"),
        ("updates: 1_000", "got '1_000' (YAML 1.1 reads it as '1000')"),
        ("lr: 1:00.5", "got '1:00.5' (YAML 1.1 reads it as '60.5')"),
        ("lr: 1e-3", 0.001),
        ("lr: 2.5E-4", 0.00025),
        ("lr: .5", 0.5),
        ("lr: '1e-3'", "is not a valid float"),  # (quoted: a string)
    ],
)
def test_numbers_are_plain_decimal(tmp_path, line, expected):
    """YAML 1.1 (PyYAML) read `updates: 010` as 8 and `1:00` as 60 silently, and refused
    `lr: 1e-3` as "not a valid float": numbers are read as YAML 1.2 writes them."""
    path = tmp_path / "c.yaml"
    path.write_text(f"base: {ROOT / 'configs/train/smoke.yaml'}\n{line}\n")
    if isinstance(expected, str):
        with pytest.raises(ValueError, match=re.escape(expected)):
            TrainConfig.from_yaml(path)
    else:
        assert TrainConfig.from_yaml(path).lr == expected


def test_config_files_that_are_not_regular_utf8_files(tmp_path):
    (tmp_path / "latin1.yaml").write_bytes("variant: baibian # caf\xe9\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin1\.yaml.*not UTF-8"):
        TrainConfig.from_yaml(tmp_path / "latin1.yaml")
    (tmp_path / "big.yaml").write_text("# " + "x" * (1 << 20) + "\nlr: 0.1\n")
    with pytest.raises(ValueError, match=r"big\.yaml.*larger than"):
        TrainConfig.from_yaml(tmp_path / "big.yaml")
    with pytest.raises(ValueError, match=r"cannot read training config .*missing\.yaml"):
        TrainConfig.from_yaml(tmp_path / "missing.yaml")
    with pytest.raises(ValueError, match="not a regular file"):
        TrainConfig.from_yaml(tmp_path)
    (tmp_path / "zero.yaml").write_text("base: /dev/zero\nlr: 0.1\n")
    with pytest.raises(ValueError, match=r"/dev/zero.*not a regular file"):
        TrainConfig.from_yaml(tmp_path / "zero.yaml")
    (tmp_path / "based.yaml").write_text("base: latin1.yaml\n")
    with pytest.raises(ValueError, match=r"latin1\.yaml.*not UTF-8"):
        TrainConfig.from_yaml(tmp_path / "based.yaml")
    (tmp_path / "dup.yaml").write_text("lr: 0.1\nlr: 0.2\n")
    (tmp_path / "dupbase.yaml").write_text("base: dup.yaml\nupdates: 5\n")
    with pytest.raises(ValueError, match=r"dup\.yaml:2: 'lr' is given twice"):
        TrainConfig.from_yaml(tmp_path / "dupbase.yaml")
    (tmp_path / "nul.yaml").write_text('base: "a\\0b"\n')
    with pytest.raises(ValueError, match="NUL byte"):
        TrainConfig.from_yaml(tmp_path / "nul.yaml")
    (tmp_path / "list.yaml").write_text("base: [a.yaml]\n")
    with pytest.raises(ValueError, match=r"list\.yaml:1: base: \['a.yaml'\] is not a file name"):
        TrainConfig.from_yaml(tmp_path / "list.yaml")


def test_a_fifo_config_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)

    def unblock() -> None:  # if the reader waits for a writer, free it after a while
        time.sleep(5)
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass

    threading.Thread(target=unblock, daemon=True).start()
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"fifo\.yaml.*not a regular file"):
        TrainConfig.from_yaml(fifo)
    assert time.perf_counter() - start < 4
    (tmp_path / "via.yaml").write_text("base: fifo.yaml\n")
    with pytest.raises(ValueError, match=r"fifo\.yaml.*not a regular file"):
        TrainConfig.from_yaml(tmp_path / "via.yaml")


def test_the_values_of_a_file_carry_their_line(tmp_path):
    path = tmp_path / "cfg.yaml"
    path.write_text("variant: baibian\n\nbatch_size: 0\n")
    with pytest.raises(ValueError, match=r"cfg\.yaml:3: batch_size: must be an integer 1\.\."):
        TrainConfig.from_yaml(path)
    (tmp_path / "base.yaml").write_text("lr: -1\n")
    (tmp_path / "child.yaml").write_text("base: base.yaml\nupdates: 5\n")
    with pytest.raises(ValueError, match=r"base\.yaml:1: lr: must be a positive number"):
        TrainConfig.from_yaml(tmp_path / "child.yaml")


# --- 2. every value's range, checked at load -----------------------------


@pytest.mark.parametrize(
    "change, needle",
    [
        ({"seed": 2**64}, "seed"),
        ({"seed": -1}, "seed"),
        ({"hidden": [4] * 65}, "hidden"),
        ({"hidden": [65537]}, "hidden"),
        ({"hidden": [0]}, "hidden"),
        ({"threads": sk._core.MAX_THREADS + 1}, "threads"),
        ({"threads": -1}, "threads"),
        ({"num_envs": 10**9}, "num_envs"),
        ({"updates": 2**41}, "updates"),
        ({"teacher_updates": -1}, "teacher_updates"),
        ({"lr": float("inf")}, "lr"),
        ({"lr": 10**400}, "lr"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"opponent": "heuristic\x00", "opponent_share": 0.5}, "opponent"),
        ({"opponent": "dmc:/no/such/model.safetensors", "opponent_share": 0.5}, "opponent"),
        ({"opponent": "search:0", "opponent_share": 0.5}, "opponent"),
        ({"teacher": "self", "teacher_start": 0.5, "teacher_updates": 3}, "teacher"),
        ({"eval_opponent": "os:getcwd"}, "eval_opponent"),  # a config never imports code
        ({"eval_opponent": " random"}, "eval_opponent"),
        ({"eval_opponent": "x" * 10_000}, "eval_opponent"),
        ({"variant": "nope"}, "variant"),
        ({"reward": ["win"] * 10_000}, "reward"),
    ],
)
def test_every_value_is_checked_at_load(change, needle):
    with pytest.raises(ValueError) as e:
        tiny(**change)
    msg = str(e.value)
    assert type(e.value) is ValueError and f"{needle}:" in msg, msg
    assert len(msg) < 600, msg


def test_a_config_built_directly_is_checked_by_train(tmp_path):
    with pytest.raises(ValueError, match="hidden"):
        train(TrainConfig(hidden=(8,) * 65), tmp_path / "a", progress=False)
    with pytest.raises(ValueError, match="seed"):
        train(TrainConfig(**{**TINY, "hidden": (8,), "seed": 2**64}), tmp_path / "b", progress=False)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_the_largest_seed_trains_and_resumes(tmp_path):
    config = tiny(seed=2**64 - 1, updates=2, eval_every=1, opponent="random", opponent_share=0.5)
    train(config, tmp_path, progress=False)  # two actor groups: their seeds wrap around
    result = train(tiny(**{**vars(config), "hidden": [8], "updates": 3}), tmp_path, resume=True, progress=False)
    assert result["log"]["update"] == 3


@pytest.mark.parametrize(
    "change, needle",
    [
        ({"replay": 10**9}, "replay"),
        ({"collect": 10**9}, "collect"),
        ({"batch_size": 10**9, "collect": 10**9}, "batch_size"),
        ({"num_envs": 1 << 20}, "num_envs"),
        ({"eval_deals": 10**12}, "eval_deals"),
        ({"hidden": [65536] * 4}, "hidden"),
    ],
)
def test_memory_is_checked_before_the_first_update(tmp_path, monkeypatch, change, needle):
    monkeypatch.setattr(dmc_config, "available_memory", lambda: 8 << 30)
    config = tiny(**change)  # in range: the memory decides
    out = tmp_path / "out"
    with pytest.raises(ValueError) as e:
        train(config, out, progress=False)
    msg = str(e.value)
    assert "GiB of memory available" in msg and f"{needle} (" in msg, msg
    assert not out.exists()  # nothing written


# --- 3. resume: only its own checkpoint ---------------------------------


@pytest.mark.parametrize(
    "change, needles",
    [
        ({"hidden": [16]}, ["hidden: [16] here, [8] there"]),
        ({"variant": "classic"}, ["variant: 'classic' here, 'baibian' there"]),
        ({"reward": "score", "seed": 5}, ["reward", "seed"]),
        ({"batch_size": 32, "collect": 32}, ["batch_size", "collect"]),
    ],
)
def test_a_resume_refuses_another_config(run_dir, change, needles):
    before = snapshot(run_dir)
    with pytest.raises(ValueError) as e:
        train(tiny(updates=8, **change), run_dir, resume=True, progress=False)
    for needle in ["config differs from the checkpoint's", *needles]:
        assert needle in str(e.value), str(e.value)
    assert snapshot(run_dir) == before


def test_a_resume_may_raise_updates_and_change_the_harmless_settings(run_dir):
    change = {"updates": 8, "lr": 1e-4, "threads": 2, "eval_deals": 3, "eval_opponent": "greedy", "log_every": 2}
    train(tiny(**change), run_dir, resume=True, progress=False)
    assert updates(run_dir / "train.csv") == [1, 2, 3, 4, 5, 6, 8]
    assert [(r["update"], r["opponent"]) for r in log(run_dir / "eval.csv")] == [
        ("3", "random"),
        ("6", "random"),
        ("8", "greedy"),
    ]
    state = torch.load(run_dir / "checkpoint.pt", weights_only=True)
    assert state["update"] == 8 and state["config"]["updates"] == 8 and state["config"]["hidden"] == [8]


def _write_bad(path: Path, kind: str) -> None:
    good = path.read_bytes()
    if kind == "junk":
        path.write_bytes(b"\x80\x02junk that is no pickle" * 10)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "truncated":
        path.write_bytes(good[: len(good) // 2])
    elif kind == "folder":
        path.unlink()
        path.mkdir()
    else:
        torch.save(
            {
                "list": [1, 2, 3],
                "no version": {"update": 3, "optimizer": {}, "config": {}},
                "bool update": {"update": True, "version": 1, "optimizer": {}, "config": {}},
                "bad samples": {**torch.load(path, weights_only=True), "samples": "many"},
                "no param_groups": {**torch.load(path, weights_only=True), "optimizer": {"state": {}}},
                "nan weights": {
                    **(s := torch.load(path, weights_only=True)),
                    "net": {k: v * float("nan") for k, v in s["net"].items()},
                },
                "wrong shapes": {
                    **(s := torch.load(path, weights_only=True)),
                    "net": {k: torch.zeros(3) for k in s["net"]},
                },
            }[kind],
            path,
        )


@pytest.mark.parametrize(
    "kind",
    ["junk", "empty", "truncated", "folder", "list", "no version", "bool update", "bad samples", "no param_groups"]
    + ["nan weights"]
    + ["wrong shapes"],
)
def test_a_bad_checkpoint_is_named(run_dir, kind):
    ckpt = run_dir / "checkpoint.pt"
    _write_bad(ckpt, kind)
    before = snapshot(run_dir)
    with pytest.raises(ValueError) as e:
        train(tiny(updates=8), run_dir, resume=True, progress=False)
    assert type(e.value) is ValueError and str(ckpt) in str(e.value), str(e.value)
    assert snapshot(run_dir) == before  # the logs are left as they were


# --- 4. outputs: probed first, written whole ----------------------------


@pytest.mark.parametrize("name", learner.OUTPUTS)
def test_an_output_that_cannot_be_written_is_refused_before_training(tmp_path, name):
    out = tmp_path / "out"
    (out / name).mkdir(parents=True)
    with pytest.raises(ValueError, match=f"{name}.*folder"):
        train(tiny(), out, progress=False)
    assert sorted(p.name for p in out.iterdir()) == [name]  # no train.csv: nothing ran


def test_out_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="not a folder"):
        train(tiny(), tmp_path / "file", progress=False)


def test_an_interrupted_checkpoint_write_keeps_the_old_checkpoint(run_dir, monkeypatch):
    before = (run_dir / "checkpoint.pt").read_bytes()
    real_save = torch.save

    def save_half(obj, f, *args, **kwargs):  # half a file, then Ctrl-C
        real_save(obj, f, *args, **kwargs)
        if hasattr(f, "truncate"):
            f.truncate(100)
        raise KeyboardInterrupt

    monkeypatch.setattr(torch, "save", save_half)
    with pytest.raises(KeyboardInterrupt):
        train(tiny(updates=9), run_dir, resume=True, progress=False)
    assert (run_dir / "checkpoint.pt").read_bytes() == before
    assert not [p.name for p in run_dir.iterdir() if p.name.startswith(".")]  # no temporary file left
    monkeypatch.undo()
    train(tiny(updates=9), run_dir, resume=True, progress=False)
    assert updates(run_dir / "train.csv") == list(range(1, 10))


# --- 5. the logs stay in step with the checkpoint ------------------------


def test_rows_written_after_the_checkpoint_are_dropped_on_resume(tmp_path, monkeypatch):
    real = learner._append_csv

    def append_then_interrupt(path, row):
        real(path, row)
        if path.name == "train.csv" and row["update"] == 5:
            raise KeyboardInterrupt

    monkeypatch.setattr(learner, "_append_csv", append_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        train(tiny(), tmp_path, progress=False)
    assert updates(tmp_path / "train.csv") == [1, 2, 3, 4, 5]  # the checkpoint is at 3
    monkeypatch.undo()
    train(tiny(), tmp_path, resume=True, progress=False)
    rows = log(tmp_path / "train.csv")
    assert [int(r["update"]) for r in rows] == [1, 2, 3, 4, 5, 6]
    samples = [int(r["samples"]) for r in rows]
    assert samples == sorted(set(samples))  # counted on from the checkpoint, not the dropped rows
    assert updates(tmp_path / "eval.csv") == [3, 6]


def test_an_interrupted_evaluation_is_done_again(tmp_path, monkeypatch):
    calls = []
    real = learner.arena

    def arena_interrupted_at_6(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(learner, "arena", arena_interrupted_at_6)
    with pytest.raises(KeyboardInterrupt):
        train(tiny(), tmp_path, progress=False)
    assert torch.load(tmp_path / "checkpoint.pt", weights_only=True)["update"] == 3
    monkeypatch.undo()
    train(tiny(), tmp_path, resume=True, progress=False)
    assert updates(tmp_path / "train.csv") == [1, 2, 3, 4, 5, 6]
    assert updates(tmp_path / "eval.csv") == [3, 6]


def test_a_log_row_cut_short_is_dropped_and_a_foreign_log_refused(run_dir):
    (run_dir / "checkpoint.pt").write_bytes((run_dir / "checkpoint.pt").read_bytes())
    state = torch.load(run_dir / "checkpoint.pt", weights_only=True)
    torch.save({**state, "update": 5}, run_dir / "checkpoint.pt")
    with open(run_dir / "train.csv", "a") as f:
        f.write("7,12")  # cut short by a kill
    train(tiny(updates=7), run_dir, resume=True, progress=False)
    assert updates(run_dir / "train.csv") == [1, 2, 3, 4, 5, 6, 7]
    torch.save({**torch.load(run_dir / "checkpoint.pt", weights_only=True), "update": 5}, run_dir / "checkpoint.pt")
    (run_dir / "eval.csv").write_text("who,what\n1,2\n")
    before = snapshot(run_dir)  # train.csv has rows past 5, but eval.csv is foreign: neither changes
    with pytest.raises(ValueError, match=r"eval\.csv.*not a log"):
        train(tiny(updates=9), run_dir, resume=True, progress=False)
    assert snapshot(run_dir) == before


def test_a_fresh_run_starts_the_folder_over(run_dir, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(learner, "arena", interrupted)  # before the fresh run's first checkpoint
    with pytest.raises(KeyboardInterrupt):
        train(tiny(updates=2, eval_every=2), run_dir, progress=False)
    # The old run's checkpoint is gone with its logs: a resume cannot mix the two runs.
    assert not (run_dir / "checkpoint.pt").exists() and not (run_dir / "eval.csv").exists()
    with pytest.raises(ValueError, match="no checkpoint"):
        train(tiny(updates=8), run_dir, resume=True, progress=False)


# --- 6. the command line -------------------------------------------------


def test_the_command_line_reports_each_failure_in_one_line(tmp_path, run_dir):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("reward: " + BOMB + "\n")
    p = run_cli("train", "--config", str(bomb), "--out", str(tmp_path / "o"))
    assert p.returncode == 2
    assert_cli_error(p, "bomb.yaml:1: reward: more than 4096 values")
    cfg = tiny_yaml(tmp_path / "seed.yaml", seed=2**64)
    p = subprocess.run(
        [sys.executable, "-m", "shuangkou.train", "--config", str(cfg), "--out", str(tmp_path / "o")],
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 2
    assert_cli_error(p, "seed.yaml:", "seed: must be an integer 0..")
    p = run_cli(
        "train", "--config", str(tiny_yaml(tmp_path / "h.yaml", hidden=[16])), "--out", str(run_dir), "--resume"
    )
    assert p.returncode == 2
    assert_cli_error(p, "hidden: [16] here, [8] there")
    assert not (tmp_path / "o").exists()


def test_ctrl_c_exits_130_and_the_run_resumes(tmp_path):
    cfg = tiny_yaml(tmp_path / "long.yaml", updates=100_000, eval_every=2)
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "shuangkou.train", "--config", str(cfg), "--out", str(out), "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if (out / "checkpoint.pt").exists() and (out / "train.csv").exists():
                if len((out / "train.csv").read_text().splitlines()) > 6:
                    break
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.decode().strip() == "error: interrupted"
    at = torch.load(out / "checkpoint.pt", weights_only=True)["update"]
    cfg = tiny_yaml(tmp_path / "long.yaml", updates=at + 3, eval_every=2)
    p = subprocess.run(cmd, capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert updates(out / "train.csv") == list(range(1, at + 4))
    ev = updates(out / "eval.csv")
    assert ev == sorted(set(ev)) and ev[-1] == at + 3


# --- 7. fuzzing ----------------------------------------------------------


def test_the_training_config_reader_raises_only_value_error(tmp_path):
    """tests/fuzz/train_config_fuzz.py in its short mode (atheris, or its seeded random
    loop without it): mutated training configs give a config or a ValueError naming the
    file, each within seconds."""
    target = ROOT / "tests" / "fuzz" / "train_config_fuzz.py"
    args = ["-runs=500", "-seed=1", "-max_total_time=20", "-timeout=30", f"-artifact_prefix={tmp_path}/"]
    # (It runs in tmp_path, for its crash files: a relative PYTHONPATH is made absolute.)
    path = os.pathsep.join(os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
    env = {**os.environ, "PYTHONPATH": path} if path else None
    r = subprocess.run(
        [sys.executable, str(target), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    out = [line for line in (r.stdout + r.stderr).splitlines() if not line.startswith("INFO: Instrumenting")]
    assert r.returncode == 0, "\n".join(out[-40:])
