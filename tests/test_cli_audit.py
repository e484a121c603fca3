"""`gate audit` and `gate policy` through the CLI's test runner, on a ledger a real session wrote."""

from __future__ import annotations

import json
import re
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError, ProgrammingError
from typer.testing import CliRunner

import gate
from gate.cli import app
from gate.cli.demo_run import run_demo
from tests.conftest import POLICIES, pg_url

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
    rows = json.loads(output)["decisions"]
    assert isinstance(rows, list)
    return rows


def no_reprs(output: str) -> None:
    """Human output never shows Python's own spelling of values, nor box drawing when piped."""
    for python in ("None", "{'", "['", "True", "False", "error=", "(call "):
        assert python not in output, python
    assert not set(output) & set("│┃━─┏┓┗┛╭╮"), "box drawing in piped output"


def test_list_is_newest_first_and_filters(db: str) -> None:
    rows = listed(db)
    assert len(rows) == 6
    assert [r["time"] for r in rows] == sorted((str(r["time"]) for r in rows), reverse=True)
    assert {r["tool"] for r in listed(db, "--tool", "issue_refund")} == {"issue_refund"}
    assert [r["rule"] for r in listed(db, "--outcome", "abstain")] == ["state.conflict", "limits.amount.max"]
    assert len(listed(db, "--status", "succeeded")) == 2
    assert listed(db, "--caller", "bob") == []
    assert listed(db, "--violations") == []
    assert listed(db, "--undelivered") == []
    assert len(listed(db, "--since", "1h")) == 6 and listed(db, "--until", "2000-01-01") == []
    assert {r["delivery"] for r in rows} == {"delivered", "local"}


def test_list_pages_by_key(db: str) -> None:
    everything = [r["id"] for r in listed(db)]
    code, output = cli("audit", "list", "--database-url", db, "--json", "--limit", "4")
    first = json.loads(output)
    assert len(first["decisions"]) == 4 and first["next_after"] == first["decisions"][-1]["id"]
    code, output = cli(
        "audit", "list", "--database-url", db, "--json", "--limit", "4", "--after", first["next_after"]
    )
    second = json.loads(output)
    assert len(second["decisions"]) == len(everything) - 4 == 2 and second["next_after"] is None
    assert [r["id"] for r in first["decisions"] + second["decisions"]] == everything
    code, output = cli("audit", "list", "--database-url", db, "--limit", "4")
    assert f"next page: --after {first['next_after']}" in output
    code, output = cli("audit", "list", "--database-url", db, "--after", "gd_nope")
    assert code == 1 and output.strip() == "gate: no decision gd_nope to page after"


def test_list_is_plain_columns_when_piped_and_bad_filters_are_one_line(db: str) -> None:
    code, output = cli("audit", "list", "--database-url", db)
    assert code == 0 and "limits.amount.max" in output and "book_visit" in output
    header = output.splitlines()[0].split()
    assert header == [
        "time",
        "id",
        "caller",
        "tool",
        "arguments",
        "outcome",
        "rule",
        "receipt",
        "delivery",
        "alignment",
        "chain",
    ]
    no_reprs(output)
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
    assert d["caller"]["id"] == "demo-alice-1" and d["arguments"] == {"amount": 40.0, "order_id": "A-1001"}
    assert d["policy"]["hash"].startswith("sha256:") and d["rule"] == "evidence.recorded"
    assert d["tool_call_id"].startswith("call_")
    # What the caller's words said: every argument traced to words that carry it.
    traced = {a["name"]: a for a in story["evidence"]["arguments"]}
    assert {name: (a["value"], a["status"]) for name, a in traced.items()} == {
        "order_id": ("A-1001", "traced"),
        "amount": (40.0, "traced"),
    }
    assert all("refund 40 on order A-1001" in a["words"] for a in traced.values())
    assert story["confirmed_by"]["caller_words"] == "Yes, go ahead."
    assert story["conversation"]["question"] == "Please confirm: refund 40 on order A-1001?"
    receipt = story["receipt"]
    assert receipt["status"] == "succeeded" and receipt["external_ref"].startswith("refund-A-1001-")
    assert (receipt["delivery_state"], receipt["policy_alignment"]) == ("delivered", "aligned")
    (attempt,) = receipt["delivery"]
    assert attempt["state"] == "delivered" and attempt["service_receipt_id"].startswith("rcpt_")
    # The confirmation that let it run is part of its case file, and checked like the rest.
    assert [e["kind"] for e in story["chain"]] == ["confirmation.2", "decision.2", "receipt.2", "delivery"]
    assert story["chain"][1]["seq"] == d["chain_seq"]
    assert story["verified"] is True and story["problems"] == []
    code, output = cli("audit", "show", str(refund["id"]), "--database-url", db)
    assert code == 0 and re.search(r"caller said +Yes, go ahead\.", output)
    assert "delivery      delivered" in output and "alignment     aligned" in output
    no_reprs(output)


