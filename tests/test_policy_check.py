"""`gate policy check` refuses exactly what `gate.Gate()` refuses at start-up, with file, line and field."""

from __future__ import annotations

import importlib
import itertools
import json
import shutil
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import gate
from gate.cli import app
from gate.policy import MAX_QUERY_CHARS, QueryTooLong
from tests.conftest import POLICIES

REPO = Path(__file__).resolve().parent.parent
runner = CliRunner()
_names = itertools.count()

TOOLS_SOURCE = '''
from gate import Action, gated_tool


@gated_tool
async def issue_refund(order_id: str, amount: float, action: Action) -> str:
    """Refund part of an order."""
    return f"Refunded {amount} on {order_id}."


@gated_tool
async def book_visit(day: str, action: Action) -> str:
    """Book a home visit on a weekday."""
    return f"Booked {day}."


TOOLS = [book_visit, issue_refund]
'''


class Project:
    """A directory laid out like a user's agent: a tools module, policies/, and the shell in it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.module = f"agent_tools_{next(_names)}"
        (root / f"{self.module}.py").write_text(TOOLS_SOURCE)
        self.policies = root / "policies"
        self.policies.mkdir()
        for name in ("issue_refund", "book_visit"):
            shutil.copy(POLICIES / f"{name}.yaml", self.policies / f"{name}.yaml")

    @property
    def spec(self) -> str:
        return f"{self.module}:TOOLS"

    def tools(self) -> list[gate.GatedTool]:
        if str(self.root) not in sys.path:
            sys.path.insert(0, str(self.root))
        return list(importlib.import_module(self.module).TOOLS)

    def edit(self, name: str, old: str, new: str) -> None:
        path = self.policies / f"{name}.yaml"
        text = path.read_text()
        assert old in text, old
        path.write_text(text.replace(old, new))

    def gate_issues(self) -> list[str]:
        """What `gate.Gate()` refuses to start on, one line per problem."""
        with pytest.raises(gate.PolicyError) as info:
            gate.Gate(self.tools(), policies="policies")
        return [str(issue) for issue in info.value.issues]

    def check(self, *args: str) -> tuple[int, list[str], str]:
        """`gate policy check`: exit code, the problem lines on stderr, and stdout."""
        result = runner.invoke(app, ["policy", "check", *args])
        problems = [line for line in result.stderr.splitlines() if not line.startswith("gate: ")]
        return result.exit_code, problems, result.stdout


@pytest.fixture
def project(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    root = tmp_path / "agent"
    root.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.syspath_prepend(str(root))  # removed again after the test
    return Project(root)


BROKEN = [
    # (policy, old, new, the problem line's ending)
    ("issue_refund", "refund order {order_id}", "refund order {order}", "evidence.query: 'order' is not"),
    ("issue_refund", "on order {order_id}?", "on order {order_id?", "messages.ask: malformed template"),
    ("book_visit", "{day} on this call", "{day on this call", "messages.abstain: malformed template"),
    ("issue_refund", "amount: {min: 0.01", "total: {min: 0.01", "limits.total: 'total' is not an argument"),
    ("issue_refund", "mask: [order_id]", "mask: [card_last4]", "audit.mask: 'card_last4' is not an argument"),
    (
        "issue_refund",
        "  required: false",
        "  match: [order_id, total]\n  required: false",
        "evidence.match: 'total' is not an argument of issue_refund (expected one of: order_id, amount)",
    ),
    ("book_visit", 'value: "{day}"', 'value: "{weekday}"', "evidence.slot.value: 'weekday' is not"),
    ("issue_refund", "{amount} on order", "{amount:.2f} on order", "must be a plain argument name"),
    ("issue_refund", "max: 200", "max: .nan", "limits.amount.max: expected a finite number, got nan"),
    ("issue_refund", "min: 0.01", "min: -.inf", "limits.amount.min: expected a finite number, got -inf"),
    ("book_visit", "allowed: [Monday,", "allowed: [.nan, Monday,", "limits.day.allowed.0: expected a finite"),
    (
        "issue_refund",
        "confirm: always",
        "confirm: always\nconfirm: never",
        "confirm: duplicate key (first at",
    ),
    ("book_visit", "required: true", "required: true\n  required: false", "evidence.required: duplicate key"),
    ("issue_refund", "tool: issue_refund", "tool: book_visit", "tool: 'book_visit' already has a policy in"),
    (
        "issue_refund",
        "{min: 0.01, max: 200}",
        "{min: 0.01, max: 200, max: 9999}",
        "limits.amount.max: duplicate",
    ),
    (
        "book_visit",
        "day: {allowed: [Monday,",
        "day: {max: 5, allowed: [Monday,",
        "limits.day.max: day is a str argument of book_visit; max applies to numbers",
    ),
    (
        "issue_refund",
        "amount: {min: 0.01, max: 200}",
        "amount: {allowed: [20, forty]}",
        "limits.amount.allowed.1: 'forty' can never equal amount, a float argument of issue_refund",
    ),
]


@pytest.mark.parametrize(("name", "old", "new", "expected"), BROKEN)
def test_check_refuses_what_start_up_refuses(
    project: Project, name: str, old: str, new: str, expected: str
) -> None:
    project.edit(name, old, new)
    refused = project.gate_issues()
    assert any(line.endswith(expected) or expected in line for line in refused), refused
    assert all(f"{name}.yaml:" in line for line in refused)
    code, problems, _ = project.check("policies", "--tools", project.spec)
    assert code == 1
    assert sorted(problems) == sorted(refused)


def test_problem_lines_point_at_the_line(project: Project) -> None:
    project.edit("issue_refund", "confirm: always", "confirm: always\nconfirm: never")
    project.edit("issue_refund", "max: 200", "max: .inf")
    text = (project.policies / "issue_refund.yaml").read_text().splitlines()
    refused = project.gate_issues()
    for line in refused:
        number = int(line.split(":")[1])
        field = line.split(": ")[1]
        assert field.split(".")[-1] in text[number - 1], (line, text[number - 1])


def test_a_tool_without_a_policy_fails_both(project: Project) -> None:
    (project.policies / "book_visit.yaml").unlink()
    with pytest.raises(gate.MissingPolicy) as info:
        gate.Gate(project.tools(), policies="policies")
    code, problems, _ = project.check("policies", "--tools", project.spec)
    assert code == 1
    assert problems == [str(i) for i in info.value.issues]
    assert "gated tool 'book_visit' has no policy with tool: book_visit" in problems[0]


def test_a_misspelt_tool_name_is_missing_and_pointed_out(project: Project) -> None:
    project.edit("book_visit", "tool: book_visit", "tool: book_vist")
    with pytest.raises(gate.MissingPolicy, match="gated tool 'book_visit' has no policy"):
        gate.Gate(project.tools(), policies="policies")
    result = runner.invoke(app, ["policy", "check", "policies", "--tools", project.spec])
    assert result.exit_code == 1
    assert f"policies/book_visit.yaml (tool: book_vist) governs none of {project.spec}" in result.stderr


def test_an_empty_policy_directory_is_an_error(project: Project, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    code, problems, _ = project.check(str(empty))
    assert code == 1 and problems == [f"{empty}: (directory): no policy files (*.yaml, *.yml) in it"]
    with pytest.raises(gate.MissingPolicy):
        gate.Gate(project.tools(), policies=empty)
    with pytest.raises(gate.PolicyError, match="no policy files"):
        gate.Gate([], policies=empty)


def test_the_project_table_names_the_tools(project: Project) -> None:
    project.edit("issue_refund", "refund order {order_id}", "refund order {order}")
    (project.root / "pyproject.toml").write_text(
        f'[project]\nname = "agent"\n\n[tool.gate]\ntools = "{project.spec}"\npolicies = "policies"\n'
    )
    code, problems, _ = project.check()
    assert code == 1 and problems == project.gate_issues()
    project.edit("issue_refund", "refund order {order}", "refund order {order_id}")
    code, problems, stdout = project.check()
    assert code == 0 and problems == []
    assert (
        stdout.strip() == f"2 policies valid in policies against {project.spec} (pyproject.toml [tool.gate])"
    )


def test_without_tools_it_says_loudly_what_was_not_checked_and_fails_unless_shape_only(
    project: Project,
) -> None:
    project.edit("issue_refund", "refund order {order_id}", "refund order {order}")
    assert project.gate_issues()
    result = runner.invoke(app, ["policy", "check", "policies"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip() == (
        "gate: references to tool arguments NOT checked: no tools known (pass --tools MODULE:NAME "
        "or set tools in [tool.gate] of pyproject.toml); --shape-only checks the shape alone"
    )
    as_json = json.loads(runner.invoke(app, ["policy", "check", "policies", "--json"]).stdout)
    assert as_json["ok"] is False and as_json["references_checked"] is False
    shape = runner.invoke(app, ["policy", "check", "policies", "--shape-only"])
    assert shape.exit_code == 0, shape.output
    assert shape.stdout.strip() == "2 policies valid in policies (shape only: --shape-only)"
    project.edit("issue_refund", "max: 200", "max: .nan")  # a shape problem is found without tools
    code, problems, _ = project.check("policies", "--shape-only")
    assert code == 1 and any("limits.amount.max: expected a finite number" in p for p in problems)
    both = runner.invoke(app, ["policy", "check", "policies", "--shape-only", "--tools", project.spec])
    assert both.exit_code == 2 and "--shape-only checks without the tools" in both.stderr


def test_every_problem_of_a_file_is_reported_in_one_pass(project: Project) -> None:
    """A typo'd key, a wrong type, a bad duration and a bad placeholder: one run, top to bottom."""
    (project.policies / "issue_refund.yaml").write_text(
        textwrap.dedent(
            """\
            tool: issue_refund
            action: payment.refund
            limitz: {amount: {max: 200}}
            timeout_s: "fast"
            rate: {max: 3, per: 1 fortnight}
            audit: {mask: [card]}
            messages:
              ask: "Refund {amount} on order {order}?"
            """
        )
    )
    code, problems, _ = project.check("policies", "--tools", project.spec)
    assert code == 1
    where = "policies/issue_refund.yaml"
    assert [p.split(": ")[0] + ": " + p.split(": ")[1] for p in problems] == [
        f"{where}:3: limitz",
        f"{where}:4: timeout_s",
        f"{where}:5: rate.per",
        f"{where}:6: audit.mask",
        f"{where}:8: messages.ask",
    ]
    assert problems[-1].endswith(
        "'order' is not an argument of issue_refund (expected one of: order_id, amount)"
    )
    assert problems == project.gate_issues()  # what start-up refuses, all at once too


