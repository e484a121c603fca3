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
therefore seen on the next search. On SQLite that check is one job on a
read connection of its own (:class:`~gate.memory.reader.StoreReader`), so it
does not queue behind the engine's writes.

Failure modes: :meth:`MemoryIndex.search` raises whatever the engine raises
when its database cannot be read (the caller puts a deadline around it). On
stores other than SQLite (PostgreSQL) a revision change reloads the whole
partition, which is correct but slower.
"""

from __future__ import annotations

import asyncio
import math
import sqlite3
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from contextdb.core.models import MemoryItem
from contextdb.store.sqlite_store import SQLiteStore
from numpy.typing import NDArray

from gate.memory.reader import StoreReader

# Scores this close are a tie on meaning; trust then recency decide.
TIE = 0.01
# How much of the caller's mean direction ranking removes (see _centred).
CENTRE = 0.5
# How many callers' vectors stay loaded (least recently searched go first).
MAX_PARTITIONS = 256
# How many rows (all callers together) stay loaded: about 150 MB of vectors.
MAX_ROWS = 100_000
# The engine's trust bar for a caller's own statements.
TRUST_BAR = 0.7

# The engine's store-wide revision, bumped in the same commit as every write.
_READ_REVISION = "SELECT value FROM contextdb_meta WHERE key = ?"
# Changed rows read with the freshness check; more than this is read as a reload.
_DELTA_ROWS = 64
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


class _Partition:
    """One caller's rows: every row's ``updated_at`` (to see changes), current rows' vectors.

    Rows live in preallocated arrays, so a change costs one row, not a rebuild:
    a new memory takes the next free row, a memory that stops being current is
    marked dead, and dead rows are compacted away once they are half the table.
    """

    def __init__(self) -> None:
        self.revision = -1
        self.total = 0
        self.newest = ""
        self.stamps: dict[str, str] = {}
        self.lock = asyncio.Lock()
        self.slot: dict[str, int] = {}
        self.ids: list[str] = []
        self.meta: list[Indexed | None] = []
        self.size = 0
        self.dead = 0
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self.alive = np.zeros(0, dtype=bool)
        self.valid_from = np.zeros(0, dtype=np.float64)
        self.valid_until = np.zeros(0, dtype=np.float64)
        self.kind = np.zeros(0, dtype=np.int16)
        self.suspect = np.zeros(0, dtype=bool)
        self.kinds: dict[str, int] = {}
        # Per memory type: the sum and count of live rows' vectors (for the mean in _centred).
        self.sums: dict[int, NDArray[np.float64]] = {}
        self.counts: dict[int, int] = {}
        # Every row change bumps it; what depends only on the rows is kept until it moves.
        self.changes = 0
        self._along: dict[tuple[int, ...], tuple[int, NDArray[np.float32]]] = {}

    def clear(self) -> None:
        self.__init__()  # type: ignore[misc]

    def put(
        self, indexed: Indexed, vector: NDArray[np.float32], valid_from: float, valid_until: float
    ) -> None:
        row = self.slot.get(indexed.id)
        if row is None:
            if self.matrix.shape[1] not in (0, vector.shape[0]):
                return  # another embedder's vector: it cannot be compared with this caller's others
            if self.size == len(self.alive):
                self._grow(max(64, self.size * 2), vector.shape[0])
            row = self.size
            self.size += 1
            self.slot[indexed.id] = row
            self.ids.append(indexed.id)
            self.meta.append(indexed)
        else:
            self.meta[row] = indexed
            if self.alive[row]:
                self._count(int(self.kind[row]), self.matrix[row], -1)
        self.matrix[row] = vector
        self.alive[row] = True
        self.valid_from[row] = valid_from
        self.valid_until[row] = valid_until
        self.kind[row] = self.kinds.setdefault(indexed.memory_type, len(self.kinds))
        self.suspect[row] = indexed.injection_suspect
        self._count(int(self.kind[row]), vector, 1)

    def _count(self, kind: int, vector: NDArray[np.float32], sign: int) -> None:
        total = self.sums.get(kind)
        if total is None:
            total = self.sums[kind] = np.zeros(vector.shape[0], dtype=np.float64)
        total += sign * vector
        self.counts[kind] = self.counts.get(kind, 0) + sign
        self.changes += 1

    def along(self, codes: list[int], shift: NDArray[np.float32]) -> NDArray[np.float32]:
        """Each row's projection on ``shift`` (the types' mean, scaled): it moves only with the rows.

        Kept between searches, so a search costs one matrix-vector product, not two.
        """
        key = tuple(sorted(codes))
        cached = self._along.get(key)
        if cached is not None and cached[0] == self.changes and cached[1].shape[0] == self.size:
            return cached[1]
        along: NDArray[np.float32] = _times(self.matrix[: self.size], shift)
        self._along[key] = (self.changes, along)
        return along

    def mean(self, codes: list[int]) -> NDArray[np.float32] | None:
        """The mean vector of the live rows of those memory types (None with fewer than two)."""
        count = sum(self.counts.get(c, 0) for c in codes)
        if count < 2:
            return None
        total = sum((self.sums[c] for c in codes if c in self.sums), np.zeros(self.matrix.shape[1]))
        mean: NDArray[np.float32] = (total / count).astype(np.float32)
        return mean

    def drop(self, memory_id: str) -> None:
        row = self.slot.pop(memory_id, None)
        if row is None:
            return
        self.alive[row] = False
        self.meta[row] = None
        self.dead += 1
        self._count(int(self.kind[row]), self.matrix[row], -1)
        if self.dead * 2 > self.size:
            self._compact()

    def indexed(self, memory_id: str) -> Indexed | None:
        row = self.slot.get(memory_id)
        return None if row is None else self.meta[row]

    def rows(self) -> list[tuple[Indexed, float, float]]:
        return [
            (meta, float(self.valid_from[i]), float(self.valid_until[i]))
            for i, meta in enumerate(self.meta)
            if meta is not None
        ]

    def _grow(self, capacity: int, dim: int) -> None:
        matrix = np.zeros((capacity, dim), dtype=np.float32)
        if self.size:
            matrix[: self.size] = self.matrix[: self.size]
        self.matrix = matrix
        self.alive = _resized(self.alive, capacity)
        self.valid_from = _resized(self.valid_from, capacity)
        self.valid_until = _resized(self.valid_until, capacity)
        self.kind = _resized(self.kind, capacity)
        self.suspect = _resized(self.suspect, capacity)

    def _compact(self) -> None:
        self.changes += 1
        keep = np.flatnonzero(self.alive[: self.size])
        self.matrix = self.matrix[keep].copy()
        self.alive = self.alive[keep].copy()
        self.valid_from = self.valid_from[keep].copy()
        self.valid_until = self.valid_until[keep].copy()
        self.kind = self.kind[keep].copy()
        self.suspect = self.suspect[keep].copy()
        self.ids = [self.ids[i] for i in keep]
        self.meta = [self.meta[i] for i in keep]
        self.slot = {memory_id: row for row, memory_id in enumerate(self.ids)}
        self.size, self.dead = len(keep), 0


def _times(matrix: NDArray[np.float32], vector: NDArray[np.float32]) -> NDArray[np.float32]:
    """``matrix @ vector`` on the calling thread (never BLAS's thread pool)."""
    out: NDArray[np.float32] = np.einsum("ij,j->i", matrix, vector)
    return out


def _resized(array: NDArray[Any], capacity: int) -> NDArray[Any]:
    out = np.zeros(capacity, dtype=array.dtype)
    out[: len(array)] = array
    return out


class MemoryIndex:
    """Per-caller cosine search over the engine's current memories.

    Args:
        db: a pycontextdb client (``contextdb.init(...)``); the index reads its store.
        max_partitions: how many callers' vectors stay in memory.
        max_rows: how many rows, all those callers together, stay in memory (the least
            recently searched callers are dropped first; the caller being searched stays).
    """

    def __init__(self, db: Any, *, max_partitions: int = MAX_PARTITIONS, max_rows: int = MAX_ROWS) -> None:
        self.db = db
        self.reader = StoreReader(db)
        self.max_partitions = max_partitions
        self.max_rows = max_rows
        self._parts: OrderedDict[str, _Partition] = OrderedDict()
        self._covered: set[int] = set()

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
        refreshed: bool = False,
    ) -> list[Hit]:
        """The ``top_k`` current memories of ``partition`` closest in meaning to ``vector``.

        Best first by cosine similarity; scores within :data:`TIE` of each other
        are ordered trusted first, then newest first. ``min_score`` drops
        hits below it; ``exclude_suspects`` drops memories the engine flagged
        as injection suspects. ``refreshed``: the caller has just awaited
        :meth:`refresh` for this partition, so the freshness check is skipped.

        Raises whatever the engine raises when its database cannot be read.
        """
        known = self._parts.get(partition) if refreshed else None
        part = known if known is not None else await self._fresh(partition)
        n = part.size
        if top_k <= 0 or n - part.dead == 0:
            return []
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        if norm == 0.0 or part.matrix.shape[1] != query.shape[0]:
            return []
        unit = query / norm
        matrix = part.matrix[:n]
        codes = [part.kinds[t] for t in {t.upper() for t in memory_types} if t in part.kinds]
        mean = part.mean(codes)
        shift: NDArray[np.float32] = (
            np.zeros_like(unit) if mean is None else (mean * CENTRE).astype(np.float32)
        )
        # One matrix-vector product per search, on this thread: BLAS fans a product this
        # size out to a thread pool, which with one other busy process on 2 cores took
        # 12 ms at 10,000 rows where this takes under 1 ms (0.2 ms fanned out on idle
        # cores). The projection on the mean is kept between searches.
        scores = _times(matrix, unit)
        along = part.along(codes, shift) if mean is not None else np.zeros(n, dtype=np.float32)
        now = _now()
        pool = part.alive[:n] & (part.valid_from[:n] <= now) & (now < part.valid_until[:n])
        pool &= (part.kind[:n] == codes[0]) if len(codes) == 1 else np.isin(part.kind[:n], codes)
        mask = pool.copy()
        if exclude_suspects:
            mask &= ~part.suspect[:n]
        if min_score is not None:
            mask &= scores >= min_score
        candidates = np.flatnonzero(mask)
        if candidates.size == 0:
            return []
        rank = _centred(shift if mean is not None else None, unit, scores[candidates], along[candidates])
        # Only rows near the best few can be reordered by the tie-breakers.
        take = min(candidates.size, top_k * 4 + 8)
        order = np.argpartition(-rank, take - 1)[:take] if take < rank.size else np.arange(rank.size)
        order = order[np.argsort(-rank[order], kind="stable")]
        picked = [(int(candidates[i]), float(rank[i])) for i in order]
        meta = part.meta
        newest_first = sorted(picked, key=lambda p: _created(meta[p[0]]), reverse=True)
        best = sorted(newest_first, key=lambda p: (-math.floor(p[1] / TIE), not _trusted(meta[p[0]])))
        return [Hit(part.ids[row], float(scores[row])) for row, _ in best[:top_k]]

    async def get(self, partition: str, memory_ids: Iterable[str]) -> list[Indexed]:
        """The indexed rows for ``memory_ids`` (current memories only), in that order."""
        part = self._parts.get(partition)
        if part is None:
            part = await self._fresh(partition)
        found = [part.indexed(i) for i in memory_ids]
        return [row for row in found if row is not None]

    async def current(self, partition: str, *, memory_types: Iterable[str] = ("FACTUAL",)) -> list[Indexed]:
        """Every current memory of ``partition`` of those types, newest first."""
        part = await self._fresh(partition)
        wanted = {t.upper() for t in memory_types}
        now = _now()
        rows = [row for row, start, end in part.rows() if row.memory_type in wanted and start <= now < end]
        return sorted(rows, key=lambda r: r.created_at, reverse=True)

    async def refresh(self, partition: str) -> None:
        """Bring ``partition``'s rows up to date now (a search does it anyway; this lets it overlap).

        Raises whatever the engine raises when its database cannot be read.
        """
        await self._fresh(partition)

    def loaded(self) -> list[str]:
        """The callers whose rows are in memory, least recently searched first."""
        return list(self._parts)

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
        part = self._parts.get(partition)
        if part is None:
            part = _Partition()
            self._parts[partition] = part
            while len(self._parts) > self.max_partitions:
                self._parts.popitem(last=False)
        self._parts.move_to_end(partition)
        if isinstance(store, SQLiteStore):
            await self._sync_sqlite(store, partition, part)
        else:
            revision = int((await store.consistency_token()).memory_version)
            if part.revision != revision:
                async with part.lock:
                    if part.revision != revision:
                        await self._reload_generic(store, partition, part)
                        part.revision = revision
        self._evict(keep=partition)
        return part

    def _evict(self, *, keep: str) -> None:
        rows = sum(p.size for p in self._parts.values())
        for name in list(self._parts):
            if rows <= self.max_rows:
                break
            if name != keep:
                rows -= self._parts.pop(name).size

    async def _sync_sqlite(self, store: SQLiteStore, partition: str, part: _Partition) -> None:
        """Bring ``part`` up to date: one read job (revision, change check, changed rows).

        The rows are read on the reader's thread and applied here, on the event
        loop, where searches read the partition.
        """
        if id(store) not in self._covered:
            # Lets the change check read an index instead of the caller's rows.
            conn = store._require_conn()
            await conn.execute(
                "CREATE INDEX IF NOT EXISTS gate_memories_user_updated ON memories(user_id, updated_at)"
            )
            await conn.commit()
            self._covered.add(id(store))
        key = store._revision_key
        async with part.lock:
            known = (part.revision, part.total, part.newest, bool(part.stamps))
            # The check and a few changed rows are a small read; a first load or a
            # large change reads the caller's rows on the reader's thread.
            change = await self.reader.run(lambda conn: _changes(conn, key, partition, *known), small=True)
            if change.rows is not None and not change.full:
                for row in change.rows:
                    self._apply_row(part, row)
            if change.full or (change.rows is not None and len(part.stamps) != change.total):
                # A first load, many changes, or rows deleted (a forget): read them all again.
                full = await self.reader.run(lambda conn: _all_rows(conn, partition))
                part.clear()
                for row in full:
                    self._apply_row(part, row)
            if change.rows is not None or change.full:
                part.total, part.newest = len(part.stamps), change.newest
            part.revision = change.revision

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
        if blob is None or not _is_current(status, superseded_by):
            part.drop(memory_id)
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
        part.put(indexed, vec, _iso_ts(valid_from, -math.inf), _iso_ts(valid_until, math.inf))

    async def _reload_generic(self, store: Any, partition: str, part: _Partition) -> None:
        part.clear()
        async for item in store.iter_memories(user_id=partition, status=None):
            part.stamps[item.id] = item.updated_at.isoformat()
            if item.embedding is None or not _is_current(item.status.value, item.superseded_by):
                continue
            vec = _unit(np.asarray(item.embedding, dtype=np.float32))
            part.put(_from_item(item), vec, _ts(item.valid_from, -math.inf), _ts(item.valid_until, math.inf))
        part.total = len(part.stamps)


