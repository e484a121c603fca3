"""Dry runs: what the gate would decide, with the trace, executing and recording nothing.

Used by ``gate policy explain`` and ``gate policy test``. The rules are the
live ones (:func:`gate.rules.run_rules`); evidence comes from the embedded
engine's :meth:`~gate.LocalEngine.preview`, which records no decision. The
tool's own state reader is not available outside the worker, so no state is
read.

Arguments are checked first, as the tool would check them
(:func:`check_arguments`): a dry run of a call the model could never make
explains nothing.
"""

from __future__ import annotations

import inspect
import time
from typing import TYPE_CHECKING, Any, get_type_hints

from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from pydantic.fields import FieldInfo

from gate.backends.local import LocalEngine
from gate.caller import Caller
from gate.config import GateSettings
from gate.evidence import ServiceDecision
from gate.ledger import Ledger
from gate.pipeline import evidence_request
from gate.policy.rules import Verdict, run_rules
from gate.policy.schema import Policy, placeholders

if TYPE_CHECKING:
    from gate.decorator import GatedTool


def dry_run_engine(memory_url: str, ledger: Ledger, settings: GateSettings | None = None) -> LocalEngine:
    """The embedded engine a dry run reads, with the embedder the worker would use.

    Whether a memory is about an action is judged by meaning, so a dry run
    with another embedder than the live gate's could decide differently.

    Raises:
        ConfigError: ``GATE_*`` settings are malformed.
    """
    from gate.memory.embedder import embedder_for

    embedder = embedder_for((settings or GateSettings()).embedder)
    return LocalEngine(memory_url, ledger, embedding_provider=embedder)


class ArgumentProblem(ValueError):
    """The arguments are not ones the tool accepts; the message is one line."""


def check_arguments(args: dict[str, Any], policy: Policy, tool: GatedTool | None = None) -> dict[str, Any]:
    """The arguments as the tool would receive them, or one line saying why it would not.

    With the ``tool``: its signature decides (unknown and missing arguments,
    and each value against its annotation, coerced as LiveKit coerces a
    model's call). Without it, only the policy is known: an argument the
    policy never names is unknown, and one its evidence query, slot,
    ``evidence.match`` or ask message needs is missing.

    Raises:
        ArgumentProblem: naming the arguments and what the tool takes.
    """
    if tool is not None:
        return _against_tool(args, tool)
    known = sorted({name for _, name in policy.references()})
    needed: list[str] = []
    if policy.evidence is not None:
        needed += policy.evidence.match_names() + placeholders(policy.evidence.query)
    needed += placeholders(policy.messages.ask)
    takes = f"the policy of {policy.tool} names: {', '.join(known) or 'no arguments'}"
    unknown = sorted(set(args) - set(known))
    if unknown:
        raise ArgumentProblem(f"unknown argument(s) {', '.join(unknown)} ({takes})")
    missing = sorted(set(needed) - set(args))
    if missing:
        raise ArgumentProblem(f"missing argument(s) {', '.join(missing)} ({takes})")
    return dict(args)


def _against_tool(args: dict[str, Any], tool: GatedTool) -> dict[str, Any]:
    takes = f"{tool.name} takes: {', '.join(tool.params) or 'no arguments'}"
    unknown = sorted(set(args) - set(tool.params))
    if unknown:
        raise ArgumentProblem(f"unknown argument(s) {', '.join(unknown)} ({takes})")
    model = _arguments_model(tool)
    try:
        validated = model.model_validate(args)
    except ValidationError as exc:
        missing = sorted(str(e["loc"][0]) for e in exc.errors() if e["type"] == "missing" and e["loc"])
        if missing:
            raise ArgumentProblem(f"missing argument(s) {', '.join(missing)} ({takes})") from None
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ArgumentProblem(f"{where}: {first['msg']} (got {first.get('input')!r})") from None
    return {name: getattr(validated, name) for name in tool.params}


def _arguments_model(tool: GatedTool) -> type[BaseModel]:
    hints = get_type_hints(tool.fn, include_extras=True)
    signature = inspect.signature(tool.fn)
    fields: dict[str, Any] = {}
    for name in tool.params:
        info = FieldInfo.from_annotation(hints[name])
        default = signature.parameters[name].default
        if default is not inspect.Parameter.empty and info.is_required():
            info.default = default
        fields[name] = (info.annotation, info)
    return create_model(f"{tool.name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)


async def dry_run(
    policy: Policy,
    caller: Caller,
    args: dict[str, Any],
    *,
    engine: LocalEngine | None,
    ledger: Ledger | None = None,
    executed: int | None = None,
    attested: bool = False,
) -> Verdict:
    """Decide one call without executing it or writing anything.

    ``executed`` fixes the rate-limit count (policy tests); otherwise it is
    counted from ``ledger`` (0 without one). With no ``engine`` there is no
    memory, so evidence finds nothing.
    """

    async def count(window_s: float) -> int:
        if executed is not None:
            return executed
        if ledger is None:
            return 0
        return ledger.count_executed(caller.id, policy.tool, time.time() - window_s)

    async def evidence() -> ServiceDecision:
        query, slot, match, top_k = evidence_request(policy, args)
        if engine is None:
            return ServiceDecision("", "abstain", [], [], "no memory store")
        return await engine.preview(caller.id, query, top_k=top_k, slot=slot, match=match)

    return await run_rules(policy, caller, args, executed=count, evidence=evidence, attested=attested)
