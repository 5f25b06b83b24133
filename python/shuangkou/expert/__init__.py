"""Expert iteration: the labeller's configs and shards (label_config, labels) and the
distillation of a Q network on them (distill). docs/labels.md gives the shard format."""