def _centred(
    shift: NDArray[np.float32] | None,
    query: NDArray[np.float32],
    scores: NDArray[np.float32],
    along: NDArray[np.float32],
) -> NDArray[np.float32]:
    """Cosine after taking out half of the caller's mean direction (``shift``), for ranking.

    Sentence embeddings share a common direction (anisotropy): a caller's
    generic facts ("we grow potatoes") then sit close to every question and
    crowd out the one that answers it. Removing part of the mean of the
    caller's own current memories spreads them apart; the raw cosine still
    decides what is relevant at all (``min_score``) and is what a hit
    reports. Rows and query are unit vectors, so with ``scores`` = r·q and
    ``along`` = r·m: (r - m)·(q - m) = r·q - r·m - m·q + m·m.
    """
    if shift is None:
        return scores
    mm = float(shift @ shift)
    mq = float(shift @ query)
    dot = scores - along - mq + mm
    norms = np.sqrt(np.maximum(1.0 - 2.0 * along + mm, 1e-12)) * math.sqrt(max(1.0 - 2.0 * mq + mm, 1e-12))
    centred: NDArray[np.float32] = (dot / norms).astype(np.float32)
    return centred


def _created(row: Indexed | None) -> str:
    return row.created_at if row is not None else ""


def _trusted(row: Indexed | None) -> bool:
    return row is not None and row.trusted


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


