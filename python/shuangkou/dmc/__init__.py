"""Deep Monte-Carlo agents: the PyTorch side of the Q network (needs torch).

The network itself, its model files and its inference live in C++
(`shuangkou.QNet`, evaluated with Eigen); `shuangkou.dmc.net.QNetwork` is the same
network in PyTorch, for the learner (`shuangkou.dmc.learner`, its settings in
`shuangkou.dmc.config`). The learner's fresh decisions come from this machine's C++
actors or from Ray actors on a cluster (`shuangkou.dmc.sources`,
`shuangkou.dmc.ray_actors`; docs/ray_training.md). Install torch with
``bash scripts/setup.sh --train`` (or ``pip install '.[train]' in the clone``: torch==2.13.0, a CPU
build), or a CUDA build of torch.
"""
