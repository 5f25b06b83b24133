"""Variant config files: YAML syntax (PyYAML, shuangkou.config), file handling,
and their meaning end to end through sk.Rules(path). The meaning of entries is
also tested in C++ (tests/cpp/config_test.cc)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import shuangkou as sk
import yaml
from shuangkou.util import variant_files as config

VARIANTS = Path(__file__).resolve().parents[2] / "configs" / "variants"
PACKAGED = Path(sk.__file__).resolve().parent / "configs" / "variants"


def preset_text(name: str) -> str:
    return (VARIANTS / f"{name}.yaml").read_text(encoding="utf-8")


def with_line(text: str, name: str, value: str | None) -> str:
    """The text with the line `name: ...` given `value` (removed for None)."""
    pattern = re.compile(rf"^{name}: [^\n]*\n", re.M)
    assert len(pattern.findall(text)) == 1, name
    return pattern.sub("" if value is None else f"{name}: {value}\n", text, count=1)


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def error_of(f, *args, **kwargs) -> str:
    with pytest.raises(ValueError) as e:
        f(*args, **kwargs)
    return str(e.value)


@pytest.mark.parametrize("name", sk.preset_names())
def test_each_preset_file_loads_to_the_preset(name):
    assert sk.Rules(str(VARIANTS / f"{name}.yaml")).params == sk.Rules(name).params
    # The installed package ships the same files.
    assert (PACKAGED / f"{name}.yaml").read_text(encoding="utf-8") == preset_text(name)


@pytest.mark.parametrize("name", sk.preset_names())
def test_preset_files_are_what_the_core_writes_and_pyyaml_reads_them_alike(name):
    # Every key once, in order; a plain YAML reader sees the same values.
    data = yaml.safe_load(preset_text(name))
    assert list(data) == sk.param_names()
    assert {k: str(v).lower() for k, v in data.items()} == {k: str(v).lower() for k, v in sk.Rules(name).params.items()}
    assert "opy this file" in preset_text(name)


def test_custom_file_round_trip_and_one_changed_key(tmp_path):
    text = with_line(preset_text("qianbian"), "max_bomb", "10")
    text = with_line(text, "tianwang", "'bottom'  # trailing comment")
    r = sk.Rules(write(tmp_path, "custom.yml", text))
    assert r.params == sk.Rules("qianbian", max_bomb=10, tianwang="bottom").params
    # A path without an extension (it holds a '/'), and a file named like a preset, are files.
    assert sk.Rules(write(tmp_path, "custom_no_extension", text)).params == r.params
    assert sk.Rules(write(tmp_path, "jj.yaml", text)).params == r.params
    # Keyword overrides apply on top of a file.
    assert sk.Rules(write(tmp_path, "c.yaml", text), max_bomb=9).params["max_bomb"] == "9"


def test_every_front_end_takes_a_path(tmp_path):
    path = write(tmp_path, "jj_fixed.yaml", with_line(preset_text("jj"), "team_formation", "fixed"))
    assert sk.Game(path, seed=3).to_json()  # a deal under the file's rules
    assert sk.Match(path, seed=3, deals=2).game is not None
    assert len(sk.selfplay(variant=path, games=20, threads=1).arrays["scores"]) == 20
    venv = sk.VectorEnv(num_envs=2, variant=path, seed=0)
    obs, _ = venv.reset()
    assert obs.shape[0] == 2


def test_yaml_forms_that_set_param_accepts(tmp_path):
    text = preset_text("classic")
    for name, value in [("chain_bomb", "yes"), ("three_kings", "True"), ("uneven_chain", "on"), ("max_bomb", '"10"')]:
        text = with_line(text, name, value)
    p = sk.Rules(write(tmp_path, "forms.yaml", text)).params
    assert (p["chain_bomb"], p["three_kings"], p["uneven_chain"], p["max_bomb"]) == ("true", "true", "true", "10")
    reversed_text = "".join(f"{k}: {v}\n" for k, v in reversed(list(sk.Rules("jj").params.items())))
    assert sk.Rules(write(tmp_path, "reversed.yaml", reversed_text)).params == sk.Rules("jj").params


# --- errors --------------------------------------------------------------------


def test_bad_value_names_file_line_key_and_allowed_values(tmp_path):
    text = with_line(preset_text("classic"), "tianwang", "up")
    line = 1 + text[: text.index("\ntianwang:") + 1].count("\n")
    path = write(tmp_path, "x.yaml", text)
    msg = error_of(sk.Rules, path)
    assert f"{path}:{line}: " in msg and "'up'" in msg and "top, bottom" in msg


@pytest.mark.parametrize(
    "name, value",
    [("max_bomb", "[8]"), ("chain_bomb", "\n  - true\n  - false"), ("bomb_order", "{stars: 1}"), ("tianwang", "")],
)
def test_values_must_be_scalars(tmp_path, name, value):
    text = with_line(preset_text("jj"), name, "PLACEHOLDER").replace(" PLACEHOLDER", f" {value}" if value else "")
    path = write(tmp_path, "shape.yaml", text)
    msg = error_of(sk.Rules, path)
    assert f"{path}:" in msg and f"'{name}'" in msg
    assert sk._core.Rules("jj").params is not None  # nothing else disturbed


@pytest.mark.parametrize(
    "text", ["- wild_jokers\n- max_bomb\n", "classic\n", "", "# nothing\n", "max_bomb: 8\n---\nmax_bomb: 9\n"]
)
def test_document_must_be_one_mapping(tmp_path, text):
    msg = error_of(sk.Rules, write(tmp_path, "doc.yaml", text))
    assert "doc.yaml" in msg and "mapping" in msg


def test_keys_must_be_scalars(tmp_path):
    msg = error_of(sk.Rules, write(tmp_path, "key.yaml", "[1, 2]: 3\n"))
    assert "key.yaml:1: " in msg and "a key is a list" in msg


def test_repeated_key_is_refused_not_overwritten(tmp_path):
    # PyYAML alone would keep the last value silently.
    path = write(tmp_path, "twice.yaml", preset_text("classic") + "max_bomb: 9\n")
    msg = error_of(sk.Rules, path)
    assert "twice.yaml" in msg and "'max_bomb'" in msg and "twice" in msg


def test_unknown_alias_and_missing_keys(tmp_path):
    msg = error_of(sk.Rules, write(tmp_path, "u.yaml", preset_text("classic") + "max_bombs: 8\n"))
    assert "max_bombs" in msg and "partner_visible" in msg
    msg = error_of(sk.Rules, write(tmp_path, "alias.yaml", preset_text("classic").replace("wild_jokers:", "wild:")))
    assert "'wild'" in msg and "canonical" in msg and "wild_jokers (allowed: none, BJ, both)" in msg
    msg = error_of(sk.Rules, write(tmp_path, "one.yaml", "max_bomb: 8\n"))
    for name in sk.param_names():
        if name != "max_bomb":
            assert name in msg


def test_every_problem_is_reported(tmp_path):
    text = with_line(preset_text("classic"), "chain_bomb", "perhaps")
    text = with_line(text, "tianwang", None) + "colour: red\n"
    msg = error_of(sk.Rules, write(tmp_path, "many.yaml", text))
    assert "'perhaps'" in msg and "'colour'" in msg and "missing variant parameters: tianwang" in msg


def test_yaml_syntax_errors_name_the_line(tmp_path):
    msg = error_of(sk.Rules, write(tmp_path, "syntax.yaml", "wild_jokers: none\nmax_bomb: [8\n"))
    assert "syntax.yaml" in msg and "YAML syntax error" in msg
    msg = error_of(sk.Rules, write(tmp_path, "indent.yaml", "wild_jokers: none\n  max_bomb: 8\n"))
    assert "indent.yaml:2" in msg and "YAML syntax error" in msg


def test_python_tags_never_construct_objects(tmp_path):
    marker = tmp_path / "constructed"
    for value, shape in [
        (f"!!python/object/apply:os.system ['touch {marker}']", "a list"),
        ("!!python/name:os.system", "a value tagged tag:yaml.org,2002:python/name:os.system"),
    ]:
        text = with_line(preset_text("classic"), "max_bomb", value)
        msg = error_of(sk.Rules, write(tmp_path, "tag.yaml", text))
        assert f"'max_bomb' is {shape}" in msg
    assert not marker.exists()


def test_alias_bombs_stay_cheap(tmp_path):
    # The "billion laughs": composing keeps aliases as references; values must be scalars anyway.
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 30)]
    msg = error_of(sk.Rules, write(tmp_path, "bomb.yaml", "\n".join(lines) + "\n"))
    assert "unknown variant parameter 'a0'" in msg


def test_file_errors_name_the_path(tmp_path):
    missing = str(tmp_path / "no_such.yaml")
    assert missing in error_of(sk.Rules, missing) and "cannot read" in error_of(sk.Rules, missing)
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    assert "not a regular file" in error_of(sk.Rules, str(folder))
    assert "not a regular file" in error_of(sk.Rules, "/dev/zero")
    fifo = str(tmp_path / "pipe.yaml")
    os.mkfifo(fifo)
    assert "not a regular file" in error_of(sk.Rules, fifo)  # and it does not block
    big = write(tmp_path, "big.yaml", "# x\n" * (config.MAX_CONFIG_BYTES // 4 + 1))
    assert "larger than" in error_of(sk.Rules, big)
    binary = tmp_path / "latin1.yaml"
    binary.write_bytes(b"max_bomb: \xff\n")
    assert "not UTF-8" in error_of(sk.Rules, str(binary))


def test_neither_preset_nor_path():
    msg = error_of(sk.Rules, "bai_bian")
    assert "unknown variant preset 'bai_bian'" in msg and "qianbian_collect" in msg and ".yaml" in msg
    assert "no/such/variant" in error_of(sk.Rules, "no/such/variant")


def test_the_parameter_table_owns_every_parameter():
    """One table (C++ variant.cc) gives every parameter's values, meaning and preset
    values; the presets, the config files, the README and the docstrings agree with it."""
    table = sk._core.param_table()
    assert [row["name"] for row in table] == sk.param_names()
    for row in table:
        assert row["description"] and row["allowed"]
        for preset, value in row["presets"].items():
            assert sk.Rules(preset).params[row["name"]] == value
            assert f"{row['name']}: {value}\n" in preset_text(preset)
    doc = sk.Rules.__doc__
    assert all(p in doc for p in sk.preset_names()) and all(p in doc for p in sk.param_names())


# Parameters the observation does not encode, and why: who leads and whether seats move
# are visible in the deal itself; partner_visible has a slice of its own.
NOT_IN_THE_VARIANT_SLICE = {"first_lead", "team_formation", "partner_visible"}


def test_every_parameter_is_in_the_observation_or_named_as_not_observed():
    meaning = next(s["meaning"] for s in sk._core.observation_layout() if s["name"] == "variant")
    for name in sk.param_names():
        assert (name in meaning) != (name in NOT_IN_THE_VARIANT_SLICE), name


# --- one way from a file to a Rules ---------------------------------------------


def test_load_rules_reads_the_file_and_the_core_checks_its_entries():
    path = str(VARIANTS / "qianbian.yaml")
    r = config.load_rules(path)
    assert r == sk.Rules("qianbian") and r.name == path  # named by the path, as Rules(path) is
    with_override = config.load_rules(Path(path), max_bomb=10)
    assert with_override == sk.Rules("qianbian", max_bomb=10)
    assert repr(with_override) == repr(sk.Rules(path, max_bomb=10)) == f"Rules('{path} max_bomb=10')"
    # The bound core function: a file's entries in, its Rules out, named by `source`.
    entries = config.read_entries(path)
    assert sk._core.variant_from_entries(entries, "mine.yaml") == r
    assert sk._core.variant_from_entries([e[:3] for e in entries], Path("x/mine.yaml")).name == "x/mine.yaml"


def test_load_rules_fails_as_rules_of_a_path_does(tmp_path):
    missing = str(tmp_path / "no_such.yaml")
    assert error_of(config.load_rules, missing) == error_of(sk.Rules, missing)
    bad = write(tmp_path, "bad.yaml", with_line(preset_text("jj"), "tianwang", "up"))
    assert error_of(config.load_rules, bad) == error_of(sk.Rules, bad)
    assert "max_bomb" in error_of(config.load_rules, str(VARIANTS / "jj.yaml"), max_bomb=99)
    assert "a path as text" in error_of(config.load_rules, os.fsencode(str(VARIANTS / "jj.yaml")))


def test_variant_from_entries_names_the_source_line_and_bad_entries():
    msg = error_of(
        sk._core.variant_from_entries, [("max_bomb", "13", 4, ""), ("chain_bomb", "", 5, "a list")], "c.yaml"
    )
    assert msg.startswith("c.yaml:4: ") and "4..12" in msg
    assert "c.yaml:5: variant parameter 'chain_bomb' is a list" in msg and "c.yaml: missing variant parameters" in msg
    for entries, expected in [
        ("max_bomb: 8", "entries must be a list"),
        ([("max_bomb", "8")], "entries[0] must be a (name, value, line[, shape]) tuple"),
        ([("max_bomb", 8, 1)], "entries[0] value must be text"),
        ([("max_bomb", "8", "1")], "entries[0] line must be an integer"),
        ([("max_bomb", "8", 1, ""), ("chain_bomb", "true", -1)], "entries[1] line must be an integer"),
        ([("max_bomb", "8", 1, None)], "entries[0] shape must be text"),
    ]:
        assert expected in error_of(sk._core.variant_from_entries, entries, "c.yaml"), entries
    assert "source must be text" in error_of(sk._core.variant_from_entries, [], b"c.yaml")


def test_every_front_end_reads_a_path_through_load_rules_and_a_rules_not_at_all(monkeypatch):
    calls = []
    load_rules = config.load_rules
    monkeypatch.setattr(config, "load_rules", lambda path, **kw: calls.append(path) or load_rules(path, **kw))
    path = str(VARIANTS / "jj.yaml")
    rules = sk.Rules(path)
    assert sk.Rules(path, max_bomb=9).params["max_bomb"] == "9"
    sk.Game(path, seed=1)
    assert sk.selfplay(variant=Path(path), games=2, threads=1)["games"] == 2
    assert calls == [path] * 4
    sk.Game(rules, seed=1)
    sk.VectorEnv(num_envs=2, variant=rules, seed=0)
    assert sk.Rules(rules, max_bomb=9).params["max_bomb"] == "9" and len(calls) == 4


def test_a_training_run_resolves_its_variant_once(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from shuangkou.dmc.learner import train
    from shuangkou.dmc.train_config import TrainConfig

    path = str(VARIANTS / "jj.yaml")
    tiny = {"variant": path, "hidden": [16], "num_envs": 16, "collect": 128, "batch_size": 128, "updates": 2}
    run = TrainConfig.from_dict({**tiny, "eval_every": 1, "eval_deals": 2, "log_every": 1, "threads": 1})
    assert run.check() == sk.Rules("jj")  # check resolves the variant and returns it
    calls = []
    load_rules = config.load_rules
    monkeypatch.setattr(config, "load_rules", lambda p, **kw: calls.append(p) or load_rules(p, **kw))
    result = train(run, tmp_path, progress=False)  # two evaluations, one actor group
    assert result["eval"]["update"] == 2 and calls == [path]


def test_the_core_reads_variant_files_through_the_loader_the_package_registers(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(sk._core.preset_yaml("classic"), encoding="utf-8")
    classic = sk._core.variant_to_yaml(sk.Rules("classic"))
    assert sk._core.variant_to_yaml(sk.Rules(str(path))) == classic
    calls = []

    def loader(p):
        calls.append(p)
        return sk.Rules("jj")

    try:
        sk._core.set_rules_loader(loader)
        assert sk.Game(str(path), seed=1).rules.name == "jj" and calls == [str(path)]
        sk._core.set_rules_loader(None)
        with pytest.raises(ValueError, match="no rules loader is registered"):
            sk.Rules(str(path))
        with pytest.raises(ValueError, match="callable"):
            sk._core.set_rules_loader(5)
    finally:
        sk._native.register_rules_loader()
    assert sk._core.variant_to_yaml(sk.Rules(str(path))) == classic
    bindings = "".join(p.read_text() for p in (Path(__file__).resolve().parents[2] / "cpp" / "bindings").rglob("*.cc"))
    assert 'import("shuangkou.config")' not in bindings  # (the loader is handed over, never imported by name)
