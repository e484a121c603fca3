"""The rules that resolve an answer's tags in context, each with one job.

Each rule reads the tagged answer (and the question, and the pending values where it needs
them) and changes tags in place: "cancel" said back to "cancel your visit?" is the question's
own word; "both" to a question naming two things is those things; "I can't make it" agrees with
a cancellation and withdraws from a booking. The verdict (:mod:`gate.confirm.verdict`) reads the
tags that are left and names the rule that decided.
"""

from __future__ import annotations

import re
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
    SARC,
    SCOPE,
    SELF,
    SOFT,
    UNABLE,
    WHEN,
    WIDE,
    Table,
    answer_tokens,
)
from gate.confirm.lexicon import words as W
from gate.confirm.restate import closes_value
from gate.confirm.tagging import Tagged, bare
from gate.lang.text import fold, stem_match
from gate.values import Value, find_mentions

# What ends the thanks: a clause of its own weight, never swallowed as politeness.
_THANKS_STOP = frozenset({BUT, COND, QUEST, QAUX, NEG, NEGVERB, CHANGE, SARC, ELSE, "newvalue"})
_FIXED_TIME = frozenset({"weekday", "date", "time"})


def speaks_as_named(
    words: str, tagged: list[Tagged], question: str, lexicon: Table, pending: tuple[Value, ...]
) -> bool:
    """Whether the speaker introduces themselves by a name the question gives.

    The name is a word the question writes with a capital inside the sentence (German
    capitalises every noun: there, only a pending value's word), and no day, month or number:
    "yes it's Friday" is no introduction.
    """
    names = (
        set()
        if lang_data.language(lexicon.lang).flag("nouns_capitalised")
        else {
            w.casefold()
            for k, w in enumerate(re.findall(r"[^\W\d_][\w'-]*", question))
            if k > 0 and w[0].isupper()
        }
    ) | {w for v in pending if v.kind == "text" for w in v.key.casefold().split()}
    for t in tagged:
        key = t.tok.key.casefold()
        if t.tag != "value" and key not in names:
            continue
        if not any(c.isalpha() for c in key) or find_mentions(words[t.tok.start : t.tok.end]):
            continue
        before, after = fold(words[: t.tok.start]), fold(words[t.tok.end :])
        if W().introductions.search(before) or W().introductions_after.match(after):
            return True
    return False


def echoes_question(tagged: list[Tagged], question: str, lexicon: Table) -> bool:
    keys = [t.tok.key for t in tagged]
    for opener in W().agent_openers:
        n = len(opener)
        if any(tuple(keys[k : k + n]) == opener for k in range(len(keys) - n + 1)):
            return True
    if lang_data.language(lexicon.lang).flag("echo_first_person_verb"):
        # "¿Le transfiero...?", "¿Domicilio...?": the agent's first-person verb, said back.
        asked = [t.key for t in answer_tokens(question) if t.key not in ("¿", "?")]
        while asked and asked[0] in W().leading_object_pronouns:
            asked = asked[1:]
        if asked and asked[0].endswith("o") and len(asked[0]) >= 5 and asked[0] in keys:
            return True
    return False


def noun_of_verb(tagged: list[Tagged], member: Tagged, terms: frozenset[str]) -> bool:
    """Whether ``member`` is a noun that only looks like a word of the question: said after "it
    is a ..." ("oui, c'est des livres" to "je fais livrer ?"), it says what something is."""
    k = tagged.index(member)
    return (
        k > 1
        and tagged[k - 1].tok.key in W().articles
        and tagged[k - 2].tok.key in W().copulas
        and bare(member.tok.key) not in terms
    )


def resolve_soft(tagged: list[Tagged]) -> None:
    """ "all good, thanks" alone may be a polite no; beside a plain yes ("yes, all good") it is neutral."""
    soft = [t for t in tagged if t.tag == SOFT]
    if not soft:
        return
    plain_yes = any(t.tag == AFF and t.tok.key not in W().weak_affirmations for t in tagged)
    for t in soft:
        t.tag = NEUT if plain_yes else HEDGE


def resolve_wide(tagged: list[Tagged], question: str, pending: tuple[Value, ...] = ()) -> None:
    """ "both", "all of them": the question's own items when it names several, a change otherwise."""
    wide = [t for t in tagged if t.tag == WIDE]
    if not wide:
        return
    several = (
        W().two_things.match(" ".join(fold(question).split())) is not None
        or W().all_in_question.search(fold(question)) is not None
        or W().several.search(fold(question)) is not None
        or any(sum(v.kind == kind for v in pending) >= 2 for kind in ("weekday", "date", "time"))
    )
    for t in wide:
        t.tag = NEUT if several or _judged(tagged, t) else CHANGE


