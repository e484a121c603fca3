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
import logging
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any, get_type_hints

from livekit.agents import AgentSession, RunContext, function_tool
from livekit.agents.llm import FunctionTool, Tool, ToolError, Toolset
from livekit.agents.voice.events import FunctionToolsExecutedEvent

from gate.caller import Caller
from gate.canonical import canonical_json, digest
from gate.confirm.loading import ready as reader_ready
from gate.confirm.loading import warm as warm_reader
from gate.decorator import Action, Executed, GatedTool
from gate.errors import StaleState, describe
from gate.evidence.statements import from_history
from gate.inflight import InFlight
from gate.log import event, warning
from gate.pipeline import Decision, Pipeline, deadline_in
from gate.policy.loader import LoadedPolicy
from gate.policy.rules import RuleResult
from gate.policy.schema import placeholders, render

_log = logging.getLogger("gate.evidence")

if TYPE_CHECKING:
    from gate.confirm.answer import AnswerReading
    from gate.confirm.heard import Heard
    from gate.confirm.transcript import Exchange
    from gate.memory.saves import SaveTracker

CONFIRM_TOOL = "confirm_action"
_CONFIRM_DESCRIPTION = (
    "Carry out the action the caller was just asked to confirm. Call it only after the caller "
    "has answered the confirmation question with a clear yes in their own words. It takes no "
    "arguments: the action, its details and the caller's answer are checked by the system."
)
_CTX = "gate_run_context"


@dataclass(frozen=True)
class _Asked:
    """What a pending confirmation is about: the call, and the question the gate put."""

    tool: GatedTool
    args: dict[str, Any]
    question: str


