"""The agent undertaking the action and asking for one of its values, and a reply that only answers.

"My parcel never came." / "I can arrange a redelivery. What day works best?" / "thursday": the
caller never says "redeliver", yet a person hearing the call knows they took the agent up on it.
An answer that gives exactly the value asked for, and nothing else, takes the undertaking up
(``trace.action.offer_answered``), as evidence to ask the caller on and never to act on alone: an
answer is no yes, and may only name what the agent asked about (the trace marks it untrusted,
and the caller's yes to the gate's question confirms it); anything more ("s5521, but i'd rather
have my money back", "maybe tomorrow, let me check first", another value of the kind) takes
nothing up and leaves the action to the caller's own words.

The undertaking must name the action: its own verb, a verb of its family, or a verb of its class
said of its thing or of "it" when the agent's words are close to it in meaning. "I can look into
the charge" or "I can check availability" undertakes another thing (a verb known to name another
action), and an answer to it asks for nothing. The agent's turn must end with its question for a
value, or open with the action as its purpose ("To reschedule your delivery, which day works
best?"); an undertaking with a closing question of yes or no ("Shall I book it?") is the plain
offer (``trace.action.offer``), which a yes takes up. Whether the caller raised the matter first
is the trace's to judge (:mod:`gate.evidence.trace`).

Pure functions of the texts and their readings; nothing here raises on odd text.
"""

from __future__ import annotations

import re

from gate import utterance
from gate.evidence import reading as rd
from gate.evidence import words
from gate.evidence.request import TraceRequest

# An agent's offer of the action must be at least this close to it in meaning, when it says the
# action with a verb of its class and not its own.
OFFER_ABOUT = 0.45
# The agent saying it can or will do something now: "I can move it", "I'll block your card",
# "happy to book that", "let me arrange a redelivery".
_UNDERTAKES = re.compile(
    r"\b(?:(?:i|we)\s*(?:can|could|will|shall|'ll|’ll|am able to|'m able to|"
    r"(?:would|'d|’d) be (?:happy|glad) to|(?:am|'m|’m|are|'re|’re) (?:happy|glad) to)|"
    r"(?:happy|glad) to|let me|let's|let’s)\s+"
    r"(?:(?:also|certainly|definitely|gladly|happily|just|now|quickly|then)\s+)?"
    r"(?P<verb>[a-z]+(?:\s+(?:up|out|in|off|through|over|round))?)\b",
    re.IGNORECASE,
)
# A question for a value, said last ("What day works best?", "How many people will there be?").
_ASKS_VALUE = re.compile(
    r"^\W*(?:and\s+|so\s+|also\s+|just\s+)?"
    r"(?:how (?:many|much|long|late|early)|what|which|when|where|who|whom)\b"
    r"|\b(?:could|can|would) you (?:tell|give|let) me (?:the|your|what|which|when|how)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
_WORD = re.compile(r"[a-zà-ÿ]+(?:['’][a-zà-ÿ]+)?")

# What an answer may say besides the value: the frame of an answer ("it's", "there'll be ... of
# us", "that works for me", "if you can"), politeness, and the parts of a day.
_ANSWER_FRAME = frozenset(
    {
        *(
            "it",
            "it's",
            "its",
            "that",
            "that's",
            "thats",
            "this",
            "is",
            "was",
            "be",
            "would",
            "will",
            "should",
        ),
        *("there", "there'll", "therell", "there's", "we'll", "we're", "we'd", "i'd", "i'll", "i'm", "im"),
        *("of", "us", "me", "for", "at", "on", "in", "the", "a", "an", "my", "our", "by", "about", "around"),
        *("if", "you", "can", "could", "possible", "works", "work", "suits", "suit", "best", "better"),
        *("good", "great", "fine", "perfect", "lovely", "ideal", "please", "thanks", "thank", "cheers"),
        *("just", "say", "make", "um", "uh", "er", "erm", "hmm", "oh", "ok", "okay", "yeah", "yes", "yep"),
        *("morning", "afternoon", "evening", "night", "am", "pm", "ends", "ending", "end", "number"),
        *("digits", "last", "people", "persons", "guests", "all", "together", "then", "do", "go", "one"),
    }
)


def undertakes(text: str, request: TraceRequest, about: float) -> bool:
    """Whether the agent's ``text`` says it can or will do the action, then asks for a value.

    ``about``: how close the agent's words are to the action in meaning (the reading's
    ``about``); a verb of the action's class, not its own or its family's, counts only when
    they are close (:data:`OFFER_ABOUT`) and it is said of the action's thing or of "it".
    """
    sentences = [s.strip() for s in _SENTENCE.findall(text) if s.strip()]
    if not sentences or _ASKS_VALUE.search(sentences[-1]) is None or not sentences[-1].endswith("?"):
        return False
    # "To reschedule your delivery, could you tell me which day works best?": the question's
    # purpose is the action
    if any(_purpose_is_action(s, request) for s in sentences):
        return True
    return any(_names_action(s, request, about) for s in sentences[:-1])


# A sentence opening with what it is for ("To reschedule your delivery, ...", "Sure, to move it").
_PURPOSE = re.compile(
    r"^\W*(?:(?:sure|ok|okay|of course|certainly|great|no problem|right|alright)\W+)*(?:in order\s+)?"
    r"to\s+(?P<verb>[a-z]+(?:\s+(?:up|out|in|off|through|over|round))?)\b",
    re.IGNORECASE,
)


def _purpose_is_action(sentence: str, request: TraceRequest) -> bool:
    """Whether the sentence opens with the action as its purpose, in its own verb or its family's."""
    wanted = rd.action_words(request)
    found = _PURPOSE.match(sentence.casefold())
    if not wanted or found is None:
        return False
    verb = rd.said_action_verb(sentence.casefold(), found.group("verb"))
    return not rd.known_other(verb, wanted) and rd.same_family(verb, wanted)


# Verbs that have a thing done ("get it shipped", "have it moved").
_CAUSING = frozenset({"get", "have"})
# Said after the undertaking, these make it wait on something or take part of it back ("I can
# refund your sister once she calls", "I could move it, but not this week"): no plain undertaking.
_HELD_BACK = re.compile(r"\b(?:but|if|unless|once|only|however|provided|after)\b")


def _names_action(sentence: str, request: TraceRequest, about: float) -> bool:
    wanted = rd.action_words(request)
    if not wanted:
        return False
    lowered = sentence.casefold()
    for m in _UNDERTAKES.finditer(lowered):
        verb = rd.said_action_verb(lowered, m.group("verb"))
        if rd.known_other(verb, wanted) or _HELD_BACK.search(lowered, m.end()):
            continue
        if rd.same_family(verb, wanted):
            return True
        # "let me get that shipped", "i'll have it moved": the action's verb done to its object
        if verb.split()[0] in _CAUSING and rd.shares_word(
            " ".join(lowered[m.end() :].split()[:4]), wanted[:1]
        ):
            return True
        mine, theirs = rd.action_class(request), words.VERB_CLASSES.get(verb.split()[0])
        after = rd.object_after(lowered, m.end("verb"))
        said_of = bool(after) and (
            rd.shares_word(" ".join(after), rd.query_thing(request)) or after[0] in ("it", "that", "this")
        )
        if about >= OFFER_ABOUT and theirs is not None and theirs == mine and said_of:
            return True
    return False


def answers_only(reply: rd.Reading, request: TraceRequest) -> bool:
    """Whether the caller's ``reply`` gives the request's own value for an argument and says
    nothing else: no other value of its kind, no no, no putting off, no question, no word
    outside an answer's frame (:data:`_ANSWER_FRAME`) and the argument's own label words."""
    s = reply.statement
    text = s.text
    if s.origin != "call" or s.speaker != "caller" or reply.refuses or reply.other_action:
        return False
    if reply.stance not in ("value", "request") or reply.denied:
        return False
    said = [x for name, xs in reply.values.items() for x in xs if request.spec(name) is not None]
    if not any(x.same and x.fits for x in said) or any(not x.same for x in said):
        return False
    if (
        utterance.says_no(text, request.lang)
        or utterance.is_question(text, request.lang)
        or utterance.defers(text)
        or utterance.conditional(text)
    ):
        return False
    rest = list(text)
    for x in said:
        rest[x.start : x.end] = " " * (x.end - x.start)
    labels = {w for x in said if (spec := request.spec(x.arg)) is not None for w in spec.cues}
    left = [w.replace("’", "'") for w in _WORD.findall("".join(rest).casefold())]
    return all(w in _ANSWER_FRAME or w in words.AGREEMENT or w in labels for w in left)
