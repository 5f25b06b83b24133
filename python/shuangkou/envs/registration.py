"""The Gymnasium env's registration (``gymnasium.make("shuangkou/Shuangkou-v0")``) without
importing Gymnasium at ``import shuangkou``: Gymnasium takes about a fifth of the
package's import time, and most users of the package never import it.

`register` registers at once where Gymnasium is already imported; otherwise it puts a
finder on ``sys.meta_path`` that lets Gymnasium load as always and registers the env
the moment it has loaded (then takes itself off). Either way, ``import gymnasium,
shuangkou`` and ``import shuangkou, gymnasium`` both find the env.
"""

from __future__ import annotations

import importlib.machinery
import sys
from types import ModuleType
from typing import Any

ENV_ID = "shuangkou/Shuangkou-v0"
ENTRY_POINT = "shuangkou.envs.gym_env:ShuangkouEnv"


def _register_with(gymnasium: ModuleType) -> None:
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point=ENTRY_POINT)


class _Loader:
    """Gymnasium's own loader, which registers the env once the module has run."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def __getattr__(self, name: str) -> Any:  # (resource readers, get_code, ...: Gymnasium's loader's)
        return getattr(self._loader, name)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        _register_with(module)


class _WhenImported:
    """A meta path finder that answers only for ``gymnasium``, once."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if name != "gymnasium":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


def register() -> None:
    """Registers the env now (Gymnasium imported) or when Gymnasium is first imported."""
    if "gymnasium" in sys.modules:  # (None there: its import is blocked, nothing to register with)
        if sys.modules["gymnasium"] is not None:
            _register_with(sys.modules["gymnasium"])
    elif not any(isinstance(f, _WhenImported) for f in sys.meta_path):
        sys.meta_path.insert(0, _WhenImported())
