"""The Deep Monte-Carlo training config: every setting, read from configs/train/*.yaml,
checked whole (values, combinations and the memory they need) before a run starts.

    from shuangkou.dmc.train_config import TrainConfig
    config = TrainConfig.from_yaml("configs/train/smoke.yaml")   # ValueError naming file, line, setting
    config.check_memory()             # (from_yaml ran it) ValueError naming the settings if it would not fit

The file is read by the variant files' reader (shuangkou.config.read_mapping): a
regular UTF-8 file, one YAML mapping, plain values only, `base: FILE` for the settings
this file does not give. docs/errors.md lists every check.

An optional `ray:` section (a mapping: RaySettings' keys, e.g. ``ray: {actors: 4,
cpus_per_actor: 8}``) says how the actors run on a Ray cluster; it is checked like every
other setting, but used only by a run given ``--ray`` (``train(..., ray=...)``): without
it the run trains with this machine's actors and says so (docs/ray_training.md).
"""

from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import _core
from ..agents import bot_forms, names_a_bot
from ..errors import clip
from ..util.checks import DEFAULT_SEED
from ..util.resources import BYTES_PER_DEAL, available_memory
from ..util.variant_files import read_mapping, shown

if TYPE_CHECKING:
    import torch

# The opponent of the actor group that plays a past snapshot of the network.
SNAPSHOT = "snapshot"
# The shares of the deals given to the groups that play an opponent (the rest is self-play).
SHARES = ("opponent_share", "snapshot_share", "second_opponent_share")

# Settings a resume may change (the rest must match the checkpoint's config).
RESUME_MAY_CHANGE = (
    "updates",
    "lr",
    "lr_end",
    "threads",
    "device",
    "log_every",
    "eval_every",
    "eval_deals",
    "eval_opponent",
    "average_last",
    "checkpoint_minutes",
    "max_minutes",
    "ray",
)
# The model format's limits (docs/model_format.md), as the C++ core has them (so does net.py).
MAX_HIDDEN_LAYERS, MAX_WIDTH = _core.QNet.MAX_HIDDEN_LAYERS, _core.QNet.MAX_WIDTH
MAX_COUNT = 1 << 40  # the most of any count (updates, decisions, deals, ...)
MAX_ENVS = 1 << 20  # the most actor envs
MAX_BASES = 16  # the longest chain of base: files
MAX_AVERAGED = 64  # the most models average_last averages
MAX_RAY_ACTORS = 1024  # the most Ray actors
MIN_GROUP_ENVS = 8  # the fewest deals an actor group plays side by side (on one machine, or per Ray actor)
# Bytes an actor env holds: its deal, observations and the decisions of the deal under
# way (about 300 KB measured for baibian, rounded up).
ENV_BYTES = 1 << 19
# The settings that name a built-in bot, and the value of each that names none.
_BOTS = (("opponent", "self"), ("second_opponent", "none"), ("teacher", "none"), ("eval_opponent", None))
_EXPECTED = "expected a mapping of training settings, one 'name: value' per line (configs/train/*.yaml)"
_INTS = {  # name -> (least, most)
    "num_envs": (1, MAX_ENVS),
    "threads": (0, _core.MAX_THREADS),
    "teacher_updates": (0, MAX_COUNT),
    "collect": (0, MAX_COUNT),  # 0: no actors (a distill: section's labels alone)
    "replay": (0, MAX_COUNT),
    "batch_size": (1, MAX_COUNT),
    "updates": (1, MAX_COUNT),
    "push_every": (1, MAX_COUNT),
    "log_every": (1, MAX_COUNT),
    "eval_every": (1, MAX_COUNT),
    "eval_deals": (1, MAX_COUNT),
    "snapshot_every": (1, MAX_COUNT),
    "average_last": (0, MAX_AVERAGED),
    "seed": (0, 2**64 - 1),
}


