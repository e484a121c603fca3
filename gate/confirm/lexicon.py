"""The answer reader's lexicon, built from the languages' folders (``gate/lang/<code>/``).

Two parts:

- :func:`table`: for the caller's language, every phrase of ``answers.toml`` and the tag it
  carries (the language's own phrases first, then English ones, which callers mix in), longest
  phrase first. Only these languages' phrases are tagged: a "sí" in an English session is a
  word the reader does not know.
- :func:`words`: the word sets the rules read (``reading.toml``, ``verbs.toml``), every
  language's together, so that a Spanish risk word is a risk in an English answer too.

Both are built on first use and cached; nothing is read at import.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from gate import lang as lang_data
from gate.lang.record import Record
from gate.lang.text import tokens

__all__ = ["AnswerTok", "Table", "Words", "answer_tokens", "language", "table", "words"]

# Tags, most cautious first: when one phrase carries two, the first wins; neutral loses to all.
AFF, NEG, NEUT, HES, CORR, COND, QUEST, QAUX, DEFER, SARC, ELSE, CHANGE, BUT, HEDGE = (
    "aff", "neg", "neut", "hes", "corr", "cond", "quest", "qaux", "defer", "sarc", "else", "change",
    "but", "hedge",
)  # fmt: skip
NEGVERB, NEWTIME, UNABLE, SOFT, SELF, WIDE, OTHER, WHEN, SCOPE = (
    "negverb", "newtime", "unable", "soft", "self", "wide", "other", "when", "scope",
)  # fmt: skip
PRIORITY = (
    SARC, ELSE, COND, QUEST, QAUX, DEFER, HES, CORR, HEDGE, BUT, CHANGE, NEWTIME, UNABLE, SELF, WIDE,
    OTHER, WHEN, SCOPE, NEGVERB, NEG, SOFT, AFF, NEUT,
)  # fmt: skip
# The fields of answers.toml and the tag each gives its phrases.
FIELD_TAGS: tuple[tuple[str, str], ...] = (
    ("sarcasm", SARC), ("addressee", ELSE), ("conditions", COND), ("questions", QUEST),
    ("question_auxiliaries", QAUX), ("deferral", DEFER), ("hesitation", HES),
    ("repeat_requests", HES), ("corrections", CORR),
    ("hedges", HEDGE), ("reservations", BUT), ("changes", CHANGE), ("new_times", NEWTIME),
    ("unable", UNABLE), ("does_it_themselves", SELF), ("wide", WIDE), ("other_person", OTHER),
    ("when_words", WHEN), ("scope", SCOPE), ("withdrawals", NEGVERB), ("negations", NEG),
    ("soft_accepts", SOFT), ("affirmations", AFF), ("neutral", NEUT), ("politeness", NEUT),
    ("fillers", NEUT), ("function_words", NEUT),
)  # fmt: skip
# Tags whose phrases count wherever they occur, even across a phrase the greedy pass took first
# ("oui c'est ça oui": "c'est ça oui" is sarcasm though "oui c'est ça" is a yes).
ANYWHERE = (SARC, ELSE)

Phrase = tuple[str, ...]


@dataclass(frozen=True)
class AnswerTok:
    """A token of an answer: ``key`` folded (contractions restored), ``raw`` in lower case."""

    key: str
    raw: str
    start: int
    end: int


@dataclass(frozen=True)
class Table:
    """The phrases of one caller's language (and English) and their tags."""

    lang: str
    phrases: dict[Phrase, str]
    longest: int
    # Words met only inside longer neutral or affirmative phrases ("beaucoup", "help"): neutral
    # when they turn up on their own.
    inner: frozenset[str]
    # First word -> the multi-word phrases of tags that count wherever they occur.
    anywhere: dict[str, list[tuple[Phrase, str]]]


def language(lang: str | None) -> str:
    """The reader's language for a tag ("es-MX" -> "es"); English for an unknown one."""
    return lang_data.code_of(lang) or "en"


@lru_cache(maxsize=8192)
def answer_tokens(text: str) -> tuple[AnswerTok, ...]:
    """The words of ``text`` (and its question marks), as the reader reads them (cached)."""
    aliases = _contractions()
    out: list[AnswerTok] = []
    for tok in tokens(text):
        if tok.kind == "sym" and tok.key not in ("?", "¿"):
            continue
        key = aliases.get(tok.key, tok.key)
        out.append(AnswerTok(key, tok.raw.lower(), tok.start, tok.end))
    return tuple(out)


@cache
def _contractions() -> dict[str, str]:
    return {k: str(v) for k, v in lang_data.union_table("contractions").items()}


