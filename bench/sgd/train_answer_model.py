"""Build gate/confirm/answer_model.bin: the learned answer reader's weights and threshold.

Training data: the Schema-Guided Dialogue dataset's train split (confirmation answers labelled
by the caller's acts: a plain yes, a yes with a side question, whose part before the question is
the yes, or a change) and gate's own labelled answers in four languages (tests/data and
tests/lang). The reader's features are gate.confirm.model.features. Logistic regression with an
L2 penalty, trained by full-batch Adam in float64 from zero weights: no randomness, so the same
data gives the same file, byte for byte.

Calibration: on SGD's dev split, the threshold is set above every answer labelled a change that
the rules leave to the learned reader, and above every such non-yes answer of gate's corpus, with
a margin; never below --floor.

Run: GATE_SGD_DIR=/path/to/dstc8-schema-guided-dialogue python bench/sgd/train_answer_model.py
     [--buckets 131072] [--epochs 400] [--out gate/confirm/answer_model.bin]
"""

from __future__ import annotations

import argparse
import array
import hashlib
import json
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.sgd.answers import TODAY, argument  # noqa: E402
from bench.sgd.data import SGDMissing, confirmations, root  # noqa: E402
from gate.confirm import answer as answer_module  # noqa: E402
from gate.confirm import model  # noqa: E402
from gate.confirm.lexicon import language  # noqa: E402
from gate.confirm.pending import spoken_values  # noqa: E402
from gate.confirm.restate import pending_values  # noqa: E402
from gate.confirm.side import side_question_start  # noqa: E402
from gate.values import Value  # noqa: E402

CORPUS_FILES = [
    ROOT / "tests" / "data" / "confirm_answers.yaml",
    *sorted((ROOT / "tests" / "lang").glob("*/answers.yaml")),
]


@dataclass(frozen=True)
class Example:
    words: str
    question: str
    pending: tuple[Value, ...]
    lang: str
    yes: bool
    weight: float
    source: str  # sgd | corpus


def corpus() -> Iterator[dict[str, Any]]:
    for path in CORPUS_FILES:
        lang = path.parent.name if path.parent.parent.name == "lang" else None
        for entry in yaml.safe_load(path.read_text()) or []:
            yield {**entry, "lang": entry.get("lang", lang)}


def _is_yes(entry: dict[str, Any]) -> bool:
    """A corpus answer that is a yes: labelled one, or a yes beyond the reader (read unclear)."""
    return entry["label"] in ("yes", "yes_question") or entry["class"] == "beyond_the_reader"


def head(words: str, lang: str) -> str | None:
    """The answer before a side question, or None when none is found."""
    start = side_question_start(words, lang)
    return words[:start] if start is not None else None


def examples(base: Path) -> list[Example]:
    out: list[Example] = []
    for pair in confirmations(base, "train"):
        args = {slot: argument(c) for slot, (c, _) in pair.pending.items()}
        values = spoken_values({s: sp if args[s] not in (None, True, False) else args[s]
                                for s, (_, sp) in pair.pending.items()})  # fmt: skip
        pending = tuple(pending_values(values, "en"))
        text: str | None = pair.answer
        if pair.label == "yes_question":
            text = head(pair.answer, "en")
        if text is None or pair.label == "other":
            continue
        out.append(Example(text, pair.question, pending, "en", pair.label != "change", 1.0, "sgd"))
    for entry in corpus():
        lang = language(entry["lang"])
        text = entry["answer"] if entry["label"] != "yes_question" else head(entry["answer"], lang)
        if text is None:
            continue
        pending = tuple(pending_values(entry["pending"], lang))
        out.append(
            Example(
                text,
                entry["question"],
                pending,
                lang,
                _is_yes(entry),
                3.0,
                "corpus",
            )
        )
    return out


def matrix(rows: list[list[str]], buckets: int) -> tuple[np.ndarray, np.ndarray]:
    indices: list[int] = []
    indptr = [0]
    for feats in rows:
        indices.extend(zlib.crc32(f.encode()) & (buckets - 1) for f in feats)
        indptr.append(len(indices))
    return np.asarray(indices, dtype=np.int64), np.asarray(indptr, dtype=np.int64)


def train(indices: np.ndarray, indptr: np.ndarray, y: np.ndarray, sample: np.ndarray, buckets: int,
          epochs: int, l2: float, rate: float) -> tuple[np.ndarray, float]:  # fmt: skip
    w = np.zeros(buckets)
    b = 0.0
    m, v = np.zeros(buckets), np.zeros(buckets)
    mb = vb = 0.0
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    total = sample.sum()
    for step in range(1, epochs + 1):
        z = np.bincount(rows, weights=w[indices], minlength=len(y)) + b
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        err = (p - y) * sample / total
        grad = np.bincount(indices, weights=err[rows], minlength=buckets) + l2 * w
        gb = err.sum()
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        mb = 0.9 * mb + 0.1 * gb
        vb = 0.999 * vb + 0.001 * gb * gb
        correction = np.sqrt(1 - 0.999**step) / (1 - 0.9**step)
        w -= rate * correction * m / (np.sqrt(v) + 1e-8)
        b -= rate * correction * mb / (np.sqrt(vb) + 1e-8)
    return w, b


