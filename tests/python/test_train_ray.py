"""Deep Monte-Carlo training with the actors on Ray (a local Ray on the loopback): a run
writes a checkpoint that resumes without Ray, a killed actor is replaced and its lost
decisions counted, Ctrl-C leaves a usable checkpoint and no actor behind, and a bad
`ray:` section is refused before anything runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

torch = pytest.importorskip("torch")
ray = pytest.importorskip("ray")

from shuangkou.dmc import ray_actors  # noqa: E402
from shuangkou.dmc.learner import train  # noqa: E402
from shuangkou.dmc.train_config import RaySettings, TrainConfig  # noqa: E402
from shuangkou.runs.ray_cluster import start_local  # noqa: E402
from train_util import TINY, log, snapshot, tiny, tiny_yaml, updates  # noqa: E402

CPUS = 2
# Two actors of one CPU each, eight deals each (TINY's 16 split in two).
RAY = {"actors": 2, "cpus_per_actor": 1}


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """A local Ray of two CPUs on the loopback only, for the whole module."""
    start_local(num_cpus=CPUS)
    yield
    ray.shutdown()


def cpus_back() -> bool:
    """Whether every CPU of the local Ray is free again (the run's actors are gone)."""
    for _ in range(100):
        if ray.available_resources().get("CPU", 0) == CPUS:
            return True
        time.sleep(0.1)
    return False


def test_a_ray_run_resumes_without_ray(tmp_path, capfd):
    result = train(tiny(updates=4, eval_every=2, ray=RAY), tmp_path, progress=False, ray=True)
    assert result["log"]["update"] == 4 and cpus_back()
    assert "2 Ray actors of 1 CPUs" in capfd.readouterr().err
    rows = log(tmp_path / "train.csv")
    assert [r["update"] for r in rows] == ["1", "2", "3", "4"]
    assert all(r["lost_samples"] == "0" and r["actor_restarts"] == "0" for r in rows)
    assert [r["version"] for r in rows] == ["1", "2", "3", "4"]  # a push every update
    state = torch.load(tmp_path / "checkpoint.pt", weights_only=True)
    assert state["update"] == 4 and state["config"]["ray"] == {**RaySettings().__dict__, **RAY}
    # The same checkpoint goes on with this machine's actors (the ray: section unused, and said so).
    result = train(tiny(updates=6, eval_every=2, ray=RAY), tmp_path, resume=True, progress=False)
    assert result["log"]["update"] == 6 and "used only with --ray" in capfd.readouterr().err
    assert updates(tmp_path / "train.csv") == [1, 2, 3, 4, 5, 6]
    assert updates(tmp_path / "eval.csv") == [2, 4, 6]
    samples = [int(r["samples"]) for r in log(tmp_path / "train.csv")]
    assert samples == sorted(set(samples))  # counted on across the two
    # ... and back on Ray, the section changed (a resume may change it).
    train(tiny(updates=7, eval_every=2, ray={"actors": 1, "ahead": 0}), tmp_path, resume=True, progress=False, ray=True)
    assert updates(tmp_path / "train.csv")[-1] == 7 and cpus_back()


def killing(at: int, times: int):
    """A RayActors.collect that kills actor 0's process at update `at` and after, up to
    `times` processes in all (one at a time: the next once the driver has replaced it)."""
    real, killed = ray_actors.RayActors.collect, []

    def collect(self, update):
        pid = self.slots[0].info["pid"]
        if update >= at and len(killed) < times and pid not in killed:
            killed.append(pid)
            os.kill(pid, signal.SIGKILL)
        return real(self, update)

    return collect, killed


def test_a_killed_actor_is_replaced_and_its_lost_decisions_counted(tmp_path, monkeypatch, capfd):
    collect, killed = killing(at=3, times=1)
    monkeypatch.setattr(ray_actors.RayActors, "collect", collect)
    result = train(tiny(updates=6, ray=RAY), tmp_path, progress=False, ray=True)
    assert result["log"]["update"] == 6 and len(killed) == 1 and cpus_back()
    rows = log(tmp_path / "train.csv")
    # The death shows at the first batch the actor had not sent: update 3's, or 4's when
    # update 3's was sent before the kill (it plays one batch ahead).
    restarts = [int(r["actor_restarts"]) for r in rows]
    lost = [int(r["lost_samples"]) for r in rows]
    died = restarts.index(1)
    assert died in (2, 3) and restarts == [0] * died + [1] * (6 - died)
    assert lost == [0] * died + [lost[-1]] * (6 - died) and lost[-1] in (32, 64)  # 32 decisions a batch
    err = capfd.readouterr().err
    assert f"Ray actor 0 died at update {died + 1}" in err and f"{lost[-1]} decisions asked of it are lost" in err
    state = torch.load(tmp_path / "checkpoint.pt", weights_only=True)
    assert (state["lost_samples"], state["actor_restarts"]) == (lost[-1], 1)  # a resume counts on from them


def test_more_deaths_than_restarts_end_the_run_with_one_line(tmp_path, monkeypatch):
    collect, killed = killing(at=2, times=2)
    monkeypatch.setattr(ray_actors.RayActors, "collect", collect)
    with pytest.raises(ray_actors.ActorsFailed, match=r"replacement 2 of a run that allows 1 \(ray: restarts\)"):
        train(tiny(updates=9, ray={**RAY, "restarts": 1}), tmp_path, progress=False, ray=True)
    assert len(killed) == 2 and cpus_back()  # no actor left behind
    assert isinstance(ray_actors.ActorsFailed("x"), ConnectionError)  # the command line: one line, exit 1


def test_ctrl_c_leaves_the_last_checkpoint_and_no_actor(tmp_path, monkeypatch):
    real = ray_actors.RayActors.collect

    def collect_interrupted_at_5(self, update):
        if update == 5:
            raise KeyboardInterrupt
        return real(self, update)

    monkeypatch.setattr(ray_actors.RayActors, "collect", collect_interrupted_at_5)
    with pytest.raises(KeyboardInterrupt):
        train(tiny(ray=RAY), tmp_path, progress=False, ray=True)
    assert cpus_back()
    assert torch.load(tmp_path / "checkpoint.pt", weights_only=True)["update"] == 3
    monkeypatch.undo()
    train(tiny(), tmp_path, resume=True, progress=False)  # on this machine
    assert updates(tmp_path / "train.csv") == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize(
    "section, needle",
    [
        ([2], "ray: [2] is not a mapping of Ray settings"),
        ({"actor": 2}, "ray: unknown setting(s) actor (known: actors, cpus_per_actor, ahead, restarts)"),
        ({"actors": 0}, "ray: actors: must be an integer 1..1,024, got 0"),
        ({"actors": 1.5}, "ray: actors: must be an integer"),
        ({"cpus_per_actor": True}, "ray: cpus_per_actor: must be an integer"),
        ({"ahead": 9}, "ray: ahead: must be an integer 0..8, got 9"),
        ({"restarts": -1}, "ray: restarts: must be an integer"),
        ({"actors": 3}, "3 actors would get 5 deals each of the self-play group's 16 (at least 8 each)"),
    ],
)
def test_a_bad_ray_section_is_refused(tmp_path, section, needle):
    with pytest.raises(ValueError) as e:
        TrainConfig.from_dict({**TINY, "ray": section})
    assert needle in str(e.value)
    path = tiny_yaml(tmp_path / "bad.yaml")
    path.write_text(path.read_text() + f"ray: {section}\n")
    with pytest.raises(ValueError, match=rf"bad\.yaml:{len(TINY) + 1}: ray: "):  # the file and line
        TrainConfig.from_yaml(path)


def test_actors_the_cluster_cannot_hold_are_refused_before_anything_is_written(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    before = snapshot(out)
    with pytest.raises(ValueError, match=r"ray: 2 actors of 2 CPUs need 4 CPUs, more than the cluster's 2"):
        train(tiny(ray={"actors": 2, "cpus_per_actor": 2}), out, progress=False, ray=True)
    with pytest.raises(ValueError, match="actors would get 4 deals each"):  # the defaults split num_envs too
        train(tiny(num_envs=8, collect=64), out, progress=False, ray=True)
    with pytest.raises(ValueError, match="HOST:PORT"):
        train(tiny(), out, progress=False, ray="nowhere")
    assert snapshot(out) == before


def test_the_command_line_refuses_a_bad_section_in_one_line(tmp_path):
    path = tiny_yaml(tmp_path / "bad.yaml")
    path.write_text(path.read_text() + "ray: {actors: 2, cpu: 1}\n")
    p = subprocess.run(  # refused before any connection (nothing listens there)
        [sys.executable, "-m", "shuangkou", "train", "--config", str(path), "--out", str(tmp_path / "o"),
         "--ray", "127.0.0.1:1"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert p.returncode == 2 and "ray: unknown setting(s) cpu" in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "o").exists()
