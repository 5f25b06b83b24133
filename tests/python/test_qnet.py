"""The Q network: the C++ (Eigen) forward pass against PyTorch's and a numpy one, and
model files that round-trip and refuse to load when damaged or foreign."""

from __future__ import annotations

import io
import json
import os
import re
import zipfile

import numpy as np
import pytest
import shuangkou as sk
from unshipped import without_network

SHAPES = [(445, 44, (256, 128)), (7, 3, (5,)), (20, 6, (16, 8, 4))]


def numpy_forward(tensors: dict[str, np.ndarray], obs: np.ndarray, moves: np.ndarray, layers: int) -> np.ndarray:
    x = np.maximum(0, tensors["l0.obs"] @ obs + tensors["l0.bias"] + moves @ tensors["l0.move"].T)
    for i in range(1, layers):
        x = np.maximum(0, x @ tensors[f"l{i}.weight"].T + tensors[f"l{i}.bias"])
    return x @ tensors["out.weight"][0] + tensors["out.bias"][0]


def random_qnet(obs_size: int, move_size: int, hidden: tuple[int, ...], seed: int = 0) -> sk.QNet:
    rng = np.random.default_rng(seed)
    tensors = {
        name: rng.normal(0, 0.3, size=shape).astype(np.float32)
        for name, shape in sk.QNet.tensor_shapes(obs_size, move_size, list(hidden))
    }
    return sk.QNet(obs_size, move_size, list(hidden), tensors, {"variant": "baibian"})