def test_tools_that_cannot_be_imported_are_one_line(project: Project) -> None:
    (project.root / "broken_tools.py").write_text("raise RuntimeError('no database here')\n")
    (project.root / "not_tools.py").write_text("TOOLS = ['book_visit']\n")
    cases = {
        "missing_module:TOOLS": "no module named 'missing_module' in",
        "broken_tools:TOOLS": "importing broken_tools failed: RuntimeError: no database here",
        f"{project.module}:NOPE": f"{project.module} has no attribute 'NOPE'",
        "not_tools:TOOLS": "expected a list of @gated_tool functions, got list",
        "not a spec": "expected MODULE:NAME",
    }
    for spec, expected in cases.items():
        result = runner.invoke(app, ["policy", "check", "policies", "--tools", spec])
        assert result.exit_code == 2, spec
        assert result.stderr.count("\n") == 1 and expected in result.stderr, result.stderr
        assert result.stderr.startswith(f"gate: --tools {spec}: ")


def test_the_repository_policies_pass_against_the_worker_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = runner.invoke(app, ["policy", "check"])
    assert result.exit_code == 0, result.output
    assert (
        result.stdout.strip()
        == "3 policies valid in policies against worker:TOOLS (pyproject.toml [tool.gate])"
    )
    result = runner.invoke(app, ["policy", "check", "--json"])
    report = json.loads(result.stdout)
    assert report["ok"] and report["references_checked"] and report["issues"] == []
    assert sorted(p["tool"] for p in report["policies"]) == ["book_visit", "cancel_visit", "issue_refund"]


