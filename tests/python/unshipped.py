"""A rule set without a shipped network, for the tests of what the built-in dmc says there:
every preset ships one, so the tests take one away from the registry for a while."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import shuangkou as sk


@contextmanager
def without_network(preset: str = "qianbian_collect") -> Iterator[dict[str, str]]:
    """The built-in dmc without `preset`'s network inside the block (the registry is
    restored after it); yields the networks it keeps."""
    shipped = sk.builtin_models()
    kept = {k: v for k, v in shipped.items() if k != preset}
    sk.set_builtin_models(kept)
    try:
        yield kept
    finally:
        sk.set_builtin_models(shipped)
