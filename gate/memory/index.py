"""A per-caller vector index in front of the memory engine.

The engine (pycontextdb) stays the record: every write goes to it, and this
index only mirrors, per caller (partition), the unit vectors of the
memories that are current (active, valid now, not superseded). A search is
then one matrix-vector product over that caller's rows: cosine similarity,
nothing else. The engine's own ``search`` blends word overlap into its
ranking, so "what do I do for a living" finds "living room"; ranking here is
by meaning only, with trust and recency breaking near-ties.

Freshness: the engine bumps a store-wide revision on every write, from any
process sharing the database. Each search reads that revision (one indexed
row); when it moved, the caller's rows are compared by count and newest
``updated_at`` and only changed rows are reloaded (a deletion, detected by
the count, reloads the caller's rows). Writes by other processes are
therefore seen on the next search.

Failure modes: :meth:`MemoryIndex.search` raises whatever the engine raises
when its database cannot be read (the caller puts a deadline around it). On
stores other than SQLite (PostgreSQL) a revision change reloads the whole
partition, which is correct but slower.
"""

from __future__ import annotations

import asyncio
import math
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from contextdb.core.models import MemoryItem
from contextdb.store.sqlite_store import SQLiteStore
from numpy.typing import NDArray

# Scores this close are a tie on meaning; trust then recency decide.
TIE = 0.01
# How many callers' vectors stay loaded (least recently searched go first).
MAX_PARTITIONS = 256
# The engine's trust bar for a caller's own statements.
TRUST_BAR = 0.7

_COLUMNS = (
    "id, content, embedding, memory_type, status, epistemic_source, confidence, confirmed, "
    "action_relevant, injection_suspect, created_at, updated_at, valid_from, valid_until, "
    "superseded_by, entity_key, attribute_key, metadata"
)


@dataclass(frozen=True)
class Hit:
    """One search result: a memory id and its cosine similarity with the query."""

    memory_id: str
    score: float


@dataclass(frozen=True)
class Indexed:
    """What the index keeps about one current memory (enough to render it without the engine)."""

    id: str
    content: str
    memory_type: str
    source: str
    confidence: float
    confirmed: bool
    injection_suspect: bool
    created_at: str
    entity_key: str | None
    attribute_key: str | None
    said_by: str | None

    @property
    def trusted(self) -> bool:
        return self.confirmed or (self.source == "user_stated" and self.confidence >= TRUST_BAR)


@dataclass
class _Partition:
    """One caller's rows: every row's ``updated_at`` (to see changes), current rows' vectors."""

    revision: int = -1
    total: int = 0
    newest: str = ""
    stamps: dict[str, str] = field(default_factory=dict)
    rows: dict[str, tuple[Indexed, NDArray[np.float32], float, float]] = field(default_factory=dict)
    # Dense copies, rebuilt lazily after a change.
    ids: list[str] = field(default_factory=list)
    matrix: NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    meta: list[Indexed] = field(default_factory=list)
    valid_from: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    valid_until: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    dirty: bool = True
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def pack(self) -> None:
        if not self.dirty:
            return
        self.ids = list(self.rows)
        entries = list(self.rows.values())
        self.meta = [e[0] for e in entries]
        if entries:
            self.matrix = np.stack([e[1] for e in entries]).astype(np.float32, copy=False)
        else:
            self.matrix = np.zeros((0, 0), dtype=np.float32)
        self.valid_from = np.array([e[2] for e in entries], dtype=np.float64)
        self.valid_until = np.array([e[3] for e in entries], dtype=np.float64)
        self.dirty = False


