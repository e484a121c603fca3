"""Signed checkpoints: the chain's head, signed with an Ed25519 key kept outside the database.

A hash chain only catches a writer who does not recompute it: whoever can
write the database can change a record and recompute every later hash. A
checkpoint pins the chain from outside: it signs the head (the last entry's
sequence number and hash) and the time, with a key the database never
holds, and names the checkpoint before it (the hash of its signed body and
signature), so checkpoints form a chain of their own. Checking them with
the public key (:func:`verify_checkpoints`) then finds what the plain chain
cannot: a chain rewritten and recomputed after a checkpoint (the entry no
longer has the signed hash), a chain cut at its tail (the signed entry is
gone), a checkpoint deleted or altered (the checkpoint chain breaks, or a
signature fails). A running :class:`gate.Gate` signs one every interval even
when nothing was written, so a missing stretch of time shows; a copy kept
elsewhere (:func:`export_lines`) also catches the newest ones being deleted.

Keys: ``gate audit keygen`` writes a PEM private key (mode 0600) and its
public key beside it. The signer reads ``GATE_AUDIT_SIGNING_KEY`` (the PEM
text, or the raw 32-byte key in base64) or ``GATE_AUDIT_SIGNING_KEY_FILE``.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hashlib
import json
import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from sqlalchemy import Connection, insert, select, text

from gate.errors import ConfigError
from gate.ledger.chain import GENESIS
from gate.ledger.tables import CheckpointRow

log = logging.getLogger("gate.ledger")

_CHECKPOINTS = CheckpointRow.__table__  # type: ignore[attr-defined]
FORMAT = "gate-checkpoint/1"


def key_id(public: Ed25519PublicKey) -> str:
    """``ed25519:`` and the first 16 hex digits of SHA-256 over the raw public key."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "ed25519:" + hashlib.sha256(raw).hexdigest()[:16]


