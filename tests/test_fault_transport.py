"""Transport faults against the ContextDB double: broken 200s, transient save errors, long Retry-After.

- A 200 whose body is not the contract's is a transport fault: the receipt stays pending and the
  next drain delivers it (the same key replays the stored receipt).
- A caller's fact survives one 503, 429 or dropped connection on ``/v1/remember``: bounded
  retries under the same key, ``Retry-After`` honoured up to a cap, all in the background.
- A ``Retry-After`` longer than the drain's cap stops the drain (receipts kept pending), in one line.
- ``gate receipts drain --grace`` takes a finite number of seconds, 0 or more.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from livekit.agents import Agent, AgentSession
from structlog.testing import capture_logs
from typer.testing import CliRunner

import gate
from gate.cli import app
from gate.cloud.backend import CloudEngine, MalformedAnswer, retry_after_seconds
from gate.errors import ServiceError
from gate.memory.cloud import SAVE_ATTEMPTS, CloudMemory, transient
from gate.outbox import RETRY_AFTER_CAP_S, Outbox
from gate.testing.contextdb import CloudDouble
from gate.testing.llm import ScriptedLLM, call, say
from tests.conftest import ALICE, POLICIES, Calendar, cloud_engine, make_tools


class Sleeps:
    """Records the waits between tries instead of sleeping through them."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


class Drops(httpx.AsyncBaseTransport):
    """Drops the next ``n`` requests to ``path`` before they reach the service (connection refused)."""

    def __init__(
        self, inner: httpx.AsyncBaseTransport, path: str, n: int = 1, *, hang_s: float = 0.0
    ) -> None:
        self.inner, self.path, self.n, self.hang_s = inner, path, n, hang_s

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == self.path and self.n > 0:
            self.n -= 1
            if self.hang_s:
                await asyncio.sleep(self.hang_s)
            raise httpx.ConnectError("Connection refused", request=request)
        return await self.inner.handle_async_request(request)


@pytest.fixture
async def cloud(home: Path, calendar: Calendar, double: CloudDouble) -> AsyncIterator[gate.Gate]:
    g = gate.Gate(make_tools(calendar), policies=POLICIES, backend=cloud_engine(double))
    g.outbox = Outbox(g.ledger, g.backend, sleep=Sleeps(), attempt_timeout_s=2.0)
    g.pipeline.outbox = g.outbox
    yield g
    await g.aclose(flush_timeout_s=1)


async def book_thursday(g: gate.Gate) -> list[str]:
    await g.backend.remember("alice", "I'd like my visit on Thursday", source="user_stated", confidence=0.9)
    llm = ScriptedLLM([call("book_visit", day="Thursday"), say("ok")])
    session: AgentSession[Any] = AgentSession(llm=llm, vad=None, turn_handling={"turn_detection": None})
    await session.start(Agent(instructions="x", tools=g.tools_for(ALICE, session)))
    result = await session.run(user_input="Book Thursday.")
    await session.aclose()
    return [e.item.output for e in result.events if e.type == "function_call_output"]


def only_receipt(g: gate.Gate) -> Any:
    (receipt,) = g.ledger.receipts()
    return receipt


