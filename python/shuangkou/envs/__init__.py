"""Environments for learning agents: PettingZoo AEC (`shuangkou.env`), Gymnasium
single-agent (`shuangkou/Shuangkou-v0`), and the action catalogue helpers."""
