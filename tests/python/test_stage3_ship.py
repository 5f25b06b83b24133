"""experiments/stage3_eval.py --ship: the stage-3 candidate replaces a preset's shipped
network file only when the file it was measured against is still the one shipped and the
candidate beat it against `heuristic`; otherwise it is refused, naming why, and the shipped
file is left as it was."""

from __future__ import annotations

import hashlib
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def stage3(tmp_path, monkeypatch):
    """The script as a module, its shipped file redirected to a file under tmp_path."""
    monkeypatch.syspath_prepend(str(ROOT / "experiments"))
    module = importlib.import_module("stage3_eval")
    target = tmp_path / "dmc_jj.safetensors"
    target.write_bytes(b"the shipped file")
    monkeypatch.setattr(module, "shipped", lambda variant: target)
    return module, target


def measured(
    out: Path, target: Path, shipped_wp: float, candidate_wp: float, guided: bool = True, head_to_head: float = 0.55
) -> None:
    """An OUT/stage3.json as the script writes it, in jj, with one candidate `run`."""
    out.mkdir()
    calibrated = out / "run_gap.safetensors"
    calibrated.write_bytes(b"the calibrated candidate")
    pairs = [
        {"candidate": "shipped", "b": "heuristic", "wp": shipped_wp},
        {"candidate": "run", "b": "heuristic", "wp": candidate_wp},
        {"candidate": "run", "b": "dmc", "wp": head_to_head},
        {"candidate": "run alone", "b": "heuristic", "wp": candidate_wp + 0.1},
        {"candidate": "run alone", "b": "dmc", "wp": head_to_head + 0.1},
    ]
    # eval-v1's rows say the opposite of the choosing deals': the choice must read the latter
    report = [{**r, "wp": 1 - r["wp"]} for r in pairs]
    sha = {"shipped": hashlib.sha256(target.read_bytes()).hexdigest()}
    result = {"variant": "jj", "sha256": sha, "pairs": report, "choice": {"seed": 5, "pairs": pairs}}
    if guided:
        result["calibration"] = {
            "model": str(calibrated),
            "sha256": hashlib.sha256(calibrated.read_bytes()).hexdigest(),
        }
        report.append({"candidate": "run+search", "b": "heuristic", "wp": 0.8})
    (out / "stage3.json").write_text(json.dumps(result), encoding="utf-8")


def test_a_candidate_that_beat_the_shipped_file_is_shipped_with_its_gate(stage3, tmp_path):
    module, target = stage3
    measured(tmp_path / "out", target, 0.62, 0.66)
    shipped = module.ship_candidate(tmp_path / "out", "jj")
    assert target.read_bytes() == b"the calibrated candidate"
    assert shipped["shipped"] == "run" and shipped["bytes"] == len(b"the calibrated candidate")
    assert shipped["sha256"] == hashlib.sha256(b"the calibrated candidate").hexdigest()
    with pytest.raises(SystemExit, match="is not the file measured as shipped"):  # a second time
        module.ship_candidate(tmp_path / "out", "jj")
    assert target.read_bytes() == b"the calibrated candidate"


@pytest.mark.parametrize(
    ("shipped_wp", "candidate_wp", "guided", "head_to_head", "why"),
    [
        (
            0.62,
            0.62,
            True,
            0.55,
            r"run won 0.62 against heuristic on the choosing deals, not above the shipped file's 0.62",
        ),
        (0.62, 0.66, True, 0.5, r"run won 0.5 against the shipped dmc on the choosing deals, not above 0.5"),
        (0.62, 0.66, False, 0.55, "no guided candidate: run it with --guided first"),
    ],
)
def test_a_candidate_is_refused_and_the_shipped_file_kept(
    stage3, tmp_path, shipped_wp, candidate_wp, guided, head_to_head, why
):
    module, target = stage3
    measured(tmp_path / "out", target, shipped_wp, candidate_wp, guided, head_to_head)
    with pytest.raises(SystemExit, match=why):
        module.ship_candidate(tmp_path / "out", "jj")
    assert target.read_bytes() == b"the shipped file"


