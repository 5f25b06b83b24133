"""The expert labeller's runs and shards (docs/labels.md): `label` plays a config's
deals shard by shard and writes each shard's labels beside a manifest; `read_labels`
reads them back, checked.

    from shuangkou.expert.label_config import LabelConfig
    from shuangkou.expert.labels import label, read_labels
    label(LabelConfig.from_yaml("configs/expert/label_baibian.yaml"), "runs/labels_baibian")
    labels = read_labels("runs/labels_baibian")      # every shard of the manifest, checked
    labels.adv[labels.offset[i]:labels.offset[i + 1]]  # decision i's candidates' relative values

A shard is a zip of .npy arrays (numpy's .npz layout, no pickles), written with fixed
timestamps, so shard k of a config is the same bytes whatever the machine's thread
count; the manifest keeps each shard's sha256, and a resumed run labels only the shards
the manifest lacks.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .. import _core
from ..util.outputs import output_file, prepare_out
from ..util.version import VERSION
from .label_config import LabelConfig

FORMAT = "shuangkou-labels/1"
MANIFEST = "manifest.json"
MAX_SHARD_BYTES = 1 << 32  # the most bytes of arrays one shard may unpack to
# The arrays of a shard: name -> (dtype, rows: "decision", "candidate" or "offset", columns or None).
ARRAYS: dict[str, tuple[str, str, int | None]] = {
    "obs": ("float32", "decision", _core.observation_size()),
    "state": ("float32", "decision", _core.state_size()),
    "deal": ("int64", "decision", None),
    "ply": ("int16", "decision", None),
    "seat": ("int8", "decision", None),
    "agent": ("int8", "decision", None),
    "legal": ("int16", "decision", None),
    "worlds": ("int32", "decision", None),
    "chosen": ("int16", "decision", None),
    "probe_best": ("int16", "decision", None),
    "offset": ("int64", "offset", None),
    "action": ("int32", "candidate", None),
    "move": ("float32", "candidate", _core.MOVE_FEATURE_SIZE),
    "why": ("uint8", "candidate", None),
    "win": ("float32", "candidate", None),
    "win_se": ("float32", "candidate", None),
    "adv": ("float32", "candidate", None),
    "adv_se": ("float32", "candidate", None),
    "score": ("float32", "candidate", None),
    "score_se": ("float32", "candidate", None),
}


def shard_name(index: int) -> str:
    return f"shard_{index:05d}.npz"


def shard_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """The shard file of `arrays` (ARRAYS' names): the same arrays give the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        for name in ARRAYS:
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, member.getvalue())
    return buffer.getvalue()


def label_shard(config: LabelConfig, rules: Any, index: int, progress: Callable[[int], bool] | None = None) -> dict:
    """Labels shard `index` of the config: deals index*deals_per_shard onward."""
    names = [name for name, _ in config.agents]
    weights = [weight for _, weight in config.agents]
    optional = {"guide": config.guide, "probe": config.probe, "leaf": config.leaf}
    return _core.label_deals(
        rules,
        config.deals_per_shard,
        names,
        weights,
        seed=config.seed,
        first=index * config.deals_per_shard,
        threads=config.threads,
        label_prob=config.label_prob,
        worlds=config.worlds,
        all_legal_up_to=config.all_legal_up_to,
        max_candidates=config.max_candidates,
        random_candidates=config.random_candidates,
        guide_top=config.guide_top,
        with_state=config.with_state,
        world_salt=config.world_salt,
        leaf_plies=config.leaf_plies,
        progress=progress,
        **{k: (None if v == "none" else v) for k, v in optional.items()},
    )


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest at `path`; ValueError naming it for one that is not this format's."""
    try:
        with open(path, "rb") as f:
            raw = f.read(1 << 24)
        manifest = json.loads(raw)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"labels: cannot read the manifest '{path}': {e}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ValueError(f"labels: '{path}' is not a manifest of {FORMAT} labels (docs/labels.md)")
    shards = manifest.get("shards")
    if not isinstance(shards, list) or not isinstance(manifest.get("config"), dict):
        raise ValueError(f"labels: the manifest '{path}' has no shard list or config")
    for s in shards:
        if not isinstance(s, dict) or not isinstance(s.get("index"), int) or not isinstance(s.get("sha256"), str):
            raise ValueError(f"labels: the manifest '{path}' has a shard entry without index or sha256")
    return manifest


