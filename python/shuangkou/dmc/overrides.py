"""`shuangkou train --set KEY=VALUE`: a training config file with some settings replaced.

    config = config_with_overrides("configs/train/smoke.yaml", ["updates=20", "lr=0.0005"])

KEY is a setting of the config (TrainConfig's fields: `updates`, `lr`, `eval_every`, ...)
or, with a dot, a setting of its `ray:` section (`ray.actors=4`). VALUE is read as the
value of that key in the YAML file would be, by the same reader (shuangkou.config): `20`
is an integer, `0.0005` and `5e-4` numbers, `[128, 64]` a list, `heuristic` text, an
empty value null. The overrides replace the file's settings (and its `base:` files'), in
the order given, before the config is built; the config then checks every setting as it
does the file's, naming the override (``--set lr=abc: lr: 'abc' is not a valid float``).
An unknown key is refused naming it and listing the keys. Nothing is read or written
beyond the config files: every check comes before a run starts, and a resumed run
compares the result with its checkpoint as always (dmc.config.RESUME_MAY_CHANGE).
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Any

from ..util.variant_files import parse_mapping, shown
from .train_config import DISTILL_KEYS, RAY_KEYS, TrainConfig, _read_yaml

# The settings that are sections (a mapping of their own keys), and those keys.
SECTIONS = {"ray": RAY_KEYS, "distill": DISTILL_KEYS}
KEYS = tuple(f.name for f in dataclasses.fields(TrainConfig))


def parse_override(pair: str) -> tuple[str, str, Any]:
    """`KEY=VALUE` as (setting, section key or "", value read as YAML); ValueError
    naming the pair for a pair without `=`, an unknown key or a value that does not read."""
    key, sep, text = pair.partition("=")
    key, text = key.strip(), text.strip()
    where = f"--set {shown(pair, 60)}"
    if not sep or not key:
        raise ValueError(f"--set takes KEY=VALUE (e.g. updates=2000), got {shown(pair, 60)}")
    name, dot, sub = key.partition(".")
    if name not in KEYS:
        raise ValueError(f"{where}: unknown setting {shown(name, 40)} (known: {', '.join(KEYS)})")
    if dot and name not in SECTIONS:
        raise ValueError(
            f"{where}: {name} is not a section; a dotted key names a setting of one ({', '.join(SECTIONS)}), "
            f"e.g. ray.actors=4"
        )
    if dot and sub not in SECTIONS[name]:
        raise ValueError(f"{where}: unknown setting {shown(sub, 40)} of {name}: (known: {', '.join(SECTIONS[name])})")
    if "\n" in text or "\r" in text:
        raise ValueError(f"{where}: the value is more than one line")
    try:  # (KEY is a known setting's name here: the line reads as that one setting)
        values = parse_mapping(f"{key}: {text}\n", where, "one value")
    except ValueError as e:  # the reader names "--set ...:LINE: KEY: ...": no line here
        raise ValueError(re.sub(rf"^{re.escape(where)}:\d+: ", f"{where}: ", str(e), count=1)) from None
    if list(values) != [key]:
        raise ValueError(f"{where}: {shown(text, 60)} is not one value")
    return name, sub, values[key][0]


def apply_overrides(
    values: dict[str, Any], lines: dict[str, str], pairs: list[str]
) -> tuple[dict[str, Any], dict[str, str]]:
    """`values` (settings) and `lines` (where each was given) with the overrides of
    `pairs` applied in order; every pair is read (parse_override) before any is applied."""
    parsed = [(parse_override(pair), pair) for pair in pairs]
    values, lines = dict(values), dict(lines)
    for (name, sub, value), pair in parsed:
        where = f"--set {shown(pair, 60)}"
        if sub:
            section = values.get(name)
            if section is None:
                section = {}
            if not isinstance(section, dict):
                raise ValueError(f"{where}: the config's {name}: is {shown(section, 40)}, not a section")
            value = {**section, sub: value}
        values[name] = value
        lines[name] = where
    return values, lines


def config_with_overrides(path: str | os.PathLike, pairs: list[str]) -> TrainConfig:
    """The config of the file at `path` (as TrainConfig.from_yaml reads it) with the
    `--set` overrides of `pairs`; ValueError naming the file's line or the override."""
    read = _read_yaml(Path(path), ())
    values = {k: v for k, (v, _) in read.items()}
    lines = {k: at for k, (_, at) in read.items()}
    values, lines = apply_overrides(values, lines, pairs)
    return TrainConfig.from_dict(values, os.fspath(path), lines)
