"""Self-play and the arena on a Ray cluster of several nodes, on one machine
(`ray.cluster_utils.Cluster`): a head and two worker nodes, each a raylet with its own
CPU, all on 127.0.0.1. The chunks land on both workers; a worker node killed mid-run
leaves the result identical."""

from __future__ import annotations

import time

import numpy as np
import pytest

ray = pytest.importorskip("ray")

import shuangkou as sk  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402
from shuangkou.runs.ray_cluster import loopback_only  # noqa: E402

TIMING = ("elapsed_s", "throughput", "ray", "threads")


@pytest.fixture(scope="module")
def cluster():
    if ray.is_initialized():
        ray.shutdown()
    loopback_only()
    c = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "node_ip_address": "127.0.0.1", "include_dashboard": False},
    )
    workers = [c.add_node(num_cpus=1, node_ip_address="127.0.0.1") for _ in range(2)]
    c.wait_for_nodes()
    yield c, workers
    if ray.is_initialized():
        ray.shutdown()
    c.shutdown()


def same_result(a, b):
    assert {k: v for k, v in a.items() if k not in TIMING} == {k: v for k, v in b.items() if k not in TIMING}
    for k in a.arrays:
        np.testing.assert_array_equal(a.arrays[k], b.arrays[k], err_msg=k)


def test_chunks_land_on_both_workers_and_a_killed_worker_changes_nothing(cluster):
    c, workers = cluster
    kw = dict(games=300, agents=["heuristic", "greedy"], seed=11)
    local = sk.selfplay("baibian", threads=1, **kw)
    remote = sk.selfplay("baibian", ray=c.address, chunk=25, **kw)
    assert {n["NodeManagerAddress"] for n in ray.nodes()} == {"127.0.0.1"}
    same_result(local, remote)
    worker_ids = {w.node_id for w in workers}
    assert set(remote["ray"]["nodes"]) == worker_ids  # both workers ran chunks; the head has no CPU
    assert all(n >= 1 for n in remote["ray"]["nodes"].values())

    # A worker node removed once a third of the deals are in: its chunks run on the other.
    killed = []

    def kill_one(done):
        if not killed and done >= 100:
            killed.append(workers[1])
            c.remove_node(workers[1], allow_graceful=False)

    again = sk.selfplay("baibian", ray=c.address, chunk=25, progress=kill_one, **kw)
    assert killed
    same_result(local, again)
    deadline = time.monotonic() + 60  # the head marks a node dead after its health checks fail
    while workers[1].node_id in {n["NodeID"] for n in ray.nodes() if n["Alive"]} and time.monotonic() < deadline:
        time.sleep(0.5)
    alive = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    assert workers[1].node_id not in alive and workers[0].node_id in alive


def test_the_arena_on_the_cluster_is_the_one_machine_arena(cluster):
    c, _ = cluster
    kw = dict(agents=["heuristic", "random"], deals=100, seed=3)
    local = sk.arena("jj", **kw)
    remote = sk.arena("jj", ray=c.address, chunk=20, **kw)
    assert {k: v for k, v in local.items() if k not in TIMING} == {k: v for k, v in remote.items() if k not in TIMING}
    assert sum(remote["ray"]["nodes"].values()) == 10
