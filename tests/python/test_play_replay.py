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


def _replayed_scores(deals):
    return [sk.Game.from_json(d.record).scores() for d in deals]


def test_selfplay_records_python_agents_deals_in_deal_order(tmp_path):
    from agents_for_tests import LowestId, last_legal

    path = tmp_path / "replays.jsonl.gz"
    r = sk.selfplay(
        "baibian",
        games=12,
        agents=[LowestId(), "heuristic", last_legal, "greedy"],
        seed=2,
        batch=5,
        replays=7,
        replay_path=path,
    )
    deals, _ = read_replays(path)
    assert len(deals) == 7 and deals[0].agents == ["lowest-id", "heuristic", "last_legal", "greedy"]
    assert _replayed_scores(deals) == r.arrays["scores"][:7].tolist()  # each record is its deal, in order
    same = tmp_path / "again.jsonl.gz"  # the batch size changes nothing
    sk.selfplay(
        "baibian",
        games=12,
        agents=[LowestId(), "heuristic", last_legal, "greedy"],
        seed=2,
        batch=3,
        replays=7,
        replay_path=same,
    )
    assert [d.record for d in read_replays(same)[0]] == [d.record for d in deals]


def test_arena_records_python_agents_and_lists_the_deals_each_lost_most(tmp_path):
    from agents_for_tests import last_legal

    path = tmp_path / "replays.jsonl.gz"
    r = sk.arena("baibian", [last_legal, "heuristic"], deals=6, seed=3, replays="all", replay_path=path)
    deals, _ = read_replays(path)
    assert len(deals) == 12 and deals[0].agents == ["last_legal", "heuristic"] * 2
    diff = r.arrays[("last_legal", "heuristic")]["score_diff"]
    lost = r["pairs"][0]["lost_most"]
    assert lost["a"], "last_legal loses some deals to the heuristic"
    worst = lost["a"][0]
    assert worst["lost_by"] == -diff[worst["deal"]].sum() == max(-diff.sum(axis=1))
    first, second = worst["replay_places"]
    assert json.loads(deals[first].record)["hands"] == json.loads(deals[second].record)["hands"]
    assert deals[first].agents[0] == "last_legal" and deals[second].agents[0] == "heuristic"
    # the half's scores, from its record: the pair's difference
    a = sk.Game.from_json(deals[first].record).scores()
    b = sk.Game.from_json(deals[second].record).scores()
    assert (a[0] + a[2] - a[1] - a[3]) + (b[1] + b[3] - b[0] - b[2]) == -worst["lost_by"]


def _cli_in_tests(*args):
    """The CLI run from this folder, where module:callable agents are found."""
    import subprocess
    from pathlib import Path

    from cli_util import cli_command

    here = Path(__file__).parent
    return subprocess.run([*cli_command(), *args], capture_output=True, cwd=here, timeout=300)


def test_the_arena_command_records_a_python_agent_and_names_the_command_that_opens_its_worst_deal(tmp_path):
    out = tmp_path / "a"
    p = _cli_in_tests(
        "arena",
        "--agents",
        "agents_for_tests:last_legal,heuristic",
        "--deals",
        "5",
        "--replays",
        "all",
        "--out",
        str(out),
        "--quiet",
    )
    assert p.returncode == 0, p.stderr
    text = p.stdout.decode()
    assert "lost by most" in text and f"shuangkou replay {out / 'replays.jsonl.gz'} --deal" in text
    place = int(text.split(" --deal ")[1].split("`")[0])
    deals, _ = read_replays(out / "replays.jsonl.gz")
    assert deals[place].agents[0] == "agents_for_tests:last_legal"
    assert "lost by most" in (out / "report.md").read_text()


def test_a_refused_or_failed_arena_leaves_no_folder(tmp_path):
    from cli_util import assert_cli_error

    p = _cli_in_tests("arena", "--agents", "agents_for_tests:not_callable,heuristic", "--out", str(tmp_path / "x"))
    assert_cli_error(p, "not_callable")
    p = _cli_in_tests(
        "arena", "--agents", "agents_for_tests:Raises,heuristic", "--deals", "2", "--out", str(tmp_path / "y")
    )
    assert p.returncode != 0 and b"the agent broke" in p.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
