"""One caller's gated tools inside one LiveKit session.

:class:`GateSession` turns each :class:`~gate.decorator.GatedTool` into a
LiveKit ``FunctionTool`` closed over the authenticated caller, adds the
``confirm_action`` tool, carries out each decision's branch, and remembers
what already succeeded in this session so a repeated call does not act twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import uuid
from typing import TYPE_CHECKING, Any, get_type_hints

from livekit.agents import AgentSession, RunContext, function_tool
from livekit.agents.llm import ChatContext, FunctionTool, Tool, ToolError, Toolset
from livekit.agents.voice.events import FunctionToolsExecutedEvent

from gate.caller import Caller
from gate.canonical import canonical_json, digest
from gate.confirm.answer import classify_answer
from gate.decorator import Action, Executed, GatedTool
from gate.errors import StaleState
from gate.log import event, warning
from gate.pipeline import Decision, Pipeline, action_digest
from gate.policy.schema import render

if TYPE_CHECKING:
    from gate.gate import Gate

CONFIRM_TOOL = "confirm_action"
_CONFIRM_DESCRIPTION = (
    "Carry out the action the caller was just asked to confirm. Call it only after the caller "
    "has answered the confirmation question with a clear yes in their own words. It takes no "
    "arguments: the action, its details and the caller's answer are checked by the system."
)
_CTX = "gate_run_context"


class GateSession:
    """The gated tools of one caller in one session. Build it with :meth:`gate.Gate.bind`."""

    def __init__(
        self,
        gate: Gate,
        caller: Caller,
        session: AgentSession[Any] | None = None,
        *,
        session_id: str | None = None,
    ) -> None:
        self.gate = gate
        self.caller = caller
        self.id = session_id or f"gs_{uuid.uuid4().hex}"
        self._pipeline: Pipeline = gate.pipeline
        self._done: dict[str, Any] = {}
        self._asked: dict[str, tuple[GatedTool, dict[str, Any]]] = {}
        self._reached: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._completed: list[str] = []
        self._by_name = {t.name: t for t in gate.tools}
        self.tools: list[Tool | Toolset] = [self._bind(t) for t in gate.tools]
        self.tools.append(self._confirm_tool())
        if session is not None:
            session.on("function_tools_executed", self._on_tools_executed)

    # -- binding -------------------------------------------------------------------

    def _bind(self, tool: GatedTool) -> FunctionTool[..., Any]:
        sig = inspect.signature(tool.fn)
        hints = get_type_hints(tool.fn, include_extras=True)
        params = [p for n, p in sig.parameters.items() if n != tool.action_param]
        annotations = {n: hints[n] for n in sig.parameters if n != tool.action_param and n in hints}
        ctx_name = tool.context_param
        if ctx_name is None:
            ctx_name = _CTX
            params.append(inspect.Parameter(_CTX, inspect.Parameter.KEYWORD_ONLY, annotation=RunContext))
            annotations[_CTX] = RunContext
        if "return" in hints:
            annotations["return"] = hints["return"]
        new_sig = sig.replace(parameters=params)

        @functools.wraps(tool.fn)
        async def gated(*a: Any, **kw: Any) -> Any:
            bound = new_sig.bind(*a, **kw)
            bound.apply_defaults()
            ctx = bound.arguments.get(ctx_name)
            args = {n: bound.arguments[n] for n in tool.params if n in bound.arguments}
            return await self.call(tool, args, ctx)

        gated.__signature__ = new_sig  # type: ignore[attr-defined]
        gated.__annotations__ = annotations
        return function_tool(gated, name=tool.name, description=tool.description)

    def _confirm_tool(self) -> FunctionTool[..., Any]:
        async def confirm_action(ctx: RunContext[Any]) -> Any:
            return await self.confirm(ctx)

        return function_tool(confirm_action, name=CONFIRM_TOOL, description=_CONFIRM_DESCRIPTION)

    # -- one call ------------------------------------------------------------------

    async def call(self, tool: GatedTool, args: dict[str, Any], ctx: RunContext[Any] | None) -> Any:
        """Decide on one call of ``tool`` and carry out the branch.

        Raises:
            ToolError: with a message for the model when the call was refused for its
                arguments, hit a state conflict or failed. Nothing else escapes.
        """
        if ctx is not None:
            self._reached.add(ctx.function_call.call_id)
        key = _dedupe_key(tool, args)
        if key in self._done:
            event("gate.dedupe", caller=self.caller.id, tool=tool.name, session_id=self.id)
            return self._done[key]
        loaded = self.gate.policy_for(tool)
        decision = await self._pipeline.decide(
            tool=tool,
            loaded=loaded,
            caller=self.caller,
            session_id=self.id,
            args=args,
            call_id=ctx.function_call.call_id if ctx is not None else None,
        )
        return await self._carry_out(tool, decision, ctx, key)

    async def _carry_out(
        self, tool: GatedTool, decision: Decision, ctx: RunContext[Any] | None, key: str
    ) -> Any:
        policy = decision.policy
        if decision.enforced == "abstain":
            await self._pipeline.close(decision, "skipped")
            message = render(policy.messages.abstain, decision.args)
            if decision.row.rule.startswith("limits."):
                raise ToolError(f"{message} ({decision.deciding.detail})")
            return f"{message} (Not done: {decision.deciding.detail}.)"
        if decision.enforced == "ask":
            confirmation = self._pipeline.confirmation_for(decision, self.id)
            await asyncio.to_thread(self.gate.ledger.record_confirmation, confirmation)
            self._asked = {confirmation.id: (tool, decision.args)}
            await self._pipeline.close(decision, "skipped")
            question = render(policy.messages.ask, decision.args)
            return (
                f"{question}\n(Nothing has been done yet. Ask the caller exactly this and wait for "
                f"their answer. Only if they say yes, call {CONFIRM_TOOL}.)"
            )
        return await self._execute(tool, decision, ctx, key)

    async def _execute(
        self, tool: GatedTool, decision: Decision, ctx: RunContext[Any] | None, key: str
    ) -> Any:
        policy = decision.policy
        if ctx is not None:
            # The commit point: from here a barge-in must not cancel the side effect
            # halfway, or the caller hears "cancelled" while it lands anyway.
            ctx.disallow_interruptions()
        kwargs = dict(decision.args)
        if tool.action_param:
            kwargs[tool.action_param] = Action(
                caller=self.caller,
                decision_id=decision.id,
                idempotency_key=decision.idempotency_key,
                expected_version=decision.row.state_version,
                state=decision.state.value if decision.state else None,
                session_id=self.id,
                arguments=dict(decision.args),
            )
        if tool.context_param and ctx is not None:
            kwargs[tool.context_param] = ctx
        try:
            result = await tool.fn(**kwargs)
        except StaleState:
            await self._pipeline.close(decision, "failed", error_code="current_state_changed")
            raise ToolError(render(policy.messages.conflict, decision.args)) from None
        except ToolError as exc:
            await self._pipeline.close(decision, "failed", error_code="tool_error")
            raise exc
        except asyncio.CancelledError:
            # Cancelled mid-flight: whether the effect landed is unknown, never guessed.
            with contextlib.suppress(Exception):
                await asyncio.shield(self._pipeline.close(decision, "failed", error_code="outcome_unknown"))
            raise
        except Exception as exc:
            warning("gate.tool.error", decision_id=decision.id, tool=tool.name, error=type(exc).__name__)
            await self._pipeline.close(decision, "failed", error_code=f"tool_error.{type(exc).__name__}")
            raise ToolError(render(policy.messages.failure, decision.args)) from None
        external_ref = None
        if isinstance(result, Executed):
            external_ref, result = result.external_ref, result.output
        await self._pipeline.close(decision, "succeeded", external_ref=external_ref)
        output = json.dumps(result, default=str) if isinstance(result, dict | list) else result
        self._done[key] = output
        self._completed.append(_summary(decision, external_ref))
        return output

    def completed(self) -> list[str]:
        """One line per action that succeeded in this session (masked arguments stay masked)."""
        return list(self._completed)

    # -- confirmation -------------------------------------------------------------

    async def confirm(self, ctx: RunContext[Any] | None) -> Any:
        """Carry out the pending action if the caller's own latest words say yes.

        Raises:
            ToolError: nothing is pending, the caller has not answered, the answer
                was not a plain yes, or the confirmation expired or was used.
        """
        ledger = self.gate.ledger
        pending = await asyncio.to_thread(ledger.live_confirmation, self.id)
        if pending is None or pending.id not in self._asked:
            raise ToolError("There is no action waiting for confirmation, so nothing was done.")
        history = ctx.session.history if ctx is not None else None
        words, message_id = _latest_caller_words(history, since=pending.created_at)
        if words is None:
            raise ToolError(
                "The caller has not answered the confirmation question yet. Ask it, wait for "
                f"their answer, and call {CONFIRM_TOOL} only after they say yes. Nothing was done."
            )
        if classify_answer(words) != "yes":
            await asyncio.to_thread(
                ledger.answer_confirmation, pending.id, status="declined", words=words, message_id=message_id
            )
            self._asked.pop(pending.id, None)
            event("gate.confirmation", confirmation_id=pending.id, caller=self.caller.id, status="declined")
            raise ToolError(
                f"The caller did not clearly say yes (they said: {words!r}), so nothing was done. "
                "If they want something different, make that request; otherwise ask again."
            )
        answered = await asyncio.to_thread(
            ledger.answer_confirmation, pending.id, status="confirmed", words=words, message_id=message_id
        )
        tool, args = self._asked.pop(pending.id)
        if answered is None:
            raise ToolError("That confirmation expired or was already used. Nothing was done.")
        event("gate.confirmation", confirmation_id=pending.id, caller=self.caller.id, status="confirmed")
        loaded = self.gate.policy_for(tool)
        key = _dedupe_key(tool, args)
        if tool.state is not None:
            try:
                now = await tool.read_state(self.caller, args)
                moved = now is None or str(now.version) != answered.state_version
            except Exception:
                moved = True
            if moved:
                decision = await self._pipeline.decide(
                    tool=tool,
                    loaded=loaded,
                    caller=self.caller,
                    session_id=self.id,
                    args=args,
                    force_ask="state.changed",
                )
                again = await self._carry_out(tool, decision, ctx, key)
                return f"{render(loaded.policy.messages.conflict, args)} {again}"
        expected = action_digest(
            tool.name,
            self.caller,
            json.loads(canonical_json(args)),
            answered.state_version,
            loaded.content_hash,
        )
        if expected != answered.action_digest:
            raise ToolError("The confirmation does not match the pending action. Nothing was done.")
        for memory_id in json.loads(answered.memory_ids_json):
            try:
                await asyncio.wait_for(
                    self.gate.backend.confirm(
                        self.caller.id, memory_id, idempotency_key=f"confirm-{answered.id}-{memory_id}"[:128]
                    ),
                    timeout=loaded.policy.timeout_s,
                )
            except Exception as exc:
                warning("gate.memory.confirm_failed", memory_id=memory_id, error=type(exc).__name__)
        decision = await self._pipeline.decide(
            tool=tool,
            loaded=loaded,
            caller=self.caller,
            session_id=self.id,
            args=args,
            attested=answered,
            call_id=ctx.function_call.call_id if ctx is not None else None,
        )
        return await self._carry_out(tool, decision, ctx, key)

    # -- calls LiveKit refused before they reached the gate ---------------------------

    def _on_tools_executed(self, ev: FunctionToolsExecutedEvent) -> None:
        for call, output in ev.zipped():
            if call.name in self._by_name and output.is_error and call.call_id not in self._reached:
                task = asyncio.create_task(
                    self._record_rejected(call.name, call.arguments, output.output, call.call_id)
                )
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def _record_rejected(self, name: str, raw_arguments: str, error: str, call_id: str) -> None:
        tool = self._by_name[name]
        loaded = self.gate.policy_for(tool)
        try:
            parsed = json.loads(raw_arguments)
            args = parsed if isinstance(parsed, dict) else {"_raw": parsed}
        except ValueError:
            args = {"_raw": raw_arguments}
        decision = await self._pipeline.record_rejected(
            tool=tool,
            loaded=loaded,
            caller=self.caller,
            session_id=self.id,
            args=args,
            error=error,
            call_id=call_id,
        )
        await self._pipeline.close(decision, "skipped")

    async def flush(self) -> None:
        """Wait for background records (e.g. of refused arguments) to be written."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


def _dedupe_key(tool: GatedTool, args: dict[str, Any]) -> str:
    """The same tool with the same arguments: the first success answers again."""
    return digest({"tool": tool.name, "args": json.loads(canonical_json(args))})


def _summary(decision: Decision, external_ref: str | None) -> str:
    row = decision.row
    args = ", ".join(
        f"{k}={v}" for k, v in json.loads(row.args_json).items() if not str(v).startswith("sha256:")
    )
    done = f"the agent did {row.action_name} ({args})" + (
        f", reference {external_ref}" if external_ref else ""
    )
    return done + (" after the caller confirmed it" if row.confirmation_id else "")


def _latest_caller_words(history: ChatContext | None, *, since: float) -> tuple[str | None, str | None]:
    """The caller's most recent message, if it came after ``since`` (the question)."""
    if history is None:
        return None, None
    for item in reversed(history.items):
        if item.type == "message" and item.role == "user":
            if item.created_at < since:
                return None, None
            return (item.text_content or "").strip() or None, item.id
    return None, None