def _judged(tagged: list[Tagged], t: Tagged) -> bool:
    """ "everything looks right", "alles passt", "tout est bon": "all of it" as the subject of a
    yes that judges it, not more than was asked."""
    k = max(i for i, u in enumerate(tagged) if u.phrase == t.phrase) + 1
    for u in tagged[k : k + 4]:
        if u.tag == AFF:
            return u.tok.key not in W().warm_words and u.tok.key not in W().doubled_yes
        if u.tag not in (NEUT, WIDE, QAUX, "unknown", "qterm"):
            return False
    return False


def _after_go_ahead(tagged: list[Tagged], t: Tagged) -> bool:
    """ "go ahead now", "you may proceed right away", "allez-y maintenant": when to go ahead
    with what was asked, not a new time for the thing itself ("book it now" stays a change)."""
    k = min(i for i, u in enumerate(tagged) if u.phrase == t.phrase)
    words = W()
    for u in reversed(tagged[max(0, k - 5) : k]):
        if u.tag == AFF:
            # A bare "yes right away" to a booking for Tuesday still says when.
            plain = u.tok.key in words.doubled_yes or u.tok.key in words.warm_words
            return u.phrase_len > 1 or not plain
        if u.tag != NEUT:
            return False  # "book it now": the thing itself, now
    return False


@lru_cache(maxsize=1024)
def names_person(question: str) -> bool:
    """Whether the question names a third person by a word for one ("add your son to the policy?").

    A capitalised name is not enough: "Harbour Inn" and "Galway" are names too, and reading
    "her" as one of them would turn "refund it to her" into a yes.
    """
    return any(bare(t.key) in W().people for t in answer_tokens(question))


def resolve_other(tagged: list[Tagged], terms: frozenset[str], question: str) -> None:
    """ "send it to her", "enrol us": someone the question did not name is a change.

    A question that names a third person ("add your son to the policy?") makes "him", "her" and
    "them" that person. A question whose verb is about the caller ("enrol you", "book you in")
    makes the same verb with "them", "him", "her" or "us" someone else: a change.
    """
    asked = [bare(t.key) for t in answer_tokens(question)]
    named = names_person(question)
    about_you = {
        asked[k - 1]
        for k in range(1, len(asked))
        if asked[k] == "you" and len(asked[k - 1]) >= 3 and asked[k - 1] not in W().not_verbs
    }
    for k, t in enumerate(tagged):
        if t.tag == OTHER:
            t.tag = NEUT if bare(t.tok.key) in terms or named else CHANGE
        elif (
            t.tok.key in W().beneficiary_pronouns
            and k > 0
            and tagged[k - 1].tok.key in W().beneficiary_prepositions
            and not named
            and (
                t.tok.raw.lower() != "el"
                or k + 1 == len(tagged)
                or tagged[k + 1].tag not in ("value", "newvalue", "unknown", "qterm")
            )
        ):
            t.tag = CHANGE  # "sí, pídale una a él", "una para el": for someone else
        elif (
            t.tok.key in W().third_person
            and not named
            and about_you
            and k > 0
            and stem_match(bare(tagged[k - 1].tok.key), frozenset(about_you))
        ):
            t.tag = CHANGE  # "yes, enrol them" to "shall I enrol you?"


def resolve_particles(tagged: list[Tagged], terms: frozenset[str]) -> None:
    """ "yes, sign me up", "set it up", "put me down for it": a verb and its particle are one verb."""
    if not any(t.tok.key in W().particles or t.tok.key in W().away_particles for t in tagged):
        return
    withdraws = any(stem_match(verb, terms) for verb in W().withdrawing)
    for k, t in enumerate(tagged):
        if t.tag not in ("unknown", NEUT):
            continue
        if t.tok.key in W().particles:
            verbs = [u for u in tagged[max(0, k - 4) : k] if u.tok.key in W().phrasal_verbs]
        elif withdraws and t.tok.key in W().away_particles:
            verbs = [
                u for u in tagged[max(0, k - 4) : k] if u.tok.key in W().phrasal_verbs | W().taking_away_verbs
            ]
        else:
            continue
        if verbs:
            t.tag = NEUT
            for u in verbs:
                if u.tag == "unknown":
                    u.tag = NEUT


