"""The audit trail against someone who can write the database, with erasure, read as a case file.

Each test works on a copy of a ledger the demo wrote (a real session, the
real engine), or on rows written through the ledger's own API.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

import gate
from gate.cli import app
from gate.cli.demo_run import run_demo
from gate.cli.serve import create_app
from gate.ledger.chain import GENESIS, RecordDigest, entry_hash

runner = CliRunner()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("trail")
    assert run_demo(home) == 0
    return home


@pytest.fixture
def home(recorded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(recorded, copy)
    monkeypatch.setenv("GATE_HOME", str(copy))
    monkeypatch.delenv("GATE_DATABASE_URL", raising=False)
    # The demo's memory was written with the default encoder; a store refuses any other.
    monkeypatch.setenv("GATE_EMBEDDER", "minilm")
    return copy


def url_of(home: Path) -> str:
    return f"sqlite:///{home / 'ledger.db'}"


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args))


def listed(db: str, *filters: str) -> list[dict[str, Any]]:
    result = cli("audit", "list", "--database-url", db, "--json", *filters)
    rows = json.loads(result.stdout)["decisions"]
    assert isinstance(rows, list)
    return rows


def refund_id(db: str, tool: str = "issue_refund") -> str:
    """The one decision of ``tool`` that ran (the demo's refund of 40, or its visit)."""
    (row,) = listed(db, "--tool", tool, "--status", "succeeded")
    return str(row["id"])


def sql(db: str, statement: str, **params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(db.removeprefix("sqlite:///"))
    try:
        rows = conn.execute(statement, params).fetchall()
        conn.commit()
        return rows
    finally:
        conn.close()


def chain_head(db: str) -> int:
    """The sequence number of the chain's last entry."""
    (seq,) = sql(db, "SELECT max(seq) FROM gate_chain")[0]
    return int(seq)


def forge_amount(db: str, decision_id: str) -> None:
    """What the issue saw: a refund's amount edited in the file, nothing else touched."""
    sql(
        db,
        "UPDATE gate_decisions SET args_json = replace(args_json, '40.0', '4000.0') WHERE id = :i",
        i=decision_id,
    )


# -- 1. every displayed record is verified as it is displayed ---------------------------------


def test_a_forged_record_is_marked_by_every_reader(home: Path) -> None:
    db = url_of(home)
    forged = refund_id(db)
    forge_amount(db, forged)

    shown = cli("audit", "show", forged, "--database-url", db)
    assert shown.exit_code == 1
    assert "DOES NOT VERIFY" in shown.stdout and "amount=4000" in shown.stdout
    assert f"gate: does not verify: decision {forged}: it was changed after it was recorded" in shown.stderr
    as_json = json.loads(cli("audit", "show", forged, "--database-url", db, "--json").stdout)
    assert as_json["verified"] is False

    result = cli("audit", "list", "--database-url", db)
    assert result.exit_code == 1
    (marked,) = [line for line in result.stdout.splitlines() if forged in line]
    assert marked.rstrip().endswith("BROKEN")
    rows = {r["id"]: r for r in listed(db)}
    # Every other decision of the demo is listed as verified.
    assert sum(line.rstrip().endswith("ok") for line in result.stdout.splitlines()) == len(rows) - 1
    assert rows[forged]["problem"] == f"decision {forged}: it was changed after it was recorded"
    assert all(r["problem"] is None for i, r in rows.items() if i != forged)

    exported = cli("audit", "export", "--database-url", db)
    assert exported.exit_code == 1 and "1 exported record do not verify" in exported.stderr
    events = [json.loads(line) for line in exported.stdout.splitlines()]
    bad = [e for e in events if not e["gate.chain.verified"]]
    assert [e.get("gate.decision.id") for e in bad] == [forged]

    ledger = gate.Ledger(db, create=False, read_only=True)
    with TestClient(create_app(ledger)) as c:
        page = c.get(f"/decisions/{forged}").text
        listing = c.get("/").text
        chain = c.get("/chain").text
        clean = c.get(f"/decisions/{refund_id(db, 'book_visit')}").text
    ledger.close()
    assert "does not verify against the chain" in page and "it was changed after it was recorded" in page
    assert "does not verify against the chain" not in clean and 'class="badge verified"' in clean
    assert listing.count('class="unverified"') == 1 and "1 decision on this page does not verify" in listing
    assert chain.count('class="unverified"') == 1


def test_an_entry_recomputed_alone_is_caught_by_its_neighbour(home: Path) -> None:
    """Recomputing the forged record's own entry is not enough: the next entry no longer follows it."""
    db = url_of(home)
    forged = refund_id(db)
    forge_amount(db, forged)
    (seq, at, kind, prev) = sql(
        db, "SELECT seq, at, kind, prev_hash FROM gate_chain WHERE ref_id = :i", i=forged
    )[0]
    ledger = gate.Ledger(db, create=False)
    digest = _digest_of(ledger, kind, forged)
    ledger.close()
    sql(
        db,
        "UPDATE gate_chain SET digest = :d, hash = :h WHERE seq = :s",
        d=digest,
        h=entry_hash(prev, seq, at, kind, forged, digest),
        s=seq,
    )
    shown = cli("audit", "show", forged, "--database-url", db)
    assert shown.exit_code == 1 and "the chain entry after it does not follow it" in shown.stderr


def _digest_of(ledger: gate.Ledger, kind: str, record_id: str) -> str:
    from sqlmodel import SQLModel

    from gate.ledger.chain import FORMATS

    table, columns = FORMATS[kind]
    with ledger.engine.connect() as conn:
        row = conn.execute(
            SQLModel.metadata.tables[table].select().where(SQLModel.metadata.tables[table].c.id == record_id)
        ).one()
    return RecordDigest(SQLModel.metadata.tables[table], columns).of_values(
        [row._mapping[c] for c in columns]
    )


# -- 2. signed checkpoints ---------------------------------------------------------------------


@pytest.fixture
def key(tmp_path: Path) -> tuple[Path, Path]:
    private = tmp_path / "keys" / "audit.key"
    result = cli("audit", "keygen", str(private))
    assert result.exit_code == 0, result.output
    assert (private.stat().st_mode & 0o777) == 0o600
    again = cli("audit", "keygen", str(private))
    assert again.exit_code == 2 and "never overwrites" in again.stderr
    return private, private.with_name("audit.key.pub")


def checkpoint(db: str, private: Path) -> dict[str, Any]:
    result = cli("audit", "checkpoint", "--key-file", str(private), "--database-url", db, "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert isinstance(found, dict)
    return found


def verify(db: str, public: Path, *extra: str) -> Any:
    return cli("audit", "verify", "--key", str(public), "--database-url", db, *extra)


def recompute_chain_from(db: str, seq: int) -> None:
    """What a writer who knows the scheme does: recompute every entry from ``seq`` on, digests included."""
    ledger = gate.Ledger(db, create=False)
    rows = sql(db, "SELECT seq, at, kind, ref_id FROM gate_chain WHERE seq >= :s ORDER BY seq", s=seq)
    (prev,) = sql(db, "SELECT hash FROM gate_chain WHERE seq = :s", s=seq - 1)[0] if seq > 1 else (GENESIS,)
    for s, at, kind, ref in rows:
        latest = sql(
            db,
            "SELECT chain_seq FROM gate_decisions WHERE id = :r UNION ALL "
            "SELECT chain_seq FROM gate_confirmations WHERE id = :r UNION ALL "
            "SELECT chain_seq FROM gate_receipts WHERE id = :r UNION ALL "
            "SELECT chain_seq FROM gate_deliveries WHERE id = :r",
            r=ref,
        )
        if latest and latest[0][0] == s:
            digest = _digest_of(ledger, kind, ref)
        else:
            (digest,) = sql(db, "SELECT digest FROM gate_chain WHERE seq = :s", s=s)[0]
        hashed = entry_hash(prev, s, at, kind, ref, digest)
        sql(
            db,
            "UPDATE gate_chain SET digest = :d, prev_hash = :p, hash = :h WHERE seq = :s",
            d=digest,
            p=prev,
            h=hashed,
            s=s,
        )
        prev = hashed
    ledger.close()


def test_checkpoints_catch_a_recomputed_chain(home: Path, key: tuple[Path, Path]) -> None:
    private, public = key
    db = url_of(home)
    signed = checkpoint(db, private)
    head = chain_head(db)
    assert signed["chain_seq"] == head and signed["prev"] == GENESIS
    ok = verify(db, public)
    assert ok.exit_code == 0 and "checkpoints verified: 1" in ok.stdout
    forged = refund_id(db)
    forge_amount(db, forged)
    (seq,) = sql(db, "SELECT chain_seq FROM gate_decisions WHERE id = :i", i=forged)[0]
    recompute_chain_from(db, seq)
    assert cli("audit", "verify", "--database-url", db).exit_code == 0  # the plain chain is fooled
    assert cli("audit", "show", forged, "--database-url", db).exit_code == 0
    failed = verify(db, public)
    assert failed.exit_code == 1
    assert f"checkpoints broken: checkpoint 1 signed entry {head}" in failed.stderr
    assert "the chain was rewritten" in failed.stderr


def test_checkpoints_catch_a_cut_tail(home: Path, key: tuple[Path, Path]) -> None:
    private, public = key
    db = url_of(home)
    checkpoint(db, private)
    head = chain_head(db)
    # Drop the last decision's receipt and delivery and their entries: a shorter chain, consistent in itself.
    for table in ("gate_deliveries", "gate_receipts"):
        (rid, seq) = sql(db, f"SELECT id, chain_seq FROM {table} ORDER BY chain_seq DESC LIMIT 1")[0]
        sql(db, f"DELETE FROM {table} WHERE id = :i", i=rid)
        sql(db, "DELETE FROM gate_chain WHERE seq = :s", s=seq)
    sql(db, "DELETE FROM gate_outbox")
    assert cli("audit", "verify", "--database-url", db).exit_code == 0
    failed = verify(db, public)
    assert failed.exit_code == 1
    cut = f"checkpoint 1 signed entry {head}, which is no longer in the chain: the chain was cut"
    assert cut in failed.stderr


def test_checkpoints_chain_and_a_deleted_one_shows(
    home: Path, key: tuple[Path, Path], tmp_path: Path
) -> None:
    private, public = key
    db = url_of(home)
    first = checkpoint(db, private)
    second = checkpoint(db, private)  # an empty interval: the same head, a checkpoint all the same
    third = checkpoint(db, private)
    checkpoint(db, private)
    assert second["chain_seq"] == first["chain_seq"] == third["chain_seq"]
    assert (second["seq"], third["seq"]) == (2, 3) and second["prev"] != third["prev"]
    kept = tmp_path / "kept.jsonl"
    exported = cli("audit", "checkpoints", "--export", "--database-url", db)
    kept.write_text(exported.stdout)
    assert len(exported.stdout.splitlines()) == 4
    assert verify(db, public, "--checkpoints", str(kept)).exit_code == 0

    # The newest one deleted: only the copy kept elsewhere can tell.
    sql(db, "DELETE FROM gate_checkpoints WHERE seq = 4")
    assert verify(db, public).exit_code == 0
    failed = verify(db, public, "--checkpoints", str(kept))
    assert failed.exit_code == 1 and "checkpoint 4 (kept elsewhere) is not in the ledger" in failed.stderr

    # One in the middle deleted: the checkpoints' own chain breaks.
    sql(db, "DELETE FROM gate_checkpoints WHERE seq = 2")
    failed = verify(db, public)
    assert failed.exit_code == 1
    assert (
        "checkpoint 2 is missing (found checkpoint" in failed.stderr
        and "checkpoints were deleted" in failed.stderr
    )


def test_a_changed_checkpoint_or_another_key_fails(
    home: Path, key: tuple[Path, Path], tmp_path: Path
) -> None:
    private, public = key
    db = url_of(home)
    checkpoint(db, private)
    other = tmp_path / "other.key"
    assert cli("audit", "keygen", str(other)).exit_code == 0
    failed = verify(db, other.with_name("other.key.pub"))
    assert failed.exit_code == 1 and "was signed by key ed25519:" in failed.stderr
    sql(db, "UPDATE gate_checkpoints SET at = at + 1")
    failed = verify(db, public)
    assert failed.exit_code == 1 and "checkpoint 1: its signature does not hold" in failed.stderr
    bad = cli("audit", "verify", "--key", "not-a-key", "--database-url", db)
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1 and "is not an Ed25519 public key" in bad.stderr


def test_a_running_gate_signs_checkpoints_and_one_at_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: tuple[Path, Path]
) -> None:
    import asyncio

    from tests.conftest import POLICIES, Calendar, make_tools

    private, public = key
    monkeypatch.setenv("GATE_HOME", str(tmp_path / "gate-home"))
    monkeypatch.setenv("GATE_EMBEDDER", "mock")
    monkeypatch.setenv("GATE_AUDIT_SIGNING_KEY_FILE", str(private))
    monkeypatch.setenv("GATE_AUDIT_CHECKPOINT_S", "0.2")

    async def run() -> None:
        g = gate.Gate(make_tools(Calendar()), policies=POLICIES)
        g.start()
        await asyncio.sleep(0.9)  # nothing is written meanwhile: every interval is empty
        await g.aclose()

    asyncio.run(run())
    db = f"sqlite:///{tmp_path / 'gate-home' / 'ledger.db'}"
    listed_ = cli("audit", "checkpoints", "--export", "--database-url", db).stdout.splitlines()
    assert len(listed_) >= 3  # at start, at least one empty interval, and at close
    assert verify(db, public).exit_code == 0


def test_a_bad_signing_key_fails_at_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import POLICIES, Calendar, make_tools

    monkeypatch.setenv("GATE_HOME", str(tmp_path / "gate-home"))
    monkeypatch.setenv("GATE_EMBEDDER", "mock")
    monkeypatch.setenv("GATE_AUDIT_SIGNING_KEY", "not a key")
    with pytest.raises(gate.ConfigError, match="GATE_AUDIT_SIGNING_KEY: expected an Ed25519 private key"):
        gate.Gate(make_tools(Calendar()), policies=POLICIES)


# -- 3. erasure that keeps the chain whole ------------------------------------------------------


def test_forget_erases_the_callers_text_from_the_ledger_and_the_chain_holds(home: Path) -> None:
    db = url_of(home)
    act = refund_id(db)
    result = cli("forget", "demo-alice-1", "--yes")
    assert result.exit_code == 0, result.output
    assert re.search(r"audit ledger: \d+ texts erased, the chain kept", result.stdout)

    story = json.loads(cli("audit", "show", act, "--database-url", db, "--json").stdout)
    assert story["verified"] is True
    assert story["confirmed_by"]["caller_words"] is None and story["confirmed_by"]["caller_words_erased"]
    assert all(m["content"] is None and m["content_erased"] for m in story["evidence"]["memories"])
    talk = story["conversation"]
    assert talk["question"] is None and talk["question_erased"]
    assert talk["answer"]["words"] is None and talk["answer"]["label"] == "yes (answer.yes)"
    # Kept: ids, digests, outcomes, times, masked arguments.
    assert story["decision"]["arguments"] == {"amount": 40.0, "order_id": "A-1001"}
    assert story["decision"]["outcome"] == "act" and story["receipt"]["status"] == "succeeded"

    shown = cli("audit", "show", act, "--database-url", db)
    assert shown.exit_code == 0 and "(erased on 20" in shown.stdout
    for words in ("Yes, go ahead.", "please refund 40 on order A-1001", "Please confirm: refund 40"):
        assert words not in shown.stdout
    ledger = gate.Ledger(db, create=False, read_only=True)
    with TestClient(create_app(ledger)) as c:
        page = c.get(f"/decisions/{act}").text
    ledger.close()
    assert "erased on 20" in page and "Yes, go ahead." not in page

    # Gone from the file itself, not only from what is shown.
    raw = b"".join(p.read_bytes() for p in home.glob("ledger.db*") if p.is_file())
    assert b"Yes, go ahead." not in raw and b"please refund 40 on order A-1001" not in raw

    verified = cli("audit", "verify", "--database-url", db)
    assert verified.exit_code == 0, verified.output
    # And every other change is still found.
    sql(db, "UPDATE gate_decisions SET outcome = 'abstain' WHERE id = :i", i=act)
    assert cli("audit", "verify", "--database-url", db).exit_code == 1


def test_personal_text_changed_in_its_table_is_found(home: Path) -> None:
    db = url_of(home)
    act = refund_id(db)
    sql(db, "UPDATE gate_personal SET text = 'No.' WHERE text = 'Yes, go ahead.'")
    failed = cli("audit", "verify", "--database-url", db)
    assert failed.exit_code == 1 and "personal text was changed after it was recorded" in failed.stderr
    shown = cli("audit", "show", act, "--database-url", db)
    assert shown.exit_code == 1 and "personal text was changed after it was recorded" in shown.stderr
    assert "No." not in shown.stdout.split("caller said")[1].splitlines()[0]


def test_forget_without_a_terminal_says_to_pass_yes(home: Path) -> None:
    result = cli("forget", "demo-alice-1")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "pass --yes" in result.stderr
    assert "Aborted" not in result.output


async def test_the_api_forget_erases_the_ledger_text_too(home: Path) -> None:
    from tests.conftest import POLICIES, Calendar, make_tools

    db = url_of(home)
    act = refund_id(db)
    g = gate.Gate(make_tools(Calendar()), policies=POLICIES)
    try:
        await g.forget("demo-alice-1")
    finally:
        await g.aclose()
    story = json.loads(cli("audit", "show", act, "--database-url", db, "--json").stdout)
    assert story["confirmed_by"]["caller_words"] is None and story["verified"]


# -- 4. a case file -------------------------------------------------------------------------------


def test_ask_confirmation_and_act_are_linked_both_ways(home: Path) -> None:
    db = url_of(home)
    act = refund_id(db)
    story = json.loads(cli("audit", "show", act, "--database-url", db, "--json").stdout)
    asked_in = story["confirmed_by"]["asked_in"]
    assert asked_in["outcome"] == "ask"
    assert story["decision"]["confirmed_state_version"] == story["confirmed_by"]["state_version"]
    ask = json.loads(cli("audit", "show", asked_in["id"], "--database-url", db, "--json").stdout)
    (question,) = [c for c in ask["confirmation_asked"] if c["status"] == "confirmed"]
    assert [f["id"] for f in question["followed_by"]] == [act]
    text = cli("audit", "show", asked_in["id"], "--database-url", db).stdout
    assert f"led to         {act} (act)" in text
    text = cli("audit", "show", act, "--database-url", db).stdout
    assert f"asked in           {asked_in['id']} (ask)" in text and "state        1 (confirmed: 1)" in text
    ledger = gate.Ledger(db, create=False, read_only=True)
    with TestClient(create_app(ledger)) as c:
        act_page = c.get(f"/decisions/{act}").text
        ask_page = c.get(f"/decisions/{asked_in['id']}").text
    ledger.close()
    assert f'href="/decisions/{asked_in["id"]}"' in act_page and "(confirmed: 1)" in act_page
    assert f'href="/decisions/{act}"' in ask_page


def test_the_answer_keeps_words_and_label_apart(home: Path) -> None:
    db = url_of(home)
    story = json.loads(cli("audit", "show", refund_id(db), "--database-url", db, "--json").stdout)
    assert story["conversation"]["answer"] == {"words": "Yes, go ahead.", "label": "yes (answer.yes)"}


TRACED = {
    "decision_id": "sd_traced",
    "outcome": "ask",
    "reason": "every argument traced to the caller's words",
    "memories": [],
    "arguments": [
        {
            "name": "time",
            "value": "11:45",
            "status": "traced",
            "source": "call",
            "speaker": "caller",
            "at": 1764600000.0,
            "turn": 4,
            "message_id": "item_4",
            "memory_id": None,
            "words": "a table before lunch at 11:45 please",
            "span": [30, 35],
            "accepted": {"words": "yes that one", "at": 1764600003.0, "message_id": "item_6"},
            "rule": "trace.value",
            "note": "11:45 said as a time",
        },
        {
            "name": "party",
            "value": "2",
            "status": "missing",
            "source": None,
            "speaker": None,
            "rule": "trace.missing",
        },
    ],
    "action": {
        "status": "requested",
        "words": "book us a table",
        "at": 1764599990.0,
        "turn": 2,
        "rule": "trace.action",
    },
}


def traced_decision(
    caller: str = "carol-7", *, evidence: dict[str, Any] | None = None, **extra: Any
) -> gate.ledger.DecisionRow:
    import time
    import uuid

    values: dict[str, Any] = dict(
        id=f"gd_{uuid.uuid4().hex}",
        created_at=time.time(),
        session_id="s-traced",
        caller_id=caller,
        caller_json=json.dumps({"id": caller, "verified": True}),
        tool="reserve_table",
        action_name="restaurant.reserve",
        args_json=json.dumps({"time": "11:45", "party": "2"}),
        args_digest="sha256:" + "1" * 64,
        action_digest="sha256:" + "2" * 64,
        policy_name="reserve_table",
        policy_hash="sha256:" + "3" * 64,
        mode="enforce",
        outcome="ask",
        enforced_outcome="ask",
        rule="evidence.trace",
        trace_json=json.dumps([{"rule": "evidence.trace", "outcome": "ask", "detail": "party not traced"}]),
        evidence_json=json.dumps(TRACED if evidence is None else evidence),
        latency_ms=2.0,
    )
    values.update(extra)
    return gate.ledger.DecisionRow(**values)


def test_the_argument_trace_is_shown_and_erasable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = gate.Ledger(db)
    row = traced_decision()
    plain = traced_decision(evidence={"outcome": "act", "reason": "r", "memories": []})
    ledger.record_decision(row)
    ledger.record_decision(plain)
    ledger.close()
    shown = cli("audit", "show", row.id, "--database-url", db)
    assert shown.exit_code == 0, shown.output
    assert "argument trace:" in shown.stdout
    assert (
        "a table before lunch at 11:45 please" in shown.stdout
        and "accepted with yes that one" in shown.stdout
    )
    assert "action: requested by trace.action, from book us a table" in shown.stdout
    assert "argument trace:" not in cli("audit", "show", plain.id, "--database-url", db).stdout
    # The caller's words are not in what the chain hashes.
    (stored,) = sql(db, "SELECT evidence_json FROM gate_decisions WHERE id = :i", i=row.id)[0]
    assert "11:45 please" not in stored and "personal:sha256:" in stored and "11:45 said as a time" in stored

    reader = gate.Ledger(db, create=False, read_only=True)
    with TestClient(create_app(reader)) as c:
        page = c.get(f"/decisions/{row.id}").text
        plain_page = c.get(f"/decisions/{plain.id}").text
    reader.close()
    assert (
        "Argument trace" in page and "a table before lunch at 11:45 please" in page and "yes that one" in page
    )
    assert "Argument trace" not in plain_page

    writer = gate.Ledger(db, create=False)
    erased = writer.erase_caller("carol-7")
    writer.close()
    assert (erased.erased, erased.kept_in_chain) == (3, 0)
    story = json.loads(cli("audit", "show", row.id, "--database-url", db, "--json").stdout)
    (time_arg, _) = story["argument_trace"]["arguments"]
    assert time_arg["words"] is None and time_arg["words_erased"] and time_arg["accepted"]["words"] is None
    assert time_arg["value"] == "11:45" and time_arg["note"] == "11:45 said as a time"
    assert cli("audit", "verify", "--database-url", db).exit_code == 0


def test_export_carries_trace_evidence_question_and_answer(home: Path) -> None:
    db = url_of(home)
    act = refund_id(db)
    events = [json.loads(line) for line in cli("audit", "export", "--database-url", db).stdout.splitlines()]
    (decision,) = [
        e for e in events if e.get("gate.decision.id") == act and e["event.name"] == "gate.decision"
    ]
    assert decision["gate.confirmation.question"] == "Please confirm: refund 40 on order A-1001?"
    assert decision["gate.confirmation.answer.words"] == "Yes, go ahead."
    assert decision["gate.confirmation.answer.label"] == "yes (answer.yes)"
    assert [t["rule"] for t in decision["gate.trace"]][-1] == "confirmation.answer"
    # The evidence carries the argument trace: each value tied to the caller's own words.
    traced = {a["name"]: a for a in decision["gate.evidence"]["arguments"]}
    assert "refund 40 on order A-1001" in traced["amount"]["words"] and traced["amount"]["status"] == "traced"
    assert all(e["gate.chain.verified"] for e in events)


def test_list_filters_by_prefix_and_shows_arguments(home: Path) -> None:
    db = url_of(home)
    everything = len(listed(db))
    assert len(listed(db, "--caller", "demo-alice")) == everything  # a prefix of the demo's caller
    assert len(listed(db, "--caller", "demo-alice-1")) == everything
    assert listed(db, "--caller", "demo-ALICE") == [] and listed(db, "--caller", "demo%") == []
    assert {r["tool"] for r in listed(db, "--tool", "issue")} == {"issue_refund"}
    (refund,) = listed(db, "--tool", "issue_refund", "--status", "succeeded")
    assert refund["arguments"] == {"amount": 40.0, "order_id": "A-1001"} and refund["masked"] == []
    text = cli("audit", "list", "--database-url", db, "--tool", "issue").stdout
    assert "amount=40, order_id=A-1001" in text


def test_the_viewer_keeps_every_filter_when_paging(home: Path) -> None:
    ledger = gate.Ledger(url_of(home), create=False, read_only=True)
    with TestClient(create_app(ledger)) as c:
        first = c.get("/?caller=demo-alice&since=1h&limit=2&violations=").text
        (older,) = re.findall(r'href="(/\?[^"]*after=[^"]*)"', first)
        older = older.replace("&amp;", "&")
        for kept in ("caller=demo-alice", "since=1h", "limit=2"):
            assert kept in older, kept
        second = c.get(older).text
        chain = c.get("/chain?limit=10").text
        (chain_next,) = re.findall(r'href="(/chain\?[^"]*before=[^"]*)"', chain)
        chain_page = c.get(chain_next.replace("&amp;", "&")).text
    ledger.close()
    assert first.count('href="/decisions/') == 2 and second.count('href="/decisions/') == 2
    assert "limit=10" in chain_next
    # Every chain entry links to the decision whose case file shows its record.
    assert chain.count('<a href="/decisions/') == 10 and chain_page.count('<a href="/decisions/') == 10


def test_the_arguments_header_says_masked_only_when_something_is(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = gate.Ledger(db)
    hidden = traced_decision(args_json=json.dumps({"card": "sha256:" + "a" * 64, "amount": 5}))
    open_ = traced_decision()
    ledger.record_decision(hidden)
    ledger.record_decision(open_)
    ledger.close()
    assert "arguments (masked: card)" in cli("audit", "show", hidden.id, "--database-url", db).stdout
    shown = cli("audit", "show", open_.id, "--database-url", db).stdout
    assert "masked" not in shown
    reader = gate.Ledger(db, create=False, read_only=True)
    with TestClient(create_app(reader)) as c:
        assert "(masked: card)" in c.get(f"/decisions/{hidden.id}").text
        assert "masked" not in c.get(f"/decisions/{open_.id}").text
        assert 'card=<span class="mono">(masked)</span>' in c.get("/").text
    reader.close()


# -- 5. reading it ---------------------------------------------------------------------------------


def test_bad_query_parameters_are_one_line_and_there_is_a_favicon(home: Path) -> None:
    ledger = gate.Ledger(url_of(home), create=False, read_only=True)
    with TestClient(create_app(ledger)) as c:
        for path, message in (
            ("/?limit=abc", "limit must be a whole number from 1 to 1000, got &#39;abc&#39;"),
            ("/?limit=0", "limit must be a whole number from 1 to 1000, got &#39;0&#39;"),
            ("/?after=gd_nope", "no decision gd_nope to page after"),
            ("/chain?before=x", "before must be a whole number of 1 or more, got &#39;x&#39;"),
            (
                "/?since=yesterday",
                "expected an ISO time (2026-11-30T09:00) or an age (15m, 2h, 7d), got &#39;yesterday&#39;",
            ),
        ):
            page = c.get(path)
            assert page.status_code == 400, path
            (problem,) = re.findall(r'<p class="problem">(.*)</p>', page.text)
            assert problem == message, path
            assert "invalid literal" not in page.text and "Traceback" not in page.text
        icon = c.get("/favicon.ico")
        assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    ledger.close()


@pytest.mark.parametrize("width", [80, 120, 200])
def test_terminal_tables_never_break_an_id(home: Path, width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    db = url_of(home)
    ids = [str(r["id"]) for r in listed(db)]
    monkeypatch.setattr("gate.cli.output.terminal", lambda: True)
    monkeypatch.setattr("gate.cli.audit.terminal", lambda: True)
    monkeypatch.setenv("COLUMNS", str(width))
    result = cli("audit", "list", "--database-url", db)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    for decision_id in ids:
        assert sum(decision_id in line for line in lines) == 1, decision_id
    assert max(len(line) for line in lines) <= width
    if width >= 200:
        assert "left out at this width" not in result.stdout
    shown = cli("audit", "show", ids[0], "--database-url", db).stdout.splitlines()
    for pattern in (r"gd_[0-9a-f]{32}", r"sha256:[0-9a-f]{64}"):
        found = {m for line in shown for m in re.findall(pattern, line)}
        assert found, pattern


def test_the_table_rule_wraps_text_and_keeps_ids() -> None:
    from gate.cli.output import fit

    ident = "gd_" + "ab" * 16
    lines = fit(
        ("id", "detail"),
        [[ident, "a long explanation of why the rule decided what it decided " * 2]],
        width=60,
    )
    assert all(len(line) <= 60 for line in lines)
    assert sum(ident in line for line in lines) == 1 and len(lines) > 3


# -- checkpoints from many processes -------------------------------------------------------------


def _checkpoint_in_process(url: str, key_pem: bytes, barrier: Any, out: Any) -> None:
    from gate.ledger import Ledger, Signer

    signer = Signer.from_text(key_pem.decode(), source="test")
    ledger = Ledger(url, create=False)
    try:
        barrier.wait()
        written = [ledger.checkpoint(signer)[0].seq for _ in range(5)]
        out.put(written)
    finally:
        ledger.close()


def _two_processes_checkpoint_at_once(url: str) -> None:
    import multiprocessing as mp

    from gate.ledger import Ledger, Signer, Verifier, verify_checkpoints

    ledger = Ledger(url)
    ledger.record_decision(traced_decision())
    ledger.close()
    signer = Signer.generate()
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [
        ctx.Process(target=_checkpoint_in_process, args=(url, signer.private_pem(), barrier, out))
        for _ in range(2)
    ]
    for p in procs:
        p.start()
    seqs = sorted(s for _ in procs for s in out.get(timeout=120))
    for p in procs:
        p.join(60)
    assert seqs == list(range(1, 11))  # one chain of ten, no two naming the same previous one
    ledger = Ledger(url, create=False)
    try:
        with ledger.engine.connect() as conn:
            report = verify_checkpoints(conn, Verifier(signer.public))
        assert report.ok and report.checked == 10, report.problem
    finally:
        ledger.close()


def test_two_processes_checkpointing_at_once_do_not_fork_on_sqlite(tmp_path: Path) -> None:
    _two_processes_checkpoint_at_once(f"sqlite:///{tmp_path / 'ledger.db'}")


@pytest.mark.postgres
def test_two_processes_checkpointing_at_once_do_not_fork_on_postgres(pg_database: str) -> None:
    _two_processes_checkpoint_at_once(pg_database)


@pytest.mark.postgres
def test_erasure_and_checkpoints_on_postgres(pg_database: str, key: tuple[Path, Path]) -> None:
    private, public = key
    ledger = gate.Ledger(pg_database)
    row = traced_decision()
    ledger.record_decision(row)
    ledger.close()
    assert checkpoint(pg_database, private)["chain_seq"] == 1
    writer = gate.Ledger(pg_database, create=False)
    assert writer.erase_caller("carol-7").erased == 3
    writer.close()
    assert verify(pg_database, public).exit_code == 0
    story = json.loads(cli("audit", "show", row.id, "--database-url", pg_database, "--json").stdout)
    assert story["verified"] and story["argument_trace"]["arguments"][0]["words_erased"]
