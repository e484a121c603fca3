"""The learned reader: how likely an answer is a plain yes, where the rules found no veto.

The rules know the words they list; callers agree in words nobody listed ("that's the ticket",
"you have my blessing", "sounds like a plan to me"). This reader proposes a yes for such an
answer; it is asked only when the rules' verdict is *soft* (no affirmative, or words the
lexicon does not know: :data:`gate.confirm.verdict.SOFT_RULES`) and never when the answer holds
a word a plain reason must not hold, a negation, or what looks like a name. Every veto of the
rules stands.

It is a logistic regression over hashed features of the answer: words, pairs of words and
character n-grams, after the question's own words and the pending values are replaced by
placeholders (so it learns the shape of an answer, not slot values), and the caller's language.
The weights ship as ``answer_model.bin`` (int16, a few hundred KB), built by
``bench/sgd/train_answer_model.py`` from the Schema-Guided Dialogue dataset's train split
(CC BY-SA 4.0) and gate's own labelled answers in four languages, with the threshold
calibrated on SGD's dev split. Reading is deterministic: the same answer always scores the
same.

Failure modes: a missing or damaged weights file is logged once and the reader abstains (every
soft verdict stays unclear): the rules alone decide, on the safe side.
"""

from __future__ import annotations

import array
import itertools
import json
import logging
import math
import sys
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from gate.confirm.lexicon import AFF, NEUT, QAUX, answer_tokens, table
from gate.confirm.lexicon import words as W
from gate.confirm.tagging import bare, question_terms, with_families
from gate.lang import codes, verb_families
from gate.values import Value, find_mentions, locate

__all__ = ["Model", "features", "load", "threshold", "yes_score"]

_LOG = logging.getLogger("gate.confirm.model")
MODEL_FILE = Path(__file__).with_name("answer_model.bin")
MAGIC = b"GATEANSWER1\n"
VALUE, TERM, OTHER_VALUE = "<v>", "<q>", "<n>"


@dataclass(frozen=True)
class Model:
    """Hashed-feature logistic regression weights and the threshold of a yes."""

    buckets: int
    scale: float
    bias: float
    threshold: float
    weights: array.array  # type: ignore[type-arg]
    meta: dict[str, object]
    # The words the reader has seen in enough yes answers to judge an answer with no yes word
    # holding them, and the words it has seen in enough answers of any kind to judge what follows
    # a yes word ("yes, that sounds delightful").
    vocabulary: frozenset[str] = frozenset()
    seen: frozenset[str] = frozenset()

    def knows(self, keys: Iterable[str], lang: str, affirmed: bool = False) -> bool:
        """Whether every word of a masked answer is one the reader has seen in yes answers (in
        answers of any kind, after a yes word: ``affirmed``), or one the rules' lexicon lists
        (placeholders always are)."""
        vocabulary = self.vocabulary | self.seen if affirmed else self.vocabulary
        listed = table(lang).phrases
        return all(k.startswith("<") or k in vocabulary or (k,) in listed for k in keys)

    def score(self, feats: Iterable[str]) -> float:
        total = self.bias
        w = self.weights
        mask = self.buckets - 1
        for f in feats:
            total += w[zlib.crc32(f.encode()) & mask] * self.scale
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, total))))


def masked(words: str, question: str, pending: tuple[Value, ...], lang: str) -> list[str]:
    """The answer's word keys with pending values as ``<v>``, other values as ``<n>`` and the
    question's own words (and verbs of their family) as ``<q>``."""
    tokens = [t for t in answer_tokens(words) if t.key not in ("?", "¿")]
    spans = [span for value in pending for span in locate(words, value, lang)]
    others = [(m.start, m.end) for m in find_mentions(words, lang)]
    terms = with_families(question_terms(question, table(lang).phrases))
    out: list[str] = []
    for t in tokens:
        if any(a < t.end and t.start < b for a, b in spans):
            key = VALUE
        elif any(a < t.end and t.start < b for a, b in others):
            key = OTHER_VALUE
        elif bare(t.key) in terms and len(t.key) > 2:
            key = TERM
        else:
            key = t.key
        if not out or key not in (VALUE, OTHER_VALUE) or out[-1] != key:
            out.append(key)
    return out


def features(words: str, question: str, pending: tuple[Value, ...], lang: str) -> list[str]:
    """The hashed reader's features of an answer (the same at training and reading)."""
    keys = masked(words, question, pending, lang)
    feats = [f"lang={lang}", f"len={min(len(keys), 12)}"]
    padded = ["<s>", *keys, "</s>"]
    feats += [f"w={k}" for k in keys]
    feats += [f"b={a}|{b}" for a, b in itertools.pairwise(padded)]
    feats += [f"t={a}|{b}|{c}" for a, b, c in zip(padded, padded[1:], padded[2:], strict=False)]
    for key in keys:
        if key.startswith("<"):
            continue
        marked = f"^{key}$"
        for n in (3, 4, 5):
            feats += [f"c{n}={marked[i : i + n]}" for i in range(len(marked) - n + 1)]
    return feats


