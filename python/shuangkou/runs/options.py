"""How a run plays its deals, checked once: `RunOptions` (threads, seed, batch, Ray and
chunk), the one set of checks `selfplay`, the arena and the Ray runs share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import _core
from ..util.checks import DEFAULT_SEED, int_arg
from .ray_cluster import check_ray_arg


@dataclass(frozen=True)
class RunOptions:
    """threads: 0 for every core (a Ray task takes `threads` CPUs, 1 for 0); seed: deal i
    of a run is dealt from (seed, i); batch: deals side by side for Python agents; ray:
    False, True, "auto" or "HOST:PORT" (docs/ray.md); chunk: deals a Ray task (None: about
    four tasks a worker)."""

    threads: int = 0
    seed: int = DEFAULT_SEED
    batch: int = 1024
    ray: bool | str = False
    chunk: int | None = None

    @classmethod
    def checked(
        cls, threads: Any = 0, seed: Any = DEFAULT_SEED, batch: Any = 1024, ray: Any = False, chunk: Any = None
    ) -> RunOptions:
        """The options from a caller's values; ValueError naming the first bad one."""
        threads = int_arg(0 if threads is None else threads, "threads", 0, _core.MAX_THREADS, " (0: every core)")
        seed = int_arg(seed, "seed", 0, 2**64 - 1)
        batch = int_arg(batch, "batch", 1)
        ray = check_ray_arg(ray)
        if chunk is not None:
            chunk = int_arg(chunk, "chunk", 1, 2**62)
            if not ray:
                raise ValueError("chunk: deals per Ray task, for ray=...; without Ray the deals are not cut")
        return cls(threads, seed, batch, ray, chunk)

    def threads_used(self, cpu_count: int | None) -> int | None:
        """The threads a run reports: a Ray task's CPUs, or this machine's cores for 0."""
        return (self.threads or 1) if self.ray else self.threads or cpu_count


def check_progress(progress: Any, signature: str) -> None:
    """ValueError unless `progress` is None or a callable (`signature` names its form)."""
    if progress is not None and not callable(progress):
        raise ValueError(f"progress: a callable {signature} or None, got {type(progress).__name__}")