@dataclasses.dataclass(frozen=True)
class RaySettings:
    """The `ray:` section of a training config: how the actors run on a Ray cluster
    (used only with --ray; docs/ray_training.md)."""

    actors: int = 2  # Ray actors, each running every actor group over its share of num_envs
    cpus_per_actor: int = 1  # CPUs each actor reserves from Ray, and its C++ actor threads
    ahead: int = 1  # batches each actor plays ahead of the learner (0: acting and learning alternate)
    restarts: int = 10  # dead actors the driver replaces in a run (one more death ends it)

    @classmethod
    def from_value(cls, value: Any, where: str) -> RaySettings | None:
        """The settings of a `ray:` value: None (no section), a mapping of RaySettings'
        keys (the rest take their defaults) or RaySettings; ValueError naming `where`
        and the key for anything else, an unknown key or a value out of its range."""
        if value is None or isinstance(value, RaySettings):
            data = dataclasses.asdict(value) if value is not None else None
        elif isinstance(value, dict):
            data = value
        else:
            raise ValueError(
                f"{where}: ray: {shown(value)} is not a mapping of Ray settings "
                f"(e.g. 'ray: {{actors: 2, cpus_per_actor: 1}}'; keys: {', '.join(RAY_KEYS)})"
            )
        if data is None:
            return None
        unknown = sorted(set(data) - set(RAY_KEYS), key=str)
        if unknown:
            raise ValueError(
                f"{where}: ray: unknown setting(s) "
                f"{', '.join(u if isinstance(u, str) and u.isidentifier() else shown(u, 40) for u in unknown[:5])}"
                f"{' ...' if len(unknown) > 5 else ''} (known: {', '.join(RAY_KEYS)})"
            )
        for name, value in data.items():
            lo, hi = _RAY_INTS[name]
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise ValueError(f"{where}: ray: {name}: must be an integer {lo}..{hi:,}, got {shown(value)}")
        return cls(**data)


@dataclasses.dataclass(frozen=True)
class DistillSettings:
    """The `distill:` section of a training config: a Q network trained on expert labels
    (docs/labels.md, docs/training.md). With `collect: 0` the run trains on the labels
    alone (no actors)."""

    labels: tuple[str, ...] = ()  # labelling run folders (shuangkou label --out), relative to the working folder
    holdout_shards: int = 8  # the first shards of the first folder: held out of training, for the regret
    fresh: str = "none"  # a labelling run of those shards with another world_salt: the fresh estimate
    target: str = "win"  # the label regressed: win (the win reward) or score (the deal score / score_scale)
    score_scale: float = 20.0  # with target score: the score is divided by this
    abs_weight: float = 0.1  # regression of Q to each candidate's mean value, beside the relative values
    rank_weight: float = 0.0  # cross-entropy of the softmax over the candidates toward the best one
    se_floor: float = 0.05  # a candidate's weight is 1 / (se**2 + se_floor**2)
    anchor_weight: float = 0.0  # the mean squared distance of the weights from their start (init_from), times this
    rel_weight: float = 1.0  # the regression of the candidates' relative Q to their relative values (adv)
    imitate: tuple[str, ...] = ()  # agents of the labels (as their config names them) whose played moves are targets
    imitate_weight: float = 0.0  # cross-entropy of the softmax over the candidates' Q / temperature toward them
    temperature: float = 0.05  # the imitation's softmax temperature, in the units of Q

    @classmethod
    def from_value(cls, value: Any, where: str) -> DistillSettings | None:
        """The settings of a `distill:` value (None: no section); ValueError naming `where`
        and the key for anything else."""
        if value is None or isinstance(value, DistillSettings):
            return value
        if not isinstance(value, dict):
            raise ValueError(f"{where}: distill: {shown(value)} is not a mapping (keys: {', '.join(DISTILL_KEYS)})")
        unknown = sorted(str(k) for k in set(value) - set(DISTILL_KEYS))
        if unknown:
            raise ValueError(
                f"{where}: distill: unknown setting {shown(unknown[0], 40)} (known: {', '.join(DISTILL_KEYS)})"
            )
        data = dict(value)
        labels = data.get("labels", ())
        labels = [labels] if isinstance(labels, str) else labels
        if not isinstance(labels, (list, tuple)) or not labels or not all(isinstance(x, str) and x for x in labels):
            raise ValueError(f"{where}: distill: labels: one or more labelling folders, got {shown(labels)}")
        data["labels"] = tuple(labels)
        h = data.get("holdout_shards", 8)
        if isinstance(h, bool) or not isinstance(h, int) or not 0 <= h <= 1 << 20:
            raise ValueError(f"{where}: distill: holdout_shards: must be an integer 0..{1 << 20:,}, got {shown(h)}")
        if not isinstance(data.get("fresh", "none"), str) or not data.get("fresh", "none"):
            raise ValueError(f"{where}: distill: fresh: a labelling folder or none, got {shown(data.get('fresh'))}")
        for name in ("abs_weight", "rank_weight", "se_floor", "anchor_weight", "rel_weight", "imitate_weight"):
            x = data.get(name, getattr(cls, name))
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 <= x <= 1e6:
                raise ValueError(f"{where}: distill: {name}: must be a number 0..1e6, got {shown(x)}")
            data[name] = float(x)
        if data["se_floor"] <= 0:
            raise ValueError(f"{where}: distill: se_floor: must be > 0, got {data['se_floor']}")
        if data.get("target", "win") not in ("win", "score"):
            raise ValueError(f"{where}: distill: target: must be win or score, got {shown(data.get('target'))}")
        data["imitate"] = _imitate(data, where)
        x = data.get("temperature", cls.temperature)
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not 1e-4 <= x <= 1e3:
            raise ValueError(f"{where}: distill: temperature: must be a number in [0.0001, 1000], got {shown(x)}")
        data["temperature"] = float(x)
        x = data.get("score_scale", 20.0)
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 < x <= 1e6:
            raise ValueError(f"{where}: distill: score_scale: must be a number in (0, 1e6], got {shown(x)}")
        data["score_scale"] = float(x)
        return cls(**data)


