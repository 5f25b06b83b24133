"""The worked examples of docs/rules.md §16, loaded from rules_examples.json.

The file is the project's own test data, tests/data/rules_examples.json. A
missing file is a test failure, never a skip.
"""

import json
from pathlib import Path

import pytest
import shuangkou as sk

RANKS = "3 4 5 6 7 8 9 T J Q K A 2 SJ BJ".split()


def _examples_path():
    return Path(__file__).resolve().parents[1] / "data" / "rules_examples.json"


EXAMPLES_PATH = _examples_path()
try:
    EXAMPLES = json.loads(EXAMPLES_PATH.read_text(encoding="utf-8"))
    LOAD_ERROR = None
except (OSError, ValueError) as exc:  # reported by test_examples_file_loads
    EXAMPLES = {}
    LOAD_ERROR = exc

READINGS = EXAMPLES.get("readings", [])
BEATS = EXAMPLES.get("beats", [])


def normalize(cards):
    toks = ["T" if t == "10" else t for t in cards.split()]
    return " ".join(sorted(toks, key=RANKS.index))


_RULES = {}


def rules(variant):
    if variant not in _RULES:
        _RULES[variant] = sk.Rules(variant)
    return _RULES[variant]


def test_examples_file_loads():
    assert LOAD_ERROR is None, f"cannot load {EXAMPLES_PATH}: {LOAD_ERROR}"
    assert READINGS, f"no 'readings' in {EXAMPLES_PATH}"
    assert BEATS, f"no 'beats' in {EXAMPLES_PATH}"


@pytest.mark.parametrize("ex", READINGS, ids=[f"{e['variant']}|{e['cards']}" for e in READINGS])
def test_reading_example(ex):
    p = rules(ex["variant"]).read(ex["cards"])
    if ex["kind"] is None:
        assert p is None, f"{ex['cards']!r} should be invalid, got {p.kind} {p.reading}"
        return
    assert p is not None, f"{ex['cards']!r} should be a {ex['kind']}"
    assert p.kind == ex["kind"]
    assert len(p) == len(ex["cards"].split())
    assert p.cards == normalize(ex["cards"])
    for field in ("reading", "key", "stars"):
        if field in ex:
            assert getattr(p, field) == ex[field], field


@pytest.mark.parametrize("ex", BEATS, ids=[f"{e['variant']}|{e['a']}|on|{e['b']}" for e in BEATS])
def test_beats_example(ex):
    assert rules(ex["variant"]).beats(ex["a"], ex["b"]) is ex["beats"]
