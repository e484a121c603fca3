"""Policy unit tests written in YAML, run by ``gate policy test``.

A test file (``<policy dir>/tests/*.yaml``) names a tool and lists cases::

    tool: issue_refund
    cases:
      - name: over the limit is refused
        caller: {id: alice, verified: true, roles: [customer]}
        args: {order_id: A-1, amount: 500}
        expect: {outcome: abstain, rule: limits.amount.max}
      - name: a stated wish makes it ask
        caller: {id: alice, verified: true}
        memories:
          - {content: "I'd like my visit on Thursday", confidence: 0.5}
        args: {day: Thursday}
        expect: {outcome: ask}

Each case runs the live rules as a dry run against a fresh embedded engine
holding only the case's memories; ``executed`` sets the rate-limit count and
``attested`` says the caller already confirmed this action.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from gate.backends.local import LocalEngine
from gate.caller import Caller
from gate.errors import PolicyError, PolicyIssue
from gate.ledger import Ledger
from gate.policy.explain import dry_run
from gate.policy.loader import LoadedPolicy, load_yaml_model


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CaseCaller(_Strict):
    id: str = "test-caller"
    verified: bool = False
    roles: list[str] = Field(default_factory=list)


class CaseMemory(_Strict):
    content: str = Field(min_length=1)
    source: Literal["user_stated", "agent_inferred", "third_party"] = "user_stated"
    confidence: float = Field(default=0.5, ge=0, le=1)
    entity: str | None = None
    attribute: str | None = None
    confirmed: bool = False


class Expect(_Strict):
    outcome: Literal["act", "ask", "abstain"]
    rule: str | None = None


class Case(_Strict):
    name: str = Field(min_length=1)
    caller: CaseCaller = Field(default_factory=CaseCaller)
    args: dict[str, Any] = Field(default_factory=dict)
    memories: list[CaseMemory] = Field(default_factory=list)
    executed: int = Field(default=0, ge=0)
    attested: bool = False
    expect: Expect


class TestFile(_Strict):
    tool: str = Field(min_length=1)
    cases: list[Case] = Field(min_length=1)


@dataclass(frozen=True)
class CaseResult:
    file: str
    tool: str
    name: str
    passed: bool
    expected: str
    got: str
    detail: str


def load_test_files(directory: Path) -> tuple[list[tuple[str, TestFile]], list[PolicyIssue]]:
    """Every test file under ``directory`` and every problem in them."""
    files: list[tuple[str, TestFile]] = []
    issues: list[PolicyIssue] = []
    for path in sorted([*directory.glob("*.yaml"), *directory.glob("*.yml")]):
        try:
            files.append((str(path), load_yaml_model(path, TestFile)))
        except PolicyError as exc:
            issues.extend(exc.issues)
    return files, issues


async def _run_case(loaded: LoadedPolicy, case: Case, home: Path) -> CaseResult:
    ledger = Ledger(f"sqlite:///{home / 'ledger.db'}")
    engine = LocalEngine(f"sqlite:///{home / 'memory.db'}", ledger)
    try:
        for memory in case.memories:
            memory_id = await engine.remember(
                case.caller.id,
                memory.content,
                source=memory.source,
                confidence=memory.confidence,
                entity=memory.entity,
                attribute=memory.attribute,
            )
            if memory.confirmed:
                await engine.confirm(case.caller.id, memory_id, idempotency_key=f"confirm-{memory_id}")
        caller = Caller(case.caller.id, verified=case.caller.verified, roles=frozenset(case.caller.roles))
        verdict = await dry_run(
            loaded.policy, caller, case.args, engine=engine, executed=case.executed, attested=case.attested
        )
    finally:
        await engine.aclose()
        ledger.close()
    passed = verdict.outcome == case.expect.outcome and (
        case.expect.rule is None or verdict.rule == case.expect.rule
    )
    expected = case.expect.outcome + (f" ({case.expect.rule})" if case.expect.rule else "")
    return CaseResult(
        "",
        loaded.policy.tool,
        case.name,
        passed,
        expected,
        f"{verdict.outcome} ({verdict.rule})",
        verdict.deciding.detail,
    )


def run_policy_tests(
    policies: dict[str, LoadedPolicy], files: list[tuple[str, TestFile]]
) -> tuple[list[CaseResult], list[PolicyIssue]]:
    """Run every case; a test file naming a tool without a policy is a problem, not a pass."""
    results: list[CaseResult] = []
    issues: list[PolicyIssue] = []
    for path, test_file in files:
        loaded = policies.get(test_file.tool)
        if loaded is None:
            issues.append(PolicyIssue(path, "tool", f"no policy for tool {test_file.tool!r}"))
            continue
        for case in test_file.cases:
            with tempfile.TemporaryDirectory(prefix="gate-policy-test-") as home:
                result = asyncio.run(_run_case(loaded, case, Path(home)))
            results.append(
                CaseResult(
                    path, result.tool, result.name, result.passed, result.expected, result.got, result.detail
                )
            )
    return results, issues
