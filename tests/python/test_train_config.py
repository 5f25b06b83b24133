"""Training configs under bad input (issue 17): config files go through the variant
reader's rules (and are fuzzed), every setting is checked (range and memory) before
the first update, and each failure is a ValueError naming the file, line or setting."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import shuangkou as sk  # noqa: E402
from shuangkou.dmc import train_config as dmc_config  # noqa: E402
from shuangkou.dmc.learner import TrainConfig, train  # noqa: E402
from train_util import BOMB, TINY, tiny, tiny_yaml  # noqa: E402
from unshipped import without_network  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------- config files: the variant reader's rules


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


# ---------------------------------------------------------------------------- every value's range, checked at load


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
        ({"variant": "qianbian_collect", "eval_opponent": "dmc"}, "eval_opponent"),  # its network taken away
        ({"variant": "qianbian_collect", "opponent": "dmc+search", "opponent_share": 0.5}, "opponent"),
        ({"reward": ["win"] * 10_000}, "reward"),
    ],
)
def test_every_value_is_checked_at_load(change, needle):
    with without_network("qianbian_collect"), pytest.raises(ValueError) as e:
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


MEMORY_HOGS = [
    ({"replay": 10**9}, "replay"),
    ({"collect": 10**9}, "collect"),
    ({"batch_size": 10**9, "collect": 10**9}, "batch_size"),
    ({"num_envs": 1 << 20}, "num_envs"),
    ({"eval_deals": 10**12}, "eval_deals"),
    ({"hidden": [65536] * 4}, "hidden"),
]


@pytest.mark.parametrize("change, needle", MEMORY_HOGS)
def test_memory_is_checked_when_the_config_is_read(tmp_path, monkeypatch, change, needle):
    """Issue 31: settings in range whose run would not fit in memory are refused by
    from_yaml (naming the file and the line of the setting that needs the most), by
    from_dict and by check(), not first when train() starts; train() still refuses a
    config built directly, before writing anything."""
    monkeypatch.setattr(dmc_config, "available_memory", lambda: 8 << 30)
    path = tiny_yaml(tmp_path / "hog.yaml", **change)
    with pytest.raises(ValueError) as e:
        TrainConfig.from_yaml(path)
    msg = str(e.value)
    assert "GiB of memory available" in msg and f"{needle} (" in msg, msg
    largest = re.search(r"lower (\w+)$", msg).group(1)  # the setting that needs the most: its line
    assert msg.startswith(f"{path}:{1 + list({**TINY, **change}).index(largest)}: the run needs about "), msg
    with pytest.raises(ValueError, match=rf"^config: the run needs about .*{needle} \("):
        tiny(**change)
    direct = TrainConfig(**{**TINY, **change})
    direct.hidden = tuple(direct.hidden)
    with pytest.raises(ValueError, match=rf"{needle} \("):
        direct.check()
    out = tmp_path / "out"
    with pytest.raises(ValueError, match=rf"{needle} \("):
        train(direct, out, progress=False)
    assert not out.exists()  # nothing written


@pytest.mark.skipif(dmc_config.available_memory() is None, reason="this system does not say how much memory is free")
@pytest.mark.parametrize("setting, value", [("eval_deals", 10**12), ("replay", 10**9)])
def test_the_issues_memory_hogs_are_refused_on_read_on_this_machine(tmp_path, setting, value):
    path = tiny_yaml(tmp_path / "hog.yaml", **{setting: value})
    with pytest.raises(ValueError, match=rf"^{re.escape(str(path))}:\d+: the run needs about .*lower {setting}$"):
        TrainConfig.from_yaml(path)


# ---------------------------------------------------------------------------- fuzzing


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
