"""The viewer of recorded deals (`shuangkou replay`): reading replay files, the frames a
deal is stepped through, the server that serves one file, and `arena --replays`."""

import gzip
import json

import pytest
import shuangkou as sk
from shuangkou.play import viewer as replay
from shuangkou.play.server import make_replay_app
from shuangkou.util.records import RecordedDeal, read_replays
from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


def played(variant="qianbian", seed=3, bot="heuristic"):
    g = sk.Game(sk.Rules(variant), seed=seed)
    b = sk.Bot(bot)
    while not g.is_over():
        g.apply_action(b.step(g))
    return g


@pytest.mark.parametrize("variant", ["classic", "baibian", "qianbian", "jj"])
def test_the_frames_step_through_the_recorded_deal(variant):
    g = played(variant, seed=5)
    frames = replay.frames(RecordedDeal(None, g.to_json()))
    history = g.history()
    assert len(frames) == len(history) + 1
    assert [sorted(h) for h in frames[0]["hands"]] == [sorted(h.split()) for h in g.initial_hands()]
    for i, f in enumerate(frames):
        assert f["step"] == i and f["steps"] == len(history) and len(f["history"]) == i and f["variant"] == variant
        assert [len(h) for h in f["hands"]] == f["cards_left"]
        assert (f["phase"] == "over") == (i == len(history)) and ("settlement" in f) == (i == len(history))
        if i:
            seat, play = history[i - 1]
            assert f["last"] == {
                "seat": seat,
                "cards": play.cards.split() if play else [],
                "kind": play.kind if play else "pass",
            }
    assert frames[-1]["settlement"]["scores"] == g.scores()
    # Tricks: a trick starts with a lead, and the trick index grows by one there.
    starts = [i for i, f in enumerate(frames) if f["trick_start"]]
    assert starts[0] == 1 and [frames[i]["trick"] for i in starts] == list(range(len(starts)))
    assert all(frames[i]["trick"] == frames[i - 1]["trick"] for i in range(2, len(frames)) if i not in starts)


def test_replay_files_of_every_source_are_read(tmp_path):
    g1, g2 = played(seed=1), played(seed=2)
    seats = ["玩家 1", "a", "b", "c"]
    plain = tmp_path / "deals.jsonl"  # as `play --out` writes them
    plain.write_text("".join(json.dumps({"agents": seats, **json.loads(g.to_json())}) + "\n" for g in (g1, g2)))
    legacy = tmp_path / "old.jsonl"  # as play wrote them before records named their seats
    legacy.write_text(json.dumps({"agents": seats, "record": json.loads(g1.to_json())}) + "\n")
    assert read_replays(legacy)[0][0].agents == seats
    raw = tmp_path / "replays.jsonl.gz"  # as `selfplay --replays` writes them
    with gzip.open(raw, "wt") as f:
        f.write(g1.to_json() + "\n\n" + g2.to_json() + "\n")
    deals, more = read_replays(plain)
    assert not more and [d.agents for d in deals] == [["玩家 1", "a", "b", "c"]] * 2
    deals2, _ = read_replays(raw)
    assert [d.agents for d in deals2] == [None, None]
    assert [json.loads(d.record)["moves"] for d in deals2] == [json.loads(d.record)["moves"] for d in deals]
    few, more = read_replays(raw, limit=1)
    assert len(few) == 1 and more


@pytest.mark.parametrize(
    "content, needle",
    [
        ("", "no recorded deals"),
        ("{nope\n", ":1: not JSON"),
        ("[1, 2]\n", ":1: a deal record is a JSON object"),
        (json.dumps({"agents": ["a"], **json.loads(played().to_json())}) + "\n", ":1: record 'agents' must list four"),
        ('{"format": "shuangkou-deal/1"}\n', ":1:"),
    ],
)
def test_bad_replay_files_name_the_file_and_line(tmp_path, content, needle):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(ValueError, match=needle.replace("[", r"\[")):
        read_replays(path)
    with pytest.raises(OSError, match="cannot read replays from"):
        read_replays(tmp_path / "missing.jsonl.gz")


