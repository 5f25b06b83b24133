"""The module paths of earlier versions, kept importable after the package moved into
layers (docs/architecture.md; CHANGELOG.md lists every move).

``import shuangkou.config`` (or ``from shuangkou.openspiel import load_game``) gives the
module at its new path, the same object, after a DeprecationWarning naming that path;
``python -m shuangkou.train`` runs the `shuangkou train` command. No file stands at the
old paths: one finder on ``sys.meta_path`` answers for them, so the package's top level
keeps only its four modules. ``shuangkou.selfplay`` and ``shuangkou.arena`` are not
kept: those names are the functions ``sk.selfplay`` and ``sk.arena``.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings
from types import CodeType, ModuleType
from typing import Any

# old path -> new path
MOVED = {
    "shuangkou.config": "shuangkou.util.variant_files",
    "shuangkou.memory": "shuangkou.util.resources",
    "shuangkou.outputs": "shuangkou.util.outputs",
    "shuangkou.stats": "shuangkou.util.stats",
    "shuangkou.replays": "shuangkou.util.records",
    "shuangkou.layout": "shuangkou.envs.observation_fields",
    "shuangkou.vector": "shuangkou.envs.vector",
    "shuangkou.arena_report": "shuangkou.runs.arena_report",
    "shuangkou.ray_runs": "shuangkou.runs.ray_tasks",
    "shuangkou.ray_cluster": "shuangkou.runs.ray_cluster",
    "shuangkou.openspiel": "shuangkou.integrations.openspiel",
    "shuangkou.rllib": "shuangkou.integrations.rllib",
    "shuangkou.policies": "shuangkou.integrations.sb3",
    "shuangkou.train": "shuangkou.cli.train",
    "shuangkou.dmc.config": "shuangkou.dmc.train_config",
    "shuangkou.dmc.replay": "shuangkou.dmc.buffer",
    "shuangkou.play.replay": "shuangkou.play.viewer",
    "shuangkou.play.run": "shuangkou.cli.play",
}


class LegacyPaths:
    """Finds an old path and loads it as the module at its new path (the same object:
    its classes, functions and state are the new module's). A meta path finder and
    its loader, by the protocol (importlib.abc's classes are not imported for it: they
    cost `import shuangkou` time)."""

    def __init__(self) -> None:
        self._specs: dict[str, importlib.machinery.ModuleSpec] = {}

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if name not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(name, self, origin=f"moved to {MOVED[name]}")

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} moved to {MOVED[spec.name]}; import it from there (the old path will go)",
            DeprecationWarning,
            stacklevel=3,
        )
        module = importlib.import_module(MOVED[spec.name])
        self._specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system has just set the old path's spec on the module: put its own back.
        module.__spec__ = self._specs[module.__name__]

    def get_source(self, fullname: str) -> str:
        """For ``python -m OLD``: the new module's ``main()`` (the command it runs)."""
        return (
            "import importlib, sys, warnings\n"
            f"warnings.warn('python -m {fullname} moved to python -m {MOVED[fullname]} "
            "(or the shuangkou command)', DeprecationWarning)\n"
            f"sys.exit(importlib.import_module({MOVED[fullname]!r}).main())\n"
        )

    def get_code(self, fullname: str) -> CodeType:
        return compile(self.get_source(fullname), f"<{fullname}, moved to {MOVED[fullname]}>", "exec")

    def is_package(self, fullname: str) -> bool:
        return False


def install() -> None:
    """Puts the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, LegacyPaths) for f in sys.meta_path):
        sys.meta_path.append(LegacyPaths())
