"""How fast and how right the confirmation-answer classifier is, on the labelled corpus.

For every answer in tests/data/confirm_answers.yaml it measures one reading:
  cold   read_answer with its caches cleared first (a new answer, as on a live call)
  warm   read_answer again on the same words (the cache a repeated transcript check hits)
  keyword  the keyword-list classifier gate shipped before (a regular expression per class),
           the baseline, timed in the same run on the same answers

and the figures that matter more than speed: answers read as yes that are not (false yes), and
plain yes answers recognised (yes recall), for both.

Run: python bench/confirm.py [--passes 5]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gate import values  # noqa: E402
from gate.confirm import answer  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "confirm_answers.yaml"

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
    false_yes = sum(1 for e in corpus if e["label"] != "yes" and classify(e) == "yes")
    yes = [e for e in corpus if e["label"] == "yes"]
    recall = sum(1 for e in yes if classify(e) == "yes") / len(yes)
    return false_yes, recall


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    corpus: list[dict[str, Any]] = yaml.safe_load(CORPUS.read_text())

    def read(e: dict[str, Any]) -> str:
        return answer.read_answer(
            e["answer"], question=e["question"], pending=e["pending"], lang=e["lang"]
        ).answer

    for e in corpus:  # build the lexicons once, as a worker does at its first call
        read(e)
    cold: list[float] = []
    warm: list[float] = []
    keyword: list[float] = []
    for _ in range(args.passes):
        for e in corpus:
            answer._read.cache_clear()
            answer._tokens.cache_clear()
            answer._names_person.cache_clear()
            answer._with_families.cache_clear()
            values._scan.cache_clear()
            t = time.perf_counter()
            read(e)
            cold.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            read(e)
            warm.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            keyword_classifier(e["answer"])
            keyword.append((time.perf_counter() - t) * 1000)

    false_yes, recall = figures(corpus, read)
    kw_false_yes, kw_recall = figures(corpus, lambda e: keyword_classifier(e["answer"]))
    n_yes = sum(1 for e in corpus if e["label"] == "yes")
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
        ("keyword list (baseline)", keyword, 4, kw_false_yes, kw_recall),
    ]
    for name, xs, digits, fy, rec in rows:
        print(f"| {name} | {pct(xs, 50):.{digits}f} | {pct(xs, 95):.{digits}f} | {fy} | {rec:.1%} |")
    print(f"\ncold p50 is {pct(cold, 50) / pct(keyword, 50):.0f}x the keyword list's")


if __name__ == "__main__":
    main()
