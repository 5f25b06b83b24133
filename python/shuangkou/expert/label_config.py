"""The expert labeller's config: every setting, read from configs/expert/label_*.yaml and
checked whole before a run starts (docs/labels.md).

    from shuangkou.expert.label_config import LabelConfig
    config = LabelConfig.from_yaml("configs/expert/label_baibian.yaml")  # ValueError naming file, line, setting
"""

from __future__ import annotations

import dataclasses
import math
import os
from typing import Any

from .. import _core
from ..errors import clip
from ..util.variant_files import read_mapping, shown

MAX_SHARDS = 1 << 20
MAX_CANDIDATES = 256  # the C++ labeller's kMaxRolloutCandidates (bots/rollouts.h)
MAX_DEALS_PER_SHARD = 1 << 20
_EXPECTED = "expected a mapping of labelling settings, one 'name: value' per line (configs/expert/label_*.yaml)"
_INTS = {  # name -> (least, most)
    "worlds": (1, 1 << 16),
    "all_legal_up_to": (0, MAX_CANDIDATES),
    "max_candidates": (2, MAX_CANDIDATES),
    "random_candidates": (0, MAX_CANDIDATES),
    "guide_top": (1, MAX_CANDIDATES),
    "leaf_plies": (0, _core.MAX_LEAF_PLIES),
    "deals_per_shard": (1, MAX_DEALS_PER_SHARD),
    "shards": (1, MAX_SHARDS),
    "threads": (0, _core.MAX_THREADS),
    "seed": (0, 2**64 - 1),
    "world_salt": (0, 2**64 - 1),
}


@dataclasses.dataclass(frozen=True)
class LabelConfig:
    """Every labelling setting (the labeller's options, label.h, and the shards)."""

    variant: str = "baibian"  # a preset or a variant YAML file
    agents: tuple[tuple[str, float], ...] = (("heuristic", 1.0),)  # (bot, weight): each team draws one a deal
    guide: str = "none"  # a bot that rates its moves (dmc, dmc:PATH): its best plays are candidates
    guide_top: int = 4
    probe: str = "none"  # a bot that rates its moves: where its best play lies is recorded (coverage)
    leaf: str = "none"  # a bot that rates its moves ends each rollout on its value (none: the heuristic plays on)
    leaf_plies: int = 4  # with a leaf: the actions it plays after the candidate before it values the position
    label_prob: float = 0.25  # chance a decision with two or more legal actions is labelled
    worlds: int = 32  # worlds each labelled decision's candidates share
    all_legal_up_to: int = 12  # every legal action is a candidate where there are at most this many
    max_candidates: int = 16  # otherwise at most this many
    random_candidates: int = 2  # random legal plays among them
    with_state: bool = True  # also write the full-information state (privileged; training time only)
    deals_per_shard: int = 512  # deals a shard: shard k labels deals k*deals_per_shard ...
    shards: int = 64  # shards in all
    threads: int = 0  # 0: every core
    seed: int = 0x1ABE_2026_0001  # the labelling deals' seed (disjoint from eval-v1's)
    world_salt: int = 0  # another salt: the same decisions and candidates scored on fresh worlds

    @classmethod
    def from_yaml(cls, path: str | os.PathLike) -> LabelConfig:
        """Reads a config file; ValueError naming the file, line and setting for an unknown
        setting or a bad value."""
        values = read_mapping(path, "labelling config", _EXPECTED)
        where = os.fspath(path)
        return cls.from_dict(
            {k: v for k, (v, _) in values.items()}, where, {k: f"{where}:{at}" for k, (_, at) in values.items()}
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "config", lines: dict[str, str] | None = None) -> LabelConfig:
        """The config of `data` (the rest take their defaults); ValueError naming the setting."""
        lines = lines or {}
        fields = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(str(k) for k in set(data) - set(fields))
        if unknown:
            raise ValueError(
                f"{lines.get(unknown[0], where)}: unknown setting {clip(unknown[0], 40)!r} (known: {', '.join(fields)})"
            )
        values = {name: _coerce(name, value, lines.get(name, where)) for name, value in data.items()}
        config = cls(**values)
        config.check(where)
        return config

    def as_dict(self) -> dict[str, Any]:
        """The settings as plain values (the manifest's copy)."""
        d = dataclasses.asdict(self)
        d["agents"] = {name: weight for name, weight in self.agents}
        return d

    def check(self, where: str = "config") -> _core.Rules:
        """The rules of the config; ValueError naming `where` and the setting for a
        combination the labeller refuses or a bot that cannot play the rule set."""
        for name in ("all_legal_up_to", "random_candidates", "guide_top"):
            if getattr(self, name) > self.max_candidates:
                raise ValueError(
                    f"{where}: {name} ({getattr(self, name)}) must be <= max_candidates ({self.max_candidates})"
                )
        try:
            rules = _core.Rules(self.variant)
        except ValueError as e:
            raise ValueError(f"{where}: variant: {clip(str(e), 400)}") from None
        for name, _ in self.agents:
            _bot(name, rules, f"{where}: agents: {shown(name)}")
        for setting in ("guide", "probe", "leaf"):
            name = getattr(self, setting)
            if name != "none":
                bot = _bot(name, rules, f"{where}: {setting}")
                if setting == "leaf" and bot.slow:
                    raise ValueError(f"{where}: leaf must be a network (dmc or dmc:PATH), not a search: {shown(name)}")
                _bot(f"{name}+search:0", rules, f"{where}: {setting} must rate its moves (dmc or dmc:PATH)")
        return rules


def _bot(name: str, rules: _core.Rules, where: str) -> _core.Bot:
    """The bot `name`, checked against the rules; ValueError naming `where` otherwise."""
    try:
        bot = _core.Bot(name)
        bot.check_variant(rules)
    except ValueError as e:
        raise ValueError(f"{where}: {clip(str(e), 400)}") from None
    return bot


def _coerce(name: str, value: Any, where: str) -> Any:
    """A setting's value as the config keeps it; ValueError naming `where` otherwise."""
    if name == "agents":
        return _agents(value, where)
    if name in _INTS:
        lo, hi = _INTS[name]
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ValueError(f"{where}: {name}: must be an integer {lo}..{hi:,}, got {shown(value)}")
        return value
    if name == "label_prob":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
            raise ValueError(f"{where}: label_prob: must be a number in (0, 1], got {shown(value)}")
        return float(value)
    if name == "with_state":
        if not isinstance(value, bool):
            raise ValueError(f"{where}: with_state: must be true or false, got {shown(value)}")
        return value
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}: {name}: must be a name, got {shown(value)}")
    return value


def _agents(value: Any, where: str) -> tuple[tuple[str, float], ...]:
    """`agents`: a mapping bot -> weight (> 0), or a list of bots (weight 1 each)."""
    if isinstance(value, list):
        value = {name: 1.0 for name in value}
    if not isinstance(value, dict) or not value or len(value) > 100:
        raise ValueError(
            f"{where}: agents: must be a mapping of 1..100 bots to weights, e.g. {{dmc: 2, heuristic: 1}}, got {shown(value)}"
        )
    out = []
    for name, weight in value.items():
        if not isinstance(name, str) or isinstance(weight, bool) or not isinstance(weight, (int, float)):
            raise ValueError(f"{where}: agents: {shown(name)}: {shown(weight)} is not a bot and a weight")
        if not (weight > 0 and math.isfinite(weight)):
            raise ValueError(f"{where}: agents: {name}: the weight must be a finite number > 0, got {shown(weight)}")
        out.append((name, float(weight)))
    return tuple(out)