class GateSession:
    """The gated tools of one caller in one session. Build it with :meth:`gate.Gate.bind`.

    Args:
        pipeline: decides and records (shared by the gate's sessions).
        tools: the gated tools to bind.
        policies: each tool's loaded policy, by tool name.
        caller: the authenticated caller every call is made for.
        session: the LiveKit session, to record calls it refused for bad arguments.
        language: the caller's language for reading answers (en, es, fr, de).
        inflight: overlapping identical calls run once (shared by the gate's sessions).
        saves: pending memory saves; a decision waits for the caller's words to be saved.
        clock: the call's "now" (an aware ``datetime``); relative dates the caller says are
            read against it (default: the system clock, UTC).
    """

    def __init__(
        self,
        pipeline: Pipeline,
        tools: Sequence[GatedTool],
        policies: Mapping[str, LoadedPolicy],
        caller: Caller,
        session: AgentSession[Any] | None = None,
        *,
        session_id: str | None = None,
        language: str = "en",
        inflight: InFlight | None = None,
        saves: SaveTracker | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.caller = caller
        self.clock: Callable[[], datetime] = clock or (lambda: datetime.now(UTC))
        self._started = time.time()
        self.id = session_id or f"gs_{uuid.uuid4().hex}"
        self.language = language
        self._pipeline = pipeline
        self._policies = policies
        self._inflight = inflight or InFlight()
        self._saves = saves
        self._done: dict[str, Any] = {}
        self._asked: dict[str, _Asked] = {}
        self._reached: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._completed: list[str] = []
        self._by_name = {t.name: t for t in tools}
        self.tools: list[Tool | Toolset] = [self._bind(t) for t in tools]
        self.tools.append(self._confirm_tool())
        if session is not None:
            session.on("function_tools_executed", self._on_tools_executed)
            if self._traces_the_call():
                self._unheard: list[str] = []  # the caller's words since the agent last replied
                session.on("conversation_item_added", self._on_item_added)

    def _traces_the_call(self) -> bool:
        """Whether a decision of this session reads the call's turns (a tool with an evidence
        section) on a backend that can read them ahead (``hear(text, speaker)``)."""
        if getattr(self._pipeline.backend, "hear", None) is None:
            return False
        return any(self._policies[t.name].policy.evidence is not None for t in self._by_name.values())

    def _on_item_added(self, ev: Any) -> None:
        """A turn of the call was said: its words are read ahead of the decisions that will read
        them.

        When the agent has replied, the exchange (the caller's words and the reply) is read in the
        background, between turns: the caller's words are not read as they arrive, where the
        work would compete with the reply's own memory look-up for them. A decision in the turn
        embeds the newest words itself; every later decision finds them ready.
        """
        role = getattr(ev.item, "role", None)
        text = (getattr(ev.item, "text_content", None) or "").strip()
        if role not in ("user", "assistant") or not text:
            return
        if role == "user":
            self._unheard.append(text)
            return
        for words, speaker in [*((t, "caller") for t in self._unheard), (text, "agent")]:
            task = asyncio.create_task(self._hear(words, speaker))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        self._unheard.clear()

    async def _hear(self, text: str, speaker: str) -> None:
        try:
            await self._pipeline.backend.hear(text, speaker)  # type: ignore[attr-defined]
        except Exception as exc:  # the decision that needs these vectors meets the fault and records it
            _log.debug("reading a turn ahead failed: %s", describe(exc))

    def policy_for(self, tool: GatedTool) -> LoadedPolicy:
        return self._policies[tool.name]

    def _heard(self, ctx: RunContext[Any] | None) -> dict[str, Any]:
        """What a decision traces the request over: this call's turns, its start, its date, the language."""
        history = ctx.session.history if ctx is not None else None
        heard = from_history(history)
        return {
            "heard": heard,
            "since": self._started,
            "today": self.clock().date(),
            "lang": self.language,
        }

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

        Identical calls (same caller, tool and arguments) that overlap run once:
        the others wait for the first and get its result or its error.

        Arguments that cannot be stored (a NUL character, an unpaired surrogate)
        are refused and recorded as ``arguments.invalid``. The policy's
        ``timeout_s`` bounds the whole decision: the wait for the caller's words
        to be saved, the state read and the evidence look-up share it.

        Raises:
            ToolError: with a message for the model when the call was refused for its
                arguments, hit a state conflict or failed, or when the ledger could
                not record the decision (then nothing was done). Nothing else escapes;
                the message never carries an internal error's text, and argument
                values in it are cut to 80 characters.
        """
        if ctx is not None:
            self._reached.add(ctx.function_call.call_id)
        try:
            bad = _unstorable(args)
            if bad is not None:
                return await self._refuse(tool, args, ctx, bad)
            key = _dedupe_key(self.caller, tool, args)
            for _ in range(3):
                if key in self._done:
                    event("gate.dedupe", caller=self.caller.id, tool=tool.name, session_id=self.id)
                    return self._done[key]
                result = await self._inflight.run(
                    key, lambda: self._decide(tool, args, ctx, key), caller=self.caller.id, tool=tool.name
                )
                if not isinstance(result, _Interrupted) or result.ctx is ctx or ctx is None:
                    return str(result) if isinstance(result, _Interrupted) else result
                # The identical call this one waited on was cut off by a barge-in; this
                # one was not (the caller asked again): decide it afresh.
            return str(result)
        except ToolError:
            raise
        except Exception as exc:
            raise self._nothing_done(tool, args, exc) from None

    def _nothing_done(self, tool: GatedTool | None, args: dict[str, Any], exc: Exception) -> ToolError:
        """What the model hears when the gate itself failed before anything ran (e.g. the ledger is down)."""
        warning(
            "gate.call.failed",
            caller=self.caller.id,
            tool=tool.name if tool is not None else CONFIRM_TOOL,
            error=type(exc).__name__,
            detail=describe(exc)[:200],
        )
        if tool is None:
            return ToolError("Something went wrong, so nothing was done.")
        failure = render(self.policy_for(tool).policy.messages.failure, _shown(args))
        return ToolError(f"{failure} (Nothing was done.)")

    async def _refuse(
        self, tool: GatedTool, args: dict[str, Any], ctx: RunContext[Any] | None, problem: str
    ) -> Any:
        """Record a call whose arguments cannot be stored as ``arguments.invalid``, and refuse it."""
        loaded = self.policy_for(tool)
        stored = {name: _storable(value) for name, value in args.items()}
        decision = await self._pipeline.record_rejected(
            tool=tool,
            loaded=loaded,
            caller=self.caller,
            session_id=self.id,
            args=stored,
            error=problem,
            call_id=ctx.function_call.call_id if ctx is not None else None,
        )
        await self._pipeline.close(decision, "skipped")
        message = render(loaded.policy.messages.abstain, _shown(stored))
        raise ToolError(f"{message} ({problem}; nothing was done)")

    async def _decide(
        self, tool: GatedTool, args: dict[str, Any], ctx: RunContext[Any] | None, key: str
    ) -> Any:
        loaded = self.policy_for(tool)
        deadline = deadline_in(loaded.policy.timeout_s)
        # The caller's words of this call are read from the session's own transcript, so
        # the decision never waits for them to be saved to memory.
        decision = await self._pipeline.decide(
            tool=tool,
            loaded=loaded,
            caller=self.caller,
            session_id=self.id,
            args=args,
            call_id=ctx.function_call.call_id if ctx is not None else None,
            deadline=deadline,
            **self._heard(ctx),
        )
        return await self._carry_out(tool, decision, ctx, key)

    async def _carry_out(
        self,
        tool: GatedTool,
        decision: Decision,
        ctx: RunContext[Any] | None,
        key: str,
        *,
        expected_version: str | None = None,
    ) -> Any:
        policy = decision.policy
        if decision.enforced == "abstain":
            await self._pipeline.close(decision, "skipped")
            message = render(policy.messages.abstain, _shown(decision.args))
            deciding = decision.deciding
            detail = _for_model(deciding, policy.timeout_s)
            if deciding.rule.startswith(("limits.", "arguments.")):
                raise ToolError(f"{message} ({detail})")
            if deciding.rule == "state.conflict":
                return f"{message} ({detail}.) Tell the caller; do not offer it again."
            return f"{message} (Not done: {detail}.)"
        if decision.enforced == "ask":
            confirmation = self._pipeline.confirmation_for(decision, self.id)
            try:
                await self._pipeline.ledger.arecord_confirmation(confirmation)
            except Exception:
                # Nothing can be confirmed without its record: close the question unasked.
                await self._pipeline.close(decision, "skipped")
                raise
            question = render(policy.messages.ask, decision.args)
            self._asked = {confirmation.id: _Asked(tool, dict(decision.args), question)}
            await self._pipeline.close(decision, "skipped")
            return (
                f"{question}\n(Nothing has been done yet. Ask the caller exactly this question, with "
                f"these details, and wait for their answer. Only if they say yes, call {CONFIRM_TOOL}.)"
            )
        return await self._execute(tool, decision, ctx, key, expected_version=expected_version)

    async def _execute(
        self,
        tool: GatedTool,
        decision: Decision,
        ctx: RunContext[Any] | None,
        key: str,
        *,
        expected_version: str | None = None,
    ) -> Any:
        policy = decision.policy
        if ctx is not None and not _hold(ctx):
            # The caller barged in while this was being decided: the commit point was
            # never reached, so nothing runs and the decision is closed as not done.
            event("gate.interrupted", decision_id=decision.id, caller=self.caller.id, tool=tool.name)
            await self._pipeline.close(decision, "skipped")
            return _Interrupted(
                "Not done: the caller interrupted before it was carried out, so nothing was done. "
                "If they still want it, ask them.",
                ctx,
            )
        kwargs = dict(decision.args)
        if tool.action_param:
            kwargs[tool.action_param] = Action(
                caller=self.caller,
                decision_id=decision.id,
                idempotency_key=decision.idempotency_key,
                expected_version=expected_version
                if expected_version is not None
                else decision.row.state_version,
                state=decision.state.value if decision.state else None,
                session_id=self.id,
                arguments=dict(decision.args),
            )
        if tool.context_param and ctx is not None:
            kwargs[tool.context_param] = ctx
        # From here the tool may have acted: whatever the ledger does, the model gets
        # what the tool did (close() never raises; a receipt it cannot write is kept).
        close = functools.partial(self._pipeline.close, decision, executed=True)
        try:
            result = await tool.fn(**kwargs)
        except StaleState:
            await close("failed", error_code="current_state_changed")
            raise ToolError(render(policy.messages.conflict, _shown(decision.args))) from None
        except ToolError as exc:
            await close("failed", error_code="tool_error")
            raise exc
        except asyncio.CancelledError:
            # Cancelled mid-flight: whether the effect landed is unknown, never guessed.
            with contextlib.suppress(Exception):
                await asyncio.shield(close("failed", error_code="outcome_unknown"))
            raise
        except Exception as exc:
            warning("gate.tool.error", decision_id=decision.id, tool=tool.name, error=type(exc).__name__)
            await close("failed", error_code=f"tool_error.{type(exc).__name__}")
            raise ToolError(render(policy.messages.failure, _shown(decision.args))) from None
        external_ref = None
        if isinstance(result, Executed):
            external_ref, result = result.external_ref, result.output
        await close("succeeded", external_ref=external_ref)
        output = _output(result)
        self._done[key] = output
        self._completed.append(_summary(decision, external_ref))
        return output

    def completed(self) -> list[str]:
        """One line per action that succeeded in this session (masked arguments stay masked)."""
        return list(self._completed)

    # -- confirmation -------------------------------------------------------------

    async def confirm(self, ctx: RunContext[Any] | None) -> Any:
        """Carry out the pending action if the caller said yes to the question they heard.

        The gate reads the session's transcript itself: the agent's last message
        before the caller's answer must carry every pending value, and the answer
        is read against that question. A yes to anything else confirms nothing
        (the confirmation stays pending); a no or a change closes it.

        Raises:
            ToolError: nothing is pending, the caller has not answered, the
                question they answered was not the pending one, the answer was
                not a yes, the confirmation expired or was used, or it could not
                be recorded with the decision service.
        """
        asked: _Asked | None = None
        try:
            if not reader_ready():
                # The reader's data is read once per process; never on the event loop.
                await asyncio.to_thread(warm_reader)
            pending = await asyncio.to_thread(self._pipeline.ledger.live_confirmation, self.id)
            if pending is None or pending.id not in self._asked:
                raise ToolError("There is no action waiting for confirmation, so nothing was done.")
            asked = self._asked[pending.id]
            return await self._inflight.run(
                f"confirm:{pending.id}", lambda: self._confirm(pending.id, pending.created_at, ctx)
            )
        except ToolError:
            raise
        except Exception as exc:
            tool, args = (asked.tool, asked.args) if asked is not None else (None, {})
            raise self._nothing_done(tool, args, exc) from None

    async def _confirm(self, confirmation_id: str, asked_at: float, ctx: RunContext[Any] | None) -> Any:
        # The reader is imported here, after the warm-up thread has loaded it (see ``confirm``).
        from gate.confirm.answer import read_answer
        from gate.confirm.transcript import latest_exchange

        ledger = self._pipeline.ledger
        asked = self._asked.get(confirmation_id)
        if asked is None:
            raise ToolError("There is no action waiting for confirmation, so nothing was done.")
        history = ctx.session.history if ctx is not None else None
        exchange = latest_exchange(history, since=asked_at)
        if exchange is None:
            raise ToolError(
                f"The caller has not answered yet. Ask them exactly: {asked.question!r} Wait for their "
                f"answer, and call {CONFIRM_TOOL} only after they say yes. Nothing was done."
            )
        today = self.clock().date()
        values = self._spoken_values(asked)
        heard = self._question_heard(exchange, values, asked, ctx, today)
        if not heard.ok:
            event(
                "gate.confirmation",
                confirmation_id=confirmation_id,
                caller=self.caller.id,
                status="not_heard",
                missing=heard.missing,
                interrupted=exchange.interrupted,
            )
            raise ToolError(
                "The caller's last answer was not to the pending question "
                f"({heard.reason or 'it was never put to them'}), so nothing was done and it is still "
                f"waiting. Put this question to them: {asked.question!r} and call {CONFIRM_TOOL} only "
                "after they answer it with yes."
            )
        # Pending booleans are read too: a caller who says one the other way round asks for a change.
        flags = {name: value for name, value in asked.args.items() if isinstance(value, bool)}
        reading = read_answer(
            exchange.answer,
            question=exchange.heard or "",
            pending={**values, **flags},
            lang=self.language,
            today=today,
        )
        if reading.answer == "unclear":
            event(
                "gate.confirmation",
                confirmation_id=confirmation_id,
                caller=self.caller.id,
                status="unclear",
                rule=reading.rule,
            )
            if reading.side_question:
                # A question about the deal's terms, a doubt or a request for something else:
                # the caller must hear the answer before their yes can count.
                raise ToolError(
                    f"The caller said yes but asked first: {reading.side_question!r}, so nothing was done "
                    f"and it is still waiting. Answer their question, then ask again: {asked.question!r}"
                )
            raise ToolError(
                f"The caller did not clearly say yes ({reading.reason}; they said: {exchange.answer!r}), so "
                f"nothing was done and it is still waiting. Ask again: {asked.question!r}"
            )
        if reading.answer != "yes":
            await ledger.aanswer_confirmation(
                confirmation_id,
                status="declined",
                words=exchange.answer,
                message_id=exchange.answer_id,
            )
            self._asked.pop(confirmation_id, None)
            event(
                "gate.confirmation",
                confirmation_id=confirmation_id,
                caller=self.caller.id,
                status="declined",
                rule=reading.rule,
            )
            if reading.answer == "change":
                raise ToolError(
                    f"The caller wants something different ({reading.reason}; they said: "
                    f"{exchange.answer!r}), so nothing was done. If they want a change, make that "
                    "request with the new details."
                )
            raise ToolError(f"The caller said no (they said: {exchange.answer!r}), so nothing was done.")
        if not reading.side_question:
            return await self._confirmed(confirmation_id, asked, exchange, reading, ctx)
        # The action runs on the yes; the caller's question is still theirs to get answered,
        # whatever the action's outcome.
        also = f"The caller also asked: {reading.side_question!r}. Answer their question."
        try:
            result = await self._confirmed(confirmation_id, asked, exchange, reading, ctx)
        except ToolError as exc:
            raise ToolError(f"{exc} {also}") from None
        return f"{result}\n\n{also}" if result is not None else also

    def _question_heard(
        self,
        exchange: Exchange,
        values: dict[str, Any],
        asked: _Asked,
        ctx: RunContext[Any] | None,
        today: date,
    ) -> Heard:
        """Whether the caller heard the pending question: every value in the agent's last message,
        as far as it was played when the caller cut it off."""
        from gate.confirm.heard import Heard, question_heard
        from gate.confirm.transcript import plays_transcript

        if exchange.heard is None:
            return Heard(ok=False, reason="it was never put to them")
        if exchange.interrupted and not plays_transcript(ctx.session if ctx is not None else None):
            # LiveKit kept text this session never played: nothing in it is known to be heard.
            return Heard(ok=False, reason="the caller interrupted it, and what they heard of it is unknown")
        heard = question_heard(
            exchange.heard, values, lang=self.language, question=asked.question, today=today
        )
        if exchange.interrupted and heard.missing:
            return Heard(
                ok=False,
                missing=heard.missing,
                reason="the caller interrupted it before hearing: " + ", ".join(heard.missing),
            )
        return heard

    async def _confirmed(
        self,
        confirmation_id: str,
        asked: _Asked,
        exchange: Exchange,
        reading: AnswerReading,
        ctx: RunContext[Any] | None,
    ) -> Any:
        """Record the caller's yes, decide again and carry out the confirmed action."""
        ledger = self._pipeline.ledger
        answered = await ledger.aanswer_confirmation(
            confirmation_id,
            status="confirmed",
            words=exchange.answer,
            message_id=exchange.answer_id,
        )
        self._asked.pop(confirmation_id, None)
        if answered is None:
            raise ToolError("That confirmation expired or was already used. Nothing was done.")
        event(
            "gate.confirmation",
            confirmation_id=confirmation_id,
            caller=self.caller.id,
            status="confirmed",
            rule=reading.rule,
        )
        tool, args = asked.tool, asked.args
        loaded = self.policy_for(tool)
        # One budget from the yes to the decision: the save, every confirm and the
        # decision share it, so a slow service cannot stretch the reply step by step.
        deadline = deadline_in(loaded.policy.timeout_s)
        notes = [
            RuleResult(
                "confirmation.heard",
                "act",
                "every pending value heard"
                + (", up to where the caller cut in" if exchange.interrupted else ""),
                words=(exchange.heard or "")[:300],
            ),
            RuleResult("confirmation.answer", "act", reading.label, words=exchange.answer[:300]),
        ]
        forced = None
        try:
            await self._pipeline.attest(
                self.caller,
                loaded,
                args,
                kind="confirm",
                pending=json.loads(answered.memory_ids_json),
                deadline=deadline,
            )
        except Exception as exc:
            warning("gate.attest.failed", confirmation_id=confirmation_id, error=type(exc).__name__)
            forced = RuleResult(
                "confirmation.unrecorded",
                "abstain",
                f"the decision service did not record it: {type(exc).__name__}",
            )
        key = _dedupe_key(self.caller, tool, args)
        decision = await self._pipeline.decide(
            tool=tool,
            loaded=loaded,
            caller=self.caller,
            session_id=self.id,
            args=args,
            attested=answered,
            forced=forced,
            notes=notes,
            call_id=ctx.function_call.call_id if ctx is not None else None,
            deadline=deadline,
            **self._heard(ctx),
        )
        if forced is not None:
            await self._pipeline.close(decision, "skipped")
            raise ToolError(
                "The caller's confirmation could not be recorded, so nothing was done. Tell them and "
                "offer to try again."
            )
        if decision.deciding.rule == "state.changed" and decision.enforced == "ask":
            again = await self._carry_out(tool, decision, ctx, key)
            return f"{render(loaded.policy.messages.conflict, _shown(args))} {again}"
        if decision.enforced == "act" and decision.row.action_digest != answered.action_digest:
            # The action about to run is not the one the caller confirmed (its
            # arguments, state or policy differ): never run it on that yes.
            await self._pipeline.close(decision, "skipped")
            raise ToolError(
                "What would run is not what the caller confirmed, so nothing was done. Ask again."
            )
        return await self._carry_out(tool, decision, ctx, key, expected_version=answered.state_version)

    def _spoken_values(self, asked: _Asked) -> dict[str, Any]:
        """The values the caller must have heard: the question's own, and every unmasked argument."""
        from gate.confirm.pending import spoken_values

        policy = self.policy_for(asked.tool).policy
        return spoken_values(
            asked.args, in_question=set(placeholders(policy.messages.ask)), masked=set(policy.audit.mask)
        )

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
        loaded = self.policy_for(tool)
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
            args=_storable(args),
            error=_storable(error),
            call_id=call_id,
        )
        await self._pipeline.close(decision, "skipped")

    async def flush(self) -> None:
        """Wait for background records (e.g. of refused arguments) to be written.

        Also waits for receipt deliveries the reply did not wait for (one bounded try each).
        """
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        await self._pipeline.delivered()


