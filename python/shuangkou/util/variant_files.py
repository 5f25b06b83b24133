"""Variant config files: the YAML side.

A variant config file (``configs/variants/*.yaml``) is a YAML mapping that
gives every variant parameter once, by its canonical name, with a scalar
value. This module reads the YAML with PyYAML's safe loader (its composer
only: no Python object is ever constructed from the file) and hands the
entries, as ``(name, text, line, shape)``, to the C++ core, which checks what
they mean (``shuangkou._core.variant_from_entries``): unknown, repeated or
missing parameters and bad values are reported there, with the file and line.

:func:`load_rules` is the one way from a file to a ``Rules``. Every
constructor that takes a variant (``Rules``, ``Game``, ``Match``,
``VectorEnv``, ``selfplay``, the environments) accepts such a path; the
bindings call :func:`load_rules` for it (their one call back into Python, as
the core reads no YAML), and Python code holding a path calls it directly.

Training configs (``configs/train/*.yaml``, ``shuangkou.dmc.learner``) go
through the same reader: :func:`read_text` for the file and
:func:`read_mapping` for its values, built from the composed nodes with a
bound on their number (aliases expanded), so no YAML is ever read by another
path.
"""

from __future__ import annotations

import os
import re
import stat
from typing import Any

import yaml

from .. import _core
from ..errors import clip

# A config file is a few dozen short lines; anything much bigger is not one.
MAX_CONFIG_BYTES = 1 << 20
# Values a mapping read by read_mapping may hold, every alias expanded (a
# "billion laughs" file is refused after this many, not expanded).
MAX_CONFIG_NODES = 4096
# Nesting a value may have in read_mapping.
MAX_CONFIG_DEPTH = 16

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