def asked_texts(
    words: str, question: str, pending: dict[str, Any], lang: str, today: date | None
) -> list[tuple[str, bool, bool]]:
    """The texts the reader hands the learned reader for one answer: each with whether it holds a
    yes word and whether the rules' vetoes let the learned reader judge it."""
    asked: list[tuple[str, str, bool]] = []
    original = model.yes_score

    def record(text: str, q: str, p: tuple[Value, ...], code: str, affirmed: bool = False) -> float | None:
        asked.append((text, code, affirmed))
        return None

    model.yes_score = record  # type: ignore[assignment]
    try:
        answer_module._read.cache_clear()
        answer_module.read_answer(words, question=question, pending=pending, lang=lang, today=today)
    finally:
        model.yes_score = original  # type: ignore[assignment]
        answer_module._read.cache_clear()
    return [(text, affirmed, not model.vetoed(text, code, question)) for text, code, affirmed in asked]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sgd", default=None)
    parser.add_argument("--buckets", type=int, default=1 << 17)
    parser.add_argument("--epochs", type=int, default=400)
    parser.add_argument("--l2", type=float, default=1e-5)
    parser.add_argument("--rate", type=float, default=0.05)
    parser.add_argument("--margin", type=float, default=0.05)
    parser.add_argument("--floor", type=float, default=0.9)
    parser.add_argument(
        "--vocabulary",
        type=int,
        default=2,
        help="with no yes word, every word of an answer must be in this many yes answers",
    )
    parser.add_argument("--seen", type=int, default=2,
                        help="after a yes word, each word must be in this many answers")  # fmt: skip
    parser.add_argument("--out", default=str(model.MODEL_FILE))
    args = parser.parse_args()
    try:
        base = root(args.sgd)
    except SGDMissing as exc:
        print(f"train_answer_model: {exc}", file=sys.stderr)
        return 2
    data = examples(base)
    rows = [model.features(e.words, e.question, e.pending, e.lang) for e in data]
    # The words the reader has seen in enough yes answers: an answer with any other word is the
    # rules' alone ("sounds fishy", "that's rich": words no caller here agreed with).
    in_yes: dict[str, int] = {}
    in_any: dict[str, int] = {}
    for e in data:
        for key in set(model.masked(e.words, e.question, e.pending, e.lang)):
            in_any[key] = in_any.get(key, 0) + 1
            if e.yes:
                in_yes[key] = in_yes.get(key, 0) + 1
    vocabulary = sorted(k for k, n in in_yes.items() if n >= args.vocabulary and not k.startswith("<"))
    seen = sorted(
        k for k, n in in_any.items() if n >= args.seen and not k.startswith("<") and k not in vocabulary
    )
    indices, indptr = matrix(rows, args.buckets)
    y = np.asarray([1.0 if e.yes else 0.0 for e in data])
    sample = np.asarray([e.weight for e in data])
    w, b = train(indices, indptr, y, sample, args.buckets, args.epochs, args.l2, args.rate)
    scale = float(np.abs(w).max()) / 32767 or 1.0
    quantized = np.round(w / scale).astype("<i2")
    fitted = model.Model(
        args.buckets,
        scale,
        float(b),
        1.0,
        array.array("h", quantized.tobytes()),
        {},
        frozenset(vocabulary),
        frozenset(seen),
    )

    # Calibration: every dev pair the rules leave to the learned reader, and every such corpus answer.
    negatives: list[float] = []
    positives: list[float] = []
    for pair in confirmations(base, "dev"):
        cargs = {slot: argument(c) for slot, (c, _) in pair.pending.items()}
        values = spoken_values({s: sp if cargs[s] not in (None, True, False) else cargs[s]
                                for s, (_, sp) in pair.pending.items()})  # fmt: skip
        for text, affirmed, allowed in asked_texts(pair.answer, pair.question, values, "en", TODAY):
            pending = tuple(pending_values(values, "en"))
            if not allowed or not fitted.knows(
                model.masked(text, pair.question, pending, "en"), "en", affirmed
            ):
                continue
            score = fitted.score(model.features(text, pair.question, pending, "en"))
            (negatives if pair.label == "change" else positives).append(score)
    for entry in corpus():
        lang = language(entry["lang"])
        for text, affirmed, allowed in asked_texts(
            entry["answer"], entry["question"], entry["pending"], lang, None
        ):
            pending = tuple(pending_values(entry["pending"], lang))
            if not allowed or not fitted.knows(
                model.masked(text, entry["question"], pending, lang), lang, affirmed
            ):
                continue
            score = fitted.score(model.features(text, entry["question"], pending, lang))
            (positives if _is_yes(entry) else negatives).append(score)
    highest = max(negatives, default=0.0)
    threshold = round(max(args.floor, min(0.99, highest + args.margin)), 4)
    gained = sum(s >= threshold for s in positives)
    meta = {
        "buckets": args.buckets, "scale": scale, "bias": float(b), "threshold": threshold,
        "trained_on": "SGD train split (CC BY-SA 4.0) and gate's labelled answers (tests/data, tests/lang)",
        "calibrated_on": "SGD dev split", "examples": len(data), "epochs": args.epochs, "l2": args.l2,
        "weights_sha256": hashlib.sha256(quantized.tobytes()).hexdigest(),
        "vocabulary_min": args.vocabulary, "vocabulary": vocabulary, "seen_min": args.seen, "seen": seen,
    }  # fmt: skip
    Path(args.out).write_bytes(
        model.MAGIC + json.dumps(meta, sort_keys=True).encode() + b"\n" + quantized.tobytes()
    )
    print(f"{len(data)} examples ({sum(e.yes for e in data)} yes); weights {args.buckets} x int16; "
          f"vocabulary {len(vocabulary)} + {len(seen)} words")  # fmt: skip
    print(f"calibration: {len(negatives)} non-yes asked, highest score {highest:.3f}; threshold {threshold}")
    print(
        "yes answers the rules left unclear and the learned reader reads as yes: "
        f"{gained} of {len(positives)}"
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
