"""The rules of one decision, in order, with the I/O they need passed in.

The live pipeline, ``gate policy explain`` / ``gate policy test`` (dry runs)
and ``gate policy replay`` (recorded facts) all decide through
:func:`run_rules`, so a dry run or a replay can never disagree with what the
gate would do. Order: caller, argument limits, rate (any failure is final:
nothing more is asked), state, evidence under the time budget, confirmation.
The most restrictive outcome wins (abstain < ask < act).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from gate.caller import Caller
from gate.decorator import State
from gate.evidence import ServiceDecision
from gate.policy.schema import RESTRICTIVENESS, Policy, QueryTooLong
from gate.values import is_finite_number


@dataclass(frozen=True)
class RuleResult:
    """One rule's verdict, kept in the decision's trace.

    ``rule`` is a stable dotted id (``confirm.always``, ``evidence.trace``). ``detail``
    never holds what a person said: the caller's or the agent's own words the rule
    read go in ``words``, which the ledger keeps apart as personal text (erasable).
    """

    rule: str
    outcome: str
    detail: str = ""
    words: str | None = None

    def as_dict(self) -> dict[str, str]:
        out = {"rule": self.rule, "outcome": self.outcome, "detail": self.detail}
        if self.words is not None:
            out["words"] = self.words
        return out


@dataclass
class Verdict:
    """What the rules decided, the trace, and the facts they read."""

    outcome: str
    rule: str
    trace: list[RuleResult]
    state: State | None = None
    evidence: ServiceDecision | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def deciding(self) -> RuleResult:
        return next((r for r in self.trace if r.rule == self.rule), self.trace[-1])


class EvidenceNotRecorded(Exception):
    """Replay only: the recorded decision never looked evidence up, so it cannot be replayed."""


async def run_rules(
    policy: Policy,
    caller: Caller,
    args: dict[str, Any],
    *,
    executed: Callable[[float], Awaitable[int]],
    evidence: Callable[[], Awaitable[ServiceDecision]],
    state: Callable[[], Awaitable[State | None]] | None = None,
    attested: bool = False,
    force_ask: str | None = None,
    confirmed_version: str | None = None,
    service_must_act: bool = False,
    forced: RuleResult | None = None,
) -> Verdict:
    """Decide act/ask/abstain for one call.

    ``executed(window_s)`` counts the caller's executed actions of this tool in
    the window; ``evidence()`` asks the decision service; ``state()`` reads the
    tool's versioned state. A failing or slow ``state`` or ``evidence`` becomes
    an ``abstain`` (fail closed); only :class:`EvidenceNotRecorded` propagates.

    ``confirmed_version``: the state version the caller confirmed; a read that
    differs asks again (``state.changed``). ``service_must_act``: the live gate
    never executes on a service answer other than ``act`` (that receipt would be
    a violation), so such an answer abstains (``service``). ``forced``: a rule
    result decided before the rules ran (e.g. a confirmation that could not be
    recorded with the service).
    """
    trace = caller_rules(policy, caller) + argument_rules(args) + limit_rules(policy, args)
    if forced is not None:
        trace.append(forced)
    if policy.rate is not None and not blocked(trace):
        used = await executed(policy.rate.seconds)
        if used >= policy.rate.max:
            trace.append(
                RuleResult("rate", "abstain", f"{used} of {policy.rate.max} per {policy.rate.per} used")
            )
    read: State | None = None
    if state is not None and not blocked(trace):
        try:
            read = await state()
            trace.append(RuleResult("state", "act", f"version {read.version}" if read else "no state"))
        except Exception as exc:  # a broken reader must not let the action through
            trace.append(RuleResult("state.unavailable", "abstain", type(exc).__name__))
        if read is not None and read.unavailable:
            trace.append(RuleResult("state.conflict", "abstain", read.unavailable[:300]))
        elif confirmed_version is not None and not blocked(trace):
            now = None if read is None else str(read.version)
            if now != confirmed_version:
                force_ask = force_ask or "state.changed"
    if force_ask and not blocked(trace):
        trace.append(RuleResult(force_ask, "ask", "the state moved since the caller was asked"))
    found: ServiceDecision | None = None
    if not blocked(trace):
        try:
            found = await asyncio.wait_for(evidence(), timeout=policy.timeout_s)
            rule = evidence_rule(policy, found, attested)
        except EvidenceNotRecorded:
            raise
        except QueryTooLong as exc:
            rule = RuleResult("evidence.query_too_long", "abstain", str(exc))
        except TimeoutError:
            rule = RuleResult("evidence.timeout", "abstain", f"no answer within {policy.timeout_s:g}s")
        except Exception as exc:
            rule = RuleResult("evidence.unavailable", "abstain", f"{type(exc).__name__}: {exc}"[:300])
        trace.append(rule)
    trace += confirm_rules(policy, trace, attested)
    if service_must_act and found is not None and found.outcome != "act" and combine(trace)[0] == "act":
        trace.append(
            RuleResult(
                "service",
                "abstain",
                f"the decision service answered {found.outcome}; acting on it would be a violation",
            )
        )
    outcome, deciding = combine(trace)
    return Verdict(outcome, deciding, trace, read, found)


def blocked(trace: list[RuleResult]) -> bool:
    return any(r.outcome == "abstain" for r in trace)


def caller_rules(policy: Policy, caller: Caller) -> list[RuleResult]:
    out: list[RuleResult] = []
    if policy.caller.verified and not caller.verified:
        out.append(RuleResult("caller.verified", "abstain", "the caller is not verified"))
    if policy.caller.roles and not caller.roles.intersection(policy.caller.roles):
        out.append(RuleResult("caller.roles", "abstain", f"needs one of: {', '.join(policy.caller.roles)}"))
    return out


def argument_rules(args: dict[str, Any]) -> list[RuleResult]:
    """Non-finite numbers (NaN, infinity) are refused wherever they appear: no limit can hold them."""
    bad = sorted(name for name, value in args.items() if not _finite(value))
    if not bad:
        return []
    return [
        RuleResult(
            "arguments.non_finite",
            "abstain",
            f"{', '.join(bad)} must be a finite number (got NaN or infinity)",
        )
    ]


def _finite(value: Any) -> bool:
    # Only numbers: a text argument reading "nan" may be a name, and a numeric
    # parameter given "nan" arrives already parsed as a float.
    if isinstance(value, bool):
        return True
    if isinstance(value, float | Decimal):
        return is_finite_number(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_finite(v) for v in value)
    return True


def limit_rules(policy: Policy, args: dict[str, Any]) -> list[RuleResult]:
    out: list[RuleResult] = []
    for name, limit in policy.limits.items():
        if name not in args:
            continue
        value = args[name]
        if limit.allowed is not None and value not in limit.allowed:
            allowed = ", ".join(str(a) for a in limit.allowed)
            out.append(RuleResult(f"limits.{name}.allowed", "abstain", f"{name} must be one of: {allowed}"))
        if limit.max_length is not None and len(str(value)) > limit.max_length:
            out.append(RuleResult(f"limits.{name}.max_length", "abstain", f"{name} is too long"))
        if limit.min is None and limit.max is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            out.append(RuleResult(f"limits.{name}", "abstain", f"{name} must be a number"))
            continue
        if limit.max is not None and value > limit.max:
            detail = f"{name} {value:g} is above the limit of {limit.max:g}"
            out.append(RuleResult(f"limits.{name}.max", "abstain", detail))
        if limit.min is not None and value < limit.min:
            detail = f"{name} {value:g} is below the minimum of {limit.min:g}"
            out.append(RuleResult(f"limits.{name}.min", "abstain", detail))
    return out


def evidence_kind(found: ServiceDecision) -> str:
    """What the evidence says: ``trace`` (supported), ``untrusted``, ``denied`` or ``missing``.

    From the trace's rule when the service made one, else from its outcome (an
    answer recorded before the trace existed, or from a service that makes none).
    """
    rule = found.rule.removeprefix("evidence.")
    if rule in ("trace", "untrusted", "denied", "missing"):
        return rule
    if found.outcome == "act":
        return "trace"
    if found.outcome == "ask":
        return "untrusted"
    if any(m.role == "against" for m in found.memories):
        return "denied"
    return "missing"


def evidence_rule(policy: Policy, found: ServiceDecision, attested: bool) -> RuleResult:
    """The evidence's verdict under the policy, with a stable rule id.

    ``evidence.trace`` (act): every bound argument traced to what the caller said.
    ``evidence.denied`` (abstain): the caller's current word is no; it is cited.
    ``evidence.untrusted`` (ask): supported only by memory not trusted yet.
    ``evidence.missing``: nothing supports it; the gate asks the question carrying
    every value (``evidence.missing: ask``, the default) or abstains (``abstain``, or
    a tool that never asks). ``evidence.confirmed`` (act): the caller said yes to
    the question carrying every value. ``evidence.recorded`` (act): the policy does
    not require evidence; the answer is only recorded (a denial still stops it).
    """
    kind = evidence_kind(found)
    outcome = found.outcome if found.outcome in RESTRICTIVENESS else "abstain"
    ev = policy.evidence
    if kind == "denied" and not attested:
        # The caller's own no stops the action whatever the policy requires; a yes said
        # after it, to the question carrying every value, is their latest word.
        return RuleResult("evidence.denied", "abstain", found.reason)
    if ev is None or not ev.required:
        # Recorded, not required: the service's answer never decides here (the live
        # gate still never executes on a non-act answer: see ``service``).
        return RuleResult("evidence.recorded", "act", f"recorded, not required ({outcome}: {found.reason})")
    if attested and kind in ("untrusted", "missing", "trace"):
        # The caller's spoken yes to the question carrying every value is first-party evidence.
        return RuleResult(
            "evidence.confirmed", "act", "the caller said yes to the question carrying every value"
        )
    if kind == "trace":
        return RuleResult("evidence.trace", "act", found.reason)
    if kind == "untrusted":
        return RuleResult("evidence.untrusted", "ask", found.reason)
    if ev.missing == "abstain" or policy.confirm == "never":
        return RuleResult("evidence.missing", "abstain", found.reason)
    return RuleResult("evidence.missing", "ask", found.reason)


def confirm_rules(policy: Policy, trace: list[RuleResult], attested: bool) -> list[RuleResult]:
    if blocked(trace):
        return []
    if policy.confirm == "always" and not attested:
        return [RuleResult("confirm.always", "ask", "this action is always confirmed by the caller")]
    if policy.confirm == "never" and any(r.outcome == "ask" for r in trace):
        return [RuleResult("confirm.never", "abstain", "evidence is unsure and this tool never asks")]
    return []


def combine(trace: list[RuleResult]) -> tuple[str, str]:
    """The most restrictive outcome, and the first rule that gave it."""
    outcome = min((r.outcome for r in trace), key=RESTRICTIVENESS.__getitem__, default="act")
    for result in trace:
        if result.outcome == outcome and not (outcome == "act" and result.rule == "state"):
            return outcome, result.rule
    return outcome, "default"
