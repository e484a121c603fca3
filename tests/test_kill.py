"""Crash safety: a process making gated calls is SIGKILLed at random, again and again.

Afterwards every decision has exactly one receipt in the ledger and at the
hosted double, and no side effect happened twice.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import gate
from gate.testing.contextdb import CloudDouble, serve

KILLS = 16
WORKER = Path(__file__).parent / "kill" / "worker.py"
ROOT = Path(__file__).parent.parent


@pytest.fixture
def served() -> Iterator[tuple[CloudDouble, str]]:
    double = CloudDouble()
    with serve(double) as url:
        yield double, url


def spawn(url: str, home: Path, calls: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, str(WORKER), "--url", url, "--home", str(home), "--calls", str(calls)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )


def test_sigkill_at_random_points_loses_and_duplicates_nothing(
    served: tuple[CloudDouble, str], tmp_path: Path
) -> None:
    double, url = served
    rnd = random.Random(20261130)
    killed = 0
    while killed < KILLS:
        proc = spawn(url, tmp_path, calls=100_000)
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(rnd.uniform(0.0, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        killed += 1
    # One last start that is allowed to finish: it reconciles and delivers what the dead left.
    proc = spawn(url, tmp_path, calls=5)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0 and out.split() == ["ready", "done"]

    ledger = gate.Ledger(f"sqlite:///{tmp_path / 'ledger.db'}", create=False)
    decisions = ledger.decisions()
    receipts = {r.decision_id: r for r in ledger.receipts()}
    assert len(decisions) > KILLS
    assert ledger.unclosed(time.time() + 1) == []
    assert set(receipts) == {d.id for d in decisions}  # exactly one each (unique in the ledger)
    for d in decisions:
        r = receipts[d.id]
        if d.service_decision_id is None:
            assert r.delivery_state == "local"
            continue
        assert r.delivery_state == "delivered", (d.id, r.delivery_state, r.last_error)
        stored = double.receipts[d.service_decision_id]["receipt"]
        assert (stored["status"], stored["external_ref"]) == (r.status, r.external_ref)
    ours = {d.service_decision_id for d in decisions if d.service_decision_id}
    orphans = set(double.decisions) - ours  # evaluated by the service, killed before we recorded them
    assert not orphans & set(double.receipts)

    import sqlite3

    shipped = sqlite3.connect(tmp_path / "effects.db").execute("SELECT key, item FROM shipped").fetchall()
    keys = [k for k, _ in shipped]
    assert len(keys) == len(set(keys))
    succeeded = {f"gate-{d}" for d, r in receipts.items() if r.status == "succeeded"}
    assert set(keys) == succeeded  # every effect has its succeeded receipt, and no receipt lies
    assert len({item for _, item in shipped}) == len(shipped)  # no item shipped twice
    statuses = {r.error_code or r.status for r in receipts.values()}
    assert "outcome_unknown" not in statuses  # the hook always answered: nothing left to guess
    assert ledger.verify().ok
    ledger.close()
