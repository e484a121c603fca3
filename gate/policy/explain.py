"""Dry runs: what the gate would decide, with the trace, executing and recording nothing.

Used by ``gate policy explain`` and ``gate policy test``. The rules are the
live ones (:func:`gate.rules.run_rules`); evidence comes from the embedded
engine's :meth:`~gate.LocalEngine.preview`, which records no decision. The
tool's own state reader is not available outside the worker, so no state is
read.
"""

from __future__ import annotations

import time
from typing import Any

from gate.backends.local import LocalEngine
from gate.caller import Caller
from gate.evidence import ServiceDecision
from gate.ledger import Ledger
from gate.pipeline import evidence_request
from gate.policy.rules import Verdict, run_rules
from gate.policy.schema import Policy


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
