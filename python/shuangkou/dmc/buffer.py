"""The replay buffer of the Deep Monte-Carlo learner: the latest decisions, drawn uniformly."""

from __future__ import annotations

import torch

__all__ = ["Replay"]


class Replay:
    """The latest `capacity` decisions (obs, move, target) on `device`; sample() draws uniformly."""

    def __init__(self, capacity: int, obs_size: int, move_size: int, device: torch.device):
        self.obs = torch.zeros((capacity, obs_size), dtype=torch.float32, device=device)
        self.move = torch.zeros((capacity, move_size), dtype=torch.float32, device=device)
        self.target = torch.zeros(capacity, dtype=torch.float32, device=device)
        self.capacity, self.size, self.next = capacity, 0, 0

    def add(self, obs: torch.Tensor, move: torch.Tensor, target: torch.Tensor) -> None:
        n = min(len(target), self.capacity)
        obs, move, target = obs[-n:], move[-n:], target[-n:]
        idx = (torch.arange(n, device=self.obs.device) + self.next) % self.capacity
        self.obs[idx], self.move[idx], self.target[idx] = obs, move, target
        self.next = (self.next + n) % self.capacity
        self.size = min(self.capacity, self.size + n)

    def sample(self, n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        idx = torch.randint(0, self.size, (n,), generator=generator).to(self.obs.device)
        return self.obs[idx], self.move[idx], self.target[idx]