class MemoryIndex:
    """Per-caller cosine search over the engine's current memories.

    Args:
        db: a pycontextdb client (``contextdb.init(...)``); the index reads its store.
        max_partitions: how many callers' vectors stay in memory.
    """

    def __init__(self, db: Any, *, max_partitions: int = MAX_PARTITIONS) -> None:
        self.db = db
        self.max_partitions = max_partitions
        self._parts: OrderedDict[str, _Partition] = OrderedDict()

    # -- public -----------------------------------------------------------------

    async def search(
        self,
        partition: str,
        vector: Sequence[float] | NDArray[np.float32],
        top_k: int,
        *,
        memory_types: Iterable[str] = ("FACTUAL",),
        min_score: float | None = None,
        exclude_suspects: bool = False,
    ) -> list[Hit]:
        """The ``top_k`` current memories of ``partition`` closest in meaning to ``vector``.

        Best first by cosine similarity; scores within :data:`TIE` of each other
        are ordered trusted first, then newest first. ``min_score`` drops
        hits below it; ``exclude_suspects`` drops memories the engine flagged
        as injection suspects.

        Raises whatever the engine raises when its database cannot be read.
        """
        part = await self._fresh(partition)
        part.pack()
        if top_k <= 0 or not part.ids:
            return []
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        if norm == 0.0 or part.matrix.shape[1] != query.shape[0]:
            return []
        scores = part.matrix @ (query / norm)
        now = _now()
        wanted = {t.upper() for t in memory_types}
        mask = (part.valid_from <= now) & (now < part.valid_until)
        for i, meta in enumerate(part.meta):
            if meta.memory_type not in wanted or (exclude_suspects and meta.injection_suspect):
                mask[i] = False
        if min_score is not None:
            mask &= scores >= min_score
        candidates = np.flatnonzero(mask)
        if candidates.size == 0:
            return []
        # Only rows near the best few can be reordered by the tie-breakers.
        take = min(candidates.size, top_k * 4 + 8)
        order = candidates[np.argsort(-scores[candidates], kind="stable")[:take]]
        newest_first = sorted(order.tolist(), key=lambda i: part.meta[i].created_at, reverse=True)
        best = sorted(
            newest_first,
            key=lambda i: (-math.floor(float(scores[i]) / TIE), not part.meta[i].trusted),
        )
        return [Hit(part.ids[i], float(scores[i])) for i in best[:top_k]]

    async def get(self, partition: str, memory_ids: Iterable[str]) -> list[Indexed]:
        """The indexed rows for ``memory_ids`` (current memories only), in that order."""
        part = self._parts.get(partition)
        if part is None:
            part = await self._fresh(partition)
        return [part.rows[i][0] for i in memory_ids if i in part.rows]

    async def current(self, partition: str, *, memory_types: Iterable[str] = ("FACTUAL",)) -> list[Indexed]:
        """Every current memory of ``partition`` of those types, newest first."""
        part = await self._fresh(partition)
        wanted = {t.upper() for t in memory_types}
        now = _now()
        rows = [
            row[0] for row in part.rows.values() if row[0].memory_type in wanted and row[2] <= now < row[3]
        ]
        return sorted(rows, key=lambda r: r.created_at, reverse=True)

    def invalidate(self, partition: str | None = None) -> None:
        """Forget the cached rows of ``partition`` (all partitions with None); the next search reloads."""
        if partition is None:
            self._parts.clear()
        else:
            self._parts.pop(partition, None)

    # -- freshness --------------------------------------------------------------

    async def _store(self) -> Any:
        await self.db._ensure_init()
        return self.db._require_store()

    async def _fresh(self, partition: str) -> _Partition:
        store = await self._store()
        revision = int((await store.consistency_token()).memory_version)
        part = self._parts.get(partition)
        if part is None:
            part = _Partition()
            self._parts[partition] = part
            while len(self._parts) > self.max_partitions:
                self._parts.popitem(last=False)
        self._parts.move_to_end(partition)
        if part.revision == revision:
            return part
        async with part.lock:
            if part.revision == revision:
                return part
            if isinstance(store, SQLiteStore):
                await self._sync_sqlite(store, partition, part)
            else:
                await self._reload_generic(store, partition, part)
            part.revision = revision
        return part

    async def _sync_sqlite(self, store: SQLiteStore, partition: str, part: _Partition) -> None:
        conn = store._require_conn()
        cursor = await conn.execute(
            "SELECT count(*), max(updated_at) FROM memories WHERE user_id = ?", (partition,)
        )
        total, newest = await cursor.fetchone() or (0, None)
        newest = newest or ""
        if total == part.total and newest == part.newest:
            return
        if part.stamps and newest >= part.newest:
            cursor = await conn.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE user_id = ? AND updated_at >= ?",
                (partition, part.newest),
            )
            for row in await cursor.fetchall():
                self._apply_row(part, row)
            if len(part.stamps) == total:
                part.total, part.newest = total, newest
                return
        # A deletion (or a first load): read the caller's rows again.
        part.stamps.clear()
        part.rows.clear()
        part.dirty = True
        cursor = await conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE user_id = ?", (partition,))
        for row in await cursor.fetchall():
            self._apply_row(part, row)
        part.total, part.newest = len(part.stamps), newest

    @staticmethod
    def _apply_row(part: _Partition, row: Any) -> None:
        (
            memory_id,
            content,
            blob,
            memory_type,
            status,
            source,
            confidence,
            confirmed,
            _action_relevant,
            suspect,
            created_at,
            updated_at,
            valid_from,
            valid_until,
            superseded_by,
            entity_key,
            attribute_key,
            metadata,
        ) = tuple(row)
        part.stamps[memory_id] = updated_at
        part.dirty = True
        if blob is None or not _is_current(status, superseded_by):
            part.rows.pop(memory_id, None)
            return
        indexed = Indexed(
            id=memory_id,
            content=content,
            memory_type=memory_type,
            source=source or "user_stated",
            confidence=float(confidence if confidence is not None else 1.0),
            confirmed=bool(confirmed),
            injection_suspect=bool(suspect),
            created_at=created_at,
            entity_key=entity_key,
            attribute_key=attribute_key,
            said_by=_said_by(metadata),
        )
        vec = _unit(np.frombuffer(blob, dtype=np.float32))
        part.rows[memory_id] = (indexed, vec, _iso_ts(valid_from, -math.inf), _iso_ts(valid_until, math.inf))

    async def _reload_generic(self, store: Any, partition: str, part: _Partition) -> None:
        part.stamps.clear()
        part.rows.clear()
        part.dirty = True
        async for item in store.iter_memories(user_id=partition, status=None):
            part.stamps[item.id] = item.updated_at.isoformat()
            if item.embedding is None or not _is_current(item.status.value, item.superseded_by):
                continue
            vec = _unit(np.asarray(item.embedding, dtype=np.float32))
            part.rows[item.id] = (
                _from_item(item),
                vec,
                _ts(item.valid_from, -math.inf),
                _ts(item.valid_until, math.inf),
            )
        part.total = len(part.stamps)