def test_check_json_lists_every_problem(project: Project) -> None:
    project.edit("issue_refund", "max: 200", "max: .nan")
    project.edit("book_visit", "timeout_s: 1.0", "timeout_s: 1.0\ntimeout_s: 2.0")
    result = runner.invoke(app, ["policy", "check", "policies", "--tools", project.spec, "--json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False and report["references_checked"] is True
    found = {(Path(i["file"]).name, i["field"]) for i in report["issues"]}
    assert found == {("issue_refund.yaml", "limits.amount.max"), ("book_visit.yaml", "timeout_s")}
    assert all(isinstance(i["line"], int) for i in report["issues"])


# -- reading files defensively -------------------------------------------------------


def test_a_huge_policy_is_refused_before_parsing(project: Project) -> None:
    path = project.policies / "issue_refund.yaml"
    path.write_text(path.read_text() + "".join(f"key{i}: {i}\n" for i in range(40_000)))
    assert path.stat().st_size > 256 * 1024
    started = time.perf_counter()
    refused = project.gate_issues()
    assert time.perf_counter() - started < 2
    assert refused == ["policies/issue_refund.yaml: (file): larger than 256 KiB; not a policy file"]


def test_many_problems_in_one_file_are_capped(project: Project) -> None:
    path = project.policies / "issue_refund.yaml"
    path.write_text(path.read_text() + "".join(f"key{i}: {i}\n" for i in range(500)))
    code, problems, _ = project.check("policies", "--tools", project.spec)
    assert code == 1 and len(problems) == 21
    assert problems[-1].endswith("... and 480 more problems")


def test_alias_bombs_are_refused(project: Project) -> None:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    path = project.policies / "issue_refund.yaml"
    path.write_text((path.read_text() + "description: *a8\n").replace("tool:", "\n".join(lines) + "\ntool:"))
    started = time.perf_counter()
    refused = project.gate_issues()
    assert time.perf_counter() - started < 2
    assert refused == [
        "policies/issue_refund.yaml: (file): more than 100000 values once aliases are expanded"
    ]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("tool: issue_refund\naction payment.refund\nconfirm: always\n", 2),
        ("tool: issue_refund\naction: payment.refund\nlimits: {amount: {max: 200}\nconfirm: always\n", 3),
        ("tool: [issue_refund\naction: payment.refund\n", 1),
        ("tool: issue_refund\n  action: payment.refund\n", 2),
        ("tool: 'issue_refund\naction: payment.refund\nconfirm: always\n", 1),
    ],
)
def test_yaml_errors_name_the_line_of_the_mistake(project: Project, text: str, line: int) -> None:
    path = project.policies / "issue_refund.yaml"
    path.write_text(text)
    refused = project.gate_issues()
    assert len(refused) == 1 and refused[0].startswith(
        f"policies/issue_refund.yaml:{line}: (file): not valid YAML: "
    )
    assert "\n" not in refused[0]