@cache
def load(path: Path = MODEL_FILE) -> Model | None:
    """The shipped model, or None (logged once) when its file is missing or damaged."""
    try:
        raw = path.read_bytes()
        if not raw.startswith(MAGIC):
            raise ValueError("not a gate answer model")
        header_end = raw.index(b"\n", len(MAGIC))
        meta = json.loads(raw[len(MAGIC) : header_end])
        weights = array.array("h")
        weights.frombytes(raw[header_end + 1 :])
        if sys.byteorder != "little":
            weights.byteswap()
        buckets = int(meta["buckets"])
        if len(weights) != buckets or buckets & (buckets - 1):
            raise ValueError(f"expected {buckets} weights, got {len(weights)}")
        vocabulary = frozenset(str(w) for w in meta.get("vocabulary", ()))
        seen = frozenset(str(w) for w in meta.get("seen", ()))
        return Model(
            buckets,
            float(meta["scale"]),
            float(meta["bias"]),
            float(meta["threshold"]),
            weights,
            meta,
            vocabulary,
            seen,
        )
    except (OSError, ValueError, KeyError) as exc:
        _LOG.warning("gate.confirm.model: the learned answer reader is off (%s: %s)", path.name, exc)
        return None


def threshold() -> float:
    """The score at and above which the learned reader's yes counts (1.0 when it is off)."""
    model = load()
    return model.threshold if model is not None else 1.0


@lru_cache(maxsize=8)
def _risky(lang: str) -> frozenset[str]:
    """Words the learned reader never reads past: another person, a negation, disapproval, and the words a
    plain reason must not hold (a wish, money, time to come, something done...) that the lexicon
    does not already know as neutral."""
    w = W()
    # The structural words a plain reason may not hold ("and", "with", "all") and the words the
    # lexicon lists on their own as a yes or as neutral ("works", "sure") say nothing here; the
    # learned reader reads only words it has seen in yes answers (Model.knows) in any case.
    listed = {p[0] for p, found in table(lang).phrases.items() if len(p) == 1 and found in (QAUX, NEUT, AFF)}
    return (
        (w.reason_risks - w.structural - listed)
        | w.people
        | w.their_words
        | w.third_person
        | w.negators
        | w.statement_negations
        | w.disapprovals
    )


@lru_cache(maxsize=8)
def _foreign(lang: str) -> frozenset[str]:
    """Words other languages' lexicons know and this one (with English) does not: "sí" in an
    English session is a word of another language, read by no rule here."""
    own = {w for p in table(lang).phrases for w in p}
    other = {w for code in codes() if code != lang for p in table(code).phrases for w in p}
    return frozenset(other - own)


@lru_cache(maxsize=8)
def _verbs() -> frozenset[str]:
    return frozenset(v for family in verb_families().values() for v in family)


def vetoed(words: str, lang: str, question: str = "") -> bool:
    """Whether the answer holds what only the rules may judge: another person, a negation, a word
    a plain reason must not hold, a verb of another action than the question's ("pause it" to
    "renew it?"), a word of another language than the caller's, or a word written with a capital
    inside a sentence (a name)."""
    risky = _risky(lang) | _foreign(lang)
    terms = with_families(question_terms(question, table(lang).phrases))
    known = table(lang).phrases
    tokens = answer_tokens(words)
    for k, t in enumerate(tokens):
        # "j'annule" is "annule" after an elided pronoun; "i'm" is no "m".
        stem = bare(t.key) if len(bare(t.key)) >= 3 else t.key
        if t.key in risky or stem in risky:
            return True
        noun = k > 0 and tokens[k - 1].key in W().thing_words  # "my schedule", "the order"
        if stem in _verbs() and stem not in terms and not noun:
            return True
        raw = words[t.start : t.end]
        sentence_start = not words[: t.start].strip() or words[: t.start].rstrip()[-1] in ".!?"
        if k and raw[:1].isupper() and (t.key,) not in known and not sentence_start:
            return True
    return False


@lru_cache(maxsize=2048)
def yes_score(
    words: str, question: str, pending: tuple[Value, ...], lang: str, affirmed: bool = False
) -> float | None:
    """The probability that ``words`` is a plain yes, or None when the reader is off or must
    not judge this answer (:func:`vetoed`, or a word it has not seen: :meth:`Model.knows`).
    ``affirmed``: the answer holds a yes word the lexicon lists."""
    model = load()
    if model is None or vetoed(words, lang, question):
        return None
    if not model.knows(masked(words, question, pending, lang), lang, affirmed):
        return None
    return model.score(features(words, question, pending, lang))
