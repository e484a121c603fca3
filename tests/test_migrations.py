"""The ledger's schema is versioned: old ledgers are refused until upgraded, and keep their chain.

``tests/data/ledger_a2d3e17.sql`` is a ledger written by the last version
of gate before schema versioning (built by ``make_ledger_a2d3e17.py``):
decisions, a confirmation asked and answered, and receipts delivered
(aligned and violated), pending after a failed try, rejected and local.
"""

from __future__ import annotations

import multiprocessing as mp
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

import gate
import gate.audit
from gate.cli import app
from gate.ledger import DecisionRow, ReceiptRow, schema
from gate.ledger.store import Ledger, normalise_url

DUMP = Path(__file__).parent / "data" / "ledger_a2d3e17.sql"
OLD_DELIVERY = {
    "gr_old0000": ("delivered", "aligned"),
    "gr_old0001": ("delivered", "aligned"),
    "gr_old0002": ("local", None),
    "gr_old0003": ("delivered", "violated"),
    "gr_old0004": ("pending", None),
    "gr_old0005": ("rejected", None),
}
runner = CliRunner()


def old_sqlite_ledger(path: Path) -> str:
    conn = sqlite3.connect(path)
    conn.executescript(DUMP.read_text())
    conn.close()
    return f"sqlite:///{path}"


def old_postgres_ledger(url: str) -> str:
    """The same ledger on PostgreSQL: the baseline schema, then the dump's rows."""
    engine = create_engine(normalise_url(url))
    try:
        schema.migrate(engine, schema.BASELINE)
        with engine.begin() as conn:
            conn.execute(text("DROP TABLE alembic_version"))  # as written before versioning
            for statement in DUMP.read_text().splitlines():
                if statement.startswith("INSERT INTO"):
                    conn.exec_driver_sql(statement)
    finally:
        engine.dispose()
    return url


def _decision(**overrides: Any) -> DecisionRow:
    values: dict[str, Any] = dict(
        id=f"gd_{uuid.uuid4().hex}",
        created_at=time.time(),
        session_id="s-new",
        caller_id="alice",
        caller_json='{"id": "alice"}',
        tool="book_visit",
        action_name="booking.create",
        args_json='{"day": "Friday"}',
        args_digest="sha256:new",
        action_digest="sha256:new",
        policy_name="book_visit",
        policy_hash="sha256:new",
        mode="enforce",
        outcome="act",
        enforced_outcome="act",
        rule="evidence",
        trace_json="[]",
        evidence_json="{}",
        service_decision_id="sd_new",
        latency_ms=2.0,
    )
    values.update(overrides)
    return DecisionRow(**values)


def _upgrade_and_check(url: str) -> None:
    with pytest.raises(gate.ledger.LedgerOutOfDate, match="gate ledger upgrade"):
        Ledger(url)
    refused = runner.invoke(app, ["audit", "list", "--database-url", url])
    assert refused.exit_code == 2
    assert refused.stderr.strip().endswith("run `gate ledger upgrade`") and refused.stderr.count("\n") == 1

    upgraded = runner.invoke(app, ["ledger", "upgrade", "--database-url", url])
    assert upgraded.exit_code == 0, upgraded.output
    assert f"from schema 0001 to {schema.HEAD}" in upgraded.stdout
    again = runner.invoke(app, ["ledger", "upgrade", "--database-url", url])
    assert again.exit_code == 0 and "up to date" in again.stdout

    ledger = Ledger(url, create=False)
    try:
        report = ledger.verify()
        assert report.ok, report.first_broken
        old_entries = report.checked
        # What the old mutable columns said is now chained delivery records.
        receipts = {r.id: r for r in ledger.receipts()}
        assert {rid: (r.delivery_state, r.policy_alignment) for rid, r in receipts.items()} == OLD_DELIVERY
        assert receipts["gr_old0004"].last_error == "TimeoutError: "
        assert receipts["gr_old0000"].attempts == 2
        assert [r.id for r in ledger.undelivered()] == ["gr_old0004"]
        # The pending receipt carried over is claimed by one drain, and only by it.
        assert [r.id for r in ledger.claim_undelivered("drain-a", lease_s=60)] == ["gr_old0004"]
        assert ledger.claim_undelivered("drain-b", lease_s=60) == []
        # New entries chain on after the old ones.
        d = _decision()
        assert ledger.record_decision(d)
        r = ReceiptRow(
            id=f"gr_{uuid.uuid4().hex}",
            decision_id=d.id,
            idempotency_key=f"receipt-{d.id}",
            created_at=time.time(),
            caller_id="alice",
            action_name="booking.create",
            status="succeeded",
            service_decision_id="sd_new",
        )
        ledger.record_receipt(r)
        ledger.record_delivery(r.id, state="delivered", policy_alignment="aligned", service_receipt_id="rc")
        ledger.record_delivery(
            "gr_old0004", state="delivered", policy_alignment="aligned", service_receipt_id="x"
        )
        report = ledger.verify()
        assert report.ok and report.checked == old_entries + 4
        assert ledger.undelivered() == []
        # Rows written before personal text was kept apart still verify and display as read
        # (their text is inside what the chain hashes), and every reader checks them.
        from gate.audit import list_decisions, story

        old_story = story(ledger, "gd_old0001")
        assert old_story is not None and old_story["verified"], old_story and old_story["problems"]
        assert old_story["confirmation_asked"][0]["caller_words"] == "yes please"
        page = list_decisions(ledger, gate.audit.AuditFilter(), limit=50)
        assert all(r["problem"] is None for r in page.rows)
        kept = ledger.erase_caller("alice")
        assert kept.erased == 0 and kept.kept_in_chain >= 1
        assert ledger.verify().ok
        # The old, answered confirmation and the carried-over delivery are still tamper-evident.
        with ledger.engine.begin() as conn:
            conn.execute(
                text(
                    "UPDATE gate_deliveries SET policy_alignment = 'aligned' WHERE receipt_id = 'gr_old0003'"
                )
            )
        broken = ledger.verify().first_broken
        assert broken is not None and "changed after it was recorded" in broken.reason
        with ledger.engine.connect() as conn:
            diffs = compare_metadata(MigrationContext.configure(conn), schema.ledger_metadata())
        assert diffs == []
    finally:
        ledger.close()