def _start(config: LabelConfig, out: Path, resume: bool, force: bool) -> dict[str, Any]:
    """The run's manifest: a fresh one, or with --resume the folder's (its config must be
    this one). An --out holding an earlier run is refused without resume or force."""
    manifest_path = out / MANIFEST
    if resume and manifest_path.is_file():
        manifest = read_manifest(manifest_path)
        # A setting the manifest lacks was added since: the run was made with its default.
        made = {**LabelConfig().as_dict(), **manifest["config"]}
        if made != config.as_dict():
            changed = sorted(k for k, v in config.as_dict().items() if made.get(k) != v)
            raise ValueError(
                f"--resume: the labels in '{out}' were made with other settings ({', '.join(changed)}); "
                "give the config they were made with, or another --out (nothing was written)"
            )
        prepare_out(out, [MANIFEST], marks=())
        return manifest
    if resume:
        raise ValueError(f"--resume: '{out}' holds no {MANIFEST} to go on from (nothing was written)")
    earlier = [p.name for p in sorted(out.glob("shard_*.npz"))][:3] if out.is_dir() else []
    if earlier and not force:
        raise ValueError(
            f"--out '{out}' already holds labels ({', '.join(earlier)}): give --resume to go on, --force to "
            "start over, or choose another folder (nothing was written)"
        )
    prepare_out(out, [MANIFEST], force=force, hint="give --resume to go on or --force to start over")
    for path in out.glob("shard_*.npz") if force else ():
        path.unlink()
    return {"format": FORMAT, "version": VERSION, "build": _core.ARCH, "config": config.as_dict(), "shards": []}


