"""Caller memory on the embedded engine (the same store the gate takes its evidence from).

The engine (pycontextdb) is the record; reads go through the per-caller
vector index (:mod:`gate.memory.index`), so a reply's look-up is one
embedding plus one matrix product over that caller's current facts, ranked
by meaning alone.

What is kept (see :mod:`gate.memory.facts`):

- the caller's facts (statements about themselves, preferences, their
  things, plans, corrections, requests) as FACTUAL memories, source
  ``user_stated``, below the engine's trust bar: something to confirm,
  never an actionable fact by itself. A correction supersedes the current
  fact it corrects (the engine's slot when both share one, otherwise the
  caller's closest fact in meaning);
- the agent's words, filler aside, as EXPERIENTIAL memories marked as the
  agent's: the transcript, never a fact about the caller, never evidence;
- questions, greetings and filler: nothing.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
import warnings
from collections.abc import Sequence
from typing import Any

import contextdb
import numpy as np
from contextdb import EmbeddingProvider
from contextdb.core.models import MemoryType
from contextdb.store.sqlite_store import SQLiteStore

from gate.backends.base import ForgetResult
from gate.backends.engine_locks import retrying
from gate.backends.local import LocalEngine
from gate.memory.base import Recall, Recalled
from gate.memory.facts import agent_statement, caller_facts, topics
from gate.memory.index import Indexed, MemoryIndex

log = logging.getLogger("gate.memory")

# A caller's live words are kept below the engine's trust bar (0.7): a wish is
# something to confirm, never an actionable fact by itself.
SAID_CONFIDENCE = 0.5
# Below this cosine similarity (MiniLM) a memory does not bear on the words at
# all; between it and ``base.CLEAR`` it only may (the block says which).
MIN_SCORE = 0.1
# A correction replaces the caller's closest current fact only when it is at least this close.
SUPERSEDE_SCORE = 0.45
# A correction naming a personal detail replaces a fact about it at least this close: low,
# because the detail is named on both sides, and a correction in another language than the
# fact ("tengo un número nuevo" after "my phone is ...") scores low on MiniLM.
CORRECTED_FLOOR = 0.1
# A new fact this close to a current one is the same statement with another detail.
SAME_THING = 0.85
# Within the engine's embedding cache (2048 entries by default).
_PRIME = 256


class LocalMemory:
    """Memory in ``GATE_HOME``: the caller's facts as facts they stated, the agent's words as its own.

    Args:
        engine: the embedded decision service; its ``index`` (a :class:`MemoryIndex`) is
            used when it has one, otherwise this store builds its own over ``engine.db``.
        min_score: the similarity floor of :meth:`recall`.

    Every method raises what the engine raises (an unreadable database, a failing
    embedder); :class:`gate.MemoryAgent` puts its budgets around them.
    """

    name = "local"

    def __init__(self, engine: LocalEngine, *, min_score: float = MIN_SCORE) -> None:
        self.engine = engine
        self.db = engine.db
        self.min_score = min_score
        index = getattr(engine, "index", None)
        self.index: MemoryIndex = index if isinstance(index, MemoryIndex) else MemoryIndex(engine.db)
        # The engine links every write into a similarity graph (a search over all
        # rows, 20-300 ms at 1-10k memories); gate ranks through its own index and
        # never reads those links.
        self.db.config.enable_auto_link = False
        self._tuned = False

    # -- reading -------------------------------------------------------------------

    async def recall(self, caller_id: str, question: str, *, top_k: int = 5) -> Recall:
        """The caller's current facts closest in meaning to ``question``, at most ``top_k``."""
        if not question.strip():
            return Recall([])
        # The index checks for new writes while the words are embedded.
        vector, _ = await asyncio.gather(self._embed_query(question), self.index.refresh(caller_id))
        hits = await self.index.search(
            caller_id, vector, top_k, min_score=self.min_score, exclude_suspects=True
        )
        rows = await self.index.get(caller_id, [h.memory_id for h in hits])
        scores = {h.memory_id: h.score for h in hits}
        return Recall([_recalled(r, scores.get(r.id)) for r in rows])

    async def snapshot(self, caller_id: str, *, limit: int = 12) -> Recall:
        """The caller's newest current facts (for the start of a call)."""
        rows = await self.index.current(caller_id)
        return Recall([_recalled(r) for r in rows if not r.injection_suspect][:limit])

    # -- writing -------------------------------------------------------------------

    async def save_exchange(self, caller_id: str, caller_said: str, agent_said: str) -> None:
        """Keep the facts in what the caller said and the agent's words (as the agent's)."""
        facts = caller_facts(caller_said)
        spoken = agent_statement(agent_said)
        texts = [s.text for s in facts] + ([spoken] if spoken is not None else [])
        if len(texts) > 1:
            # One pass through the model for all of them; each write finds its vector cached.
            await (await self._embedder()).embed_documents(texts)
        for statement in facts:
            await self._add_fact(
                caller_id,
                statement.text,
                source="user_stated",
                confidence=SAID_CONFIDENCE,
                revise=True,
                correction=statement.kind == "correction",
                kind=statement.kind,
                # Action-relevant, so a yes to the action it asked for can confirm it;
                # below the trust bar, so it never acts by itself.
                action_relevant=True,
            )
        if spoken is not None:

            async def add_spoken() -> Any:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    return await self.db.add(
                        spoken,
                        memory_type=MemoryType.EXPERIENTIAL,
                        epistemic_source="agent_inferred",
                        confidence=SAID_CONFIDENCE,
                        action_relevant=False,
                        metadata={"said_by": "agent"},
                        user_id=caller_id,
                    )

            await retrying(self.db, add_spoken, what="save")

    async def remember(self, caller_id: str, content: str, *, source: str, confidence: float) -> str:
        """Keep one fact as given (no reading of the words); returns its id."""
        return await self._add_fact(caller_id, content, source=source, confidence=confidence)

    async def remember_many(
        self, caller_id: str, contents: Sequence[str], *, source: str, confidence: float
    ) -> list[str]:
        """Keep many facts at once (an import): embedded in batches, then written one by one.

        The next batch is embedded while the current one is written; each write then finds
        its vector in the engine's embedding cache. Raises what the engine raises; the facts
        written before the failure stay written.
        """
        embedder = await self._embedder()
        chunks = [list(contents[i : i + _PRIME]) for i in range(0, len(contents), _PRIME)]
        ids: list[str] = []
        ahead = asyncio.ensure_future(embedder.embed_documents(chunks[0])) if chunks else None
        for k, chunk in enumerate(chunks):
            assert ahead is not None
            await ahead
            ahead = (
                asyncio.ensure_future(embedder.embed_documents(chunks[k + 1]))
                if k + 1 < len(chunks)
                else None
            )
            for content in chunk:
                ids.append(await self._add_fact(caller_id, content, source=source, confidence=confidence))
        return ids

    async def _add_fact(
        self,
        caller_id: str,
        content: str,
        *,
        source: str,
        confidence: float,
        revise: bool = False,
        correction: bool = False,
        kind: str | None = None,
        action_relevant: bool | None = None,
    ) -> str:
        older: list[Indexed] = []
        if revise:
            older = await self._corrected(caller_id, content, correction=correction)
        metadata: dict[str, Any] = {"said_by": _said_by(source)}
        if kind is not None:
            metadata["kind"] = kind

        async def add() -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                return await self.db.add(
                    content,
                    memory_type=MemoryType.FACTUAL,
                    epistemic_source=source,  # type: ignore[arg-type]
                    confidence=confidence,
                    action_relevant=action_relevant,
                    metadata=metadata,
                    user_id=caller_id,
                )

        item = await retrying(self.db, add, what="save")
        for old in older:
            if old.id != item.id and (item.entity_key is None or old.entity_key != item.entity_key):
                await self._supersede(old.id, item.id)
        return str(item.id)

    async def _corrected(self, caller_id: str, said: str, *, correction: bool) -> list[Indexed]:
        """The caller's current fact that what they just ``said`` replaces, if there is one.

        For a correction ("my new number is ...", "actually ..."): the closest fact
        in meaning about the same personal detail (phone, email, home, ...) when it
        names one, otherwise the closest fact when it is close enough to be about the
        same thing. For any other fact: a fact so close that it is the same statement
        with another detail ("the window cleaner comes every two weeks" after "...
        every four weeks"); a repeat of the same words replaces nothing.
        """
        embedder = await self._embedder()
        # Embedded as a document: the write that follows finds it in the engine's cache.
        vectors, _ = await asyncio.gather(embedder.embed_documents([said]), self.index.refresh(caller_id))
        vector = vectors[0]
        about = topics(said) if correction else frozenset()
        floor = SUPERSEDE_SCORE if correction else SAME_THING
        # A named detail is looked for further down: the old fact may be in another language.
        hits = await self.index.search(
            caller_id, vector, 32 if about else 8, min_score=CORRECTED_FLOOR if about else floor
        )
        rows = await self.index.get(caller_id, [h.memory_id for h in hits])
        score = {h.memory_id: h.score for h in hits}
        replaceable = [
            row
            for row in rows
            # What the caller confirmed, or someone else stated, is not overwritten here.
            if row.source == "user_stated"
            and not row.confirmed
            and _norm(row.content) != _norm(said)
            and (
                # A fact about the same named detail, or a close one that shares a word of
                # substance (MiniLM scores any two sentences of one non-English language
                # close: "mi gato se llama ..." is not what "tengo un número nuevo" corrects).
                bool(about & topics(row.content))
                or (score[row.id] >= floor and (not correction or _shares_content(said, row.content)))
            )
        ]
        return sorted(replaceable, key=lambda row: score[row.id], reverse=True)[:1]

    async def _supersede(self, old_id: str, new_id: str) -> None:
        store = self.db._require_store()

        async def update() -> None:
            async with store.mutation():
                await store.update(old_id, superseded_by=new_id, valid_until=contextdb.utc_now())

        await retrying(self.db, update, what="supersede")

    async def _embed_query(self, text: str) -> np.ndarray[Any, np.dtype[np.float32]]:
        vector = await (await self._embedder()).embed_query(text)
        return np.asarray(vector, dtype=np.float32)

    async def _embedder(self) -> EmbeddingProvider:
        """The engine's own embedder (with its cache), so stored and asked vectors match."""
        await self.db._ensure_init()
        if not self._tuned:
            store = self.db._require_store()
            if isinstance(store, SQLiteStore):
                # WAL with synchronous=NORMAL: a commit no longer waits for the disk (about
                # half of a save's cost); the file is never corrupted, and only a power
                # loss can take the last memories with it. The ledger is not this file.
                # SQLite refuses it while a save holds a transaction on the connection: it is
                # tried again on the next use, and the look-up goes on either way.
                try:
                    await store._require_conn().execute("PRAGMA synchronous=NORMAL")
                except sqlite3.OperationalError as exc:
                    log.debug("the memory file's sync level waits for the next use: %s", exc)
                else:
                    self._tuned = True
            else:
                self._tuned = True
        embedder = self.db._embedder
        if embedder is None:
            raise RuntimeError("the memory engine has no embedder after initialisation")
        return embedder

    # -- erasing -------------------------------------------------------------------

    async def forget(self, caller_id: str) -> ForgetResult:
        result = await self.engine.forget(caller_id)
        self.index.invalidate(caller_id)
        return result

    async def aclose(self) -> None:
        """The engine belongs to the gate; it closes it."""