_PLAIN = re.compile(r"[a-z' ]+")


def phrase_keys(phrase: str) -> Phrase:
    """A data phrase as the keys the reader compares (a folded phrase of plain words is split on
    spaces, which is what the tokeniser would make of it; anything else goes through it)."""
    if _PLAIN.fullmatch(phrase):
        aliases = _contractions()
        keys = (w.strip("'") for w in phrase.split())
        return tuple(aliases.get(k, k) for k in keys if k)
    return tuple(t.key for t in answer_tokens(phrase))


@cache
def table(lang: str) -> Table:
    """The lexicon for a language code: its own phrases first, then English ones."""
    phrases: dict[Phrase, str] = {}
    order = (lang, "en") if lang != "en" else ("en",)
    for code in order:
        data = lang_data.language(code)
        own: dict[Phrase, str] = {}
        for field, tag in FIELD_TAGS:
            for phrase in data.phrases(field):
                keys = phrase_keys(phrase)
                if keys and keys not in own:
                    own[keys] = tag
        for keys, tag in own.items():
            phrases.setdefault(keys, tag)
    inner = frozenset(w for p, tag in phrases.items() if len(p) > 1 and tag in (NEUT, AFF) for w in p)
    inner -= frozenset(p[0] for p, tag in phrases.items() if len(p) == 1 and tag != NEUT)
    inner -= words().not_inner
    # An action's verb is never filler: "order" of "in order" is the question's own verb.
    inner -= frozenset(v for family in lang_data.verb_families().values() for v in family)
    anywhere: dict[str, list[tuple[Phrase, str]]] = {}
    for keys, tag in phrases.items():
        if tag in ANYWHERE and len(keys) > 1:
            anywhere.setdefault(keys[0], []).append((keys, tag))
    return Table(lang, phrases, max(len(k) for k in phrases), inner, anywhere)


def _alternation(phrases: Iterable[str], *, apostrophe: bool = True) -> str:
    """A regular expression alternation of folded phrases, longest first ("it's" matches "its")."""
    out = []
    for phrase in sorted(set(phrases), key=len, reverse=True):
        pattern = r"\s+".join(re.escape(w) for w in phrase.split())
        out.append(pattern.replace("'", "'?") if apostrophe else pattern)
    return "|".join(out)


def _token_phrases(phrases: Iterable[str]) -> tuple[Phrase, ...]:
    return tuple(p for p in (phrase_keys(x) for x in phrases) if p)


