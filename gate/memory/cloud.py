"""Caller memory on ContextDB Cloud, through the official client.

What is kept is decided as on the embedded engine (:mod:`gate.memory.facts`):
the caller's facts as ``user_stated`` below the trust bar, the agent's words
(filler aside) as ``agent_inferred`` and never action-relevant; questions,
greetings and filler are not sent at all.

Two limits of the hosted contract are kept here: ``remember`` content is
1-4,000 characters, so longer content is split at sentence (or word)
boundaries into several memories and nothing is lost; and every
``Idempotency-Key`` matches ``^[A-Za-z0-9._:-]{8,128}$``, so keys are derived
from a digest of the caller id, never the raw id (which may hold ``@`` or
``+``).

Errors: the service's ``ApiError`` becomes :class:`~gate.errors.ServiceError`
(with the HTTP status and code); connection errors and timeouts pass
through as httpx errors.
"""

from __future__ import annotations

import hashlib
import re
import uuid

from contextdb_cloud_client import ApiError, Memory

from gate.backends.base import ForgetResult
from gate.cloud.backend import CloudEngine
from gate.errors import ServiceError
from gate.memory.base import Recall, Recalled
from gate.memory.facts import agent_statement, caller_facts
from gate.memory.local import SAID_CONFIDENCE

MAX_CONTENT = 4000
MAX_QUERY = 2000
_SNAPSHOT_QUESTION = "What is known about this caller: preferences, plans, open requests, past calls?"
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")


class CloudMemory:
    """Memory in the hosted service, one partition per caller."""

    name = "cloud"

    def __init__(self, engine: CloudEngine) -> None:
        self.engine = engine
        self.client = engine.client

    async def recall(self, caller_id: str, question: str, *, top_k: int = 5) -> Recall:
        """What the service recalls for ``question`` (its own ranking), at most ``top_k``."""
        try:
            found = await self.client.recall(caller_id, question[:MAX_QUERY] or "caller", top_k=top_k)
        except ApiError as exc:
            raise _error(exc) from exc
        return Recall([_recalled(m) for m in found.memories], context=found.context)

    async def snapshot(self, caller_id: str, *, limit: int = 12) -> Recall:
        return await self.recall(caller_id, _SNAPSHOT_QUESTION, top_k=limit)

    async def save_exchange(self, caller_id: str, caller_said: str, agent_said: str) -> None:
        """Keep the facts in what the caller said and the agent's words (as the agent's)."""
        for statement in caller_facts(caller_said):
            await self._remember(caller_id, statement.text, source="user_stated", confidence=SAID_CONFIDENCE)
        spoken = agent_statement(agent_said)
        if spoken is not None:
            await self._remember(
                caller_id, spoken, source="agent_inferred", confidence=SAID_CONFIDENCE, action_relevant=False
            )

    async def remember(self, caller_id: str, content: str, *, source: str, confidence: float) -> str:
        """Keep one fact; content over 4,000 characters becomes several memories. Returns the first id."""
        ids = await self._remember(caller_id, content, source=source, confidence=confidence)
        return ids[0]

    async def _remember(
        self,
        caller_id: str,
        content: str,
        *,
        source: str,
        confidence: float,
        action_relevant: bool | None = None,
    ) -> list[str]:
        # One key per logical save, reused by nothing else; the part number keeps
        # the parts of one long content apart.
        base = idempotency_key("remember", caller_id)
        ids = []
        for part, chunk in enumerate(split_content(content)):
            try:
                memory = await self.client.remember(
                    caller_id,
                    chunk,
                    source=source,
                    confidence=confidence,
                    action_relevant=action_relevant,
                    idempotency_key=f"{base}.{part}",
                )
            except ApiError as exc:
                raise _error(exc) from exc
            ids.append(str(memory.id))
        return ids

    async def forget(self, caller_id: str) -> ForgetResult:
        """Erase the caller's partition; the service verifies it."""
        try:
            answer = await self.client.forget(
                caller_id,
                erase_partition=True,
                confirmation=caller_id,
                idempotency_key=idempotency_key("forget", caller_id),
            )
        except ApiError as exc:
            raise _error(exc) from exc
        return ForgetResult(deleted=answer.deleted, verified=bool(answer.verified))

    async def aclose(self) -> None:
        """The engine belongs to the gate; it closes it."""


def idempotency_key(kind: str, caller_id: str) -> str:
    """A fresh key for one request about ``caller_id``: ``kind``, a digest of the id, a nonce.

    Always matches the contract's ``^[A-Za-z0-9._:-]{8,128}$`` whatever the caller id holds.
    """
    digest = hashlib.sha256(caller_id.encode("utf-8")).hexdigest()[:24]
    return f"{kind}-{digest}-{uuid.uuid4().hex}"


def split_content(content: str, limit: int = MAX_CONTENT) -> list[str]:
    """``content`` in parts of at most ``limit`` characters, cut between sentences where possible.

    Joined with single spaces the parts give back the content (whitespace runs at
    the cuts aside, and a single word longer than ``limit`` is cut inside); nothing
    is dropped. Raises ValueError for empty content.
    """
    text = content.strip()
    if not text:
        raise ValueError("content is empty")
    if len(text) <= limit:
        return [text]
    parts: list[str] = []
    current = ""
    for piece in _pieces(text, limit):
        if current and len(current) + 1 + len(piece) > limit:
            parts.append(current)
            current = piece
        else:
            current = f"{current} {piece}" if current else piece
    if current:
        parts.append(current)
    return parts


def _pieces(text: str, limit: int) -> list[str]:
    """Sentences, then words, then fixed cuts: each at most ``limit`` characters."""
    out: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        if len(sentence) <= limit:
            out.append(sentence)
            continue
        for word in sentence.split():
            out.extend(word[i : i + limit] for i in range(0, len(word), limit))
    return out


def _recalled(m: Memory) -> Recalled:
    said_by = {"user_stated": "caller", "agent_inferred": "agent"}.get(m.epistemic_source, "other")
    return Recalled(m.id, m.content, said_by, None, m.injection_suspect)


def _error(exc: ApiError) -> ServiceError:
    return ServiceError(exc.status, exc.code, str(exc))