_WORD = re.compile(r"[^\W\d_]{4,}")
_COMMON = frozenset(
    [
        "actually",
        "about",
        "again",
        "also",
        "anymore",
        "been",
        "being",
        "changed",
        "come",
        "comes",
        "does",
        "from",
        "have",
        "just",
        "know",
        "like",
        "longer",
        "make",
        "more",
        "much",
        "need",
        "next",
        "only",
        "other",
        "over",
        "really",
        "same",
        "some",
        "still",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "very",
        "want",
        "well",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "will",
        "with",
        "would",
        "your",
        "yours",
        "ahora",
        "pero",
        "para",
        "como",
        "este",
        "esta",
        "estos",
        "todo",
        "bien",
        "tambien",
        "avec",
        "dans",
        "pour",
        "plus",
        "sont",
        "mais",
        "nous",
        "vous",
        "elle",
        "nicht",
        "mehr",
        "auch",
        "eine",
        "einen",
        "jetzt",
        "noch",
        "oder",
        "sind",
        "wird",
    ]
)


def _shares_content(a: str, b: str) -> bool:
    """Whether two statements share a word of substance (same first five letters)."""

    def stems(text: str) -> set[str]:
        return {w[:5] for w in _WORD.findall(text.casefold()) if w not in _COMMON}

    return bool(stems(a) & stems(b))


def _norm(text: str) -> str:
    return " ".join(text.casefold().split()).strip(" .!?")


def _said_by(source: str) -> str:
    return {"user_stated": "caller", "agent_inferred": "agent"}.get(source, "other")


def _recalled(row: Indexed, score: float | None = None) -> Recalled:
    if row.said_by in ("caller", "agent", "other"):
        said_by = row.said_by
    elif row.memory_type == "EXPERIENTIAL" or row.source == "agent_inferred":
        said_by = "agent"
    elif row.source == "user_stated":
        said_by = "caller"
    else:
        said_by = "other"
    when = row.created_at[:10] or None
    return Recalled(row.id, row.content, said_by, when, row.injection_suspect, score)
