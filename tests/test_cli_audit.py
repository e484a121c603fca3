"""`gate audit` and `gate policy` through the CLI's test runner, on a ledger a real session wrote."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from gate.cli.demo_run import run_demo
from sqlalchemy import text
from typer.testing import CliRunner

import gate
from gate.cli import app
from tests.conftest import POLICIES

DEMO_POLICIES = Path(__file__).parent.parent / "policies"

runner = CliRunner()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("recorded")
    assert run_demo(home) == 0
    return home


@pytest.fixture
def db(recorded: Path, tmp_path: Path) -> str:
    copy = tmp_path / "ledger.db"
    shutil.copy(recorded / "ledger.db", copy)
    return f"sqlite:///{copy}"


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def listed(db: str, *filters: str) -> list[dict[str, object]]:
    code, output = cli("audit", "list", "--database-url", db, "--json", *filters)
    assert code == 0, output
    rows = json.loads(output)
    assert isinstance(rows, list)
    return rows


def test_list_is_newest_first_and_filters(db: str) -> None:
    rows = listed(db)
    assert len(rows) == 7
    assert [r["time"] for r in rows] == sorted((r["time"] for r in rows), reverse=True)
    assert {r["tool"] for r in listed(db, "--tool", "issue_refund")} == {"issue_refund"}
    assert [r["rule"] for r in listed(db, "--outcome", "abstain")] == ["limits.amount.max"]
    assert len(listed(db, "--status", "succeeded")) == 2
    assert listed(db, "--caller", "bob") == []
    assert listed(db, "--violations") == []
    assert listed(db, "--undelivered") == []
    assert len(listed(db, "--since", "1h")) == 7 and listed(db, "--until", "2000-01-01") == []
    first, second = listed(db, "--limit", "4"), listed(db, "--limit", "4", "--page", "2")
    assert len(first) == 4 and len(second) == 3 and not {r["id"] for r in first} & {r["id"] for r in second}


def test_list_table_and_bad_filters(db: str) -> None:
    code, output = cli("audit", "list", "--database-url", db)
    assert code == 0 and "limits.amount.max" in output and "book_visit" in output
    code, output = cli("audit", "list", "--database-url", db, "--outcome", "maybe")
    assert code == 2 and "outcome must be one of act, ask, abstain" in output
    code, output = cli("audit", "list", "--database-url", db, "--since", "last tuesday")
    assert code == 2 and "expected an ISO time" in output
    assert "Traceback" not in output


def test_show_tells_the_whole_story(db: str) -> None:
    (refund,) = listed(db, "--tool", "issue_refund", "--status", "succeeded")
    code, output = cli("audit", "show", str(refund["id"]), "--database-url", db, "--json")
    assert code == 0
    story = json.loads(output)
    d = story["decision"]
    assert d["caller"]["id"] == "alice" and d["arguments"] == {"amount": 40.0, "order_id": "A-1001"}
    assert d["policy"]["hash"].startswith("sha256:") and d["rule"] == "evidence"
    assert d["tool_call_id"].startswith("call_")
    assert "refund 40 on order A-1001" in story["evidence"]["memories"][0]["content"]
    assert story["confirmed_by"]["caller_words"] == "Yes, go ahead."
    receipt = story["receipt"]
    assert receipt["status"] == "succeeded" and receipt["external_ref"].startswith("refund-A-1001-")
    assert receipt["delivery"]["attempts"] == 1 and receipt["delivery"]["policy_alignment"] == "aligned"
    code, output = cli("audit", "show", str(refund["id"]), "--database-url", db)
    assert code == 0 and "caller said 'Yes, go ahead.'" in output and "alignment=aligned" in output


def test_show_unknown_id_is_one_line(db: str) -> None:
    code, output = cli("audit", "show", "gd_nope", "--database-url", db)
    assert code == 1 and output.strip() == "gate: no decision 'gd_nope' in the ledger"


def test_verify_and_a_tampered_ledger(db: str) -> None:
    code, output = cli("audit", "verify", "--database-url", db)
    assert code == 0 and "chain verified: 22 entries" in output
    ledger = gate.Ledger(db, create=False)
    with ledger.engine.begin() as conn:
        conn.execute(text("UPDATE gate_decisions SET outcome='act' WHERE rule='limits.amount.max'"))
    ledger.close()
    code, output = cli("audit", "verify", "--database-url", db)
    assert code == 1 and "decision was changed after it was recorded" in output


def test_export_jsonl_uses_genai_names(db: str) -> None:
    code, output = cli("audit", "export", "--format", "jsonl", "--database-url", db)
    assert code == 0
    events = [json.loads(line) for line in output.splitlines()]
    assert len(events) == 22
    assert [e["gate.chain.seq"] for e in events] == list(range(1, 23))
    decision = next(e for e in events if e["event.name"] == "gate.decision")
    assert decision["gen_ai.operation.name"] == "execute_tool"
    assert decision["gen_ai.tool.name"] == "book_visit" and decision["gen_ai.tool.call.id"]
    assert decision["enduser.id"] == "alice"
    kinds = {e["event.name"] for e in events}
    assert kinds == {"gate.decision", "gate.receipt", "gate.confirmation"}
    code, output = cli("audit", "export", "--format", "csv", "--database-url", db)
    assert code == 2 and "unknown format" in output


def test_stats(db: str) -> None:
    code, output = cli("audit", "stats", "--database-url", db, "--json")
    assert code == 0
    result = json.loads(output)
    assert result["decisions"] == 7
    assert result["by_tool"]["book_visit"] == {"act": 1, "ask": 3, "abstain": 0}
    assert result["by_receipt_status"] == {"skipped": 5, "succeeded": 2}
    assert 0 < result["latency_ms"]["p50"] <= result["latency_ms"]["p95"]
    code, output = cli("audit", "stats", "--database-url", db)
    assert code == 0 and "decision latency: p50" in output


def test_missing_ledger_is_one_clear_line(tmp_path: Path) -> None:
    for command in (["list"], ["show", "gd_x"], ["verify"], ["export"], ["stats"]):
        code, output = cli("audit", *command, "--database-url", f"sqlite:///{tmp_path / 'none.db'}")
        assert code == 2 and output.startswith("gate: no ledger at"), command
        assert "Traceback" not in output


def test_policy_explain_is_a_dry_run(db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GATE_HOME", str(tmp_path / "empty-home"))
    code, output = cli(
        "policy",
        "explain",
        "issue_refund",
        "--caller",
        "alice",
        "--verified",
        "--role",
        "customer",
        "--args",
        '{"order_id": "A-1", "amount": 500}',
        "--policies",
        str(POLICIES),
        "--json",
    )
    assert code == 0, output
    result = json.loads(output)
    assert (result["outcome"], result["rule"]) == ("abstain", "limits.amount.max")
    code, output = cli(
        "policy",
        "explain",
        "issue_refund",
        "--caller",
        "alice",
        "--verified",
        "--role",
        "customer",
        "--args",
        '{"order_id": "A-1", "amount": 20}',
        "--policies",
        str(POLICIES),
    )
    assert code == 0 and "ask (rule confirm.always)" in output and "nothing recorded" in output
    assert not (tmp_path / "empty-home").exists()  # a dry run creates nothing
    code, output = cli("policy", "explain", "nope", "--caller", "alice", "--policies", str(POLICIES))
    assert code == 2 and "no policy for tool 'nope'" in output
    code, output = cli("policy", "explain", "issue_refund", "--caller", "alice", "--args", "{oops")
    assert code == 2 and "--args is not JSON" in output


def test_policy_explain_reads_the_callers_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    assert run_demo(home) == 0
    monkeypatch.setenv("GATE_HOME", str(home))
    code, output = cli(
        "policy",
        "explain",
        "book_visit",
        "--caller",
        "alice",
        "--verified",
        "--args",
        '{"day": "Friday"}',
        "--policies",
        str(DEMO_POLICIES),
        "--json",
    )
    assert code == 0, output
    result = json.loads(output)
    # Friday is the caller's current wish; it was never confirmed (the slot was taken first).
    assert (result["outcome"], result["rule"]) == ("ask", "evidence")
    assert "Friday" in result["evidence"]["memories"][0]["content"]
    before = gate.Ledger(f"sqlite:///{home / 'ledger.db'}", create=False)
    assert len(before.decisions()) == 7  # nothing was recorded
    before.close()


def test_policy_test_passes_and_fails(tmp_path: Path) -> None:
    code, output = cli("policy", "test", str(POLICIES))
    assert code == 0 and "10 passed, 0 failed" in output
    bad = tmp_path / "tests"
    bad.mkdir()
    (bad / "refund.yaml").write_text(
        "tool: issue_refund\ncases:\n  - name: wrong on purpose\n"
        "    caller: {id: alice, verified: true, roles: [customer]}\n"
        "    args: {order_id: A-1, amount: 500}\n    expect: {outcome: act}\n"
    )
    code, output = cli("policy", "test", str(POLICIES), "--tests", str(bad))
    assert (
        code == 1
        and "FAIL issue_refund: wrong on purpose  expected act, got abstain (limits.amount.max)" in output
    )
    (bad / "refund.yaml").write_text(
        "tool: issue_refund\ncases:\n  - name: x\n    expect: {outcome: perhaps}\n"
    )
    code, output = cli("policy", "test", str(POLICIES), "--tests", str(bad))
    assert code == 1 and "refund.yaml:4: cases.0.expect.outcome" in output


def test_policy_check_reports_every_problem_with_lines(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("tool: a\naction: x\nconfirm: sometimes\nrate: {max: 0, per: 1d}\n")
    (tmp_path / "b.yaml").write_text("tool: b\naction: '1'\n")
    code, output = cli("policy", "check", str(tmp_path))
    assert code == 1
    assert (
        "a.yaml:3: confirm:" in output and "a.yaml:4: rate.max:" in output and "b.yaml:2: action:" in output
    )
    code, output = cli("policy", "check", str(POLICIES))
    assert code == 0 and "2 policies valid" in output


def test_policy_replay_lists_the_flips(db: str, tmp_path: Path) -> None:
    candidate = tmp_path / "candidate"
    candidate.mkdir()
    for name in ("book_visit", "issue_refund"):
        text_ = (DEMO_POLICIES / f"{name}.yaml").read_text()
        (candidate / f"{name}.yaml").write_text(text_.replace("max: 200", "max: 30"))
    code, output = cli("policy", "replay", "--policies", str(candidate), "--database-url", db, "--json")
    assert code == 0, output
    report = json.loads(output)
    assert report["checked"] == 7
    flips = report["flips"]
    assert len(flips) == 2  # the refund of 40: its ask and its act
    assert {(f["recorded"], f["candidate"], f["candidate_rule"]) for f in flips} == {
        ("ask", "abstain", "limits.amount.max"),
        ("act", "abstain", "limits.amount.max"),
    }
    code, output = cli("policy", "replay", "--policies", str(DEMO_POLICIES), "--database-url", db, "--json")
    assert json.loads(output)["flips"] == []  # the live policies replay to themselves
    code, output = cli("policy", "replay", "--policies", str(candidate), "--database-url", db)
    assert code == 0 and "2 of 7 decisions would flip" in output
