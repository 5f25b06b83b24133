"""Exception types of the package (docs/errors.md).

Most bad input raises a plain ``ValueError``; the one class of its own is for
keyword arguments no call knows, which Python itself (and tools that probe
signatures, such as gymnasium's and TorchRL's) expect to be ``TypeError``.
"""

from __future__ import annotations


class UnknownArgumentError(TypeError, ValueError):
    """A keyword argument that is neither an argument of the call nor a variant
    parameter. Both a ``TypeError`` (as Python raises for unknown keywords) and a
    ``ValueError`` (as the package raises for bad input), so either handler
    catches it."""


def clip(text: str, limit: int = 80) -> str:
    """`text` cut to about `limit` characters for an error message, saying how long it
    was (a value from a file or an agent may be huge; a message only needs to say which
    it is). The Python twin of the core's ``shuangkou::clip``."""
    return text if len(text) <= limit else f"{text[: max(limit - 20, 1)]}... ({len(text):,} characters)"
