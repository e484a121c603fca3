"""`gate audit serve` over HTTP: the pages, their filters, escaping, the token, and that nothing writes."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

import gate
from gate.cli import app as cli_app
from gate.cli.demo_run import run_demo
from gate.cli.serve import create_app

HOSTILE = "<script>alert('pwned')</script> Thursday"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("served")
    assert run_demo(home) == 0
    return home


@pytest.fixture
def ledger_path(recorded: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "ledger.db"
    shutil.copy(recorded / "ledger.db", copy)
    return copy


@pytest.fixture
def client(ledger_path: Path) -> Iterator[TestClient]:
    ledger = gate.Ledger(f"sqlite:///{ledger_path}", create=False, read_only=True)
    with TestClient(create_app(ledger)) as c:
        yield c
    ledger.close()


def decision_ids(client: TestClient, query: str = "") -> list[str]:
    page = client.get(f"/{query}")
    assert page.status_code == 200
    return [part.split('"')[0] for part in page.text.split('href="/decisions/')[1:]]


def test_the_list_takes_the_same_filters_as_the_command_line(client: TestClient, ledger_path: Path) -> None:
    everything = decision_ids(client)
    assert len(everything) == 6
    runner = CliRunner()
    for query, args in [
        ("?tool=issue_refund", ["--tool", "issue_refund"]),
        ("?outcome=abstain", ["--outcome", "abstain"]),
        ("?status=succeeded&tool=book_visit", ["--status", "succeeded", "--tool", "book_visit"]),
        ("?violations=1", ["--violations"]),
        ("?since=1h", ["--since", "1h"]),
        ("?caller=nobody", ["--caller", "nobody"]),
    ]:
        listed = runner.invoke(
            cli_app, ["audit", "list", "--json", "--database-url", f"sqlite:///{ledger_path}", *args]
        )
        assert decision_ids(client, query) == [r["id"] for r in json.loads(listed.stdout)["decisions"]], query
    first = client.get("/?limit=4")
    assert "older decisions" in first.text
    older = first.text.split('<a href="')[-1].split('"')[0].replace("&amp;", "&")
    assert decision_ids(client, older.removeprefix("/")) == everything[4:]
    bad = client.get("/?outcome=maybe")
    assert bad.status_code == 400 and "outcome must be one of act, ask, abstain" in bad.text


def test_a_decision_page_tells_the_whole_story(client: TestClient) -> None:
    (refund,) = decision_ids(client, "?tool=issue_refund&status=succeeded")
    page = client.get(f"/decisions/{refund}")
    assert page.status_code == 200
    text = page.text
    for shown in (
        "A-1001",  # masked arguments
        "sha256:",  # digests and policy hash
        "issue_refund",
        "confirmation.answer",  # the trace
        "Argument trace",  # what the caller's words said
        "Please confirm: refund 40 on order A-1001?",  # the question
        "Yes, go ahead.",  # the caller's words
        "refund-A-1001-",  # what was executed
        "Delivery history",
        "aligned",
        "receipt.2",  # the chain entries
    ):
        assert shown in text, shown
    # Every argument traced to the words that carry it.
    traced = text[text.index('<table class="arguments">') :]
    traced = traced[: traced.index("</table>")]
    assert traced.count('<tr class="traced">') == 2 and traced.count("refund 40 on order A-1001") == 2
    assert client.get("/decisions/gd_nope").status_code == 404


def test_chain_and_stats_pages(client: TestClient) -> None:
    chain = client.get("/chain?verify=1")
    assert chain.status_code == 200 and "Verified: 20 entries" in chain.text
    stats = client.get("/stats")
    assert stats.status_code == 200
    assert "<svg" in stats.text and "<rect" in stats.text and "6 decisions" in stats.text
    assert client.get("/static/style.css").status_code == 200


def test_a_broken_chain_is_shown_as_broken(ledger_path: Path) -> None:
    from sqlalchemy import text

    writer = gate.Ledger(f"sqlite:///{ledger_path}", create=False)
    with writer.engine.begin() as conn:
        conn.execute(text("UPDATE gate_deliveries SET policy_alignment = 'aligned'"))
        conn.execute(text("UPDATE gate_receipts SET status = 'skipped' WHERE status = 'succeeded'"))
    writer.close()
    ledger = gate.Ledger(f"sqlite:///{ledger_path}", create=False, read_only=True)
    with TestClient(create_app(ledger)) as c:
        page = c.get("/chain?verify=1")
    ledger.close()
    assert "Broken at entry" in page.text and "receipt was changed after it was recorded" in page.text


def test_user_values_are_escaped(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = gate.Ledger(url)
    evidence = {
        "decision_id": "sd_1",
        "outcome": "ask",
        "reason": "memory supports these arguments but is not trusted yet",
        "memories": [
            {"id": "m1", "content": HOSTILE, "trusted": False, "source": "user_stated", "confidence": 0.6},
            {
                "id": "m2",
                "content": "never on Thursday",
                "trusted": True,
                "source": "user_stated",
                "confidence": 0.9,
                "against": True,
            },
        ],
    }
    row = gate.ledger.DecisionRow(
        id="gd_hostile",
        created_at=1.0,
        session_id="s<1>",
        caller_id="<b>mallory</b>",
        caller_json=json.dumps({"id": "<b>mallory</b>", "verified": True}),
        tool="book_visit",
        action_name="booking.create",
        args_json=json.dumps({"day": HOSTILE}),
        args_digest="sha256:a",
        action_digest="sha256:b",
        policy_name="book_visit",
        policy_hash="sha256:c",
        mode="enforce",
        outcome="ask",
        enforced_outcome="ask",
        rule="evidence",
        trace_json=json.dumps([{"rule": "evidence", "outcome": "ask", "detail": HOSTILE}]),
        evidence_json=json.dumps(evidence),
        latency_ms=3.0,
    )
    ledger.record_decision(row)
    ledger.close()
    reader = gate.Ledger(url, create=False, read_only=True)
    with TestClient(create_app(reader)) as c:
        listing = c.get("/?caller=<b>mallory</b>").text
        page = c.get("/decisions/gd_hostile").text
    reader.close()
    for html in (listing, page):
        assert "<script>" not in html and "<b>mallory" not in html
    assert "&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt; Thursday" in page
    assert "&lt;b&gt;mallory&lt;/b&gt;" in listing
    # The memory that counted against the action is shown as such.
    assert page.count('class="badge against"') == 1 and "never on Thursday" in page


def test_a_token_is_required_when_set(ledger_path: Path) -> None:
    ledger = gate.Ledger(f"sqlite:///{ledger_path}", create=False, read_only=True)
    with TestClient(create_app(ledger, token="s3cret")) as c:
        assert c.get("/").status_code == 401
        assert c.get("/", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert c.get("/static/style.css").status_code == 401
        assert c.get("/", headers={"Authorization": "Bearer s3cret"}).status_code == 200
    ledger.close()


def test_binding_beyond_loopback_needs_a_token(ledger_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GATE_AUDIT_TOKEN", raising=False)
    result = CliRunner().invoke(
        cli_app, ["audit", "serve", "--host", "0.0.0.0", "--database-url", f"sqlite:///{ledger_path}"]
    )
    assert result.exit_code == 2 and "needs GATE_AUDIT_TOKEN" in result.stderr


def test_nothing_writes(client: TestClient, ledger_path: Path) -> None:
    before = hashlib.sha256(ledger_path.read_bytes()).hexdigest()
    (one,) = decision_ids(client, "?tool=issue_refund&status=succeeded")
    for path in ("/", f"/decisions/{one}", "/chain", "/stats", "/?violations=1"):
        assert client.get(path).status_code == 200
    for method in ("post", "put", "delete", "patch"):
        assert getattr(client, method)("/").status_code == 405
    assert hashlib.sha256(ledger_path.read_bytes()).hexdigest() == before
