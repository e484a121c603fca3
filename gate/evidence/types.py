"""The evidence contract between the gate and its decision services.

What a backend returns (:class:`ServiceDecision`, :class:`ServiceReceipt`),
what it reads (:class:`EvidenceMemory`, :class:`EvidenceSlot`), and the
argument trace that says where each bound value came from (:class:`Trace`).
The backends import this module only; the judgement lives beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["support", "against", "pending"]
ArgumentStatus = Literal["traced", "default", "missing", "conflict", "denied", "unchecked"]
Source = Literal["call", "memory", "confirmation", "default"]
Speaker = Literal["caller", "agent", "other"]
ActionStatus = Literal["requested", "missing", "denied", "withdrawn"]


@dataclass(frozen=True)
class EvidenceSlot:
    """An exact memory slot (entity, attribute) to read instead of a similarity search."""

    entity: str
    attribute: str


@dataclass(frozen=True)
class EvidenceMemory:
    """One memory as evidence: what it says, whether it may gate an action, and what it did.

    ``similarity`` is the cosine with the rendered query (None: unknown).
    ``created_at`` is seconds since the epoch (None: unknown; hosted memories
    carry no time). ``role`` is set on the memories a decision returns:
    ``support``, ``against`` or ``pending`` (support that needs the caller's
    confirmation). ``note`` says why, in a few words.
    """

    id: str
    content: str
    trusted: bool
    requires_confirmation: bool = False
    injection_suspect: bool = False
    slot_value: str | None = None
    source: str | None = None
    confidence: float | None = None
    negated: bool = False
    similarity: float | None = None
    created_at: float | None = None
    said_by: str | None = None
    in_slot: bool = False
    role: Role = "support"
    note: str = ""


@dataclass(frozen=True)
class Accepted:
    """The caller's words that took up a value the agent offered."""

    words: str
    at: float | None
    message_id: str | None


@dataclass(frozen=True)
class ArgumentTrace:
    """Where one bound argument's value came from, or that nothing said it.

    ``status``: ``traced`` (the caller said it, or took it up when the agent
    offered it), ``default`` (the tool's own default, which the caller never
    spoke of), ``missing`` (nothing said it), ``conflict`` (the caller's latest
    word on it is another value), ``denied`` (the caller said no to it),
    ``unchecked`` (not one of the values the policy binds). ``words`` is
    personal text.
    """

    name: str
    value: Any
    status: ArgumentStatus
    rule: str
    note: str = ""
    source: Source | None = None
    speaker: Speaker | None = None
    at: float | None = None
    turn: int | None = None
    message_id: str | None = None
    memory_id: str | None = None
    words: str | None = None
    span: tuple[int, int] | None = None
    accepted: Accepted | None = None
    trusted: bool = True

    def as_record(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "status": self.status,
            "source": self.source,
            "speaker": self.speaker,
            "at": self.at,
            "turn": self.turn,
            "message_id": self.message_id,
            "memory_id": self.memory_id,
            "words": self.words,
            "span": list(self.span) if self.span is not None else None,
            "accepted": None
            if self.accepted is None
            else {
                "words": self.accepted.words,
                "at": self.accepted.at,
                "message_id": self.accepted.message_id,
            },
            "rule": self.rule,
            "note": self.note,
            # False: the value may not gate the action by itself (the caller's yes must confirm it).
            "trusted": self.trusted,
        }


@dataclass(frozen=True)
class ActionTrace:
    """Whether, and where, the caller asked for the action itself."""

    status: ActionStatus
    rule: str
    note: str = ""
    words: str | None = None
    at: float | None = None
    turn: int | None = None
    message_id: str | None = None
    memory_id: str | None = None
    similarity: float | None = None
    speaker: Speaker | None = None
    accepted: Accepted | None = None
    trusted: bool = True

    @property
    def accepted_id(self) -> str | None:
        return self.accepted.message_id if self.accepted is not None else None

    def as_record(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "words": self.words,
            "at": self.at,
            "turn": self.turn,
            "message_id": self.message_id,
            "memory_id": self.memory_id,
            "rule": self.rule,
            "similarity": None if self.similarity is None else round(self.similarity, 3),
            "note": self.note,
        }


Verdict = Literal["supported", "partial", "denied", "none"]


@dataclass(frozen=True)
class Trace:
    """The whole trace of one request: the action, every argument, and what they add up to.

    ``verdict``: ``supported`` (the action asked for and every bound argument
    traced or at its default), ``denied`` (the caller's current word is no),
    ``partial`` (some of it is there), ``none``. ``rule`` is the stable id of the
    rule that decided the verdict; ``reason`` says it in a sentence.
    ``trusted``: every source the support rests on may gate an action (this
    call's own words, or trusted memory). ``against``: ids of memories that deny.
    """

    action: ActionTrace
    arguments: tuple[ArgumentTrace, ...]
    verdict: Verdict
    rule: str
    reason: str
    trusted: bool = True
    against: tuple[str, ...] = ()
    supporting: tuple[str, ...] = ()
    # Every bound value said, in words that name nothing else ("thursday please"), with no
    # request for the action: enough to ask the caller the whole question, never to act.
    bare: bool = False

    def argument(self, name: str) -> ArgumentTrace | None:
        return next((a for a in self.arguments if a.name == name), None)

    def as_record(self) -> dict[str, Any]:
        """The trace as the ledger keeps it (``evidence_json["arguments"]`` and ``["action"]``)."""
        return {
            "arguments": [a.as_record() for a in self.arguments],
            "action": self.action.as_record(),
            "verdict": self.verdict,
            "verdict_rule": self.rule,
        }


@dataclass(frozen=True)
class ServiceDecision:
    """The decision service's answer to one evaluation.

    ``memories`` are the memories that decided, each with its ``role``:
    the supporting ones for ``act``/``ask``, the ones against for an
    ``abstain`` caused by the caller's own denial. ``trace`` is the argument
    trace the answer rests on, when the service made one (the embedded engine
    does; for ContextDB Cloud the gate makes it on the host).
    """

    decision_id: str
    outcome: str  # act | ask | abstain
    memories: list[EvidenceMemory] = field(default_factory=list)
    pending_ids: list[str] = field(default_factory=list)
    reason: str = ""
    trace: Trace | None = None
    rule: str = ""


@dataclass(frozen=True)
class ServiceReceipt:
    """The decision service's record of a receipt."""

    receipt_id: str
    decision_id: str
    status: str
    policy_alignment: str
    replayed: bool = False
