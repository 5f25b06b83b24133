"""Self-play and the arena on a local Ray (`ray=`): the one-machine results exactly, for
any chunk size; Python agents shipped to the workers; a worker that dies mid-run; one
progress count; every Ray process on the loopback address."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")

import shuangkou as sk  # noqa: E402
from shuangkou.agents import AgentError  # noqa: E402
from shuangkou.runs.ray_cluster import start_local  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TIMING = ("elapsed_s", "throughput", "ray", "threads")


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    if ray.is_initialized():
        ray.shutdown()
    start_local(num_cpus=2)
    yield
    ray.shutdown()


def same_result(a, b):
    """Equal summaries (timing and where it ran aside) and equal per-deal arrays."""
    assert {k: v for k, v in a.items() if k not in TIMING} == {k: v for k, v in b.items() if k not in TIMING}
    assert a.arrays.keys() == b.arrays.keys()
    for k in a.arrays:
        np.testing.assert_array_equal(a.arrays[k], b.arrays[k], err_msg=k)


class FirstLegal(sk.Agent):
    def act(self, d):
        return np.array([ids[0] for ids in d.legal_ids], dtype=np.int64)


def last_legal(obs, mask, seats):
    return np.array([np.flatnonzero(m)[-1] for m in mask], dtype=np.int64)


def _sockets_of(pids: set[int]) -> list[tuple[str, str]]:
    """(local, remote) addresses of the TCP sockets the processes `pids` hold, as hex
    from /proc/net/tcp and tcp6."""
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue  # a process that ended meanwhile
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            f = line.split()
            if f[9] in inodes:
                out.append((f[1].split(":")[0], f[2].split(":")[0]))
    return out


def _is_loopback(hex_addr: str) -> bool:
    if len(hex_addr) == 8:  # IPv4, little-endian: 127.x.x.x ends in 7F
        return hex_addr.endswith("7F")
    # IPv6: ::1, or ::ffff:127.x.x.x (v4-mapped)
    return hex_addr == "00000000000000000000000001000000" or (
        hex_addr.startswith("0000000000000000FFFF0000") and hex_addr.endswith("7F")
    )


def test_every_ray_process_stays_on_the_loopback_address():
    assert {n["NodeManagerAddress"] for n in ray.nodes()} == {"127.0.0.1"}
    assert ray.get_runtime_context().gcs_address.startswith("127.0.0.1:")

    @ray.remote(num_cpus=1)
    def pid():
        return os.getpid()

    node = ray._private.worker._global_node
    pids = {p.process.pid for procs in node.all_processes.values() for p in procs}
    pids |= set(ray.get([pid.remote() for _ in range(4)])) | {os.getpid()}
    sockets = _sockets_of(pids)
    assert len(sockets) > 5  # the GCS, the raylet, the workers and their connections
    zero = {"00000000", "00000000000000000000000000000000"}
    for local, remote in sockets:
        assert _is_loopback(local), f"a Ray socket bound to {local}"  # not the wildcard, not the machine's address
        assert remote in zero or _is_loopback(remote), f"a Ray connection to {remote}"


@pytest.mark.parametrize("chunk", [1_000, 333, 37])
def test_selfplay_on_ray_is_the_one_machine_result(chunk):
    kw = dict(games=1_000, agents=["heuristic", "greedy", "random", "simple"], seed=5)
    local = sk.selfplay("baibian", threads=1, **kw)
    remote = sk.selfplay("baibian", ray=True, chunk=chunk, **kw)
    same_result(local, remote)
    chunks = -(-1_000 // chunk)
    assert remote["ray"]["chunks"] == chunks and remote["ray"]["chunk"] == chunk
    nodes = remote["ray"]["nodes"]
    assert isinstance(nodes, dict) and sum(nodes.values()) == chunks
    assert all(isinstance(k, str) and len(k) == 56 for k in nodes)  # Ray node ids (hex)


def test_python_agents_travel_to_the_workers():
    kw = dict(games=120, agents=[FirstLegal(), last_legal], seed=2)
    same_result(sk.selfplay("classic", **kw), sk.selfplay("classic", ray=True, chunk=25, **kw))
    # "module:callable" too, resolved here and shipped as the object it names.
    kw = dict(games=60, agents=["test_ray:last_legal", "heuristic"], seed=3)
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        same_result(sk.selfplay("jj", **kw), sk.selfplay("jj", ray=True, chunk=16, **kw))
    finally:
        sys.path.remove(str(Path(__file__).parent))


def test_arena_on_ray_is_the_one_machine_result():
    kw = dict(agents=["heuristic", FirstLegal(), "random"], deals=150, seed=4)
    local = sk.arena("classic", **kw)
    remote = sk.arena("classic", ray=True, chunk=40, **kw)
    assert {k: v for k, v in local.items() if k not in TIMING} == {k: v for k, v in remote.items() if k not in TIMING}
    assert sum(remote["ray"]["nodes"].values()) == remote["ray"]["chunks"] == 3 * 2 * 4  # 3 pairs, 2 halves


def test_agents_that_cannot_be_shipped_are_refused_before_any_work():
    in_memory = sk.Bot.dmc(sk.QNet.load(str(ROOT / "python" / "shuangkou" / "models" / "dmc_baibian.safetensors")))
    calls = []
    with pytest.raises(ValueError, match="cannot be sent to the Ray workers.*network held in memory"):
        sk.selfplay("baibian", games=10, agents=[in_memory, "random"], ray=True, progress=calls.append)
    lock = __import__("threading").Lock()
    with pytest.raises(ValueError, match="agent holds_a_lock cannot be sent to the Ray workers"):

        def holds_a_lock(obs, mask, seats):
            with lock:
                return last_legal(obs, mask, seats)

        sk.selfplay("baibian", games=10, agents=[holds_a_lock, "random"], ray=True, progress=calls.append)
    assert calls == []


def test_a_worker_that_dies_mid_run_has_its_chunk_played_again(tmp_path):
    flag = tmp_path / "died"

    def dies_once(obs, mask, seats):
        if not flag.exists():
            flag.write_text("x")
            os._exit(1)  # the worker process dies in the middle of its chunk
        return last_legal(obs, mask, seats)

    kw = dict(games=80, agents=[dies_once, "heuristic"], seed=9)
    remote = sk.selfplay("classic", ray=True, chunk=20, **kw)
    assert flag.exists()
    same_result(sk.selfplay("classic", **kw), remote)


def test_one_progress_count_covers_every_chunk_and_can_stop_the_run():
    seen = []
    sk.selfplay("classic", games=300, agents="greedy", ray=True, chunk=50, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 300 and len(seen) == 6
    stopped = sk.selfplay("classic", games=300, agents="greedy", ray=True, chunk=50, progress=lambda done: False)
    assert stopped["ray"]["stopped_early"] and stopped["games"] % 50 == 0 and stopped["games"] < 300


def test_bad_ray_arguments_are_refused():
    for bad in ("nowhere", "host:port", 3, "127.0.0.1:99999"):
        with pytest.raises(ValueError, match="ray: True"):
            sk.selfplay(games=10, ray=bad)
    with pytest.raises(ValueError, match="chunk: deals per Ray task"):
        sk.selfplay(games=10, chunk=5)
    with pytest.raises(ValueError, match="connected to the Ray cluster at 127.0.0.1"):
        sk.selfplay(games=10, ray="10.0.0.1:6379")  # this process has another cluster


def test_an_unreachable_cluster_is_a_one_line_error():
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = f"import shuangkou as sk; sk.selfplay(games=10, ray='127.0.0.1:{port}')"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("ConnectionError: cannot reach a Ray cluster at 127.0.0.1:") and str(port) in last


def test_the_cli_joins_a_cluster_and_says_where_the_work_ran(tmp_path):
    address = ray.get_runtime_context().gcs_address
    cmd = [sys.executable, "-m", "shuangkou", "selfplay", "--games", "500", "--agents", "heuristic,random"]
    cmd += ["--seed", "7", "--ray", address, "--chunk", "100", "--out", str(tmp_path / "sp"), "--quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    summary = json.loads((tmp_path / "sp" / "summary.json").read_text())
    assert summary["ray"]["chunks"] == 5 and sum(summary["ray"]["nodes"].values()) == 5
    local = sk.selfplay("baibian", games=500, agents=["heuristic", "random"], seed=7)
    assert summary["scores"] == json.loads(json.dumps(local["scores"]))
    cmd = [sys.executable, "-m", "shuangkou", "arena", "--agents", "heuristic,random", "--deals", "60"]
    cmd += ["--ray", address, "--chunk", "30", "--out", str(tmp_path / "ar"), "--quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    results = json.loads((tmp_path / "ar" / "results.json").read_text())
    assert sum(results["ray"]["nodes"].values()) == results["ray"]["chunks"] == 4


def _closed_port() -> int:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cli(*args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "shuangkou", *args]
    return subprocess.run(cmd, capture_output=True, timeout=timeout, cwd=cwd)


def test_a_cluster_that_cannot_be_reached_leaves_the_replay_file_as_it_was(tmp_path):
    path = tmp_path / "replays.jsonl.gz"
    sk.selfplay("classic", games=5, agents="greedy", replays=5, replay_path=path)
    before = path.read_bytes()
    assert len(before) > 1000
    # This process is connected to another cluster: refused (ValueError) before the file is opened.
    with pytest.raises(ValueError, match="connected to the Ray cluster at"):
        sk.selfplay("classic", games=5, agents="greedy", replays=5, replay_path=path, ray="10.0.0.1:6379")
    with pytest.raises(ValueError, match="connected to the Ray cluster at"):
        sk.arena("classic", ["greedy", "random"], deals=4, replays=1, replay_path=path, ray="10.0.0.1:6379")
    assert path.read_bytes() == before
    # A fresh process and a closed port: ConnectionError, the file untouched.
    port = _closed_port()
    code = f"""
