"""Audit review at scale: list, show and verify on a large ledger.

Generates (or reuses) a ledger of N decisions with ``bench/ledger_gen.py``,
then measures, in this process:
  list      first page, newest first: unfiltered, by caller, by tool+outcome, violations only
  show      one decision's whole story, random ids
  verify    the whole chain and every record (entries per second)
and, as whole commands (interpreter start included), ``gate audit list`` and
``gate audit show`` against ``python -c 'import gate.cli'`` as the baseline.

Run: python bench/audit.py --decisions 1000000 --ledger /tmp/gate-1m.db
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ledger_gen import generate  # noqa: E402
from gate.audit import AuditFilter, list_decisions, story  # noqa: E402
from gate.ledger import Ledger  # noqa: E402


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    fn()  # warm the page cache and the statement cache
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def p(xs: list[float], q: int) -> float:
    return statistics.quantiles(xs, n=100, method="inclusive")[q - 1]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--decisions", type=int, default=1_000_000)
    parser.add_argument("--ledger", type=Path, default=Path("/tmp/gate-bench-audit.db"))
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    url = f"sqlite:///{args.ledger.resolve()}"
    if not args.ledger.exists():
        t = time.perf_counter()
        generate(url, args.decisions, callers=20_000)
        print(f"generated {args.decisions:,} decisions in {time.perf_counter() - t:.0f}s", file=sys.stderr)
    ledger = Ledger(url, create=False)
    rnd = random.Random(3)
    n = args.decisions
    rows: list[tuple[str, list[float]]] = [
        ("list, first page", timed(lambda: list_decisions(ledger, AuditFilter()), args.repeat)),
        (
            "list --caller",
            timed(
                lambda: list_decisions(ledger, AuditFilter(caller=f"caller-{rnd.randrange(20_000)}")),
                args.repeat,
            ),
        ),
        (
            "list --tool --outcome",
            timed(
                lambda: list_decisions(ledger, AuditFilter(tool="issue_refund", outcome="abstain")),
                args.repeat,
            ),
        ),
        (
            "list --status failed (none match)",
            timed(lambda: list_decisions(ledger, AuditFilter(status="failed")), 3),
        ),
        ("show", timed(lambda: story(ledger, f"gd_{rnd.randrange(n):032x}"), args.repeat)),
    ]
    print(f"| {n:,} decisions | p50 ms | p95 ms |")
    print("|---|---|---|")
    for name, xs in rows:
        print(f"| {name} | {p(xs, 50):.1f} | {p(xs, 95):.1f} |")
    report = ledger.verify()
    assert report.ok, report.first_broken
    print(
        f"\nverify: {report.checked:,} entries in {report.seconds:.1f}s = "
        f"{report.checked / report.seconds:,.0f} entries/s (parallel: chain and each record table)"
    )
    ledger.close()

    gate_cmd = [str(Path(sys.executable).parent / "gate")]
    some_id = f"gd_{n // 2:032x}"
    commands = {
        "python -c 'import gate.cli' (baseline)": [sys.executable, "-c", "import gate.cli"],
        "gate audit list": [*gate_cmd, "audit", "list", "--database-url", url, "--json"],
        "gate audit show": [*gate_cmd, "audit", "show", some_id, "--database-url", url, "--json"],
    }
    walls: dict[str, float] = {}
    for name, cmd in commands.items():
        xs = []
        for _ in range(5):
            t = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            xs.append((time.perf_counter() - t) * 1000)
        walls[name] = statistics.median(xs)
    base = walls["python -c 'import gate.cli' (baseline)"]
    print("\n| command (median of 5, interpreter start included) | ms | minus baseline |")
    print("|---|---|---|")
    for name, ms in walls.items():
        print(f"| {name} | {ms:.0f} | {ms - base:.0f} |")


if __name__ == "__main__":
    main()