@dataclass(frozen=True)
class _Change:
    revision: int
    total: int = 0
    newest: str = ""
    rows: list[tuple[Any, ...]] | None = None  # None: nothing to apply
    full: bool = False  # the rows are all of the caller's (replace), not only the changed ones


def _changes(
    conn: sqlite3.Connection, key: str, partition: str, revision: int, total: int, newest: str, loaded: bool
) -> _Change:
    """What changed for ``partition`` since the partition was at (``revision``, ``total``, ``newest``).

    Reads at most :data:`_DELTA_ROWS` rows; more than that (or a first load) is
    reported as ``full`` for the caller to read separately.
    """
    found = conn.execute(_READ_REVISION, (key,)).fetchone()
    now = int(found[0]) if found else 0
    if now == revision:
        return _Change(now)
    count, latest = conn.execute(
        "SELECT count(*), max(updated_at) FROM memories WHERE user_id = ?", (partition,)
    ).fetchone() or (0, None)
    latest = latest or ""
    if count == total and latest == newest:
        return _Change(now)
    if loaded and latest >= newest:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM memories WHERE user_id = ? AND updated_at >= ? LIMIT ?",
            (partition, newest, _DELTA_ROWS + 1),
        ).fetchall()
        if len(rows) <= _DELTA_ROWS:
            return _Change(now, count, latest, [tuple(r) for r in rows])
    return _Change(now, count, latest, None, full=True)


def _all_rows(conn: sqlite3.Connection, partition: str) -> list[tuple[Any, ...]]:
    rows = conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE user_id = ?", (partition,)).fetchall()
    return [tuple(r) for r in rows]
