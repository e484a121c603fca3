"""Caller memory on Geniffy: one space per caller, on the official ``geniffy`` SDK.

The per-turn read is ``search`` (fast, no model in the loop); the start of a
session reads ``briefing`` (also written without a model). Exchanges are
added as messages with their roles, so Geniffy keeps who said what. The SDK
retries POSTs with waits of up to a minute: gate's deadlines bound every
call. Close only the root client: space clients share its connection pool.

What is sent is decided as on the other stores (:mod:`gate.memory.facts`): the
caller's facts as the user's turns, the agent's words (filler aside) as the
assistant's; questions, greetings and filler are not sent.
"""

from __future__ import annotations

from typing import Any

from geniffy import AsyncGeniffy, GeniffyError

from gate.backends.base import ForgetResult
from gate.errors import ConfigError, ServiceError
from gate.memory.base import Recall, Recalled
from gate.memory.facts import agent_statement, caller_facts


class GeniffyMemory:
    """Raises :class:`~gate.errors.ServiceError` for Geniffy's errors (with the HTTP status)."""

    name = "geniffy"

    def __init__(self, client: AsyncGeniffy, *, space_prefix: str = "caller-") -> None:
        self.root = client
        self.prefix = space_prefix

    @classmethod
    def from_env(cls, **kwargs: Any) -> GeniffyMemory:
        """From ``GENIFFY_API_KEY`` (and ``GENIFFY_BASE_URL``); a missing key is a :class:`ConfigError`."""
        try:
            return cls(AsyncGeniffy(timeout=10.0), **kwargs)
        except GeniffyError as exc:
            raise ConfigError(f"GENIFFY_API_KEY: {exc}") from exc

    def _space(self, caller_id: str) -> AsyncGeniffy:
        return self.root.space(self.prefix + caller_id)

    async def recall(self, caller_id: str, question: str, *, top_k: int = 5) -> Recall:
        try:
            found = await self._space(caller_id).search(question or "caller", limit=top_k)
        except (GeniffyError, KeyError) as exc:
            raise _error(exc) from exc
        return Recall([Recalled(str(m.id), m.text, _said_by(m.about), m.said_at) for m in found])

    async def snapshot(self, caller_id: str, *, limit: int = 12) -> Recall:
        try:
            text = await self._space(caller_id).briefing(cue="", budget_chars=2000)
        except (GeniffyError, KeyError) as exc:
            raise _error(exc) from exc
        lines = [line.strip("- ").strip() for line in text.splitlines() if line.strip()]
        return Recall([Recalled(f"briefing-{i}", line, "other") for i, line in enumerate(lines[:limit])])

    async def save_exchange(self, caller_id: str, caller_said: str, agent_said: str) -> None:
        messages = [{"role": "user", "content": s.text} for s in caller_facts(caller_said)]
        spoken = agent_statement(agent_said)
        if spoken is not None:
            messages.append({"role": "assistant", "content": spoken})
        if not messages:
            return
        try:
            await self._space(caller_id).memories.add(messages=messages)
        except (GeniffyError, KeyError) as exc:
            raise _error(exc) from exc

    async def remember(self, caller_id: str, content: str, *, source: str, confidence: float) -> str:
        try:
            source_row = await self._space(caller_id).memories.add(
                text=content, title=f"{source} (confidence {confidence:g})"
            )
        except (GeniffyError, KeyError) as exc:
            raise _error(exc) from exc
        return str(source_row.id)

    async def forget(self, caller_id: str) -> ForgetResult:
        name = self.prefix + caller_id
        try:
            answer = await self.root.forget_space(name)
            remaining = await self.root.spaces()
        except (GeniffyError, KeyError) as exc:
            raise _error(exc) from exc
        deleted = int(answer.get("deleted") or answer.get("memories") or 0)
        gone = all(str(s.get("name")) != name for s in remaining)
        return ForgetResult(deleted=deleted, verified=gone)

    async def aclose(self) -> None:
        await self.root.close()


def _said_by(about: str | None) -> str:
    return {"user": "caller", "assistant": "agent"}.get(about or "", "other")


def _error(exc: Exception) -> ServiceError:
    status = int(getattr(exc, "status", 0) or 502)
    return ServiceError(status, str(getattr(exc, "code", None) or type(exc).__name__), str(exc))
