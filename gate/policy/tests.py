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
(with the live embedder) holding only the case's memories; ``executed``
sets the rate-limit count and ``attested`` says the caller already confirmed
this action. A case's arguments are checked first, as the tool would check
them: a case the model could never call is a problem, not a pass.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from gate.caller import Caller, valid_caller_id
from gate.errors import PolicyError, PolicyIssue
from gate.ledger import Ledger
from gate.policy.explain import ArgumentProblem, check_arguments, dry_run, dry_run_engine
from gate.policy.loader import LoadedPolicy, Located, load_yaml_model
from gate.policy.rules import Verdict

if TYPE_CHECKING:
    from gate.decorator import GatedTool


class _Strict(BaseModel):
    # Strict types, as in policies: "false" is not false and "3" is not 3 (args stay as written).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class CaseCaller(_Strict):
    id: str = "test-caller"
    verified: bool = False
    roles: list[str] = Field(default_factory=list)

    @field_validator("id")
    @classmethod
    def _caller_id(cls, v: str) -> str:
        if not valid_caller_id(v):
            raise ValueError(f"expected a caller id of 1-128 letters, digits and ._:@+-, got {v!r}")
        return v


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
    """One case's verdict: what was expected, what the rules decided, and why."""

    file: str
    tool: str
    name: str
    passed: bool
    expected: str
    got: str
    detail: str


def load_test_files(directory: Path) -> tuple[list[Located[TestFile]], list[PolicyIssue]]:
    """Every test file under ``directory`` and every problem in them.

    A directory without test files is a problem: a test run that tests
    nothing must not pass.
    """
    files: list[Located[TestFile]] = []
    issues: list[PolicyIssue] = []
    paths = sorted([*directory.glob("*.yaml"), *directory.glob("*.yml")])
    if not paths:
        issues.append(PolicyIssue(str(directory), "(directory)", "no test files (*.yaml, *.yml) in it"))
    for path in paths:
        try:
            files.append(load_yaml_model(path, TestFile))
        except PolicyError as exc:
            issues.extend(exc.issues)
    return files, issues


async def _run_case(loaded: LoadedPolicy, case: Case, args: dict[str, Any], home: Path) -> Verdict:
    ledger = Ledger(f"sqlite:///{home / 'ledger.db'}")
    engine = dry_run_engine(f"sqlite:///{home / 'memory.db'}", ledger)
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
        return await dry_run(
            loaded.policy, caller, args, engine=engine, executed=case.executed, attested=case.attested
        )
    finally:
        await engine.aclose()
        ledger.close()


def run_policy_tests(
    policies: dict[str, LoadedPolicy],
    files: list[Located[TestFile]],
    tools: dict[str, GatedTool] | None = None,
) -> tuple[list[CaseResult], list[PolicyIssue]]:
    """Run every case against the policies keyed by their ``tool``.

    ``tools`` (keyed by policy name) makes each case's arguments checked
    against its tool as a live call would be; without them, against the
    policy (:func:`~gate.policy.explain.check_arguments`). A test file naming
    a tool without a policy, or a case whose arguments the tool would refuse,
    is a problem, not a pass.
    """
    results: list[CaseResult] = []
    issues: list[PolicyIssue] = []
    for located in files:
        test_file = located.value
        loaded = policies.get(test_file.tool)
        if loaded is None:
            have = ", ".join(sorted(policies)) or "none"
            issues.append(located.issue("tool", f"no policy for tool {test_file.tool!r} (have: {have})"))
            continue
        tool = (tools or {}).get(test_file.tool)
        for i, case in enumerate(test_file.cases):
            try:
                args = check_arguments(case.args, loaded.policy, tool)
            except ArgumentProblem as exc:
                issues.append(located.issue(f"cases.{i}.args", f"{case.name}: {exc}"))
                continue
            with tempfile.TemporaryDirectory(prefix="gate-policy-test-") as home:
                verdict = asyncio.run(_run_case(loaded, case, args, Path(home)))
            passed = verdict.outcome == case.expect.outcome and (
                case.expect.rule is None or verdict.rule == case.expect.rule
            )
            expected = case.expect.outcome + (f" ({case.expect.rule})" if case.expect.rule else "")
            got = f"{verdict.outcome} ({verdict.rule})"
            results.append(
                CaseResult(
                    located.path, test_file.tool, case.name, passed, expected, got, verdict.deciding.detail
                )
            )
    return results, issues
