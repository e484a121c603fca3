"""What the caller picks among the options the agent just put forward.

Two cases the value-by-value trace cannot see on its own:

- The agent names several people or places and asks which ("I see Maria Lopez and Mario Lopez.
  Did you mean Mario?"); the caller answers with one of the other names, in lower case and
  shorter ("yes mario"). :func:`other_name_picked` finds the word of another name the reply
  says: a yes beside it takes that name, not the request's value.
- The agent offers a choice of actions ("Would you like a refund of 30 pounds or a
  replacement?"); the caller takes the one that is not the request ("a replacement please").
  :func:`other_option_taken` finds it: the reply says words of another option and none of the
  action's.

Both read the agent's words as written (capitals mark names there) and the caller's in any case.
Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from gate import lang as lang_data
from gate.evidence import forms, words
from gate.evidence import reading as rd
from gate.evidence.request import TraceRequest

_TOKEN = re.compile(r"[^\W\d_][\w'’-]*")
# The words that lead into an offer or a reply to one and say nothing of which option is meant.
_LEAD_WORDS = frozenset(
    {
        "would", "you", "like", "want", "do", "does", "shall", "should", "i", "we", "can", "could",
        "prefer", "rather", "have", "get", "take", "me", "to", "us", "your", "offer", "either",
        "instead", "yes", "yeah", "yep", "no", "ok", "okay", "please", "thanks", "thank", "just",
        "go", "with", "one", "id", "i'd", "i'll", "ill", "let's", "lets", "sure", "then",
        "option", "choose", "pick", "will", "be", "fine", "great", "good", "that", "the", "a", "an",
        "or", "and", "for", "of", "it", "is", "are", "there", "which", "what", "mean", "did", "was",
    }
)  # fmt: skip
_OPTION_SPLIT = re.compile(r",\s*(?:or\s+)?|\s+or\s+", re.IGNORECASE)
_SENTENCES = re.compile(r"[^.?!]+[.?!]?")


def other_name_picked(reply: str, heard: str, value_words: Iterable[str], known: Iterable[str]) -> str | None:
    """The word of another name the agent's last words put forward that the reply says, if any.

    ``heard``: the agent's words just before the reply, as written. ``value_words``: the words
    of the request's value (their names are not another). ``known``: words the request itself
    says (its query, description and other values): not a name put forward as a choice. A name
    is a capitalised word the agent wrote inside a sentence (a sentence's first word is
    capitalised anyway), not a day, a month, a number or a word that stands beside names.
    """
    own = {w.casefold() for w in value_words}
    # words the agent also writes in lower case are common words ("the station ... Valley Station")
    lower = {w for w in _TOKEN.findall(heard) if w.islower()}
    skip = own | {w.casefold() for w in known} | lower | _moments()
    names: set[str] = set()
    for m in _TOKEN.finditer(heard):
        word = m.group()
        if len(word) < 3 or not word[:1].isupper():
            continue
        lead = heard[: m.start()].rstrip()
        if not lead or lead[-1] in '.!?:;"(':
            continue
        folded = word.casefold()
        if (
            folded in skip
            or folded in words.BESIDE_NAME
            or folded in _LEAD_WORDS
            or forms.mentions_in(word, None)
        ):
            continue
        names.add(folded)
    said = [w.casefold() for w in _TOKEN.findall(reply)]
    if any(w in own for w in said) or "?" in reply:
        return None
    # a reply that only picks: a yes or a no, and words of names the agent put forward
    picked = _things(reply)
    if not picked or len(picked) > 3 or not all(w in names for w in picked):
        return None
    return picked[0]


def other_option_taken(offer: str, reply: str, request: TraceRequest) -> bool:
    """Whether the agent's question offered the action beside something else and the reply takes
    the something else ("a refund of 30 pounds or a replacement?" ... "a replacement please").

    The options are the parts of the question's sentence split at its commas and "or". The action's
    option says the action's verb (or its noun); another option says things and no value (a choice
    of "the 7pm or the 8pm" is a choice of values, read elsewhere). The reply must say a word of
    another option and none of the action's option or of the action's own words.
    """
    wanted = rd.action_words(request)
    if not wanted:
        return False
    action = [wanted[0], *rd.query_thing(request)]
    sentences = _SENTENCES.findall(offer)
    for n, sentence in enumerate(sentences):
        # the options in a question, or said and then asked about ("I can refund the 40 dollars or
        # send a replacement. Which would you prefer?")
        asked = "?" in sentence or any("?" in later for later in sentences[n + 1 :])
        if not asked or not re.search(r"\bor\b", sentence, re.IGNORECASE):
            continue
        options = [o for o in _OPTION_SPLIT.split(sentence.strip(" ?")) if o.strip()]
        ours = [o for o in options if rd.shares_word(o, action[:1])]
        if any(_goes_on_how(o, action[0], request) for o in ours):
            continue  # "the refund to your card or your bank account?": the options are where it goes
        # "to your card or to your bank account?": where or how the action goes, no other option
        others = [o for o in options if o not in ours and _things(o) and not _says_how(o)]
        if not ours or not others or any(_gives_values(o, request) for o in others):
            continue
        said = set(_things(reply))
        if not said or rd.shares_word(reply, action):
            return False
        if said & {w for o in ours for w in _things(o)}:
            return False
        return any(said & set(_things(o)) for o in others)
    return False


_HOW = frozenset(
    {"to", "into", "onto", "for", "on", "at", "in", "by", "from", "with", "via", "through", "over"}
)


def _says_how(option: str) -> bool:
    """Whether the option opens with a preposition: it says where, when or how, not what."""
    said = [w for w in re.findall(r"[\w'’-]+", option.casefold()) if w not in _LEAD_WORDS or w in _HOW]
    return bool(said) and said[0] in _HOW


def _goes_on_how(option: str, verb: str, request: TraceRequest) -> bool:
    """Whether, after the action's word, the option says where or how with words that hold no
    value of the request ("the refund to your card"): a choice after it is of that, not of the
    action ("a refund for order B-5521 or ..." names the request's own value)."""
    folded = option.casefold()
    found = re.search(rf"\b{re.escape(verb[:5])}\w*", folded)
    if found is None:
        return False
    rest = option[found.end() :]
    for how in re.finditer(r"\b(\w+)\b", rest):
        if how.group(1).casefold() in _HOW:
            tail = rest[how.end() :]
            return not any(forms.value_spans(tail, spec, request) for spec in request.bound)
    return False


@lru_cache(maxsize=1)
def _moments() -> frozenset[str]:
    """Weekdays and months in every language gate reads: capitalised, but no names."""
    out: set[str] = set()
    for lang in lang_data.languages():
        out |= {str(w).casefold() for w in lang.table("weekdays")} | {
            str(w).casefold() for w in lang.table("months")
        }
    return frozenset(out)


def _things(text: str) -> list[str]:
    """The words of ``text`` that say what, not how it is asked."""
    return [w for w in rd.content_words(text) if w not in _LEAD_WORDS and len(w) > 2]


def _gives_values(text: str, request: TraceRequest) -> bool:
    return bool(forms.mentions_in(text, request.lang)) or any(
        forms.value_spans(text, spec, request) for spec in request.bound
    )
