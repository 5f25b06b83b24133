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
