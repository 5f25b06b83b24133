"""The Python package's layers (docs/architecture.md), read from the source with the AST.

Every module of python/shuangkou belongs to one layer; it imports only modules of its
own subpackage or of lower layers, at the top of the file or inside a function alike.
Imports inside functions are for optional third-party packages only: a function may
import a package module lazily only where that module itself needs an optional stack at
its top (torch, the web stack, Ray, OpenSpiel, ...), so that `shuangkou --help` and
`import shuangkou` work without them. No module imports
the package facade (`shuangkou/__init__.py`), and at most four modules sit loose at the
package's top level. `_native` is the composition root: the facade imports it first, it
assembles the package (the build, the models, the config-file reader, the Gymnasium
registration) and nothing else imports it; it alone may defer an import of the package
(the config-file reader, loaded on the first path: it needs PyYAML).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "shuangkou"

# Top-level name under shuangkou -> layer. A subpackage's modules share its layer.
LAYERS = {
    "_core": 0,
    "errors": 0,
    "util": 1,
    "agents": 2,
    "envs": 3,
    "runs": 4,
    "expert": 5,
    "integrations": 5,
    "dmc": 6,
    "play": 7,
    "cli": 8,
    "__main__": 9,
    "_native": 10,
}
LOOSE = {"__init__.py", "__main__.py", "_native.py", "errors.py"}
# The optional stacks (pyproject.toml's extras): a module that imports one at its top is
# imported lazily by the layers above it.
OPTIONAL = {"torch", "starlette", "uvicorn", "ray", "pyspiel", "gymnasium", "pettingzoo", "stable_baselines3"}


def module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def resolve(node: ast.ImportFrom, name: str, package_of: str) -> str:
    """The absolute module an ImportFrom names (relative imports resolved)."""
    if node.level == 0:
        return node.module or ""
    base = package_of.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported(tree: ast.AST, name: str, package_of: str, package: Path) -> list[tuple[str, int, bool]]:
    """(module, line, inside a function) for every import of a shuangkou module."""
    out = []
    in_function: set[int] = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            in_function |= {id(n) for n in ast.walk(fn)} - {id(fn)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = resolve(node, name, package_of)
            # `from pkg import sub` names the submodule where there is one
            targets = [f"{base}.{a.name}" if _exists(f"{base}.{a.name}", package) else base for a in node.names]
        else:
            continue
        for t in targets:
            if t == "shuangkou" or t.startswith("shuangkou."):
                out.append((t, node.lineno, id(node) in in_function))
    return out


def _exists(module: str, package: Path) -> bool:
    rel = Path(*module.split(".")[1:])
    root = package
    return (
        (root / rel).with_suffix(".py").exists() or (root / rel / "__init__.py").exists() or module.endswith("._core")
    )


def needs_optional_stack(module: str, package: Path) -> bool:
    """Whether `module` imports an optional stack at its top level."""
    rel = Path(*module.split(".")[1:])
    path = (package / rel).with_suffix(".py")
    if not path.exists():
        path = package / rel / "__init__.py"
    if not path.exists():
        return False
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        if any(n.split(".")[0] in OPTIONAL for n in names):
            return True
    return False


def layer_of(module: str) -> tuple[str, int]:
    top = module.split(".")[1] if module.count(".") else ""
    return top, LAYERS.get(top, -1)


def violations(package: Path) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        name = module_name(path, package)
        package_of = name if is_package(path) else name.rpartition(".")[0]
        if name == "shuangkou":
            continue  # the facade may import everything
        own_top, own = layer_of(name)
        if own < 0:
            found.append(f"{name}: a module outside every layer")
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for target, line, lazy in imported(tree, name, package_of, package):
            where = f"{path.relative_to(package.parent)}:{line}"
            top, layer = layer_of(target)
            if target == "shuangkou":
                found.append(f"{where} imports the package facade")
            elif lazy and own_top != "_native" and not needs_optional_stack(target, package):
                found.append(f"{where} imports {target} inside a function (lazy imports: optional stacks only)")
            elif top == "_native" and own_top != "_native":
                found.append(f"{where} imports {target}: only the facade imports the composition root")
            elif top != own_top and layer >= own:
                found.append(f"{where}: {name} (layer {own}) imports {target} (layer {layer})")
    loose = sorted(p.name for p in package.glob("*.py"))
    found += [f"{n}: loose at the top level" for n in loose if n not in LOOSE]
    return found


def test_every_module_imports_only_its_own_package_and_lower_layers():
    assert violations(PACKAGE) == []


@pytest.mark.parametrize(
    "where, text, expected",
    [
        ("util/x.py", "from ..runs import selfplay\n", "(layer 1) imports shuangkou.runs.selfplay (layer 4)"),
        ("envs/x.py", "def f():\n    from ..agents import resolve\n", "inside a function"),
        ("runs/x.py", "def f():\n    from ..runs import selfplay\n", "inside a function"),
        ("agents/x.py", "import shuangkou\n", "imports the package facade"),
        ("runs/x.py", "from .. import Agent\n", "imports the package facade"),
        ("util/y.py", "from .._native import x\n", "only the facade imports the composition root"),
    ],
)
def test_the_layer_check_finds_a_deliberately_added_upward_import(tmp_path, where, text, expected):
    package = tmp_path / "shuangkou"
    for sub in ("util", "agents", "envs", "runs"):
        (package / sub).mkdir(parents=True)
        (package / sub / "__init__.py").write_text("")
        (package / sub / "resolve.py").write_text("")
        (package / sub / "selfplay.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "_native.py").write_text("")
    (package / "errors.py").write_text("")
    (package / "envs" / "fine.py").write_text("from ..agents import resolve\nfrom .. import errors, _core\n")
    (package / "agents" / "torchy.py").write_text("import torch\n")
    (package / "runs" / "fine.py").write_text("def f():\n    import torch\n    from ..agents import torchy\n")
    assert violations(package) == []
    (package / where).write_text(text)
    assert len(found := violations(package)) == 1 and expected in found[0], found


def test_the_old_module_paths_import_the_moved_modules_with_a_warning():
    import importlib
    import subprocess
    import sys
    import warnings

    from shuangkou.util.legacy_paths import MOVED

    code = (
        "import importlib, warnings, sys\n"
        "warnings.simplefilter('error')\n"
        "import shuangkou\n"
        f"for old, new in {dict(MOVED)!r}.items():\n"
        "    if old.split('.')[-1] in ('openspiel', 'rllib', 'policies'):\n"
        "        continue  # (optional stacks: checked below where installed)\n"
        "    try:\n"
        "        importlib.import_module(old)\n"
        "    except DeprecationWarning as w:\n"
        "        assert new in str(w), (old, w)\n"
        "    else:\n"
        "        raise AssertionError(old + ' imported without a warning')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for old, new in MOVED.items():
            if old.split(".")[-1] in ("openspiel", "rllib", "policies"):
                continue
            assert importlib.import_module(old) is importlib.import_module(new)
            assert importlib.import_module(new).__spec__.name == new  # (its own spec kept)
    import shuangkou as sk

    assert callable(sk.selfplay) and callable(sk.arena)  # (the functions, never hidden by a module)
    p = subprocess.run([sys.executable, "-m", "shuangkou.train", "--help"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "--resume" in p.stdout and "moved to" in p.stderr


def test_the_facade_only_re_exports():
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    calls = [n for n in tree.body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)]
    assert calls == []  # no call at import: _native does the assembling
    assert (PACKAGE / "__init__.py").read_text(encoding="utf-8").count("from . import _native") == 1


def test_import_shuangkou_leaves_gymnasium_unimported_and_still_registers_the_env():
    import subprocess
    import sys

    code = (
        "import sys, shuangkou\n"
        "assert 'gymnasium' not in sys.modules and 'torch' not in sys.modules and 'argparse' not in sys.modules\n"
        "import gymnasium\n"
        "assert gymnasium.make('shuangkou/Shuangkou-v0').unwrapped.rules.name == 'baibian'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    subprocess.run(
        [sys.executable, "-c", "import gymnasium, shuangkou; gymnasium.make('shuangkou/Shuangkou-v0')"],
        check=True,
        timeout=120,
    )
