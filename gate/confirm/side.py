"""A yes with a side question: where the question starts, and what it asks.

Callers agree and ask in one breath ("yes that's right, what's the address?"). The answer is
split where the question starts (:func:`side_question_start`): a later sentence that asks (it
ends with "?" or opens with a question word, an auxiliary before its subject, or a request for
information such as "can you tell me"), or, in speech-to-text without punctuation, a question
word followed by its verb, an auxiliary before its subject, or such a request. The part before
is read as the answer; the question (:func:`kind_of_question`) is one of:

- ``info``: information about the thing itself (who, where, what kind, how much, the phone
  number, whether they serve food): the action runs and the agent answers the question;
- ``terms``: the deal's own terms (a fee, tax, whether it is refundable, can be cancelled or
  changed later, what is included) or what the caller may or must do under it ("can I pay
  monthly?"): the action waits until the agent has answered and asked again;
- ``doubt``: a doubt about the offer itself ("is that right?", "is that the cheapest?", "are
  you sure?"): it waits;
- ``request``: a request for something else ("can you email me a receipt?"): it waits.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from gate import lang as lang_data
from gate.confirm.lexicon import AFF, NEUT, QAUX, SOFT, AnswerTok, Phrase, answer_tokens, table
from gate.confirm.lexicon import words as W
from gate.confirm.tagging import tag

__all__ = ["QuestionKind", "kind_of_question", "side_question_start"]

QuestionKind = Literal["info", "terms", "doubt", "request"]
_SENTENCE_GAP = re.compile(r"[.!?]")


@lru_cache(maxsize=64)
def _by_first(phrases: frozenset[Phrase] | tuple[Phrase, ...]) -> dict[str, tuple[Phrase, ...]]:
    out: dict[str, list[Phrase]] = {}
    for phrase in phrases:
        out.setdefault(phrase[0], []).append(phrase)
    return {first: tuple(sorted(ps, key=len, reverse=True)) for first, ps in out.items()}


def _starts_with(keys: list[str], k: int, phrases: frozenset[Phrase] | tuple[Phrase, ...]) -> int:
    """The length of the longest of ``phrases`` that ``keys`` holds from ``k`` (0 when none)."""
    if k >= len(keys):
        return 0
    for phrase in _by_first(phrases).get(keys[k], ()):
        if tuple(keys[k : k + len(phrase)]) == phrase:
            return len(phrase)
    return 0


@lru_cache(maxsize=8)
def _auxiliaries(lang: str) -> frozenset[str]:
    return frozenset(p[0] for p, found in table(lang).phrases.items() if found == QAUX and len(p) == 1)


@lru_cache(maxsize=8)
def _first_words(lang: str) -> frozenset[str]:
    """Every word a side question can start with (or "?" that marks one)."""
    words = W()
    phrases = (*words.question_words, *words.info_requests, *words.question_openers, *words.about_openers)
    return (
        frozenset(p[0] for p in phrases)
        | _auxiliaries(lang)
        | words.info_verbs
        | words.reservation_words
        | words.agent_subjects
        | {"?", "¿"}
    )


@lru_cache(maxsize=8)
def _openers(lang: str) -> tuple[frozenset[str], frozenset[Phrase]]:
    words = W()
    return _auxiliaries(lang), frozenset(words.question_words)


def _opens(
    keys: list[str],
    k: int,
    lang: str,
    *,
    asked: bool,
    sentence_start: bool,
    after_yes: frozenset[str] = frozenset(),
    unaccented: frozenset[int] = frozenset(),
    bound: frozenset[int] = frozenset(),
) -> bool:
    """Whether a question opens at ``k``: a request for information, a question word (at the
    start of a sentence, or followed by its verb, unless the sentence ends with "?"), or an
    auxiliary before its subject where a clause starts."""
    words = W()
    auxiliaries, question_words = _openers(lang)
    if k > 0 and keys[k - 1] in _not_clause_start() and not sentence_start:
        return False  # "you have my approval": an auxiliary after its subject opens nothing
    opened = False
    while True:
        skip = _starts_with(keys, k, words.question_openers) or int(keys[k] in words.reservation_words)
        if not skip or k + skip >= len(keys):
            break
        k += skip
        opened = True  # "also, which station", "but who is the actor"
    if k >= len(keys) or k in bound:
        return False  # "go ahead and do it now": "do it" is a yes, not a question
    if not asked and _starts_with(keys, k, words.exclamations):
        return False  # "what a joke", "qué bien": an exclamation
    if _starts_with(keys, k, words.info_requests) or _asks_for_information(keys, k):
        return True
    about = _starts_with(keys, k, words.about_openers)
    if about and k + about < len(keys) and (k == 0 or keys[k - 1] in after_yes or sentence_start or opened):
        return True  # "great, what about parking?": read as a question ("what about 8?" is a change)
    n = _starts_with(keys, k, question_words) if k not in unaccented else 0
    contracted = keys[k].endswith("'s") and (keys[k][:-2],) in question_words  # "who's", "where's"
    if n or contracted:
        after = keys[k + max(n, 1)] if k + max(n, 1) < len(keys) else ""
        then = keys[k + max(n, 1) + 1] if k + max(n, 1) + 1 < len(keys) else ""
        at_start = sentence_start or opened
        return (
            asked
            or at_start
            or n > 1
            or contracted
            or after in words.question_verbs
            or after in auxiliaries
            or (then in auxiliaries and then not in words.subjects)  # "which stop does it leave from"
        )
    nxt = keys[k + 1] if k + 1 < len(keys) else ""
    if keys[k] in auxiliaries and nxt in words.agent_subjects and _asks_for_information(keys, k + 1):
        return True
    if (
        asked
        and keys[k] in auxiliaries
        and nxt
        and k > 0
        and keys[k - 1] in after_yes
        and nxt not in words.objects
    ):
        return True  # "yes are pets allowed?", "ok does the room have wifi?"
    # An auxiliary before its subject asks only where a clause starts: "yes that's right, does
    # the room have wifi", not "I would like to have the movie".
    clause = (
        sentence_start
        or opened
        or asked
        or (k > 0 and (keys[k - 1] in after_yes or keys[k - 1] in words.clause_openers))
    )
    return clause and keys[k] in auxiliaries and (nxt in words.subjects or nxt in words.agent_subjects)


# What follows a verb that asks for information: "tell *me*", "check *whether*", "find *out*".
_INFO_OBJECTS = frozenset({"me", "us", "out", "whether", "if", "about", "on", "for", "up"})


@lru_cache(maxsize=1)
def _not_clause_start() -> frozenset[str]:
    """Subjects: an auxiliary right after one continues a statement ("you have", "I can")."""
    words = W()
    return words.subjects | words.statement_subjects | words.agent_subjects


@lru_cache(maxsize=1)
def _action_verbs() -> frozenset[str]:
    families = lang_data.verb_families()
    return frozenset(v for family in families.values() for v in family) | lang_data.union_words(
        "action_verbs"
    )


def _asks_for_information(keys: list[str], k: int) -> bool:
    """ "tell me the address", "check whether pets are allowed", "can you send me the number"."""
    words = W()
    if k + 1 < len(keys) and keys[k] in words.agent_subjects:
        k += 1  # "could you tell me", after its auxiliary
    while k + 1 < len(keys) and _starts_with(keys, k, words.question_openers):
        k += _starts_with(keys, k, words.question_openers)  # "could you please tell me"
    if k + 1 >= len(keys) or keys[k] not in words.info_verbs:
        return False
    nxt = keys[k + 1]
    if nxt in _INFO_OBJECTS or _starts_with(keys, k + 1, words.question_words) > 0:
        return True
    # "tell the price" asks; "send the 900 dollars" is the action itself.
    return nxt in words.thing_words and keys[k] not in _action_verbs()


def side_question_start(text: str, lang: str) -> int | None:
    """The position in ``text`` where a side question begins after the answer, or None.

    The answer before it must hold at least one word; a question that is the whole answer, or
    the first words of it, is no side question (it is read with the rest).
    """
    tokens = answer_tokens(text)
    if len(tokens) < 2:
        return None
    keys = [t.key for t in tokens]
    if not any(k in _first_words(lang) for k in keys[1:]):
        return None  # no word that can open a question, and no question mark
    lexicon = table(lang)
    auxiliaries = _auxiliaries(lang)
    # A question starts a phrase of its own: "do that" in "yes please do that" is a yes.
    tagged = tag(tokens, lexicon)
    phrase_starts = {k for k in range(len(tagged)) if k == 0 or tagged[k].phrase != tagged[k - 1].phrase}
    bound = frozenset(k for k, t in enumerate(tagged) if t.phrase_len > 1 and t.tag in (AFF, NEUT, SOFT))
    sentence_starts = {0} | {
        k for k in range(1, len(tokens)) if _SENTENCE_GAP.search(text[tokens[k - 1].end : tokens[k].start])
    }
    asked_from = _asked_sentences(text, tokens, sentence_starts)
    # "que" without its accent is "that", not "qué": it opens no question.
    unaccented = frozenset(
        k for k, t in enumerate(tokens) if t.key in W().accented_questions and t.raw == t.key
    )
    for k in range(1, len(tokens)):
        if keys[k] == "¿" and any(t.key not in ("?", "¿") for t in tokens[:k]):
            return tokens[k].start  # "sí, ¿hay terraza?": the inverted mark opens a question
        if keys[k] in ("?", "¿") or keys[k - 1] == "¿":
            continue
        words_before = [t for t in tokens[:k] if t.key not in ("?", "¿")]
        after_auxiliary = keys[k - 1] in auxiliaries and k not in sentence_starts
        # At a sentence start the greedy phrases do not count: "schedule it. Is it..." is no "it is".
        phrase_start = k in phrase_starts or k in sentence_starts
        if (
            not words_before
            or not phrase_start
            or (k in bound and k not in sentence_starts)
            or after_auxiliary
        ):
            continue  # after an auxiliary the question began before: "can you tell me"
        start = k if keys[k] != "¿" else k + 1
        if k in sentence_starts and asked_from.get(k, False):
            return tokens[k].start
        asked = asked_from.get(_sentence_of(k, sentence_starts), False)
        # Where the yes ends, a question may start: after a yes word, thanks or "please".
        yes_words = frozenset(t.tok.key for t in tagged[:k] if t.tag == AFF) | W().thanks | W().warm_words
        if k > 1 and keys[k - 1] in W().agent_subjects and keys[k - 2] in W().thanks:
            yes_words |= {keys[k - 1]}  # "thank you, can I ..."
        clause_start = k in sentence_starts or "," in text[tokens[k - 1].end : tokens[k].start]
        if _opens(
            keys,
            start,
            lang,
            asked=asked,
            sentence_start=clause_start,
            after_yes=yes_words,
            unaccented=unaccented,
            bound=bound - sentence_starts,
        ):
            return tokens[k].start
    return None


def _sentence_of(k: int, starts: set[int]) -> int:
    return max(s for s in starts if s <= k)


def _asked_sentences(text: str, tokens: tuple[AnswerTok, ...], starts: set[int]) -> dict[int, bool]:
    """For each sentence start: whether the sentence ends with a question mark."""
    ordered = sorted(starts)
    out: dict[int, bool] = {}
    for i, start in enumerate(ordered):
        end = ordered[i + 1] if i + 1 < len(ordered) else len(tokens)
        last = tokens[end - 1]
        tail = text[last.end : tokens[end].start] if end < len(tokens) else text[last.end :]
        out[start] = last.key == "?" or "?" in tail or any(t.key == "?" for t in tokens[start:end])
    return out


def kind_of_question(text: str, lang: str) -> QuestionKind:
    """What a side question asks: information, the deal's terms, a doubt, or a request.

    Only an auxiliary that opens a clause asks a yes/no question of its subject ("is that
    right?"); after a question word it is that question's verb ("how much is that?").
    """
    words = W()
    keys = [t.key for t in answer_tokens(text) if t.key not in ("?", "¿")]
    if any(k in words.terms or k.rsplit("'", 1)[-1] in words.terms for k in keys):
        return "terms"
    auxiliaries = _auxiliaries(lang)
    if (
        0 < len(keys) <= 2
        and keys[0] in auxiliaries
        and (len(keys) == 1 or keys[1] in words.subjects or keys[1] in words.offer_pronouns)
    ):
        return "doubt"  # a closing tag: "..., is it", "..., isn't it"
    if len(keys) <= 2 and keys and _starts_with(keys, 0, words.doubts) == len(keys):
        return "doubt"  # "right?", "correct?"
    for k, key in enumerate(keys):
        opens = k == 0 or keys[k - 1] in words.additive or keys[k - 1] in words.clause_openers
        if not opens or key not in auxiliaries or k + 1 >= len(keys):
            continue
        subject, rest = keys[k + 1], keys[k + 2 :]
        while rest and _starts_with(rest, 0, words.question_openers):
            rest = rest[_starts_with(rest, 0, words.question_openers) :]  # "ist das dann alles"
        if subject in words.offer_pronouns:
            if not rest or _starts_with(rest, 0, words.doubts):
                return "doubt"  # "is that right?", "is that the cheapest?"
        elif subject in words.agent_subjects:
            if rest and _starts_with(rest, 0, words.doubts):
                return "doubt"  # "are you sure?"
            verb_last = lang_data.language(lang).flag("verb_last")
            asks = _asks_for_information(keys, k + 1) or (
                verb_last and any(w in words.info_verbs for w in rest)
            )
            if key in words.request_auxiliaries and not asks:
                return "request"  # "can you email me a receipt?" ("können Sie mir ... sagen" asks)
    return "info"


def asks_about(keys: list[str], *, asked: bool = False) -> bool:
    """Whether a side question asks with a question word and its verb ("who plays tonight?",
    "what time does it start tomorrow?"), or opens with one and ends with "?" (``asked``): a time
    in it is what is asked about, not a new one. "What about tomorrow?" proposes: its change
    words stay a veto."""
    words = W()
    k = 0
    while k < len(keys) and _starts_with(keys, k, words.question_openers):
        k += _starts_with(keys, k, words.question_openers)
    n = _starts_with(keys, k, frozenset(words.question_words))
    if not n or k + n >= len(keys):
        return False
    nxt = keys[k + n]
    return asked or nxt in words.question_verbs or nxt in _all_auxiliaries()


@lru_cache(maxsize=1)
def _all_auxiliaries() -> frozenset[str]:
    return frozenset(p for code in lang_data.codes() for p in _auxiliaries(code))