class Words(Record):
    """Every word set the rules read, every language's together."""

    contractions: dict[str, str]
    subjects: frozenset[str]
    clause_openers: frozenset[str]
    accented_questions: frozenset[str]
    durations: frozenset[str]
    not_inner: frozenset[str]
    articles: frozenset[str]
    copulas: frozenset[str]
    weak_affirmations: frozenset[str]
    people: frozenset[str]
    third_person: frozenset[str]
    thanks: frozenset[str]
    thanks_for: frozenset[str]
    long_function_words: frozenset[str]
    scoping_negations: frozenset[str]
    doubled_yes: frozenset[str]
    warm_words: frozenset[str]
    leave_words: frozenset[str]
    place_words: frozenset[str]
    statement_negations: frozenset[str]
    statement_subjects: frozenset[str]
    adverbs: frozenset[str]
    reason_openers: frozenset[str]
    reason_subjects: frozenset[str]
    because: frozenset[str]
    before_reason: frozenset[str]
    reason_risks: frozenset[str]
    their_subjects: frozenset[str]
    their_words: frozenset[str]
    past_time: frozenset[str]
    time_words: frozenset[str]
    objects: frozenset[str]
    agreeing_with: frozenset[str]
    intensifiers: frozenset[str]
    irony_subjects: frozenset[str]
    irony_because: frozenset[str]
    stop_alone: frozenset[str]
    after_stop: frozenset[str]
    after_si: frozenset[str]
    having: frozenset[str]
    ne_partners: frozenset[str]
    plan_subjects: frozenset[str]
    accepting_verbs: frozenset[str]
    not_verbs: frozenset[str]
    which_determiners: frozenset[str]
    pronoun_one: frozenset[str]
    praise_openers: frozenset[str]
    agent_openers: tuple[Phrase, ...]
    self_openers: tuple[Phrase, ...]
    rhetorical_yes: frozenset[Phrase]
    checking_tags: frozenset[str]
    soft_openers: frozenset[str]
    tag_question_subjects: frozenset[str]
    this_words: frozenset[str]
    beneficiary_pronouns: frozenset[str]
    beneficiary_prepositions: frozenset[str]
    leading_object_pronouns: frozenset[str]
    exactly_words: frozenset[str]
    clitics: tuple[str, ...]
    go_ahead_stems: tuple[str, ...]
    daypart_hours: dict[str, range]
    compound_dayparts: dict[str, range]
    compound_days: tuple[str, ...]  # weekdays of the languages that join a part of the day to them
    article_dayparts: dict[str, range]
    short_days: dict[str, str]
    zero_words: frozenset[str]
    repeat_words: dict[str, int]
    clock_joiners: dict[str, str]
    particles: frozenset[str]
    away_particles: frozenset[str]
    taking_away_verbs: frozenset[str]
    phrasal_verbs: frozenset[str]
    withdrawing: frozenset[str]
    negators: frozenset[str]
    question_words: frozenset[Phrase]
    terms: frozenset[str]
    info_requests: tuple[Phrase, ...]
    about_openers: tuple[Phrase, ...]  # "what about" a thing, in a side question: no change
    exclamations: tuple[Phrase, ...]  # "what a", "qué bien": a question word that asks nothing
    question_openers: tuple[Phrase, ...]
    doubts: tuple[Phrase, ...]
    question_verbs: frozenset[str]
    info_verbs: frozenset[str]
    thing_words: frozenset[str]  # determiners of a thing asked for: "give me *the* address"
    agent_subjects: frozenset[str]
    request_auxiliaries: frozenset[str]
    relative_leads: frozenset[str]
    unchanged: frozenset[Phrase]
    choosing: frozenset[Phrase]
    reservation_words: frozenset[str]  # "but", "pero", "mais", "aber"
    offer_pronouns: frozenset[str]
    and_words: tuple[str, ...]
    also_words: tuple[str, ...]
    additive: frozenset[str]  # "also", "too", "plus": in a side question, more of the same asking
    disapprovals: frozenset[str]  # "awful", "caro": the learned reader never reads past one
    flag_name_words: frozenset[str]  # "has" of "has_pets": a boolean argument's name, not its thing
    possessives: frozenset[str]  # "my", "mi": a reason's subject only with a noun and more
    structural: frozenset[str]  # "and", "with", "the", "all": words that carry no content of their own
    introductions: re.Pattern[str]
    introductions_after: re.Pattern[str]
    two_things: re.Pattern[str]
    last_determiner: re.Pattern[str]
    all_in_question: re.Pattern[str]
    several: re.Pattern[str]
    identity: re.Pattern[str]


