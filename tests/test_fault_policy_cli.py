"""Faults a hostile tester found in policy loading, the command line and caller ids.

- A control character, a second document or an unhashable key is a policy problem at its own line.
- Policy values have strict types: "false" is not false, 1 is not true, true is not 1 second.
- The command line: a port in use, no command, a missing policy directory, a mistyped GATE_HOME.
- Caller ids are matched in full: "alice\\n" is not a caller.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import gate
from gate.cli import app
from gate.cli.serve import BindError, bind
from gate.policy.loader import load_policy_dir
from gate.policy.tests import load_test_files
from tests.conftest import POLICIES, Calendar, make_tools

ROOT = Path(__file__).parent.parent
GOOD_REFUND = (POLICIES / "issue_refund.yaml").read_text()
GOOD_BOOK = (POLICIES / "book_visit.yaml").read_text()


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(app, list(args), env=env)


def one_line_failure(result: Result) -> str:
    """The single stderr line of a failed command (and nothing on stdout)."""
    assert result.exit_code not in (0, None), result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert result.stdout == ""
    return lines[0]


def policy_dir(tmp_path: Path, refund: str | bytes, book: str = GOOD_BOOK) -> Path:
    d = tmp_path / "pol"
    d.mkdir(exist_ok=True)
    path = d / "issue_refund.yaml"
    if isinstance(refund, bytes):
        path.write_bytes(refund)
    else:
        path.write_text(refund)
    (d / "book_visit.yaml").write_text(book)
    return d


def gate_issues(directory: Path) -> list[gate.PolicyIssue]:
    with pytest.raises(gate.PolicyError) as info:
        gate.Gate(make_tools(Calendar()), policies=directory)
    return info.value.issues


# -- 1. characters YAML does not allow, and the line of every YAML error -------------------


@pytest.mark.parametrize(("char", "code"), [("\x00", "U+0000"), ("\x07", "U+0007"), ("\x7f", "U+007F")])
def test_a_control_character_is_a_policy_error_at_its_line(
    tmp_path: Path, home: Path, char: str, code: str
) -> None:
    text = GOOD_REFUND.replace("timeout_s: 1.0", f"timeout_s: 1.0  # a{char}b")
    line = GOOD_REFUND.splitlines().index("timeout_s: 1.0") + 1
    (issue,) = gate_issues(policy_dir(tmp_path, text.encode()))
    assert issue.line == line and issue.field == "(file)"
    assert f"control character {code} at line {line}, column 20" in issue.message


def test_a_control_character_fails_the_check_with_exit_1(tmp_path: Path) -> None:
    directory = policy_dir(tmp_path, b"tool: issue_refund\x00\n")
    result = run("policy", "check", str(directory))
    assert result.exit_code == 1 and "Traceback" not in result.output
    (problem,) = [line for line in result.stderr.splitlines() if "issue_refund.yaml" in line]
    assert problem.startswith(
        f"{directory / 'issue_refund.yaml'}:1: (file): not valid YAML: control character"
    )


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        ("---\ntool: issue_refund\n", "but found another document"),
        ("? [a, b]\n: 1\n", "found unhashable key"),
    ],
)
def test_a_yaml_error_is_reported_at_the_line_of_the_problem(
    tmp_path: Path, extra: str, problem: str
) -> None:
    text = GOOD_REFUND + extra
    line = len(GOOD_REFUND.splitlines()) + 1
    result = run("policy", "check", str(policy_dir(tmp_path, text)))
    assert result.exit_code == 1
    (found,) = [x for x in result.stderr.splitlines() if "issue_refund.yaml" in x]
    assert f"issue_refund.yaml:{line}: (file): not valid YAML: {problem} (line {line}," in found


def test_a_fifo_named_like_a_policy_does_not_hang_the_check(tmp_path: Path) -> None:
    directory = policy_dir(tmp_path, GOOD_REFUND)
    (directory / "book_visit.yaml").unlink()
    fifo = directory / "book_visit.yaml"
    os.mkfifo(fifo)
    found: list[list[gate.PolicyIssue]] = []
    reader = threading.Thread(target=lambda: found.append(load_policy_dir(directory)[1]), daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # blocked opening the FIFO: release it, then fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(10)
        pytest.fail("reading a FIFO named like a policy blocked")
    assert [i.message for i in found[0]] == ["not a regular file (a pipe, socket or device)"]


# -- 2. strict types ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "field", "expected"),
    [
        ("  required: false", '  required: "false"', "evidence.required", "got 'false', which is text"),
        (
            "caller: {verified: true,",
            'caller: {verified: "off",',
            "caller.verified",
            "got 'off', which is text",
        ),
        ("caller: {verified: true,", "caller: {verified: 1,", "caller.verified", "got 1, a whole number"),
        ("timeout_s: 1.0", "timeout_s: true", "timeout_s", "got true, a boolean"),
        ("timeout_s: 1.0", 'timeout_s: "1.0"', "timeout_s", "write the number without quotes"),
        ("rate: {max: 3,", "rate: {max: true,", "rate.max", "got true, a boolean"),
        ("  required: false", '  required: false\n  top_k: "5"', "evidence.top_k", "got '5', which is text"),
        (
            "amount: {min: 0.01, max: 200}",
            "amount: {allowed: [true]}",
            "limits.amount.allowed.0",
            "got true (a boolean)",
        ),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_not_converted(
    tmp_path: Path, home: Path, old: str, new: str, field: str, expected: str
) -> None:
    assert old in GOOD_REFUND
    text = GOOD_REFUND.replace(old, new)
    line = next(i for i, x in enumerate(text.splitlines(), 1) if new.splitlines()[-1] in x)
    (issue,) = gate_issues(policy_dir(tmp_path, text))
    assert (issue.field, issue.line) == (field, line), issue
    assert expected in issue.message
    result = run("policy", "check", str(tmp_path / "pol"))
    assert result.exit_code == 1
    assert f"issue_refund.yaml:{line}: {field}: " in result.stderr


@pytest.mark.parametrize("value", ["2", "1e0", "0.5"])
def test_a_whole_or_exponent_number_is_still_a_number(tmp_path: Path, value: str) -> None:
    directory = policy_dir(tmp_path, GOOD_REFUND.replace("timeout_s: 1.0", f"timeout_s: {value}"))
    found, issues = load_policy_dir(directory)
    assert issues == []
    assert found["issue_refund"].policy.timeout_s == float(value)


def test_a_quoted_boolean_in_a_policy_test_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        'tool: issue_refund\ncases:\n  - name: x\n    caller: {id: alice, verified: "yes"}\n'
        "    expect: {outcome: act}\n"
    )
    _, issues = load_test_files(tmp_path)
    assert [(i.field, i.line) for i in issues] == [("cases.0.caller.verified", 4)]


def test_a_bad_caller_id_in_a_policy_test_is_a_problem_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        'tool: issue_refund\ncases:\n  - name: x\n    caller: {id: "alice smith"}\n'
        "    expect: {outcome: act}\n"
    )
    _, issues = load_test_files(tmp_path)
    assert [(i.field, i.line) for i in issues] == [("cases.0.caller.id", 4)]


@pytest.mark.parametrize(
    "directory",
    [
        ROOT / "policies",
        ROOT / "tests" / "policies",
        ROOT / "tests" / "policies_confirm",
        ROOT / "tests" / "kill",
        ROOT / "bench" / "policies",
    ],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_every_policy_in_the_repository_still_loads(directory: Path) -> None:
    found, issues = load_policy_dir(directory)
    assert issues == [] and found
    tests = directory / "tests"
    if tests.is_dir():
        files, problems = load_test_files(tests)
        assert problems == [] and files


# -- 3. the command line --------------------------------------------------------------------


@pytest.fixture
def ledger_url(home: Path) -> str:
    home.mkdir(parents=True, exist_ok=True)
    url = f"sqlite:///{home / 'ledger.db'}"
    gate.Ledger(url).close()
    return url


def test_serve_on_a_port_in_use_is_one_line_and_announces_nothing(ledger_url: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        line = one_line_failure(run("audit", "serve", "--port", str(port)))
    assert line.startswith(f"gate: port {port} is in use: ")


def test_bind_names_an_address_that_is_not_this_hosts() -> None:
    with pytest.raises(BindError, match=r"cannot bind 192\.0\.2\.1:"):
        bind("192.0.2.1", 8765)


def test_serve_serves_on_the_socket_it_bound(tmp_path: Path, ledger_url: str, home: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "GATE_HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("GATE_DATABASE_URL", None)
    server = subprocess.Popen(
        [sys.executable, "-c", "from gate.cli import main; main()", "audit", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        announced = server.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in announced
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
                    assert page.status == 200
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
    finally:
        server.terminate()
        server.communicate(timeout=30)


@pytest.mark.parametrize(
    "args", [[], ["audit"], ["policy"], ["ledger"]], ids=["gate", "audit", "policy", "ledger"]
)
def test_no_command_is_one_line_naming_the_commands(args: list[str]) -> None:
    result = run(*args)
    line = one_line_failure(result)
    assert result.exit_code == 2
    assert line.startswith("gate: missing a command: one of ")
    assert line.endswith("--help)")
    expected = {(): "audit", ("audit",): "verify", ("policy",): "check", ("ledger",): "upgrade"}[tuple(args)]
    assert expected in line


def test_no_command_through_the_installed_entry_point() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from gate.cli import main; main()"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("gate: missing a command: one of ") and done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "command",
    [["policy", "check"], ["policy", "test"], ["policy", "replay", "--policies"]],
    ids=["check", "test", "replay"],
)
def test_a_missing_policy_directory_is_one_line(tmp_path: Path, home: Path, command: list[str]) -> None:
    missing = tmp_path / "nonexistent"
    result = run(*command, str(missing))
    assert one_line_failure(result) == f"{missing}: (directory): no such policy directory"
    assert result.exit_code == 1


def test_upgrade_refuses_a_home_without_a_ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mistyped = tmp_path / "gate-hme"
    monkeypatch.setenv("GATE_HOME", str(mistyped))
    monkeypatch.delenv("GATE_DATABASE_URL", raising=False)
    line = one_line_failure(run("ledger", "upgrade"))
    assert line.startswith(f"gate: no ledger at {mistyped / 'ledger.db'} ") and "--create" in line
    assert not mistyped.exists()
    created = run("ledger", "upgrade", "--create")
    assert created.exit_code == 0 and created.stdout.startswith("created a ledger at ")
    again = run("ledger", "upgrade")
    assert again.exit_code == 0 and "is up to date" in again.stdout
    gate.Ledger(f"sqlite:///{mistyped / 'ledger.db'}", create=False).close()


def test_upgrade_refuses_a_database_that_is_not_a_ledger(tmp_path: Path) -> None:
    other = tmp_path / "notes.db"
    with sqlite3.connect(other) as db:
        db.execute("create table notes (body text)")
    url = f"sqlite:///{other}"
    line = one_line_failure(run("ledger", "upgrade", "--database-url", url))
    assert line.startswith(f"gate: {url} is not a gate ledger") and "--create" in line


# -- 4. caller ids are matched in full ------------------------------------------------------


@pytest.mark.parametrize("caller_id", ["alice\n", "alice\r\n", "\nalice", "alice\nbob"])
def test_a_caller_id_with_a_line_break_is_refused(caller_id: str) -> None:
    with pytest.raises(ValueError, match=r"Caller\.id must match"):
        gate.Caller(caller_id)


def test_forget_refuses_a_caller_id_with_a_trailing_newline(home: Path) -> None:
    result = run("forget", "--yes", "alice\n")
    line = one_line_failure(result)
    assert result.exit_code == 2
    assert line.startswith("gate: Caller.id must match") and line.endswith("got 'alice\\n'")


def test_explain_refuses_a_caller_id_with_a_trailing_newline(home: Path) -> None:
    line = one_line_failure(
        run("policy", "explain", "issue_refund", "--caller", "alice\n", "--policies", "x")
    )
    assert "got 'alice\\n'" in line


def test_an_action_name_with_a_trailing_newline_is_refused(tmp_path: Path) -> None:
    text = GOOD_REFUND.replace("action: payment.refund", 'action: "payment.refund\\n"')
    _, issues = load_policy_dir(policy_dir(tmp_path, text))
    assert [(i.field, i.line) for i in issues] == [("action", 2)]