def shown(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for error messages (a
    value from a file may be huge; a message only needs to say which it is)."""
    if isinstance(value, (list, tuple, dict, set)) and len(value) > limit:
        return f"a {type(value).__name__} of {len(value):,} items"
    return clip(repr(value), limit)


def read_text(path: str | os.PathLike[str], what: str = "variant file") -> str:
    """The text of the config file at ``path``: a regular file of at most
    ``MAX_CONFIG_BYTES`` in UTF-8. ``ValueError`` naming the path otherwise
    (a missing file, a folder, a device or FIFO, a huge or undecodable file).
    ``what`` names the kind of file in the message."""
    name = os.fspath(path)
    shown_name = f"'{name}'" if len(name) <= 300 else f"'{name[:200]}...' ({len(name):,} characters)"
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer.
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise ValueError(f"cannot read {what} {shown_name}: {e.strerror}") from None
    except ValueError:  # a NUL byte in the name
        raise ValueError(f"cannot read {what} {shown(name)}: the name holds a NUL byte") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"cannot read {what} {shown_name}: not a regular file")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as e:  # e.g. EIO, or a folder on a system that opens one
        raise ValueError(f"cannot read {what} {shown_name}: {e.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(f"cannot read {what} {shown_name}: larger than {MAX_CONFIG_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"cannot read {what} {shown_name}: not UTF-8 ({e.reason} at byte {e.start})") from None


def _compose_mapping(text: str, source: str, expected: str) -> yaml.MappingNode:
    """The one YAML mapping of a config file's text, composed (never
    constructed); ``ValueError`` naming ``source`` (and the line) otherwise."""
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
    return docs[0]


def parse_entries(text: str, source: str) -> list[tuple[str, str, int, str]]:
    """The ``(name, value text, 1-based line, shape)`` entries of a config
    file's text, in file order; ``shape`` is "" for a scalar value, else what
    stands there ("a list", "a mapping", "empty"), which the core reports with
    the parameter's allowed values. ``ValueError`` naming ``source`` (and the
    line) when the text is not YAML, not exactly one mapping, or has a key
    that is not a scalar. Meaning (names, values, completeness) is checked by
    the C++ core, not here."""
    expected = "expected a mapping of every variant parameter, one 'name: value' per line"
    root = _compose_mapping(text, source, expected)
    entries: list[tuple[str, str, int, str]] = []
    errors: list[str] = []
    for key, value in root.value:
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


def load_rules(path: str | os.PathLike[str], **overrides: Any) -> _core.Rules:
    """The rule set of the variant config file at ``path`` (named by the path),
    with keyword ``overrides`` of variant parameters as ``Rules(rules, **overrides)``
    takes them: the file read by :func:`read_entries`, its entries checked by the
    core (``_core.variant_from_entries``). ``ValueError`` naming the file (and
    line) for a file that cannot be read, bad YAML, or entries that are not a
    complete variant; as ``Rules`` for a bad override."""
    name = os.fspath(path)
    if not isinstance(name, str):
        raise ValueError(f"variant file: a path as text (a str or an os.PathLike), got {shown(path)}")
    rules = _core.variant_from_entries(read_entries(name), name)
    return _core.Rules(rules, **overrides) if overrides else rules


# Numbers as YAML 1.2's core schema writes them (see _Builder.number).
_DECIMAL_INT = re.compile(r"[-+]?(0|[1-9][0-9]*)")
_DECIMAL_FLOAT = re.compile(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")
_SEXAGESIMAL_OR_GROUPED = re.compile(r"[:_]")


class _Builder:
    """Python values from composed YAML nodes: null, bool, int, float and str
    scalars (PyYAML's safe constructors for those tags only), lists and
    mappings; at most ``MAX_CONFIG_NODES`` nodes with every alias expanded,
    nested at most ``MAX_CONFIG_DEPTH`` deep. ``ValueError`` naming the source,
    line and setting for anything else (another tag, a lone surrogate, too much)."""

    def __init__(self, source: str) -> None:
        self.source, self.left = source, MAX_CONFIG_NODES
        self.setting: tuple[str, int] | None = None  # the top-level key being read, and its line
        self.constructor = yaml.constructor.SafeConstructor()

    def fail(self, node: yaml.Node, message: str, line: int | None = None) -> ValueError:
        name = f"{self.setting[0]}: " if self.setting else ""
        return ValueError(f"{self.source}:{line or node.start_mark.line + 1}: {name}{message}")

    def build(self, node: yaml.Node, depth: int = 0) -> Any:
        self.left -= 1
        if self.left < 0:  # (an alias's node is its anchor's: name the setting's line)
            line = self.setting[1] if self.setting else None
            raise self.fail(node, f"more than {MAX_CONFIG_NODES} values (aliases expanded): not a config file", line)
        if depth > MAX_CONFIG_DEPTH:
            raise self.fail(node, f"values nested more than {MAX_CONFIG_DEPTH} deep: not a config file")
        if isinstance(node, yaml.SequenceNode) and node.tag == "tag:yaml.org,2002:seq":
            return [self.build(item, depth + 1) for item in node.value]
        if isinstance(node, yaml.MappingNode) and node.tag == "tag:yaml.org,2002:map":
            return {k: v for k, (v, _) in self.mapping(node, depth).items()}
        if not isinstance(node, yaml.ScalarNode) or node.tag not in (*_SCALAR_TAGS, "tag:yaml.org,2002:null"):
            shape = {yaml.SequenceNode: "a list", yaml.MappingNode: "a mapping"}.get(type(node), "a scalar")
            what = f"{shape} tagged {shown(node.tag.replace('tag:yaml.org,2002:', '!!'))}"
            raise self.fail(node, f"the value is {what}; expected a number, a string, true/false or a list")
        if not _is_text(node.value):
            raise self.fail(node, "the value holds an escape that is not valid text (a lone surrogate)")
        number = self.number(node)
        if number is not None:
            return number
        try:
            return self.constructor.construct_object(node)
        except (ValueError, LookupError, TypeError, ArithmeticError, yaml.YAMLError) as e:  # e.g. "!!bool x"
            raise self.fail(node, f"cannot read the value {shown(node.value)} ({shown(str(e))})") from None

    def number(self, node: yaml.ScalarNode) -> int | float | None:
        """A number written as YAML 1.2 (and every reader) reads it: plain decimal only.
        PyYAML follows YAML 1.1, which reads ``010`` as 8, ``0x10`` as 16, ``1:00`` as 60
        and ``1_000`` as 1000, but ``1e-3`` as a string: the first are refused, the last
        is the number it looks like. None for a value that is not a number."""
        text, plain = node.value, node.style is None  # (a quoted value is a string, whatever it holds)
        if node.tag == "tag:yaml.org,2002:int":
            if not _DECIMAL_INT.fullmatch(text):
                raise self.fail(
                    node, f"write integers in plain decimal digits, got {shown(text)}{self.as_yaml11(node)}"
                )
            try:
                return int(text)
            except ValueError as e:  # more digits than Python converts
                raise self.fail(node, f"cannot read the value {shown(text)} ({shown(str(e))})") from None
        if node.tag == "tag:yaml.org,2002:float" and _SEXAGESIMAL_OR_GROUPED.search(text):
            raise self.fail(node, f"write numbers in plain decimal, got {shown(text)}{self.as_yaml11(node)}")
        if node.tag == "tag:yaml.org,2002:str" and plain and _DECIMAL_FLOAT.fullmatch(text):
            return float(text)
        return None

    def as_yaml11(self, node: yaml.ScalarNode) -> str:
        """ " (YAML 1.1 reads it as X)", or "" where it does not read at all."""
        try:
            return f" (YAML 1.1 reads it as {shown(str(self.constructor.construct_object(node)))})"
        except Exception:  # noqa: BLE001 - an explicit tag on text that is no such value
            return ""

    def mapping(self, node: yaml.MappingNode, depth: int) -> dict[str, tuple[Any, int]]:
        out: dict[str, tuple[Any, int]] = {}
        for key, value in node.value:
            self.left -= 1
            if depth == 0:
                self.setting = None
            if not isinstance(key, yaml.ScalarNode) or key.tag != "tag:yaml.org,2002:str":
                raise self.fail(key, f"a key is {_kind(key)}; expected a name")
            if not _is_text(key.value):
                raise self.fail(key, "a key holds an escape that is not valid text (a lone surrogate)")
            line = key.start_mark.line + 1
            if key.value in out:
                raise self.fail(key, f"{shown(key.value)} is given twice (first on line {out[key.value][1]})")
            if depth == 0:
                self.setting = (key.value, line)
            out[key.value] = (self.build(value, depth + 1), line)
        return out


def read_mapping(path: str | os.PathLike[str], what: str, expected: str) -> dict[str, tuple[Any, int]]:
    """The settings of the config file at ``path``: ``{name: (value, 1-based
    line)}``, each name once, from one YAML mapping of plain-string keys.
    Values are built as :class:`_Builder` says (nested mappings as plain
    dicts of values). The file is read by :func:`read_text` (``what`` names
    its kind); ``ValueError`` naming the file (and line) for anything else,
    ``expected`` saying what the file should hold."""
    name = os.fspath(path)
    return parse_mapping(read_text(name, what), name, expected)


def parse_mapping(text: str, source: str, expected: str) -> dict[str, tuple[Any, int]]:
    """:func:`read_mapping` of a text (``source`` names it in messages)."""
    root = _compose_mapping(text, source, expected)
    return _Builder(source).mapping(root, 0)
