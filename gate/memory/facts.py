"""What in an utterance is a fact about the caller, and what is not.

Deterministic, offline, English, and written for speech-to-text output as
well as typed text (lower case, no punctuation). An utterance is cut into
sentences (at punctuation, and where a question starts inside an
unpunctuated run: "my dog is rex can you note that"), and each sentence is
read as one of:

- ``fact``: a statement about the caller, their preferences, their things,
  their plans ("my dog is called rex", "i work nights", "the gate code is on
  the card", "i'd like thursday mornings");
- ``correction``: a fact that replaces an earlier one ("my new number is
  ...", "actually i moved to leeds", "not thursday, friday");
- ``request``: an instruction to the agent that carries content ("book me in
  for thursday", "send the invoice to my work address"): kept, since it says
  what the caller wants;
- ``question``: anything asking ("what's my dog called", "do you remember my
  address", "tell me when you're coming", "i was wondering if ...");
- ``answer``: a bare yes or no ("yes please", "no thanks");
- ``greeting`` and ``filler``: "hello", "thanks", "okay", "let me see";
- ``instruction``: words aimed at the agent's own rules ("ignore your previous
  instructions ..."), never kept as something the caller told us
  (:func:`gate.utterance.looks_like_instruction`).

Only facts, corrections and requests are kept as facts about the caller.
The agent's words are never facts about the caller: :func:`agent_statement`
only drops the agent's filler.

Limits, stated honestly: this is a rule-based reader. A statement phrased
as a question ("is it okay if i tell you my dog is rex") is a question; a
fact with a single content word and no first person ("thursdays") is
filler; languages other than English are read as statements when they are
not obviously filler.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from gate.utterance import looks_like_instruction


def _bag(words: str) -> frozenset[str]:
    return frozenset(words.split())


KINDS = ("fact", "correction", "request", "question", "answer", "greeting", "filler", "instruction")
KEPT = frozenset({"fact", "correction", "request"})


@dataclass(frozen=True)
class Statement:
    """One sentence of an utterance and what it is (one of :data:`KINDS`)."""

    text: str
    kind: str

    @property
    def is_fact(self) -> bool:
        """Whether it is kept as a fact about the caller."""
        return self.kind in KEPT


# Letters of any language; an email, a web address, "6.30" or "1.5" is one token.
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?(?:[-./:@][^\W_]+)*")
# A full stop ends a sentence only where no letter or digit follows it straight away
# ("k.brandt@vogel-gmbh.de", "after 6.30" stay whole).
_SENTENCE = re.compile(r"(?:[^.!?;\n]|\.(?=[^\W_]))+[.!?;]*|[.!?;]+")

_WH = _bag(
    """
    how how's hows what what's whats when when's whens where where's wheres which who who's whom whos
    whose why why's
    """
)
_AUX = _bag(
    """
    am are aren't can can't could couldn't did didn't do does doesn't don't had has hasn't have haven't
    is isn't may might must shall should was were will won't would wouldn't
    """
)
_SUBJECT = _bag(
    """
    a an any anybody anyone he her his i it me my our she somebody someone that the their there these
    they this those us we you your
    """
)
# Asking verbs: "tell me ...", "remind me ...", "can you check ..." ask for information.
_ASKING = _bag(
    """
    check confirm describe explain find guess help know list look read recall remember remind repeat
    say see show tell
    """
)
_ASKING_OPENERS = (
    ("i", "wonder"),
    ("i", "was", "wondering"),
    ("i'm", "wondering"),
    ("im", "wondering"),
    ("i", "want", "to", "know"),
    ("i'd", "like", "to", "know"),
    ("i", "would", "like", "to", "know"),
    ("i", "need", "to", "know"),
    ("do", "you", "know"),
    ("any", "idea"),
    ("is", "there"),
    ("are", "there"),
    ("how", "about"),
    ("what", "about"),
    ("let", "me", "know"),
    ("i", "forgot"),
    ("i", "forget"),
    ("i", "can't", "remember"),
    ("i", "cant", "remember"),
    ("i", "don't", "remember"),
    ("i", "dont", "remember"),
)
# "what i need is ..." is a statement, not a question.
_CLEFT = re.compile(r"^(what|where|when) (i|we)('m| am| are)? ?\w* (is|was|are)\b")

_GREETING = (
    ("good", "morning"),
    ("good", "afternoon"),
    ("good", "evening"),
    ("good", "night"),
    ("thank", "you"),
    ("thanks",),
    ("thank",),
    ("cheers",),
    ("hi",),
    ("hello",),
    ("hey",),
    ("hiya",),
    ("howdy",),
    ("bye",),
    ("goodbye",),
    ("morning",),
    ("evening",),
    ("see", "you"),
    ("take", "care"),
    ("have", "a", "nice", "day"),
    ("have", "a", "good", "day"),
    ("nice", "to", "meet", "you"),
    ("ta",),
    ("there",),
    # Spanish, French, German
    ("hola",),
    ("buenos", "dias"),
    ("buenas", "tardes"),
    ("buenas", "noches"),
    ("buenas",),
    ("gracias",),
    ("muchas", "gracias"),
    ("adios",),
    ("hasta", "luego"),
    ("bonjour",),
    ("bonsoir",),
    ("salut",),
    ("allo",),
    ("merci",),
    ("au", "revoir"),
    ("hallo",),
    ("guten", "tag"),
    ("guten", "morgen"),
    ("guten", "abend"),
    ("servus",),
    ("moin",),
    ("danke",),
    ("tschuss",),
    ("auf", "wiedersehen"),
    ("auf", "wiederhoren"),
)
# "it's Mrs Lindqvist again", "soy rosa otra vez", "c'est encore moi": a caller saying who is calling.
_IT_IS_ME = re.compile(
    r"^(?:(?:it'?s|it is|this is|soy|c'est|ich bin's|ich bins|ich bin|hier ist|aqui)\s+)?"
    r"(?:(?:mr|mrs|ms|miss|dr|me|moi|yo)\.?\s+)?(?:[^\W\d_]+\s+){0,2}"
    r"(?:again|once more|otra vez|de nuevo|encore|encore moi|nochmal|noch einmal|wieder)$"
)
# Words that carry no content of their own: function words, hedges, discourse fillers.
_STOP = _bag(
    """
    a an the and or but so if then than that this these those there here it its it's is are was were be
    been being am do does did done doing have has had having will would shall should can could may
    might must i me my mine myself we us our ours you your yours he him his she her they them their to
    of in on at by for with about from into onto over under up down out off as just also too very
    really quite pretty ok okay okey alright all right well oh ah uh uhh um umm er erm hmm hm mm mhm
    huh yeah yes yep yup no nope nah sure fine great good cool nice perfect lovely wonderful excellent
    awesome brilliant super thanks thank please let see think guess suppose mean know like bit lot
    thing things stuff something anything one moment second sec minute hang hold wait got understood
    gotcha sounds sound that's thats i'm im i've ive i'd id i'll ill you're youre we're we've weve
    what's whats don't dont can't cant won't wont isn't aren't didn't doesn't wasn't not actually
    basically literally anyway anyways now again go ahead hello hi hey bye goodbye morning afternoon
    evening cheers ta vale gracias hola merci bonjour danke bitte hallo claro bueno momento minuto
    por favor un una moment instant sekunde moment d'accord ok alles klar genau si oui ja
    """
)
_FIRST_PERSON = _bag(
    """
    i i'd i'll i'm i've id ill im ive me mine my myself our ours us we we'd we'll we're we've
    """
)
_CORRECTION = re.compile(
    r"\b(actually|correction|i meant|i mean|no wait|sorry i meant|scratch that|my new|our new|the new|"
    r"(has|have|got|gave me) a new|new (number|address|email|phone|mobile|landline|flat|house|home)|"
    r"now,? not|not \w+ any ?more|"
    r"i('ve| have)? (just )?moved|we('ve| have)? (just )?moved|changed (my|our|the)|(has|have) changed|"
    r"is now|are now|now (comes?|goes?|lives?|works?|starts?|finishes?|opens?|closes?|costs?|has|have)|"
    r"no longer|not any ?more|anymore|instead|from now on|these days|update (my|our)|"
    r"it('?s| is| was) not \w+ (it('?s| is)|but)|not \w+ but|rather than \w+ now|"
    r"scratch \w+|better now|now instead|(has|have|is|was) changed to|changed to|"
    r"we'?ve moved|i'?ve moved|"
    # Spanish, French, German
    r"ahora (vivo|vivimos|trabajo|es|son|tengo|mi|estoy)|(mi|tengo un|tengo una) nuev[oa]|nuev[oa] "
    r"(numero|direccion|correo|telefono)|(numero|direccion|correo|telefono|movil) nuev[oa]|ya no|"
    r"me (he )?mudado|me mude|he cambiado|cambie de|"
    r"finalement|maintenant (j'habite|c'est|je|mon|ma)|(mon|ma) (nouveau|nouvel|nouvelle)|"
    r"ne \w+ plus|n'\w+ plus|plus jamais|(j'ai|nous avons|on a) demenage|"
    r"jetzt (wohne|wohnen|ist|arbeite)|(wohne|ist|arbeite) jetzt|(meine|mein|eine) neue[rn]?|"
    r"neue (nummer|adresse|handynummer|telefonnummer)|umgezogen|nicht mehr|kein\w* \w+ mehr|"
    r"mittlerweile|inzwischen)\b"
)
_REQUEST_VERBS = _bag(
    """
    add arrange book bring call cancel change charge close collect come delete deliver drop email fix
    get install keep leave make move note open order pay pick put refund register remove repair replace
    reschedule reserve ring schedule send set ship sign start stop swap switch text transfer update use
    visit write
    """
)
_POLITE = ("please", "kindly", "can", "could", "would", "will")


# Personal details a correction usually replaces, whatever words it uses for them.
_TOPICS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("email", re.compile(r"\b(e-?mail|inbox|correo|courriel)\b|@|\bat \w+ dot (com|org|net|co)\b")),
    (
        "phone",
        re.compile(
            r"\b(phone|mobile|cell|landline|number is \d|number \d|new number|ring me|call me|"
            r"n[uú]mero|tel[eé]fono|m[oó]vil|celular|t[eé]l[eé]phone|portable|num[eé]ro|handy|"
            r"handynummer|telefonnummer|nummer)\b"
        ),
    ),
    (
        "home",
        re.compile(
            r"\b(i|we)( |'ve |’ve | have )(just )?(live|moved)\b|(?<!mail )\baddress\b|"
            r"\bmy (home|house|flat) is\b|\b(moving|relocat\w*) to\b|"
            r"\b(vivo|vivimos|direcci[oó]n|me mud[eé]|j'habite|nous habitons|adresse|d[eé]m[eé]nag\w*|"
            r"wohne|wohnen|umgezogen|adresse|anschrift)\b"
        ),
    ),
    (
        "availability",
        re.compile(
            r"\b(free|available|suits? me|works? for me|best days?|prefer|preferred|preference|"
            r"pr[eé]f[eé]rence|pr[eé]f[eè]re|convient|prefiero|preferencia|me viene bien|lieber|passt mir)\b"
        ),
    ),
    ("hours", re.compile(r"\b(hours|open(ing)? times?|till|until) \w+|\b(open|close) at\b")),
)


def topics(text: str) -> frozenset[str]:
    """Which personal details ``text`` is about (email, phone, home, availability, hours), if any."""
    folded = text.casefold()
    return frozenset(name for name, pattern in _TOPICS if pattern.search(folded))


def read_caller(utterance: str) -> list[Statement]:
    """Every sentence of the caller's ``utterance``, each with its kind, in order."""
    out: list[Statement] = []
    for sentence in _sentences(utterance):
        out.extend(_read_sentence(sentence))
    return out


