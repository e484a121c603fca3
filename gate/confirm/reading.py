"""Reading an answer by rules: tokenise, tag, find the values, resolve, decide.

1. **Tag** words and phrases (longest first) from the caller's language and English
   (:mod:`gate.confirm.lexicon`, :mod:`gate.confirm.tagging`).
2. **Values** (:mod:`gate.confirm.restate`): a pending value said in any form is neutral; any
   other value is new, and a new value makes the answer a change. With the call's date,
   "tomorrow" for a pending date that is tomorrow is that value.
3. **The question's own words** are neutral where they would change or withdraw ("yes, cancel
   it" to "cancel your visit?"), and so are verbs of the same family ("stop it").
4. **Resolve** tags in context (:mod:`gate.confirm.rules`), then the **verdict**
   (:mod:`gate.confirm.verdict`) names the rule that decided.
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache

from gate import lang as lang_data
from gate.confirm.lexicon import (
    AFF,
    BUT,
    CHANGE,
    COND,
    DEFER,
    ELSE,
    HEDGE,
    HES,
    NEG,
    NEGVERB,
    NEUT,
    NEWTIME,
    OTHER,
    QAUX,
    QUEST,
    SELF,
    WIDE,
    answer_tokens,
    table,
)
from gate.confirm.lexicon import words as W
from gate.confirm.polarity import polarity_flip
from gate.confirm.restate import (
    compound_dayparts,
    day_of,
    is_duration,
    only_part,
    part_of_pending,
    pronoun_one,
    resolve_dayparts,
    short_days,
)
from gate.confirm.rules import (
    echoes_question,
    names_person,
    negate_in_scope,
    noun_of_verb,
    resolve_agreeing,
    resolve_aux,
    resolve_clitics,
    resolve_eager,
    resolve_irony,
    resolve_leave,
    resolve_other,
    resolve_particles,
    resolve_relative,
    resolve_scope,
    resolve_self,
    resolve_si,
    resolve_soft,
    resolve_stop_words,
    resolve_unable,
    resolve_unchanged,
    resolve_when,
    resolve_wide,
    rhetorical_yes,
    speaks_as_named,
    thanks_for,
)
from gate.confirm.side import asks_about
from gate.confirm.tagging import Tagged, bare, mark, overlay, question_terms, spelled, tag, with_families
from gate.confirm.verdict import AnswerReading, _reading, verdict
from gate.lang.text import stem_match
from gate.parts import said_as_parts
from gate.values import Mention, Value, currencies, find_mentions, locate
from gate.values import _currency_names as currency_names

__all__ = ["read_rules"]

# Tags that the question's own words can neutralise ("cancel" to "cancel your visit?").
_QUESTION_CAN_NEUTRALISE = frozenset({CHANGE, NEGVERB, NEWTIME, "unknown"})


@lru_cache(maxsize=2048)
def read_rules(
    words: str,
    question: str,
    pending: tuple[Value, ...],
    lang: str,
    today: date | None = None,
    *,
    side: bool = False,
    flags: tuple[tuple[str, bool], ...] = (),
) -> AnswerReading:
    """The rules' verdict on ``words`` as an answer to ``question`` about ``pending`` (cached).

    ``lang`` is a language code gate has; ``today`` the call's date (relative dates in the answer
    are then read as dates: "tomorrow" said for a pending date that is tomorrow is that date).
    With ``side``, ``words`` are a side question after a yes: its question words, auxiliaries
    and "also" are its own and weigh nothing, and it needs no yes word; every veto still holds
    (a new value, a change word, a condition, a negation...). ``flags``: the pending booleans
    (name, value), details the caller may say the other way round.
    """
    lexicon = table(lang)
    tokens = spelled(answer_tokens(words), lexicon)
    if not tokens:
        return _reading("unclear", "answer.empty")
    phrases_of = lexicon.phrases
    tagged = tag(tokens, lexicon)
    overlay(tagged, lexicon)
    if side:
        for k, t in enumerate(tagged):
            if t.tag == ELSE and k and tagged[k - 1].tok.key in W().thing_words:
                t.tag = NEUT  # "do they have a kids menu?": a thing, not the caller's kids
            if t.tag in (OTHER, SELF, HEDGE, WIDE):
                # "their phone number", "where can I reach them", "what kind of food": the thing
                # asked about; what the caller may do under the deal is read as a question
                # about its terms (gate.confirm.side).
                t.tag = NEUT

    # Values: pending ones are neutral; any other value is a change, even one the question
    # offered as an alternative ("Friday, or would Saturday suit?" - "yes, Saturday").
    pending_spans = [span for value in pending for span in locate(words, value, lang, today=today)]
    for start, end in pending_spans:
        mark(tagged, start, end, "value")
    # A day said relative to today ("tomorrow", "next Friday") restates a pending date it names;
    # any other is read by its words ("tomorrow" is a new time, "thanks for today" politeness).
    absolute = {(m.start, m.end) for m in find_mentions(words, lang)}
    fresh: list[Mention] = []
    for mention in find_mentions(words, lang, today=today):
        relative = (mention.start, mention.end) not in absolute
        if relative and not any(mention.means(value) for value in pending):
            continue
        covered = [t for t in tagged if t.tok.start < mention.end and t.tok.end > mention.start]
        if not covered or any(t.tag == "value" for t in covered):
            continue
        if pronoun_one(tagged, covered):
            continue  # "the thursday one", "the other one": which one, not a number
        if all(t.phrase_len > 1 for t in covered) or is_duration(tagged, covered):
            continue  # "that one", "mil gracias", "deux secondes": the phrase explains the number
        if any(mention.means(value) or day_of(mention.value, value) for value in pending):
            mark(tagged, mention.start, mention.end, "value")
            continue
        fresh.append(mention)
    short_days(tagged, pending)
    parts, letters = said_as_parts(words, fresh, pending)
    for mention in parts:
        mark(tagged, mention.start, mention.end, "value")
        fresh.remove(mention)
    for start, end in letters:
        mark(tagged, start, end, "value")
    if speaks_as_named(words, tagged, question, lexicon, pending):
        return _reading("unclear", "answer.speaker_named")
    if side:
        asked_terms = with_families(question_terms(question, lexicon.phrases))
        fresh = [m for m in fresh if not _asked_about(m, words, tagged, pending, asked_terms)]
    new_values: list[str] = []
    for mention in fresh:
        mark(tagged, mention.start, mention.end, "newvalue")
        new_values.append(words[mention.start : mention.end].strip())
    said_values = len(new_values)
    part_of = "" if side else part_of_pending(words, pending, lang, tagged)
    if part_of:
        new_values.append(part_of)

    compound_dayparts(tagged)
    # The question's own words are neutral where they would otherwise change or withdraw; so
    # are verbs of the same family ("stop it" to "cancel your plan?", "sign me up" to "enrol?").
    terms = with_families(question_terms(question, phrases_of))
    # A phrase is the question's own when each of its words is the question's or a function
    # word: "switch it" to "switch your plan?", but not "next month" to "for 12 months?".
    phrases: dict[int, list[Tagged]] = {}
    for t in tagged:
        if t.tag in _QUESTION_CAN_NEUTRALISE:
            phrases.setdefault(t.phrase, []).append(t)
    restated = {
        pid
        for pid, members in phrases.items()
        if any(stem_match(bare(m.tok.key), terms, compound=m.tag == "unknown") for m in members)
        and not any(noun_of_verb(tagged, m, terms) for m in members)
        and all(
            phrases_of.get((m.tok.key,)) == NEUT
            or stem_match(bare(m.tok.key), terms, compound=m.tag == "unknown")
            for m in members
        )
        and not any(m.tag == NEWTIME and bare(m.tok.key) not in terms for m in members)
    }
    for t in tagged:
        if t.phrase in restated and t.tag in _QUESTION_CAN_NEUTRALISE:
            t.tag = "qterm"

    # A currency or unit the question did not use is a new value ("yes, 85 euros" to "85 dollars?").
    names = currency_names()
    asked_in = currencies(question) | {v.key for v in pending if v.kind == "text" and v.key in names}
    # ... unless a phrase of the lexicon holds it ("a hundred percent", "100% sure").
    said_in = currencies(_outside_phrases(words, tagged))
    if said_in - asked_in and (asked_in or "%" in said_in):
        new_values.extend(sorted(said_in - asked_in))

    part = "" if side else only_part(tagged, question, lexicon)
    if part:
        new_values.append(part)

    if not side and echoes_question(tagged, question, lexicon):
        return _reading("unclear", "answer.echo")
    resolve_unable(tagged, terms)
    resolve_soft(tagged)
    resolve_wide(tagged, question, pending)
    resolve_other(tagged, terms, question)
    resolve_particles(tagged, terms)
    resolve_when(tagged, question, pending)
    resolve_scope(tagged, question, pending)
    resolve_self(tagged)
    thanks_for(tagged, words)
    negate_in_scope(tagged)
    resolve_dayparts(tagged, pending)
    if lang_data.language(lang).flag("clitic_objects"):
        resolve_clitics(tagged, terms)
    resolve_si(tagged, lexicon)
    resolve_eager(tagged)
    resolve_stop_words(tagged)
    resolve_leave(tagged)
    resolve_irony(tagged)
    resolve_aux(tagged)
    resolve_relative(tagged)
    resolve_unchanged(tagged)
    resolve_agreeing(tagged)
    last = tagged[-1]
    if (
        len(tagged) > 2
        and last.tok.key in W().checking_tags
        and last.phrase_len == 1
        and tagged[-2].tag not in (AFF, NEUT)
        and tagged[-2].tok.key not in W().intensifiers  # "that's completely right": agreeing
    ):
        last.tag = QUEST  # "yes and that's for two, right": checking, not agreeing
    if side:
        _question_is_its_own(tagged, words)
        flipped = polarity_flip(tagged, words, question, terms, flags)
        if flipped:
            return _reading("change", "answer.polarity", flipped)
        return verdict(tagged, new_values, terms, said_values, names_person(question))
    rhetorical = rhetorical_yes(tagged)
    for t in tagged:
        if t.tag == "unknown" and t.tok.key in W().accented_questions and t.tok.raw != t.tok.key:
            t.tag = QUEST
        if t.tok.key in ("?", "¿"):
            t.tag = NEUT if rhetorical else QUEST

    flipped = polarity_flip(tagged, words, question, terms, flags)
    if flipped:
        return _reading("change", "answer.polarity", flipped)
    return verdict(tagged, new_values, terms, said_values, names_person(question))


def _asked_about(
    mention: Mention, text: str, tagged: list[Tagged], pending: tuple[Value, ...], terms: frozenset[str]
) -> bool:
    """Whether a number in a side question asks about the thing ("are there 0 transfers?", "is
    it from 2011?") rather than changing the request: a plain number (no currency, no time or
    date) that counts something the question did not ("3 people" to "a table for 2 people?" is
    a change), or the "one" of "one more thing"."""
    covered = [t for t in tagged if t.tok.start < mention.end and t.tok.end > mention.start]
    if covered and all(t.phrase_len > 1 and t.tag in (HEDGE, CHANGE, NEUT) for t in covered):
        return True
    if mention.value.kind != "number" or currencies(text[mention.start : mention.end]):
        return False
    if not any(v.kind == "number" for v in pending):
        return True
    after = next((t for t in tagged if t.tok.start >= mention.end), None)
    return after is not None and after.tok.key not in terms and bare(after.tok.key) not in terms


def _question_is_its_own(tagged: list[Tagged], text: str) -> None:
    # A time asked about ("who plays tonight?") is not a new time for the action.
    keys = [t.tok.key for t in tagged if t.tok.key not in ("?", "¿")]
    if asks_about(keys, asked=any(t.tok.key == "?" for t in tagged) or "?" in text):
        for t in tagged:
            if t.tag == NEWTIME:
                t.tag = NEUT
    _question_words_are_its_own(tagged, text)


def _question_words_are_its_own(tagged: list[Tagged], text: str) -> None:
    """In a side question, its question words and markers, "also", and "if" after a verb of
    asking ("can you check if they have parking") are the question itself, not a veto; so is
    "I need to" after a question word ("how much do I need to pay?")."""
    words = W()
    asking = {w for phrase in words.info_requests for w in phrase} | words.question_verbs | words.info_verbs
    keys = [t.tok.key for t in tagged]
    # "what about the parking?": asking about a thing; with a value or another change word in
    # the question ("what about 8 instead?") it stays a change.
    changes = {t.phrase for t in tagged if t.tag == CHANGE}
    for k in range(len(tagged)):
        for phrase in words.about_openers:
            span = tagged[k : k + len(phrase)]
            if tuple(keys[k : k + len(phrase)]) != phrase or not any(u.tag == CHANGE for u in span):
                continue
            own = {u.phrase for u in span}
            rest = tagged[k + len(phrase) :]
            # What it asks about is a thing: no person ("what about my sister?"), no time or
            # comparison ("what about later?"), only words of no weight or unknown ones.
            thing = all(u.tag in (NEUT, "unknown", "qterm") and u.tok.key not in words.people for u in rest)
            if thing and not any(u.tag == "newvalue" for u in tagged) and not (changes - own):
                for u in span:
                    if u.tag == CHANGE:
                        u.tag = NEUT
    for k, t in enumerate(tagged):
        nxt = tagged[k + 1] if k + 1 < len(tagged) else None
        ends = (
            nxt is None
            or nxt.tok.key in ("?", "¿")
            or any(m in text[t.tok.end : nxt.tok.start] for m in ".!?")
        )
        if t.tag == BUT and t.phrase_len == 1 and ends:
            t.tag = NEUT  # "what stations are involved though?"
        elif (
            t.tag == NEG
            and t.tok.key in words.negators
            and k
            and tagged[k - 1].tok.key in ("or", "o", "ou", "oder")
        ):
            t.tag = NEUT  # "whether it is furnished or not"
    for t in tagged:
        if t.tag == BUT and t.phrase_len == 1:
            t.tag = NEUT  # "yes, but who is the actor?": the "but" leads into the question
        elif t.tag not in (NEUT, CHANGE, HEDGE) and t.tok.key not in words.additive:
            break
    for k, t in enumerate(tagged):
        if t.tag in (QUEST, QAUX, OTHER, SELF) or t.tok.key in ("?", "¿"):
            # "their phone number", "where can I reach them": the thing asked about; what the
            # caller may do under the deal is read as a question about its terms.
            t.tag = NEUT
        elif t.tag == CHANGE and t.tok.key in words.additive:
            t.tag = NEUT  # "also, what's the address?", "the phone number too"
        elif t.tag == COND and (
            (t.phrase_len == 1 and (t.tok.key,) in words.question_words)
            or any(w in asking for w in keys[:k])
            or _after_question_word(tagged, k, text)
        ):
            t.tag = NEUT  # "when does it start", "find out if pets are allowed", "who do I call if..."
        elif t.tag in (NEG, NEGVERB) and _a_noun_here(tagged, k):
            t.tag = NEUT  # "which bus stop", "does it have one stop": a thing, not withdrawing
        elif t.tag in (DEFER, HES) and _after_question_word(tagged, k, text):
            t.tag = NEUT  # "where do I have to go?", "how long is the wait?"
        elif t.tag == CHANGE and all(
            u.tok.key in words.thanks_for or u.tok.key in words.their_words or u.tok.key in words.third_person
            for u in tagged
            if u.phrase == t.phrase
        ):
            t.tag = NEUT  # "what address is given for them?"
    for k in range(len(tagged)):
        for phrase in words.question_openers:
            if len(phrase) > 1 and tuple(keys[k : k + len(phrase)]) == phrase:
                for t in tagged[k : k + len(phrase)]:
                    if t.tag in (HEDGE, CHANGE, DEFER):
                        t.tag = NEUT  # "one more thing", "quick question"
        for phrase in words.info_requests:
            if tuple(keys[k : k + len(phrase)]) == phrase:
                for t in tagged[k : k + len(phrase)]:
                    if t.tag not in ("value", "newvalue"):
                        t.tag = NEUT  # "let me know", "if you could tell me", "whether or not"


def _outside_phrases(words: str, tagged: list[Tagged]) -> str:
    """The answer with the words of its longer yes and neutral phrases blanked out."""
    out = list(words)
    for t in tagged:
        if t.phrase_len > 1 and t.tag in (AFF, NEUT):
            end = t.tok.end
            while end < len(words) and words[end] in "% ":
                end += 1  # "100%": the sign is the phrase's
            out[t.tok.start : end] = " " * (end - t.tok.start)
    return "".join(out)


def _a_noun_here(tagged: list[Tagged], k: int) -> bool:
    """Whether a withdrawing verb in a side question is a noun there: after a determiner, a
    number, a question word or a word the lexicon does not know ("the stop", "one stop", "which
    stop", "bus stop"), and before no object ("stop it" is the verb)."""
    t = tagged[k]
    if not k or t.phrase_len != 1 or bare(t.tok.key) not in _verb_words():
        return False
    before = tagged[k - 1]
    after = tagged[k + 1].tok.key if k + 1 < len(tagged) else ""
    if after in W().objects:
        return False
    key = before.tok.key
    return (
        key in W().thing_words
        or (key,) in W().question_words
        or before.tag in ("value", "newvalue", "unknown", "qterm")
        or key.isdigit()
        or key in lang_data.union_table("numbers")
    )


@lru_cache(maxsize=1)
def _verb_words() -> frozenset[str]:
    return frozenset(v for family in lang_data.verb_families().values() for v in family)


def _after_question_word(tagged: list[Tagged], k: int, text: str) -> bool:
    """Whether a question word comes before word ``k`` in the same sentence."""
    question_words = W().question_words
    for j in range(k - 1, -1, -1):
        if any(mark in text[tagged[j].tok.end : tagged[j + 1].tok.start] for mark in ".!?"):
            return False
        if (tagged[j].tok.key,) in question_words:
            return True
    return False
