"""The learner's actors on a Ray cluster (`train --ray`; docs/ray_training.md).

    with ray_cluster_for(True, config) as ray:                       # connected, the CPUs checked
        with RayActors(ray, config, rules, net, version, start_update) as source:
            obs, move, target = source.collect(update)               # as LocalActors

Each of the `ray: actors` Ray actors (`DmcWorker`, `cpus_per_actor` CPUs) runs every
actor group of the config (self-play, a bot, a past snapshot) over its share of
`num_envs`, in the C++ actor loop (`shuangkou._core.DmcActors`, `cpus_per_actor`
threads), and sends back its share of each update's `collect` decisions as numpy arrays
(one batch an update). With `ahead: 1` (the default) each actor plays the next update's
batch while the learner trains on this one; `ahead: 0` alternates acting and learning
as on one machine.

The weights go to the actors through the object store: one ``ray.put`` of the model
file's bytes and their version each push, which every actor takes from its next batch
on (a batch already under way keeps the weights it began with, so with `ahead: 1` a push
reaches the batches one update later than on one machine). The teacher's share goes
with each batch request (the share of the update before the batch's, as on one machine).

An actor that dies (its process or node lost) is replaced by the driver: a new actor
with the weights last pushed, fresh seeds, and the batches the dead one owed asked of
it again. The decisions asked of the dead actor are counted as lost (train.csv's
`lost_samples`, with `actor_restarts`); past `ray: restarts` replacements the run ends
with `ActorsFailed` (the last checkpoint kept). The actors are killed when the run ends,
however it ends (Ctrl-C included).

This module imports neither torch nor Ray at import time (the actors' processes need
only numpy and the C++ core); Ray comes in through shuangkou.ray_cluster.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from ..runs.ray_cluster import connect, import_ray, worker_setup
from .sources import Batch, concat, make_actors
from .train_config import SNAPSHOT, RaySettings, TrainConfig

if TYPE_CHECKING:
    from .net import QNetwork

__all__ = ["ActorsFailed", "DmcWorker", "RayActors", "ray_cluster_for"]


class ActorsFailed(ConnectionError):
    """The Ray actors could not go on: more deaths than `ray: restarts` allows, or an
    actor that fails as it starts (a bot file missing on its node, say). A
    ConnectionError, so the command line reports it in one line (exit 1)."""


def note(text: str) -> None:
    """One line of the run's log on stderr (the progress bar's stream)."""
    print(f"train: {text}", file=sys.stderr, flush=True)


def _settings(config: TrainConfig) -> RaySettings:
    return config.ray if config.ray is not None else RaySettings()


@contextlib.contextmanager
def ray_cluster_for(address: bool | str, config: TrainConfig) -> Iterator[Any]:
    """Connects to the Ray that `address` names (shuangkou.ray_cluster.connect) and checks
    that the config's actors fit: their split of num_envs (ValueError naming ray: actors)
    and their CPUs in the cluster's (ValueError saying what the cluster has: Ray would
    otherwise wait for CPUs that never come). Yields the ray module; a Ray started here
    (a new local one) is shut down on the way out."""
    settings = _settings(config)
    config.ray_split(settings.actors)  # (the defaults of a config without a ray: section)
    ray = import_ray()
    started = not ray.is_initialized()
    ray = connect(address)
    try:
        cpus = ray.cluster_resources().get("CPU", 0.0)
        need = settings.actors * settings.cpus_per_actor
        if need > cpus:
            raise ValueError(
                f"ray: {settings.actors} actors of {settings.cpus_per_actor} CPUs need {need} CPUs, "
                f"more than the cluster's {cpus:g}: lower ray: actors or cpus_per_actor, or add nodes"
            )
        yield ray
    finally:
        if started:
            ray.shutdown()


@dataclasses.dataclass(frozen=True)
class WorkerSpec:
    """What a DmcWorker plays: the config, its groups' (opponent, deals), its place
    among the actors (for its seeds) and how many actors held that place before it."""

    config: TrainConfig
    groups: tuple[tuple[str | None, int], ...]
    index: int
    generation: int
    update: int  # the update its actors start at (their seeds, the teacher's share)


class DmcWorker:
    """A Ray actor: the C++ actors of every group, over `cpus_per_actor` threads."""

    def __init__(
        self,
        rules: _core.Rules,
        spec: WorkerSpec,
        weights: tuple[bytes, int],
        snapshot: tuple[bytes, int],
        snapshot_at: int,
    ) -> None:
        """`weights`: the model file's bytes and the version the learning seats play;
        `snapshot`: those of the past snapshot, taken at update `snapshot_at`."""
        c = spec.config
        self.spec, self.rules, self.threads = spec, rules, _settings(c).cpus_per_actor
        worker_setup(self.threads)
        qnet, version = _core.QNet.from_bytes(weights[0]), weights[1]
        past = _core.QNet.from_bytes(snapshot[0]) if any(o == SNAPSHOT for o, _ in spec.groups) else None
        self.replaced = 0  # decisions of the snapshot actors replaced so far
        self.groups = [
            self._actors(qnet, version, g, opponent, envs, (past, snapshot_at))
            for g, (opponent, envs) in enumerate(spec.groups)
        ]

    def _actors(
        self, qnet: _core.QNet, version: int, g: int, opponent: Any, envs: int, snapshot: tuple[Any, int]
    ) -> Any:
        spec, c = self.spec, self.spec.config
        past, at = snapshot
        seed = np.random.SeedSequence([c.seed, spec.update, g, spec.index, spec.generation, at])
        return make_actors(
            c, self.rules, qnet, version, opponent, envs, int(seed.generate_state(1, np.uint64)[0]),
            self.threads, c.teacher_prob(spec.update), (past if past is not None else qnet, f"snapshot at update {at}"),
        )  # fmt: skip

    def ready(self) -> dict[str, Any]:
        """The process id and node of this actor (the driver waits for it: the actor is up)."""
        import ray

        return {"pid": os.getpid(), "node": ray.get_runtime_context().get_node_id()}

    def collect(self, sizes: list[int], teacher_prob: float) -> dict[str, Any]:
        """Each group's share of one update's decisions (obs, move, target as numpy), played
        with the teacher's share `teacher_prob`; the decisions made so far and the seconds
        this collection took."""
        started = time.perf_counter()
        if self.spec.config.teacher != "none":
            for actors in self.groups:
                actors.set_teacher_prob(teacher_prob)
        obs, move, target = concat([actors.collect(n) for actors, n in zip(self.groups, sizes)])
        seconds = time.perf_counter() - started
        return {"obs": obs, "move": move, "target": target, "decisions": self.decisions(), "collect_s": seconds}

    def set_network(self, weights: tuple[bytes, int]) -> None:
        """The weights (a model file's bytes) and their version, from the next batch on."""
        qnet = _core.QNet.from_bytes(weights[0])
        for actors in self.groups:
            actors.set_network(qnet, weights[1])

    def refresh_snapshot(self, weights: tuple[bytes, int], update: int) -> None:
        """The past-snapshot group plays `weights` (the learner's at `update`), its
        learning seats and their opponents alike, from now on (new actors in its place)."""
        qnet = _core.QNet.from_bytes(weights[0])
        for g, (opponent, envs) in enumerate(self.spec.groups):
            if opponent == SNAPSHOT:
                self.replaced += self.groups[g].decisions
                self.groups[g] = self._actors(qnet, weights[1], g, opponent, envs, (qnet, update))

    def decisions(self) -> int:
        return self.replaced + sum(actors.decisions for actors in self.groups)


@dataclasses.dataclass
class _Request:
    """A batch asked of a worker: for `update`, `sizes` decisions a group."""

    update: int
    sizes: list[int]
    teacher_prob: float
    ref: Any = None


@dataclasses.dataclass
class _Slot:
    """A worker's place: its handle, its pending requests (oldest first), the decisions
    it last reported and how many workers held the place before it."""

    index: int
    handle: Any = None
    pending: list[_Request] = dataclasses.field(default_factory=list)
    decisions: int = 0
    generation: int = 0
    info: dict[str, Any] = dataclasses.field(default_factory=dict)


class RayActors:
    """The learner's sample source on a Ray cluster (see the module's doc)."""

    def __init__(
        self, ray: Any, config: TrainConfig, rules: _core.Rules, net: QNetwork, version: int, start_update: int
    ) -> None:
        self.ray, self.config, self.rules = ray, config, rules
        self.settings = _settings(config)
        self.split = config.ray_split(self.settings.actors)
        self.remote = ray.remote(DmcWorker).options(
            num_cpus=self.settings.cpus_per_actor, max_restarts=0, max_task_retries=0
        )
        self.weights = self._put(net, version)  # the weights last pushed
        self.snapshot, self.snapshot_at = self.weights, start_update  # the past snapshot's, and its update
        self.start_update, self.last_update = start_update, start_update  # the last update asked for
        self.slots = [_Slot(i) for i in range(self.settings.actors)]
        self._lost = self._restarts = self._gone = 0  # lost decisions, replacements, decisions of dead workers
        self.pushes, self.push_s = 0, 0.0  # pushes, and the seconds they took (ray.put and the calls)
        try:
            for slot in self.slots:
                slot.handle = self._start(slot, start_update)
            self._wait_ready(self.slots)
        except BaseException:
            self.close()
            raise
        nodes = len({s.info["node"] for s in self.slots})
        note(
            f"{len(self.slots)} Ray actors of {self.settings.cpus_per_actor} CPUs on {nodes} node(s), "
            f"{self.settings.ahead} batch(es) ahead"
        )

    def _start(self, slot: _Slot, update: int) -> Any:
        groups = tuple((opponent, envs) for opponent, envs, _ in self.split[slot.index])
        spec = WorkerSpec(self.config, groups, slot.index, slot.generation, update)
        return self.remote.remote(self.rules, spec, self.weights, self.snapshot, self.snapshot_at)

    def _wait_ready(self, slots: list[_Slot]) -> None:
        """Waits until every worker of `slots` is up; ActorsFailed naming the first that
        failed as it started."""
        infos = [s.handle.ready.remote() for s in slots]
        for slot, ref in zip(slots, infos):
            try:
                slot.info = self.ray.get(ref)
            except self.ray.exceptions.RayActorError as e:
                raise ActorsFailed(f"Ray actor {slot.index} could not start: {_first_line(e)}") from None

    def _ask(self, slot: _Slot, request: _Request) -> None:
        request.ref = slot.handle.collect.remote(request.sizes, request.teacher_prob)

    def collect(self, update: int) -> Batch:
        ahead = self.settings.ahead
        for v in range(self.last_update + 1, update + ahead + 1):  # every worker has its next batches asked
            tp = self.config.teacher_prob(v - 1)
            for slot in self.slots:
                request = _Request(v, [n for _, _, n in self.split[slot.index]], tp)
                self._ask(slot, request)
                slot.pending.append(request)
        self.last_update = max(self.last_update, update + ahead)
        batches = [self._get(slot, update) for slot in self.slots]
        # (copied out of the object store, whose arrays are read-only, even for one actor)
        obs, move, target = (np.concatenate([b[k] for b in batches]) for k in ("obs", "move", "target"))
        return obs, move, target

    def _get(self, slot: _Slot, update: int) -> dict[str, Any]:
        """The batch `slot` owes for `update`, replacing its worker while it dies."""
        while True:
            request = slot.pending[0]
            assert request.update == update, (request.update, update)
            errors = self.ray.exceptions
            try:
                batch = self.ray.get(request.ref)
            except (errors.RayActorError, errors.ObjectLostError) as e:  # (lost: its node went with the batch)
                if getattr(e, "actor_init_failed", False):
                    raise ActorsFailed(f"Ray actor {slot.index} could not start: {_first_line(e)}") from None
                self._replace(slot, e, update)
                continue
            slot.pending.pop(0)
            slot.decisions = int(batch["decisions"])
            return batch

    def _replace(self, slot: _Slot, error: Exception, update: int) -> None:
        """A new worker in the place of `slot`'s dead one, asked for its pending batches."""
        lost = sum(sum(r.sizes) for r in slot.pending)
        self._lost += lost
        self._gone += slot.decisions
        slot.decisions = 0
        self._restarts += 1
        with contextlib.suppress(Exception):
            self.ray.kill(slot.handle, no_restart=True)
        if self._restarts > self.settings.restarts:
            raise ActorsFailed(
                f"Ray actor {slot.index} died at update {update}, replacement {self._restarts} of a run that "
                f"allows {self.settings.restarts} (ray: restarts); the last checkpoint is kept: "
                f"{_first_line(error)}"
            )
        note(
            f"Ray actor {slot.index} died at update {update} ({_first_line(error)}); "
            f"{lost:,} decisions asked of it are lost; replaced ({self._restarts} of {self.settings.restarts})"
        )
        slot.generation += 1
        slot.handle = self._start(slot, update)
        self._wait_ready([slot])
        for request in slot.pending:
            self._ask(slot, request)

    def _put(self, net: QNetwork, version: int) -> Any:
        """The network's model bytes (with the run's metadata: its heuristic prior) and
        version, put in Ray's object store once for every worker."""
        return self.ray.put((net.to_qnet(self.config.network_metadata()).to_bytes(), version))

    def push(self, net: QNetwork, version: int) -> None:
        started = time.perf_counter()
        self.weights = self._put(net, version)  # once a push, for every worker
        for slot in self.slots:
            slot.handle.set_network.remote(self.weights)
        self.pushes += 1
        self.push_s += time.perf_counter() - started

    def refresh_snapshot(self, net: QNetwork, version: int, update: int) -> None:
        self.snapshot, self.snapshot_at = self._put(net, version), update
        for slot in self.slots:
            slot.handle.refresh_snapshot.remote(self.snapshot, update)

    @property
    def decisions(self) -> int:
        return self._gone + sum(s.decisions for s in self.slots)

    @property
    def lost_samples(self) -> int:
        return self._lost

    @property
    def restarts(self) -> int:
        return self._restarts

    def close(self) -> None:
        for slot in self.slots:
            if slot.handle is not None:
                with contextlib.suppress(Exception):
                    self.ray.kill(slot.handle, no_restart=True)
                self._gone += slot.decisions
                slot.handle, slot.decisions, slot.pending = None, 0, []

    def __enter__(self) -> RayActors:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:300] if text else type(error).__name__