def resolve_when(tagged: list[Tagged], question: str, pending: tuple[Value, ...]) -> None:
    """ "now", "for good", "this month": a change when the question fixed when, neutral otherwise."""
    when = [t for t in tagged if t.tag == WHEN]
    if not when:
        return
    fixed = any(v.kind in _FIXED_TIME for v in pending) or any(
        m.value.kind in _FIXED_TIME for m in find_mentions(question, None)
    )
    asked = {t.key for t in answer_tokens(question)}
    for t in when:
        fixed_here = fixed and t.tok.key not in asked and not _after_go_ahead(tagged, t)
        t.tag = CHANGE if fixed_here and not _now_it_is(tagged, t) else NEUT


_STATE_SUBJECTS = frozenset({"it", "it's", "that", "that's", "everything", "everything's", "all", "this"})


def _now_it_is(tagged: list[Tagged], when: Tagged) -> bool:
    """ "yes, now everything you have is correct", "now it's right": "now" opening a statement
    that the details are right says how they stand after the fix, not when to act ("yes, now
    please" still asks for now)."""
    k = tagged.index(when)
    rest = tagged[k + 1 :]
    return (
        when.tok.key == "now"
        and bool(rest)
        and rest[0].tok.key in _STATE_SUBJECTS
        and any(u.tag == AFF for u in rest[1:])
        and not any(u.tag in (CHANGE, NEG, NEGVERB, "value", "newvalue", "unknown") for u in rest)
    )


def resolve_scope(tagged: list[Tagged], question: str, pending: tuple[Value, ...] = ()) -> None:
    """A narrower scope ("just this month" to "on the 6th of each month?") is a change, unless
    asked. "only" closing a pending value ("two ninety nine only") says it is exactly that, when
    no other pending day, date, time or name is of its kind (then "only" would pick one of a list)."""
    asked = " ".join(t.key.removesuffix("'s") for t in answer_tokens(question))  # "this month's delivery"
    # Numbers play different parts (a reference, an amount); days, dates, times and names of
    # one kind are a list the caller may pick from.
    kinds = [v.kind for v in pending if v.kind not in ("number", "ident")]
    for k, t in enumerate(tagged):
        if (
            t.tok.key == "only"
            and t.phrase_len == 1
            and t.tag in (SCOPE, CHANGE)
            and closes_value(tagged, k)
            and len(kinds) == len(set(kinds))
            and all(u.tag in (NEUT, AFF) for u in tagged[k + 1 :])
        ):
            t.tag = NEUT
        elif t.tag == SCOPE:
            words = " ".join(u.tok.key for u in tagged if u.phrase == t.phrase)
            t.tag = NEUT if f" {words} " in f" {asked} " else CHANGE


def resolve_self(tagged: list[Tagged]) -> None:
    keys = [t.tok.key for t in tagged]
    for k in range(len(tagged)):
        for opener in W().self_openers:
            end = k + len(opener)
            if tuple(keys[k:end]) != opener or end >= len(tagged):
                continue
            if any(t.tag not in (NEUT, QAUX) for t in tagged[k:end]):
                continue  # part of a phrase of its own ("i'll pass", "i can't")
            verb = tagged[end]
            if verb.tok.key in W().accepting_verbs or verb.tag in (AFF, NEG, SOFT, HES, DEFER, SELF):
                continue
            for t in tagged[k:end]:
                t.tag = SELF


def thanks_for(tagged: list[Tagged], words: str) -> None:
    """What a caller thanks the agent for is politeness, whatever its words ("for being so patient").

    The object of the thanks runs from "for" to the end of the clause (punctuation, or a word that
    carries weight of its own: a "but", a condition, a question, a refusal, a change or a new
    value). Only unknown words and "today" inside it become neutral, so "thanks, but Friday" and
    "thank you tomorrow works better" keep their weight.
    """
    k = 0
    while k < len(tagged):
        if tagged[k].tok.key not in W().thanks:
            k += 1
            continue
        j = k + 1
        while (
            j < len(tagged)
            and j - k <= 4
            and tagged[j].tok.key not in W().thanks_for
            and tagged[j].tag in (NEUT, "unknown")
        ):
            j += 1
        if j >= len(tagged) or tagged[j].tok.key not in W().thanks_for:
            k += 1
            continue
        for t in tagged[k + 1 : j]:
            t.tag = NEUT  # "thanks again for", "merci beaucoup pour"
        end = j + 1
        while end < len(tagged):
            between = words[tagged[end - 1].tok.end : tagged[end].tok.start]
            if any(mark in between for mark in ",.;:!?") or tagged[end].tag in _THANKS_STOP:
                break
            word, earlier = tagged[end], tagged[end - 1].tok.key
            if word.tag == "unknown" or (
                word.tag == NEWTIME and (word.tok.key == "today" or earlier == "this")
            ):
                word.tag = NEUT
            end += 1
        _praise_after(tagged, words, end)
        k = end


