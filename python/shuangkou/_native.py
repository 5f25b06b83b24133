"""The composition root: assembles the package before anything else of it runs.

The facade (``shuangkou/__init__.py``) imports this module first, and nothing else
imports it. In this order it

1. chooses the build of ``shuangkou._core`` this CPU runs best (below);
2. hands the core what it is handed rather than imports: the networks the built-in
   ``dmc`` plays (``shuangkou/models/dmc_PRESET.safetensors``) and the reader of variant
   config files (``util/variant_files.load_rules``, loaded on the first path: it needs
   PyYAML), so the bindings import nothing of the package by name;
3. gives ``Rules`` its ``observation_slices``, ``state_slices`` and ``move_feature_slices``
   (``envs/observation_fields.py``);
4. registers the Gymnasium env ``shuangkou/Shuangkou-v0``, at once where Gymnasium is
   imported, else the moment it is (envs/registration.py: ``import shuangkou`` does not
   import Gymnasium);
5. keeps the module paths of earlier versions importable (``shuangkou.config``,
   ``shuangkou.openspiel``, ``python -m shuangkou.train``, ...; util/legacy_paths.py),
   each with a DeprecationWarning naming the new one.

The build: the package may ship two builds of the C++ module, the baseline (x86-64-v2,
every x86-64 CPU since about 2009) in ``shuangkou/`` and one for x86-64-v3 (AVX2, FMA,
BMI2: CPUs since about 2015) in ``shuangkou/_v3/``. Before ``_core`` is first imported,
:func:`choose` puts ``_v3`` at the front of the package's search path where the CPU has
every x86-64-v3 instruction, so ``import shuangkou._core`` loads that build under its one
name. ``SHUANGKOU_CPU=baseline`` (or ``v3``) overrides the choice;
``shuangkou._core.ARCH`` says which build is loaded. The rules engine computes in
integers, so both builds play identically; the neural network's floats may differ in the
last bits (fused multiply-adds).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

# x86-64-v3 as /proc/cpuinfo spells its features (lzcnt is part of "abm").
V3_FLAGS = frozenset({"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"})


def cpu_flags(path: str = "/proc/cpuinfo") -> frozenset[str]:
    """The first processor's feature flags (empty where the file is missing)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.partition(":")[2].split())
    except OSError:
        pass
    return frozenset()


def has_v3(flags: frozenset[str] | None = None) -> bool:
    """True where the CPU has every x86-64-v3 instruction."""
    return V3_FLAGS <= (cpu_flags() if flags is None else flags)


def choose(package_path: list[str]) -> str:
    """Puts the v3 build first on `package_path` where it fits; returns "v3" or "baseline"."""
    wanted = os.environ.get("SHUANGKOU_CPU", "auto")
    if wanted not in ("auto", "baseline", "v3"):
        raise ImportError(f"SHUANGKOU_CPU must be auto, baseline or v3, got {wanted!r}")
    v3_dir = os.path.join(package_path[0], "_v3")
    built = os.path.isdir(v3_dir) and any(n.startswith("_core") for n in os.listdir(v3_dir))
    if wanted == "v3" and not (built and has_v3()):
        raise ImportError("SHUANGKOU_CPU=v3: " + ("this CPU lacks x86-64-v3" if built else "no v3 build installed"))
    if wanted != "baseline" and built and has_v3():
        package_path.insert(0, v3_dir)
        return "v3"
    return "baseline"


choose(sys.modules[__package__].__path__)
from . import _core  # noqa: E402 - (after the choice of build)
from .envs.observation_fields import move_feature_slices, observation_slices, state_slices  # noqa: E402
from .envs.registration import register as register_gymnasium  # noqa: E402
from .util.legacy_paths import install as _install_legacy_paths  # noqa: E402

MODELS = os.path.join(os.path.dirname(__file__), "models")


def register_models() -> None:
    """The built-in agent "dmc": the networks shipped in shuangkou/models, one per preset,
    each played in its own rule set (docs/dmc_model.md)."""
    files = {name: os.path.join(MODELS, f"dmc_{name}.safetensors") for name in _core.preset_names()}
    _core.set_builtin_models({name: path for name, path in files.items() if os.path.exists(path)})


def register_rules_loader() -> None:
    """Hands the core the reader of variant config files: a constructor given a path
    (Rules, Game, VectorEnv, selfplay, ...) calls it. The reader (with PyYAML) is
    imported on the first path, not at import (the composition root's one deferred
    import: it loads a component of a lower layer, never one above)."""

    def load_rules(path: str) -> _core.Rules:
        from .util.variant_files import load_rules as load

        return load(path)

    _core.set_rules_loader(load_rules)


def install_rules_properties() -> None:
    """`Rules.observation_slices`, `Rules.state_slices` and `Rules.move_feature_slices`:
    the mappings of envs/observation_fields.py, reached from a rule set (every variant
    shares one layout)."""
    for name, value in (
        ("observation_slices", observation_slices),
        ("state_slices", state_slices),
        ("move_feature_slices", move_feature_slices),
    ):

        def get(self: _core.Rules, _value: Mapping[str, slice] = value) -> Mapping[str, slice]:
            return _value

        get.__doc__ = f"name -> slice of the {name.replace('_slices', '').replace('_', ' ')} (shuangkou.obs_view)."
        setattr(_core.Rules, name, property(get))


register_models()
register_rules_loader()
install_rules_properties()
register_gymnasium()  # (now, or when Gymnasium is first imported: envs/registration.py)
_install_legacy_paths()
