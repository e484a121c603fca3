"""The offline demo runs end to end and leaves a verified audit."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

import gate
from gate.cli import app


def test_demo_runs_and_its_audit_checks_out(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["demo", "--home", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "deterministic script" in result.output and "chain: verified" in result.output
    ledger = gate.Ledger(f"sqlite:///{tmp_path / 'ledger.db'}", create=False)
    decisions = ledger.decisions()
    assert [(d.tool, d.outcome, d.rule) for d in decisions] == [
        ("book_visit", "ask", "evidence"),
        ("book_visit", "act", "evidence"),
        ("issue_refund", "abstain", "limits.amount.max"),
        ("book_visit", "ask", "evidence"),
        ("book_visit", "ask", "state.changed"),
        ("issue_refund", "ask", "evidence"),
        ("issue_refund", "act", "evidence"),
    ]
    assert "memory at the start of call 2 mentions Thursday: True" in result.output
    assert "Friday was just taken by someone else, so I did not book it." in result.output
    receipts = {r.decision_id: r.status for r in ledger.receipts()}
    assert [receipts[d.id] for d in decisions].count("succeeded") == 2
    alignments = {r.policy_alignment for r in ledger.receipts() if r.service_decision_id}
    assert alignments == {"aligned"}
    assert ledger.verify().ok
    ledger.close()
