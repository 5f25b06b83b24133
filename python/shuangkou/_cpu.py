"""Chooses the build of ``shuangkou._core`` this CPU runs best.

The package may ship two builds of the C++ module: the baseline (x86-64-v2, every
x86-64 CPU since about 2009) in ``shuangkou/`` and one for x86-64-v3 (AVX2, FMA,
BMI2: CPUs since about 2015) in ``shuangkou/_v3/``. Before ``_core`` is first
imported, :func:`choose` puts ``_v3`` at the front of the package's search path
where the CPU has every x86-64-v3 instruction, so ``import shuangkou._core``
loads that build under its one name. ``SHUANGKOU_CPU=baseline`` (or ``v3``)
overrides the choice; ``shuangkou._core.ARCH`` says which build is loaded.
The rules engine computes in integers, so both builds play identically; the
neural network's floats may differ in the last bits (fused multiply-adds).
"""

from __future__ import annotations

import os

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
