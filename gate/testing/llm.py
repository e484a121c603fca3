"""A deterministic scripted LLM for text-mode sessions: tests and the offline demo.

Each time the session asks the model for a reply, the next step of the
script answers: text (:func:`say`) or tool calls (:func:`call`). No
network, no randomness. Every chat context the model was shown is kept in
``seen`` so a test can check what reached the model.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from livekit.agents import llm
from livekit.agents.llm import ChatContext, Tool
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, APIConnectOptions


@dataclass(frozen=True)
class Step:
    """One scripted reply: text, or one or more tool calls."""

    text: str | None = None
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()


def say(text: str) -> Step:
    """A reply that speaks ``text``."""
    return Step(text=text)


def call(name: str, /, **arguments: Any) -> Step:
    """A reply that calls tool ``name`` with ``arguments``."""
    return Step(calls=((name, arguments),))


ScriptItem = Step | Callable[[ChatContext], Step]


class ScriptExhausted(RuntimeError):
    """The session asked for more replies than the script has."""


class ScriptedLLM(llm.LLM[Any]):
    """Replies with the scripted steps, in order.

    ``latency_s``: how long each reply takes to begin, as a hosted model's time to its first
    token (0: at once).

    Raises:
        ScriptExhausted: (inside the session) when asked for a reply past the end.
    """

    def __init__(self, script: list[ScriptItem] | None = None, *, latency_s: float = 0.0) -> None:
        super().__init__()
        self.script: list[ScriptItem] = list(script or [])
        self.seen: list[ChatContext] = []
        self.latency_s = latency_s

    def add(self, *steps: ScriptItem) -> None:
        """Append steps to the script."""
        self.script.extend(steps)

    @property
    def model(self) -> str:
        return "scripted"

    @property
    def provider(self) -> str:
        return "gate.testing"

    def chat(
        self,
        *,
        chat_ctx: ChatContext,
        tools: list[Tool] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        **_: Any,
    ) -> llm.LLMStream:
        self.seen.append(chat_ctx.copy())
        if not self.script:
            raise ScriptExhausted("the scripted LLM has no reply left")
        item = self.script.pop(0)
        step = item(chat_ctx) if callable(item) else item
        return _ScriptedStream(self, step, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options)


class _ScriptedStream(llm.LLMStream):
    def __init__(
        self,
        owner: ScriptedLLM,
        step: Step,
        *,
        chat_ctx: ChatContext,
        tools: list[Tool],
        conn_options: APIConnectOptions,
    ) -> None:
        super().__init__(owner, chat_ctx=chat_ctx, tools=tools, conn_options=conn_options)
        self._step = step
        self._latency_s = owner.latency_s

    async def _run(self) -> None:
        if self._latency_s:
            await asyncio.sleep(self._latency_s)
        chunk_id = f"scripted_{uuid.uuid4().hex[:8]}"
        if self._step.text is not None:
            delta = llm.ChoiceDelta(role="assistant", content=self._step.text)
        else:
            delta = llm.ChoiceDelta(
                role="assistant",
                tool_calls=[
                    llm.FunctionToolCall(
                        call_id=f"call_{uuid.uuid4().hex[:10]}", name=name, arguments=json.dumps(args)
                    )
                    for name, args in self._step.calls
                ],
            )
        self._event_ch.send_nowait(llm.ChatChunk(id=chunk_id, delta=delta))
