"""How close in meaning a statement is to the action: sentence embeddings, cosine similarity.

:class:`Meaning` embeds every text a trace needs in one batch (the
embedder keeps recent vectors, so the caller's latest words, already
embedded for the reply's memory look-up, cost nothing) and then answers
similarities synchronously, so the trace itself is a pure function.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Coroutine, Iterable, Mapping
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

_CACHE = 8192


class Embedder(Protocol):
    async def embed(
        self, texts: list[str], *, urgent: bool = False, decision: bool = False
    ) -> list[list[float]]: ...


class Similarities(Protocol):
    """What the trace asks of meaning: the cosine of two texts it was prepared with."""

    def sim(self, a: str, b: str) -> float: ...


class Meaning:
    """Vectors for texts, kept by text; :meth:`sim` between two prepared texts.

    Raises (from :meth:`prepare`) whatever the embedder raises.
    """

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._vectors: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        # Texts being embedded now, by text, and whether on the decisions' lane: a second asker
        # waits for that work instead of repeating it (a turn read ahead as it was said, then
        # the decision that reads it), unless a decision would wait behind background work.
        self._embedding: dict[str, tuple[asyncio.Future[None], bool]] = {}

    async def prepare(self, texts: Iterable[str], *, decision: bool = True) -> Prepared:
        wanted = list(dict.fromkeys(t for t in texts if t.strip()))
        # A decision never waits for the background lane: it embeds such texts on its own.
        ahead = {
            t: f
            for t in wanted
            if t in self._embedding
            for f, fast in [self._embedding[t]]
            if fast or not decision
        }
        waiting = set(ahead.values())
        missing = [t for t in wanted if t not in self._vectors and t not in ahead]
        if missing:
            await self._embed(missing, decision)
        if waiting:
            await asyncio.gather(*waiting)
            # What the other asker could not embed (its fault was its own) is embedded here, so
            # this asker meets the fault itself instead of going on without the vector.
            late = [t for t in wanted if t not in self._vectors and t not in self._embedding]
            if late:
                await self._embed(late, decision)
        return Prepared({t: self._vectors[t] for t in wanted if t in self._vectors})

    def start(self, texts: Iterable[str]) -> asyncio.Task[None] | None:
        """Hand the texts not yet embedded to the model now, on the decisions' lane; a
        :meth:`prepare` for them that comes before the work is done waits for it. Returns the
        work (its fault is the embedder's; a later :meth:`prepare` meets it again), or None
        when there is nothing to embed or the embedder cannot begin work ahead."""
        begin = getattr(self.embedder, "begin", None)
        wanted = list(dict.fromkeys(t for t in texts if t.strip()))
        missing = [t for t in wanted if t not in self._vectors and t not in self._embedding]
        if begin is None or not missing:
            return None
        done = self._claim(missing, True)
        return asyncio.ensure_future(self._finish(missing, done, begin(missing, urgent=True, decision=True)))

    async def _embed(self, texts: list[str], decision: bool) -> None:
        done = self._claim(texts, decision)
        await self._finish(texts, done, self.embedder.embed(texts, urgent=True, decision=decision))

    def _claim(self, texts: list[str], decision: bool) -> asyncio.Future[None]:
        """Mark the texts as being embedded (another asker waits for this work)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        for text in texts:
            self._embedding[text] = (done, decision)
        return done

    async def _finish(
        self,
        texts: list[str],
        done: asyncio.Future[None],
        work: Coroutine[Any, Any, list[list[float]]],
    ) -> None:
        try:
            found = await work
            for text, raw in zip(texts, found, strict=True):
                vec = np.asarray(raw, dtype=np.float32)
                norm = float(np.linalg.norm(vec))
                self._vectors[text] = vec / norm if norm else vec
                while len(self._vectors) > _CACHE:
                    self._vectors.popitem(last=False)
        finally:
            for text in texts:
                if self._embedding.get(text, (None, False))[0] is done:
                    del self._embedding[text]
            done.set_result(None)


class Prepared:
    """Vectors for a fixed set of texts; a text that was not prepared is similar to nothing."""

    def __init__(self, vectors: Mapping[str, NDArray[np.float32]]) -> None:
        self._vectors = dict(vectors)
        self._sims: dict[tuple[str, str], float] = {}

    def sim(self, a: str, b: str) -> float:
        key = (a, b)
        if key not in self._sims:
            va, vb = self._vectors.get(a), self._vectors.get(b)
            if va is None or vb is None or va.shape != vb.shape:
                self._sims[key] = -1.0
            else:
                self._sims[key] = float(va @ vb)
        return self._sims[key]


class NoMeaning:
    """For callers with no embedder: nothing is close in meaning (only words and values decide)."""

    def sim(self, a: str, b: str) -> float:
        return -1.0


def vectors_of(prepared: Any) -> dict[str, NDArray[np.float32]]:
    return dict(getattr(prepared, "_vectors", {}))