# -- evidence.match and long queries --------------------------------------------------


def test_evidence_match_is_explicit_or_the_placeholders(tmp_path: Path) -> None:
    refund = gate.parse_policy(POLICIES / "issue_refund.yaml").policy
    assert refund.evidence is not None and refund.evidence.match_names() == ["order_id"]
    book = gate.parse_policy(POLICIES / "book_visit.yaml").policy
    assert book.evidence is not None and book.evidence.match_names() == ["day"]
    path = tmp_path / "issue_refund.yaml"
    path.write_text(
        (POLICIES / "issue_refund.yaml")
        .read_text()
        .replace("  required: false", "  match: [order_id, amount]\n  required: false")
    )
    explicit = gate.parse_policy(path).policy
    assert explicit.evidence is not None and explicit.evidence.match_names() == ["order_id", "amount"]
    path.write_text(path.read_text().replace("match: [order_id, amount]", "match: [amount, amount]"))
    with pytest.raises(
        gate.PolicyError, match=r"issue_refund\.yaml:\d+: evidence\.match: amount listed twice"
    ):
        gate.parse_policy(path)


async def test_a_gate_reads_the_effective_match_list(project: Project) -> None:
    project.edit("issue_refund", "  required: false", "  match: [order_id, amount]\n  required: false")
    g = gate.Gate(project.tools(), policies=project.policies)
    try:
        evidence = g.policies["issue_refund"].policy.evidence
        assert evidence is not None and evidence.match_names() == ["order_id", "amount"]
    finally:
        await g.aclose()


