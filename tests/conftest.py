"""Shared fixtures: a versioned visits calendar and refunds book, and a gate over them."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import httpx
import pytest
from pydantic import Field

import gate
from gate import Action, Caller, Executed, StaleState, State, gated_tool
from gate.cloud.backend import CloudEngine
from gate.memory.embedder import MiniLMEmbedder
from gate.testing.contextdb import CloudDouble

POLICIES = Path(__file__).parent / "policies"


@dataclass
class Calendar:
    """A tiny calendar with versioned days, compare-and-set and idempotency keys."""

    booked: dict[str, str] = field(default_factory=dict)  # day -> caller id
    version: int = 1
    effects: list[tuple[str, str]] = field(default_factory=list)  # (key, day)
    keys: dict[str, str] = field(default_factory=dict)
    fail_with: Exception | None = None
    seen_actions: list[Action] = field(default_factory=list)

    def book(self, day: str, who: str, *, expected_version: str | None, key: str) -> str:
        if key in self.keys:
            return self.keys[key]
        if self.fail_with is not None:
            raise self.fail_with
        if expected_version is not None and str(self.version) != expected_version:
            raise StaleState("calendar moved", current_version=self.version)
        if day in self.booked:
            raise StaleState(f"{day} is taken")
        self.booked[day] = who
        self.version += 1
        ref = f"visit-{len(self.effects) + 1}"
        self.effects.append((key, day))
        self.keys[key] = ref
        return ref

    def take(self, day: str, who: str) -> None:
        """Another caller books ``day`` out of band."""
        self.booked[day] = who
        self.version += 1


@pytest.fixture
def calendar() -> Calendar:
    return Calendar()


def make_tools(calendar: Calendar) -> list[gate.GatedTool]:
    async def read_calendar() -> State:
        return State(version=calendar.version, value=dict(calendar.booked))

    @gated_tool(state=read_calendar)
    async def book_visit(
        day: Annotated[str, Field(description="weekday of the visit")], action: Action
    ) -> Executed:
        """Book a home visit on a weekday."""
        calendar.seen_actions.append(action)
        ref = calendar.book(
            day, action.caller.id, expected_version=action.expected_version, key=action.idempotency_key
        )
        return Executed(f"Booked {day}.", external_ref=ref)

    @gated_tool
    async def issue_refund(order_id: str, amount: float, action: Action) -> str:
        """Refund part of an order."""
        calendar.effects.append((action.idempotency_key, f"refund {order_id} {amount}"))
        return f"Refunded {amount:.2f} on {order_id}."

    return [book_visit, issue_refund]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GATE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GATE_DATABASE_URL", raising=False)
    return tmp_path / "home"


@pytest.fixture
async def engine(home: Path) -> AsyncIterator[gate.LocalEngine]:
    """The embedded engine with MiniLM in the test's own GATE_HOME, as the gate opens it."""
    settings = gate.GateSettings()
    settings.ensure_home()
    e = gate.LocalEngine(
        settings.memory_url(), gate.Ledger(settings.ledger_url()), embedding_provider=MiniLMEmbedder()
    )
    yield e
    await e.aclose()


@pytest.fixture
def double() -> CloudDouble:
    return CloudDouble()


def cloud_engine(double: CloudDouble) -> CloudEngine:
    """The real CloudClient, talking to the contract double through its transport seam."""
    return CloudEngine("http://contextdb.test", "cdb_test_key", transport=httpx.ASGITransport(app=double.app))


@pytest.fixture(params=["local", "cloud"])
async def the_gate(
    request: pytest.FixtureRequest, home: Path, calendar: Calendar, double: CloudDouble
) -> AsyncIterator[gate.Gate]:
    backend = cloud_engine(double) if request.param == "cloud" else None
    g = gate.Gate(make_tools(calendar), policies=POLICIES, backend=backend)
    yield g
    await g.aclose()


ALICE = Caller("alice", verified=True, roles=frozenset({"customer"}))


def pg_url() -> str | None:
    return os.environ.get("GATE_TEST_PG_URL")


@pytest.fixture
def pg_database() -> Iterator[str]:
    """A fresh, empty PostgreSQL database on the test server, dropped afterwards."""
    base = pg_url()
    if not base:
        pytest.skip("GATE_TEST_PG_URL is not set (.ci/run sets it)")
    import psycopg
    from sqlalchemy.engine import make_url

    name = f"gate_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield make_url(base).set(database=name).render_as_string(hide_password=False)
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def receipts_by_decision(g: gate.Gate) -> dict[str, Any]:
    return {r.decision_id: r for r in g.ledger.receipts()}