def drain_cli(double: CloudDouble, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    monkeypatch.setattr("gate.gate._default_backend", lambda settings, ledger: cloud_engine(double))
    return CliRunner().invoke(app, ["receipts", "drain", "--grace", "0", *args])


# -- 1. a 200 with a broken body is a transport fault, not a verdict -----------------------------

GARBLED = {
    "not JSON": b'{"decision_id": "',
    "not an object": b"[]",
    "no receipt": json.dumps({"decision_id": "x", "outcome": "act"}).encode(),
}


@pytest.mark.parametrize("body", list(GARBLED.values()), ids=list(GARBLED))
async def test_a_200_with_a_broken_body_keeps_the_receipt_pending(
    cloud: gate.Gate, double: CloudDouble, calendar: Calendar, body: bytes
) -> None:
    double.faults.paths = ("/v1/receipts",)
    double.faults.garbled, double.faults.garbled_body = 1, body
    assert await book_thursday(cloud) == ["Booked Thursday."]
    receipt = only_receipt(cloud)
    # The service took it, the answer was broken: pending, with the cause, never rejected.
    assert receipt.delivery_state == "pending"
    assert (receipt.last_error or "").startswith("MalformedAnswer: the decision service answered 200")
    assert cloud.ledger.undelivered() != []
    report = await cloud.outbox.drain(reconcile_grace_s=None)
    assert (report.delivered, report.pending, report.rejected) == (1, 0, 0)
    receipt = only_receipt(cloud)
    assert receipt.delivery_state == "delivered" and receipt.policy_alignment == "aligned"
    assert double.receipts_for(receipt.service_decision_id) == 1 and len(calendar.effects) == 1
    assert cloud.ledger.verify().ok


async def test_a_receipt_for_another_decision_is_not_an_acknowledgement(
    cloud: gate.Gate, double: CloudDouble
) -> None:
    double.faults.paths = ("/v1/receipts",)
    double.faults.unavailable = 1
    await book_thursday(cloud)
    other = {
        "decision_id": "dec_other",
        "outcome": "act",
        "receipt": {
            "id": "rcpt_x",
            "decision_id": "dec_other",
            "action_name": "booking.create",
            "status": "succeeded",
            "policy_alignment": "aligned",
            "external_ref": None,
            "error_code": None,
            "request_id": "req_1",
            "created_at": "2026-01-01T00:00:00Z",
        },
    }
    double.faults.garbled, double.faults.garbled_body = 1000, json.dumps(other).encode()
    report = await cloud.outbox.drain(reconcile_grace_s=None, attempts=2)
    assert (report.delivered, report.pending, report.rejected) == (0, 1, 0)
    (failure,) = report.failures
    assert failure.state == "pending" and "a receipt for another decision" in failure.cause
    assert only_receipt(cloud).delivery_state == "pending"


async def test_the_drain_names_a_broken_answer_and_a_later_drain_delivers(
    cloud: gate.Gate, double: CloudDouble, monkeypatch: pytest.MonkeyPatch
) -> None:
    double.faults.paths = ("/v1/receipts",)
    double.faults.garbled, double.faults.garbled_body = 1000, GARBLED["no receipt"]
    await book_thursday(cloud)
    receipt = only_receipt(cloud)

    broken = await asyncio.to_thread(drain_cli, double, monkeypatch, "--attempts", "2")
    assert broken.exit_code == 1
    assert "still pending 1, conflicts 0, rejected 0" in broken.stdout
    (line,) = broken.stderr.splitlines()
    assert line.startswith(
        f"gate: receipt {receipt.id} (decision {receipt.decision_id}) pending: MalformedAnswer"
    )
    assert "body that is not the contract's" in line and "no 'receipt'" in line
    listed = CliRunner().invoke(app, ["audit", "list", "--undelivered", "--json"])
    assert listed.exit_code == 0 and '"pending"' in listed.stdout and "rejected" not in listed.stdout

    double.faults.garbled = 0
    fixed = await asyncio.to_thread(drain_cli, double, monkeypatch)
    assert fixed.exit_code == 0, fixed.output
    assert "delivered 1, still pending 0" in fixed.stdout
    assert only_receipt(cloud).delivery_state == "delivered"
    assert double.receipts_for(receipt.service_decision_id) == 1


async def test_a_broken_decision_answer_fails_closed(
    cloud: gate.Gate, double: CloudDouble, calendar: Calendar
) -> None:
    double.faults.paths = ("/v1/recall_for_action",)
    double.faults.garbled = 1
    outputs = await book_thursday(cloud)
    assert outputs[0].startswith("I can't book Thursday on this call.")
    assert calendar.booked == {}
    (d,) = cloud.ledger.decisions()
    assert d.outcome == "abstain"


async def test_malformed_answers_are_retryable_service_errors() -> None:
    err = MalformedAnswer(200, "POST /v1/receipts", "no 'receipt'")
    assert isinstance(err, ServiceError) and err.retryable and transient(err)
    assert not transient(ServiceError(401, "unauthorized", "bad key"))
    assert not transient(ServiceError(400, "invalid_request", "bad"))
    assert transient(ServiceError(429, "rate_limited", "slow down")) and transient(httpx.ConnectError("x"))


# -- 2. a caller's fact survives a passing fault ------------------------------------------------


def memory_on(
    double: CloudDouble, transport: httpx.AsyncBaseTransport | None = None, **kw: Any
) -> CloudMemory:
    engine = CloudEngine(
        "http://contextdb.test", "cdb_test_key", transport=transport or httpx.ASGITransport(app=double.app)
    )
    return CloudMemory(engine, **kw)


def kept(double: CloudDouble, caller: str = "alice") -> list[str]:
    return [m.content for m in double.memories.values() if m.user_id == caller]


FACT = "My dog is called Biscuit and she is afraid of the hoover."


@pytest.mark.parametrize("fault", ["503", "429", "connect", "garbled"])
async def test_one_transient_save_error_does_not_lose_the_fact(double: CloudDouble, fault: str) -> None:
    double.faults.paths = ("/v1/remember",)
    transport: httpx.AsyncBaseTransport = httpx.ASGITransport(app=double.app)
    if fault == "503":
        double.faults.unavailable = 1
    elif fault == "429":
        double.faults.rate_limited, double.faults.retry_after_s = 1, 2
    elif fault == "garbled":
        double.faults.garbled = 1  # processed, then a broken 200: the retry must not keep it twice
    else:
        transport = Drops(transport, "/v1/remember")
    sleeps = Sleeps()
    memory = memory_on(double, transport, sleep=sleeps)
    await memory.save_exchange("alice", FACT, "")
    assert kept(double) == [FACT]
    assert len(sleeps.waits) == 1
    if fault == "429":
        assert sleeps.waits[0] >= 2  # the service's Retry-After is honoured
    await memory.engine.aclose()


async def test_a_save_gives_up_after_a_bounded_number_of_tries(double: CloudDouble) -> None:
    double.faults.paths = ("/v1/remember",)
    double.faults.unavailable = 1000
    sleeps = Sleeps()
    memory = memory_on(double, sleep=sleeps)
    with pytest.raises(ServiceError) as raised:
        await memory.save_exchange("alice", FACT, "")
    assert raised.value.status == 503
    assert double.faults.seen.count("/v1/remember") == SAVE_ATTEMPTS == 3
    assert len(sleeps.waits) == SAVE_ATTEMPTS - 1 and sum(sleeps.waits) < 10
    await memory.engine.aclose()


async def test_a_retry_after_over_the_cap_is_not_waited_for(double: CloudDouble) -> None:
    double.faults.paths = ("/v1/remember",)
    double.faults.rate_limited, double.faults.retry_after_s = 1000, 600
    sleeps = Sleeps()
    memory = memory_on(double, sleep=sleeps)
    with pytest.raises(ServiceError) as raised:
        await memory.save_exchange("alice", FACT, "")
    assert raised.value.status == 429 and raised.value.retry_after == 600
    assert double.faults.seen.count("/v1/remember") == 1 and sleeps.waits == []
    await memory.engine.aclose()


@pytest.mark.parametrize(
    ("status", "code"), [(401, "unauthorized"), (403, "forbidden"), (400, "invalid_request")]
)
async def test_credentials_and_other_4xx_are_not_retried(double: CloudDouble, status: int, code: str) -> None:
    class Refuses(httpx.AsyncBaseTransport):
        calls = 0

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            Refuses.calls += 1
            return httpx.Response(status, json={"code": code, "message": "no", "request_id": "req_1"})

    sleeps = Sleeps()
    memory = memory_on(double, Refuses(), sleep=sleeps)
    with pytest.raises(ServiceError) as raised:
        await memory.save_exchange("alice", FACT, "")
    assert raised.value.status == status
    assert Refuses.calls == 1 and sleeps.waits == []
    await memory.engine.aclose()


async def test_a_save_ends_within_its_deadline(double: CloudDouble) -> None:
    # Every try hangs (a dead connection): the whole save still ends at its deadline.
    transport = Drops(httpx.ASGITransport(app=double.app), "/v1/remember", n=1000, hang_s=30)
    memory = memory_on(double, transport, save_deadline_s=0.3)
    # Every try would hang 30 s: the save's own deadline ends it (the wait only keeps a
    # regression from holding the suite; it must find the save already over).
    saving = asyncio.ensure_future(memory.save_exchange("alice", FACT, ""))
    done, _ = await asyncio.wait({saving}, timeout=20)
    assert saving in done
    with pytest.raises(TimeoutError):
        saving.result()
    await memory.engine.aclose()


async def test_the_reply_never_waits_for_retries_and_one_warning_names_the_failure(
    home: Path, calendar: Calendar, double: CloudDouble
) -> None:
    engine = cloud_engine(double)
    memory = CloudMemory(engine, retry_after_cap_s=5.0)
    g = gate.Gate(make_tools(calendar), policies=POLICIES, backend=engine, memory=memory)
    # A rate-limited service: the fact is saved after a 1 s wait, behind the reply.
    double.faults.paths = ("/v1/remember",)
    double.faults.rate_limited, double.faults.retry_after_s = 1, 1
    llm = ScriptedLLM([say("Noted.")])
    session: AgentSession[Any] = AgentSession(llm=llm, vad=None, turn_handling={"turn_detection": None})
    agent = gate.MemoryAgent(instructions="x", memory=g.memory_for(ALICE), tools=g.tools_for(ALICE, session))
    await session.start(agent)
    started = time.monotonic()
    await session.run(user_input=FACT)
    assert time.monotonic() - started < 0.9  # the reply did not wait for the retry
    assert kept(double) == []
    assert await g.saves.settled("alice", 5)
    assert kept(double) == [FACT]

    # Down for good: after the last try, one warning naming the cause.
    double.faults.unavailable = 1000
    with capture_logs() as logs:
        llm.add(say("Noted."))
        await session.run(user_input="My cat is called Miso.")
        assert await g.saves.settled("alice", 10)
    failed = [e for e in logs if e["event"] == "gate.memory.save_failed"]
    assert len(failed) == 1 and failed[0]["error"] == "ServiceError"
    await session.aclose()
    await g.aclose(flush_timeout_s=1)


# -- 3. a Retry-After over the cap stops the drain --------------------------------------------


async def test_a_retry_after_over_the_cap_stops_the_drain(cloud: gate.Gate, double: CloudDouble) -> None:
    double.faults.paths = ("/v1/receipts",)
    double.faults.unavailable = 1
    await book_thursday(cloud)
    assert only_receipt(cloud).delivery_state == "pending"
    double.faults.rate_limited, double.faults.retry_after_s = 1000, 3600
    before = double.faults.seen.count("/v1/receipts")
    report = await cloud.outbox.drain(reconcile_grace_s=None)
    assert (
        report.deferred is not None
        and "3600 s" in report.deferred
        and f"{RETRY_AFTER_CAP_S:g} s" in report.deferred
    )
    assert (report.delivered, report.pending, report.retry_after_s) == (0, 1, 3600)
    assert double.faults.seen.count("/v1/receipts") - before == 1  # no second try in this run
    sleeps = cloud.outbox._sleep
    assert isinstance(sleeps, Sleeps) and all(w <= RETRY_AFTER_CAP_S for w in sleeps.waits)
    receipt = only_receipt(cloud)
    assert receipt.delivery_state == "pending" and "Retry-After 3600 s" in (receipt.last_error or "")


async def test_a_retry_after_within_the_cap_is_waited_for(cloud: gate.Gate, double: CloudDouble) -> None:
    double.faults.paths = ("/v1/receipts",)
    double.faults.rate_limited, double.faults.retry_after_s = 1, RETRY_AFTER_CAP_S
    assert await book_thursday(cloud) == ["Booked Thursday."]
    report = await cloud.outbox.drain(reconcile_grace_s=None)
    assert (report.delivered, report.deferred) == (1, None)


async def test_the_command_line_drain_stops_at_once_in_one_line(
    cloud: gate.Gate, double: CloudDouble, monkeypatch: pytest.MonkeyPatch
) -> None:
    double.faults.paths = ("/v1/receipts",)
    double.faults.unavailable = 1
    await book_thursday(cloud)
    double.faults.rate_limited, double.faults.retry_after_s = 1000, 3600
    # Asked to wait an hour: the drain stops at once (the guard only keeps a regression from
    # holding the suite for that hour).
    result = await asyncio.wait_for(asyncio.to_thread(drain_cli, double, monkeypatch), 120)
    assert result.exit_code == 1
    assert "delivered 0, still pending 1" in result.stdout
    (line,) = result.stderr.splitlines()
    assert line == (
        "gate: the decision service asked to wait 3600 s before trying again (Retry-After), more than the "
        "30 s a drain waits: stopped, 1 receipt kept pending for a later drain"
    )
    assert only_receipt(cloud).delivery_state == "pending"


async def test_the_background_drain_leaves_the_service_alone_as_asked(
    cloud: gate.Gate, double: CloudDouble
) -> None:
    double.faults.paths = ("/v1/receipts",)
    double.faults.unavailable = 1
    await book_thursday(cloud)
    double.faults.rate_limited, double.faults.retry_after_s = 1000, 3600
    before = double.faults.seen.count("/v1/receipts")
    cloud.outbox.start(interval_s=0.05)
    try:
        for _ in range(10):  # new receipts wake it; it still waits its turn
            await asyncio.sleep(0.05)
            cloud.outbox.notify()
    finally:
        await cloud.outbox.stop(flush_timeout_s=0.5)
    # The first drain's one try, and the final flush's one try: nothing in between.
    assert double.faults.seen.count("/v1/receipts") - before <= 2
    assert only_receipt(cloud).delivery_state == "pending"


@pytest.mark.parametrize(
    ("header", "seconds"),
    [("7", 7.0), ("0.5", 0.5), ("nan", None), ("inf", None), ("-5", None), ("soon", None), ("", None)],
)
def test_retry_after_is_read_as_seconds_or_ignored(header: str, seconds: float | None) -> None:
    assert retry_after_seconds(header) == seconds


def test_retry_after_as_an_http_date() -> None:
    assert retry_after_seconds("Thu, 01 Jan 2026 00:01:00 GMT", now=1767225600.0) == 60.0
    assert retry_after_seconds("Thu, 01 Jan 2026 00:00:00 GMT", now=1767225700.0) == 0.0


# -- 4. --grace is an age ------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["-5", "nan", "inf", "-inf"])
def test_drain_grace_must_be_a_finite_age(home: Path, value: str) -> None:
    result = CliRunner().invoke(app, ["receipts", "drain", "--grace", value])
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("gate: Invalid value for '--grace': ")
    assert "expected a finite number of seconds, 0 or more" in line
    assert line.endswith("receipts drain --help)")  # the usual pointer to the help


async def test_drain_grace_zero_is_accepted(
    cloud: gate.Gate, double: CloudDouble, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = await asyncio.to_thread(drain_cli, double, monkeypatch)
    assert result.exit_code == 0, result.output
    assert "delivered 0, still pending 0" in result.stdout
