"""The expert labeller's runs and shards (shuangkou label, shuangkou.expert) and the
distillation of a network on them (a training config's distill: section)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from cli_util import assert_cli_error, run_cli
from shuangkou import _core
from shuangkou.expert.label_config import LabelConfig
from shuangkou.expert.labels import ARRAYS, label, read_labels, read_shard, shard_name

TINY_LABELS = {
    "variant": "baibian",
    "agents": {"heuristic": 1, "greedy": 1},
    "worlds": 4,
    "label_prob": 0.5,
    "deals_per_shard": 3,
    "shards": 4,
    "threads": 2,
    "seed": 5,
}


def tiny_labels(**change) -> LabelConfig:
    return LabelConfig.from_dict({**TINY_LABELS, **change})


@pytest.fixture(scope="module")
def labelled(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("labels")
    label(tiny_labels(), out, progress=False)
    return out


def test_a_shard_is_the_same_bytes_whatever_the_threads_and_a_resume_labels_the_rest(labelled, tmp_path):
    straight = json.loads((labelled / "manifest.json").read_text())
    label(tiny_labels(threads=1), tmp_path / "a", max_shards=2, progress=False)
    with pytest.raises(ValueError, match="other settings .*threads"):
        label(tiny_labels(), tmp_path / "a", resume=True, progress=False)
    resumed = label(tiny_labels(threads=1), tmp_path / "a", resume=True, progress=False)
    assert [s["sha256"] for s in resumed["shards"]] == [s["sha256"] for s in straight["shards"]]
    assert [s["index"] for s in resumed["shards"]] == [0, 1, 2, 3]


def test_the_labels_read_back_whole_and_consistent(labelled):
    labels = read_labels(labelled)
    n = len(labels)
    assert n > 10 and labels.offset[-1] == len(labels.action) and labels.obs.shape == (n, _core.observation_size())
    assert set(np.unique(labels.deal)) <= set(range(12))
    sums = np.add.reduceat(labels.adv, labels.offset[:-1])
    assert np.abs(sums).max() < 1e-5  # relative values: each decision's sum to zero
    assert (labels.worlds == 4).all() and (np.abs(labels.win) <= 1).all()
    assert ((labels.chosen >= -1) & (labels.chosen < np.diff(labels.offset))).all()
    assert len(read_labels(labelled, [1, 3])) < n


def test_a_fresh_salt_scores_the_same_candidates_on_other_worlds(labelled, tmp_path):
    label(tiny_labels(world_salt=9, shards=2), tmp_path, progress=False)
    a, b = read_labels(labelled, [0, 1]), read_labels(tmp_path)
    assert np.array_equal(a.move, b.move) and np.array_equal(a.obs, b.obs)
    assert not np.array_equal(a.win, b.win)


def test_short_rollouts_on_the_network_label_the_same_decisions_the_same_whatever_the_threads(labelled, tmp_path):
    one = label(tiny_labels(leaf="dmc", leaf_plies=2, shards=2, threads=1), tmp_path / "one", progress=False)
    two = label(tiny_labels(leaf="dmc", leaf_plies=2, shards=2, threads=2), tmp_path / "two", progress=False)
    assert [s["sha256"] for s in one["shards"]] == [s["sha256"] for s in two["shards"]]
    full, short = read_labels(labelled, [0, 1]), read_labels(tmp_path / "one")
    # The same positions and candidates (the labelling stream is the same; the leaf's streams
    # come from the worlds' stream), other values: the network's, in [-1, 1], not only results.
    assert np.array_equal(full.obs, short.obs) and np.array_equal(full.action, short.action)
    assert not np.array_equal(full.win, short.win)
    assert (np.abs(short.win) <= 1).all() and not np.isin(short.win, [-1.0, 0.0, 1.0]).all()


def test_a_run_made_before_a_setting_existed_resumes_with_its_default(labelled, tmp_path):
    label(tiny_labels(), tmp_path, max_shards=2, progress=False)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    for key in ("leaf", "leaf_plies"):  # settings added after the first labels were made
        del manifest["config"][key]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    resumed = label(tiny_labels(), tmp_path, resume=True, progress=False)
    straight = json.loads((labelled / "manifest.json").read_text())
    assert [s["sha256"] for s in resumed["shards"]] == [s["sha256"] for s in straight["shards"]]
    with pytest.raises(ValueError, match="other settings .*leaf"):
        label(tiny_labels(leaf="dmc", shards=5), tmp_path, resume=True, progress=False)


@pytest.mark.parametrize(
    "change, needle",
    [
        ({"worlds": 0}, "worlds: must be an integer 1.."),
        ({"agents": {"heuristic": -1}}, "the weight must be a finite number > 0"),
        ({"agents": {"nobody": 1}}, "agents: 'nobody'"),
        ({"guide": "heuristic"}, "guide must rate its moves"),
        ({"leaf": "heuristic"}, "leaf must rate its moves"),
        ({"leaf": "dmc", "leaf_plies": 65}, "leaf_plies: must be an integer 0..64"),
        ({"leaf": "dmc+search"}, "leaf must be a network (dmc or dmc:PATH), not a search"),
        ({"all_legal_up_to": 20}, "all_legal_up_to (20) must be <= max_candidates"),
        ({"variant": "nowhere"}, "variant:"),
        ({"label_prob": 0}, "label_prob: must be a number in (0, 1]"),
        ({"colour": 1}, "unknown setting 'colour'"),
    ],
)
def test_a_bad_labelling_config_is_refused_naming_the_setting(change, needle):
    with pytest.raises(ValueError) as e:
        tiny_labels(**change)
    assert needle in str(e.value)


def test_an_out_with_labels_is_refused_and_nothing_is_written(labelled, tmp_path):
    before = {p.name: p.stat().st_mtime_ns for p in labelled.iterdir()}
    with pytest.raises(ValueError, match="already holds labels"):
        label(tiny_labels(), labelled, progress=False)
    with pytest.raises(ValueError, match="no manifest.json"):
        label(tiny_labels(), tmp_path / "new", resume=True, progress=False)
    assert {p.name: p.stat().st_mtime_ns for p in labelled.iterdir()} == before
    assert not (tmp_path / "new").exists()


def _rewritten(src: Path, dst: Path, edit) -> Path:
    with zipfile.ZipFile(src) as z:
        members = {n: z.read(n) for n in z.namelist()}
    edit(members)
    with zipfile.ZipFile(dst, "w") as z:
        for n, data in members.items():
            z.writestr(n, data)
    return dst


def _npy(array: np.ndarray) -> bytes:
    import io

    f = io.BytesIO()
    np.lib.format.write_array(f, array)
    return f.getvalue()


@pytest.mark.parametrize(
    "edit, needle",
    [
        (lambda m: m.pop("win.npy"), "not the arrays of"),
        (lambda m: m.update({"win.npy": _npy(np.zeros(3, np.float64))}), "win.npy holds float64"),
        (lambda m: m.update({"offset.npy": _npy(np.array([0, 5, 2], np.int64))}), "offset has shape"),
        (lambda m: m.update({"obs.npy": m["obs.npy"][:-8]}), "obs.npy holds"),
    ],
)
def test_a_damaged_shard_is_refused_naming_it(labelled, tmp_path, edit, needle):
    bad = _rewritten(labelled / shard_name(0), tmp_path / "bad.npz", edit)
    with pytest.raises(ValueError) as e:
        read_shard(bad)
    assert "bad.npz" in str(e.value) and needle in str(e.value)


def test_a_shard_changed_after_labelling_fails_its_sha256(labelled, tmp_path):
    import shutil

    copy = shutil.copytree(labelled, tmp_path / "copy")
    data = bytearray((copy / shard_name(2)).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (copy / shard_name(2)).write_bytes(bytes(data))
    with pytest.raises(ValueError, match="sha256 is not the manifest's"):
        read_labels(copy)
    (copy / "manifest.json").write_text("[]")
    with pytest.raises(ValueError, match="not a manifest of shuangkou-labels/1"):
        read_labels(copy)


def test_every_array_of_the_format_is_written(labelled):
    arrays = read_shard(labelled / shard_name(0))
    assert set(arrays) == set(ARRAYS)
    assert arrays["state"].shape == (len(arrays["deal"]), _core.state_size())


def test_shuangkou_label_runs_end_to_end_and_refuses_a_bad_config(tmp_path):
    config = tmp_path / "l.yaml"
    config.write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in {**TINY_LABELS, "shards": 2}.items()) + "\n")
    p = run_cli("label", "--config", str(config), "--out", str(tmp_path / "o"), "--quiet")
    assert p.returncode == 0, p.stderr
    assert b"labelled 2 of 2 shards" in p.stdout and (tmp_path / "o" / shard_name(1)).is_file()
    config.write_text("worlds: many\n")
    p = run_cli("label", "--config", str(config), "--out", str(tmp_path / "p"))
    assert_cli_error(p, "worlds", "l.yaml:1")
    assert not (tmp_path / "p").exists()
