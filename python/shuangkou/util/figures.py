"""Figures without pyplot: a matplotlib Figure on its own Agg canvas, with text drawn as
given (no mathtext: an agent's or opponent's name may hold "$"). The arena's report and
the learning curve both draw through it, and neither touches the caller's backend or
open figures. matplotlib is imported on the first figure (it is slow to import)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def plain_text() -> Iterator[None]:
    """matplotlib's settings for the figures made inside: labels drawn as given."""
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False}):
        yield


def agg_figure(width: float, height: float) -> Any:
    """A matplotlib Figure with constrained layout on its own Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig
