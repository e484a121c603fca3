"""Export against verify on one ledger: time and peak memory of each whole command.

Fills a PostgreSQL database with N decisions (``bench/ledger_gen.py``:
each with its receipt and delivery, a third with a confirmation asked and
answered), then runs ``gate audit verify`` and ``gate audit export`` (to
/dev/null) as a user would, three times each, and prints the median wall
time, the ratio export / verify, and each command's peak resident memory.
An export on a quarter of the ledger is measured too: constant memory means
the two peaks match.

Run: python bench/export.py --url postgresql://postgres@/postgres?host=/tmp/pg --decisions 100000
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ledger_gen import generate  # noqa: E402


def database(base: str, name: str, *, fresh: bool) -> tuple[str, bool]:
    """The URL of database ``name`` on ``base``'s server; creates it when missing (True if created)."""
    import psycopg
    from sqlalchemy.engine import make_url

    plain = base.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if exists and fresh:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            exists = None
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
    return make_url(plain).set(database=name).render_as_string(hide_password=False), not exists


def run(cmd: list[str]) -> tuple[float, int, int]:
    """Wall seconds, exit status and peak resident memory (KiB) of one command."""
    started = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0 and proc.stderr is not None:
        sys.stderr.write(proc.stderr.read().decode())
    return time.perf_counter() - started, proc.returncode, usage.ru_maxrss


def measure(url: str, repeat: int) -> dict[str, tuple[float, int]]:
    gate = str(Path(sys.executable).parent / "gate")
    commands = {
        "verify": [gate, "audit", "verify", "--database-url", url],
        "export": [gate, "audit", "export", "--database-url", url],
    }
    found: dict[str, tuple[float, int]] = {}
    for name, cmd in commands.items():
        walls, peaks = [], []
        for _ in range(repeat):
            wall, code, peak = run(cmd)
            if code != 0:
                sys.exit(f"{name} failed with exit status {code}")
            walls.append(wall)
            peaks.append(peak)
        found[name] = (statistics.median(walls), max(peaks))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", default=os.environ.get("GATE_TEST_PG_URL"), help="a PostgreSQL server URL")
    parser.add_argument("--decisions", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fresh", action="store_true", help="regenerate the ledgers even if they exist")
    args = parser.parse_args()
    if not args.url:
        sys.exit("give --url (a PostgreSQL server) or set GATE_TEST_PG_URL")
    sizes = {"full": args.decisions, "quarter": args.decisions // 4}
    results: dict[str, dict[str, tuple[float, int]]] = {}
    for label, n in sizes.items():
        url, created = database(args.url, f"gate_bench_export_{n}", fresh=args.fresh)
        if created:
            started = time.perf_counter()
            generate(url, n, callers=20_000)
            print(f"generated {n:,} decisions in {time.perf_counter() - started:.0f}s", file=sys.stderr)
        results[label] = measure(url, args.repeat if label == "full" else 1)
    full = results["full"]
    verify_s, verify_kib = full["verify"]
    export_s, export_kib = full["export"]
    print(
        f"| {args.decisions:,} decisions on PostgreSQL (median of {args.repeat}) | seconds | peak RSS MiB |"
    )
    print("|---|---|---|")
    print(f"| gate audit verify | {verify_s:.1f} | {verify_kib / 1024:.0f} |")
    print(f"| gate audit export > /dev/null | {export_s:.1f} | {export_kib / 1024:.0f} |")
    print(f"| export / verify | {export_s / verify_s:.2f} | |")
    quarter_s, quarter_kib = results["quarter"]["export"]
    quarter = f"export of {sizes['quarter']:,} decisions (memory check)"
    print(f"| {quarter} | {quarter_s:.1f} | {quarter_kib / 1024:.0f} |")


if __name__ == "__main__":
    main()