def test_a_measurement_of_another_rule_set_or_a_changed_calibrated_file_is_refused(stage3, tmp_path):
    module, target = stage3
    measured(tmp_path / "out", target, 0.62, 0.66)
    with pytest.raises(SystemExit, match="stage3.json: it measured jj, not classic"):
        module.ship_candidate(tmp_path / "out", "classic")
    (tmp_path / "out" / "run_gap.safetensors").write_bytes(b"a network trained since")
    with pytest.raises(SystemExit, match="run_gap.safetensors is not the file it calibrated: measure it again"):
        module.ship_candidate(tmp_path / "out", "jj")
    (tmp_path / "out" / "run_gap.safetensors").unlink()
    with pytest.raises(SystemExit, match="run_gap.safetensors is not the file it calibrated"):
        module.ship_candidate(tmp_path / "out", "jj")
    assert target.read_bytes() == b"the shipped file"


def test_a_measurement_that_chose_on_eval_v1_is_refused(stage3, tmp_path):
    module, target = stage3
    measured(tmp_path / "out", target, 0.62, 0.66)
    data = json.loads((tmp_path / "out" / "stage3.json").read_text(encoding="utf-8"))
    del data["choice"]  # as stage3.json files were written before the choosing deals
    (tmp_path / "out" / "stage3.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SystemExit, match="it chose on eval-v1 .it has no choosing deals.: measure it again"):
        module.ship_candidate(tmp_path / "out", "jj")
    assert target.read_bytes() == b"the shipped file"


def test_a_shipped_file_changed_since_the_measurement_is_not_replaced(stage3, tmp_path):
    module, target = stage3
    measured(tmp_path / "out", target, 0.62, 0.66)
    target.write_bytes(b"another file")
    with pytest.raises(SystemExit, match="dmc_jj.safetensors is not the file measured as shipped"):
        module.ship_candidate(tmp_path / "out", "jj")
    assert target.read_bytes() == b"another file"


def test_the_command_refuses_a_measurement_of_another_file_and_leaves_the_shipped_one(tmp_path):
    shipped = ROOT / "python" / "shuangkou" / "models" / "dmc_jj.safetensors"  # the script's, in this checkout
    before = shipped.read_bytes()
    out = tmp_path / "out"
    out.mkdir()
    result = {"variant": "jj", "sha256": {"shipped": "0" * 64}, "calibration": {"model": str(shipped)}, "pairs": []}
    (out / "stage3.json").write_text(json.dumps(result), encoding="utf-8")
    script = ROOT / "experiments" / "stage3_eval.py"
    cmd = [sys.executable, str(script), "--variant", "jj", "--ship", "--out", str(out), "--work", str(tmp_path / "w")]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "dmc_jj.safetensors is not the file measured as shipped" in p.stderr
    assert shipped.read_bytes() == before


def test_a_result_names_repository_paths_relative_and_ships_from_one(stage3, tmp_path, monkeypatch):
    module, target = stage3
    expert_eval = importlib.import_module("expert_eval")
    monkeypatch.setattr(expert_eval, "ROOT", tmp_path)  # the "repository" is tmp_path
    result = {"model": f"{tmp_path}/out/m.safetensors", "a": [f"dmc:{tmp_path}/runs/x+search", "/elsewhere/y", 3]}
    expert_eval.write_result(tmp_path / "r.json", result)
    written = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert written == {"model": "out/m.safetensors", "a": ["dmc:runs/x+search", "/elsewhere/y", 3]}
    measured(tmp_path / "out", target, 0.62, 0.66)  # its calibrated file, named relative to the root
    data = json.loads((tmp_path / "out" / "stage3.json").read_text(encoding="utf-8"))
    data["calibration"]["model"] = "out/run_gap.safetensors"
    (tmp_path / "out" / "stage3.json").write_text(json.dumps(data), encoding="utf-8")
    assert module.ship_candidate(tmp_path / "out", "jj")["shipped"] == "run"
    assert target.read_bytes() == b"the calibrated candidate"