def _praise_after(tagged: list[Tagged], words: str, start: int) -> None:
    """After thanks, a clause of praise ("honestly, you've saved my week") is politeness too.

    Only a clause that opens with "you" (or "honestly"/"really" and then "you"), holds nothing of
    weight (no yes or no, change, value, condition or question) and is set off by punctuation.
    """
    k = start
    while k < len(tagged):
        clause = [tagged[k]]
        j = k + 1
        while j < len(tagged) and not any(
            m in words[tagged[j - 1].tok.end : tagged[j].tok.start] for m in ",.;:!"
        ):
            clause.append(tagged[j])
            j += 1
        keys = [t.tok.key for t in clause]
        opens = keys[0] in W().praise_openers and any(w.startswith("you") for w in keys[:2])
        light = all(t.tag in (NEUT, "unknown") for t in clause) and "?" not in keys
        if not (opens and light):
            return
        for t in clause:
            t.tag = NEUT
        k = j


def resolve_unable(tagged: list[Tagged], terms: frozenset[str]) -> None:
    """A caller who cannot come agrees with "cancel your visit?" and withdraws from "book Friday?"."""
    unable = [t for t in tagged if t.tag == UNABLE]
    if not unable:
        return
    withdraws = any(stem_match(verb, terms) for verb in W().withdrawing)
    for t in unable:
        t.tag = NEUT if withdraws else NEGVERB


def negate_in_scope(tagged: list[Tagged]) -> None:
    for k, t in enumerate(tagged[:-1]):
        nxt = tagged[k + 1]
        if t.tag == NEG and t.tok.key in W().scoping_negations and nxt.tag == AFF and nxt.phrase != t.phrase:
            for u in tagged[k + 1 :]:
                if u.phrase != nxt.phrase:
                    break
                u.tag = NEG


def resolve_clitics(tagged: list[Tagged], terms: frozenset[str]) -> None:
    for t in tagged:
        if t.tag not in ("unknown", "qterm") or t.phrase_len != 1:
            continue
        for clitic in W().clitics:
            stem = t.tok.key.removesuffix(clitic)
            if stem == t.tok.key or len(stem) < 3:
                continue
            if stem_match(stem, terms) or any(stem.startswith(v) for v in W().go_ahead_stems):
                t.tag = "qterm"
                t.clitic = True
                break


def resolve_si(tagged: list[Tagged], lexicon: Table) -> None:
    """Unaccented "si": yes when alone, repeated, after "que", or with only yes or polite words."""
    for k, t in enumerate(tagged):
        if t.tok.key != "si" or t.phrase_len != 1 or t.tag not in (COND, "unknown", AFF):
            continue
        if t.tok.raw == "sí":
            t.tag = AFF
            continue
        if not lang_data.language(lexicon.lang).flag("si_is_if"):
            continue
        rest = tagged[k + 1 :]
        before = tagged[k - 1].tok.key if k else ""
        only_yes = all(u.tag == AFF or u.tok.key in W().after_si or u.tok.key == "si" for u in rest)
        # "si cámbiemelo", "si a las ocho treinta": an imperative or the pending value, with no
        # verb of a clause of its own, cannot be a condition.
        no_clause = (
            bool(rest)
            and all(
                u.tag in (AFF, "value", NEUT) or u.clitic or u.tok.key in W().after_si or u.tok.key == "si"
                for u in rest
            )
            and any(u.clitic or u.tag in (AFF, "value") for u in rest)
        )
        t.tag = AFF if only_yes or no_clause or before == "que" else COND


def resolve_irony(tagged: list[Tagged]) -> None:
    """ "yeah because that always works", "sure, because 480 is totally reasonable": a "because"
    that praises the thing itself, after a yes, is irony."""
    for k, t in enumerate(tagged):
        if t.tok.key not in W().irony_because or not any(u.tag == AFF for u in tagged[:k]):
            continue
        clause = tagged[k + 1 :]
        if not clause or (clause[0].tok.key not in W().irony_subjects and clause[0].tag != "value"):
            continue
        if any(u.tok.key in W().intensifiers for u in clause):
            for u in [t, *clause]:
                u.tag = SARC


