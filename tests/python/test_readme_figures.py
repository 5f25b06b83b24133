"""The README's timings (setup, the main job, deals per second) come from
scripts/measure_readme.py's saved measurement (experiments/readme_figures.json), and
that measurement was made with the build configuration this checkout builds: a change
of compiler, flags, build type or of the modules built fails here until someone
measures again (python scripts/measure_readme.py --measure). The README shows the main
job's output; the measurement's provenance and speed are in experiments/benchmarks.md
(the script's BLOCKS)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "measure_readme.py"


def load_script():
    spec = importlib.util.spec_from_file_location("measure_readme", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mr = load_script()
FIGURES = json.loads(mr.FIGURES.read_text(encoding="utf-8"))


def fake_build(
    root: Path,
    *,
    compiler=("GNU", "12.2.0"),
    build_type="Release",
    opt="-O3",
    modules=("x86-64-v2",),
    name="cp311-cp311-linux_x86_64",
):
    """The files of a setup.sh build in root/build/<name>/, as CMake and Ninja write them."""
    build = root / "build" / name
    (build / "CMakeFiles" / "4.4.5").mkdir(parents=True)
    (build / "CMakeCache.txt").write_text(
        "# This is the CMakeCache file.\n"
        f"CMAKE_BUILD_TYPE:STRING={build_type}\nCMAKE_GENERATOR:INTERNAL=Ninja\n"
        "CMAKE_CACHE_MAJOR_VERSION:INTERNAL=4\nCMAKE_CACHE_MINOR_VERSION:INTERNAL=4\n"
        "CMAKE_CACHE_PATCH_VERSION:INTERNAL=5\n"
    )
    (build / "CMakeFiles" / "4.4.5" / "CMakeCXXCompiler.cmake").write_text(
        f'set(CMAKE_CXX_COMPILER_ID "{compiler[0]}")\nset(CMAKE_CXX_COMPILER_VERSION "{compiler[1]}")\n'
    )
    (build / "CMakeInit.txt").write_text('set(SKBUILD_PROJECT_VERSION [===[0.1.0]===] CACHE STRING "" FORCE)\n')
    ninja = []
    for arch in modules:
        ninja += [
            f"build cpp/CMakeFiles/core_{arch}.dir/src/a.cc.o: CXX_COMPILER__core",
            f"  FLAGS = {opt} -DNDEBUG -std=c++20 -fPIC -march={arch} -fopenmp",
            f"build cpp/CMakeFiles/mod_{arch}.dir/bindings/module.cc.o: CXX_COMPILER__mod",
            f'  DEFINES = -DSHUANGKOU_ARCH=\\"{arch}\\" -D_core_EXPORTS',
            f"  FLAGS = {opt} -DNDEBUG -std=c++20 -fPIC -fvisibility=hidden -flto=auto -march={arch} -fopenmp",
            "build cpp/_core.so: CXX_MODULE_LIBRARY_LINKER__mod",
            "  LINK_FLAGS = -shared -flto=auto",
        ]
    (build / "build.ninja").write_text("\n".join(ninja) + "\n")
    return build


def test_the_readme_shows_the_saved_measurement():
    assert mr.BLOCKS["main-job"] == "README.md"  # the README shows the main job's output
    assert set(mr.BLOCKS) == set(mr.RENDER)
    for path, names in mr.shown_in().items():
        text = path.read_text(encoding="utf-8")
        assert mr.filled_text(FIGURES, text, names, path.name) == text, "run python scripts/measure_readme.py"
        for name in names:
            begin, end = mr.markers(name)
            assert text.count(begin) == 1 and text.count(end) == 1
            for other in set(mr.BLOCKS) - set(names):  # each block in one file only
                assert mr.markers(other)[0] not in text
    provenance = (ROOT / mr.BLOCKS["setup"]).read_text(encoding="utf-8")
    assert f"commit `{FIGURES['commit']}`" in provenance and FIGURES["date"] in provenance


def test_the_measurement_records_its_runs_date_commit_and_build():
    assert FIGURES["runs"] and all(r["setup_s"] > 0 and r["main_job_s"] > 0 for r in FIGURES["runs"])
    assert all(r["deals_per_s"] > 0 for r in FIGURES["runs"])
    assert len(FIGURES["commit"]) >= 7 and FIGURES["date"][:2] == "20"
    assert set(FIGURES["build"]) == {
        "version",
        "compiler",
        "generator",
        "build_type",
        "modules",
        "compile_flags",
        "link_flags",
    }
    # The main job's output in the README is a measured run's, its timing line included.
    text = (ROOT / mr.BLOCKS["main-job"]).read_text(encoding="utf-8")
    shown = mr.shown_output(FIGURES)
    assert shown in text
    assert any(f"{r['deals_per_s']:,} deals/s" in shown for r in FIGURES["runs"])


def test_the_figures_were_measured_with_the_build_configuration_of_this_checkout():
    current = mr.build_config(ROOT)
    if current is None:
        pytest.skip("no build/<wheel tag>/ here (scripts/setup.sh makes it)")
    assert mr.config_differences(FIGURES["build"], current) == [], (
        "the README's timings were measured with another build: python scripts/measure_readme.py --measure"
    )


def test_the_build_configuration_is_read_from_the_build_files(tmp_path):
    fake_build(tmp_path, modules=("x86-64-v2", "x86-64-v3"))
    config = mr.build_config(tmp_path)
    assert config["compiler"] == "GNU 12.2.0" and config["build_type"] == "Release"
    assert config["generator"] == "Ninja" and config["version"] == "0.1.0"
    assert config["modules"] == ["x86-64-v2", "x86-64-v3"]
    assert len(config["compile_flags"]) == 4 and config["link_flags"] == ["-shared -flto=auto"]
    assert mr.key_flags(config) == "-O3 -flto=auto -fopenmp"
    assert mr.build_config(tmp_path / "elsewhere") is None
    # scripts/sanitize.sh's build of the module (build/asan-python) is not the one setup.sh makes.
    fake_build(tmp_path, build_type="RelWithDebInfo", name="asan-python")
    assert mr.build_config(tmp_path) == config


@pytest.mark.parametrize(
    "change, key",
    [
        ({"modules": ("x86-64-v2",)}, "modules"),  # the x86-64-v3 dispatch off: one build, not two
        ({"opt": "-O2"}, "compile_flags"),
        ({"build_type": "RelWithDebInfo"}, "build_type"),
        ({"compiler": ("Clang", "16.0.6")}, "compiler"),
    ],
    ids=["one-module", "O2", "build-type", "compiler"],
)
def test_another_build_configuration_fails_the_check(tmp_path, change, key):
    same = tmp_path / "same"
    fake_build(same, modules=("x86-64-v2", "x86-64-v3"))
    recorded = mr.build_config(same)
    other = tmp_path / "other"
    fake_build(other, **{"modules": ("x86-64-v2", "x86-64-v3"), **change})
    diff = mr.config_differences(recorded, mr.build_config(other))
    assert any(d.startswith(f"{key}: measured with") for d in diff), diff
    assert mr.config_differences(recorded, mr.build_config(same)) == []


def test_check_names_a_stale_readme_and_a_foreign_build(tmp_path, monkeypatch):
    for where in set(mr.BLOCKS.values()):  # a copy of each file that shows figures
        (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / where, tmp_path / where)
    fake_build(tmp_path, **{**{"modules": tuple(FIGURES["build"]["modules"])}, "opt": "-O0"})
    monkeypatch.setattr(mr, "ROOT", tmp_path)
    problems = mr.check(FIGURES)
    assert len(problems) == 1 and "another build configuration" in problems[0], problems
    shown = tmp_path / mr.BLOCKS["setup"]  # the commit measured is shown there
    shown.write_text(shown.read_text(encoding="utf-8").replace(FIGURES["commit"], "0000000"), encoding="utf-8")
    problems = mr.check(FIGURES)
    assert len(problems) == 2 and "differ from experiments/readme_figures.json" in problems[0]
    assert mr.BLOCKS["setup"] in problems[0] and "README.md" not in problems[0].split(":")[0]