def test_show_unknown_id_is_one_line(db: str) -> None:
    code, output = cli("audit", "show", "gd_nope", "--database-url", db)
    assert code == 1 and output.strip() == "gate: no decision gd_nope in the ledger"


def test_verify_and_a_tampered_ledger(db: str) -> None:
    code, output = cli("audit", "verify", "--database-url", db)
    assert code == 0 and "chain verified: 20 entries" in output
    code, output = cli("audit", "verify", "--database-url", db, "--json")
    assert json.loads(output)["ok"] is True
    ledger = gate.Ledger(db, create=False)
    with ledger.engine.begin() as conn:
        conn.execute(text("UPDATE gate_deliveries SET policy_alignment='violated' WHERE state='delivered'"))
    ledger.close()
    code, output = cli("audit", "verify", "--database-url", db)
    assert code == 1 and "delivery was changed after it was recorded" in output
    code, output = cli("audit", "verify", "--database-url", db, "--json")
    assert (
        code == 1
        and json.loads(output)["first_broken"]["reason"] == "delivery was changed after it was recorded"
    )


def test_export_streams_every_entry_with_the_state_as_of_it(db: str) -> None:
    code, output = cli("audit", "export", "--format", "jsonl", "--database-url", db)
    assert code == 0
    events = [json.loads(line) for line in output.splitlines()]
    assert [e["gate.chain.seq"] for e in events] == list(range(1, 21))
    decision = next(e for e in events if e["event.name"] == "gate.decision")
    assert decision["gen_ai.operation.name"] == "execute_tool"
    assert decision["gen_ai.tool.name"] == "book_visit" and decision["gen_ai.tool.call.id"]
    assert decision["enduser.id"] == "demo-alice-1"
    kinds = {e["event.name"] for e in events}
    assert kinds == {"gate.decision", "gate.receipt", "gate.confirmation", "gate.delivery"}
    # A question and its answer are two entries: the first shows it as asked.
    by_confirmation: dict[str, list[dict[str, object]]] = {}
    for e in events:
        if e["event.name"] == "gate.confirmation":
            by_confirmation.setdefault(str(e["gate.confirmation.id"]), []).append(e)
    answered = [v for v in by_confirmation.values() if len(v) == 2]
    assert answered
    for asked, answer in answered:
        assert (asked["gate.confirmation.status"], asked["gate.confirmation.words"]) == ("pending", None)
        assert answer["gate.confirmation.status"] != "pending"
    # The yes to Friday (taken by another customer before it) and the yes to the refund of 40.
    assert sorted(str(a["gate.confirmation.words"]) for _, a in answered) == ["Yes, go ahead.", "Yes."]
    code, output = cli("audit", "export", "--format", "csv", "--database-url", db)
    assert code == 2 and "unknown format" in output


def test_export_reports_a_missing_record_and_fails(db: str) -> None:
    ledger = gate.Ledger(db, create=False)
    with ledger.engine.begin() as conn:
        seq, rid = conn.execute(
            text("SELECT seq, ref_id FROM gate_chain WHERE kind='receipt.2' LIMIT 1")
        ).one()
        conn.execute(text("DELETE FROM gate_receipts WHERE id=:i"), {"i": rid})
    ledger.close()
    result = runner.invoke(app, ["audit", "export", "--database-url", db])
    assert result.exit_code == 1
    assert f"gate: entry {seq} ({rid}): the receipt it records is missing" in result.stderr
    assert len(result.stdout.splitlines()) == 19  # every other entry is still exported


def test_stats(db: str) -> None:
    code, output = cli("audit", "stats", "--database-url", db, "--json")
    assert code == 0
    result = json.loads(output)
    assert result["decisions"] == 6
    assert result["by_tool"]["book_visit"] == {"act": 1, "ask": 1, "abstain": 1}
    assert result["by_tool"]["issue_refund"] == {"act": 1, "ask": 1, "abstain": 1}
    assert result["by_receipt_status"] == {"skipped": 4, "succeeded": 2}
    assert 0 < result["latency_ms"]["p50"] <= result["latency_ms"]["p95"]
    assert sum(b["count"] for b in result["latency_histogram"]) == 6
    code, output = cli("audit", "stats", "--database-url", db)
    assert code == 0 and "decision latency: p50" in output
    no_reprs(output)


def test_missing_ledger_is_one_clear_line(tmp_path: Path) -> None:
    for command in (["list"], ["show", "gd_x"], ["verify"], ["export"], ["stats"]):
        code, output = cli("audit", *command, "--database-url", f"sqlite:///{tmp_path / 'none.db'}")
        assert code == 2 and output.startswith("gate: no ledger at"), command
        assert "Traceback" not in output


def test_help_explains_every_status_word() -> None:
    code, output = cli("audit", "--help")
    assert code == 0
    for word in (
        "act",
        "ask",
        "abstain",
        "local",
        "pending",
        "delivered",
        "conflict",
        "rejected",
        "aligned",
        "violated",
        "skipped",
    ):
        assert f"{word} " in output, word
    code, output = cli("receipts", "--help")
    assert all(w in output for w in ("pending", "delivered", "conflict", "rejected", "local"))


