"""The command line: verify and check, with clear errors and exit codes."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text
from typer.testing import CliRunner

import gate
from gate.cli import app
from tests.conftest import POLICIES
from tests.test_ledger import _fill

runner = CliRunner()


def test_audit_verify_passes_then_names_the_tampered_entry(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = gate.Ledger(url)
    rows = _fill(ledger, 3)
    ok = runner.invoke(app, ["audit", "verify", "--database-url", url])
    assert ok.exit_code == 0 and "chain verified: 6 entries" in ok.output
    with ledger.engine.begin() as conn:
        conn.execute(text("UPDATE gate_receipts SET status='failed' WHERE decision_id=:i"), {"i": rows[1].id})
    bad = runner.invoke(app, ["audit", "verify", "--database-url", url])
    assert bad.exit_code == 1
    receipt = ledger.receipt_for(rows[1].id)
    assert receipt is not None
    assert f"chain broken: entry 4 ({receipt.id}): receipt was changed after it was recorded" in bad.output
    ledger.close()


def test_audit_verify_without_a_ledger_is_one_clear_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["audit", "verify", "--database-url", f"sqlite:///{tmp_path / 'none.db'}"])
    assert result.exit_code == 2 and "no ledger at" in result.output
    assert "Traceback" not in result.output


def test_policy_check(tmp_path: Path) -> None:
    good = runner.invoke(app, ["policy", "check", str(POLICIES), "--shape-only"])
    assert good.exit_code == 0 and "2 policies valid" in good.output
    (tmp_path / "a.yaml").write_text("tool: a\naction: x\nconfirm: sometimes\n")
    (tmp_path / "b.yaml").write_text("tool: b\naction: '1'\n")
    bad = runner.invoke(app, ["policy", "check", str(tmp_path), "--shape-only"])
    assert bad.exit_code == 1
    assert "a.yaml:3: confirm:" in bad.output and "b.yaml:2: action:" in bad.output
