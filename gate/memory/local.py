"""Caller memory on the embedded engine (the same store the gate takes its evidence from)."""

from __future__ import annotations

import warnings

import contextdb
from contextdb.core.models import MemoryItem, MemoryType

from gate.backends.base import ForgetResult
from gate.backends.local import LocalEngine
from gate.memory.base import Recall, Recalled

# A caller's live words are kept below the engine's trust bar (0.7): a wish is
# something to confirm, never an actionable fact by itself.
SAID_CONFIDENCE = 0.5


class LocalMemory:
    """Memory in ``GATE_HOME``: the caller's words as facts they stated, the agent's as its own.

    The agent's side is kept as experiential memory, so it is recalled for
    context but never lands in a fact slot (it cannot supersede what the caller
    said, nor be evidence for an action).
    """

    name = "local"

    def __init__(self, engine: LocalEngine) -> None:
        self.engine = engine
        self.db = engine.db

    async def recall(self, caller_id: str, question: str, *, top_k: int = 5) -> Recall:
        items = await self.db.search(question, top_k=top_k, as_of=contextdb.utc_now(), user_id=caller_id)
        return Recall([_recalled(m) for m in items if m.user_id == caller_id])

    async def snapshot(self, caller_id: str, *, limit: int = 12) -> Recall:
        now = contextdb.utc_now()
        facts = await self.db.factual.list_facts(limit=limit * 4, user_id=caller_id)
        current = [m for m in facts if m.user_id == caller_id and m.is_valid_at(now)]
        current.sort(key=lambda m: m.created_at, reverse=True)
        return Recall([_recalled(m) for m in current[:limit]])

    async def save_exchange(self, caller_id: str, caller_said: str, agent_said: str) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            if caller_said.strip():
                # Action-relevant, so a yes to the action it asked for can confirm it;
                # below the trust bar, so it never acts by itself.
                await self.db.factual.add(
                    caller_said,
                    source="user_stated",
                    confidence=SAID_CONFIDENCE,
                    action_relevant=True,
                    user_id=caller_id,
                )
            if agent_said.strip():
                await self.db.add(
                    agent_said,
                    memory_type=MemoryType.EXPERIENTIAL,
                    epistemic_source="agent_inferred",
                    confidence=SAID_CONFIDENCE,
                    user_id=caller_id,
                )

    async def remember(self, caller_id: str, content: str, *, source: str, confidence: float) -> str:
        return await self.engine.remember(caller_id, content, source=source, confidence=confidence)

    async def forget(self, caller_id: str) -> ForgetResult:
        return await self.engine.forget(caller_id)

    async def aclose(self) -> None:
        """The engine belongs to the gate; it closes it."""


def _recalled(m: MemoryItem) -> Recalled:
    if m.memory_type == MemoryType.EXPERIENTIAL or m.epistemic_source == "agent_inferred":
        said_by = "agent"
    elif m.epistemic_source == "user_stated":
        said_by = "caller"
    else:
        said_by = "other"
    when = m.created_at.date().isoformat() if m.created_at else None
    return Recalled(m.id, m.content, said_by, when, bool(m.injection_suspect))