def public_text(public: Ed25519PublicKey) -> str:
    """The raw public key in base64 (what ``--key`` takes besides a file)."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode()


class Signer:
    """Signs checkpoints with one Ed25519 private key."""

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self._private = private
        self.public = private.public_key()
        self.key_id = key_id(self.public)

    def sign(self, body: bytes) -> str:
        return base64.b64encode(self._private.sign(body)).decode()

    @staticmethod
    def generate() -> Signer:
        return Signer(Ed25519PrivateKey.generate())

    def private_pem(self) -> bytes:
        return self._private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )

    def public_pem(self) -> bytes:
        return self.public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )

    @staticmethod
    def from_text(value: str, *, source: str) -> Signer:
        """A signer from PEM text or a base64 raw 32-byte private key.

        Raises:
            ConfigError: naming ``source``, when the value is neither, or not an Ed25519 key.
        """
        value = value.strip()
        try:
            if value.startswith("-----BEGIN"):
                private = serialization.load_pem_private_key(value.encode(), password=None)
            else:
                private = Ed25519PrivateKey.from_private_bytes(base64.b64decode(value, validate=True))
        except (ValueError, TypeError, binascii.Error) as exc:
            raise ConfigError(
                f"{source}: expected an Ed25519 private key (PEM, or 32 bytes in base64): {exc}"
            ) from None
        if not isinstance(private, Ed25519PrivateKey):
            raise ConfigError(f"{source}: expected an Ed25519 private key, got {type(private).__name__}")
        return Signer(private)


def signer_from_env(key: str | None, key_file: Path | None) -> Signer | None:
    """The signer ``GATE_AUDIT_SIGNING_KEY`` or ``GATE_AUDIT_SIGNING_KEY_FILE`` names (None: neither set).

    Raises:
        ConfigError: the key cannot be read or is not an Ed25519 private key.
    """
    if key:
        return Signer.from_text(key, source="GATE_AUDIT_SIGNING_KEY")
    if key_file is not None:
        return read_signer(key_file, source="GATE_AUDIT_SIGNING_KEY_FILE")
    return None


def read_signer(path: Path, *, source: str) -> Signer:
    """The signer in a key file. Raises ConfigError naming ``source`` and the file."""
    try:
        content = path.read_text()
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read {path}: {exc.strerror or exc}") from None
    return Signer.from_text(content, source=f"{source} {path}")


class Verifier:
    """Checks checkpoint signatures with one Ed25519 public key."""

    def __init__(self, public: Ed25519PublicKey) -> None:
        self.public = public
        self.key_id = key_id(public)

    def holds(self, body: bytes, signature: str) -> bool:
        try:
            self.public.verify(base64.b64decode(signature, validate=True), body)
        except (InvalidSignature, ValueError, binascii.Error):
            return False
        return True

    @staticmethod
    def from_spec(spec: str) -> Verifier:
        """A public key from a file (PEM or base64 raw) or given inline in base64.

        Raises:
            ConfigError: the file or text is not an Ed25519 public key.
        """
        path = Path(spec)
        source = spec
        try:
            value = path.read_text().strip() if path.is_file() else spec.strip()
        except OSError as exc:
            raise ConfigError(f"cannot read the public key {spec}: {exc.strerror or exc}") from None
        try:
            if value.startswith("-----BEGIN"):
                public = serialization.load_pem_public_key(value.encode())
            else:
                public = Ed25519PublicKey.from_public_bytes(base64.b64decode(value, validate=True))
        except (ValueError, TypeError, binascii.Error):
            raise ConfigError(
                f"{source} is not an Ed25519 public key (a .pub file from `gate audit keygen`, "
                "or 32 bytes in base64)"
            ) from None
        if not isinstance(public, Ed25519PublicKey):
            raise ConfigError(f"{source}: expected an Ed25519 public key, got {type(public).__name__}")
        return Verifier(public)


@dataclass(frozen=True)
class Checkpoint:
    """One signed head of the chain (a row of ``gate_checkpoints``)."""

    seq: int
    at: float
    chain_seq: int
    chain_hash: str
    prev: str
    key_id: str
    signature: str

    def body(self) -> bytes:
        """The bytes signed: every field but the signature, one a line."""
        return (
            f"{FORMAT}\nseq {self.seq}\nat {self.at!r}\nchain {self.chain_seq} {self.chain_hash}\n"
            f"prev {self.prev}\nkey {self.key_id}"
        ).encode()

    def hash(self) -> str:
        """What the next checkpoint names as ``prev``: SHA-256 over the body and the signature."""
        return "sha256:" + hashlib.sha256(self.body() + b"\n" + self.signature.encode()).hexdigest()

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "seq": self.seq,
            "at": self.at,
            "chain_seq": self.chain_seq,
            "chain_hash": self.chain_hash,
            "prev": self.prev,
            "key_id": self.key_id,
            "signature": self.signature,
        }

    @staticmethod
    def from_dict(found: dict[str, Any]) -> Checkpoint:
        """Raises KeyError, TypeError or ValueError for a malformed checkpoint."""
        return Checkpoint(
            seq=int(found["seq"]),
            at=float(found["at"]),
            chain_seq=int(found["chain_seq"]),
            chain_hash=str(found["chain_hash"]),
            prev=str(found["prev"]),
            key_id=str(found["key_id"]),
            signature=str(found["signature"]),
        )


def _row(found: Any) -> Checkpoint:
    return Checkpoint(
        found.seq, found.at, found.chain_seq, found.chain_hash, found.prev, found.key_id, found.signature
    )


def append(
    conn: Connection, tail: tuple[int, str], signer: Signer, *, min_gap_s: float = 0.0
) -> tuple[Checkpoint, bool]:
    """Sign ``tail`` as the next checkpoint, inside the caller's write transaction, under the chain lock.

    With ``min_gap_s``, a checkpoint signed less than that long ago (by any
    process) is returned instead, with False. Returns (checkpoint, written).
    """
    c = _CHECKPOINTS.c
    last_row = conn.execute(select(_CHECKPOINTS).order_by(c.seq.desc()).limit(1)).first()
    last = _row(last_row) if last_row is not None else None
    now = time.time()
    if last is not None and min_gap_s > 0 and now - last.at < min_gap_s:
        return last, False
    unsigned = Checkpoint(
        seq=last.seq + 1 if last else 1,
        at=max(now, last.at) if last else now,
        chain_seq=tail[0],
        chain_hash=tail[1],
        prev=last.hash() if last else GENESIS,
        key_id=signer.key_id,
        signature="",
    )
    signed = Checkpoint(**{**unsigned.__dict__, "signature": signer.sign(unsigned.body())})
    conn.execute(insert(_CHECKPOINTS), [{k: v for k, v in signed.as_dict().items() if k != "format"}])
    return signed, True


def stream(conn: Any) -> Iterator[tuple[Checkpoint, str | None]]:
    """Every checkpoint in order, with the hash the chain holds now at its signed entry (None: gone)."""
    query = text(
        "SELECT cp.seq, cp.at, cp.chain_seq, cp.chain_hash, cp.prev, cp.key_id, cp.signature, c.hash "
        "FROM gate_checkpoints cp LEFT JOIN gate_chain c ON c.seq = cp.chain_seq ORDER BY cp.seq"
    )
    for found in conn.execute(query.execution_options(yield_per=2000)):
        yield _row(found), found[7]


def export_lines(conn: Any) -> Iterator[str]:
    """Every checkpoint as one JSON line, in order: a copy to keep outside the database."""
    for checkpoint, _ in stream(conn):
        yield json.dumps(checkpoint.as_dict(), sort_keys=True) + "\n"


def read_kept(path: Path) -> list[Checkpoint]:
    """Checkpoints exported earlier (JSON lines). Raises ConfigError naming the file and line."""
    kept: list[Checkpoint] = []
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            kept.append(Checkpoint.from_dict(json.loads(raw)))
        except (ValueError, KeyError, TypeError):
            raise ConfigError(
                f"{path}:{number}: not a checkpoint (expected a line of `gate audit checkpoints --export`)"
            ) from None
    return kept


@dataclass(frozen=True)
class CheckpointReport:
    """What :func:`verify_checkpoints` found: ``ok``, or the first problem, named."""

    checked: int
    problem: str | None
    newest: Checkpoint | None
    unsigned: int  # chain entries after the newest checkpoint (not yet signed)

    @property
    def ok(self) -> bool:
        return self.problem is None


def verify_checkpoints(conn: Any, verifier: Verifier, kept: Sequence[Checkpoint] = ()) -> CheckpointReport:
    """Check every checkpoint against the key and the chain as it is now.

    Each checkpoint must follow the one before it (no gap, no fork), be
    signed by ``verifier``'s key, and sign an entry the chain still holds
    with the same hash. ``kept`` (a copy exported earlier) must be in the
    ledger as it was exported. Streams: memory stays flat.
    """
    by_seq = {k.seq: k for k in kept}
    for k in kept:
        if not verifier.holds(k.body(), k.signature):
            return CheckpointReport(0, f"kept checkpoint {k.seq}: its signature does not hold", None, 0)
    expected, prev, last_chain, newest = 1, GENESIS, 0, None
    checked = 0
    for checkpoint, hash_now in stream(conn):
        problem = _check_one(checkpoint, hash_now, expected, prev, last_chain, verifier)
        if problem is None and checkpoint.seq in by_seq and by_seq[checkpoint.seq] != checkpoint:
            problem = f"checkpoint {checkpoint.seq} differs from the copy kept elsewhere"
        if problem is not None:
            return CheckpointReport(checked, problem, newest, 0)
        checked += 1
        expected, prev, last_chain, newest = (
            checkpoint.seq + 1,
            checkpoint.hash(),
            checkpoint.chain_seq,
            checkpoint,
        )
    missing = sorted(s for s in by_seq if s >= expected)
    if missing:
        return CheckpointReport(
            checked,
            f"checkpoint {missing[0]} (kept elsewhere) is not in the ledger: checkpoints were deleted",
            newest,
            0,
        )
    tail = conn.execute(text("SELECT COALESCE(MAX(seq), 0) FROM gate_chain")).scalar_one()
    return CheckpointReport(checked, None, newest, max(int(tail) - last_chain, 0))


def _check_one(
    cp: Checkpoint, hash_now: str | None, expected: int, prev: str, last_chain: int, verifier: Verifier
) -> str | None:
    if cp.seq != expected:
        return f"checkpoint {expected} is missing (found checkpoint {cp.seq} next): checkpoints were deleted"
    if cp.prev != prev:
        return (
            f"checkpoint {cp.seq} does not follow checkpoint {cp.seq - 1}: "
            "a checkpoint was changed or replaced"
        )
    if cp.key_id != verifier.key_id:
        return f"checkpoint {cp.seq} was signed by key {cp.key_id}, not by {verifier.key_id}"
    if not verifier.holds(cp.body(), cp.signature):
        return f"checkpoint {cp.seq}: its signature does not hold (the checkpoint was changed)"
    if cp.chain_seq < last_chain:
        return f"checkpoint {cp.seq} signs entry {cp.chain_seq}, before entry {last_chain} signed earlier"
    if cp.chain_seq == 0:
        return None if cp.chain_hash == GENESIS else f"checkpoint {cp.seq} signs an empty chain with a hash"
    if hash_now is None:
        return (
            f"checkpoint {cp.seq} signed entry {cp.chain_seq}, which is no longer in the chain: "
            "the chain was cut after it"
        )
    if hash_now != cp.chain_hash:
        return (
            f"checkpoint {cp.seq} signed entry {cp.chain_seq} with hash {cp.chain_hash}, the chain now "
            f"holds {hash_now} there: the chain was rewritten"
        )
    return None


class Checkpointer:
    """Signs the chain's head every ``interval_s`` in the background, while a :class:`gate.Gate` runs.

    Many processes may share one ledger: a process signs only when no
    checkpoint was signed in the last half interval, so one checkpoint per
    interval is written whatever the number of workers, and one even when
    nothing happened (an empty interval shows as such, never as a gap). A
    checkpoint that cannot be written (ledger busy or gone) is logged as a
    warning and tried again at the next interval; it never stops the gate.
    """

    def __init__(self, ledger: Any, signer: Signer, *, interval_s: float = 300.0) -> None:
        self.ledger = ledger
        self.signer = signer
        self.interval_s = interval_s
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start signing on the running event loop (idempotent)."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="gate-checkpoints")

    async def _run(self) -> None:
        while True:
            await self.sign(min_gap_s=self.interval_s / 2)
            await asyncio.sleep(self.interval_s)

    async def sign(self, *, min_gap_s: float = 0.0) -> Checkpoint | None:
        """Sign the head now; None (and a warning logged) when the ledger refused the write."""
        try:
            checkpoint, _ = await self.ledger.acheckpoint(self.signer, min_gap_s=min_gap_s)
        except Exception as exc:
            log.warning("gate.checkpoint.failed: %s: %s", type(exc).__name__, exc)
            return None
        return checkpoint  # type: ignore[no-any-return]

    async def stop(self) -> None:
        """Stop the background task and sign the head once more, so the last writes are covered."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await self.sign()