def test_a_long_query_is_refused_or_truncated(tmp_path: Path) -> None:
    path = tmp_path / "issue_refund.yaml"
    text = (POLICIES / "issue_refund.yaml").read_text()
    path.write_text(text)
    evidence = gate.parse_policy(path).policy.evidence
    assert evidence is not None
    long_id = "A-" + "1" * MAX_QUERY_CHARS
    with pytest.raises(QueryTooLong, match=f"at most {MAX_QUERY_CHARS}"):
        evidence.rendered_query({"order_id": long_id})
    assert evidence.rendered_query({"order_id": "A-1"}) == "refund order A-1"
    path.write_text(text.replace("  required: false", "  long_query: truncate\n  required: false"))
    evidence = gate.parse_policy(path).policy.evidence
    assert evidence is not None
    words = " ".join(["A-1"] * 1000)
    cut = evidence.rendered_query({"order_id": words})
    assert len(cut) <= MAX_QUERY_CHARS and cut.startswith("refund order A-1 A-1") and cut.endswith("A-1")
    path.write_text(text.replace("  required: false", "  long_query: sometimes\n  required: false"))
    with pytest.raises(
        gate.PolicyError, match=r"evidence\.long_query: Input should be 'refuse' or 'truncate'"
    ):
        gate.parse_policy(path)


# -- explain checks the arguments as the tool would -----------------------------------


def _explain(*args: str) -> tuple[int, str]:
    result = runner.invoke(
        app,
        ["policy", "explain", "issue_refund", "--caller", "alice", "--verified", "--role", "customer", *args],
    )
    return result.exit_code, result.output


def test_explain_refuses_arguments_the_tool_would_refuse(project: Project) -> None:
    tools = ("--policies", "policies", "--tools", project.spec)
    code, output = _explain("--args", '{"order_id": "A-1", "amount": 20, "colour": "red"}', *tools)
    assert (code, output) == (
        2,
        "gate: --args: unknown argument(s) colour (issue_refund takes: order_id, amount)\n",
    )
    code, output = _explain("--args", '{"order_id": "A-1"}', *tools)
    assert (code, output) == (
        2,
        "gate: --args: missing argument(s) amount (issue_refund takes: order_id, amount)\n",
    )
    code, output = _explain("--args", '{"order_id": "A-1", "amount": "lots"}', *tools)
    assert code == 2 and output.startswith("gate: --args: amount: Input should be a valid number")
    code, output = _explain("--args", '{"order_id": "A-1", "amount": "20"}', *tools, "--json")
    assert code == 0, output
    assert (json.loads(output)["outcome"], json.loads(output)["rule"]) == ("ask", "confirm.always")


