"""Writes a benchmark's table into its marked section of a markdown report."""

from __future__ import annotations


def replace_section(path: str, begin: str, end: str, text: str, heading: str) -> None:
    """Replaces the text between the `begin` and `end` markers of `path` (both
    included in `text`), or appends `heading` and `text` if the markers are absent."""
    with open(path, encoding="utf-8") as f:
        doc = f.read()
    if begin in doc and end in doc:
        doc = doc[: doc.index(begin)] + text + doc[doc.index(end) + len(end) :]
    else:
        doc = doc.rstrip("\n") + f"\n\n{heading}\n\n" + text + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(doc)