def resolve_stop_words(tagged: list[Tagged]) -> None:
    """Spanish "para" is "stop" on its own ("¡para!", "para ya") and "for" before anything else."""
    for k, t in enumerate(tagged):
        if (
            t.tag == NEGVERB
            and t.tok.key in W().stop_alone
            and k + 1 < len(tagged)
            and tagged[k + 1].tok.key not in W().after_stop
        ):
            t.tag = NEUT


def rhetorical_yes(tagged: list[Tagged]) -> bool:
    """ "Why not?", "¿por qué no?": a yes asked as a question, and nothing else."""
    words = tuple(t.tok.key for t in tagged if t.tok.key not in ("?", "¿"))
    return words in W().rhetorical_yes


def resolve_leave(tagged: list[Tagged]) -> None:
    """ "leave it with them", "déjelo en conserjería": where to put it, not "leave it be"."""
    for t in tagged:
        if t.tag != NEG or t.tok.key not in W().leave_words:
            continue
        phrase = [u for u in tagged if u.phrase == t.phrase]
        end = tagged.index(phrase[-1]) + 1
        if end < len(tagged) and tagged[end].tok.key in W().place_words:
            for u in phrase:
                u.tag = NEUT


def resolve_eager(tagged: list[Tagged]) -> None:
    """ "yeah yeah, book it", "sure sure order them": a doubled yes before the question's own verb
    is eagerness, not the sarcasm of "yeah yeah" on its own."""
    for k, t in enumerate(tagged):
        if t.tag != SARC or t.tok.key not in W().doubled_yes:
            continue
        phrase = [u for u in tagged if u.phrase == t.phrase]
        if any(u.tok.key not in W().doubled_yes for u in phrase):
            continue
        rest = tagged[k + len(phrase) :]
        if any(u.tag == SARC for u in rest):
            continue
        verb = next((u for u in rest if u.tag not in (NEUT, AFF, HES)), None)
        # "yeah yeah that's fine", "ja ja, für ein Jahr": a second yes of more than one word,
        # or the pending value, is eagerness too; "yeah yeah, sure" stays sarcasm.
        agrees = any(u.tag == AFF and (u.phrase_len > 1 or u.tok.key in W().warm_words) for u in rest) or any(
            u.tag == "value" for u in rest
        )
        if (verb is not None and (verb.tag == "qterm" or verb.clitic)) or agrees:
            for u in phrase:
                u.tag = AFF


def resolve_aux(tagged: list[Tagged]) -> None:
    """An auxiliary opening a clause, with a subject after it, asks a question."""
    for k, t in enumerate(tagged):
        if t.tag != QAUX:
            continue
        opens = k == 0 or tagged[k - 1].tag in (AFF, BUT, HES) or tagged[k - 1].tok.key in W().clause_openers
        opens = opens or (tagged[k - 1].tag == NEUT and tagged[k - 1].tok.key in W().soft_openers)
        # After thanks a new clause starts: "yes thanks, is that it", "danke, ist das alles".
        opens = (
            opens
            or tagged[k - 1].tok.key in W().thanks
            or (k > 1 and tagged[k - 1].tok.key == "you" and tagged[k - 2].tok.key in W().thanks)
        )
        subject = k + 1 < len(tagged) and tagged[k + 1].tok.key in W().subjects
        # A tag question ends the answer: "that's everything, is it", "it's done, isn't it".
        tag_question = (
            k == len(tagged) - 2 and k > 0 and subject and tagged[k + 1].tok.key in W().tag_question_subjects
        )
        if (opens and subject) or tag_question:
            t.tag = QUEST
        else:
            t.tag = NEG if t.tok.key.endswith("n't") else NEUT  # "yes, won't" is no yes


# Verbs that say how a thing seems: an intensifier after one strengthens the word that follows.
_SEEMING = frozenset({"sounds", "sound", "looks", "look", "seems", "seem", "feels", "is", "'s", "was"})


