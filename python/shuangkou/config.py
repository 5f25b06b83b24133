"""Variant config files: the YAML side.

A variant config file (``configs/variants/*.yaml``) is a YAML mapping that
gives every variant parameter once, by its canonical name, with a scalar
value. This module reads the YAML with PyYAML's safe loader (its composer
only: no Python object is ever constructed from the file) and hands the
entries, as ``(name, text, line)``, to the C++ core, which checks what they
mean (``shuangkou::variant_from_entries``): unknown, repeated or missing
parameters and bad values are reported there, with the file and line.

Every constructor that takes a variant (``Rules``, ``Game``, ``Match``,
``VectorEnv``, ``selfplay``, the environments) accepts such a path; the
bindings call :func:`read_entries` for it.
"""

from __future__ import annotations

import os
import stat

import yaml

# A config file is a few dozen short lines; anything much bigger is not one.
MAX_CONFIG_BYTES = 1 << 20

_SCALAR_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:float",
}


def _kind(node: yaml.Node) -> str:
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.ScalarNode):
        return "empty" if node.tag == "tag:yaml.org,2002:null" else f"a value tagged {node.tag}"
    return "not a single value"  # pragma: no cover - composed nodes are one of the three


def _is_text(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def read_text(path: str | os.PathLike[str]) -> str:
    """The text of the config file at ``path``: a regular file of at most
    ``MAX_CONFIG_BYTES`` in UTF-8. ``ValueError`` naming the path otherwise
    (a missing file, a folder, a device or FIFO, a huge or undecodable file)."""
    name = os.fspath(path)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer.
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise ValueError(f"cannot read variant file '{name}': {e.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"cannot read variant file '{name}': not a regular file")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(f"cannot read variant file '{name}': larger than {MAX_CONFIG_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"cannot read variant file '{name}': not UTF-8 ({e.reason} at byte {e.start})") from None


def parse_entries(text: str, source: str) -> list[tuple[str, str, int, str]]:
    """The ``(name, value text, 1-based line, shape)`` entries of a config
    file's text, in file order; ``shape`` is "" for a scalar value, else what
    stands there ("a list", "a mapping", "empty"), which the core reports with
    the parameter's allowed values. ``ValueError`` naming ``source`` (and the
    line) when the text is not YAML, not exactly one mapping, or has a key
    that is not a scalar. Meaning (names, values, completeness) is checked by
    the C++ core, not here."""
    expected = "expected a mapping of every variant parameter, one 'name: value' per line"
    try:
        docs = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        raise ValueError(f"{source}{line}: YAML syntax error: {e.problem or e.context}") from None
    except yaml.YAMLError as e:  # pragma: no cover - every reader error carries a mark
        raise ValueError(f"{source}: YAML syntax error: {e}") from None
    except RecursionError:  # PyYAML's composer recurses once per nesting level
        raise ValueError(f"{source}: nested too deep to be a config file; {expected}") from None
    if len(docs) != 1 or not isinstance(docs[0], yaml.MappingNode):
        what = (
            "the file is empty"
            if not docs
            else "the file holds several YAML documents"
            if len(docs) > 1
            else f"the document is {_kind(docs[0])}"
        )
        raise ValueError(f"{source}: {what}; {expected}")
    entries: list[tuple[str, str, int, str]] = []
    errors: list[str] = []
    for key, value in docs[0].value:
        at = f"{source}:{key.start_mark.line + 1}: "
        if not isinstance(key, yaml.ScalarNode) or key.tag not in _SCALAR_TAGS:
            errors.append(f"{at}a key is {_kind(key)}; {expected}")
            continue
        if not _is_text(key.value) or (isinstance(value, yaml.ScalarNode) and not _is_text(value.value)):
            errors.append(f"{at}a key or value holds an escape that is not valid text (a lone surrogate)")
            continue
        scalar = isinstance(value, yaml.ScalarNode) and value.tag in _SCALAR_TAGS
        text = value.value if scalar else ""
        entries.append((key.value, text, key.start_mark.line + 1, "" if scalar else _kind(value)))
    if errors:
        raise ValueError("\n".join(errors))
    return entries


def read_entries(path: str | os.PathLike[str]) -> list[tuple[str, str, int, str]]:
    """The entries of the config file at ``path`` (see :func:`parse_entries`)."""
    name = os.fspath(path)
    return parse_entries(read_text(name), name)
