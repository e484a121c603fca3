"""Is the caller's answer a plain yes?

Only the caller's own words can confirm an action, and only a plain yes
does: "yes, but make it Friday" changes the request, "wait" and "no"
withhold consent, and anything long enough to carry a new request is not
taken as consent to the old one. When in doubt the answer is not a yes,
and the agent asks again.
"""

from __future__ import annotations

import re
from typing import Literal

Answer = Literal["yes", "no", "unclear"]

_YES = re.compile(
    r"\b(yes|yeah|yep|yup|ya|sure|certainly|absolutely|definitely|correct|right|"
    r"ok|okay|confirm(ed)?|affirmative|agreed|please do|go ahead|do it|sounds good|"
    r"that'?s (right|correct|fine|it)|i do|perfect|great)\b"
)
_NO = re.compile(
    r"\b(no|nope|nah|not|don'?t|do not|never|stop|wait|hold on|hang on|cancel|"
    r"negative|wrong|incorrect|hmm+|uh+|um+|maybe|not sure|actually|rather)\b"
)
# Words that turn a yes into a different request.
_CHANGE = re.compile(
    r"\b(but|instead|except|change|make it|switch|different|other|another|only|"
    r"however|although|unless|if|or)\b"
)
_MAX_WORDS = 8


def classify_answer(words: str) -> Answer:
    """Classify an answer to a confirmation question as ``yes``, ``no`` or ``unclear``."""
    text = re.sub(r"[^\w' ]+", " ", words.casefold()).strip()
    if not text:
        return "unclear"
    if _NO.search(text):
        return "no"
    if not _YES.search(text):
        return "unclear"
    if _CHANGE.search(text) or re.search(r"\d", text):
        return "unclear"
    if len(text.split()) > _MAX_WORDS:
        return "unclear"
    return "yes"