def resolve_relative(tagged: list[Tagged]) -> None:
    """ "that's what I wanted", "exactly what we need": a question word after a copula opens a
    relative clause, not a question; "really" before a yes ("sounds really great") or before the
    word it strengthens ("sounds really good") intensifies it: only "really" on its own asks."""
    words = W()
    for k, t in enumerate(tagged):
        if t.tag != QUEST or t.phrase_len != 1 or k == 0:
            continue
        before = tagged[k - 1].tok.key
        if ((t.tok.key,) in words.question_words and before in words.relative_leads) or (
            t.tok.key in words.intensifiers
            and k + 1 < len(tagged)
            and (tagged[k + 1].tag == AFF or (tagged[k + 1].tag == NEUT and before in _SEEMING))
        ):
            t.tag = NEUT


def resolve_unchanged(tagged: list[Tagged]) -> None:
    """ "proceed as it is", "you can make it as it is": unchanged, after a go-ahead, is a yes;
    on its own ("leave it as it is") it stays a no."""
    words = W()
    for k, t in enumerate(tagged):
        if t.tag != NEG or not k:
            continue
        phrase = [u for u in tagged if u.phrase == t.phrase]
        if tagged.index(phrase[0]) != k:
            continue
        keys = tuple(u.tok.key for u in phrase)
        if keys not in words.unchanged:
            continue
        before = [u for u in tagged[max(0, k - 3) : k] if u.tag != NEUT]
        if before and before[-1].tag in (AFF, "qterm"):
            for u in phrase:
                u.tag = NEUT


def _praise(key: str) -> bool:
    # a word of praise, not "all" or "that's" (a pointer and its verb)
    return len(key) >= 4 and key.isalpha() and key != "thats"


def _agrees_as_well(tagged: list[Tagged], t: Tagged) -> list[Tagged]:
    """The words to read as agreement when the additive ``t`` ("too", "as well", "aussi") ends
    the answer and qualifies an agreement: between the last yes word and it only the caller, a
    pointer to what was asked and their prepositions ("fine with this too", "i agree with that as
    well", "sounds perfect to us too"); none otherwise. Another party ("for him too"), a thing
    ("the breakfast too") or a verb ("book it for me too") between them is something more asked
    for. Courtesy may follow ("... too, thank you")."""
    words = W()
    phrase = [u for u in tagged if u.phrase == t.phrase]
    if " ".join(u.tok.key for u in phrase) not in words.also_words:
        return []
    after = [u.tok.key for u in tagged[tagged.index(phrase[-1]) + 1 :]]
    courtesy = words.thanks | words.warm_words
    if tagged.index(phrase[0]) == 0 or any(
        k not in courtesy and not (k == "you" and n and after[n - 1] in courtesy) for n, k in enumerate(after)
    ):
        return []
    plain = (words.objects - words.third_person) | words.agreeing_with
    between: list[Tagged] = []
    for u in reversed(tagged[: tagged.index(phrase[0])]):
        if u.tag == AFF and u.tok.key not in plain:
            return [*phrase, *between]
        if u.tag == NEUT and u.tok.key in words.weak_affirmations and _praise(u.tok.key):
            # "that's great too": praise, a yes only beside one (the verdict asks for it)
            return [*phrase, *between]
        if u.tok.key not in plain:
            return []
        between.append(u)  # "to us": the caller's own party, who agrees
    return []


def resolve_agreeing(tagged: list[Tagged]) -> None:
    """ "perfect for us", "fine with me too", "that works for us as well": who agrees, after a yes,
    is the caller's own party; and "go with the reservation" chooses what was offered."""
    words = W()
    for k, t in enumerate(tagged):
        if t.tag != CHANGE and t.tag != OTHER:
            continue
        before = [u for u in tagged[:k] if u.phrase != t.phrase]
        prev = before[-1] if before else None
        agreeing = _agrees_as_well(tagged, t) if t.tok.key in words.additive else []
        if agreeing:
            for u in agreeing:
                u.tag = NEUT  # "that is fine with me too" ("book her in too" stays a change)
        elif (
            t.tok.key in words.reason_subjects | {"us"}
            and prev is not None
            and prev.tok.key in words.thanks_for | {"with"}
            and len(before) > 1
            and before[-2].tag == AFF
        ):
            t.tag = NEUT  # "perfect for us"
        elif tuple(u.tok.key for u in tagged if u.phrase == t.phrase) in words.choosing:
            after = [u for u in tagged[k + 1 :] if u.phrase != t.phrase and u.tag != NEUT]
            if after and after[0].tag in ("qterm", "value"):
                for u in tagged:
                    if u.phrase == t.phrase:
                        u.tag = NEUT  # "go with the reservation"