def label(
    config: LabelConfig,
    out: str | os.PathLike,
    *,
    resume: bool = False,
    force: bool = False,
    max_shards: int | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Labels the config's shards into `out` (docs/labels.md), at most `max_shards` new
    ones (None: all): the manifest, rewritten after each shard. Ctrl-C loses only the
    shard under way; --resume (resume=True) goes on with the shards the manifest lacks."""
    from tqdm import tqdm

    rules = config.check()
    out = Path(out)
    manifest = _start(config, out, resume, force)
    done = {s["index"] for s in manifest["shards"]}
    todo = [k for k in range(config.shards) if k not in done][:max_shards]
    with tqdm(total=len(todo) * config.deals_per_shard, unit="deal", disable=not progress, desc="label") as bar:
        for k in todo:
            seen = [0]

            def advance(n: int, seen: list[int] = seen) -> bool:
                bar.update(n - seen[0])
                seen[0] = n
                return True

            start = time.monotonic()
            arrays = label_shard(config, rules, k, advance)
            manifest["shards"].append(_write_shard(out, k, arrays, time.monotonic() - start))
            manifest["shards"].sort(key=lambda s: s["index"])
            with output_file(out / MANIFEST) as f:
                json.dump(manifest, f, indent=1)
    return manifest


def _write_shard(out: Path, index: int, arrays: dict[str, np.ndarray], seconds: float) -> dict[str, Any]:
    data = shard_bytes(arrays)
    with output_file(out / shard_name(index), "wb") as f:
        f.write(data)
    decisions = int(arrays["deal"].shape[0])
    return {
        "index": index,
        "file": shard_name(index),
        "sha256": hashlib.sha256(data).hexdigest(),
        "decisions": decisions,
        "candidates": int(arrays["action"].shape[0]),
        "seconds": round(seconds, 3),
        "labels_per_second": round(decisions / max(seconds, 1e-9), 1),
    }


@dataclasses.dataclass
class Labels:
    """Labelled decisions (ARRAYS' names as attributes), concatenated over shards:
    decision i's candidates are rows offset[i]..offset[i+1]-1."""

    arrays: dict[str, np.ndarray]

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.__dict__["arrays"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __len__(self) -> int:
        return int(self.arrays["deal"].shape[0])


def _member(z: zipfile.ZipFile, name: str, where: str) -> np.ndarray:
    """One array of a shard, its header checked before its data is read."""
    dtype, _, _ = ARRAYS[name]
    with z.open(f"{name}.npy") as f:
        version = np.lib.format.read_magic(f)
        if version not in ((1, 0), (2, 0), (3, 0)):
            raise ValueError(f"{where}: {name}.npy has an unknown .npy version")
        reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, found = reader(f)
        if found != np.dtype(dtype) or fortran or len(shape) not in (1, 2):
            raise ValueError(f"{where}: {name}.npy holds {found} {shape}, expected {dtype} rows")
        size = int(np.prod(shape, dtype=np.int64)) * found.itemsize
        if size > MAX_SHARD_BYTES:
            raise ValueError(f"{where}: {name}.npy would unpack to {size:,} bytes (at most {MAX_SHARD_BYTES:,})")
        data = f.read(size + 1)
    if len(data) != size:
        raise ValueError(f"{where}: {name}.npy holds {len(data):,} bytes of data, its header says {size:,}")
    return np.frombuffer(data, dtype=found).reshape(shape)


def read_shard(path: str | os.PathLike, sha256: str | None = None) -> dict[str, np.ndarray]:
    """The arrays of one shard file, checked (names, dtypes, shapes, offsets, finite
    values, and the sha256 where given); ValueError naming the file and the problem."""
    where = f"labels: shard '{os.fspath(path)}'"
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SHARD_BYTES + 1)
    except OSError as e:
        raise ValueError(f"{where}: cannot read it: {e.strerror or e}") from None
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise ValueError(f"{where}: its sha256 is not the manifest's (the file changed or is damaged)")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = sorted(z.namelist())
            if names != sorted(f"{n}.npy" for n in ARRAYS):
                raise ValueError(f"{where}: holds {names[:5]}..., not the arrays of {FORMAT}")
            arrays = {name: _member(z, name, where) for name in ARRAYS}
    except (zipfile.BadZipFile, EOFError, OSError) as e:
        raise ValueError(f"{where}: not a readable shard: {e}") from None
    _check_shapes(arrays, where)
    return arrays


def _check_shapes(arrays: dict[str, np.ndarray], where: str) -> None:
    n, m = arrays["deal"].shape[0], arrays["action"].shape[0]
    rows = {"decision": n, "candidate": m, "offset": n + 1}
    for name, (_, kind, columns) in ARRAYS.items():
        a = arrays[name]
        want = (rows[kind],) if columns is None else (rows[kind], columns)
        if name == "state" and a.shape[0] == 0 and columns is not None:
            want = (0, columns)  # (written without the state)
        if a.shape != want:
            raise ValueError(f"{where}: {name} has shape {a.shape}, expected {want}")
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            raise ValueError(f"{where}: {name} holds a value that is not finite")
    offset = arrays["offset"]
    if offset[0] != 0 or offset[-1] != m or (np.diff(offset) < 1).any():
        raise ValueError(
            f"{where}: offset must rise from 0 to the candidates' count, each decision holding one or more"
        )
    chosen = arrays["chosen"].astype(np.int64)
    if ((chosen < -1) | (chosen >= np.diff(offset))).any():
        raise ValueError(f"{where}: chosen names a candidate the decision does not have")


def read_labels(folder: str | os.PathLike, indexes: list[int] | None = None) -> Labels:
    """The labels of a labelling run's folder (its manifest's shards, or those of
    `indexes`), every shard checked against its sha256; ValueError naming the problem."""
    folder = Path(folder)
    manifest = read_manifest(folder / MANIFEST)
    entries = {s["index"]: s for s in manifest["shards"]}
    chosen = sorted(entries) if indexes is None else indexes
    missing = [k for k in chosen if k not in entries]
    if missing or not chosen:
        raise ValueError(f"labels: '{folder}' has no shard {missing[:3] if missing else '(none labelled yet)'}")
    parts = [read_shard(folder / shard_name(k), entries[k]["sha256"]) for k in chosen]
    return Labels(concatenate(parts))


def concatenate(parts: list[dict[str, np.ndarray]], names: tuple[str, ...] = tuple(ARRAYS)) -> dict[str, np.ndarray]:
    """Shards' arrays (those of `names`) as one set, the offsets rebased."""
    out = {}
    for name in names:
        if name == "offset":
            bases = np.cumsum([0] + [p["offset"][-1] for p in parts[:-1]])
            out[name] = np.concatenate([parts[0]["offset"][:1]] + [p["offset"][1:] + b for p, b in zip(parts, bases)])
        else:
            out[name] = np.concatenate([p[name] for p in parts])
    return out
