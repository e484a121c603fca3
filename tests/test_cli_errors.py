"""Every failure of the command line is one line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import gate
from gate.cli import app

ROOT = Path(__file__).parent.parent


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


@pytest.fixture
def ledger_url(home: Path) -> str:
    """A real, empty gate ledger in GATE_HOME."""
    home.mkdir(parents=True, exist_ok=True)
    url = f"sqlite:///{home / 'ledger.db'}"
    gate.Ledger(url).close()
    return url


@pytest.mark.parametrize(
    "args",
    [
        ["--page", "99999999999999999999"],
        ["--after", "99999999999999999999"],
        ["--limit", "99999999999999999999"],
        ["--since", "99999999999999999999"],
    ],
)
def test_numbers_too_large_for_the_database(ledger_url: str, args: list[str]) -> None:
    assert one_line_failure(run("audit", "list", *args)).startswith("gate: ")


def test_an_unknown_command_is_one_line() -> None:
    line = one_line_failure(run("audti", "list"))
    assert line.startswith("gate: No such command 'audti'.") and line.endswith("(see root --help)")


@pytest.mark.parametrize(
    ("variable", "value", "args", "allowed"),
    [
        ("GATE_EMBEDDER", "nope", ["audit", "list"], "minilm, multilingual, mock"),
        ("GATE_MEMORY", "nope", ["forget", "x"], "auto, local, cloud, geniffy"),
    ],
)
def test_a_malformed_setting_names_the_variable_and_the_allowed_values(
    ledger_url: str, variable: str, value: str, args: list[str], allowed: str
) -> None:
    line = one_line_failure(run(*args, env={variable: value}))
    assert line == f"gate: {variable}='{value}': expected one of {allowed}"


def test_an_unreachable_postgresql_server(home: Path) -> None:
    url = "postgresql://gate@127.0.0.1:1/gate"
    line = one_line_failure(run("audit", "list", "--database-url", url))
    assert "127.0.0.1" in line and "refused" in line
    assert "sqlalche.me" not in line


@pytest.mark.parametrize("url", ["mysql://gate@db/gate", "ledger.db", "/var/lib/gate/ledger.db"])
@pytest.mark.parametrize("command", [["audit", "list"], ["ledger", "upgrade"]])
def test_a_database_the_ledger_does_not_run_on(home: Path, url: str, command: list[str]) -> None:
    line = one_line_failure(run(*command, "--database-url", url))
    assert "SQLite or PostgreSQL" in line and "sqlite:///" in line


def test_a_policy_path_that_is_a_file_not_a_directory(tmp_path: Path) -> None:
    policy = tmp_path / "issue_refund.yaml"
    policy.write_text((ROOT / "policies" / "issue_refund.yaml").read_text())
    result = run("policy", "check", str(policy))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{policy}: (directory): not a directory" in result.output


def test_a_file_that_is_not_sqlite_is_named(home: Path) -> None:
    home.mkdir(parents=True)
    (home / "ledger.db").write_text("these are my notes, not a database\n" * 100)
    line = one_line_failure(run("audit", "list"))
    assert str(home / "ledger.db") in line and "not a database" in line


@pytest.mark.parametrize("content", ["empty file", "another application's database"])
def test_a_sqlite_file_without_the_ledger_is_not_a_gate_ledger(home: Path, content: str) -> None:
    home.mkdir(parents=True)
    path = home / "ledger.db"
    path.touch()
    if content != "empty file":
        with sqlite3.connect(path) as db:
            db.execute("create table notes (id integer primary key, body text)")
    line = one_line_failure(run("audit", "list"))
    assert "not a gate ledger" in line and "no such table" not in line


def test_a_policy_with_a_yaml_error_names_the_file_and_line(tmp_path: Path) -> None:
    policies = tmp_path / "policies"
    policies.mkdir()
    broken = "tool: book_visit\naction: booking.create\nconfirm: always: never\n"
    (policies / "book_visit.yaml").write_text(broken)
    result = run("policy", "check", str(policies))
    assert result.exit_code not in (0, None) and "Traceback" not in result.output
    lines = result.stderr.splitlines()
    # Every problem is one line of its own: the file and the line the problem is on, then what.
    (problem,) = [line for line in lines if "book_visit.yaml" in line and "YAML" in line]
    assert problem.startswith(f"{policies / 'book_visit.yaml'}:3:")
    assert all(line.startswith(("gate:", str(policies))) for line in lines if line.strip())


def test_user_values_are_printed_literally(ledger_url: str) -> None:
    line = one_line_failure(run("audit", "show", "gd_:x:[bold]"))
    assert "gd_:x:[bold]" in line and "❌" not in line


def test_a_bad_log_level(ledger_url: str) -> None:
    line = one_line_failure(run("audit", "list", env={"GATE_LOG_LEVEL": "loud"}))
    assert line == "gate: GATE_LOG_LEVEL='LOUD': expected one of DEBUG, INFO, WARNING, ERROR, CRITICAL"


def test_version() -> None:
    done = subprocess.run(["gate", "--version"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.strip() == f"gate {version('gate')}"
    assert done.stderr == ""


def test_through_the_installed_command_too(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from gate.cli import main; main()", "audit", "list"],
        env={"PATH": "/usr/bin:/bin", "GATE_HOME": str(tmp_path), "GATE_EMBEDDER": "nope"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == "gate: GATE_EMBEDDER='nope': expected one of minilm, multilingual, mock\n"
