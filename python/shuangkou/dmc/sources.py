"""Where the learner's fresh decisions come from: the C++ actors of this machine
(`LocalActors`) or Ray actors on a cluster (`shuangkou.dmc.ray_actors.RayActors`).

Both are driven the same way by the one learner loop (shuangkou.dmc.learner):

    with LocalActors(config, rules, net, version, start_update) as source:
        for update in ...:
            obs, move, target = source.collect(update)   # numpy: one update's fresh decisions
            ...                                          # learn
            source.push(net, version)                    # every push_every updates
        source.decisions, source.lost_samples, source.restarts   # counts for the logs

`collect(update)` returns the decisions of every actor group (self-play, a bot, a past
snapshot of the network) in the groups' shares of `collect`, played with the teacher's
share of update - 1 (the actors' share at the start of update `update`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .. import _core
from .train_config import SNAPSHOT, TrainConfig

if TYPE_CHECKING:
    from .net import QNetwork

__all__ = ["LocalActors", "SampleSource"]

Batch = tuple[np.ndarray, np.ndarray, np.ndarray]  # obs [n, obs_size], move [n, move_size], target [n]


class SampleSource(Protocol):
    """What the learner loop needs of its actors."""

    def collect(self, update: int) -> Batch:
        """One update's fresh decisions, in the groups' shares of `collect`."""
        ...

    def push(self, net: QNetwork, version: int) -> None:
        """The actors play `net`'s weights, tagged `version`, from their next decisions on."""
        ...

    def refresh_snapshot(self, net: QNetwork, version: int, update: int) -> None:
        """The past-snapshot group plays `net` as it is now from `update` on."""
        ...

    @property
    def decisions(self) -> int:
        """Decisions the actors have made so far (those of replaced actors included)."""
        ...

    @property
    def lost_samples(self) -> int:
        """Decisions asked of actors that died before sending them (0 on one machine)."""
        ...

    @property
    def restarts(self) -> int:
        """Dead actors replaced (0 on one machine)."""
        ...

    def close(self) -> None:
        """Ends the actors (safe to call twice)."""
        ...


def seed_of(config: TrainConfig, update: int, group: int) -> int:
    """The seed of actor group `group`'s deals when made at `update` on one machine."""
    return (config.seed + update + 1_000_003 * group) % 2**64


def make_actors(
    config: TrainConfig,
    rules: _core.Rules,
    qnet: _core.QNet,
    version: int,
    opponent: Any,
    envs: int,
    seed: int,
    threads: int,
    teacher_prob: float,
    snapshot: tuple[_core.QNet, str] | None = None,
) -> _core.DmcActors:
    """C++ actors of one group: `envs` deals, the learning seats playing `qnet` (at
    `version`) against `opponent`: a bot's name, None for self-play, or SNAPSHOT for a past
    snapshot of the network played greedily: `snapshot`'s network and name (default:
    `qnet` itself, as it is now)."""
    if opponent == SNAPSHOT:
        past, name = snapshot or (qnet, "snapshot")
        opponent = _core.Bot.dmc(past, name)
    return _core.DmcActors(
        rules,
        qnet,
        version=version,
        num_envs=envs,
        seed=seed,
        threads=threads,
        reward=config.reward,
        epsilon=config.epsilon,
        opponent=opponent,
        teacher=None if config.teacher == "none" else config.teacher,
        teacher_prob=teacher_prob,
    )


def concat(batches: list[dict[str, np.ndarray]]) -> Batch:
    """The (obs, move, target) arrays of several collections, one after the other."""
    if len(batches) == 1:  # (no copy)
        return batches[0]["obs"], batches[0]["move"], batches[0]["target"]
    obs, move, target = (np.concatenate([b[k] for b in batches]) for k in ("obs", "move", "target"))
    return obs, move, target


class LocalActors:
    """The C++ actors of this machine, one `DmcActors` per actor group, `threads` threads
    each; acting and learning alternate (collect returns when the decisions are made)."""

    def __init__(self, config: TrainConfig, rules: _core.Rules, net: QNetwork, version: int, start_update: int) -> None:
        self.config, self.rules = config, rules
        # One copy to the CPU, with the run's metadata (its prior): the actors' network and the snapshot's.
        qnet = net.to_qnet(config.network_metadata())
        self.groups = [
            (self._group(qnet, version, start_update, g, opponent, envs), max(1, round(config.collect * share)))
            for g, (opponent, envs, share) in enumerate(config.groups())
        ]
        self._replaced = 0  # decisions of the snapshot actors replaced so far

    def _group(self, qnet: _core.QNet, version: int, update: int, g: int, opponent: Any, envs: int) -> Any:
        c = self.config
        return make_actors(
            c, self.rules, qnet, version, opponent, envs, seed_of(c, update, g), c.threads,
            c.teacher_prob(update), (qnet, f"snapshot at update {update}"),
        )  # fmt: skip

    def collect(self, update: int) -> Batch:
        c = self.config
        if c.teacher != "none" and update - 1 <= c.teacher_updates:  # (0 from there on)
            for actors, _ in self.groups:
                actors.set_teacher_prob(c.teacher_prob(update - 1))
        return concat([actors.collect(n) for actors, n in self.groups])

    def push(self, net: QNetwork, version: int) -> None:
        qnet = net.to_qnet(self.config.network_metadata())  # (copied to the CPU, wherever the learner runs)
        for actors, _ in self.groups:
            actors.set_network(qnet, version)

    def refresh_snapshot(self, net: QNetwork, version: int, update: int) -> None:
        qnet = net.to_qnet(self.config.network_metadata())
        for g, (opponent, envs, _) in enumerate(self.config.groups()):
            if opponent == SNAPSHOT:
                self._replaced += self.groups[g][0].decisions
                self.groups[g] = (self._group(qnet, version, update, g, opponent, envs), self.groups[g][1])

    @property
    def decisions(self) -> int:
        return self._replaced + sum(actors.decisions for actors, _ in self.groups)

    @property
    def lost_samples(self) -> int:
        return 0

    @property
    def restarts(self) -> int:
        return 0

    def close(self) -> None:
        self._replaced, self.groups = self.decisions, []

    def __enter__(self) -> LocalActors:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
