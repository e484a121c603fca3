"""Evidence that bears on the arguments of one action.

The stock verify-before-act rule counts any trusted memory the query
happens to retrieve. gate counts a memory only when it speaks to the values
being acted on: every value the policy's evidence template names must
appear in the memory (as its slot value or as a whole word of its text).
A trusted phone number therefore never supports booking Thursday.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class EvidenceSlot:
    """An exact memory slot (entity, attribute) to read instead of a similarity search."""

    entity: str
    attribute: str


@dataclass(frozen=True)
class EvidenceMemory:
    """One memory as evidence: what it says and whether it may gate an action."""

    id: str
    content: str
    trusted: bool
    requires_confirmation: bool = False
    injection_suspect: bool = False
    slot_value: str | None = None
    source: str | None = None
    confidence: float | None = None


@dataclass(frozen=True)
class ServiceDecision:
    """The decision service's answer to one evaluation."""

    decision_id: str
    outcome: str  # act | ask | abstain
    memories: list[EvidenceMemory] = field(default_factory=list)
    pending_ids: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass(frozen=True)
class ServiceReceipt:
    """The decision service's record of a receipt."""

    receipt_id: str
    decision_id: str
    status: str
    policy_alignment: str
    replayed: bool = False


def _words(text: str) -> set[str]:
    # Whole tokens ("a-1001", "12:30") as well as their parts, without the
    # punctuation that ends a sentence ("a-1001." is "a-1001").
    whole = {w.strip(".:-") for w in re.split(r"[^\w.:\-]+", text.casefold())}
    parts = set(re.split(r"\W+", text.casefold()))
    return {w for w in whole | parts if w}


def bears_on(memory: EvidenceMemory, values: Sequence[str]) -> bool:
    """Whether the memory speaks to every one of ``values``.

    With no values (a template without placeholders) every memory bears on
    the action; policies that act on arguments should name them.
    """
    if not values:
        return True
    words = _words(memory.content)
    slot = (memory.slot_value or "").casefold().strip()
    for value in values:
        wanted = str(value).casefold().strip()
        if not wanted:
            continue
        if wanted == slot:
            continue
        if " " in wanted:
            if wanted not in memory.content.casefold():
                return False
        elif wanted not in words:
            return False
    return True


def classify(memories: Sequence[EvidenceMemory], values: Sequence[str]) -> ServiceDecision:
    """Act on relevant trusted memories, ask on relevant untrusted ones, else abstain.

    Injection suspects are never evidence. The returned ``decision_id`` is
    empty; the service that records the decision fills it in.
    """
    relevant = [m for m in memories if not m.injection_suspect and bears_on(m, values)]
    trusted = [m for m in relevant if m.trusted]
    if trusted:
        return ServiceDecision("", "act", trusted, [], "trusted memory supports these arguments")
    if relevant:
        pending = [m.id for m in relevant if m.requires_confirmation or not m.trusted]
        return ServiceDecision(
            "", "ask", relevant, pending, "memory supports these arguments but is not trusted yet"
        )
    return ServiceDecision("", "abstain", [], [], "nothing on file supports these arguments")