def _imitate(data: dict[str, Any], where: str) -> tuple[str, ...]:
    """The `imitate` agents, checked: names (strings), given exactly when imitate_weight > 0."""
    names = data.get("imitate", ())
    names = [names] if isinstance(names, str) else names
    if not isinstance(names, (list, tuple)) or not all(isinstance(x, str) and x for x in names):
        raise ValueError(f"{where}: distill: imitate: agent names of the labels (a list), got {shown(names)}")
    if bool(names) != (data.get("imitate_weight", 0.0) > 0):
        raise ValueError(f"{where}: distill: imitate and imitate_weight go together (agents with a weight > 0)")
    return tuple(names)


_RAY_INTS = {  # name -> (least, most)
    "actors": (1, MAX_RAY_ACTORS),
    "cpus_per_actor": (1, _core.MAX_THREADS),
    "ahead": (0, 8),
    "restarts": (0, MAX_COUNT),
}
RAY_KEYS = tuple(f.name for f in dataclasses.fields(RaySettings))
DISTILL_KEYS = tuple(f.name for f in dataclasses.fields(DistillSettings))


@dataclasses.dataclass
class TrainConfig:
    """Every training setting (configs/train/*.yaml give them all, but the optional `ray:` section)."""

    variant: str = "baibian"  # a preset or a variant YAML file
    hidden: tuple[int, ...] = (256, 128)  # hidden layer widths (1..64 layers of 1..65536)
    reward: str = "win"  # the Monte-Carlo target: win, score or log
    epsilon: float = 0.05  # the actors' exploration
    num_envs: int = 256  # deals the actors step side by side
    threads: int = 0  # actor threads (0: every core)
    opponent: str = "self"  # a built-in bot the learning team also plays against ("self": none)
    opponent_share: float = 0.0  # share of the deals played against it
    snapshot_share: float = 0.0  # share of the decisions from deals against a past snapshot of the network ...
    snapshot_every: int = 5000  # ... taken afresh every this many updates
    second_opponent: str = "none"  # another bot the learning team plays (e.g. dmc:FILE, a frozen best response)
    second_opponent_share: float = 0.0  # share of the deals played against it
    teacher: str = "none"  # a built-in bot choosing a share of the learning seats' moves
    teacher_start: float = 0.0  # its share at update 0 ...
    teacher_updates: int = 0  # ... falling linearly to 0 here
    collect: int = 4096  # fresh decisions an update
    replay: int = 0  # decisions the replay buffer keeps (0: train on the fresh ones)
    batch_size: int = 4096  # decisions an update trains on
    lr: float = 3e-4  # Adam's learning rate ...
    lr_end: float = 0.0  # ... falling linearly to this at the last update (0: constant)
    updates: int = 20000  # learner updates in all
    push_every: int = 4  # updates between weight pushes
    log_every: int = 50  # updates between train.csv rows
    eval_every: int = 1000  # updates between evaluations
    eval_deals: int = 1000  # duplicate deals an evaluation
    eval_opponent: str = "heuristic"  # the evaluation's opponent: a built-in bot
    average_last: int = 0  # at the end, average the weights of the last this many evaluated models (0, 1: none)
    seed: int = DEFAULT_SEED  # 0..2**64-1 (0 by default, as every command's seed)
    device: str = "auto"  # auto, cpu or cuda
    checkpoint_minutes: float = 10.0  # a checkpoint at least this often, besides the evaluations' (0: only those)
    ray: RaySettings | None = None  # the `ray:` section: the actors on a Ray cluster (used with --ray only)
    max_minutes: float = 0.0  # stop after this many minutes of training (the last update as at `updates`; 0: none)
    init_from: str = "none"  # a model file whose weights the network starts from (its hidden widths)
    heuristic_prior: float = 0.0  # added to the Q of the heuristic's choice wherever the network plays (0: alone)
    distill: DistillSettings | None = None  # the `distill:` section: train on expert labels

    @classmethod
    def from_yaml(cls, path: str | os.PathLike) -> TrainConfig:
        """Reads a config file; ValueError naming the file (and line) for a file that
        cannot be read (see shuangkou.config.read_text: a regular UTF-8 file of at most
        1 MiB), bad YAML, a key given twice, an unknown key or a bad value.

        `base: FILE` (relative to the config's folder) takes every setting from FILE
        that this file does not give; FILE is read the same way."""
        values = _read_yaml(Path(path), ())
        return cls.from_dict(
            {k: v for k, (v, _) in values.items()}, os.fspath(path), {k: at for k, (_, at) in values.items()}
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "config", lines: dict[str, str] | None = None) -> TrainConfig:
        """The config of `data`'s settings (the rest take their defaults); ValueError
        naming `where` (or the setting's place in `lines`) for an unknown setting or a
        bad value."""
        lines = lines or {}
        fields = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(data) - set(fields), key=str)
        if unknown:
            raise ValueError(
                f"{lines.get(unknown[0], where)}: unknown setting(s) {', '.join(u if isinstance(u, str) and u.isidentifier() else shown(u, 40) for u in unknown[:5])}"
                f"{' ...' if len(unknown) > 5 else ''} (known: {', '.join(fields)})"
            )
        values = {name: _coerce(name, value, lines.get(name, where)) for name, value in data.items()}
        config = cls(**values)
        config.check(where, lines)
        return config

    def as_dict(self) -> dict[str, Any]:
        """The settings as a dict of plain values (hidden as a list, the ray section as a
        dict or None), as the checkpoint keeps them."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}

    def check(self, where: str = "config", lines: dict[str, str] | None = None) -> _core.Rules:
        """ValueError naming the setting (and `where`, or its place in `lines`) for a value
        of the wrong type or out of its range, settings that do not go together, or a run
        that would not fit in this machine's memory (`check_memory`: a `replay` of 10**9
        decisions or `eval_deals` of 10**12 is refused when the file is read).

        Returns the rule set of `variant`, resolved here once (a preset, or a variant
        file read by shuangkou.config.load_rules): the learner hands this object to the
        actors and the evaluations, so the run never resolves the text again."""
        lines = lines or {}

        def fail(name: str, message: str) -> ValueError:
            return ValueError(f"{lines.get(name, where)}: {name}: {message}")

        for f in dataclasses.fields(self):
            _coerce(f.name, getattr(self, f.name), lines.get(f.name, where))
        for name, (lo, hi) in _INTS.items():
            value = getattr(self, name)
            if not lo <= value <= hi:
                raise fail(name, f"must be an integer {lo}..{hi:,}, got {shown(value)}")
        if not 1 <= len(self.hidden) <= MAX_HIDDEN_LAYERS or not all(1 <= h <= MAX_WIDTH for h in self.hidden):
            raise fail(
                "hidden",
                f"1..{MAX_HIDDEN_LAYERS} layer widths of 1..{MAX_WIDTH} (the model format's limits), "
                f"got {shown(list(self.hidden))}",
            )
        for name in SHARES + ("epsilon", "teacher_start", "heuristic_prior"):
            if not 0 <= getattr(self, name) <= 1:
                raise fail(name, f"must be in [0, 1], got {getattr(self, name)}")
        if self.self_play_share() < -1e-9:  # (as groups() rounds)
            given = ", ".join(f"{name} ({getattr(self, name)})" for name in SHARES)
            last = [name for name in SHARES if getattr(self, name)][-1]
            raise fail(last, f"{given} together are more than all the deals")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise fail("lr", f"must be a positive number, got {self.lr}")
        if not (0 <= self.lr_end <= self.lr and math.isfinite(self.lr_end)):
            raise fail("lr_end", f"must be in [0, lr], got {self.lr_end}")
        if not 0 <= self.max_minutes <= 1e6:  # (NaN fails too)
            raise fail("max_minutes", f"must be 0..1e6 minutes (0: no limit), got {self.max_minutes}")
        if not 0 <= self.checkpoint_minutes <= 1e6:  # (NaN fails too)
            minutes = self.checkpoint_minutes
            raise fail("checkpoint_minutes", f"must be 0..1e6 minutes (0: at evaluations only), got {minutes}")
        if self.reward not in ("win", "score", "log"):
            raise fail("reward", f"must be win, score or log, got {shown(self.reward)}")
        if self.device not in ("auto", "cpu", "cuda"):
            raise fail("device", f"must be auto, cpu or cuda, got {shown(self.device)}")
        if 0 < self.replay < self.batch_size:
            raise fail("replay", f"{self.replay} must hold at least batch_size ({self.batch_size})")
        self._check_sources(fail)
        for name, none in (("opponent", "self"), ("second_opponent", "none")):
            if (getattr(self, name) == none) != (getattr(self, f"{name}_share") == 0):
                raise fail(name, f"{name} and {name}_share go together ({none} with 0, a bot with a share)")
        if (self.teacher == "none") != (self.teacher_start == 0 or self.teacher_updates == 0):
            raise fail("teacher", "teacher, teacher_start and teacher_updates go together (none with 0)")
        rules = self._check_play(where, lines)
        if self.init_from != "none":
            self._check_init(fail)
        self.check_memory(where=where, lines=lines)
        return rules

    def _check_sources(self, fail: Any) -> None:
        """Where the samples come from: actors (collect > 0) or expert labels (a distill: section)."""
        if self.collect == 0 and self.distill is None:
            raise fail("collect", "0 (no actors) trains on expert labels alone: give a distill: section")
        if self.collect > 0 and self.distill is not None:
            raise fail("distill", "a distill: section trains on the labels alone: give collect: 0")
        if self.replay == 0 and 0 < self.collect < self.batch_size:
            raise fail("collect", f"without a replay buffer collect must be at least batch_size ({self.batch_size})")

    def _check_init(self, fail: Any) -> None:
        """init_from: a model file of this build's input sizes and the config's hidden widths."""
        try:
            qnet = _core.QNet.load(self.init_from)
        except ValueError as e:
            raise fail("init_from", clip(str(e), 400)) from None
        if list(qnet.hidden) != list(self.hidden):
            raise fail(
                "init_from", f"'{self.init_from}' has hidden {list(qnet.hidden)}, the config {list(self.hidden)}"
            )

    def _check_play(self, where: str, lines: dict[str, str]) -> _core.Rules:
        """check()'s part for the bots named, the actor groups and the variant (resolved
        here, and returned)."""

        def fail(name: str, message: str) -> ValueError:
            return ValueError(f"{lines.get(name, where)}: {name}: {message}")

        bots = [(n, none) for n, none in _BOTS if getattr(self, n) != none]
        for name, none in bots:
            _check_bot(getattr(self, name), lines.get(name, where), name, none)
        for opponent, envs, _ in self.groups():
            if envs < MIN_GROUP_ENVS:
                raise fail(
                    "num_envs",
                    f"{self.num_envs} gives {envs} deals to the {opponent or 'self-play'} group "
                    f"(at least {MIN_GROUP_ENVS})",
                )
        if self.ray is not None:
            self.ray_split(self.ray.actors, lines.get("ray", where))
        try:
            rules = _core.Rules(self.variant)
        except ValueError as e:  # (its message names the preset or file)
            raise fail("variant", clip(str(e), 400)) from None
        for name, _ in bots:
            try:  # (the built-in dmc plays only the rule sets it ships a network for)
                _core.Bot(getattr(self, name)).check_variant(rules)
            except ValueError as e:
                raise fail(name, clip(str(e), 400)) from None
        return rules

    def network_metadata(self) -> dict[str, str]:
        """The metadata every network of the run carries, for the actors, the snapshot,
        the evaluations and the model files alike: its `heuristic_prior` where above 0
        (the dmc bot adds it to the Q of the heuristic's choice; docs/dmc_model.md)."""
        return {"heuristic_prior": f"{self.heuristic_prior:g}"} if self.heuristic_prior > 0 else {}

    def self_play_share(self) -> float:
        """The share of the deals left to self-play: what SHARES' opponents do not take
        (below 0 where they take more than all the deals)."""
        return 1 - sum(getattr(self, name) for name in SHARES)

    def groups(self) -> list[tuple[str | None, int, float]]:
        """The actor groups: (opponent bot, SNAPSHOT for the past snapshot of the network,
        or None for self-play; envs; share of the decisions)."""
        against = round(self.num_envs * self.opponent_share) if self.opponent != "self" else 0
        past = round(self.num_envs * self.snapshot_share)
        second = round(self.num_envs * self.second_opponent_share) if self.second_opponent != "none" else 0
        groups = [
            (None, self.num_envs - against - past - second, self.self_play_share()),
            (self.opponent, against, self.opponent_share),
            (SNAPSHOT, past, self.snapshot_share),
            (self.second_opponent, second, self.second_opponent_share),
        ]
        return [g for g in groups if g[2] > 1e-9]  # (1 - 0.7 - 0.3 is not quite 0)

    def ray_split(self, actors: int, where: str = "config") -> list[list[tuple[str | None, int, int]]]:
        """The share of each of `actors` Ray actors: for each actor group (as groups()
        gives them), its deals and the fresh decisions it collects an update; together
        they make num_envs and the groups' collections of one machine. ValueError naming
        `where` when an actor would get fewer than MIN_GROUP_ENVS deals of a group."""
        split: list[list[tuple[str | None, int, int]]] = [[] for _ in range(actors)]
        for opponent, envs, share in self.groups():
            if envs // actors < MIN_GROUP_ENVS:
                raise ValueError(
                    f"{where}: ray: actors: {actors} actors would get {envs // actors} deals each of the "
                    f"{opponent or 'self-play'} group's {envs} (at least {MIN_GROUP_ENVS} each): "
                    "raise num_envs or lower actors"
                )
            decisions = max(1, round(self.collect * share))
            for i, part in enumerate(split):
                part.append((opponent, _part(envs, actors, i), max(1, _part(decisions, actors, i))))
        return split

    def memory_needs(self) -> dict[str, int]:
        """About how many bytes of memory the run needs, by the setting that sizes each
        part: the replay buffer, the actors' envs, one collection (the C++ samples,
        their numpy copy, the tensors), a batch (with its activations), the network
        (weights, gradients, Adam's moments, the actors' and the evaluation's C++
        copies) and the evaluation's per-deal results."""
        obs, move = _core.observation_size(), _core.MOVE_FEATURE_SIZE
        row = (obs + move + 1) * 4
        h = self.hidden
        params = (obs + move + 1) * h[0] + sum((a + 1) * b for a, b in zip(h, h[1:])) + h[-1] + 1
        return {
            "replay": self.replay * row,
            "num_envs": self.num_envs * ENV_BYTES,
            "collect": self.collect * (row + 24) * 3,
            "batch_size": self.batch_size * (2 * row + 3 * 4 * sum(h)),
            "hidden": params * 4 * (6 + len(self.groups())),
            "eval_deals": self.eval_deals * (2 * BYTES_PER_DEAL + 16),
        }

    def check_memory(
        self, device: torch.device | None = None, where: str = "config", lines: dict[str, str] | None = None
    ) -> None:
        """ValueError naming the settings that need the most (and the place of the largest:
        `where`, or its line in `lines`), when the run would not fit in the memory available
        now (and, for a CUDA device, in its free memory). The one memory check: `check`
        (so `from_yaml` and `from_dict`) runs it without a device, `train` again with its
        device."""
        needs = self.memory_needs()
        _fits(needs, available_memory(), "memory", where, lines or {})
        if device is not None and device.type == "cuda":
            import torch

            on_device = {k: needs[k] for k in ("replay", "batch_size", "hidden")} | {"collect": needs["collect"] // 3}
            _fits(on_device, torch.cuda.mem_get_info(device)[0], f"free memory on {device}", where, lines or {})

    def learning_rate(self, update: int) -> float:
        """Adam's learning rate for `update` (1-based)."""
        if self.lr_end == 0:
            return self.lr
        return self.lr + (self.lr_end - self.lr) * (update - 1) / max(1, self.updates - 1)

    def teacher_prob(self, update: int) -> float:
        """The teacher's share of the learning seats' moves at `update`."""
        if self.teacher == "none":
            return 0.0
        return self.teacher_start * max(0.0, 1 - update / self.teacher_updates)


_DEFAULTS = TrainConfig()


def _part(total: int, parts: int, i: int) -> int:
    """Part `i` of `total` cut into `parts` nearly equal whole parts (the first ones larger)."""
    return total // parts + (i < total % parts)


def _coerce(name: str, value: Any, where: str) -> Any:
    """`value` as the type of setting `name` (a list of widths becomes a tuple, an int a
    float where a float is due, the ray section RaySettings); ValueError naming it otherwise."""
    if name == "ray":
        return RaySettings.from_value(value, where)
    if name == "distill":
        return DistillSettings.from_value(value, where)
    default = getattr(_DEFAULTS, name)
    ok = not isinstance(value, bool)
    if isinstance(default, tuple):
        ok = ok and isinstance(value, (list, tuple)) and bool(value)
        ok = ok and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        value = tuple(value) if ok else value
    elif isinstance(default, float):
        ok = ok and isinstance(value, (int, float))
        try:
            value = float(value) if ok else value
        except OverflowError:  # an int past float's range
            ok = False
    else:
        ok = ok and isinstance(value, type(default))
    if not ok:
        kind = "list of widths" if isinstance(default, tuple) else type(default).__name__
        raise ValueError(f"{where}: {name}: {shown(value)} is not a valid {kind}")
    return value


def _check_bot(value: str, where: str, name: str, none: str | None) -> None:
    """ValueError naming setting `name` unless `value` is a built-in bot (C++: a config
    never loads Python code)."""
    if not names_a_bot(value):
        also = f" or {none}" if none else ""
        raise ValueError(f"{where}: {name}: {shown(value)} is not a built-in bot ({bot_forms()}){also}")
    try:
        _core.bot_label(value)
    except ValueError as e:  # a bad budget, a model file that does not read
        raise ValueError(f"{where}: {name}: {clip(str(e), 400)}") from None


def _fits(needs: dict[str, int], have: int | None, what: str, where: str, lines: dict[str, str]) -> None:
    total = sum(needs.values())
    if have is None or total <= 0.8 * have:
        return
    gib = 2**30
    big = sorted(((b, k) for k, b in needs.items() if b >= 0.05 * total), reverse=True)[:3]
    parts = ", ".join(f"{k} ({b / gib:,.1f} GiB)" for b, k in big)
    raise ValueError(
        f"{lines.get(big[0][1], where)}: the run needs about {total / gib:,.1f} GiB of memory, more than the "
        f"{have / gib:,.1f} GiB of {what} available; most of it for {parts}: lower {big[0][1]}"
    )


def _read_yaml(path: Path, seen: tuple[str, ...]) -> dict[str, tuple[Any, str]]:
    """{setting: (value, "file:line")} of a config file and its base files."""
    values = read_mapping(path, "training config", _EXPECTED)
    real = os.path.realpath(path)
    if real in seen:
        raise ValueError(f"{path}: the base settings include themselves")
    if len(seen) >= MAX_BASES:
        raise ValueError(f"{path}: more than {MAX_BASES} base files in a chain")
    data = {k: (v, f"{path}:{line}") for k, (v, line) in values.items() if k != "base"}
    if "base" not in values:
        return data
    base, line = values["base"]
    if not isinstance(base, str) or not base:
        raise ValueError(f"{path}:{line}: base: {shown(base)} is not a file name")
    return {**_read_yaml(path.parent / base, (*seen, real)), **data}