def test_an_old_sqlite_ledger_is_refused_then_upgraded_with_its_chain(tmp_path: Path) -> None:
    _upgrade_and_check(old_sqlite_ledger(tmp_path / "old.db"))


@pytest.mark.postgres
def test_an_old_postgres_ledger_is_refused_then_upgraded_with_its_chain(pg_database: str) -> None:
    _upgrade_and_check(old_postgres_ledger(pg_database))


def _migrations_match_the_tables(url: str) -> None:
    engine = create_engine(normalise_url(url))
    try:
        schema.migrate(engine, "head")
        with engine.connect() as conn:
            assert schema.revision(conn) == schema.HEAD
            assert compare_metadata(MigrationContext.configure(conn), schema.ledger_metadata()) == []
    finally:
        engine.dispose()


def test_migrations_from_nothing_build_exactly_the_tables_on_sqlite(tmp_path: Path) -> None:
    _migrations_match_the_tables(f"sqlite:///{tmp_path / 'fresh.db'}")


@pytest.mark.postgres
def test_migrations_from_nothing_build_exactly_the_tables_on_postgres(pg_database: str) -> None:
    _migrations_match_the_tables(pg_database)


def test_the_head_revision_is_the_newest_migration() -> None:
    assert ScriptDirectory(str(schema.MIGRATIONS)).get_current_head() == schema.HEAD


def test_a_database_holding_something_else_is_not_a_ledger(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (x TEXT)")
    conn.close()
    result = runner.invoke(app, ["audit", "verify", "--database-url", f"sqlite:///{path}"])
    assert result.exit_code == 2
    assert "is not a gate ledger" in result.stderr and result.stderr.count("\n") == 1


def _upgrade_in_process(url: str, barrier: Any, out: Any) -> None:
    from typer.testing import CliRunner

    from gate.cli import app

    barrier.wait()
    result = CliRunner().invoke(app, ["ledger", "upgrade", "--json", "--database-url", url])
    out.put((result.exit_code, result.stdout + result.stderr))


def test_eight_processes_upgrading_at_once_migrate_once(tmp_path: Path) -> None:
    url = old_sqlite_ledger(tmp_path / "old.db")
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(8), ctx.Queue()
    procs = [ctx.Process(target=_upgrade_in_process, args=(url, barrier, out)) for _ in range(8)]
    for p in procs:
        p.start()
    results = [out.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(60)
    assert [code for code, _ in results] == [0] * 8, results
    assert sum('"before": "0001"' in text for _, text in results) == 1
    ledger = Ledger(url, create=False)
    try:
        assert ledger.verify().ok
        with ledger.engine.connect() as conn:
            carried = conn.execute(text("SELECT COUNT(*) FROM gate_deliveries")).scalar_one()
        assert carried == 5  # one per receipt that had been tried; the local one had nothing to carry
    finally:
        ledger.close()