@pytest.mark.parametrize("shape", SHAPES)
def test_eigen_equals_numpy(shape):
    net = random_qnet(*shape)
    rng = np.random.default_rng(1)
    t = {k: v.astype(np.float64) for k, v in net.tensors().items()}
    for k in (1, 25, 200):
        obs = rng.uniform(-1, 1, shape[0]).astype(np.float32)
        moves = rng.uniform(-1, 1, (k, shape[1])).astype(np.float32)
        want = numpy_forward(t, obs.astype(np.float64), moves.astype(np.float64), len(shape[2]))
        np.testing.assert_allclose(net.q_values(obs, moves), want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("shape", SHAPES)
def test_eigen_equals_pytorch(shape):
    torch = pytest.importorskip("torch")
    from shuangkou.dmc.net import QNetwork

    torch.manual_seed(0)
    net = QNetwork(*shape)
    qnet = net.to_qnet()
    rng = np.random.default_rng(2)
    worst = 0.0
    for k in (1, 7, 64):
        obs = rng.uniform(-1, 1, shape[0]).astype(np.float32)
        moves = rng.uniform(-1, 1, (k, shape[1])).astype(np.float32)
        with torch.no_grad():
            want = net(torch.from_numpy(np.tile(obs, (k, 1))), torch.from_numpy(moves)).numpy()
        worst = max(worst, float(np.abs(qnet.q_values(obs, moves) - want).max()))
    assert worst <= 1e-4
    back = QNetwork.from_qnet(qnet)
    for (name, a), b in zip(net.state_dict().items(), back.state_dict().values()):
        assert torch.equal(a, b), name


def test_model_files_round_trip(tmp_path):
    torch = pytest.importorskip("torch")
    from shuangkou.dmc.net import QNetwork

    net = QNetwork(12, 5, (8, 4))
    path = tmp_path / "m.safetensors"
    net.save(path, {"variant": "jj", "note": "test"})
    loaded = sk.QNet.load(str(path))
    assert loaded.metadata["variant"] == "jj" and loaded.metadata["format"] == "shuangkou-qnet/1"
    assert (loaded.obs_size, loaded.move_size, loaded.hidden) == (12, 5, [8, 4])
    again = QNetwork.load(path)
    for a, b in zip(net.state_dict().values(), again.state_dict().values()):
        assert torch.equal(a, b)
    # A safetensors reader sees a plain safetensors file (header length, JSON, data).
    raw = path.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    import json

    header = json.loads(raw[8 : 8 + n])
    assert header["l0.obs"]["dtype"] == "F32" and header["l0.obs"]["shape"] == [8, 12]


def test_damaged_and_foreign_files_are_refused(tmp_path):
    data = random_qnet(7, 3, (5,)).to_bytes()
    for n in (0, 7, 8, 20, len(data) // 2, len(data) - 1):
        with pytest.raises(ValueError, match="model"):
            sk.QNet.from_bytes(data[:n])
    path = tmp_path / "cut.safetensors"
    path.write_bytes(data[:-3])
    with pytest.raises(ValueError, match=r"cut\.safetensors.*truncated"):
        sk.QNet.load(str(path))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:  # what torch.save writes: a zip with a pickle inside
        z.writestr("archive/data.pkl", b"\x80\x04K\x01.")
    foreign = tmp_path / "model.pt"
    foreign.write_bytes(buf.getvalue())
    with pytest.raises(ValueError, match="not a model file"):
        sk.QNet.load(str(foreign))
    with pytest.raises(ValueError, match="cannot read"):
        sk.QNet.load(str(tmp_path / "missing.safetensors"))


def test_bad_tensors_and_inputs_are_named():
    good = random_qnet(7, 3, (5,)).tensors()
    with pytest.raises(ValueError, match=r"tensor 'l0.obs' has shape \(5, 6\), expected \(5, 7\)"):
        sk.QNet(7, 3, [5], {**good, "l0.obs": np.zeros((5, 6), np.float32)})
    with pytest.raises(ValueError, match="missing tensor 'out.bias'"):
        sk.QNet(7, 3, [5], {k: v for k, v in good.items() if k != "out.bias"})
    with pytest.raises(ValueError, match="unexpected tensor 'extra'"):
        sk.QNet(7, 3, [5], {**good, "extra": np.zeros(1, np.float32)})
    with pytest.raises(ValueError, match="NaN"):
        sk.QNet(7, 3, [5], {**good, "l0.bias": np.full(5, np.nan, np.float32)})
    net = sk.QNet(7, 3, [5], good)
    with pytest.raises(ValueError, match=r"obs must be float32 \[7\]"):
        net.q_values(np.zeros(6, np.float32), np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"moves must be float32 \[k, 3\]"):
        net.q_values(np.zeros(7, np.float32), np.zeros((2, 4), np.float32))
    assert net.multiply_adds(10) == 5 * 7 + 10 * (5 * 3 + 5)


class PyDmc(sk.Agent):
    """The dmc bot's rule in Python: the legal id of highest Q (ties to the first row)."""

    def __init__(self, net: sk.QNet) -> None:
        self.net = net

    def act(self, d: sk.Decisions) -> np.ndarray:
        return np.array(
            [ids[int(np.argmax(self.net.q_values(o, f)))] for o, ids, f in zip(d.obs, d.legal_ids, d.legal_features)],
            dtype=np.int64,
        )


def default_net(seed: int = 0) -> sk.QNet:
    return random_qnet(sk._core.observation_size(), sk._core.MOVE_FEATURE_SIZE, (32, 16), seed)


def test_the_dmc_bot_plays_as_its_network_says(tmp_path):
    net = default_net()
    path = tmp_path / "m.safetensors"
    path.write_bytes(net.to_bytes())
    in_cpp = sk.selfplay("baibian", games=60, agents=[f"dmc:{path}", "greedy"], seed=4, threads=2)
    in_python = sk.selfplay("baibian", games=60, agents=[PyDmc(net), "greedy"], seed=4, batch=16)
    for k in ("scores", "places", "actions", "plays", "overtakes"):
        np.testing.assert_array_equal(in_cpp.arrays[k], in_python.arrays[k])
    assert in_cpp["agents"][0] == f"dmc:{path}"
    r = sk.arena("jj", agents=[f"dmc:{path}?variant=any", "random"], deals=20, seed=1)  # (trained for baibian)
    assert r["pairs"][0]["a"] == f"dmc:{path}?variant=any"


def test_the_built_in_dmc_agent_plays_the_shipped_weights():
    from pathlib import Path

    shipped = Path(sk.__file__).parent / "models" / "dmc_baibian.safetensors"
    net = sk.QNet.load(str(shipped))
    assert net.metadata["variant"] == "baibian" and shipped.stat().st_size < 5_000_000
    assert sk._core.bot_label("dmc") == "dmc"
    builtin = sk.selfplay("baibian", games=40, agents=["dmc", "heuristic"], seed=3)
    by_path = sk.selfplay("baibian", games=40, agents=[f"dmc:{shipped}", "heuristic"], seed=3)
    for k in ("scores", "places", "actions"):
        np.testing.assert_array_equal(builtin.arrays[k], by_path.arrays[k])
    assert builtin["agents"][0] == "dmc"
    assert sk.arena("baibian", agents=["dmc", "random"], deals=10, seed=1)["pairs"][0]["a"] == "dmc"


def test_the_model_card_and_the_reports_describe_the_shipped_files():
    import hashlib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    assert {"baibian", "qianbian", "jj"} <= set(sk.builtin_models())
    card = (root / "docs" / "dmc_model.md").read_text(encoding="utf-8")
    for preset, path in sk.builtin_models().items():
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        assert digest in card, preset
        assert digest in (root / "experiments" / f"dmc_{preset}.md").read_text(encoding="utf-8"), preset


def test_a_missing_built_in_model_is_named(tmp_path):
    shipped = sk.builtin_models()
    try:
        sk.set_builtin_models({"baibian": str(tmp_path / "gone.safetensors")})
        with pytest.raises(ValueError, match="gone.safetensors"):
            sk.selfplay("baibian", games=2, agents="dmc")
        sk.set_builtin_models({})
        with pytest.raises(ValueError, match="no built-in model"):
            sk.selfplay("baibian", games=2, agents="dmc")
        for bad, why in (({"nosuch": "m"}, "nosuch"), ({"jj": "m", "JJ": "m"}, "given twice"), (["jj"], "a dict")):
            with pytest.raises(ValueError, match=why):
                sk.set_builtin_models(bad)
        assert sk.builtin_models() == {}  # (refused: nothing changed)
    finally:
        sk.set_builtin_models(shipped)
    assert sk.builtin_models() == shipped
    assert sk.selfplay("baibian", games=2, agents="dmc")["games"] == 2


def test_the_built_in_dmc_plays_each_rule_set_s_own_network_and_names_those_without():
    from pathlib import Path

    models = Path(sk.__file__).parent / "models"
    shipped = sk.builtin_models()
    assert shipped == {p.stem[len("dmc_") :]: str(p) for p in sorted(models.glob("dmc_*.safetensors"))}
    assert shipped and set(shipped) <= set(sk.preset_names())
    for preset, path in shipped.items():
        assert sk.QNet.load(path).metadata["variant"] == preset
        builtin = sk.selfplay(preset, games=20, agents=["dmc", "heuristic"], seed=3)
        by_path = sk.selfplay(preset, games=20, agents=[f"dmc:{path}", "heuristic"], seed=3)
        np.testing.assert_array_equal(builtin.arrays["actions"], by_path.arrays["actions"])
        assert sk.Bot("dmc+search").check_variant(preset) is None
    assert set(shipped) == set(sk.preset_names())  # every preset ships a network
    preset = "qianbian_collect"
    with without_network(preset) as kept:  # where none is shipped, the bot names those that are
        for agent in ("dmc", "dmc+search"):
            message = f"no network is shipped for the rule set '{preset}'; the built-in dmc plays {', '.join(kept)}"
            with pytest.raises(ValueError, match=message):
                sk.Bot(agent).check_variant(preset)
            with pytest.raises(ValueError, match=message):
                sk.selfplay(preset, games=2, agents=agent)
            with pytest.raises(ValueError, match=message):
                sk.arena(preset, agents=[agent, "random"], deals=2)
            with pytest.raises(ValueError, match=message):
                sk.Bot(agent).step(sk.Game(preset, seed=1))
    with pytest.raises(ValueError, match="it is none of the presets"):
        sk.Bot("dmc").check_variant(sk.Rules("baibian", max_bomb=10))


def test_dmc_model_problems_are_named(tmp_path):
    with pytest.raises(ValueError, match="needs its PATH"):
        sk.selfplay("classic", games=2, agents="dmc:")
    with pytest.raises(ValueError, match="cannot read"):
        sk.selfplay("classic", games=2, agents=f"dmc:{tmp_path / 'nope.safetensors'}")
    small = tmp_path / "small.safetensors"
    small.write_bytes(random_qnet(7, 3, (5,)).to_bytes())
    with pytest.raises(ValueError, match="observations of 7 floats"):
        sk.selfplay("classic", games=2, agents=f"dmc:{small}")


# ---------------------------------------------------------------------------- the reader's strictness (issue 17)


def with_header(data: bytes, header: str) -> bytes:
    """A model file's bytes with its JSON header replaced by `header` (padded as the writer pads)."""
    n = int.from_bytes(data[:8], "little")
    text = header.encode("utf-8")
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + data[8 + n :]


def header_of(data: bytes) -> str:
    n = int.from_bytes(data[:8], "little")
    return data[8 : 8 + n].decode("utf-8").rstrip(" ")


def with_metadata(data: bytes, **changes: str) -> bytes:
    header = json.loads(header_of(data))
    header["__metadata__"].update(changes)
    return with_header(data, json.dumps(header))


def load_in_subprocess(path: str, timeout: float = 60) -> dict:
    """QNet.load(path) in a fresh interpreter (a hang or a crash fails only the caller):
    {"type": exception type or None, "message": ..., "seconds": ...}."""
    from snippet_util import run_snippet

    p = run_snippet(
        f"""
        import json, time
        import shuangkou as sk
        start = time.monotonic()
        try:
            sk.QNet.load({path!r})
            out = {{"type": None, "message": ""}}
        except BaseException as e:
            out = {{"type": type(e).__name__, "message": str(e)}}
        out["seconds"] = time.monotonic() - start
        print(json.dumps(out))
        """,
        timeout=timeout,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory", "sparse-3GB"])
def test_a_path_that_is_not_a_model_file_is_refused_at_once_without_reading_it(tmp_path, kind):
    """A FIFO with no writer hung the reader; a link to /dev/zero or a 3 GB sparse file was
    read whole before its header was looked at (std::bad_alloc after about 1 GB)."""
    path = tmp_path / f"{kind}.safetensors"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    else:
        with open(path, "wb") as f:
            f.truncate(3 << 30)
    r = load_in_subprocess(str(path))
    assert r["type"] == "ValueError" and str(path) in r["message"], r
    want = {"fifo": "FIFO", "dev-zero": "device", "directory": "directory", "sparse-3GB": "not a model file"}[kind]
    assert want in r["message"] and r["seconds"] < 5, r


def test_model_paths_are_str_or_path_like_and_never_cut_at_a_nul(tmp_path):
    net = random_qnet(7, 3, (5,))
    path = tmp_path / "m.safetensors"
    path.write_bytes(net.to_bytes())
    assert sk.QNet.load(path).hidden == [5]  # os.PathLike
    assert sk.QNet.load(str(path)).hidden == [5]
    with pytest.raises(ValueError, match="NUL"):  # it loaded m.safetensors
        sk.QNet.load(str(path) + "\0.txt")
    with pytest.raises(ValueError, match=r"path: .*lone surrogate"):
        sk.QNet.load("\ud800.safetensors")
    with pytest.raises(ValueError, match="path must be a path"):
        sk.QNet.load(3)
    with pytest.raises(ValueError, match="NUL"):
        sk._core.set_builtin_models({"jj": "a\0b"})


@pytest.mark.parametrize("text", ["5,", ",5", "+5", " 5", "5 ", "05", "", "5,,4", "0x5", "5.0", "65537", "٥"])
def test_the_sizes_in_the_metadata_are_plain_integers(text):
    data = random_qnet(7, 3, (5,)).to_bytes()
    with pytest.raises(ValueError, match="metadata 'hidden' must be an integer 1..65536 written in plain digits"):
        sk.QNet.from_bytes(with_metadata(data, hidden=text))
    for key in ("obs_size", "move_size"):
        with pytest.raises(ValueError, match=f"metadata '{key}' must be an integer"):
            sk.QNet.from_bytes(with_metadata(data, **{key: text}))


def test_a_key_given_twice_anywhere_in_the_header_is_refused():
    data = random_qnet(7, 3, (5,)).to_bytes()
    header = header_of(data)
    assert sk.QNet.from_bytes(with_header(data, header)).hidden == [5]  # the rewrite itself is fine
    twice = {
        "metadata": header.replace('"__metadata__":{', '"__metadata__":{"variant":"jj","variant":"classic",'),
        "tensor": header.replace('"out.bias":', '"out.bias":{"dtype":"F32"},"out.bias":', 1),
        "field": header.replace('"dtype":"F32"', '"dtype":"F16","dtype":"F32"', 1),
        "format": header.replace('"__metadata__":{', '"__metadata__":{"format":"other",'),
    }
    for what, text in twice.items():
        assert text != header, what
        with pytest.raises(ValueError, match="gives the key '.*' twice"):
            sk.QNet.from_bytes(with_header(data, text))


def test_header_nesting_trailing_data_and_offsets_are_checked():
    data = random_qnet(7, 3, (5,)).to_bytes()
    header = header_of(data)
    deep = header.replace('"__metadata__":{', '"__metadata__":{"x":' + "[" * 5000 + "]" * 5000 + ",")
    with pytest.raises(ValueError, match="nested too deeply"):
        sk.QNet.from_bytes(with_header(data, deep))
    with pytest.raises(ValueError, match="trailing bytes"):
        sk.QNet.from_bytes(data + b"\0\0\0\0")
    with pytest.raises(ValueError, match=r"model bytes: truncated: \d+ data bytes, its header describes"):
        sk.QNet.from_bytes(data[:-4])


def test_what_can_be_built_can_be_written_and_read_back_and_no_more(tmp_path):
    """A 65-layer network could be built and written, but not read back: the constructor
    now refuses what the reader refuses, with the same limits."""
    assert (sk.QNet.MAX_HIDDEN_LAYERS, sk.QNet.MAX_WIDTH, sk.QNet.MAX_HEADER_BYTES) == (64, 65536, 1 << 24)

    def zeros(obs: int, move: int, hidden: list[int]) -> dict[str, np.ndarray]:
        return {n: np.full(s, 0.5, np.float32) for n, s in sk.QNet.tensor_shapes(obs, move, hidden)}

    deepest = [3] * sk.QNet.MAX_HIDDEN_LAYERS
    net = sk.QNet(7, 3, deepest, zeros(7, 3, deepest))
    path = tmp_path / "deep.safetensors"
    path.write_bytes(net.to_bytes())
    assert sk.QNet.load(path).hidden == deepest and sk.QNet.from_bytes(net.to_bytes()).hidden == deepest
    with pytest.raises(ValueError, match="1..64 hidden layers, got 65"):
        sk.QNet(7, 3, [3] * 65, zeros(7, 3, deepest) | {"l64.weight": np.zeros((3, 3), np.float32)})
    with pytest.raises(ValueError, match="1..64 hidden layers"):
        sk.QNet.tensor_shapes(7, 3, [3] * 65)
    data = net.to_bytes()
    with pytest.raises(ValueError, match="metadata 'hidden' must list 1..64 widths"):
        sk.QNet.from_bytes(with_metadata(data, hidden=",".join(["3"] * 65)))

    widest = sk.QNet(sk.QNet.MAX_WIDTH, 1, [1], zeros(sk.QNet.MAX_WIDTH, 1, [1]))
    assert sk.QNet.from_bytes(widest.to_bytes()).obs_size == sk.QNet.MAX_WIDTH
    with pytest.raises(ValueError, match="1..65536"):
        sk.QNet(sk.QNet.MAX_WIDTH + 1, 1, [1], {})
    with pytest.raises(ValueError, match="hidden layer widths must be 1..65536"):
        sk.QNet(7, 3, [sk.QNet.MAX_WIDTH + 1], {})

    small = zeros(7, 3, [5])
    room = sk.QNet.MAX_HEADER_BYTES - len(header_of(sk.QNet(7, 3, [5], small, {"note": ""}).to_bytes()))
    fits = sk.QNet(7, 3, [5], small, {"note": "x" * room})
    assert len(header_of(fits.to_bytes())) == sk.QNet.MAX_HEADER_BYTES
    assert sk.QNet.from_bytes(fits.to_bytes()).metadata["note"] == "x" * room
    with pytest.raises(ValueError, match="metadata is too large"):
        sk.QNet(7, 3, [5], small, {"note": "x" * (room + 1)})


def test_names_and_metadata_that_are_not_text_are_value_errors():
    good = random_qnet(7, 3, (5,)).tensors()
    with pytest.raises(ValueError, match=r"tensor names must be str, got 3 \(int\)"):
        sk.QNet(7, 3, [5], {**good, 3: np.zeros(1, np.float32)})
    with pytest.raises(ValueError, match="tensor names: not valid text"):
        sk.QNet(7, 3, [5], {**good, "l\ud800": np.zeros(1, np.float32)})
    with pytest.raises(ValueError, match="metadata 'note' must be str"):
        sk.QNet(7, 3, [5], good, {"note": 1})
    with pytest.raises(ValueError, match="metadata 'note': not valid text"):
        sk.QNet(7, 3, [5], good, {"note": "\udcff"})


# ---------------------------------------------------------------------------- arguments (issue 17, red-team pass)


def test_qnet_arguments_are_checked():
    """multiply_adds(-1) returned a number, tensor_shapes(-1, ...) shapes with -1, bools
    passed as widths, bytearray and NaN or complex inputs were taken silently."""
    obs, move = sk._core.observation_size(), sk._core.MOVE_FEATURE_SIZE
    shapes = sk.QNet.tensor_shapes(obs, move, [8])
    rng = np.random.default_rng(0)
    net = sk.QNet(obs, move, [8], {n: rng.normal(0, 0.3, s).astype(np.float32) for n, s in shapes})
    for bad in (-1, True):
        with pytest.raises(ValueError, match="moves"):
            net.multiply_adds(bad)
    with pytest.raises(ValueError, match="obs_size"):
        sk.QNet.tensor_shapes(-1, move, [8])
    with pytest.raises(ValueError, match="hidden width"):
        sk.QNet.tensor_shapes(obs, move, [True])
    with pytest.raises(ValueError, match="hidden"):
        sk.QNet.tensor_shapes(obs, move, "8")
    with pytest.raises(ValueError, match="hidden width"):
        sk.QNet(obs, move, [True], {})
    assert sk.QNet.from_bytes(bytearray(net.to_bytes())).hidden == [8]
    assert sk.QNet.from_bytes(memoryview(net.to_bytes())).hidden == [8]
    with pytest.raises(ValueError, match="data must be bytes"):
        sk.QNet.from_bytes("not bytes")
    x, m = np.zeros(obs, np.float32), np.zeros((3, move), np.float32)
    assert net.q_values(x, m).shape == (3,)
    for bad_x in (np.full(obs, np.nan, np.float32), np.full(obs, np.inf), np.zeros(obs, np.complex64)):
        with pytest.raises(ValueError, match="obs"):
            net.q_values(bad_x, m)
    with pytest.raises(ValueError, match="moves"):
        net.q_values(x, m.astype(object))


def _network_file(tmp_path, metadata: dict[str, str]) -> str:
    """The shipped baibian network's weights (values on the win scale) with this metadata."""
    shipped = sk.QNet.load(sk.builtin_models()["baibian"])
    path = tmp_path / f"net_{len(list(tmp_path.iterdir()))}.safetensors"
    net = sk.QNet(shipped.obs_size, shipped.move_size, list(shipped.hidden), shipped.tensors(), metadata)
    path.write_bytes(net.to_bytes())
    return str(path)


def test_a_network_file_plays_only_the_rule_sets_it_was_trained_for_unless_asked(tmp_path):
    baibian = _network_file(tmp_path, {"variant": "baibian"})
    with pytest.raises(ValueError, match=r"trained for baibian, not for classic; .*\?variant=any"):
        sk.arena("classic", agents=[f"dmc:{baibian}", "greedy"], deals=2)
    r = sk.arena("classic", agents=[f"dmc:{baibian}?variant=any", "greedy"], deals=2)
    assert r["agents"][0] == f"dmc:{baibian}?variant=any"
    sk.arena("baibian", agents=[f"dmc:{baibian}", "greedy"], deals=2)  # its own rule set
    both = _network_file(tmp_path, {"variant": "baibian,jj"})
    sk.arena("jj", agents=[f"dmc:{both}", "greedy"], deals=2)
    with pytest.raises(ValueError, match="trained for baibian, jj, not for qianbian"):
        sk.selfplay("qianbian", games=2, agents=f"dmc:{both}")
    unknown = _network_file(tmp_path, {})  # no variant in its metadata: any rule set
    sk.selfplay("classic", games=2, agents=f"dmc:{unknown}")
    with pytest.raises(ValueError, match="trained for baibian"):
        sk.arena("classic", agents=[f"dmc:{baibian}+search:4", "greedy"], deals=2)


def test_a_network_s_search_gap_sets_where_its_guided_search_searches(tmp_path):
    never = _network_file(tmp_path, {"variant": "baibian", "search_gap": "1e-9"})
    always = _network_file(tmp_path, {"variant": "baibian", "search_gap": "1"})
    searched = {}
    for name, path in (("never", never), ("always", always)):
        bot = sk.Bot(f"dmc:{path}+search:4")
        sk.selfplay("baibian", games=3, agents=bot, seed=1)
        c = dict(bot.counters())
        searched[name] = c["searched"] / c["decisions"]
    assert searched["never"] < 0.05 < 0.5 < searched["always"]


def _positions(deals: int = 6) -> list[sk.Game]:
    """Positions with two or more legal actions, from heuristic self-play of baibian."""
    out, heuristic = [], sk.Bot("heuristic")
    for seed in range(deals):
        g = sk.Game("baibian", seed=seed)
        while not g.is_over():
            if len(g.legal_action_ids()) > 1:
                out.append(g.clone())
            g.apply_action(heuristic.step(g))
    return out


def test_a_network_s_heuristic_prior_is_added_to_the_heuristic_s_choice_alone(tmp_path):
    alone = sk.Bot(f"dmc:{_network_file(tmp_path, {'variant': 'baibian'})}")
    prior = sk.Bot(f"dmc:{_network_file(tmp_path, {'variant': 'baibian', 'heuristic_prior': '0.25'})}")
    heuristic, changed = sk.Bot("heuristic"), 0
    for g in _positions():
        chosen, a, b = heuristic.step(g), alone.values(g), prior.values(g)
        assert b[chosen] == pytest.approx(a[chosen] + 0.25)
        assert all(b[x] == a[x] for x in a if x != chosen)
        assert b[prior.step(g)] == max(b.values())  # the bot plays the best of its values, prior included
        changed += alone.step(g) != prior.step(g)
    assert changed > 10  # the prior changes some of the network's choices


def test_a_prior_on_a_network_that_rates_every_move_alike_plays_the_heuristic():
    shapes = {"l0.obs": (4, 445), "l0.move": (4, 44), "l0.bias": (4,), "out.weight": (1, 4), "out.bias": (1,)}
    zeros = {k: np.zeros(v, np.float32) for k, v in shapes.items()}
    flat, with_prior = (sk.Bot.dmc(sk.QNet(445, 44, [4], zeros, m)) for m in ({}, {"heuristic_prior": "1e-6"}))
    heuristic, positions = sk.Bot("heuristic"), _positions(2)
    assert all(with_prior.step(g) == heuristic.step(g) for g in positions)
    assert sum(flat.step(g) != heuristic.step(g) for g in positions) > 10  # (without it: the first legal move)


@pytest.mark.parametrize("value", ["1.5", "-0.1", "nan", "0.1x", ""])
def test_a_bad_heuristic_prior_is_refused_naming_it(tmp_path, value):
    path = _network_file(tmp_path, {"variant": "baibian", "heuristic_prior": value})
    with pytest.raises(ValueError, match=r"heuristic_prior must be a number in \[0, 1\], got '" + re.escape(value)):
        sk.Bot(f"dmc:{path}")
