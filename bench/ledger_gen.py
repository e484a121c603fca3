"""Generate a large, valid audit ledger (decisions, confirmations, receipts, deliveries, chain).

Rows are written in bulk through the ledger's own tables, digests and chain
hashes, so ``gate audit verify`` accepts the result. Every receipt was
delivered once and acknowledged; confirmations are asked, then answered
(two chain entries each), as the gate writes them.

Run: python bench/ledger_gen.py --decisions 1000000 --out /tmp/ledger.db
     python bench/ledger_gen.py --decisions 100000 --url postgresql://...
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import insert  # noqa: E402

from gate.ledger import Ledger  # noqa: E402
from gate.ledger.chain import CURRENT_KIND, FORMATS, GENESIS, RecordDigest, entry_hash  # noqa: E402
from gate.ledger.tables import (  # noqa: E402
    ChainRow,
    ConfirmationRow,
    DecisionRow,
    DeliveryRow,
    ReceiptRow,
)

TOOLS = [
    ("book_visit", "booking.create"),
    ("issue_refund", "payment.refund"),
    ("cancel_visit", "booking.cancel"),
]
RULES = {
    "act": ["evidence", "default"],
    "ask": ["evidence", "confirm.always"],
    "abstain": ["evidence", "limits.amount.max", "rate", "caller.verified"],
}


def generate(url: str, decisions: int, callers: int, seed: int = 7) -> None:
    rnd = random.Random(seed)
    ledger = Ledger(url)
    tables: dict[str, Any] = {
        "decision": DecisionRow.__table__,  # type: ignore[attr-defined]
        "confirmation": ConfirmationRow.__table__,  # type: ignore[attr-defined]
        "receipt": ReceiptRow.__table__,  # type: ignore[attr-defined]
        "delivery": DeliveryRow.__table__,  # type: ignore[attr-defined]
    }
    kinds = {k: CURRENT_KIND[t.name] for k, t in tables.items()}
    digests = {k: RecordDigest(t, FORMATS[kinds[k]][1]) for k, t in tables.items()}
    chain_table = ChainRow.__table__  # type: ignore[attr-defined]
    prev, seq = GENESIS, 0
    start = time.time() - decisions * 2.0  # one decision every two seconds, ending now
    batch: dict[str, list[dict[str, Any]]] = {k: [] for k in [*tables, "chain"]}

    def chain(table: str, row: dict[str, Any], at: float, *, values: dict[str, Any] | None = None) -> None:
        nonlocal prev, seq
        seq += 1
        kind = kinds[table]
        digest = digests[table].of_values([(values or row)[c] for c in digests[table].columns])
        hashed = entry_hash(prev, seq, at, kind, row["id"], digest)
        batch["chain"].append(
            {
                "seq": seq,
                "at": at,
                "kind": kind,
                "ref_id": row["id"],
                "digest": digest,
                "prev_hash": prev,
                "hash": hashed,
            }
        )
        row["chain_seq"] = seq
        prev = hashed

    def flush(conn: Any) -> None:
        for kind, table in tables.items():
            if batch[kind]:
                conn.execute(insert(table), batch[kind])
        if batch["chain"]:
            conn.execute(insert(chain_table), batch["chain"])
        for rows in batch.values():
            rows.clear()

    with ledger.write_engine.begin() as conn:
        for i in range(decisions):
            at = start + i * 2.0 + rnd.random()
            tool, action = TOOLS[i % len(TOOLS)]
            outcome = rnd.choices(["act", "ask", "abstain"], weights=[5, 3, 2])[0]
            caller = f"caller-{rnd.randrange(callers)}"
            session = f"gs_{i // 6:012x}"
            did = f"gd_{i:032x}"
            args = (
                {"day": "Friday"}
                if tool != "issue_refund"
                else {"order_id": f"A-{i}", "amount": rnd.randrange(1, 300)}
            )
            rule = rnd.choice(RULES[outcome])
            decision = {
                "id": did,
                "created_at": at,
                "session_id": session,
                "caller_id": caller,
                "caller_json": json.dumps({"id": caller, "roles": ["customer"], "verified": True}),
                "tool": tool,
                "action_name": action,
                "args_json": json.dumps(args, sort_keys=True),
                "args_digest": "sha256:" + f"{i:064x}",
                "action_digest": "sha256:" + f"{i + 1:064x}",
                "policy_name": tool,
                "policy_hash": "sha256:" + "ab" * 32,
                "mode": "enforce",
                "outcome": outcome,
                "enforced_outcome": outcome,
                "rule": rule,
                "trace_json": json.dumps([{"rule": rule, "outcome": outcome, "detail": ""}]),
                "evidence_json": json.dumps(
                    {
                        "decision_id": f"dec_{i:032x}",
                        "outcome": outcome,
                        "reason": "",
                        "memories": [],
                        "pending": [],
                    }
                ),
                "service_decision_id": f"dec_{i:032x}",
                "state_version": str(i % 97),
                "confirmation_id": None,
                "call_id": f"call_{i:010x}",
                "latency_ms": round(rnd.lognormvariate(1.2, 0.4), 3),
                "chain_seq": None,
            }
            chain("decision", decision, at)
            batch["decision"].append(decision)
            if outcome == "ask":
                conf = {
                    "id": f"gc_{i:032x}",
                    "decision_id": did,
                    "created_at": at,
                    "expires_at": at + 120,
                    "session_id": session,
                    "caller_id": caller,
                    "tool": tool,
                    "action_digest": decision["action_digest"],
                    "state_version": decision["state_version"],
                    "memory_ids_json": "[]",
                    "status": "confirmed",
                    "words": "yes",
                    "answered_at": at + 5,
                    "answer_message_id": f"item_{i:x}",
                    "chain_seq": None,
                }
                asked = {**conf, "status": "pending", "words": None, "answered_at": None}
                asked["answer_message_id"] = None
                chain("confirmation", conf, at + 0.001, values=asked)
                chain("confirmation", conf, at + 5)
                batch["confirmation"].append(conf)
            status = "succeeded" if outcome == "act" else "skipped"
            receipt = {
                "id": f"gr_{i:032x}",
                "decision_id": did,
                "idempotency_key": f"receipt-dec_{i:032x}",
                "created_at": at + 0.01,
                "caller_id": caller,
                "action_name": action,
                "status": status,
                "external_ref": f"ref-{i}" if status == "succeeded" else None,
                "error_code": None,
                "chain_seq": None,
                "service_decision_id": f"dec_{i:032x}",
            }
            chain("receipt", receipt, at + 0.01)
            batch["receipt"].append(receipt)
            delivery = {
                "id": f"gv_{i:032x}",
                "receipt_id": receipt["id"],
                "at": at + 0.02,
                "attempt": 1,
                "state": "delivered",
                "service_decision_id": f"dec_{i:032x}",
                "error": None,
                "policy_alignment": "aligned",
                "service_receipt_id": f"rcpt_{i:x}",
                "chain_seq": None,
            }
            chain("delivery", delivery, at + 0.02)
            batch["delivery"].append(delivery)
            if len(batch["chain"]) >= 20000:
                flush(conn)
        flush(conn)
    ledger.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--decisions", type=int, default=1_000_000)
    parser.add_argument("--callers", type=int, default=20_000)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", type=Path, help="SQLite file to create")
    where.add_argument("--url", help="an empty database to fill (e.g. PostgreSQL)")
    args = parser.parse_args()
    if args.out is not None and args.out.exists():
        sys.exit(f"{args.out} exists; remove it first")
    url = args.url or f"sqlite:///{args.out.resolve()}"
    started = time.perf_counter()
    generate(url, args.decisions, args.callers)
    print(f"{args.decisions:,} decisions in {time.perf_counter() - started:.0f}s -> {args.url or args.out}")


if __name__ == "__main__":
    main()