def caller_facts(utterance: str) -> list[Statement]:
    """The sentences of ``utterance`` that are facts about the caller (facts, corrections, requests)."""
    return [s for s in read_caller(utterance) if s.is_fact]


def is_filler(text: str) -> bool:
    """Whether ``text`` carries nothing: greetings, thanks, acknowledgements, hesitation."""
    return all(s.kind in ("greeting", "filler", "answer") for s in read_caller(text))


def agent_statement(text: str) -> str | None:
    """The agent's words worth keeping (as the agent's, never as the caller's), or None for filler."""
    cleaned = " ".join(text.split())
    if not cleaned or is_filler(cleaned):
        return None
    return cleaned


# -- reading -------------------------------------------------------------------------


def _sentences(text: str) -> list[str]:
    pieces = [m.group(0).strip() for m in _SENTENCE.finditer(text or "")]
    return [p for p in pieces if _TOKEN.search(p)]


def _fold(word: str) -> str:
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def _tokens(text: str) -> list[tuple[str, int, int]]:
    return [(_fold(m.group(0).lower().replace("’", "'")), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _read_sentence(sentence: str) -> list[Statement]:
    tokens = _tokens(sentence)
    start = _strip_opening(tokens)
    if start == len(tokens):
        return [Statement(sentence, _opening_kind(tokens))]
    body = sentence[tokens[start][1] :].strip()
    rest = tokens[start:]
    words = [t for t, _, _ in rest]
    split = _question_inside(words)
    if split is not None:
        head = body[: rest[split][1] - rest[0][1]].strip(" ,")
        tail = body[rest[split][1] - rest[0][1] :].strip()
        return [*_read_sentence(head), Statement(tail, "question")]
    if looks_like_instruction(body):
        return [Statement(body, "instruction")]
    return [Statement(body, _kind(body, words))]


def _strip_opening(tokens: list[tuple[str, int, int]]) -> int:
    """Index of the first token after greetings, fillers and a leading yes/no."""
    words = [t for t, _, _ in tokens]
    i = 0
    while i < len(words):
        for phrase in _GREETING:
            if tuple(words[i : i + len(phrase)]) == phrase and (phrase != ("there",) or i > 0):
                i += len(phrase)
                break
        else:
            if words[i] in _OPENING_FILLER and not _starts_clause(words, i):
                i += 1
                continue
            if words[i : i + 3] == ["let", "me", "see"] or words[i : i + 3] == ["let", "me", "think"]:
                i += 3
                continue
            break
    return i


_OPENING_FILLER = _bag(
    """
    ah alright also and anyway anyways awesome brilliant but cool er erm excellent fine good great hang
    hello hey hi hm hmm just listen look lovely mhm mm moment nah nice no nope now oh ok okay okey on
    one perfect please right sec second so sorry sure thanks then uh uhh um umm wait well wonderful
    yeah yep yes yup
    """
)


def _starts_clause(words: list[str], i: int) -> bool:
    # "no longer", "no wait", "right now", "well water": the word belongs to what follows.
    nxt = words[i + 1] if i + 1 < len(words) else ""
    word = words[i]
    if word == "no" and nxt in {"longer", "more", "wait", "pets", "one", "children", "kids"}:
        return True
    if word in {"on", "one", "just", "sorry", "then", "now"} and nxt and nxt not in _OPENING_FILLER:
        return word in {"on", "one", "just", "then", "now"} and i > 0 and words[i - 1] not in _OPENING_FILLER
    if word == "look" and nxt in {"for", "at", "into", "up", "after"}:
        return True
    return word == "please" and nxt in _REQUEST_VERBS


def _opening_kind(tokens: list[tuple[str, int, int]]) -> str:
    words = [t for t, _, _ in tokens]
    if any(w in {"yes", "yeah", "yep", "yup", "no", "nope", "nah", "sure", "please"} for w in words[:2]):
        return "answer"
    if any(tuple(words[: len(p)]) == p for p in _GREETING):
        return "greeting"
    return "filler"


def _question_inside(words: list[str]) -> int | None:
    """Where a question starts after a statement in an unpunctuated run, if it does."""
    if len(words) < 5 or _is_question(words):
        return None
    for j in range(2, len(words) - 1):
        word, nxt, prev = words[j], words[j + 1], words[j - 1]
        if prev in _SUBJECT or prev in _AUX or prev in {"to", "know", "wonder", "ask", "asking", "and", "or"}:
            continue
        after = words[j + 2] if j + 2 < len(words) else ""
        # "what is my", "when do you", "can you": a new question. "greyhounds who are
        # gentle", "the day when i": a relative clause, part of the statement.
        if word in {"which", "who", "whose", "whom"} and prev not in _STOP:
            continue  # "the washing machine which is a bosch": a relative clause
        asks = (word in _WH and nxt in _AUX and after in _SUBJECT) or (
            word in {"do", "does", "did", "can", "could", "would", "will", "is", "are"}
            and nxt in {"you", "i"}
        )
        if asks and _content(words[:j]) >= 2:
            return j
    return None


def _is_question(words: list[str]) -> bool:
    if not words:
        return False
    joined = " ".join(words)
    if _CLEFT.match(joined):
        return False
    first, second = words[0], words[1] if len(words) > 1 else ""
    if any(tuple(words[: len(p)]) == p for p in _ASKING_OPENERS):
        return True
    if first in _WH:
        return True
    if first in _AUX and (second in _SUBJECT or second.endswith("'s")):
        # "can you book thursday" is a request put politely, "can you tell me" asks.
        return not _polite_request(words)
    if first in _ASKING and second in {"me", "us"}:
        return True
    if first in {"any", "anything"} and not any(w in _STATING for w in words[1:]):
        return True  # "any food restrictions", "anything about my gate code": asked without a verb
    return first in {"remind", "tell"}


# Words that make "any ..." a statement: "any time after five works", "any day is fine".
_STATING = _bag(
    """
    works work is are suits suit would will fine ok okay good great does do can goes go 's i'm im
    """
)


def _polite_request(words: list[str]) -> bool:
    if words[0] not in _POLITE or len(words) < 3 or words[1] not in {"you", "we", "i", "u"}:
        return False
    verb_at = 2 + (words[2] in {"please", "just", "also"})
    return verb_at < len(words) and words[verb_at] in _REQUEST_VERBS


def _kind(text: str, words: list[str]) -> str:
    if text.rstrip().endswith("?") and not _polite_request(words):
        return "question"
    if _is_question(words):
        return "question"
    if _IT_IS_ME.match(" ".join(words)):
        return "greeting"
    content = _content(words)
    first_person = any(w in _FIRST_PERSON for w in words)
    has_value = any(any(c.isdigit() for c in w) for w in words)
    if content == 0 or (content == 1 and not first_person and not has_value):
        return _opening_kind([(w, 0, 0) for w in words]) if content == 0 else "filler"
    if _CORRECTION.search(" ".join(words)):
        return "correction"
    first = words[1] if words[0] in {"please", "kindly", "just", "also"} and len(words) > 1 else words[0]
    if first in _REQUEST_VERBS or _polite_request(words):
        return "request"
    return "fact"


def _content(words: list[str]) -> int:
    return sum(1 for w in words if w not in _STOP)
