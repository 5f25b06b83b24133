"""The Q network: the C++ (Eigen) forward pass against PyTorch's and a numpy one, and
model files that round-trip and refuse to load when damaged or foreign."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
import shuangkou as sk

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
    r = sk.arena("jj", agents=[f"dmc:{path}", "random"], deals=20, seed=1)
    assert r["pairs"][0]["a"] == f"dmc:{path}"


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


def test_the_model_card_and_the_report_describe_the_shipped_file():
    import hashlib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256((Path(sk.__file__).parent / "models" / "dmc_baibian.safetensors").read_bytes()).hexdigest()
    assert digest in (root / "docs" / "dmc_model.md").read_text(encoding="utf-8")
    assert digest in (root / "experiments" / "dmc_baibian.md").read_text(encoding="utf-8")


def test_a_missing_built_in_model_is_named(tmp_path):
    from pathlib import Path

    shipped = Path(sk.__file__).parent / "models" / "dmc_baibian.safetensors"
    try:
        sk._core.set_builtin_model(str(tmp_path / "gone.safetensors"))
        with pytest.raises(ValueError, match="gone.safetensors"):
            sk.selfplay("classic", games=2, agents="dmc")
        sk._core.set_builtin_model("")
        with pytest.raises(ValueError, match="no built-in model"):
            sk.selfplay("classic", games=2, agents="dmc")
    finally:
        sk._core.set_builtin_model(str(shipped))
    assert sk.selfplay("classic", games=2, agents="dmc")["games"] == 2


def test_dmc_model_problems_are_named(tmp_path):
    with pytest.raises(ValueError, match="needs its model file"):
        sk.selfplay("classic", games=2, agents="dmc:")
    with pytest.raises(ValueError, match="cannot read"):
        sk.selfplay("classic", games=2, agents=f"dmc:{tmp_path / 'nope.safetensors'}")
    small = tmp_path / "small.safetensors"
    small.write_bytes(random_qnet(7, 3, (5,)).to_bytes())
    with pytest.raises(ValueError, match="observations of 7 floats"):
        sk.selfplay("classic", games=2, agents=f"dmc:{small}")
