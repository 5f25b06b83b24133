"""Memory a run will need, checked before it starts (self-play, the arena, training).

from shuangkou.util.resources import check_memory
check_memory(games)   # ValueError when the per-deal results would not fit
"""

from __future__ import annotations

from .. import _core

__all__ = ["BYTES_PER_DEAL", "available_memory", "check_memory"]

# Bytes per deal a run holds: the C++ result plus its numpy copy.
BYTES_PER_DEAL = _core.DEAL_RESULT_BYTES + 52


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (Linux: MemAvailable), or None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check_memory(games: int, what: str | None = None) -> None:
    """ValueError, before anything runs, when the per-deal results of `games` deals
    would not fit in the memory available now; `what` names the request in the message
    (default: games=N)."""
    need = games * BYTES_PER_DEAL
    have = available_memory()
    if have is not None and need > 0.8 * have:
        raise ValueError(
            f"{what or f'games={games:,}'} needs about {need / 2**30:,.1f} GiB for its per-deal results, more than the "
            f"{have / 2**30:,.1f} GiB of memory available: play fewer deals per run (runs with different "
            f"seeds play different deals)"
        )
