"""The shape of the code: short functions, and folders that show the layers (docs/architecture.md)."""

import re
from pathlib import Path

import lizard

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 90


def test_no_function_in_the_core_or_the_package_runs_over_90_lines():
    files = sorted((ROOT / "cpp" / "src").rglob("*.cc")) + sorted((ROOT / "python" / "shuangkou").rglob("*.py"))
    assert len(files) > 40
    long = []
    for path in files:
        for f in lizard.analyze_file(str(path)).function_list:
            if f.length > MAX_LINES:
                long.append(f"{path.relative_to(ROOT)}:{f.start_line} {f.name} ({f.length} lines)")
    assert not long, long


def includes(path: Path) -> set[str]:
    return set(re.findall(r'#include "shuangkou/(\w+)/', path.read_text(encoding="utf-8")))


def test_each_layer_includes_only_the_layers_below_it():
    # core <- bots <- rl, except that the bots read rl/encode, rl/qnet and rl/rewards (which
    # include nothing above core).
    allowed = {"core": {"core"}, "bots": {"core", "bots"}, "rl": {"core", "bots", "rl"}}
    leaves = {"encode", "qnet", "rewards"}
    for layer, may in allowed.items():
        for folder in (ROOT / "cpp" / "src" / layer, ROOT / "cpp" / "include" / "shuangkou" / layer):
            for path in folder.glob("*.*"):
                text = path.read_text(encoding="utf-8")
                for used in includes(path) - may:
                    headers = re.findall(rf'#include "shuangkou/{used}/(\w+)\.h"', text)
                    assert layer == "bots" and used == "rl" and set(headers) <= leaves, (path, used, headers)
    for leaf in leaves:
        assert includes(ROOT / "cpp" / "include" / "shuangkou" / "rl" / f"{leaf}.h") <= {"core"}
        assert includes(ROOT / "cpp" / "src" / "rl" / f"{leaf}.cc") <= {"core", "rl"}
