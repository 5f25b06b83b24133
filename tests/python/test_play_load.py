"""The load test of the web table (bench/play_load.py), run small: a real
server process over loopback, three tables for about three seconds."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")
pytest.importorskip("starlette")

ROOT = Path(__file__).resolve().parents[2]


def load_bench():
    spec = importlib.util.spec_from_file_location("play_load", ROOT / "bench" / "play_load.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["play_load"] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


play_load = load_bench()


def test_the_help_shows_the_command_to_run(capsys):
    with pytest.raises(SystemExit) as e:
        play_load.parse_args(["--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert "--tables 100 --seconds 60" in text and "--out" in text


def test_three_tables_for_three_seconds_play_without_errors(tmp_path):
    out = tmp_path / "load.json"
    code = play_load.main(["--tables", "3", "--seconds", "3", "--seed", "5", "--quiet", "--out", str(out)])
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["errors"] == {"count": 0, "first": []}, report["server_log_tail"]
    assert code == 0 and report["server_exit_status"] == 0
    assert report["parameters"]["tables"] == 3 and report["parameters"]["bots"] == ["heuristic"] * 3
    assert report["human_decisions"] > 10 and report["deals_finished"] >= 1
    assert report["human_decisions"] == report["plays"] + report["passes"]
    for key in ("play_to_next_human_turn", "hint_round_trip"):
        s = report[key]
        assert s["count"] > 0
        assert 0 < s["p50_ms"] <= s["p90_ms"] <= s["p99_ms"] <= s["max_ms"], s
    assert report["play_to_next_human_turn"]["count"] == report["human_decisions"]
    memory = report["server_memory"]
    assert memory["vm_hwm_bytes"] >= memory["vm_rss_end_bytes"] > 0 and memory["rss_samples"]
    assert report["machine"]["cores"] >= 1
    assert not list(tmp_path.glob(".play_load.*"))  # (the temporary file was renamed)


def test_the_summary_reads_percentiles_off_the_measures():
    s = play_load.summary([i / 1000 for i in range(1, 101)])  # 1..100 ms
    assert (s["count"], s["p50_ms"], s["p90_ms"], s["p99_ms"], s["max_ms"]) == (100, 50, 90, 99, 100)
    assert play_load.summary([]) == {"count": 0}


def test_a_page_that_stops_reading_does_not_hold_up_its_table(tmp_path):
    # Table t0's human seat also has a second page open that never reads. Before, once its
    # socket buffers were full (after about 2 s here), the broadcast waited on it with the
    # table's lock held: t0's player got no answer (a 5 s timeout, an error of the run).
    # Now the server drops that page and t0 plays on as fast as t1.
    out = tmp_path / "stalled.json"
    argv = ["--tables", "2", "--seconds", "8", "--seed", "5", "--stalled", "1", "--timeout", "5", "--quiet"]
    code = play_load.main([*argv, "--out", str(out)])
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["errors"] == {"count": 0, "first": []}, report["server_log_tail"]
    stalled = report["stalled_readers"]
    assert code == 0 and (stalled["count"], stalled["ended_by_server"], stalled["dropped_by_server"]) == (1, 1, 1)
    assert stalled["cut_during_run_after_s"][0] is not None  # (cut with a reset during the run, not at its end)
    assert "t0, seat 0: dropped a connection that does not read" in report["server_log_tail"]
    theirs, others = stalled["play_to_next_human_turn_their_tables"], stalled["play_to_next_human_turn_other_tables"]
    assert theirs["count"] > 100 and others["count"] > 100
    assert theirs["p99_ms"] <= 3 * others["p99_ms"] + 50, (theirs, others)
