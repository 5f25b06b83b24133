"""Training runs and their folder (issues 17 and 34): a resume refuses a checkpoint that is
not its own, outputs are probed first and written whole, the logs stay in step with
the checkpoint after an interrupt, and the command line reports each failure in one
line and exits 130 on Ctrl-C, saving the update under way (and a checkpoint every
checkpoint_minutes), so the run resumes without losing it."""

from __future__ import annotations

import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from cli_util import assert_cli_error, cli_command, run_cli  # noqa: E402
from shuangkou.dmc import learner  # noqa: E402
from shuangkou.dmc.learner import train  # noqa: E402
from train_util import BOMB, log, rows_past, signal_run, snapshot, tiny, tiny_yaml, updates  # noqa: E402


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


# ---------------------------------------------------------------------------- resume: only its own checkpoint


def test_the_largest_seed_trains_and_resumes(tmp_path):
    config = tiny(seed=2**64 - 1, updates=2, eval_every=1, opponent="random", opponent_share=0.5)
    train(config, tmp_path, progress=False)  # two actor groups: their seeds wrap around
    result = train(tiny(**{**vars(config), "hidden": [8], "updates": 3}), tmp_path, resume=True, progress=False)
    assert result["log"]["update"] == 3


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


def test_a_resume_takes_set_overrides_as_the_checkpoint_allows(run_dir, tmp_path, capsys):
    from shuangkou.cli.train import main

    cfg = str(tiny_yaml(tmp_path / "tiny.yaml"))
    before = snapshot(run_dir)
    args = ["--config", cfg, "--out", str(run_dir), "--quiet", "--resume", "--set", "updates=8"]
    assert main([*args, "--set", "hidden=[16]", "--set", "seed=3"]) == 2
    err = capsys.readouterr().err
    assert "hidden: [16] here, [8] there" in err and "seed: 3 here, 0 there" in err, err
    assert snapshot(run_dir) == before
    assert main([*args, "--set", "eval_opponent=greedy", "--set", "checkpoint_minutes=0"]) == 0
    assert updates(run_dir / "train.csv") == list(range(1, 9))
    assert [r["opponent"] for r in log(run_dir / "eval.csv")] == ["random", "random", "greedy"]
    saved = torch.load(run_dir / "checkpoint.pt", weights_only=True)["config"]
    assert (saved["updates"], saved["eval_opponent"], saved["checkpoint_minutes"]) == (8, "greedy", 0)


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


# ---------------------------------------------------------------------------- outputs: probed first, written whole


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


# ---------------------------------------------------------------------------- the logs stay in step with the checkpoint


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
    with pytest.raises(ValueError, match="already holds an earlier run"):  # not without being asked
        train(tiny(updates=2, eval_every=2), run_dir, progress=False)
    with pytest.raises(KeyboardInterrupt):
        train(tiny(updates=2, eval_every=2), run_dir, progress=False, force=True)
    # The old run's checkpoint is gone with its logs: a resume cannot mix the two runs.
    assert not (run_dir / "checkpoint.pt").exists() and not (run_dir / "eval.csv").exists()
    with pytest.raises(ValueError, match="no checkpoint"):
        train(tiny(updates=8), run_dir, resume=True, progress=False)


# ---------------------------------------------------------------------------- the command line


