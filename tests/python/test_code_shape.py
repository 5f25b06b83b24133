"""The shape of the code: short functions, and folders that show the layers (docs/architecture.md)."""

import re
from pathlib import Path

import lizard

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 60


def test_no_function_in_the_core_or_the_package_runs_over_60_lines():
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


LAYERS = ["core", "model", "bots", "rl"]  # each includes only itself and the layers before it


def layer_violations(root: Path) -> list[str]:
    """Every #include of a higher layer in cpp/src/<layer> and cpp/include/shuangkou/<layer>."""
    found = []
    for k, layer in enumerate(LAYERS):
        may = set(LAYERS[: k + 1])
        for folder in (root / "cpp" / "src" / layer, root / "cpp" / "include" / "shuangkou" / layer):
            for path in sorted(folder.glob("*.*")):
                for used in sorted(includes(path) - may):
                    found.append(f"{path.relative_to(root)} includes shuangkou/{used}/ (layer {layer})")
    return found


def test_each_layer_includes_only_the_layers_below_it():
    # core <- model <- bots <- rl, with no exception; every folder of cpp/src is a layer.
    assert {p.name for p in (ROOT / "cpp" / "src").iterdir() if p.is_dir()} == set(LAYERS)
    assert layer_violations(ROOT) == []


def test_the_layer_check_finds_an_upward_include(tmp_path):
    for layer in LAYERS:
        (tmp_path / "cpp" / "src" / layer).mkdir(parents=True)
        (tmp_path / "cpp" / "include" / "shuangkou" / layer).mkdir(parents=True)
    (tmp_path / "cpp" / "src" / "model" / "x.cc").write_text('#include "shuangkou/core/game.h"\n')
    assert layer_violations(tmp_path) == []
    (tmp_path / "cpp" / "src" / "bots" / "y.cc").write_text('#include "shuangkou/rl/encode.h"\n')
    assert layer_violations(tmp_path) == ["cpp/src/bots/y.cc includes shuangkou/rl/ (layer bots)"]


def test_each_layer_is_its_own_library():
    text = (ROOT / "cpp" / "CMakeLists.txt").read_text(encoding="utf-8")
    assert "set(SHUANGKOU_LAYERS " + " ".join(LAYERS) + ")" in text


def test_no_bindings_file_runs_over_400_lines():
    files = sorted((ROOT / "cpp" / "bindings").rglob("*.*"))
    assert len(files) > 10
    long = [f"{p.relative_to(ROOT)} ({n} lines)" for p in files if (n := len(p.read_text().splitlines())) > 400]
    assert not long, long