def test_the_viewer_serves_its_file_s_deals_and_nothing_else():
    deals = [RecordedDeal(["x", "y", "x", "y"], played(seed=s).to_json()) for s in (1, 2)]
    with TestClient(make_replay_app(deals, "deals.jsonl")) as client:
        index = client.get("/replay/index").json()
        assert index["file"] == "deals.jsonl" and [d["index"] for d in index["deals"]] == [0, 1]
        assert index["deals"][0]["variant"] == "qianbian" and index["deals"][0]["names"] == ["x", "y", "x", "y"]
        deal = client.get("/replay/deal/1").json()
        assert (
            deal["type"] == "replay" and deal["deals"] == 2 and len(deal["frames"]) == index["deals"][1]["actions"] + 1
        )
        assert deal["frames"][-1]["settlement"]["scores"] == index["deals"][1]["scores"]
        assert client.get("/replay/deal/2").status_code == 404 and "0..1" in client.get("/replay/deal/2").text
        for path in ("/replay/deal/x", "/deals.jsonl", "/static/../replay.py", "/ws"):
            assert client.get(path).status_code == 404, path
        assert "table.js" in client.get("/").text


def test_arena_records_replays_with_the_seats_named(tmp_path):
    path = tmp_path / "replays.jsonl.gz"
    sk.arena("baibian", ["heuristic", "greedy"], deals=6, threads=1, seed=3, replays=2, replay_path=path)
    deals, _ = read_replays(path)
    assert len(deals) == 4  # the first 2 deals of each half
    assert [d.agents for d in deals] == [["heuristic", "greedy"] * 2] * 2 + [["greedy", "heuristic"] * 2] * 2
    assert json.loads(deals[0].record)["hands"] == json.loads(deals[2].record)["hands"]  # duplicate deals
    with pytest.raises(ValueError, match="replays and replay_path go together"):
        sk.arena("baibian", ["heuristic", "greedy"], deals=6, replays=2)
    with pytest.raises(ValueError, match="replays"):
        sk.arena("baibian", ["heuristic", "greedy"], deals=6, replays=7, replay_path=path)
    sk.arena("baibian", ["heuristic", "greedy"], deals=3, threads=1, replays="all", replay_path=path)
    assert len(read_replays(path)[0]) == 6


def test_selfplay_replays_name_the_seats(tmp_path):
    path = tmp_path / "replays.jsonl.gz"
    sk.selfplay("jj", games=5, agents=["heuristic", "random"], seed=4, replays=3, replay_path=path)
    deals, _ = read_replays(path)
    assert [d.agents for d in deals] == [["heuristic", "random", "heuristic", "random"]] * 3
    seeds = [json.loads(d.record)["seed"] for d in deals]
    assert len(set(seeds)) == 3 and all(sk.Game.from_json(d.record).is_over() for d in deals)
    assert replay.index(deals)[0]["variant"] == "jj"


def test_the_replay_command_serves_the_viewer_on_loopback(tmp_path):
    import os
    import subprocess
    import sys
    import urllib.request

    from cli_util import assert_cli_error, run_cli

    out = tmp_path / "arena"
    p = run_cli("arena", "--agents", "heuristic,greedy", "--deals", "4", "--replays", "1", "--out", str(out), "--quiet")
    assert p.returncode == 0, p.stderr
    assert_cli_error(run_cli("replay", "--no-browser", str(out / "replays.jsonl.gz"), "--deal", "2"), "--deal: 0..1")
    assert_cli_error(run_cli("replay", "--no-browser", str(tmp_path / "none.jsonl")), "cannot read replays")
    assert_cli_error(run_cli("arena", "--agents", "heuristic,greedy", "--replays", "1"), "--replays needs --out")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    cmd = [sys.executable, "-m", "shuangkou", "replay", "--no-browser", str(out / "replays.jsonl.gz"), "--deal", "1"]
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = server.stdout.readline().strip()
        assert line.startswith("viewer: http://127.0.0.1:") and "mode=replay&deal=1" in line, line
        base = line.split(": ", 1)[1].split("/?")[0]
        with urllib.request.urlopen(base + "/replay/deal/1", timeout=30) as r:
            deal = json.loads(r.read())
        assert deal["names"] == ["greedy", "heuristic", "greedy", "heuristic"]
    finally:
        server.terminate()
        server.wait(timeout=30)
