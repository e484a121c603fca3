"""Caller memory on ContextDB Cloud, through the official client."""

from __future__ import annotations

from contextdb_cloud_client import ApiError, Memory

from gate.backends.base import ForgetResult
from gate.cloud.backend import CloudEngine
from gate.errors import ServiceError
from gate.memory.base import Recall, Recalled
from gate.memory.local import SAID_CONFIDENCE

_SNAPSHOT_QUESTION = "What is known about this caller: preferences, plans, open requests, past calls?"


class CloudMemory:
    """Memory in the hosted service: the caller's words as ``user_stated`` below the trust bar,
    the agent's as ``agent_inferred`` and never action-relevant."""

    name = "cloud"

    def __init__(self, engine: CloudEngine) -> None:
        self.engine = engine
        self.client = engine.client

    async def recall(self, caller_id: str, question: str, *, top_k: int = 5) -> Recall:
        try:
            found = await self.client.recall(caller_id, question[:2000] or "caller", top_k=top_k)
        except ApiError as exc:
            raise ServiceError(exc.status, exc.code, str(exc)) from exc
        return Recall([_recalled(m) for m in found.memories], context=found.context)

    async def snapshot(self, caller_id: str, *, limit: int = 12) -> Recall:
        return await self.recall(caller_id, _SNAPSHOT_QUESTION, top_k=limit)

    async def save_exchange(self, caller_id: str, caller_said: str, agent_said: str) -> None:
        if caller_said.strip():
            await self.engine.remember(
                caller_id, caller_said, source="user_stated", confidence=SAID_CONFIDENCE
            )
        if agent_said.strip():
            await self.engine.remember(
                caller_id,
                agent_said,
                source="agent_inferred",
                confidence=SAID_CONFIDENCE,
                action_relevant=False,
            )

    async def remember(self, caller_id: str, content: str, *, source: str, confidence: float) -> str:
        return await self.engine.remember(caller_id, content, source=source, confidence=confidence)

    async def forget(self, caller_id: str) -> ForgetResult:
        return await self.engine.forget(caller_id)

    async def aclose(self) -> None:
        """The engine belongs to the gate; it closes it."""


def _recalled(m: Memory) -> Recalled:
    said_by = {"user_stated": "caller", "agent_inferred": "agent"}.get(m.epistemic_source, "other")
    return Recalled(m.id, m.content, said_by, None, m.injection_suspect)
