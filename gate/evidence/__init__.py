"""Evidence: is the action what the authenticated caller asked for, argument by argument?

The stock verify-before-act rule acts on any trusted memory a query happens
to retrieve. gate traces the request instead (:mod:`gate.evidence.trace`):
the action recognised by meaning in the caller's own words, and every bound
argument's value to the turn (this call) or memory (earlier calls) that
states it, keeping what is current; each deciding rule has a stable id.
:func:`judge` turns a trace into the decision service's answer:

``act``      supported, on sources that may gate an action by themselves
``ask``      supported only by memory not yet trusted (the caller's yes confirms it)
``abstain``  the caller's current word is no (cited), or nothing supports it

The contract types the backends import live in :mod:`gate.evidence.types`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from gate.evidence.context import EvidenceContext
from gate.evidence.forms import search_keys
from gate.evidence.meaning import Meaning, NoMeaning, Prepared, Similarities
from gate.evidence.request import ArgumentSpec, TraceRequest, build, from_match
from gate.evidence.statements import Statement, combined, from_history, from_memories
from gate.evidence.trace import trace
from gate.evidence.types import (
    Accepted,
    ActionTrace,
    ArgumentTrace,
    EvidenceMemory,
    EvidenceSlot,
    ServiceDecision,
    ServiceReceipt,
    Trace,
)

__all__ = [
    "Accepted",
    "ActionTrace",
    "ArgumentSpec",
    "ArgumentTrace",
    "EvidenceContext",
    "EvidenceMemory",
    "EvidenceSlot",
    "Meaning",
    "NoMeaning",
    "Prepared",
    "ServiceDecision",
    "ServiceReceipt",
    "Similarities",
    "Statement",
    "Trace",
    "TraceRequest",
    "build",
    "combined",
    "decision_of",
    "from_history",
    "from_match",
    "from_memories",
    "judge",
    "search_keys",
    "trace",
]


def decision_of(found: Trace, memories: Sequence[EvidenceMemory] = ()) -> ServiceDecision:
    """The decision service's answer for a trace (``decision_id`` empty: the service fills it)."""
    by_id = {m.id: m for m in memories}
    if found.verdict == "denied":
        cited = [replace(by_id[i], role="against", note=found.reason) for i in found.against if i in by_id]
        outcome_reason = found.reason
        if cited:
            outcome_reason = f"{found.reason} ({', '.join(m.id for m in cited)})"
        return ServiceDecision("", "abstain", cited, [], outcome_reason, trace=found, rule="evidence.denied")
    if found.verdict == "supported":
        support = [by_id[i] for i in found.supporting if i in by_id]
        if found.trusted:
            cited = [replace(m, role="support", note="supports these arguments") for m in support]
            return ServiceDecision("", "act", cited, [], found.reason, trace=found, rule="evidence.trace")
        pending = [
            replace(m, role="pending", note="supports these arguments, not yet trusted") for m in support
        ]
        reason = (
            "the caller's words support this, from memory not yet trusted"
            if pending
            else "the caller's words in this call support this; their yes to the question confirms it"
        )
        return ServiceDecision(
            "",
            "ask",
            pending,
            [m.id for m in pending if not m.trusted],
            reason,
            trace=found,
            rule="evidence.untrusted",
        )
    if found.bare:
        pending = [
            replace(by_id[i], role="pending", note="says these values, not the action")
            for i in found.supporting
            if i in by_id
        ]
        return ServiceDecision(
            "",
            "ask",
            pending,
            [m.id for m in pending],
            "the caller said these values but never the action itself",
            trace=found,
            rule="evidence.missing",
        )
    return ServiceDecision("", "abstain", [], [], found.reason, trace=found, rule="evidence.missing")


def judge(
    memories: Iterable[EvidenceMemory],
    request: TraceRequest,
    meaning: Similarities | None = None,
    *,
    call: Sequence[Statement] = (),
    since: float | None = None,
) -> ServiceDecision:
    """Trace ``request`` over the caller's ``memories`` and this ``call``'s turns; the service's answer.

    ``meaning``: similarities prepared for these texts (see
    :func:`gate.evidence.reading.texts_for` and, for a memory that points back at the one
    before it, :func:`gate.evidence.reading.pointer_texts`); without it only words and values
    decide (nothing is close in meaning).
    """
    listed = list(memories)
    statements = combined(from_memories(listed), list(call))
    found = trace(request, statements, meaning or NoMeaning(), since=since)
    return decision_of(found, listed)


def request_of(query: str, match: Sequence[Any] | Mapping[str, Any] = (), **kwargs: Any) -> TraceRequest:
    """Shorthand for :func:`gate.evidence.request.from_match`."""
    return from_match(query, match, **kwargs)