def test_explain_without_tools_checks_against_the_policy(project: Project) -> None:
    code, output = _explain(
        "--args", '{"order_id": "A-1", "amount": 20, "colour": "red"}', "--policies", "policies"
    )
    assert code == 2 and output.startswith(
        "gate: --args: unknown argument(s) colour (the policy of issue_refund"
    )
    code, output = _explain("--args", '{"amount": 20}', "--policies", "policies")
    assert code == 2 and output.startswith("gate: --args: missing argument(s) order_id")


# -- policy tests ------------------------------------------------------------------


def test_the_repository_policy_tests_pass_and_cover_every_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = runner.invoke(app, ["policy", "test", "policies", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["failed"] == 0 and report["issues"] == [] and report["untested"] == []
    assert {r["tool"] for r in report["results"]} == {"book_visit", "cancel_visit", "issue_refund"}
    outcomes = {(r["tool"], r["got"].split()[0]) for r in report["results"]}
    assert {("book_visit", "act"), ("book_visit", "ask"), ("book_visit", "abstain")} <= outcomes


def test_policy_test_refuses_cases_the_tool_would_refuse(project: Project) -> None:
    tests = project.policies / "tests"
    tests.mkdir()
    (tests / "refund.yaml").write_text(
        textwrap.dedent(
            """\
            tool: issue_refund
            cases:
              - name: refused for its limit
                caller: {id: alice, verified: true, roles: [customer]}
                args: {order_id: A-1, amount: 500}
                expect: {outcome: abstain, rule: limits.amount.max}
              - name: a typo in an argument
                caller: {id: alice, verified: true, roles: [customer]}
                args: {order: A-1, amount: 20}
                expect: {outcome: ask}
            """
        )
    )
    result = runner.invoke(app, ["policy", "test", "policies", "--tools", project.spec])
    assert result.exit_code == 1
    assert "policies/tests/refund.yaml:9: cases.1.args: a typo in an argument: unknown argument(s) order" in (
        result.stderr
    )
    assert result.stdout.splitlines() == ["PASS issue_refund: refused for its limit", "1 passed, 0 failed"]
    assert "no test cases for book_visit" in result.stderr


def test_policy_test_with_no_test_files_fails(project: Project) -> None:
    (project.policies / "tests").mkdir()
    result = runner.invoke(app, ["policy", "test", "policies", "--tools", project.spec, "--json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["passed"] == 0 and report["issues"][0]["message"] == "no test files (*.yaml, *.yml) in it"


def test_a_query_too_long_for_the_service_is_never_sent(project: Project) -> None:
    long_id = "A-" + "1" * MAX_QUERY_CHARS
    args = json.dumps({"order_id": long_id, "amount": 20})
    code, output = _explain("--args", args, "--policies", "policies", "--tools", project.spec, "--json")
    assert code == 0, output
    decided = json.loads(output)
    assert (decided["outcome"], decided["rule"]) == ("abstain", "evidence.query_too_long")
    project.edit("issue_refund", "  required: false", "  long_query: truncate\n  required: false")
    code, output = _explain("--args", args, "--policies", "policies", "--tools", project.spec, "--json")
    assert code == 0, output
    assert "evidence.query_too_long" not in {r["rule"] for r in json.loads(output)["trace"]}


async def test_a_gate_without_tools_needs_no_policy_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Caller memory alone: ``Gate([])`` starts anywhere, with no policies to read."""
    monkeypatch.chdir(tmp_path)  # no ./policies here
    monkeypatch.delenv("GATE_POLICIES", raising=False)
    g = gate.Gate([], settings=gate.GateSettings(home=tmp_path / "home", embedder="mock"))
    try:
        assert g.policies == {}
        await g.memory.remember("alice", "my dog is called Rex", source="user_stated", confidence=0.9)
        assert [m.text for m in (await g.memory.snapshot("alice")).items] == ["my dog is called Rex"]
    finally:
        await g.aclose()
    with pytest.raises(gate.PolicyError, match="no such policy directory"):
        gate.Gate([], policies=tmp_path / "missing")  # a directory that is named is still checked