def _is_current(status: str, superseded_by: str | None) -> bool:
    return status == "ACTIVE" and not superseded_by


def _unit(vec: NDArray[np.float32]) -> NDArray[np.float32]:
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm else vec


def _said_by(metadata: str | None) -> str | None:
    if not metadata or "said_by" not in metadata:
        return None
    import json

    try:
        value = json.loads(metadata).get("said_by")
    except ValueError:
        return None
    return str(value) if value else None


def _from_item(item: MemoryItem) -> Indexed:
    said_by = item.metadata.get("said_by") if isinstance(item.metadata, dict) else None
    return Indexed(
        id=item.id,
        content=item.content,
        memory_type=item.memory_type.value,
        source=str(item.epistemic_source),
        confidence=float(item.confidence),
        confirmed=bool(item.confirmed),
        injection_suspect=bool(item.injection_suspect),
        created_at=item.created_at.isoformat(),
        entity_key=item.entity_key,
        attribute_key=item.attribute_key,
        said_by=str(said_by) if said_by else None,
    )


def _now() -> float:
    return datetime.now().astimezone().timestamp()


def _ts(moment: datetime | None, default: float) -> float:
    return moment.timestamp() if moment is not None else default


def _iso_ts(raw: str | None, default: float) -> float:
    return datetime.fromisoformat(raw).timestamp() if raw else default