def test_the_command_line_reports_each_failure_in_one_line(tmp_path, run_dir):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("reward: " + BOMB + "\n")
    p = run_cli("train", "--config", str(bomb), "--out", str(tmp_path / "o"))
    assert p.returncode == 2
    assert_cli_error(p, "bomb.yaml:1: reward: more than 4096 values")
    cfg = tiny_yaml(tmp_path / "seed.yaml", seed=2**64)
    p = subprocess.run(
        [sys.executable, "-m", "shuangkou", "train", "--config", str(cfg), "--out", str(tmp_path / "o")],
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


def test_ctrl_c_before_the_first_evaluation_saves_the_update_under_way_and_resumes(tmp_path):
    """Ctrl-C used to save nothing before the first evaluation (then `--resume` found no
    checkpoint): it checkpoints the update under way, says so, and exits 130."""
    cfg = tiny_yaml(tmp_path / "long.yaml", updates=100_000, eval_every=100_000)
    out = tmp_path / "run"
    cmd = [*cli_command(), "train", "--config", str(cfg), "--out", str(out), "--quiet", "--set", "log_every=1"]
    code, _, err = signal_run(cmd, rows_past(out / "train.csv", 4))
    assert code == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    at = torch.load(out / "checkpoint.pt", weights_only=True)["update"]
    assert (
        at >= 4 and f"interrupted after update {at} of 100000; saved its checkpoint in {out / 'checkpoint.pt'}" in err
    )
    assert updates(out / "train.csv") == list(range(1, at + 1))  # every update done is kept
    assert not (out / "eval.csv").exists() and not (out / "model.safetensors").exists()
    # The command it prints goes on from there (here raised to three more updates).
    printed = shlex.split(lines[0].split("go on with: ", 1)[1])
    assert printed[:2] == ["shuangkou", "train"] and printed[-1] == "--resume" and "log_every=1" in printed
    p = subprocess.run([*cli_command(), *printed[1:], "--set", f"updates={at + 3}"], capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rows = log(out / "train.csv")
    assert [int(r["update"]) for r in rows] == list(range(1, at + 4))  # no update lost or repeated
    samples = [int(r["samples"]) for r in rows]
    assert samples == sorted(set(samples))
    assert updates(out / "eval.csv") == [at + 3]
    assert torch.load(out / "checkpoint.pt", weights_only=True)["update"] == at + 3


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_in_python_raises_interrupted_after_the_update_under_way(tmp_path, monkeypatch, presses):
    """One Ctrl-C: the update under way ends and is checkpointed, `Interrupted` says so.
    A second one stops at once, keeping the last checkpoint (here the timed one of update 2)."""
    real = learner._append_csv

    def ctrl_c_at_3(path, row):
        if path.name == "train.csv" and row["update"] == 3:
            for _ in range(presses):
                signal.raise_signal(signal.SIGINT)
        real(path, row)

    monkeypatch.setattr(learner, "_append_csv", ctrl_c_at_3)
    with pytest.raises(KeyboardInterrupt) as e:
        train(tiny(eval_every=100, checkpoint_minutes=1e-9 if presses == 2 else 10), tmp_path, progress=False)
    assert not (tmp_path / "eval.csv").exists()
    if presses == 2:
        assert type(e.value) is KeyboardInterrupt
        assert torch.load(tmp_path / "checkpoint.pt", weights_only=True)["update"] == 2
        return
    assert isinstance(e.value, learner.Interrupted) and e.value.update == 3
    assert str(e.value) == f"interrupted after update 3 of 6; saved its checkpoint in {tmp_path / 'checkpoint.pt'}"
    assert torch.load(tmp_path / "checkpoint.pt", weights_only=True)["update"] == 3
    assert updates(tmp_path / "train.csv") == [1, 2, 3]
    monkeypatch.undo()
    train(tiny(eval_every=100), tmp_path, resume=True, progress=False)
    assert updates(tmp_path / "train.csv") == [1, 2, 3, 4, 5, 6] and updates(tmp_path / "eval.csv") == [6]


# ---------------------------------------------------------------------------- checkpoints on a time interval


def test_a_checkpoint_is_written_every_checkpoint_minutes_before_any_evaluation(tmp_path, monkeypatch):
    real = learner._append_csv

    def crash_at_5(path, row):
        real(path, row)
        if path.name == "train.csv" and row["update"] == 5:
            raise RuntimeError("the machine went down")

    monkeypatch.setattr(learner, "_append_csv", crash_at_5)
    for minutes, folder in ((0, "never"), (1e-9, "each update")):  # (1e-9 minutes: due after every update)
        with pytest.raises(RuntimeError, match="went down"):
            train(tiny(eval_every=100, checkpoint_minutes=minutes), tmp_path / folder, progress=False)
        assert not (tmp_path / folder / "eval.csv").exists()
    assert not (tmp_path / "never" / "checkpoint.pt").exists()  # 0: only at the evaluations
    assert torch.load(tmp_path / "each update" / "checkpoint.pt", weights_only=True)["update"] == 4
    monkeypatch.undo()
    train(tiny(eval_every=100, checkpoint_minutes=1e-9), tmp_path / "each update", resume=True, progress=False)
    assert updates(tmp_path / "each update" / "train.csv") == [1, 2, 3, 4, 5, 6]  # row 5 done again, once


def test_a_killed_command_keeps_its_timed_checkpoint(tmp_path):
    """A crash (signal.SIGKILL) before the first evaluation loses at most checkpoint_minutes."""
    cfg = tiny_yaml(tmp_path / "long.yaml", updates=100_000, eval_every=100_000)
    out = tmp_path / "run"
    cmd = [*cli_command(), "train", "--config", str(cfg), "--out", str(out), "--quiet"]
    code, _, err = signal_run(
        [*cmd, "--set", "checkpoint_minutes=0.0005"], (out / "checkpoint.pt").exists, signal.SIGKILL
    )
    assert code == -signal.SIGKILL, err
    at = torch.load(out / "checkpoint.pt", weights_only=True)["update"]
    assert at >= 1 and not (out / "eval.csv").exists()
    p = subprocess.run([*cmd, "--set", f"updates={at + 2}", "--resume"], capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert updates(out / "train.csv") == list(range(1, at + 3))
