"""The Q network in PyTorch, tensor for tensor the C++ `shuangkou.QNet`.

    from shuangkou.dmc.net import QNetwork
    net = QNetwork(obs_size=445, move_size=44, hidden=(256, 128))
    q = net(obs, moves)                  # obs [B, 445], moves [B, 44] -> q [B]
    net.save("model.safetensors")        # the model file the C++ actors read
    net = QNetwork.load("model.safetensors")

Model files are written and read by the C++ core (`shuangkou.QNet.to_bytes`,
`shuangkou.QNet.load`): safetensors, data only, so loading never executes code
(docs/model_format.md).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from .. import _core
from ..util.outputs import output_file

# The model format's limits (docs/model_format.md, cpp/src/model/qnet.cc).
MAX_HIDDEN_LAYERS = 64
MAX_WIDTH = 1 << 16


class QNetwork(nn.Module):
    """An MLP over [observation ; move features] -> Q, ReLU after each hidden layer.

    The first layer is two Linear maps, `l0_obs` (with the bias) and `l0_move`
    (without), summed: the C++ side computes the observation part once per decision.
    """

    def __init__(self, obs_size: int, move_size: int, hidden: Sequence[int] = (256, 128)) -> None:
        super().__init__()
        if not 1 <= len(hidden) <= MAX_HIDDEN_LAYERS or not all(1 <= int(h) <= MAX_WIDTH for h in hidden):
            raise ValueError(
                f"a Q network has 1..{MAX_HIDDEN_LAYERS} hidden layers of 1..{MAX_WIDTH} units, got {len(hidden)} layers"
                + (f" {list(hidden)}" if len(hidden) <= 8 else "")
            )
        self.obs_size, self.move_size, self.hidden = int(obs_size), int(move_size), tuple(int(h) for h in hidden)
        self.l0_obs = nn.Linear(self.obs_size, self.hidden[0])
        self.l0_move = nn.Linear(self.move_size, self.hidden[0], bias=False)
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(self.hidden, self.hidden[1:]))
        self.out = nn.Linear(self.hidden[-1], 1)

    def forward(self, obs: torch.Tensor, moves: torch.Tensor) -> torch.Tensor:
        """Q of each (obs, move) row: obs [B, obs_size], moves [B, move_size] -> [B]."""
        x = torch.relu(self.l0_obs(obs) + self.l0_move(moves))
        for layer in self.layers:
            x = torch.relu(layer(x))
        return self.out(x).squeeze(-1)

    def tensors(self) -> dict[str, np.ndarray]:
        """The named float32 arrays of the C++ layout (QNet.tensor_shapes)."""
        t = {
            "l0.obs": self.l0_obs.weight,
            "l0.move": self.l0_move.weight,
            "l0.bias": self.l0_obs.bias,
            "out.weight": self.out.weight,
            "out.bias": self.out.bias,
        }
        for i, layer in enumerate(self.layers, start=1):
            t[f"l{i}.weight"], t[f"l{i}.bias"] = layer.weight, layer.bias
        return {k: v.detach().to("cpu", torch.float32).numpy().copy() for k, v in t.items()}

    def to_qnet(self, metadata: dict[str, str] | None = None) -> _core.QNet:
        """The same network as a C++ `shuangkou.QNet` (for inference and model files)."""
        return _core.QNet(self.obs_size, self.move_size, list(self.hidden), self.tensors(), metadata or {})

    @classmethod
    def from_qnet(cls, qnet: _core.QNet) -> QNetwork:
        net = cls(qnet.obs_size, qnet.move_size, qnet.hidden)
        t = {k: torch.from_numpy(v) for k, v in qnet.tensors().items()}
        with torch.no_grad():
            net.l0_obs.weight.copy_(t["l0.obs"])
            net.l0_obs.bias.copy_(t["l0.bias"])
            net.l0_move.weight.copy_(t["l0.move"])
            for i, layer in enumerate(net.layers, start=1):
                layer.weight.copy_(t[f"l{i}.weight"])
                layer.bias.copy_(t[f"l{i}.bias"])
            net.out.weight.copy_(t["out.weight"])
            net.out.bias.copy_(t["out.bias"])
        return net

    def save(self, path: str | os.PathLike, metadata: dict[str, str] | None = None) -> _core.QNet:
        """Writes the model file (safetensors; docs/model_format.md), whole or not at all;
        returns the network written, as the C++ core holds it."""
        qnet = self.to_qnet(metadata)
        data = qnet.to_bytes()
        with output_file(path, "wb") as f:
            f.write(data)
        return qnet

    @classmethod
    def load(cls, path: str | os.PathLike) -> QNetwork:
        """Reads a model file through the C++ reader (data only, never code); ValueError
        naming the problem for a truncated, foreign or wrong-shaped file."""
        return cls.from_qnet(_core.QNet.load(os.fspath(path)))