READS = (["list"], ["show", "{id}"], ["verify"], ["export"], ["stats"])


def _every_read_works(url: str) -> None:
    (first,) = listed(url, "--limit", "1")
    for command in READS:
        args = [a.replace("{id}", str(first["id"])) for a in command]
        code, output = cli("audit", *args, "--database-url", url)
        assert code == 0, (command, output)


def test_a_read_only_copy_can_be_reviewed(db: str, tmp_path: Path) -> None:
    path = Path(db.removeprefix("sqlite:///"))
    folder = tmp_path / "readonly"
    folder.mkdir()
    copy = folder / "ledger.db"
    shutil.copy(path, copy)
    before = copy.read_bytes()
    copy.chmod(0o444)
    folder.chmod(0o555)
    try:
        url = f"sqlite:///{copy}"
        _every_read_works(url)
        assert sorted(p.name for p in folder.iterdir()) == ["ledger.db"]  # no -wal, -shm or lock file
        assert copy.read_bytes() == before
        ledger = gate.Ledger(url, create=False, read_only=True)
        try:
            with pytest.raises(OperationalError, match="readonly"), ledger.engine.begin() as conn:
                conn.execute(text("DELETE FROM gate_chain"))
        finally:
            ledger.close()
    finally:
        folder.chmod(0o755)


@pytest.mark.postgres
def test_a_read_only_postgres_role_can_review(pg_ledger: tuple[str, str]) -> None:
    _, reader = pg_ledger
    _every_read_works(reader)
    ledger = gate.Ledger(reader, create=False, read_only=True)
    try:
        with pytest.raises(ProgrammingError, match="permission denied"), ledger.engine.begin() as conn:
            conn.execute(text("DELETE FROM gate_chain"))
    finally:
        ledger.close()


@pytest.fixture
def pg_ledger(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A demo ledger on PostgreSQL, and a URL of a role that may only read it."""
    base = pg_url()
    if not base:
        pytest.skip("GATE_TEST_PG_URL is not set (.ci/run sets it)")
    import psycopg
    from sqlalchemy.engine import make_url

    name = f"gate_ro_{uuid.uuid4().hex[:12]}"
    role = f"reader_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
        conn.execute(f"CREATE ROLE {role} LOGIN")
    owner = make_url(base).set(database=name)
    owner_url = owner.render_as_string(hide_password=False)
    assert run_demo(tmp_path / "home", database_url=owner_url) == 0
    with psycopg.connect(owner_url.replace("postgresql+psycopg", "postgresql"), autocommit=True) as conn:
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
    yield owner_url, owner.set(username=role).render_as_string(hide_password=False)
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        conn.execute(f"DROP ROLE {role}")


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

    def explain(day: str) -> dict[str, Any]:
        code, output = cli(
            "policy",
            "explain",
            "book_visit",
            "--caller",
            "demo-alice-1",
            "--verified",
            "--args",
            json.dumps({"day": day}),
            "--policies",
            str(DEMO_POLICIES),
            "--json",
        )
        assert code == 0, output
        result = json.loads(output)
        assert isinstance(result, dict)
        return result

    friday = explain("Friday")
    # The caller said yes to Friday (the slot was taken only afterwards): that memory is trusted.
    assert (friday["outcome"], friday["rule"]) == ("act", "evidence.trace")
    assert "Friday" in friday["evidence"]["memories"][0]["content"]
    # A day the caller never said: nothing in memory gives it, so the gate would ask.
    monday = explain("Monday")
    assert (monday["outcome"], monday["rule"]) == ("ask", "evidence.missing")
    before = gate.Ledger(f"sqlite:///{home / 'ledger.db'}", create=False)
    assert len(before.decisions()) == 6  # nothing was recorded
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
    code, output = cli("policy", "check", str(POLICIES), "--shape-only")
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
    assert report["checked"] == 6
    flips = report["flips"]
    assert len(flips) == 2  # the refund of 40: its ask and its act
    assert {(f["recorded"], f["candidate"], f["candidate_rule"]) for f in flips} == {
        ("ask", "abstain", "limits.amount.max"),
        ("act", "abstain", "limits.amount.max"),
    }
    code, output = cli("policy", "replay", "--policies", str(DEMO_POLICIES), "--database-url", db, "--json")
    assert json.loads(output)["flips"] == []  # the live policies replay to themselves
    code, output = cli("policy", "replay", "--policies", str(candidate), "--database-url", db)
    assert code == 0 and "2 of 6 decisions would flip" in output


def test_parallel_export_matches_the_serial_one(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from gate.audit import export_jsonl

    monkeypatch.setattr("gate.audit._EXPORT_CHUNK", 5)  # four ranges for 20 entries
    ledger = gate.Ledger(db, create=False, read_only=True)
    try:
        serial = "".join(text for text, _ in export_jsonl(ledger, parallel=False))
        parallel = "".join(text for text, _ in export_jsonl(ledger, parallel=True))
    finally:
        ledger.close()
    assert parallel == serial and len(serial.splitlines()) == 20