class _Interrupted(str):
    """What an interrupted call tells the model, and which call it was (for identical calls waiting on it)."""

    ctx: RunContext[Any] | None

    def __new__(cls, text: str, ctx: RunContext[Any] | None) -> _Interrupted:
        made = super().__new__(cls, text)
        made.ctx = ctx
        return made


def _hold(ctx: RunContext[Any]) -> bool:
    """Make the call's speech uninterruptible (the commit point); False when the caller already barged in."""
    if ctx.speech_handle.interrupted:
        return False
    try:
        ctx.disallow_interruptions()
    except RuntimeError:  # interrupted between the check and here
        return False
    return True


def _output(result: Any) -> Any:
    """The tool's result as the model gets it (a structure as JSON)."""
    if not isinstance(result, dict | list):
        return result
    try:
        return json.dumps(result, default=str)
    except ValueError:  # e.g. a structure that contains itself
        return str(result)


# What the model is told for rules whose detail is an internal error (a class name,
# a driver's message with its SQL): never the error itself.
_INTERNAL = {
    "state.unavailable": "the current state could not be read",
    "evidence.unavailable": "the decision service could not answer",
    "confirmation.unrecorded": "the decision service did not record the confirmation",
}
_SHOWN_CHARS = 80


def _for_model(result: RuleResult, timeout_s: float) -> str:
    if result.rule == "state.unavailable" and result.detail == "TimeoutError":
        return f"the current state could not be read within {timeout_s:g}s"
    if result.rule in _INTERNAL:
        return _INTERNAL[result.rule]
    return _clip(result.detail, 300)