import shuangkou as sk
for run in (sk.selfplay, sk.arena):
    kw = dict(games=5, agents="greedy") if run is sk.selfplay else dict(agents=["greedy", "random"], deals=4)
    try:
        run("classic", replays=1, replay_path={str(path)!r}, ray="127.0.0.1:{port}", **kw)
    except ConnectionError as e:
        print("refused:", e)
"""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.stdout.count(f"refused: cannot reach a Ray cluster at 127.0.0.1:{port}") == 2, p.stdout + p.stderr
    assert path.read_bytes() == before


def test_a_cluster_that_cannot_be_reached_leaves_the_out_folder_as_it_was(tmp_path):
    bad = f"127.0.0.1:{_closed_port()}"
    selfplay = ["selfplay", "--variant", "classic", "--games", "5", "--replays", "5", "--quiet"]
    p = _cli(*selfplay, "--out", str(tmp_path / "sp"), "--ray", bad)
    err = p.stderr.decode()
    assert p.returncode == 1 and err.startswith(f"error: cannot reach a Ray cluster at {bad}") and err.count("\n") == 1
    assert not (tmp_path / "sp").exists()  # not even created
    p = _cli(*selfplay, "--out", str(tmp_path / "sp"))  # the run without Ray is no rerun
    assert p.returncode == 0, p.stderr.decode()[-2000:]
    before = {f.name: f.read_bytes() for f in (tmp_path / "sp").iterdir()}
    p = _cli(*selfplay, "--out", str(tmp_path / "sp"), "--force", "--ray", bad)
    assert p.returncode == 1 and {f.name: f.read_bytes() for f in (tmp_path / "sp").iterdir()} == before
    arena = ["arena", "--variant", "classic", "--agents", "greedy,random", "--deals", "4", "--replays", "1"]
    p = _cli(*arena, "--quiet", "--out", str(tmp_path / "ar"), "--ray", bad)
    assert p.returncode == 1 and "cannot reach a Ray cluster" in p.stderr.decode()
    assert not (tmp_path / "ar").exists()


def test_ray_client_addresses_are_refused_at_once():
    from shuangkou.runs.ray_cluster import check_ray_arg

    for address in ("ray://head.invalid:10001", " ray://127.0.0.1:10001", "http://127.0.0.1:8265"):
        with pytest.raises(ValueError, match="is a URL; Ray Client addresses .* are not supported") as info:
            check_ray_arg(address)
        assert address.strip() in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(ValueError, match="'ray://head.invalid:10001' is a URL"):
        sk.selfplay(games=10, ray="ray://head.invalid:10001")
    p = _cli("selfplay", "--games", "5", "--quiet", "--ray", "ray://head.invalid:10001", timeout=60)
    assert p.returncode == 2 and p.stderr.decode().startswith("error: ray: 'ray://head.invalid:10001' is a URL")


def explodes(obs, mask, seats):
    raise KeyError("boom")


def test_an_agent_that_raises_on_a_worker_is_one_line_naming_it(tmp_path):
    with pytest.raises(AgentError) as info:
        sk.selfplay("classic", games=20, agents=[explodes, "random"], ray=True, chunk=10)
    message = str(info.value)
    assert "explodes" in message and "KeyError" in message and "boom" in message, message
    assert "\n" not in message and "\x1b" not in message and len(message) < 300, message
    assert not isinstance(info.value, ray.exceptions.RayTaskError)
    (tmp_path / "boom.py").write_text("def explodes(obs, mask, seats):\n    raise KeyError('boom')\n")
    address = ray.get_runtime_context().gcs_address
    p = _cli("selfplay", "--games", "20", "--agents", "boom:explodes,random", "--ray", address, "--quiet", cwd=tmp_path)
    err = p.stderr.decode()
    assert p.returncode == 1 and err.startswith("error: ") and err.count("\n") == 1, err[-3000:]
    assert "boom:explodes" in err and "KeyError" in err and "\x1b" not in err and len(err) < 400, err
