"""How fast and how right the confirmation-answer reader is, on the labelled corpora.

For every answer in tests/data/confirm_answers.yaml and tests/lang/<code>/answers.yaml it
measures one reading:
  cold   read_answer with its per-answer caches cleared first (a new answer, as on a live call;
         the languages' word data and the learned reader stay loaded, as in a running worker)
  warm   read_answer again on the same words (the cache a repeated transcript check hits)
  keyword  the keyword-list classifier gate shipped before (a regular expression per class),
           the baseline, timed in the same run on the same answers

and the figures that matter more than speed: answers read as yes that are not (false yes), and
yes answers recognised (yes recall; a yes with a side question counts when its question is
handed on), for both, and per language. Then, each in a fresh interpreter (median of 5):
importing gate.confirm (the package: it imports the reader on first use), gate.session, and the
first reading (which imports the reader and reads the languages' data and the weights).

Run: python bench/confirm.py [--passes 5]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gate import values  # noqa: E402
from gate.confirm import answer, lexicon, model, polarity, reading, rules, tagging  # noqa: E402
from gate.lang import text  # noqa: E402

CORPORA = [
    ROOT / "tests" / "data" / "confirm_answers.yaml",
    *sorted((ROOT / "tests" / "lang").glob("*/answers.yaml")),
]


def load() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in CORPORA:
        lang = path.parent.name if path.parent.parent.name == "lang" else None
        out += [{"lang": lang, **e} for e in yaml.safe_load(path.read_text())]
    return out


def clear_caches() -> None:
    """The caches that hold one answer's reading (not the languages' tables)."""
    for cached in (
        answer._read, reading.read_rules, lexicon.answer_tokens, text.tokens, text._by_prefix,
        rules.names_person, tagging.with_families, values._scan, model.yes_score, polarity._asked_polarity,
    ):  # fmt: skip
        cached.cache_clear()


IMPORT = "import time; t = time.perf_counter(); import {module}; print((time.perf_counter() - t) * 1000)"
FIRST = (
    "import gate.confirm as c, time; t = time.perf_counter(); "
    "c.read_answer('yes please', question='Shall I book Friday?', pending={'day': 'friday'}); "
    "print((time.perf_counter() - t) * 1000)"
)


def fresh(code: str, runs: int = 5) -> float:
    """The median time (ms) of ``code`` in fresh interpreters (bytecode cached after the first)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
            ).stdout
        )
        for _ in range(runs + 1)
    ]
    return statistics.median(times[1:])


# The keyword-list classifier gate shipped before the contextual one (the baseline).
_YES = re.compile(
    r"\b(yes|yeah|yep|yup|ya|sure|certainly|absolutely|definitely|correct|right|"
    r"ok|okay|confirm(ed)?|affirmative|agreed|please do|go ahead|do it|sounds good|"
    r"that'?s (right|correct|fine|it)|i do|perfect|great)\b"
)
_NO = re.compile(
    r"\b(no|nope|nah|not|don'?t|do not|never|stop|wait|hold on|hang on|cancel|"
    r"negative|wrong|incorrect|hmm+|uh+|um+|maybe|not sure|actually|rather)\b"
)
_CHANGE = re.compile(
    r"\b(but|instead|except|change|make it|switch|different|other|another|only|"
    r"however|although|unless|if|or)\b"
)


def keyword_classifier(words: str) -> str:
    text = re.sub(r"[^\w' ]+", " ", words.casefold()).strip()
    if not text:
        return "unclear"
    if _NO.search(text):
        return "no"
    if not _YES.search(text) or _CHANGE.search(text) or re.search(r"\d", text) or len(text.split()) > 8:
        return "unclear"
    return "yes"


def pct(xs: list[float], q: int) -> float:
    return statistics.quantiles(xs, n=100, method="inclusive")[q - 1] if len(xs) > 1 else xs[0]


def figures(corpus: list[dict[str, Any]], classify: Callable[[dict[str, Any]], str]) -> tuple[int, float]:
    false_yes = sum(1 for e in corpus if e["label"] not in ("yes", "yes_question") and classify(e) == "yes")
    yes = [e for e in corpus if e["label"] in ("yes", "yes_question")]
    recall = sum(1 for e in yes if classify(e) == e["label"]) / len(yes)
    return false_yes, recall


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    corpus = load()

    def read(e: dict[str, Any]) -> str:
        got = answer.read_answer(e["answer"], question=e["question"], pending=e["pending"], lang=e["lang"])
        return "yes_question" if got.answer == "yes" and got.side_question else got.answer

    def keyword(e: dict[str, Any]) -> str:
        got = keyword_classifier(e["answer"])
        return "yes_question" if got == "yes" and e["label"] == "yes_question" else got

    for e in corpus:  # build the lexicons once, as a worker does at its first call
        read(e)
    cold: list[float] = []
    warm: list[float] = []
    keyword_ms: list[float] = []
    for _ in range(args.passes):
        for e in corpus:
            clear_caches()
            t = time.perf_counter()
            read(e)
            cold.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            read(e)
            warm.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            keyword_classifier(e["answer"])
            keyword_ms.append((time.perf_counter() - t) * 1000)

    false_yes, recall = figures(corpus, read)
    kw_false_yes, kw_recall = figures(corpus, keyword)
    n_yes = sum(1 for e in corpus if e["label"] in ("yes", "yes_question"))
    langs = {lang: sum(1 for e in corpus if e["lang"] == lang) for lang in ("en", "es", "fr", "de")}
    print(
        f"\n{len(corpus)} answers ({', '.join(f'{k} {v}' for k, v in langs.items())}), "
        f"{n_yes} labelled yes, {args.passes} passes\n"
    )
    print("| classifier | p50 ms | p95 ms | false yes | yes recall |")
    print("|---|---|---|---|---|")
    rows = [
        ("contextual, cold", cold, 3, false_yes, recall),
        ("contextual, warm (cached)", warm, 4, false_yes, recall),
        ("keyword list (baseline)", keyword_ms, 4, kw_false_yes, kw_recall),
    ]
    for name, xs, digits, fy, rec in rows:
        print(f"| {name} | {pct(xs, 50):.{digits}f} | {pct(xs, 95):.{digits}f} | {fy} | {rec:.1%} |")
    print(f"\ncold p50 is {pct(cold, 50) / pct(keyword_ms, 50):.0f}x the keyword list's")
    print("\n| language | answers | yes | yes recognised | false yes |")
    print("|---|---|---|---|---|")
    for lang in ("en", "es", "fr", "de"):
        own = [e for e in corpus if e["lang"] == lang]
        fy, rec = figures(own, read)
        n = sum(1 for e in own if e["label"] in ("yes", "yes_question"))
        print(f"| {lang} | {len(own)} | {n} | {rec:.1%} | {fy} |")
    package = fresh(IMPORT.format(module="gate.confirm"))
    session = fresh(IMPORT.format(module="gate.session"))
    first = fresh(FIRST)
    print(
        f"\nimporting gate.confirm: {package:.1f} ms; gate.session: {session:.0f} ms; the first reading "
        f"(importing the reader, its data and weights, off the event loop on a call): {first:.0f} ms "
        "(median of 5)"
    )


if __name__ == "__main__":
    main()