@cache
def words() -> Words:
    """The rules' word sets (built once)."""
    union = lang_data.union_words
    phrases = lang_data.union_phrases

    def hours(field: str) -> dict[str, range]:
        return {w: range(int(v[0]), int(v[1])) for w, v in lang_data.union_table(field).items()}

    dets = _alternation(phrases("thing_determiners"))
    also = _alternation(phrases("also_words"))
    counts = _alternation(phrases("count_words"))
    not_plurals = _alternation(union("not_plurals"))
    compound_days = tuple(
        w
        for lang in lang_data.languages()
        if lang.table("compound_dayparts")
        for w in lang.table("weekdays")
        if len(w) > 3
    )
    return Words(
        contractions=_contractions(),
        subjects=union("subjects"),
        clause_openers=union("clause_openers"),
        accented_questions=union("accented_questions"),
        durations=union("durations"),
        not_inner=union("not_inner"),
        articles=union("articles"),
        copulas=union("copulas"),
        weak_affirmations=union("weak_affirmations"),
        people=union("people"),
        third_person=union("third_person"),
        thanks=union("thanks"),
        thanks_for=union("thanks_for"),
        long_function_words=union("long_function_words"),
        scoping_negations=union("scoping_negations"),
        doubled_yes=union("doubled_yes"),
        warm_words=union("warm_words"),
        leave_words=union("leave_words"),
        place_words=union("place_words"),
        statement_negations=union("statement_negations"),
        statement_subjects=union("statement_subjects"),
        adverbs=union("adverbs"),
        reason_openers=union("reason_openers"),
        reason_subjects=union("reason_subjects"),
        because=union("because"),
        before_reason=union("before_reason"),
        reason_risks=union("reason_risks") | union("people"),
        their_subjects=union("their_subjects"),
        their_words=union("their_words"),
        past_time=union("past_time"),
        time_words=union("time_words"),
        objects=union("objects"),
        agreeing_with=union("agreeing_with"),
        intensifiers=union("intensifiers"),
        irony_subjects=union("irony_subjects"),
        irony_because=union("irony_because"),
        stop_alone=union("stop_alone"),
        after_stop=union("after_stop"),
        after_si=union("after_si"),
        having=union("having"),
        ne_partners=union("ne_partners"),
        plan_subjects=union("plan_subjects"),
        accepting_verbs=union("accepting_verbs"),
        not_verbs=union("not_verbs"),
        which_determiners=union("which_determiners"),
        pronoun_one=union("pronoun_one"),
        praise_openers=union("praise_openers"),
        agent_openers=_token_phrases(phrases("agent_openers")),
        self_openers=_token_phrases(phrases("self_openers")),
        rhetorical_yes=frozenset(_token_phrases(phrases("rhetorical_yes"))),
        checking_tags=union("checking_tags"),
        soft_openers=union("soft_openers"),
        tag_question_subjects=union("tag_question_subjects"),
        this_words=union("this_words"),
        beneficiary_pronouns=union("beneficiary_pronouns"),
        beneficiary_prepositions=union("beneficiary_prepositions"),
        leading_object_pronouns=union("leading_object_pronouns"),
        exactly_words=union("exactly_words"),
        clitics=tuple(sorted(union("clitics"), key=len, reverse=True)),
        go_ahead_stems=tuple(sorted(union("go_ahead_stems"))),
        daypart_hours=hours("daypart_hours"),
        compound_dayparts=hours("compound_dayparts"),
        compound_days=compound_days,
        article_dayparts=hours("article_dayparts"),
        short_days={k: str(v) for k, v in lang_data.union_table("weekday_abbreviations").items()},
        zero_words=union("zero_words"),
        repeat_words={k: int(v) for k, v in lang_data.union_table("repeat_words").items()},
        clock_joiners={k: str(v) for k, v in lang_data.union_table("clock_joiners").items()},
        particles=union("particles"),
        away_particles=union("away_particles"),
        taking_away_verbs=union("taking_away_verbs"),
        phrasal_verbs=union("phrasal_verbs"),
        withdrawing=lang_data.verb_families()["withdraw"],
        negators=union("negators"),
        question_words=frozenset(_token_phrases(phrases("question_words"))),
        terms=union("terms"),
        info_requests=_token_phrases(phrases("info_requests")),
        exclamations=_token_phrases(phrases("exclamations")),
        about_openers=_token_phrases(phrases("about_openers")),
        question_openers=_token_phrases(phrases("question_openers")),
        doubts=_token_phrases(phrases("doubts")),
        question_verbs=union("question_verbs"),
        info_verbs=union("info_verbs"),
        thing_words=frozenset(w for p in phrases("thing_determiners") for w in p.split()) | union("articles"),
        agent_subjects=union("agent_subjects"),
        request_auxiliaries=union("request_auxiliaries"),
        relative_leads=union("relative_leads"),
        unchanged=frozenset(_token_phrases(phrases("unchanged"))),
        choosing=frozenset(_token_phrases(phrases("choosing"))),
        reservation_words=frozenset(p for p in phrases("reservations") if " " not in p),
        offer_pronouns=union("offer_pronouns"),
        and_words=phrases("and_words"),
        also_words=phrases("also_words"),
        additive=frozenset(w for p in phrases("also_words") + phrases("question_openers") for w in p.split()),
        disapprovals=union("disapprovals"),
        possessives=union("possessives"),
        flag_name_words=union("flag_name_words"),
        structural=(
            union("articles")
            | union("clause_openers")
            | union("thanks_for")
            | frozenset(
                w
                for p in phrases("also_words") + phrases("and_words") + phrases("all_words")
                for w in p.split()
            )
        ),
        introductions=re.compile(rf"(?:\b(?:{_alternation(phrases('introductions'))})\s*[,:]?\s*)$"),
        introductions_after=re.compile(rf"^\s*[,:]?\s*(?:{_alternation(phrases('introductions_after'))})\b"),
        two_things=re.compile(
            rf"^(?P<a>.+?)\s(?:{_alternation(phrases('and_words'), apostrophe=False)})\s+"
            rf"(?P<b>(?:(?:{also})\s+)?(?:{dets})\b.+)$"
        ),
        last_determiner=re.compile(rf"^.*\b(?:{dets})\b"),
        all_in_question=re.compile(rf"\b(?:{_alternation(phrases('all_words'))})\b"),
        several=re.compile(rf"\b(?:[2-9]|1\d|{counts})\s+(?!(?:{not_plurals})\b)[a-z'-]+[^suia\W]s\b"),
        identity=re.compile(
            rf"^(?:{_alternation(phrases('identity_openers'))}) (?:{_alternation(union('articles'))})?\b"
        ),
    )
