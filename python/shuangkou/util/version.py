"""The package's version: pyproject.toml's, as the installed metadata gives it."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("shuangkou")
except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
    VERSION = "0+unknown"
