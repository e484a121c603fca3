"""Test helpers shipped with gate for your own tests.

- :mod:`gate.testing.llm`: :class:`ScriptedLLM`, a deterministic scripted model for
  text-mode ``AgentSession`` runs (no network), with :func:`say` and :func:`call` steps.
- :mod:`gate.testing.contextdb`: :class:`CloudDouble`, a contract double of the hosted
  ContextDB API (an ASGI app) with switchable faults.
- :mod:`gate.testing.geniffy`: :class:`GeniffyDouble`, a contract double of Geniffy's API.

The doubles import their web dependencies only when used.
"""

from gate.testing.llm import ScriptedLLM, ScriptExhausted, Step, call, say

__all__ = ["ScriptExhausted", "ScriptedLLM", "Step", "call", "say"]
