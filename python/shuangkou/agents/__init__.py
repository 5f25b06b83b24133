"""Agents: one interface for built-in bots, Python callables and `Agent` objects.

Wherever an agent is taken (`selfplay`, `arena`, the Gymnasium env's `opponents`,
the CLI's `--agents`) it may be

- a built-in bot, played inside C++: a `Bot` object (``Bot("search:400")``,
  ``Bot.dmc(qnet)`` for a network in memory) or its name: "random", "simple", "greedy",
  "heuristic", "search" or "search:ROLLOUTS" (see docs/heuristic.md), or
  "dmc:MODEL" for a trained Q network's model file (docs/model_format.md), "dmc" for the
  network the package ships (docs/dmc_model.md);
- a callable ``agent(obs, mask, seats) -> actions`` on numpy arrays with the batch
  first: ``obs`` float32 ``[B, obs_size]``, ``mask`` int8 ``[B, num_actions]`` (1 where
  legal), ``seats`` int64 ``[B]``; it returns ``B`` action ids (int64 ``[B]``);
- an `Agent` object, for agents that need more than that: its ``act(decisions)`` gets a
  `Decisions` with the legal action ids and move-feature rows of every decision too;
- in the CLI (and as a string anywhere) ``module:callable``, imported; a class found
  there is instantiated without arguments.

Every call holds the decisions of one step of a batch of deals, all seats that the
agent plays together.

`resolve_agent` turns each form into one object, once: a name into a `Bot` (a model
file is read there, and only there), "module:callable" into what it names, labelled by
the text given. Runners then pass those objects on.
"""

from .._core import Bot
from .acting import agent_step, checked_actions, decide, reset_agent
from .protocol import Agent, AgentActionError, AgentError, AgentLike, AgentRulesError, Decisions, Views
from .resolve import (
    MAX_LABEL,
    agent_forms,
    agent_label,
    bot_forms,
    is_bot,
    names_a_bot,
    resolve_agent,
    seat_labels,
    unique_labels,
)

__all__ = [
    "Agent",
    "AgentActionError",
    "AgentError",
    "AgentLike",
    "AgentRulesError",
    "Bot",
    "Decisions",
    "MAX_LABEL",
    "Views",
    "agent_forms",
    "agent_label",
    "agent_step",
    "bot_forms",
    "checked_actions",
    "decide",
    "is_bot",
    "names_a_bot",
    "reset_agent",
    "resolve_agent",
    "seat_labels",
    "unique_labels",
]
