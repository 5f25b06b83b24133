"""Deep Monte-Carlo agents: the PyTorch side of the Q network (needs torch).

The network itself, its model files and its inference live in C++
(`shuangkou.QNet`, evaluated with Eigen); `shuangkou.dmc.net.QNetwork` is the same
network in PyTorch, for the learner. Install torch with ``pip install torch==2.13.0``
(a CPU build) or a CUDA build.
"""
