"""``gate audit keygen``, ``checkpoint`` and ``checkpoints``: the signing key and the signed chain heads.

The private key never goes into the database: it is a file (mode 0600) or
``GATE_AUDIT_SIGNING_KEY``; ``gate audit verify --key`` needs only the
public key. ``checkpoints --export`` writes every checkpoint as JSON lines,
to keep where the ledger's writers cannot reach (``verify --checkpoints``
then also catches the newest checkpoints being deleted).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from gate.cli.common import AsJson, DatabaseUrl, fail, open_ledger
from gate.cli.output import line, print_json, table
from gate.config import GateSettings
from gate.errors import ConfigError

KeyFile = Annotated[
    Path | None,
    typer.Option(
        "--key-file",
        help="private key file (default: GATE_AUDIT_SIGNING_KEY or GATE_AUDIT_SIGNING_KEY_FILE)",
    ),
]


def keygen(
    out: Annotated[
        Path, typer.Argument(help="where to write the private key; the public key goes to OUT.pub")
    ],
    as_json: AsJson = False,
) -> None:
    """Make an Ed25519 key pair for signing checkpoints (private key mode 0600; refuses to overwrite)."""
    from gate.ledger.checkpoints import Signer, public_text

    public_path = out.with_name(out.name + ".pub")
    for path in (out, public_path):
        if path.exists():
            fail(f"{path} already exists: keygen never overwrites a key")
    signer = Signer.generate()
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(signer.private_pem())
        public_path.write_bytes(signer.public_pem())
    except OSError as exc:
        fail(f"cannot write the key: {exc.strerror or exc}")
    if as_json:
        print_json(
            {
                "private_key": str(out),
                "public_key": str(public_path),
                "key_id": signer.key_id,
                "public": public_text(signer.public),
            }
        )
        return
    line(f"private key: {out} (keep it off the database's machine; GATE_AUDIT_SIGNING_KEY_FILE={out})")
    line(f"public key:  {public_path} ({signer.key_id}; `gate audit verify --key {public_path}`)")


def checkpoint(key_file: KeyFile = None, as_json: AsJson = False, database_url: DatabaseUrl = None) -> None:
    """Sign the chain's head now, as the next checkpoint (a running gate also signs them periodically)."""
    from gate.audit import iso
    from gate.ledger.checkpoints import read_signer

    try:
        if key_file is not None:
            signer = read_signer(key_file, source="--key-file")
        else:
            found = GateSettings().checkpoint_signer()
            if found is None:
                fail(
                    "no signing key: pass --key-file or set GATE_AUDIT_SIGNING_KEY_FILE "
                    "(see `gate audit keygen`)"
                )
            signer = found
    except ConfigError as exc:
        fail(str(exc))
    ledger = open_ledger(database_url, write=True)
    try:
        signed, _ = ledger.checkpoint(signer)
    finally:
        ledger.close()
    if as_json:
        print_json(signed.as_dict())
    else:
        line(
            f"checkpoint {signed.seq} signed at {iso(signed.at)}: entry {signed.chain_seq} "
            f"({signed.chain_hash}) by {signed.key_id}"
        )


def checkpoints(
    export: Annotated[
        bool, typer.Option("--export", help="every checkpoint as JSON lines, to keep outside the database")
    ] = False,
    database_url: DatabaseUrl = None,
) -> None:
    """The signed checkpoints, oldest first (``--export``: as JSON lines for keeping elsewhere)."""
    from gate.audit import iso
    from gate.ledger.checkpoints import export_lines, stream

    ledger = open_ledger(database_url)
    try:
        with ledger.engine.connect() as conn:
            if export:
                for text in export_lines(conn):
                    sys.stdout.write(text)
                return
            rows = [
                [
                    c.seq,
                    iso(c.at),
                    c.chain_seq,
                    c.chain_hash,
                    c.key_id,
                    "yes" if now == c.chain_hash else "NO",
                ]
                for c, now in stream(conn)
            ]
    finally:
        ledger.close()
    if not rows:
        line("no checkpoints signed yet")
        return
    table(("checkpoint", "time", "entry", "hash", "key", "in chain"), rows, right=("checkpoint", "entry"))