def _clip(text: str, limit: int = _SHOWN_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _shown(args: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments as a message to the model may echo them: each at most 80 characters."""
    shown: dict[str, Any] = {}
    for name, value in args.items():
        if isinstance(value, str):
            shown[name] = _clip(_storable(value))
        elif isinstance(value, bool | int | float) and len(str(value)) <= _SHOWN_CHARS:
            shown[name] = value
        else:
            shown[name] = _clip(_storable(str(value)))
    return shown


def _unstorable(args: Mapping[str, Any]) -> str | None:
    """Why these arguments cannot be recorded (a NUL, an unpaired surrogate), or None."""
    for name, value in args.items():
        problem = _unstorable_value(value)
        if problem is not None:
            return f"{name} contains {problem}, which cannot be stored"
    return None


def _unstorable_value(value: Any) -> str | None:
    if isinstance(value, str):
        if "\x00" in value:
            return "a NUL character"
        if _has_surrogate(value):
            return "an unpaired surrogate (not valid Unicode)"
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            problem = _unstorable_value(key) or _unstorable_value(item)
            if problem is not None:
                return problem
    if isinstance(value, list | tuple):
        for item in value:
            problem = _unstorable_value(item)
            if problem is not None:
                return problem
    return None


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # only a lone surrogate cannot be encoded
        return True
    return False


def _storable(value: Any) -> Any:
    """``value`` with NULs and unpaired surrogates written as escapes (``\\x00``, ``\\ud800``)."""
    if isinstance(value, str):
        if "\x00" not in value and not _has_surrogate(value):
            return value
        escaped = value.replace("\x00", "\\x00")
        return escaped.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_storable(k): _storable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_storable(v) for v in value]
    return value


def _dedupe_key(caller: Caller, tool: GatedTool, args: dict[str, Any]) -> str:
    """The same caller, tool and canonical arguments: one execution answers them all."""
    return digest({"caller": caller.id, "tool": tool.name, "args": json.loads(canonical_json(args))})


def _summary(decision: Decision, external_ref: str | None) -> str:
    row = decision.row
    args = ", ".join(
        f"{k}={v}" for k, v in json.loads(row.args_json).items() if not str(v).startswith("sha256:")
    )
    done = f"the agent did {row.action_name} ({args})" + (
        f", reference {external_ref}" if external_ref else ""
    )
    return done + (" after the caller confirmed it" if row.confirmation_id else "")
