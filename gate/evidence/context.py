"""What a decision service is told about the call, besides the hosted contract's query."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gate.evidence.request import TraceRequest
from gate.evidence.statements import Statement


@dataclass(frozen=True)
class EvidenceContext:
    """The request to trace and this call's own turns (oldest first).

    ``since``: when the call began (the gate's own records count from then).
    The hosted service never sees this: ContextDB Cloud's contract has no place
    for it, so the gate traces on the host with the memories the service returns.
    """

    request: TraceRequest
    call: Sequence[Statement] = field(default_factory=tuple)
    since: float | None = None
