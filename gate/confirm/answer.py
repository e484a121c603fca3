"""What did the caller answer to the confirmation question?

Only a plain yes to the question that was put confirms an action. The answer is read in three
steps, deterministic and offline:

1. **Tokenise** (lower case, accents folded, "dont" read as "don't") and find the values in it
   (:mod:`gate.values`). A pending value is neutral ("yes, book it for 10 am" when 10:00 is
   pending; "Monday afternoon" when 14:00 is); any other value is new, even one the question
   offered as an alternative, and a new value makes the answer a change ("yes but Friday",
   "yes, 60 instead").
2. **Tag** words and phrases (longest phrase first) from a lexicon per language: affirmative,
   refusal, hesitation, self-correction, condition, question, deferral, sarcasm, words to
   someone else, change words, hedges, "but", politeness, fillers and ordinary function words.
   A word of the question itself ("cancel" to "cancel your visit?") is neutral, so "yes, cancel
   it" is a yes.
3. **Scope.** Negations bind into fixed phrases first: "no problem, go ahead", "not a problem",
   "why not" and "kein Problem" are not refusals; "not yet", "no, wait", "I don't think so" are
   not a yes. An auxiliary that opens a clause with a subject after it ("does that include
   tax", "can you", "ist das") is a question.

The verdict, most cautious first: sarcasm, words to someone else, a condition, a question ->
``unclear``; a new value or a change word -> ``change``; a refusal -> ``no`` (a yes corrected to
no, "yes... actually no", is ``no``; a no corrected to yes is ``unclear``; a yes followed by a
withdrawing verb the question did not use, "yes, cancel it" to "book Friday?", is ``unclear``,
as is the same answer when no question is given); self-correction,
hesitation, deferral, hedging, a trailing "but", no affirmative at all, or a word the lexicon
does not know and the question does not contain -> ``unclear``. Only what is left is ``yes``;
without a yes word, only the question's own verb said back with its object and nothing else
("cancel it" to "cancel your visit?", "annulez-le", "stornieren Sie ihn") is a yes.
Thanks and politeness are neutral at any length.

Languages: English, Spanish, French, German. ``lang`` is the caller's language (from the policy or
the session); English is always read as well, because callers mix ("ok, adelante"). With
``lang="en"`` only English is read: a "sí" in an English session is ``unclear``.

Decisions and limits, stated so a reviewer can check them:

- Sarcasm cannot be heard in a transcript. Fixed sarcastic forms are not a yes: "yeah right",
  "as if", "whatever", "sure whatever you say", "yeah yeah", "oh sure", "ouais c'est ça",
  "mais bien sûr", "ja ja", "lo que tú digas", "como quieras". "Sí, claro", "ja klar" and
  "yeah sure" are read as sincere.
- Spanish "si" written without its accent is "if" unless it stands alone, is repeated, follows
  "que" ("claro que si"), or is followed only by other affirmative or polite words ("si por
  favor", "si adelante"); "si" followed by anything else is a condition. French "si" is a yes
  only when it stands alone or with polite words.
- Vocatives are read as words to someone else ("yes sweetie", "hang on kids", "oui chéri"),
  including to the agent: a caller who calls the agent "honey" is asked again.
- Names and other words the lexicon does not know make the answer ``unclear`` ("yes, this is
  Maria"), so a long answer is a yes only when every word in it is accounted for.
- A speaker who introduces themselves by a name the question gives ("Priya here, yes add me",
  "this is Jamie", "c'est Julie, oui", "hier ist Lena, ja") is that person, not the caller:
  ``unclear``.
- A bare hour said with a pending time is read as that time in either half of the day ("yes,
  at seven" for 19:00).
- Acceptances that are also polite refusals ("all good, thanks", "that's ok thanks", "it's fine",
  "should be fine", "ça va, merci", "passt schon") are a yes only beside a plain one ("yes,
  all good"); "we're fine", "it's fine as it is" are a no. Modal hedges ("could do", "might
  be ok") are ``unclear``.
- A caller who will do it themselves, or says it is done ("I can book it online", "already
  done", "la cancelo yo", "mache ich selbst") is not asking the agent to act: ``unclear`` ("I'll
  do it myself" is a no).
- A currency or unit the question did not name is a new value ("yes, 85 euros" to "85
  dollars?", "yes 85 percent"). "Both" and "all of them" are the question's items when it names
  several, a change otherwise; so is a new beneficiary ("for her").
- A yes for someone the question did not name ("send it to her", "enrol us"), for more than it
  named ("cancel the lot", "everything"), or for a time or scope it did not give ("for good",
  "just this month" unless the question says so; "right away" when it fixed a day or time) is a
  change.
- A yes to one of two things the question puts together ("yes, the gym" to "cancel your gym
  membership and your magazine subscription?") is a change; a yes that answers another question
  ("yes, that was me", "yes, it's mine", "yes, I got the label", "yes, I can hear you", "ja, ich
  bin der Vertragsinhaber") is ``unclear``, and so is the question read back in the agent's own
  person ("900 to X-77, shall I, yes", "le transfiero quinientos, sí", "je fasse un virement").
- An auxiliary after thanks opens a question ("yes thanks, is that it"), as does a final tag
  ("..., is it", "that's for two, right").
- After a yes, a negation inside a statement with its own subject ("yes, the parcel never
  arrived", "yes, I don't use it") and a change word inside a reason ("yes, it's too
  expensive") are not read as a refusal or a change: ``unclear``.
- A reason the caller cannot come or no longer needs it ("yes, I can't make it", "oui, j'ai
  un empêchement") agrees with a question that withdraws something (cancel, stop, close) and is
  a yes there; to any other question ("book Tuesday?") it withdraws: ``unclear`` after a yes,
  ``no`` on its own. "Because" and its kin are neutral; the reason's own words still count.
- A plain reason after a yes is a yes ("yes please, I need it for a wedding", "yes, we ran out
  last night", "sí, que se nos ha acabado"): right after the yes (and thanks or fillers), the
  caller as its subject ("I", "we", "my", perhaps after "because"; "he" or "she" when the question
  names that person), at most seven words the lexicon does not know, and none that could name
  another person, a wish or choice, a change, a time to come, money, something done already or by
  the caller, a reply to another question, or irony. "Yes, the large one is fine" and "yes, it's
  for the new flat" stay ``unclear``, and so does who the caller is ("yes, I'm the tenant"); a new
  value inside such a reason ("yes, I finish work at six") is ``unclear``, not a change. "Why
  not?" and "¿por qué no?" are a yes.
- Values said another way are the pending values: a day of the month alone ("the 16th", "the
  sixteenth", "el dieciséis", "am sechzehnten") is that day of a pending date or a pending
  day-of-month number; a weekday is a pending date that falls on it; a time said as two numbers
  ("two forty five", "nine 15", "2.45") or as "ten to seven", "half eight" (British, 8:30),
  "dreiviertel drei" is that time; an amount said as two numbers ("three twenty" for 320, "six
  fifty" for 6.50 or 650) is that amount; digits one by one ("five oh nine one seven") and a
  number with a letter ("twenty two f") are that reading or seat; "mon wed fri" are pending
  days. Said of anything else they are new values. A list of pending values of one kind
  ("every Monday and Wednesday") is agreed to whole or with "both"; some of it ("yes, just
  Mondays") is a change.
- Verbs of one family restate each other ("stop it" or "take it off" to "cancel your plan?",
  "sign me up" or "put me down for it" to "enrol you?", "put it up" to "increase your limit?"),
  and a verb's particle goes with it ("set it up"). A question about the caller ("enrol you")
  with the same verb about someone else ("enrol them", "pídale una a él") is a change; a question
  that names a person ("add your daughter as a driver?") makes "add her" that person.
- Regional yeses are read: "sound", "work away", "too easy", "good as gold", "haan", "theek
  hai", "do the needful", "passt scho", "porfa"; "ta" is thanks ("brilliant, ta" is a yes, "ok
  ta" is as soft as "ok thanks").
- "Yeah yeah, book it", "yeah yeah, that's fine" and "sure sure, order them" (a doubled yes before
  the question's own verb, a longer yes or the pending value) are a yes; "yeah yeah" alone or
  with "sure" is sarcasm, and so is a "because" that praises the thing itself
  after a yes ("yeah, because that always works"). "Leave it with next door" says where, not
  "leave it be".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Literal

from gate.values import (
    CURRENCY_NAMES,
    Mention,
    Value,
    currencies,
    currency_of,
    find_mentions,
    locate,
    normalise,
)

__all__ = ["Answer", "AnswerReading", "classify_answer", "read_answer"]

Answer = Literal["yes", "no", "change", "unclear"]


@dataclass(frozen=True)
class AnswerReading:
    """The verdict and one short phrase saying why (for the audit trace)."""

    answer: Answer
    reason: str


# ---------------------------------------------------------------------------------------------
# Lexicon: tag -> phrases ("|" between phrases, spaces inside a phrase). Accents are folded at
# build time, so "sí" and "si" are one key: the accent matters only for "si" (see _read).
# ---------------------------------------------------------------------------------------------

AFF, NEG, NEUT, HES, CORR, COND, QUEST, QAUX, DEFER, SARC, ELSE, CHANGE, BUT, HEDGE = (
    "aff", "neg", "neut", "hes", "corr", "cond", "quest", "qaux", "defer", "sarc", "else", "change",
    "but", "hedge",
)  # fmt: skip
# A verb that withdraws the request unless the question itself used it ("cancel" to "book?").
NEGVERB = "negverb"
# A new time said in words ("tomorrow", "next week"): a change unless the question has it.
NEWTIME = "newtime"
# The caller cannot come or no longer needs it ("I can't make it"): a reason that agrees with a
# question that withdraws ("cancel your visit?"), and withdraws from any other ("book Friday?").
UNABLE = "unable"
# An acceptance that is also how callers turn an offer down ("all good, thanks", "that's ok
# thanks", "should be fine", "passt schon"): a yes only beside a plain one ("yes, all good").
SOFT = "soft"
# The caller will do it themselves, or it is done already ("I'll cancel it myself", "I can
# book it", "already done"): the agent is not asked to act.
SELF = "self"
# Both, all of them: the question's items when it names several, more than it asked otherwise.
WIDE = "wide"
# Someone else as the one it is for, or whose it is ("send it to her", "enrol us"): a change
# unless the question names them.
OTHER = "other"
# "now", "for good", "this month": a change when the question fixes a day, date or time.
WHEN = "when"
# "just this month", "only once": a narrower scope, a change unless the question says so.
SCOPE = "scope"

_LEXICON: dict[str, dict[str, str]] = {
    "en": {
        SARC: "as if|yeah right|yea right|ya right|yeah riiight|right sure|sure sure|whatever|"
        "whatever you say|sure whatever|oh sure|oh great|yeah yeah|like that's going to happen|"
        "just great|just perfect|just brilliant|just wonderful|just fantastic|just lovely|"
        "just what i needed|that'll be right|oh yeah sure|oh yeah right|sure you will|sure you do|"
        "sure you are|yeah sure you will|aye right|aye sure|yeah i bet|i bet|yeah that'll happen|"
        "that'll happen|right right|that will be right|aye that will be right|i will yeah|you will yeah|"
        "never better|just what i wanted|"
        "like that'll happen|in your dreams|dream on|sure buddy|sure pal|yeah sure thing buddy|big surprise",
        ELSE: "be right with you|i'll be right with you|be with you in a minute|be with you in a sec|"
        "be with you in a second|be with you shortly|you can go now|go and play|go play|off you go|"
        "sweetie|sweetheart|honey|hon|darling|babe|baby|kids|kiddo|guys|mom|mum|mommy|mummy|"
        "dad|daddy|grandma|grandpa|granny|dinner|lunch|breakfast|dinner's|supper|stop that|"
        "put that down|come here|go to bed|be quiet|i'm on the phone|on the phone|brush your teeth|"
        "homework|i'm coming|be right there|dear|good boy|good girl|stop it now",
        NEUT: "no problem|not a problem|no problems|no problemo|no worries|no worry|no prob|no probs|"
        "no bother|not a bother|nae bother|no bother at all|not a bother at all|no bother whatsoever|"
        "no dramas|no drama|ta|cheers ta|that helps a lot|that helps|that'd help|kindly|"
        "don't worry|do not worry|don't worry about it|no doubt|no doubt about it|no question|"
        "nothing else|no rush|no hurry|no big deal|not a big deal|never better|can't wait|"
        "i can't wait|couldn't be better|that's all|that is all|that's everything|"
        # politeness
        "please|thanks|thank you|thank you so much|thanks so much|thanks a lot|thank you very much|"
        "ever so much|thanks ever so much|thank you ever so much|so very much|"
        "thanks very much|thanks a million|many thanks|much appreciated|appreciate it|"
        "i appreciate it|i really appreciate it|i appreciate that|i appreciate your help|cheers|"
        "for your help|for helping|for helping me|for the help|for everything|for all your help|"
        "for your help today|for all your help today|for helping me today|you've been|you have been|"
        "you've been great|you've been very helpful|you've been so helpful|very helpful|so helpful|"
        "really helpful|a great help|such a help|so kind|very kind|that's kind|that's very kind|"
        "too kind|you're very kind|you're a star|have a nice day|have a good day|have a great day|"
        "take care|sir|ma'am|madam|mate|my friend|that's great|that's lovely|"
        "that's wonderful|that's brilliant|that's amazing|"
        # fillers
        "um|umm|uh|uhh|er|erm|ah|ahh|oh|well|so|like|okay so|alright so|eh|"
        # function words and ordinary verbs of going ahead
        "i|i'm|i'd|i'll|i've|me|my|mine|myself|you|your|you're|yours|we|we're|us|our|it|it's|its|"
        "that|that's|this|these|those|them|they|the|a|an|to|for|of|on|in|at|by|with|from|and|then|"
        "now|just|very|really|much|all|right now|right away|straight away|asap|"
        "as soon as possible|be|been|is|are|was|will|would|can|could|should|shall|do|does|did|"
        "go|get|got|have|has|had|make|let|let's|want|wanted|need|needed|like|love|would like|"
        "through|with it|on it|that one|this one|the one|same|as planned|as discussed|as you said|"
        "as agreed|like you said|what you said|what i said|that's everything|all good|all set|"
        "good|nice|it is|that is|proceed|process|send|book|reserve|schedule|set|put|place|submit|"
        "complete|finish|finalize|finalise|apply|run|handle|arrange|sort|sort it out|carry on|"
        "get it done|get that done|go through|pay|charge|please proceed|yes|yeah|here|there|"
        "one more time|thing|things|stuff|happen|already|here we go|mind|also fine|lot|so much|"
        "indeed|course|ahead|fine|okay|ok|works|work|suits|suit|that suits me|new|one|ones|"
        "the money|money|funds|it out|all of that|he|she|"
        "if that's ok|if that's okay|if that's alright|if that's all right|if that's fine|"
        "if you don't mind|if that works|"
        "what i want|what i need|what i wanted|what i asked for|for sorting this out|"
        "for sorting that out|for sorting it out|for arranging this|for arranging that|"
        "for your time|for your patience|for that|for this|"
        "get rid of it|get rid of that|because|cause|'cause|cuz|coz|since|"
        "sadly|unfortunately|i'm afraid so|afraid so|sensible|reasonable|manageable|ideal|handy|"
        "helpful|a massive help|a big help|a huge help|massive help|big help|huge help|"
        "a lifesaver|fair enough|makes sense|that makes sense|next door|as always|as usual|"
        "the usual|same as always|same as usual|till|until|til|people|persons|guests|adults|seats|"
        "tickets|personas|personnes|personen|days|nights",
        AFF: "yes|yeah|yea|yep|yup|ya|yah|yas|yes yes|sure|please|sure thing|ok|okay|o k|k|kay|alright|"
        "sound|that's sound|work away|fire ahead|fire away|too easy|too right|good as gold|heaps good|"
        "happy with that|i'm happy with that|haan|haan ji|theek hai|thik hai|do the needful|kindly proceed|"
        "please do the needful|"
        "not a bad idea|nothing wrong with that|no reason not to|i don't see any problem with that|"
        "i don't see a problem with that|i see no problem with that|that'll do nicely|"
        "all right|right|correct|that's correct|that is correct|that's right|that is right|"
        "absolutely|definitely|certainly|of course|please do|go ahead|go ahead please|go for it|"
        "do it|do that|do so|you bet|sounds good|sounds great|sounds perfect|that sounds good|"
        "that works|works for me|fine by me|fine with me|that's fine|fine|perfect|great|exactly|"
        "precisely|affirmative|confirm|confirmed|i confirm|agreed|i agree|mm hmm|mhm|mmhm|mm hm|"
        "uh huh|um hmm|uh hum|yes please|by all means|make it so|let's do it|let's do that|"
        "let's go|go on|you can|you may|that's it|that's what i want|that's what i asked for|"
        "that's what i wanted|that's the one|i do|i would|i'd like that|i want that|why not|"
        "i don't see why not|don't see why not|i don't mind|no objection|no objections|"
        "that'd be great|that would be great|that would be perfect|that'd be perfect|would be great|"
        "would be lovely|would be nice|would be perfect|that would be lovely|lovely|wonderful|"
        "excellent|awesome|cool|brilliant|done|deal|it's a deal|yes sir|yes ma'am|yessir|aye|"
        "totally|for sure|you got it|right on|will do|can do|please go ahead|yes go ahead|"
        "that'll do|proceed|please proceed|make it happen|i'd appreciate that|i would appreciate that|"
        "yes i do|yes it is|it is|correct yes|good to go|that works for me|perfecto|ok then|oh yes|"
        "i'll take it|i'll take them|i'll take that|i'll have it|i'll have that|crack on|crack on with it|"
        "lock it in|lock that in|get it done|bang it through|"
        "oh yeah|yes i'm positive|i'm positive|spot on|righto|okey dokey|okie dokie|most definitely|"
        "i'm sure|i am sure|yes i'm sure|i'm certain|quite sure|roger|roger that|copy that|fantastic|"
        "terrific|superb|marvellous|marvelous|splendid|fab|sweet|nice one|smashing|grand|ace|"
        "sounds like a plan|go right ahead|i'd love that|i would love that|that'd be lovely|"
        "please and thank you|do go ahead|yes carry on|carry on|that's what i need|"
        "that is what i want|that is what i need|exactly what i want|exactly what i need|"
        "exactly what i wanted|just what i need|just what i wanted|that's exactly it",
        NEG: "no|nope|nah|naw|no no|negative|no thanks|no thank you|not really|absolutely not|"
        "definitely not|certainly not|of course not|no way|don't|do not|don't do it|don't do that|"
        "please don't|never|never mind|nevermind|forget it|forget about it|i don't think so|"
        "not now|not today|rather not|i'd rather not|i would rather not|i'd prefer not|"
        "i prefer not|leave it|leave it as it is|don't bother|no need|not necessary|"
        "that's not necessary|that's wrong|wrong|incorrect|that's not right|that's not what i said|"
        "not what i asked|not what i asked for|uh uh|nuh uh|i changed my mind|changed my mind|"
        "i don't want|i do not want|i don't want that|not interested|i'm not interested|pass|"
        "i'll pass|skip it|hell no|no sir|no ma'am|not|n't|nothing|none|i won't|won't|not that|"
        "i'm good|i'm ok|i'm okay|i'm fine|we're good|keep it|wait no|actually no|sorry no|oh no|"
        "we're fine|were fine|we are fine|we're ok|we're okay|were good|were ok|i'm alright|"
        "we're alright|i'm all good|we're all good|were all good|we are all good|i'm all set|"
        "we're all set|as it is|as is|fine as it is|fine as is|ok as it is|good as it is|"
        "i'll sort it myself|i'll sort it|i'll book it myself|i'll pay it myself|"
        "i'll do it|i'll do it myself|i'll do that myself|i'll handle it|i'll take care of it|"
        "no actually",
        NEGVERB: "cancel|cancel that|cancel it|stop|stop it|stop that|don't proceed|abort|halt|"
        "call it off|call off",
        UNABLE: "can't make it|cannot make it|can not make it|won't make it|couldn't make it|"
        "won't be able to make it|not able to make it|unable to make it|not going to make it|"
        "can't come|cannot come|won't be able to come|can't be there|won't be there|"
        "can't go|cannot go|can't attend|cannot attend|unable to attend|something came up|"
        "something's come up|don't need it anymore|don't need it any more|no longer need it|"
        "don't need it|don't need that anymore|no longer need that|i won't make it|i won't be there|"
        "i won't be able to make it|i won't be able to come|i can't make it|i can't come|i can't go|"
        "i can't be there|i cannot make it|i cannot come|i don't need it|i don't need it anymore|"
        "i don't need it any more|i don't need that anymore",
        SOFT: "all good|all good thanks|all good thank you|that's ok thanks|that's ok thank you|"
        "that's okay thanks|that's okay thank you|that's alright thanks|that's alright thank you|"
        "that's all right thanks|that's all right thank you|it's ok thanks|it's okay thanks|"
        "it's fine|it's fine thanks|it's fine thank you|it's alright|it's all right|that's ok|"
        "that's okay|that's alright|that's all right|ok thanks|okay thanks|ok thank you|"
        "okay thank you|don't worry|don't worry about it|do not worry about it|no worries|"
        "should be|should be fine|should be ok|should be okay|should be good|should work|"
        "would be ok|that should work|that should be fine|i'd say so|i would say so|all done|"
        "it's all done|that's all done|all done then|"
        # sign-offs
        "bye|bye bye|goodbye|thanks bye|thx|pls|k thx|ok ta|okay ta|that's ok ta|all good ta|it's fine ta",
        SELF: "myself|ourselves|by ourselves|on our own|i'll do it myself|by myself|on my own|i've got it|"
        "i got it|i've got this|"
        "i got this|already|already done|it's already done|that's already done|done already|"
        "i already did|i've already done it|i did it already|i'll sort it out myself",
        HES: "wait|wait a second|wait a minute|wait wait|hold on|hold up|hang on|hmm|hm|hmmm|mmm|"
        "let me think|let me think about it|i need to think|i need to think about it|"
        "i'll think about it|not sure|i'm not sure|im not sure|unsure|i don't know|dunno|i dunno|"
        "let me see|let's see|um wait|uh wait|hmm okay|huh|sorry what",
        CORR: "actually|on second thought|on second thoughts|come to think of it|scratch that|"
        "no wait|i mean|sorry i mean|or rather|correction|oops|my mistake",
        COND: "if|only if|provided|providing|provided that|as long as|so long as|assuming|"
        "on condition|on the condition|unless|when|once|as soon as|but only|only when|in case|"
        "if you can|if possible|if it's|if that's|given that|subject to",
        QUEST: "how|what|where|why|which|who|whose|what's|how's|how much|how long|how many|"
        "you sure|u sure|you certain|really|is that right|is that it|"
        "quick question|one question|i have a question|can i ask|question|wait what|what was that",
        QAUX: "does|do|did|is|are|was|were|can|could|will|would|should|shall|has|have|may|might|"
        "isn't|aren't|doesn't|won't|wouldn't|can't|didn't",
        DEFER: "one moment|one sec|one second|one minute|a moment|a sec|a second|a minute|"
        "just a moment|just a sec|just a second|just a minute|give me a moment|give me a second|"
        "give me a minute|give me a sec|let me check|let me ask|let me find|let me get|let me grab|"
        "let me look|let me just|let me double check|let me confirm|i need to check|i have to check|"
        "i need to ask|i have to ask|i'll need to|i need to|i have to|i've got to|i gotta|first|"
        "check with|ask my|talk to my|speak to my|speak with|while i|later|not yet|in a minute|"
        "in a bit|in a moment|hang on while|i'll call back|call me back|call you back|not just yet|"
        "not quite yet|not yet please|not right this minute|"
        "i'll get back to you|get back to you|minutes|seconds|secs|moment|let me",
        NEWTIME: "tomorrow|day after tomorrow|next week|next month|tonight|this weekend|weekend|"
        "morning|afternoon|evening|today|yesterday|next time",
        CHANGE: "instead|rather than|make it|change it|change that|change to|change|switch|"
        "switch it|switch to|move it|move it to|move|different|another|other|except|only|also|"
        "as well|too|plus|and also|add|remove|more|less|fewer|lower|higher|smaller|bigger|"
        "earlier|next|half|double|twice|split|partial|part of|some of|not all|rather|prefer|"
        "i'd prefer|i prefer|i'd rather|i would rather|i'd like it|can we do|could we do|"
        "how about|what about|let's make it|go with|i'll take|wrong day|wrong amount|not the|"
        "lets make it|rather have|update|adjust|reduce|increase|extra|for him|for her|for them|"
        "for us all|for everyone|for good|from now on|forever|permanently|just the one|only the one|"
        "just one|only one",
        WIDE: "both|do both|both of them|for both|for both of them|all of them|for all of them|"
        "all three|all four|all of it|each of them|every one of them|the whole lot|the lot|them all|"
        "everything|the whole thing|all the nights|all the days|all of the",
        OTHER: "him|her|us|his|their|to work|at work|to my work|to the office|to my office|"
        "let her do it|let him do it|let them do it|me and her|me and him",
        WHEN: "now|right now|just now|right away|straight away|immediately|asap|as soon as possible",
        SCOPE: "this month|just this month|for this month|only this month|this week|just this week|"
        "this year|just once|only once|one time|just the once|one off|a one off",
        BUT: "but|though|although|however|except that|only thing|one thing|just one thing|still|yet",
        HEDGE: "maybe|perhaps|probably|possibly|i guess|i guess so|guess so|i suppose|i suppose so|"
        "i can hear you|i hear you|i'm the|i am the|i got that|got that|i've got that|i'm with you|"
        "a problem|a small problem|one problem|an issue|one issue|a question|one question|"
        "a quick question|"
        "i am with you|i follow you|i'm following|i understand|i'm listening|i'm still here|i'm here|"
        "i think so|i believe so|kind of|sort of|kinda|sorta|not really sure|if you say so|"
        "if you think so|if you must|might as well|i think|i think yes|yes and no|not at all|"
        "could be|sounds okay i guess|fine i guess|ok i guess|okay i guess|yes i guess|i reckon|"
        "sure i guess|i hope so|hopefully|for now|for the moment|for the time being|for today|"
        "could do|should do|might be|might be ok|might be fine|might do|may be|i could|i might|"
        "oh right|all good thanks|all good thank you|all good cheers|i'm not against it|not against it|"
        "i wouldn't say no|wouldn't say no|i'm not saying no|not saying no|nothing against it|"
        "i have nothing against it|i don't have a problem with that|don't have a problem with that|"
        "no i don't have a problem with that|no problem with that|no issues|no issue|not a no|"
        # A yes that answers another question: who it is, whose it is, what arrived.
        "that was me|it was me|that's me|it's me|that is me|it is me|that's mine|that was mine|"
        "it's mine|it was mine|that is mine|that's him|that's her|that's them|that's us|that's my|"
        "that was my|it's my|that is my|i got the|i've got the|i got your|i received the|"
        "i received your|i've received|is mine|are mine|was mine|were mine|is ours|was ours",
    },
    "es": {
        SARC: "si ya ya|ya ya|si hombre|ya claro|como quieras|lo que tu digas|lo que usted diga|lo que digas|"
        "ya seguro|ni en suenos|aja si|si si ya|lo que sea|si como no|ay si|que va",
        ELSE: "carino|mi amor|amor|mi vida|ninos|ninas|hijo|hija|mija|mijo|mama|papa|cielo|"
        "corazon|la cena|la comida|ya voy|estoy al telefono|estoy hablando por telefono|perro|"
        "abuela|abuelo|chicos|chicas|mi rey|mi reina|gordo|gorda|nena|nene",
        NEUT: "no hay problema|no hay de que|sin problema|sin problemas|ningun problema|porque|ya que|"
        "no te preocupes|no se preocupe|no pasa nada|no faltaba mas|me viene bien|me viene genial|"
        "me va bien|me viene perfecto|razonable|ideal|por desgracia|desgraciadamente|"
        "lamentablemente|que remedio|que le vamos a hacer|"
        "por favor|gracias|muchas gracias|mil gracias|muy amable|muchisimas gracias|"
        "se lo agradezco|te lo agradezco|le agradezco|gracias por su ayuda|gracias por tu ayuda|"
        "por su ayuda|por tu ayuda|que tenga buen dia|que tenga un buen dia|buen dia|hasta luego|"
        "adios|senor|senora|senorita|joven|amigo|amiga|muy amable de su parte|es usted muy amable|"
        "eh|este|pues|bueno|mmm si|o sea si|ah|oh|"
        "yo|me|mi|lo|la|le|los|las|el|eso|esto|ese|esa|de|del|a|al|en|con|para|por|que|y|ya|"
        "ahora|ahora mismo|es|esta|todo|bien|muy|asi|quiero|quisiera|favor|usted|tu|te|se|"
        "hazlo|hagalo|haga|haz|procede|proceda|envia|envialo|enviela|envielo|manda|mandalo|reserva|"
        "reservalo|confirma|confirmalo|sigue|siga|continua|continue|hacerlo|procesa|procesalo|"
        "tramita|tramitalo|realiza|paga|pagalo|nomas|entonces|eso mismo|lo mismo|todo bien|"
        "de inmediato|enseguida|cuanto antes|mismo|gusto|un placer|"
        "el dinero|dinero",
        SOFT: "asi esta bien|esta bien asi|asi vale|asi bien|puede que|puede que si|deberia estar bien|"
        "no se preocupe|no te preocupes",
        SELF: "yo mismo|yo misma|lo hago yo|la hago yo|lo hago yo mismo|yo me encargo|me encargo yo|"
        "ya esta hecho|ya lo hice|ya lo he hecho|la cancelo yo|lo cancelo yo|lo pago yo|lo reservo yo",
        AFF: "claro|claro que si|por supuesto|desde luego|adelante|vale|de acuerdo|dale|correcto|"
        "no me importa|no veo por que no|eso mismo|porfa|porfis|"
        "exacto|exactamente|perfecto|hazlo|procede|proceda|confirmo|confirmado|esta bien|sale|"
        "orale|venga|eso es|asi es|como no|sin duda|afirmativo|okey|ok|okay|ándale|andale|va|"
        "vamos|genial|excelente|estupendo|muy bien|me parece bien|me parece perfecto|esta perfecto|"
        "de una|hagalo|con gusto|encantado|encantada|si quiero|lo quiero|justo|justamente|"
        "por que no|porque no|si por favor|claro que si por favor|si señor|si senor|si senora|"
        "de acuerdo adelante|eso|listo|me parece|hecho|trato hecho|por supuesto que si|"
        "hagale|dele|si claro|si exacto|si correcto|perfecto gracias|bien hecho|me sirve|sirve|"
        "estoy seguro|estoy segura|seguro|segura",
        NEG: "no|no gracias|para nada|de ninguna manera|ni hablar|mejor no|olvidalo|olvidelo|dejalo|"
        "dejelo|no lo hagas|no lo haga|no quiero|no lo quiero|nunca|jamas|claro que no|"
        "por supuesto que no|tampoco|nada|no me interesa|negativo|no creo|creo que no|no senor|"
        "nel|nop|no no|de ningun modo|ni loco|ni loca|no es correcto|esta mal|incorrecto|"
        "cambie de opinion|cambie de idea|he cambiado de opinion|bueno no|ay no|ah no|pues no|"
        "mejor que no|en realidad no|estoy bien|estamos bien|estoy bien gracias|estamos bien gracias",
        NEGVERB: "cancela|cancelar|cancelalo|cancelelo|anula|anular|para|detente|alto",
        UNABLE: "no puedo ir|no podre ir|no voy a poder ir|no puedo asistir|no podre asistir|"
        "no puedo venir|no podre venir|no voy a poder|me surgio algo|me ha surgido algo|"
        "tengo un imprevisto|ya no lo necesito|ya no la necesito|ya no me hace falta",
        HES: "espera|espere|esperate|espereme|un segundo|momento|dejame pensar|dejeme pensar|no se|"
        "no estoy seguro|no estoy segura|a ver|mmm|hmm|este este|pues no se|uy|eh espera",
        CORR: "en realidad|pensandolo bien|mejor dicho|digo|perdon|es decir|o mejor|no espera",
        COND: "si|siempre que|siempre y cuando|con tal de que|con tal que|mientras|"
        "a condicion de que|solo si|cuando|en cuanto|una vez que|si es que|en caso de que",
        QUEST: "cuanto|cuanta|cuantos|cuantas|cuando|donde|cual|cuales|quien|por que|pregunta|"
        "una pregunta|tengo una pregunta",
        QAUX: "incluye|cuesta|tarda|puedo|puede|podria|hay|llega|sera",
        DEFER: "un momento|un segundo|un minuto|un momentito|un ratito|un rato|dejame|dejeme|primero|"
        "antes|luego|despues|mas tarde|tengo que|necesito|voy a preguntar|consultar|consulto|"
        "pregunto|todavia no|aun no|ahorita no|ahora no|mientras busco|busco|te llamo|le llamo|"
        "minutos|segundos|momentito|deme|dame",
        NEWTIME: "manana|pasado manana|la proxima semana|la semana que viene|esta noche|"
        "el fin de semana|fin de semana|hoy|tarde|temprano",
        CHANGE: "en su lugar|en vez|en lugar|mejor|cambia|cambie|cambiar|cambialo|mueve|mover|"
        "mueva|otro|otra|otros|diferente|solo|solamente|tambien|ademas|mas|menos|prefiero|"
        "preferiria|que tal|y si|mitad|la mitad|aumenta|reduce|sino|para ella|para ellos",
        WIDE: "los dos|las dos|ambos|ambas|todos|todas|a todos|todo",
        BUT: "pero|aunque|sin embargo|excepto|salvo|eso si",
        HEDGE: "tal vez|quizas|quiza|a lo mejor|supongo|supongo que si|creo que si|puede ser|"
        "soy el|soy la|soy yo|le oigo|la oigo|te oigo|le escucho|la escucho|te escucho|"
        "probablemente|igual|mas o menos|si tu lo dices|si usted lo dice|creo|pienso que si|"
        "no estoy muy seguro|si y no|ojala|por ahora|por el momento|de momento|no tengo nada en contra|"
        "nada en contra|no digo que no",
        WHEN: "ahora|ahora mismo|ya mismo|enseguida|para siempre|este mes",
    },
    "fr": {
        SARC: "mais oui c'est ca|c'est ca oui|ouais c'est ca|c'est ca ouais|mon oeil|tu parles|"
        "cause toujours|"
        "comme tu veux|comme vous voulez|ben voyons|mais bien sur|mais oui bien sur|oui oui c'est ca|"
        "bien sur c'est ca|"
        "c'est ca oui c'est ca|et puis quoi encore|n'importe quoi|si tu le dis|si vous le dites",
        ELSE: "cheri|cherie|mon coeur|mon cheri|ma cherie|les enfants|les gamins|les petits|"
        "maman|papa|mamie|papi|le diner|a table|j'arrive|je suis au telephone|le chien|mon amour|"
        "ma puce|mon lapin|bebe|doudou|mon chou|ma belle|mon grand|ma grande|les filles|les garcons",
        NEUT: "pas de probleme|pas de souci|pas de soucis|aucun probleme|aucun souci|sans probleme|"
        "malheureusement|raisonnable|ideal|pratique|"
        "parce que|car|"
        "sans souci|ne vous inquietez pas|ne t'inquiete pas|il n'y a pas de quoi|je vous en prie|"
        "pas de quoi|n'hesitez pas|ce n'est pas un probleme|c'est pas un probleme|"
        "merci|merci beaucoup|merci bien|mille mercis|merci mille fois|s'il vous plait|"
        "s'il te plait|svp|stp|sil vous plait|c'est gentil|c'est tres gentil|vous etes gentil|"
        "vous etes adorable|merci pour votre aide|pour votre aide|pour tout|bonne journee|"
        "bonne soiree|au revoir|madame|monsieur|mademoiselle|merci a vous|merci de votre aide|"
        "c'est tres aimable|tres aimable|"
        "euh|heu|bah|ben|bon|alors|donc|eh bien|eh|ah|oh|voila|bon ben|ouais bon|"
        "je|j'|moi|me|m'|le|la|les|l'|un|une|de|du|des|d'|a|au|aux|en|et|pour|avec|ca|cela|"
        "c'est|ce|cette|cet|c'|vous|tu|te|t'|nous|on|il|elle|y|tout|tres|bien|maintenant|"
        "tout de suite|le faire|faites|fais|procedez|continuez|envoyez|envoyer|reservez|"
        "confirmez|allez|faire|est|sont|ma|mon|mes|votre|vos|ton|ta|ce qu'il faut|comme prevu|"
        "comme convenu|ce que j'ai dit|tout ca|immediatement|des que possible|veux|voudrais|"
        "souhaite|aimerais|bien sur que oui|valider|validez|effectuer|effectuez|payer|payez|lancez|lancer|"
        "mettez|mettez le en place|en place|notez|prenez|inscrivez|"
        "l'argent",
        SOFT: "ca va|ca va merci|c'est bon merci|ca ira|ca devrait aller|ca devrait etre bon|"
        "je ne dis pas non|ne vous inquietez pas|ne t'inquiete pas",
        SELF: "moi meme|moi-meme|je m'en occupe|je le fais|je vais le faire|je le ferai|c'est deja fait|"
        "deja fait|je l'ai deja fait|je m'en charge",
        WIDE: "les deux|tous les deux|toutes les deux|tous|toutes|tout",
        AFF: "oui|ouais|ouaip|ouep|d'accord|dac|ok|okay|vas y|allez y|allons y|bien sur|parfait|"
        "sans aucun doute|n'hesitez pas|banco|"
        "exactement|c'est ca|c'est bon|c'est parfait|c'est correct|c'est exact|c'est juste|"
        "volontiers|absolument|tout a fait|entendu|je confirme|confirme|carrement|bien entendu|"
        "ca marche|ca me va|ca roule|faites le|fais le|allez|evidemment|bien|tres bien|impeccable|"
        "nickel|super|genial|avec plaisir|oui oui|mais oui|affirmatif|correct|exact|certainement|"
        "c'est ce que je veux|ca me convient|valide|je valide|on y va|allez hop|pourquoi pas|"
        "ca ne me derange pas|d'ac|oki|okidoki|oui bien sur|oui merci|"
        "oui s'il vous plait|c'est d'accord|je suis d'accord|ca me semble bien|"
        "c'est tout bon|oui allez y|si si|bien sur que oui|oui c'est ca|oui tout a fait|"
        "je prends|je le prends|je la prends|je les prends|"
        "je suis sur|je suis sure|j'en suis sur|sur et certain",
        NEG: "non|non merci|nan|pas du tout|surtout pas|laisse tomber|laissez tomber|jamais|"
        "pas question|hors de question|certainement pas|bien sur que non|absolument pas|"
        "je ne veux pas|je veux pas|ne le faites pas|ne faites pas|non plus|je refuse|ne|pas|n'|"
        "je n'en veux pas|ca ne va pas|c'est pas ca|ce n'est pas ca|faux|c'est faux|non non|"
        "rien|aucun|aucune|j'ai change d'avis|je change d'avis|oubliez|oubliez ca|laissez|"
        "ca va comme ca|c'est bien comme ca|laissez comme ca|on est bien|je suis bien|"
        "enfin non|ah non|oh non|en fait non|finalement non",
        NEGVERB: "annule|annulez|annuler|arretez|arrete|stop|stoppez",
        UNABLE: "je ne peux pas venir|je peux pas venir|je ne pourrai pas venir|je pourrai pas venir|"
        "je ne peux pas y aller|je ne pourrai pas y aller|je ne peux plus venir|je ne serai pas la|"
        "je serai pas la|j'ai un empechement|j'ai eu un empechement|je n'en ai plus besoin|"
        "j'en ai plus besoin|je n'ai plus besoin",
        HES: "attends|attendez|attendez un peu|hum|hmm|je sais pas|je ne sais pas|j'hesite|"
        "laissez moi reflechir|laisse moi reflechir|je reflechis|voyons|attendez voir|"
        "euh attendez|une seconde euh|ouh la",
        CORR: "en fait|finalement|reflexion faite|a la reflexion|tout compte fait|enfin|"
        "je veux dire|pardon|non attendez",
        COND: "si|a condition que|a condition de|pourvu que|tant que|seulement si|uniquement si|"
        "sauf si|quand|lorsque|des que|une fois que|si jamais|au cas ou|a condition",
        QUEST: "est ce que|est ce qu'|combien|comment|pourquoi|ou|quel|quelle|quels|quelles|"
        "qu'est ce|qu'est ce que|c'est combien|question|une question|j'ai une question|"
        "ca coute|ca prend|ca inclut|c'est compris|y a t il|faut il|dois je|puis je|peut on|"
        "est ce|c'est quand|c'est ou|ca prendra",
        DEFER: "un instant|une seconde|une minute|un moment|un petit moment|deux secondes|"
        "deux minutes|laissez moi|laisse moi|d'abord|plus tard|je dois|il faut que je|"
        "je vais demander|je vais verifier|je verifie|je cherche|pas encore|pas maintenant|"
        "pas tout de suite|attendez que|je vous rappelle|le temps de|secondes|minutes|instant",
        NEWTIME: "demain|apres demain|la semaine prochaine|ce soir|ce week end|le week end|"
        "aujourd'hui|plus tot|matin|apres midi|l'apres midi|soir|le soir",
        CHANGE: "a la place|plutot|plutot que|changez|changer|change|modifiez|modifier|deplacez|"
        "deplacer|autre|differente|different|seulement|juste|aussi|egalement|en plus|de plus|"
        "je prefere|je prefererais|preferez|et si|que diriez vous|la moitie|moitie|sinon|"
        "au lieu|au lieu de",
        BUT: "mais|par contre|sauf|cependant|toutefois|pourtant|quoique|sauf que",
        HEDGE: "peut etre|je suppose|je crois|je pense|je pense que oui|je crois que oui|"
        "je suis le|je suis la|je suis l'|je vous entends|je t'entends|je vous ecoute|"
        "probablement|sans doute|on verra|bof|mouais|j'imagine|disons|oui et non|j'espere|"
        "pour l'instant|pour le moment|pour l'heure|je n'ai rien contre|rien contre|je ne dirais pas non",
        WHEN: "maintenant|tout de suite|immediatement|pour toujours|ce mois ci",
        OTHER: "lui|leur|eux",
    },
    "de": {
        SARC: "ja ja|jaja|ja sicher doch|traum weiter|wer's glaubt|wers glaubt|von wegen|"
        "schon klar|wie du meinst|wie sie meinen|was auch immer|egal|na sicher|ja nee is klar|"
        "ja ne is klar",
        ELSE: "schatz|schatzi|liebling|kinder|mama|papa|mami|papi|oma|opa|das essen|"
        "essen ist fertig|abendessen|ich komme|komme gleich|ich bin am telefon|ich telefoniere|"
        "der hund|mein schatz|spatz|mausi|hase|kleiner|kleine|jungs|madels|mein herz|bub",
        NEUT: "kein problem|keine sorge|kein thema|keine ursache|macht nichts|nicht schlimm|weil|denn|"
        "leider|vernunftig|sinnvoll|ideal|praktisch|"
        "ohne problem|problemlos|gar kein problem|sehr gern geschehen|"
        "bitte|bitte schon|bitteschon|bitte sehr|danke|danke schon|dankeschon|danke sehr|"
        "vielen dank|vielen lieben dank|herzlichen dank|besten dank|tausend dank|sehr nett|"
        "sehr freundlich|das ist nett|das ist sehr nett|fur ihre hilfe|fur die hilfe|"
        "fur deine hilfe|schonen tag|einen schonen tag|tschuss|auf wiederhoren|auf wiedersehen|"
        "herr|dankeschon fur ihre hilfe|ihn|ihm|ihr|ihnen|sie|ihren|ihre|"
        "ahm|ah|oh|ahm ja|also|nun|na|tja ja|ok also|"
        "ich|mich|mir|mein|meine|es|das|dies|dieses|der|die|den|dem|ein|eine|einen|und|so|dann|"
        "jetzt|sofort|gleich|gern|sie|du|wir|uns|ihnen|dir|mal|schon|ruhig|einfach|machen|"
        "mach|buchen|senden|schicken|uberweisen|bestatigen|ausfuhren|erledigen|durchfuhren|"
        "bearbeiten|weiter|weitermachen|fortfahren|alles|ganz|sehr|tun|tu|ist|zu|mit|fur|"
        "bitte sofort|wie besprochen|wie vereinbart|wie gesagt|genau so|so machen|das machen|"
        "mochte|will|ware|wurde|hatte|gerne doch|auch gerne|das geld",
        SOFT: "passt schon|passt scho|passt so|passt schon danke|das passt so|schon gut|alles gut|"
        "alles gut danke|sollte passen|sollte gehen|durfte passen|konnte passen|keine sorge",
        SELF: "selbst|selber|mache ich selbst|mach ich selbst|ich mache das|ich mach das|erledige ich|"
        "ich erledige das|schon erledigt|ist schon erledigt|bereits erledigt|hab ich schon|"
        "habe ich schon gemacht",
        WIDE: "beides|beide|alle beide|alle|alle drei|alles",
        AFF: "ja|jawohl|jap|jep|jo|joa|genau|klar|na klar|ja klar|naturlich|selbstverstandlich|"
        "ich hab nichts dagegen|spricht nichts dagegen|da spricht nichts dagegen|machen sie's|"
        "machen sie|tragen sie's ein|planen sie's ein|tragen sie es ein|planen sie es ein|"
        "gerne|gern|sehr gerne|in ordnung|einverstanden|passt|okay|ok|"
        "richtig|stimmt|das stimmt|auf jeden fall|mach das|machen sie das|mach es|machen sie es|"
        "los|los geht's|nur zu|sicher|sicherlich|bestatigt|ich bestatige|bestatige|korrekt|"
        "sehr gut|gut|alles klar|super|prima|perfekt|toll|wunderbar|ausgezeichnet|exakt|absolut|"
        "unbedingt|freilich|ja bitte|ja gerne|ja genau|ja doch|doch|das ist richtig|das passt|"
        "geht klar|geht in ordnung|ist gut|ist in ordnung|das ist gut|mach mal|tun sie das|"
        "tu das|warum nicht|nichts dagegen|ich habe nichts dagegen|habe nichts dagegen|"
        "jawoll|jup|yes|gemacht|abgemacht|einverstanden ja|so ist es|das ist es|so machen wir das|"
        "machen wir|machen wir so|bitte machen sie das|ja das passt|ja richtig|passt perfekt|"
        "ich bin sicher|ich bin mir sicher|ganz sicher",
        NEG: "nein|nee|ne|no|noe|nein danke|auf keinen fall|lieber nicht|bloss nicht|lass es|"
        "lassen sie es|lass das|lassen sie das|vergiss es|vergessen sie es|nicht|nie|niemals|"
        "keinesfalls|gar nicht|uberhaupt nicht|ich will nicht|ich mochte nicht|nicht machen|"
        "falsch|das stimmt nicht|kein|keine|keinen|nichts|ich verzichte|nein nein|"
        "ich habe es mir anders uberlegt|doch nicht|lieber doch nicht|ach nein|halt nein|"
        "lassen sie es so|lass es so|so lassen|wir sind gut|mir geht es gut|"
        "moment nein|warte nein|oh nein|eigentlich nein|eigentlich nicht",
        NEGVERB: "abbrechen|stornieren|stornieren sie|stopp|stop|halt|absagen",
        UNABLE: "ich kann nicht kommen|ich kann doch nicht kommen|ich kann da nicht|ich kann nicht|"
        "ich schaffe es nicht|ich schaff es nicht|ich werde es nicht schaffen|ich bin verhindert|"
        "ich verhindert bin|ich nicht kommen kann|ich es nicht schaffe|"
        "mir ist etwas dazwischengekommen|mir ist was dazwischengekommen|"
        "ich brauche es nicht mehr|ich brauche das nicht mehr",
        HES: "warte|warten sie|wart mal|moment mal|hm|hmm|ahm moment|naja|na ja|tja|"
        "lass mich uberlegen|lassen sie mich uberlegen|ich weiss nicht|weiss nicht|keine ahnung|"
        "ich bin mir nicht sicher|nicht sicher|mal sehen|mal schauen|warte mal|augenblick mal",
        CORR: "eigentlich|ich meine|besser gesagt|oder besser|nein warte|korrektur",
        COND: "wenn|falls|sofern|solange|vorausgesetzt|vorausgesetzt dass|unter der bedingung|"
        "nur wenn|aber nur wenn|sobald|ausser wenn|es sei denn|wenn es",
        QUEST: "wie|was|wann|wo|warum|wieso|weshalb|wieviel|wie viel|welche|welcher|welches|wer|"
        "frage|eine frage|ich habe eine frage|wie lange|wie teuer",
        QAUX: "ist|sind|kann|konnen|muss|kostet|dauert|gibt|geht|wird|hat|haben|bekomme|kommt|"
        "kriege|inklusive|darf|soll|konnte",
        DEFER: "einen moment|moment|augenblick|einen augenblick|sekunde|eine sekunde|spater|erst|"
        "zuerst|vorher|noch nicht|jetzt nicht|nicht jetzt|ich muss|ich muss erst|lass mich|"
        "lassen sie mich|ich frage|ich frag|ich schaue|ich schau|ich hole|ich suche|meine frau|"
        "meinen mann|mein mann|ruckruf|ich rufe zuruck|wahrend ich|minuten|sekunden|kurz",
        NEWTIME: "morgen|ubermorgen|nachste woche|nachsten monat|heute abend|am wochenende|"
        "wochenende|heute|fruher",
        CHANGE: "stattdessen|statt|lieber|anders|andern|andere|ander|umbuchen|verschieben|verlegen|"
        "anderen|anderer|anderes|nur|auch|ausserdem|zusatzlich|noch|mehr|weniger|"
        "ich hatte lieber|wie ware es|wie ware es mit|was ist mit|sondern|halfte|die halfte|"
        "erhohen|reduzieren",
        BUT: "aber|jedoch|allerdings|ausser|nur dass|obwohl|trotzdem",
        HEDGE: "vielleicht|vermutlich|wahrscheinlich|eventuell|ich denke|ich denke schon|"
        "ich bin der|ich bin die|ich bin das|ich hore sie|ich hore dich|ich hoere sie|"
        "ich glaube|ich glaube schon|schatze|ich schatze|meinetwegen|von mir aus|wenn sie meinen|"
        "wenn du meinst|kommt drauf an|hoffentlich|ja und nein|glaub schon|vorerst|erstmal|erst mal|"
        "furs erste|fur den moment|ich sage nicht nein",
        WHEN: "jetzt|sofort|gleich|fur immer|diesen monat",
        OTHER: "ihm|fur ihn|fuer ihn",
    },
}

# "dont", "thats", "cest": what speech-to-text writes without the apostrophe.
_ALIASES = {
    "dont": "don't", "thats": "that's", "im": "i'm", "its": "it's", "cant": "can't",
    "wont": "won't", "didnt": "didn't", "doesnt": "doesn't", "isnt": "isn't", "id": "i'd",
    "ive": "i've", "youre": "you're", "lets": "let's", "whats": "what's", "hows": "how's",
    "youve": "you've", "thatll": "that'll", "thatd": "that'd", "ill": "i'll", "wouldnt": "wouldn't",
    "arent": "aren't", "cest": "c'est", "daccord": "d'accord", "sil": "s'il", "jai": "j'ai",
    "quest": "qu'est", "nest": "n'est", "jarrive": "j'arrive", "lapres": "l'apres",
    "okey": "okay", "okie": "okay", "k'": "k", "o'k": "ok", "alrighty": "alright",
    "aight": "alright", "mkay": "okay", "yeap": "yep", "yeh": "yeah", "yah": "yeah",
}  # fmt: skip
# Tags that the question's own words can neutralise ("cancel" to "cancel your visit?").
_QUESTION_CAN_NEUTRALISE = frozenset({CHANGE, NEGVERB, NEWTIME, "unknown"})
# Words after an auxiliary that make it a question ("does that include", "kann ich").
_SUBJECTS = frozenset(
    [
        "i",
        "you",
        "it",
        "that",
        "this",
        "there",
        "we",
        "they",
        "he",
        "she",
        "the",
        "my",
        "your",
        "his",
        "her",
        "these",
        "those",
        "usted",
        "eso",
        "esto",
        "ella",
        "el",
        "ello",
        "ca",
        "c'est",
        "il",
        "elle",
        "on",
        "vous",
        "tu",
        "nous",
        "je",
        "das",
        "die",
        "der",
        "den",
        "dem",
        "es",
        "er",
        "sie",
        "ich",
        "wir",
        "du",
        "man",
        "dies",
        "ihr",
    ]
)
# Words after which a clause opens.
_CLAUSE_OPENERS = frozenset(
    ["and", "so", "but", "also", "just", "y", "pero", "et", "mais", "und", "aber", "also", "ok", "okay"]
)
_SPANISH_QUESTION = frozenset(
    ["qué", "cuánto", "cuánta", "cuántos", "cuántas", "cuándo", "cómo", "dónde", "cuál", "cuáles", "quién"]
)
_DURATION_WORDS = frozenset(
    [
        "minute",
        "minutes",
        "min",
        "mins",
        "second",
        "seconds",
        "sec",
        "secs",
        "moment",
        "moments",
        "minuto",
        "minutos",
        "segundo",
        "segundos",
        "momento",
        "momentos",
        "seconde",
        "secondes",
        "instant",
        "instants",
        "minuten",
        "minute",
        "sekunde",
        "sekunden",
        "augenblick",
        "hours",
        "hour",
        "horas",
        "heures",
        "stunden",
    ]
)


def _fold(text: str) -> str:
    text = text.lower().replace("’", "'").replace("ß", "ss")
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*'?|\?|¿")


@dataclass(frozen=True)
class _Tok:
    key: str  # folded, aliases applied
    raw: str  # lower case with accents
    start: int
    end: int


@lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[_Tok, ...]:
    """The words of ``text`` (cached: a question is read once for every answer to it)."""
    lower = text.lower().replace("’", "'")
    out: list[_Tok] = []
    for m in _WORD.finditer(lower):
        raw = m.group().rstrip("'") if m.group() not in ("'",) else m.group()
        if not raw:
            continue
        key = _fold(raw)
        key = _ALIASES.get(key, key)
        out.append(_Tok(key, raw, m.start(), m.start() + len(raw)))
    return tuple(out)


# When one phrase carries two tags, the more cautious wins; neutral loses to everything.
_PRIORITY = (
    SARC,
    ELSE,
    COND,
    QUEST,
    QAUX,
    DEFER,
    HES,
    CORR,
    HEDGE,
    BUT,
    CHANGE,
    NEWTIME,
    UNABLE,
    SELF,
    WIDE,
    OTHER,
    WHEN,
    SCOPE,
    NEGVERB,
    NEG,
    SOFT,
    AFF,
    NEUT,
)


# Words of neutral phrases that say something on their own ("a better one", "something else").
_NOT_INNER = frozenset(
    [
        "always",
        "usual",
        "door",
        "better",
        "else",
        "everything",
        "time",
        "day",
        "out",
        "take",
        "soon",
        "away",
        "see",
        "big",
        "happen",
        "planned",
        "discussed",
        "said",
        "asked",
        "mismo",
        "todo",
        "ahora",
        "fois",
        "suite",
        "fait",
        "dis",
        "dit",
        "fall",
        "schon",
        "sofort",
    ]
)


@dataclass(frozen=True)
class _Table:
    phrases: dict[tuple[str, ...], str]  # phrase -> tag
    longest: int
    # Words met only inside longer neutral or affirmative phrases ("beaucoup", "help"): neutral
    # when they turn up on their own.
    inner: frozenset[str]
    # First word -> the multi-word phrases of tags that count wherever they occur.
    anywhere: dict[str, list[tuple[tuple[str, ...], str]]]


@lru_cache(maxsize=8)
def _table(lang: str) -> _Table:
    """The lexicon for a language: its own phrases first, then English ones."""
    table: dict[tuple[str, ...], str] = {}
    order = (lang, "en") if lang != "en" else ("en",)
    for code in order:
        own: dict[tuple[str, ...], str] = {}
        for tag in _PRIORITY:
            for phrase in _LEXICON[code].get(tag, "").split("|"):
                words = tuple(t.key for t in _tokens(phrase))
                if words and words not in own:
                    own[words] = tag
        for words, tag in own.items():
            table.setdefault(words, tag)
    inner = frozenset(
        w for phrase, tag in table.items() if len(phrase) > 1 and tag in (NEUT, AFF) for w in phrase
    )
    inner -= frozenset(phrase[0] for phrase, tag in table.items() if len(phrase) == 1 and tag != NEUT)
    inner -= _NOT_INNER
    anywhere: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for words, tag in table.items():
        if tag in _ANYWHERE and len(words) > 1:
            anywhere.setdefault(words[0], []).append((words, tag))
    return _Table(table, max(len(k) for k in table), inner, anywhere)


def _stem_match(word: str, terms: frozenset[str], *, compound: bool = False) -> bool:
    """Same word or same stem ("cancelled"/"cancel"); with ``compound`` (for words the lexicon
    does not know), also the head of a compound word ("Besuch" in "Klempnerbesuch") and a looser
    stem ("transferencia"/"transfiero")."""
    if word in terms:
        return True
    if compound and len(word) >= 5 and any(len(term) > len(word) and term.endswith(word) for term in terms):
        return True
    if len(word) < 4:
        return False
    for term in terms:
        if len(term) < 4:
            continue
        n = 0
        for a, b in zip(word, term, strict=False):
            if a != b:
                break
            n += 1
        if n >= 4 and n >= min(len(word), len(term)) - 3:
            return True
        if compound and n >= 5 and n >= min(len(word), len(term)) - 4:
            return True
    return False


# Articles: a word after one is a noun ("c'est des livres"), not the question's verb ("livrer").
_ARTICLES = frozenset(
    {
        *("the", "a", "an", "some", "des", "les", "le", "la", "un", "une", "du", "los", "las", "el"),
        *("unos", "unas", "die", "der", "das", "ein", "eine", "einen"),
    }
)  # fmt: skip


_COPULAS = frozenset(
    {"c'est", "ce", "sont", "it's", "its", "is", "are", "they're", "es", "son", "ist", "sind", "das"}
)


def _noun_of_verb(tagged: list[_Tagged], member: _Tagged, terms: frozenset[str]) -> bool:
    """Whether ``member`` is a noun that only looks like a word of the question: said after "it
    is a ..." ("oui, c'est des livres" to "je fais livrer ?"), it says what something is."""
    k = tagged.index(member)
    return (
        k > 1
        and tagged[k - 1].tok.key in _ARTICLES
        and tagged[k - 2].tok.key in _COPULAS
        and _bare(member.tok.key) not in terms
    )


def _lang(lang: str) -> str:
    code = (lang or "en").lower().split("-")[0].split("_")[0]
    return code if code in _LEXICON else "en"


def _pending_values(pending: Mapping[str, object] | None, lang: str) -> list[Value]:
    values: list[Value] = []
    for raw in (pending or {}).values():
        for value in raw if isinstance(raw, list | tuple) else (raw,):
            try:
                values.append(normalise(value, lang))
            except (ValueError, TypeError):
                continue  # a value that cannot be a value can never be restated
    return values


@dataclass
class _Tagged:
    tok: _Tok
    tag: str
    phrase: int  # id of the phrase this token belongs to (tokens of one phrase share it)
    phrase_len: int
    clitic: bool = False  # a Spanish verb with its object attached ("cancélela")


def read_answer(
    words: str, *, question: str = "", pending: Mapping[str, object] | None = None, lang: str = "en"
) -> AnswerReading:
    """Read the caller's answer to ``question`` about the ``pending`` values (name -> value).

    ``lang`` is the caller's language ("en", "es", "fr", "de"; a region suffix is ignored; an
    unknown code reads English). Never raises: odd input (empty, symbols only, a pending value
    that is not a value) reads as ``unclear`` or is ignored.
    """
    code = _lang(lang)
    return _read(words, question, tuple(_pending_values(pending, code)), code)


def classify_answer(
    words: str, *, question: str = "", pending: Mapping[str, object] | None = None, lang: str = "en"
) -> Answer:
    """``yes``, ``no``, ``change`` or ``unclear``: the verdict of :func:`read_answer`."""
    return read_answer(words, question=question, pending=pending, lang=lang).answer


# The speaker says who they are ("this is Jamie", "Priya here", "c'est Julie", "hier ist Jan"): when
# that is a name the question gives (the driver to add, the friend to pay), the yes is theirs,
# not the account holder's.
_I_AM = re.compile(
    r"(?:\b(?:this is|it'?s|it is|i['’]m|i am|my name is|name'?s|c'?est|ici|je suis|je m'?appelle|"
    r"moi c'?est|soy|aqu[ií] (?:est[aá]|habla)|habla|le habla|me llamo|hier ist|hier spricht|"
    r"ich bin|mein name ist|ich hei(?:ss|ß)e)\s*[,:]?\s*)$",
    re.IGNORECASE,
)
_HERE = re.compile(
    r"^\s*[,:]?\s*(?:here|speaking|on the line|ici|aqu[ií]|al habla|hier|am apparat)\b", re.IGNORECASE
)


def _speaks_as_named(
    words: str, tagged: list[_Tagged], question: str, lang: str, pending: tuple[Value, ...]
) -> bool:
    """Whether the speaker introduces themselves by a name the question gives.

    The name is a word the question writes with a capital inside the sentence (German
    capitalises every noun: there, only a pending value's word), and no day, month or number:
    "yes it's Friday" is no introduction.
    """
    names = (
        set()
        if lang == "de"
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
        if _I_AM.search(words[: t.tok.start]) or _HERE.match(words[t.tok.end :]):
            return True
    return False


@lru_cache(maxsize=2048)
def _read(words: str, question: str, pending: tuple[Value, ...], lang: str) -> AnswerReading:
    tokens = _tokens(words)
    if not tokens:
        return AnswerReading("unclear", "no words")
    lexicon = _table(lang)
    table = lexicon.phrases
    tagged = _tag(tokens, lexicon)
    _overlay(tagged, lexicon)

    # Values: pending ones are neutral; any other value is a change, even one the question
    # offered as an alternative ("Friday, or would Saturday suit?" - "yes, Saturday").
    pending_spans = [span for value in pending for span in locate(words, value, lang)]
    for start, end in pending_spans:
        _mark(tagged, start, end, "value")
    fresh: list[Mention] = []
    for mention in find_mentions(words, lang):
        covered = [t for t in tagged if t.tok.start < mention.end and t.tok.end > mention.start]
        if not covered or any(t.tag == "value" for t in covered):
            continue
        if _pronoun_one(tagged, covered):
            continue  # "the thursday one", "the other one": which one, not a number
        if all(t.phrase_len > 1 for t in covered) or _is_duration(tagged, covered):
            continue  # "that one", "mil gracias", "deux secondes": the phrase explains the number
        if any(mention.means(value) or _day_of(mention.value, value) for value in pending):
            _mark(tagged, mention.start, mention.end, "value")
            continue
        fresh.append(mention)
    _short_days(tagged, pending)
    parts, letters = _said_as_parts(words, fresh, pending)
    for mention in parts:
        _mark(tagged, mention.start, mention.end, "value")
        fresh.remove(mention)
    for start, end in letters:
        _mark(tagged, start, end, "value")
    if _speaks_as_named(words, tagged, question, lang, pending):
        return AnswerReading("unclear", "someone the question names is speaking, not the caller")
    new_values: list[str] = []
    for mention in fresh:
        _mark(tagged, mention.start, mention.end, "newvalue")
        new_values.append(words[mention.start : mention.end].strip())
    said_values = len(new_values)
    part_of = _part_of_pending(words, pending, lang, tagged)
    if part_of:
        new_values.append(part_of)

    _compound_dayparts(tagged, lang)
    # The question's own words are neutral where they would otherwise change or withdraw; so
    # are verbs of the same family ("stop it" to "cancel your plan?", "sign me up" to "enrol?").
    terms = _with_families(_terms(question, table))
    # A phrase is the question's own when each of its words is the question's or a function
    # word: "switch it" to "switch your plan?", but not "next month" to "for 12 months?".
    phrases: dict[int, list[_Tagged]] = {}
    for t in tagged:
        if t.tag in _QUESTION_CAN_NEUTRALISE:
            phrases.setdefault(t.phrase, []).append(t)
    restated = {
        pid
        for pid, members in phrases.items()
        if any(_stem_match(_bare(m.tok.key), terms, compound=m.tag == "unknown") for m in members)
        and not any(_noun_of_verb(tagged, m, terms) for m in members)
        and all(
            table.get((m.tok.key,)) == NEUT
            or _stem_match(_bare(m.tok.key), terms, compound=m.tag == "unknown")
            for m in members
        )
        and not any(m.tag == NEWTIME and _bare(m.tok.key) not in terms for m in members)
    }
    for t in tagged:
        if t.phrase in restated and t.tag in _QUESTION_CAN_NEUTRALISE:
            t.tag = "qterm"

    # A currency or unit the question did not use is a new value ("yes, 85 euros" to "85 dollars?").
    asked_in = currencies(question) | {v.key for v in pending if v.kind == "text" and v.key in CURRENCY_NAMES}
    said_in = currencies(words)
    if said_in - asked_in and (asked_in or "%" in said_in):
        new_values.extend(sorted(said_in - asked_in))

    part = _only_part(tagged, question, table, lang)
    if part:
        new_values.append(part)

    if _echoes_question(tagged, question, lang):
        return AnswerReading("unclear", "echoes the question's own words")
    _resolve_unable(tagged, terms)
    _resolve_soft(tagged)
    _resolve_wide(tagged, question, pending)
    _resolve_other(tagged, terms, question)
    _resolve_particles(tagged, terms)
    _resolve_when(tagged, question, pending)
    _resolve_scope(tagged, question, pending)
    _resolve_self(tagged)
    _thanks_for(tagged, words)
    _negate_in_scope(tagged)
    _resolve_dayparts(tagged, pending)
    if lang == "es":
        _resolve_clitics(tagged, terms)
    _resolve_si(tagged, lang)
    _resolve_eager(tagged)
    _resolve_stop_words(tagged)
    _resolve_leave(tagged)
    _resolve_irony(tagged)
    _resolve_aux(tagged)
    last = tagged[-1]
    if (
        len(tagged) > 2
        and last.tok.key in ("right", "correct", "yeah")
        and last.phrase_len == 1
        and tagged[-2].tag not in (AFF, NEUT)
    ):
        last.tag = QUEST  # "yes and that's for two, right": checking, not agreeing
    rhetorical = _rhetorical_yes(tagged)
    for t in tagged:
        if t.tag == "unknown" and t.tok.raw in _SPANISH_QUESTION:
            t.tag = QUEST
        if t.tok.key in ("?", "¿"):
            t.tag = NEUT if rhetorical else QUEST

    return _verdict(tagged, new_values, terms, said_values, _names_person(question))


_WEEKDAY_KEYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _part_of_pending(words: str, pending: tuple[Value, ...], lang: str, tagged: list[_Tagged]) -> str:
    """ "yes, just Tuesdays" to "every Tuesday and Thursday?": some of the pending values of one
    kind, and not the others, is a change (unless the caller says "both" or "all")."""
    if any(t.tag == WIDE for t in tagged):
        return ""
    for kind in ("weekday", "date", "time"):
        group = {v for v in pending if v.kind == kind}
        if len(group) < 2:
            continue
        said = {v for v in group if locate(words, v, lang)}
        said |= {v for v in group for t in tagged if _SHORT_DAYS.get(t.tok.key) == v.key}
        if said and said != group:
            return "only " + ", ".join(sorted(v.key for v in said))
    return ""


def _day_of(said: Value, pending: Value) -> bool:
    """ "Thursday" for a pending 2026-05-21, which is a Thursday: the same day, said another way."""
    if said.kind != "weekday" or pending.kind != "date" or pending.key.startswith("-"):
        return False
    try:
        return _WEEKDAY_KEYS[date.fromisoformat(pending.key).weekday()] == said.key
    except ValueError:
        return False


_SHORT_DAYS = {"mon": "mon", "tue": "tue", "tues": "tue", "wed": "wed", "thu": "thu", "thur": "thu",
               "thurs": "thu", "fri": "fri", "sat": "sat", "sun": "sun"}  # fmt: skip


def _short_days(tagged: list[_Tagged], pending: tuple[Value, ...]) -> None:
    """ "mon wed fri" to "Monday, Wednesday and Friday?": short days are the pending days (alone,
    "mon", "wed", "sat" and "sun" are ordinary words and not read as days)."""
    days = {v.key for v in pending if v.kind == "weekday"}
    for t in tagged:
        if t.tag == "unknown" and _SHORT_DAYS.get(t.tok.key) in days:
            t.tag = "value"


# How an agent asks, in its own person: said back by the caller, the question is being read out
# or echoed, not answered ("three hundred friday, shall I, yes", "le transfiero quinientos, sí").
_AGENT_OPENERS = (
    ("shall", "i"), ("should", "i"), ("do", "you", "want", "me"), ("would", "you", "like", "me"),
    ("soll", "ich"), ("que", "je"), ("je", "fasse"), ("voulez", "vous"), ("quiere", "que"),
)  # fmt: skip


def _echoes_question(tagged: list[_Tagged], question: str, lang: str) -> bool:
    keys = [t.tok.key for t in tagged]
    for opener in _AGENT_OPENERS:
        n = len(opener)
        if any(tuple(keys[k : k + n]) == opener for k in range(len(keys) - n + 1)):
            return True
    if lang == "es":
        # "¿Le transfiero...?", "¿Domicilio...?": the agent's first-person verb, said back.
        asked = [t.key for t in _tokens(question) if t.key not in ("¿", "?")]
        while asked and asked[0] in ("le", "les", "se", "me", "lo", "la"):
            asked = asked[1:]
        if asked and asked[0].endswith("o") and len(asked[0]) >= 5 and asked[0] in keys:
            return True
    return False


def _said_as_parts(
    words: str, fresh: list[Mention], pending: tuple[Value, ...]
) -> tuple[list[Mention], list[tuple[int, int]]]:
    """Numbers that together say a pending value: a time ("two forty five" for 14:45, "nine 15",
    "2.45"), an amount ("three twenty" for 320, "six fifty" for 6.50 or 650), digits one by one
    ("four eight two one three" for 48213), or a number and a letter ("fourteen c" for seat 14C).
    Only a pending value is read this way; numbers that make no pending value stay new values.
    Returns the mentions that are parts of a pending value, and the spans of letters that are.
    """
    if not pending:
        return [], []
    found: list[Mention] = []
    letters: list[tuple[int, int]] = []
    keys = {v.key for v in pending if v.kind in ("number", "ident")}
    k = 0
    while k < len(fresh):
        a = fresh[k]
        run, digits = _digit_run(words, fresh, k)
        lead = _lead_start(words, run[0].start) if len(run) >= 2 else 0
        spelled = _letters_before(words, lead, digits, keys) if len(run) >= 2 else None
        if len(run) >= 2 and (spelled or digits in keys or digits.lstrip("0") in keys):
            found.extend(run)
            if spelled is not None:
                letters.append(spelled)  # "h c" of "h c three oh four"
            letters.append((lead, run[-1].end))  # with "oh", "double" and "triple" inside it
            k += len(run)
            continue
        b = fresh[k + 1] if k + 1 < len(fresh) else None
        joiner = _fold(words[a.end : b.start].strip()) if b is not None else "-"
        if (
            b is not None
            and joiner in _JOINERS
            and any(_parts_mean(a.value, b.value, v, joiner) for v in pending)
        ):
            found.extend((a, b))
            k += 2
            continue
        before = _letters_before(words, a.start, a.value.key, keys) if a.value.kind == "number" else None
        if before is not None:
            found.append(a)  # "x seventy seven" for X-77, "hc 30418"
            letters.append(before)
            k += 1
            continue
        letter = re.match(r"\s+([a-z])\b", words[a.end :], re.IGNORECASE)
        if letter is not None and a.value.kind == "number" and a.value.key.isdigit():
            ident = a.value.key + letter.group(1).lower()
            if any(v.kind == "ident" and v.key == ident for v in pending):
                found.append(a)
                letters.append((a.end + letter.start(1), a.end + letter.end(1)))
                k += 1
                continue
        if a.value.kind == "number" and re.fullmatch(r"\d{1,2}[.,]\d{2}", words[a.start : a.end].strip()):
            hour, minute = re.split(r"[.,]", words[a.start : a.end].strip())
            as_time = [Value("number", str(int(hour))), Value("number", str(int(minute)))]
            if any(_parts_mean(as_time[0], as_time[1], v) for v in pending if v.kind == "time"):
                found.append(a)
        k += 1
    return found, letters


def _digit_run(words: str, fresh: list[Mention], k: int) -> tuple[list[Mention], str]:
    """Single digits said one after another from ``fresh[k]`` ("four eight two one three", "five
    oh nine", "double oh four five"), and what they spell: "oh" is a zero, "double" and "triple"
    repeat the digit after them. Letters spelled before the digits are read by the caller
    (:func:`_letters_before`)."""
    run: list[Mention] = []
    digits = ""
    for m in fresh[k:]:
        if m.value.kind != "number" or len(m.value.key) != 1 or not m.value.key.isdigit():
            break
        start = run[-1].end if run else _lead_start(words, m.start)
        spelled = _spelled_digits(words[start : m.start].split(), m.value.key)
        if spelled is None:
            if run:
                break
            spelled = m.value.key
        run.append(m)
        digits += spelled
    return run, digits


_ZERO = frozenset({"oh", "o"})
_REPEAT = {"double": 2, "triple": 3}


def _lead_start(words: str, end: int) -> int:
    """Where the zeros and repeats said right before position ``end`` begin ("double oh ")."""
    start = end
    for found in reversed(list(re.finditer(r"[^\W\d_]+", words[:end]))):
        if words[found.end() : start].strip() or _fold(found.group()) not in (_ZERO | set(_REPEAT)):
            break
        start = found.start()
    return start


def _spelled_digits(gap: list[str], digit: str) -> str | None:
    """The digits a gap of zero and repeat words and the digit after it say, or None for other words."""
    out = ""
    times = 1
    for word in (_fold(w.strip(",.")) for w in gap):
        if word in _REPEAT:
            times = _REPEAT[word]
        elif word in _ZERO:
            out += "0" * times
            times = 1
        else:
            return None
    return out + digit * times


def _letters_before(words: str, end: int, digits: str, keys: set[str]) -> tuple[int, int] | None:
    """The span of letters spelled right before position ``end`` ("h c " or "hc ", at most three)
    when with ``digits`` they make a pending identifier, else None."""
    found = re.search(r"(?:(?<![\w'])[a-z]\s+){1,3}$|(?<![\w'])[a-z]{2,3}\s+$", words[:end], re.IGNORECASE)
    if found is None or re.sub(r"\s+", "", found.group()).lower() + digits not in keys:
        return None
    return found.start(), found.end()


# Words between the two numbers of a time: "eleven forty", "nine oh five", "once y cuarenta",
# "doce menos veinte" (11:40), "moins vingt", "zwanzig nach vier" (4:20), "zehn vor neun" (8:50).
_JOINERS = frozenset({"", "oh", "o", "y", "menos", "moins", "nach", "vor"})


def _parts_mean(a: Value, b: Value, target: Value, joiner: str = "") -> bool:
    if a.kind != "number" or b.kind != "number" or not (a.key.isdigit() and b.key.isdigit()):
        return False
    first, second = int(a.key), int(b.key)
    if target.kind == "time":
        hour, minute = int(target.key[:2]), int(target.key[3:])
        if joiner in ("menos", "moins"):
            first, second = first - 1, 60 - second  # "doce menos veinte": 11:40
        elif joiner == "nach":
            first, second = second, first  # "zwanzig nach vier": 4:20
        elif joiner == "vor":
            first, second = second - 1, 60 - first  # "zehn vor neun": 8:50
        elif second < 10 and joiner not in ("oh", "o"):
            return False
        return second == minute and 0 <= second < 60 and first in (hour, hour - 12) and 0 < first <= 23
    if target.kind == "number" and 10 <= second < 100 and joiner == "":
        return target.key in (str(first * 100 + second), _decimal(first, second))
    return False


def _decimal(whole: int, cents: int) -> str:
    return f"{whole}.{cents:02d}".rstrip("0").rstrip(".")


# Affirmatives that are also how a caller says "no need" ("ok", "fine", "good", "passt"):
# they do not make a soft acceptance a yes; a plain yes does.
_WEAK_AFF = frozenset(
    {
        *("ok", "okay", "o", "k", "kay", "fine", "good", "great", "alright", "all", "right", "cool"),
        *("lovely", "perfect", "nice", "sweet", "grand", "done", "thats", "that's", "bien", "bon"),
        *("gut", "passt", "vale", "va", "esta", "super", "prima", "wonderful", "brilliant", "fab"),
    }
)


def _resolve_soft(tagged: list[_Tagged]) -> None:
    """ "all good, thanks" alone may be a polite no; beside a plain yes ("yes, all good") it is neutral."""
    soft = [t for t in tagged if t.tag == SOFT]
    if not soft:
        return
    plain_yes = any(t.tag == AFF and t.tok.key not in _WEAK_AFF for t in tagged)
    for t in soft:
        t.tag = NEUT if plain_yes else HEDGE


# "... your gym membership and your magazine subscription?": two things, each with its own words.
_DETS = (
    r"your|the|my|his|her|their|its|su|sus|el|la|los|las|votre|vos|le|les|celui|celle|ihr|ihre|ihren|"
    r"das|die|den|der"
)
_TWO_THINGS = re.compile(
    r"^(?P<a>.+?)\s(?:and|as well as|y también|y|et|ainsi que|und|sowie)\s+"
    rf"(?P<b>(?:also\s+|aussi\s+|auch\s+|también\s+)?(?:{_DETS})\b.+)$",
    re.IGNORECASE,
)
_LAST_DET = re.compile(rf"^.*\b(?:{_DETS})\b", re.IGNORECASE)


def _only_part(tagged: list[_Tagged], question: str, table: dict[tuple[str, ...], str], lang: str) -> str:
    """What the answer names when it agrees to only one of two things the question puts together.

    "yes, the gym" to "cancel your gym membership and your magazine subscription?" is a change:
    the caller named one of the two. Only the two things' own words count, not the verb.
    """
    found = _TWO_THINGS.match(" ".join(question.split()))
    if found is None:
        return ""
    thing_a = _LAST_DET.sub(
        "", found.group("a")
    )  # "Shall I cancel both your gym membership" -> "gym membership"
    # German puts the verb last ("... und das Zeitschriften-Abo kündigen?"): it is no thing.
    words = [t.key for t in _tokens(question) if t.key not in ("?", "¿")]
    last = words[-1] if words and lang == "de" else ""
    a, b = _terms(thing_a, table) - {last}, _terms(found.group("b"), table) - {last}
    only_a, only_b = frozenset(a - b), frozenset(b - a)
    said = {_bare(t.tok.key) for t in tagged if t.tag not in (AFF, NEG)}
    named_a = {w for w in said if _stem_match(w, only_a)}
    named_b = {w for w in said if _stem_match(w, only_b)}
    if bool(named_a) != bool(named_b) and not any(t.tag == WIDE for t in tagged):
        return "only " + " ".join(sorted(named_a or named_b))
    return ""


_ALL_IN_QUESTION = re.compile(r"\b(?:both|all|los dos|las dos|ambos|les deux|tous|beide|beides|alle)\b")
# "renew your three books?", "two tickets", "tres meses": a count of things the question names.
_SEVERAL = re.compile(
    r"\b(?:[2-9]|1\d|two|three|four|five|six|seven|eight|nine|ten|dos|tres|cuatro|cinco|deux|trois|"
    r"quatre|cinq)\s+(?!(?:gas|bus|plus|glass|class|pass|dress|address|business|status|bonus|dollars|"
    r"pounds|euros|quid|bucks|cents|pence|minutes|hours|seconds|percent)\b)"
    r"[a-z'-]+[^suia\W]s\b"
)


def _resolve_wide(tagged: list[_Tagged], question: str, pending: tuple[Value, ...] = ()) -> None:
    """ "both", "all of them": the question's own items when it names several, a change otherwise."""
    wide = [t for t in tagged if t.tag == WIDE]
    if not wide:
        return
    several = (
        _TWO_THINGS.match(" ".join(question.split())) is not None
        or _ALL_IN_QUESTION.search(_fold(question)) is not None
        or _SEVERAL.search(_fold(question)) is not None
        or any(sum(v.kind == kind for v in pending) >= 2 for kind in ("weekday", "date", "time"))
    )
    for t in wide:
        t.tag = NEUT if several else CHANGE


# People a question may name, so that "add him" to "add your son to the policy?" is the same one.
_PEOPLE = frozenset(
    {
        *("son", "daughter", "wife", "husband", "partner", "mother", "mum", "mom", "father", "dad"),
        *("brother", "sister", "child", "children", "kids", "kid", "grandson", "granddaughter"),
        *("friend", "colleague", "boyfriend", "girlfriend", "fiance", "fiancee", "baby", "tenant"),
        *("driver", "drivers", "passenger", "passengers", "guest", "guests", "teenager", "nephew", "niece"),
        *("hijo", "hija", "hijos", "esposa", "esposo", "marido", "mujer", "madre", "padre", "hermano"),
        *("hermana", "amigo", "amiga", "fils", "fille", "enfants", "femme", "mari", "mere", "pere"),
        *("frere", "soeur", "ami", "amie", "sohn", "tochter", "kinder", "frau", "mann", "mutter"),
        *("vater", "bruder", "schwester", "freund", "freundin", "partnerin", "fahrer", "gast"),
        # Pets: "book him in" to "book your dog Rex in with the vet?" is Rex.
        *("dog", "cat", "pet", "puppy", "kitten", "rabbit", "horse", "parrot", "hamster", "pony"),
        *("perro", "perra", "gato", "gata", "mascota", "chien", "chienne", "chat", "chatte"),
        *("hund", "katze", "haustier", "kater"),
    }
)  # fmt: skip
# Pronouns for someone other than the caller, as the object of the question's verb.
_THIRD_PERSON = frozenset(
    {"them", "him", "her", "us", "ellos", "el", "ella", "lui", "elle", "eux", "ihn", "ihm"}
)
_NOT_VERBS = frozenset(
    {"can", "could", "will", "would", "shall", "should", "may", "might", "do", "did", "does", "are", "have"}
)


@lru_cache(maxsize=1024)
def _names_person(question: str) -> bool:
    """Whether the question names a third person by a word for one ("add your son to the policy?").

    A capitalised name is not enough: "Harbour Inn" and "Galway" are names too, and reading
    "her" as one of them would turn "refund it to her" into a yes.
    """
    return any(_bare(t.key) in _PEOPLE for t in _tokens(question))


def _resolve_other(tagged: list[_Tagged], terms: frozenset[str], question: str) -> None:
    """ "send it to her", "enrol us": someone the question did not name is a change.

    A question that names a third person ("add your son to the policy?") makes "him", "her" and
    "them" that person. A question whose verb is about the caller ("enrol you", "book you in")
    makes the same verb with "them", "him", "her" or "us" someone else: a change.
    """
    asked = [_bare(t.key) for t in _tokens(question)]
    names_person = _names_person(question)
    about_you = {
        asked[k - 1]
        for k in range(1, len(asked))
        if asked[k] == "you" and len(asked[k - 1]) >= 3 and asked[k - 1] not in _NOT_VERBS
    }
    for k, t in enumerate(tagged):
        if t.tag == OTHER:
            t.tag = NEUT if _bare(t.tok.key) in terms or names_person else CHANGE
        elif (
            t.tok.key in ("el", "ella", "ellos", "ellas")
            and k > 0
            and tagged[k - 1].tok.key in ("a", "para")
            and not names_person
            and (
                t.tok.raw.lower() != "el"
                or k + 1 == len(tagged)
                or tagged[k + 1].tag not in ("value", "newvalue", "unknown", "qterm")
            )
        ):
            t.tag = CHANGE  # "sí, pídale una a él", "una para el": for someone else
        elif (
            t.tok.key in _THIRD_PERSON
            and not names_person
            and about_you
            and k > 0
            and _stem_match(_bare(tagged[k - 1].tok.key), frozenset(about_you))
        ):
            t.tag = CHANGE  # "yes, enrol them" to "shall I enrol you?"


# Particles of phrasal verbs ("set it up", "put me down", "stick it on") after a verb of going
# ahead; "off" and "away" only when the question takes something away.
_PARTICLES = frozenset({"up", "in", "on", "over", "through", "down", "out", "along"})
_AWAY = frozenset({"off", "away"})
_TAKING_AWAY = frozenset({"take", "knock", "switch", "turn", "cut", "throw"})
_PHRASAL = frozenset(
    {
        *("set", "put", "sign", "pop", "stick", "book", "pencil", "bang", "push", "sort"),
        *("lock", "send", "change", "switch", "move", "hand", "hook", "key", "punch", "note"),
        *("jot", "add", "fill", "carry", "write", "spread", "pay"),
    }
)  # fmt: skip


def _resolve_particles(tagged: list[_Tagged], terms: frozenset[str]) -> None:
    """ "yes, sign me up", "set it up", "put me down for it": a verb and its particle are one verb."""
    if not any(t.tok.key in _PARTICLES or t.tok.key in _AWAY for t in tagged):
        return
    withdraws = any(_stem_match(verb, terms) for verb in _WITHDRAWING)
    for k, t in enumerate(tagged):
        if t.tag not in ("unknown", NEUT):
            continue
        if t.tok.key in _PARTICLES:
            verbs = [u for u in tagged[max(0, k - 4) : k] if u.tok.key in _PHRASAL]
        elif withdraws and t.tok.key in _AWAY:
            verbs = [u for u in tagged[max(0, k - 4) : k] if u.tok.key in _PHRASAL | _TAKING_AWAY]
        else:
            continue
        if verbs:
            t.tag = NEUT
            for u in verbs:
                if u.tag == "unknown":
                    u.tag = NEUT


_FIXED_TIME = frozenset({"weekday", "date", "time"})


def _resolve_when(tagged: list[_Tagged], question: str, pending: tuple[Value, ...]) -> None:
    """ "now", "for good", "this month": a change when the question fixed when, neutral otherwise."""
    when = [t for t in tagged if t.tag == WHEN]
    if not when:
        return
    fixed = any(v.kind in _FIXED_TIME for v in pending) or any(
        m.value.kind in _FIXED_TIME for m in find_mentions(question, None)
    )
    asked = {t.key for t in _tokens(question)}
    for t in when:
        t.tag = CHANGE if fixed and t.tok.key not in asked else NEUT


def _closes_value(tagged: list[_Tagged], k: int) -> bool:
    """Whether the word at ``k`` comes right after a pending value, or after it and its unit
    ("299 only", "299 rupees only")."""
    before = tagged[k - 1] if k > 0 else None
    if before is not None and before.tag == "value":
        return True
    unit = before is not None and (before.tag == "qterm" or currency_of(before.tok.key) is not None)
    return unit and k > 1 and tagged[k - 2].tag == "value"


def _resolve_scope(tagged: list[_Tagged], question: str, pending: tuple[Value, ...] = ()) -> None:
    """A narrower scope ("just this month" to "on the 6th of each month?") is a change, unless
    asked. "only" closing a pending value ("two ninety nine only") says it is exactly that, when
    no other pending day, date, time or name is of its kind (then "only" would pick one of a list)."""
    asked = " ".join(t.key.removesuffix("'s") for t in _tokens(question))  # "this month's delivery"
    # Numbers play different parts (a reference, an amount); days, dates, times and names of
    # one kind are a list the caller may pick from.
    kinds = [v.kind for v in pending if v.kind not in ("number", "ident")]
    for k, t in enumerate(tagged):
        if (
            t.tok.key == "only"
            and t.phrase_len == 1
            and t.tag in (SCOPE, CHANGE)
            and _closes_value(tagged, k)
            and len(kinds) == len(set(kinds))
            and all(u.tag in (NEUT, AFF) for u in tagged[k + 1 :])
        ):
            t.tag = NEUT
        elif t.tag == SCOPE:
            words = " ".join(u.tok.key for u in tagged if u.phrase == t.phrase)
            t.tag = NEUT if f" {words} " in f" {asked} " else CHANGE


# "I'll book it", "I can cancel it", "I'm going to pay it": the caller does it themselves.
# Verbs after them that accept the offer instead ("I'll take it", "I'll go with that").
_SELF_OPENERS = (
    ("i'll",),
    ("i", "will"),
    ("i", "can"),
    ("i", "could"),
    ("i'm", "going", "to"),
    ("i'm", "gonna"),
    ("we'll",),
    ("we", "will"),
    ("we", "can"),
    ("we're", "going", "to"),
)
_ACCEPTING = frozenset(
    {
        *("take", "have", "go", "be", "accept", "need", "want", "wait", "pass", "think", "hold", "stay"),
        *("say", "confirm", "agree", "like", "love", "keep", "see", "check", "ask", "call"),
    }
)


def _resolve_self(tagged: list[_Tagged]) -> None:
    keys = [t.tok.key for t in tagged]
    for k in range(len(tagged)):
        for opener in _SELF_OPENERS:
            end = k + len(opener)
            if tuple(keys[k:end]) != opener or end >= len(tagged):
                continue
            if any(t.tag not in (NEUT, QAUX) for t in tagged[k:end]):
                continue  # part of a phrase of its own ("i'll pass", "i can't")
            verb = tagged[end]
            if verb.tok.key in _ACCEPTING or verb.tag in (AFF, NEG, SOFT, HES, DEFER, SELF):
                continue
            for t in tagged[k:end]:
                t.tag = SELF


# Thanks, then what the caller thanks for: "thank you so much for sorting all of this out today".
_THANKS = frozenset(
    {"thanks", "thank", "thx", "appreciate", "appreciated", "gracias", "merci", "danke", "dank"}
)
_THANKS_FOR = frozenset({"for", "por", "pour", "fur", "fuer"})
# What ends the thanks: a clause of its own weight, never swallowed as politeness.
_THANKS_STOP = frozenset(
    {"BUT", "COND", "QUEST", "QAUX", "NEG", "NEGVERB", "CHANGE", "SARC", "ELSE", "newvalue"}
)


_ONE = frozenset({"one", "ones"})
_DETERMINERS = frozenset({"the", "that", "this", "which", "other", "same", "first", "last", "next"})


def _pronoun_one(tagged: list[_Tagged], covered: list[_Tagged]) -> bool:
    """English "one" after a determiner (perhaps with one word between) names a thing, not 1.

    A pending value between them does not count as the word: "the 3 pm one", "that 9:30 one".
    """
    if len(covered) != 1 or covered[0].tok.key not in _ONE:
        return False
    k = tagged.index(covered[0])
    before = [t.tok.key for t in tagged[:k] if t.tag != "value"][-2:]
    return any(w in _DETERMINERS for w in before)


def _thanks_for(tagged: list[_Tagged], words: str) -> None:
    """What a caller thanks the agent for is politeness, whatever its words ("for being so patient").

    The object of the thanks runs from "for" to the end of the clause (punctuation, or a word that
    carries weight of its own: a "but", a condition, a question, a refusal, a change or a new
    value). Only unknown words and "today" inside it become neutral, so "thanks, but Friday" and
    "thank you tomorrow works better" keep their weight.
    """
    k = 0
    while k < len(tagged):
        if tagged[k].tok.key not in _THANKS:
            k += 1
            continue
        j = k + 1
        while (
            j < len(tagged)
            and j - k <= 4
            and tagged[j].tok.key not in _THANKS_FOR
            and tagged[j].tag in (NEUT, "unknown")
        ):
            j += 1
        if j >= len(tagged) or tagged[j].tok.key not in _THANKS_FOR:
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


_PRAISE_OPENERS = frozenset({"you've", "you're", "you", "honestly", "really", "seriously"})


def _praise_after(tagged: list[_Tagged], words: str, start: int) -> None:
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
        opens = keys[0] in _PRAISE_OPENERS and any(w.startswith("you") for w in keys[:2])
        light = all(t.tag in (NEUT, "unknown") for t in clause) and "?" not in keys
        if not (opens and light):
            return
        for t in clause:
            t.tag = NEUT
        k = j


def _bare(word: str) -> str:
    """The word without an elided article or pronoun: "j'annule" -> "annule"."""
    return word.rsplit("'", 1)[-1] if "'" in word[:3] else word


# Verbs that ask for the same action ("stop it" to "cancel your plan?"). Each family points one
# way: none holds a verb and its opposite.
_ACTION_FAMILIES: tuple[frozenset[str], ...] = tuple(
    frozenset(family.split())
    for family in (
        # take away
        "cancel stop end terminate close remove drop discontinue unsubscribe scrap delete annul "
        "annule annuler annulez resilie resilier resiliez arrete arreter arretez supprime "
        "supprimer supprimez stornieren storniere absagen abbrechen kundigen kundige beenden "
        "beende loschen losche cancelar cancele cancelo anular anule anulo eliminar elimine "
        "elimino quitar quite quito baja",
        # pause
        "pause hold suspend freeze pausar pausa pauso suspender suspendo congelar congelo "
        "suspendre suspends suspendez geler pausieren pausiere aussetzen einfrieren",
        # move or change
        "switch change move transfer swap port reschedule rebook cambiar cambie cambio mover "
        "muevo traspasar traspaso transferir transfiero changer changez transferer transfere "
        "deplacer deplace deplacez wechseln wechsle andern andere umstellen umstelle ubertragen "
        "ubertrage verschieben verschiebe umbuchen umbuche",
        # book or enrol
        "book reserve schedule arrange enrol enroll register sign join pencil reservar reservo "
        "inscribir inscribo inscriba apuntar apunte apunto reserver reservez inscrire inscris "
        "inscrivez notez noter buchen buche reservieren reserviere anmelden melde eintragen",
        # order or buy
        "order buy purchase grab pedir pido pida comprar compro commander commande commandez acheter "
        "achete bestellen bestelle kaufen kaufe",
        # send
        "send post mail ship deliver dispatch submit lodge enviar envio mandar mando envoyer envoie envoyez "
        "expedier expedie schicken schicke senden sende versenden versende liefern",
        # pay
        "pay settle pagar pago pague payer paie paye payez regler regle reglez bezahlen bezahle "
        "zahlen zahle begleichen begleiche",
        # give back
        "refund reimburse reembolsar reembolso devolver devuelvo rembourser rembourse remboursez "
        "erstatten erstatte",
        # raise
        "increase raise bump aumentar aumento subir subo augmenter augmente erhohen erhohe",
        # lower
        "decrease lower reduce reducir reduzco bajar bajo baisser baisse reduire reduis senken "
        "senke reduzieren reduziere",
        # each
        "each every cada chaque jeden jede jedes",
        # add
        "add include anadir anado agregar agrego incluir incluyo ajouter ajoute ajoutez inclure "
        "hinzufugen fuge aufnehmen",
    )
)
_INFLECTIONS = ("", "s", "es", "d", "ed", "ing", "led", "ling")


def _forms(verb: str) -> list[str]:
    """ "cancel" -> "cancels", "cancelled", "cancelling"...: the verb with its English endings."""
    forms = [verb + end for end in _INFLECTIONS]
    if verb.endswith("e"):
        forms.append(verb[:-1] + "ing")
    return forms


# Every form of every verb of a family -> the family.
_FAMILY_OF: dict[str, frozenset[str]] = {
    form: family for family in _ACTION_FAMILIES for verb in family for form in _forms(verb)
}


@lru_cache(maxsize=2048)
def _with_families(terms: frozenset[str]) -> frozenset[str]:
    """The question's words, and every verb of the family of a verb among them."""
    extra: set[str] = set()
    for term in terms:
        extra |= _FAMILY_OF.get(term, frozenset())
    return terms | extra


# Longer function words of a question ("your", "with", "from"): said back, they would
# neutralise a phrase of weight around them.
_FUNCTION_WORDS = frozenset(
    {
        *("pour", "with", "from", "your", "avec", "fuer", "desde", "sobre", "vous", "votre"),
        *("ihre", "ihren", "ihrer", "their", "this", "that", "these", "those", "will", "would"),
        *("could", "should", "shall", "dans", "unter", "nach", "durch", "into", "onto"),
    }
)  # fmt: skip


def _terms(question: str, table: dict[tuple[str, ...], str]) -> frozenset[str]:
    """The question's words, less function words ("je", "the", "para") that would neutralise much."""
    return frozenset(
        _bare(t.key)
        for t in _tokens(question)
        if (
            len(_bare(t.key)) >= 3
            and (table.get((t.key,)) != NEUT or len(t.key) >= 4)
            and _bare(t.key) not in _FUNCTION_WORDS
        )
        or t.key in _PARTICLES
    )


def _tag(tokens: Sequence[_Tok], lexicon: _Table) -> list[_Tagged]:
    """Tag tokens left to right, the longest known phrase first."""
    tagged: list[_Tagged] = []
    keys = [t.key for t in tokens]
    i = 0
    phrase_id = 0
    while i < len(tokens):
        for n in range(min(lexicon.longest, len(tokens) - i), 0, -1):
            tag = lexicon.phrases.get(tuple(keys[i : i + n]))
            if tag is not None:
                break
        else:
            n, tag = 1, NEUT if keys[i] in lexicon.inner else "unknown"
        phrase_id += 1
        tagged.extend(_Tagged(tokens[k], tag, phrase_id, n) for k in range(i, i + n))
        i += n
    return tagged


# Tags whose phrases count wherever they occur, even across a phrase the greedy pass took first
# ("oui c'est ça oui": "c'est ça oui" is sarcasm though "oui c'est ça" is a yes).
_ANYWHERE = (SARC, ELSE)


def _overlay(tagged: list[_Tagged], lexicon: _Table) -> None:
    keys = [t.tok.key for t in tagged]
    for i, key in enumerate(keys):
        for words, tag in lexicon.anywhere.get(key, ()):
            if tuple(keys[i : i + len(words)]) == words:
                for t in tagged[i : i + len(words)]:
                    t.tag = tag


def _mark(tagged: list[_Tagged], start: int, end: int, tag: str) -> None:
    for t in tagged:
        if t.tok.start < end and t.tok.end > start:
            t.tag = tag
            t.phrase_len = 1


def _is_duration(tagged: list[_Tagged], covered: list[_Tagged]) -> bool:
    """A number followed by a unit of waiting ("two minutes", "cinq secondes") is a deferral."""
    last = tagged.index(covered[-1])
    if last + 1 < len(tagged) and tagged[last + 1].tok.key in _DURATION_WORDS:
        for t in covered:
            t.tag = DEFER
        tagged[last + 1].tag = DEFER
        return True
    return False


# Parts of the day and the hours they cover: "Monday afternoon at 2" restates 14:00.
_DAYPART_HOURS: dict[str, range] = {
    "morning": range(5, 12), "afternoon": range(12, 18), "evening": range(17, 24),
    "tonight": range(17, 24), "tarde": range(12, 21), "noche": range(19, 24), "matin": range(5, 12),
    "soir": range(17, 24), "morgens": range(5, 12), "vormittag": range(5, 12),
    "nachmittag": range(12, 18), "nachmittags": range(12, 18), "abend": range(17, 24),
    "abends": range(17, 24), "vormittags": range(5, 12), "l'apres": range(12, 18),
    "apres": range(12, 18),
}  # fmt: skip


# A negation that takes the words after it into its scope: "don't do that", "not okay".
_SCOPING = frozenset({"don't", "not", "n't", "never", "nicht", "pas", "ne", "nunca", "jamais", "nie"})


# Verbs of a question that withdraws something: a caller who cannot come agrees with it.
_WITHDRAWING = frozenset(
    {
        "cancel", "stop", "abort", "terminate", "end", "close", "delete", "remove", "unsubscribe",
        "drop", "withdraw", "annul", "annule", "annuler", "resilier", "supprimer", "arreter",
        "stornieren", "storniere", "absagen", "abbrechen", "kundigen", "loschen", "beenden",
        "cancelar", "cancelo", "anular", "anulo", "eliminar", "borrar", "baja",
    }
)  # fmt: skip


def _resolve_unable(tagged: list[_Tagged], terms: frozenset[str]) -> None:
    """A caller who cannot come agrees with "cancel your visit?" and withdraws from "book Friday?"."""
    unable = [t for t in tagged if t.tag == UNABLE]
    if not unable:
        return
    withdraws = any(_stem_match(verb, terms) for verb in _WITHDRAWING)
    for t in unable:
        t.tag = NEUT if withdraws else NEGVERB


def _negate_in_scope(tagged: list[_Tagged]) -> None:
    for k, t in enumerate(tagged[:-1]):
        nxt = tagged[k + 1]
        if t.tag == NEG and t.tok.key in _SCOPING and nxt.tag == AFF and nxt.phrase != t.phrase:
            for u in tagged[k + 1 :]:
                if u.phrase != nxt.phrase:
                    break
                u.tag = NEG


# German joins a day and a part of it: "Montagabend", "Freitagvormittag".
_DE_DAYS = ("montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonnabend", "sonntag")
_DE_DAYPARTS: dict[str, range] = {
    "morgen": range(5, 12), "vormittag": range(8, 12), "mittag": range(11, 15),
    "nachmittag": range(12, 18), "abend": range(17, 24), "nacht": range(20, 24),
}  # fmt: skip


def _daypart_hours(key: str) -> range | None:
    """The hours a part of the day covers ("evening", "Montagabend"), or None."""
    span = _DAYPART_HOURS.get(key)
    if span is not None:
        return span
    for day in _DE_DAYS:
        if key.startswith(day) and len(key) > len(day):
            return _DE_DAYPARTS.get(key[len(day) :].removesuffix("s"))
    return None


def _compound_dayparts(tagged: list[_Tagged], lang: str) -> None:
    """ "Montagabend" is a day and a time of day: a new time unless the pending time is in it."""
    if lang != "de":
        return
    for t in tagged:
        if t.tag == "unknown" and t.tok.key not in _DAYPART_HOURS and _daypart_hours(t.tok.key):
            t.tag = NEWTIME


def _resolve_dayparts(tagged: list[_Tagged], pending: tuple[Value, ...]) -> None:
    """A part of the day restates the pending time when it holds it; for a window ("between 8 am
    and 1 pm") it must hold the window's start: "afternoon" is not that morning slot."""
    hours = (
        {min(int(v.key[:2]) for v in pending if v.kind == "time")}
        if any(v.kind == "time" for v in pending)
        else set()
    )
    if not hours:
        return
    consistent: set[int] = set()
    for k, t in enumerate(tagged):
        span = _daypart_hours(t.tok.key)
        if t.tok.key == "manana" and k > 0 and tagged[k - 1].tok.key == "la":
            span = range(5, 12)  # "por la mañana"; "mañana" alone is tomorrow
        today = k > 0 and tagged[k - 1].tok.key in ("this", "esta", "ce", "cet", "heute", "today")
        if t.tag in (NEWTIME, "unknown") and span is not None and not today and any(h in span for h in hours):
            consistent.add(t.phrase)
    for t in tagged:
        if t.phrase in consistent:
            t.tag = "value"


# Spanish imperatives carry their objects: "mándaselos", "envíelo", "cancélela".
_CLITICS = (
    "selos",
    "selas",
    "selo",
    "sela",
    "melo",
    "mela",
    "noslo",
    "nosla",
    "los",
    "las",
    "lo",
    "la",
    "les",
    "le",
    "me",
    "nos",
)
_ES_GO_AHEAD = frozenset(
    [
        "pas",
        "mand",
        "envi",
        "hag",
        "haz",
        "proced",
        "reserv",
        "confirm",
        "pag",
        "cancel",
        "transfier",
        "tramit",
        "program",
        "realic",
        "pid",
        "apunt",
        "anot",
        "inscrib",
        "met",
        "pong",
        "gestion",
        "apart",
    ]
)


def _resolve_clitics(tagged: list[_Tagged], terms: frozenset[str]) -> None:
    for t in tagged:
        if t.tag not in ("unknown", "qterm") or t.phrase_len != 1:
            continue
        for clitic in _CLITICS:
            stem = t.tok.key.removesuffix(clitic)
            if stem == t.tok.key or len(stem) < 3:
                continue
            if _stem_match(stem, terms) or any(stem.startswith(v) for v in _ES_GO_AHEAD):
                t.tag = "qterm"
                t.clitic = True
                break


# What may follow a bare "si" for it still to be a yes: thanks and forms of address.
_AFTER_SI = frozenset(
    [
        "por",
        "favor",
        "gracias",
        "muchas",
        "muchisimas",
        "senor",
        "senora",
        "senorita",
        "merci",
        "beaucoup",
        "s'il",
        "vous",
        "plait",
        "svp",
        "stp",
        "monsieur",
        "madame",
    ]
)


def _resolve_si(tagged: list[_Tagged], lang: str) -> None:
    """Unaccented "si": yes when alone, repeated, after "que", or with only yes or polite words."""
    for k, t in enumerate(tagged):
        if t.tok.key != "si" or t.phrase_len != 1 or t.tag not in (COND, "unknown", AFF):
            continue
        if t.tok.raw == "sí":
            t.tag = AFF
            continue
        if lang not in ("es", "fr"):
            continue
        rest = tagged[k + 1 :]
        before = tagged[k - 1].tok.key if k else ""
        only_yes = all(u.tag == AFF or u.tok.key in _AFTER_SI or u.tok.key == "si" for u in rest)
        # "si cámbiemelo", "si a las ocho treinta": an imperative or the pending value, with no
        # verb of a clause of its own, cannot be a condition.
        no_clause = (
            bool(rest)
            and all(
                u.tag in (AFF, "value", NEUT) or u.clitic or u.tok.key in _AFTER_SI or u.tok.key == "si"
                for u in rest
            )
            and any(u.clitic or u.tag in (AFF, "value") for u in rest)
        )
        t.tag = AFF if only_yes or no_clause or (lang == "es" and before == "que") else COND


_DOUBLED = frozenset({"yeah", "yes", "sure", "ja", "si", "oui", "yep", "jaja"})
# After a doubled yes, a word no one says dismissively: "ja ja gerne", "yeah yeah please".
_WARM = frozenset({"gerne", "gern", "gladly", "please", "bitte", "volontiers", "encantado", "encantada"})


_LEAVE = frozenset(
    {"leave", "dejelo", "dejela", "dejalo", "dejala", "dejeselo", "laissez", "laisse", "lassen"}
)
_PLACES = frozenset(
    {
        *("with", "at", "in", "on", "by", "outside", "behind", "next", "under", "inside", "en", "con"),
        *("al", "ahi", "alli", "aqui", "chez", "devant", "derriere", "a", "bei", "vor", "an", "hinter"),
    }
)  # fmt: skip


_IRONY_BECAUSE = frozenset({"because", "cause", "'cause", "cuz", "coz", "since"})
_IRONY_SUBJECTS = frozenset(
    {"that", "it", "this", "that's", "it's", "thats", "its", "value", "he", "she", "they", "you"}
)
_INTENSIFIERS = frozenset(
    {
        *("always", "totally", "so", "really", "clearly", "obviously", "definitely", "never", "such"),
        *("well", "reasonable", "great", "brilliant", "fantastic", "lovely", "wonderful", "perfect"),
    }
)  # fmt: skip


def _resolve_irony(tagged: list[_Tagged]) -> None:
    """ "yeah because that always works", "sure, because 480 is totally reasonable": a "because"
    that praises the thing itself, after a yes, is irony."""
    for k, t in enumerate(tagged):
        if t.tok.key not in _IRONY_BECAUSE or not any(u.tag == AFF for u in tagged[:k]):
            continue
        clause = tagged[k + 1 :]
        if not clause or (clause[0].tok.key not in _IRONY_SUBJECTS and clause[0].tag != "value"):
            continue
        if any(u.tok.key in _INTENSIFIERS for u in clause):
            for u in [t, *clause]:
                u.tag = SARC


_STOP_ALONE = frozenset({"para", "alto", "halt"})
_AFTER_STOP = frozenset({"ya", "para", "eso", "por", "favor", "please", "bitte"})


def _resolve_stop_words(tagged: list[_Tagged]) -> None:
    """Spanish "para" is "stop" on its own ("¡para!", "para ya") and "for" before anything else."""
    for k, t in enumerate(tagged):
        if (
            t.tag == NEGVERB
            and t.tok.key in _STOP_ALONE
            and k + 1 < len(tagged)
            and tagged[k + 1].tok.key not in _AFTER_STOP
        ):
            t.tag = NEUT


_RHETORICAL = frozenset(
    {("why", "not"), ("por", "que", "no"), ("pourquoi", "pas"), ("warum", "nicht"), ("wieso", "nicht")}
)


def _rhetorical_yes(tagged: list[_Tagged]) -> bool:
    """ "Why not?", "¿por qué no?": a yes asked as a question, and nothing else."""
    words = tuple(t.tok.key for t in tagged if t.tok.key not in ("?", "¿"))
    return words in _RHETORICAL


def _resolve_leave(tagged: list[_Tagged]) -> None:
    """ "leave it with them", "déjelo en conserjería": where to put it, not "leave it be"."""
    for t in tagged:
        if t.tag != NEG or t.tok.key not in _LEAVE:
            continue
        phrase = [u for u in tagged if u.phrase == t.phrase]
        end = tagged.index(phrase[-1]) + 1
        if end < len(tagged) and tagged[end].tok.key in _PLACES:
            for u in phrase:
                u.tag = NEUT


def _resolve_eager(tagged: list[_Tagged]) -> None:
    """ "yeah yeah, book it", "sure sure order them": a doubled yes before the question's own verb
    is eagerness, not the sarcasm of "yeah yeah" on its own."""
    for k, t in enumerate(tagged):
        if t.tag != SARC or t.tok.key not in _DOUBLED:
            continue
        phrase = [u for u in tagged if u.phrase == t.phrase]
        if any(u.tok.key not in _DOUBLED for u in phrase):
            continue
        rest = tagged[k + len(phrase) :]
        if any(u.tag == SARC for u in rest):
            continue
        verb = next((u for u in rest if u.tag not in (NEUT, AFF, HES)), None)
        # "yeah yeah that's fine", "ja ja, für ein Jahr": a second yes of more than one word,
        # or the pending value, is eagerness too; "yeah yeah, sure" stays sarcasm.
        agrees = any(u.tag == AFF and (u.phrase_len > 1 or u.tok.key in _WARM) for u in rest) or any(
            u.tag == "value" for u in rest
        )
        if (verb is not None and (verb.tag == "qterm" or verb.clitic)) or agrees:
            for u in phrase:
                u.tag = AFF


def _resolve_aux(tagged: list[_Tagged]) -> None:
    """An auxiliary opening a clause, with a subject after it, asks a question."""
    for k, t in enumerate(tagged):
        if t.tag != QAUX:
            continue
        opens = k == 0 or tagged[k - 1].tag in (AFF, BUT, HES) or tagged[k - 1].tok.key in _CLAUSE_OPENERS
        opens = opens or (
            tagged[k - 1].tag == NEUT and tagged[k - 1].tok.key in ("please", "um", "uh", "oh", "so", "well")
        )
        # After thanks a new clause starts: "yes thanks, is that it", "danke, ist das alles".
        opens = (
            opens or tagged[k - 1].tok.key in _THANKS or tagged[k - 1].tok.key in ("you", "lovely", "cheers")
        )
        subject = k + 1 < len(tagged) and tagged[k + 1].tok.key in _SUBJECTS
        # A tag question ends the answer: "that's everything, is it", "it's done, isn't it".
        tag_question = (
            k == len(tagged) - 2
            and k > 0
            and subject
            and tagged[k + 1].tok.key in ("it", "that", "es", "das")
        )
        if (opens and subject) or tag_question:
            t.tag = QUEST
        else:
            t.tag = NEG if t.tok.key.endswith("n't") else NEUT  # "yes, won't" is no yes


_REASONS = {
    SARC: ("unclear", "sarcasm"),
    ELSE: ("unclear", "addressed to someone else"),
    COND: ("unclear", "condition"),
    QUEST: ("unclear", "question follows"),
}


def _verdict(
    tagged: list[_Tagged], new_values: list[str], terms: frozenset[str], said_values: int, person: bool
) -> AnswerReading:
    """The verdict from the resolved tags. ``said_values`` is how many of ``new_values`` were
    said as values (not a currency or a part of the question); ``person`` whether the question
    names a third person (then "he" and "she" are that person)."""
    tags = [t.tag for t in tagged]
    present = set(tags)
    for tag in (SARC, ELSE, COND, QUEST):
        if tag in present:
            answer, reason = _REASONS[tag]
            return AnswerReading(answer, f"{reason}: {_words(tagged, tag)}")  # type: ignore[arg-type]
    if new_values:
        if said_values == len(new_values) and _value_in_reason(tagged):
            # "yes, we've had no hot water since sunday": the value is in the caller's reason.
            return AnswerReading("unclear", "yes, then a reason with a value: " + ", ".join(new_values))
        return AnswerReading("change", "new value: " + ", ".join(new_values))
    for tag in (CHANGE, NEWTIME):
        if tag in present:
            if _in_reason(tagged, tag):
                # "yes, it's too expensive", "yes, I'm moving next week": the word is in the
                # caller's reason, not a change to the request; what the reason means is not read.
                return AnswerReading("unclear", f"yes, then a reason: {_words(tagged, tag)}")
            return AnswerReading("change", f"change word: {_words(tagged, tag)}")
    polar = [t for t in tagged if t.tag in (AFF, NEG, NEGVERB)]
    if SELF in present:
        return AnswerReading("unclear", f"does it themselves, or it is done: {_words(tagged, SELF)}")
    if polar and polar[0].tag == AFF and _negated_statements_only(tagged):
        # "yes, the package never arrived", "yes, I don't use it anymore": a reason with a
        # negation in it is no refusal; what it means for the action is not read here.
        return AnswerReading("unclear", f"yes, then a negated statement: {_words(tagged, NEG)}")
    if polar and polar[0].tag == AFF and NEG not in present and NEGVERB in present:
        # "yes, cancel it" where the question did not say cancel: which action is meant is
        # unknown, so it is neither a yes nor a refusal.
        return AnswerReading("unclear", f"yes, then: {_words(tagged, NEGVERB)}")
    if any(t.tag in (NEG, NEGVERB) for t in polar):
        last_no = max(k for k, t in enumerate(tagged) if t.tag in (NEG, NEGVERB))
        pause = [t for t in tagged[last_no + 1 :] if t.tag in (HES, CORR)]
        if polar[-1].tag in (NEG, NEGVERB) and pause:
            return AnswerReading("unclear", f"hesitation: {_words(tagged, HES, CORR)}")
        if polar[-1].tag in (NEG, NEGVERB):
            if any(t.tag == AFF for t in polar):
                return AnswerReading("no", f"corrected to no: {_words(tagged, NEG, NEGVERB)}")
            return AnswerReading("no", f"refusal: {_words(tagged, NEG, NEGVERB)}")
        return AnswerReading("unclear", "no then yes")
    for tag, reason in (
        (CORR, "self-correction"),
        (HES, "hesitation"),
        (DEFER, "defers"),
        (HEDGE, "hedged"),
        (BUT, "reservation"),
    ):
        if tag in present:
            return AnswerReading("unclear", f"{reason}: {_words(tagged, tag)}")
    unknown = [t.tok.raw for t in tagged if t.tag == "unknown"]
    if AFF not in present:
        if not unknown and _imperative(tagged, terms):
            return AnswerReading("yes", "the question's own request, restated")
        return AnswerReading("unclear", "no affirmative")
    if unknown:
        if _plain_reason(tagged, person):
            return AnswerReading("yes", "affirmative, then a reason: " + " ".join(unknown[:4]))
        return AnswerReading("unclear", "unrecognised: " + " ".join(unknown[:4]))
    if "value" in present or "qterm" in present:
        return AnswerReading("yes", "affirmative, restating the question")
    return AnswerReading("yes", "affirmative")


# A negation inside a statement after a yes ("it doesn't fit"), not a refusal ("yes... no").
_STATEMENT_NEGATIONS = frozenset(
    {
        *("not", "never", "don't", "doesn't", "didn't", "can't", "cannot", "won't", "isn't", "wasn't"),
        *("aren't", "haven't", "hasn't", "wouldn't", "shouldn't", "couldn't", "n't", "nicht", "nie"),
        *("kein", "keine", "keinen", "pas", "jamais", "n'est", "ne", "nunca", "jamas", "plus"),
    }
)
_STATEMENT_SUBJECTS = frozenset(
    {
        *("i", "it", "we", "they", "he", "she", "that", "this", "there", "i'm", "it's", "that's"),
        *("we're", "they're", "he's", "she's", "there's", "you", "je", "il", "elle", "on", "ich"),
        *("es", "er", "wir", "das", "yo", "ella", "el", "ellos", "ce", "c'est", "habe", "hab"),
        *("i've", "ive", "we've", "weve", "i'd", "we'd"),
    }
)
_ADVERBS = frozenset({"really", "just", "still", "even", "also", "da", "leider", "wirklich", "vraiment"})


_REASON_OPENERS = frozenset(
    {"because", "cause", "'cause", "cuz", "coz", "since", "porque", "parce", "car", "weil", "denn"}
)


def _in_reason(tagged: list[_Tagged], tag: str) -> bool:
    """Whether every word of ``tag`` comes after a yes, inside a statement with its own subject."""
    first = next((k for k, t in enumerate(tagged) if t.tag == AFF), None)
    if first is None:
        return False
    marked = [k for k, t in enumerate(tagged) if t.tag == tag]
    for k in marked:
        if k <= first:
            return False
        between = tagged[first + 1 : k]
        opener = any(
            (t.tok.key in _STATEMENT_SUBJECTS and t.tok.key not in ("that", "this", "you", "it"))
            or t.tok.key in _REASON_OPENERS
            for t in between
        )
        if not opener or any(t.tag in (AFF, BUT, CORR) for t in between):
            return False
    return True


def _negated_statements_only(tagged: list[_Tagged]) -> bool:
    """Whether every negation after the first yes negates a statement with its own subject."""
    first = next(k for k, t in enumerate(tagged) if t.tag == AFF)
    negations = [k for k, t in enumerate(tagged) if k > first and t.tag in (NEG, NEGVERB)]
    if not negations:
        return False
    for k in negations:
        t = tagged[k]
        if (
            t.tag == NEG
            and t.tok.key in _NE_PARTNERS
            and any(
                u.tok.key in ("ne", "n") or u.tok.key.startswith("n'")
                for u in tagged[max(first + 1, k - 3) : k]
            )
        ):
            continue  # the second half of "ne ... jamais": its "ne" is read on its own
        if t.tag == NEG and t.tok.key == "no" and _no_as_determiner(tagged, k):
            continue
        if t.tag != NEG or t.phrase_len > 1 or t.tok.key not in _STATEMENT_NEGATIONS:
            return False
        j = k - 1
        while j > first and (tagged[j].tok.key in _ADVERBS or tagged[j].tag == NEG):
            j -= 1
        before = tagged[j]
        if (
            j <= first
            or before.tag == AFF
            or not (before.tok.key in _STATEMENT_SUBJECTS or before.tag == "unknown")
        ):
            return False
    return True


_NE_PARTNERS = frozenset({"pas", "jamais", "plus", "rien", "personne", "guere"})
# "we've no hot water", "there's no signal": "no" before a noun, after a verb of having.
_HAVING = frozenset(
    {"i've", "ive", "we've", "weve", "have", "has", "had", "got", "there's", "theres", "is", "are"}
)


def _no_as_determiner(tagged: list[_Tagged], k: int) -> bool:
    """Whether the "no" at ``k`` says there is none of something, inside a statement."""
    return 0 < k < len(tagged) - 1 and tagged[k - 1].tok.key in _HAVING and tagged[k + 1].tag == "unknown"


# A reason after a yes opens with the caller as its subject ("I", "we", "my"), perhaps after
# "because"; Spanish "que" opens one before a verb of the caller's own ("que la necesito").
_REASON_SUBJECTS = frozenset(
    {
        *("i", "i'm", "im", "i've", "ive", "we", "we're", "were", "we've", "weve"),
        *("my", "our", "je", "j'ai", "nous", "ich", "wir", "mein", "meine", "unser"),
        *("unsere", "tengo", "estoy", "llevo", "necesito", "tenemos", "estamos", "mi", "nos", "me"),
        *("he", "hemos"),
    }
)  # fmt: skip
# "I'll ...", "we'll ...": the caller's own plan, not a plain reason ("yes, I'll confirm in the
# app"); a value after one is still theirs, not a change.
_PLAN_SUBJECTS = frozenset({"i'll", "ill", "we'll"})
_BECAUSE = frozenset(
    {"because", "cause", "'cause", "cuz", "coz", "since", "porque", "que", "parce", "car", "weil", "denn"}
)
# What may stand between the yes and its reason: more yes, thanks, fillers.
_BEFORE_REASON = frozenset(
    {
        *("please", "thanks", "thank", "you", "oh", "well", "um", "uh", "er", "erm", "so", "por"),
        *("favor", "gracias", "merci", "s'il", "vous", "plait", "bitte", "danke", "ok", "okay"),
    }
)  # fmt: skip
# Words that may carry more than a reason: another person, a wish or choice, a change, a time to
# come, money, an amount, something done already or by the caller, a reply to something else,
# irony. A reason holding one is not read.
_REASON_RISKS = frozenset(
    {
        *_PEOPLE, *("he", "she", "him", "her", "his", "hers", "they", "their", "someone"),
        *("somebody", "else", "want", "wanted", "wanna", "prefer", "rather", "like", "liked"),
        *("choose", "chose", "pick", "picked", "meant", "mean", "said", "say", "asked", "ask"),
        *("thought", "think", "hope", "wish", "guess", "suppose", "expect", "wonder", "wondering"),
        *("know", "knew", "sure", "instead", "different", "another", "other", "new", "change"),
        *("changed", "move", "moved", "moving", "switch", "swap", "replace", "address", "number"),
        *("wrong", "mistake", "error", "today", "tomorrow", "tonight", "weekend", "week", "weeks"),
        *("month", "months", "year", "years", "morning", "afternoon", "evening", "night", "day"),
        *("days", "later", "soon", "earlier", "early", "late", "next", "price", "cost", "costs"),
        *("fee", "fees", "charge", "charged", "cheaper", "expensive", "cheap", "money", "refund"),
        *("paid", "pay", "pounds", "dollars", "euros", "card", "account", "savings", "only"),
        *("carte", "tarjeta", "karte", "cuenta", "compte", "konto", "entends", "hore", "hoere"),
        *("verstehe", "comprends", "entiendo", "oigo", "escucho"),
        *("more", "less", "extra", "both", "all", "every", "each", "without", "with"),
        *("plus", "also", "too", "either", "or", "and", "understand", "understood", "heard"),
        *("ourselves", "yourself", "live", "lives", "living", "wohne", "vivo", "habite", "member"),
        *("hear", "see", "saw", "seen", "recognise", "recognize", "remember", "bought", "ordered"),
        *("did", "done", "made", "got", "received", "already", "own", "myself", "take", "taking"),
        *("bring", "told", "tell", "love", "hate", "favourite", "favorite", "wait", "choice"),
        *("totally", "obviously", "clearly", "queen", "king", "court", "deja", "schon"),
        *("bereits", "ya", "quiero", "prefiero", "otro", "otra", "nuevo", "nueva", "cambio"),
        *("cambiar", "manana", "semana", "mes", "ano", "hora", "veux", "voudrais", "prefere"),
        *("autre", "nouveau", "nouvelle", "demain", "semaine", "mois", "moi", "will", "mochte"),
        *("lieber", "andere", "neue", "neuen", "morgen", "woche", "monat", "jahr", "selbst"),
        # The need has gone: found, fixed, sorted, it turned up ("yes, I found it" to "freeze
        # your card?").
        *("found", "find", "finding", "located", "sorted", "sort", "fixed", "fix", "repaired"),
        *("solved", "resolved", "managed", "arrived", "turned", "showed", "came", "come", "back"),
        *("working", "works", "worked", "recovered", "returned", "cancelled", "canceled", "stopped"),
        *("gone", "went", "encontre", "encontrado", "encontrada", "aparecio", "arreglado", "trouve"),
        *("trouvee", "retrouve", "retrouvee", "regle", "repare", "gefunden", "erledigt"),
        *("repariert", "geklappt", "funktioniert", "wieder"),
        # Not yet decided, or not meant: "yes, we need to discuss it", "yes, I was joking".
        *("discuss", "talk", "consider", "decide", "consult", "mull", "review", "sarcastic"),
        *("joking", "kidding", "serious", "app", "online", "website", "web", "decided"),
        *("undecided", "doubt", "doubts", "concern", "concerns", "concerned", "worried", "worry"),
        *("unsure", "problem", "problems", "issue", "issues", "question", "questions"),
        *("hesitant", "reservations", "plaisante", "plaisantais", "blague", "rigole", "rigolais"),
        *("bromeando", "bromeaba", "broma", "spass", "scherz", "scherze", "gescherzt", "witz"),
    }
)  # fmt: skip
# "I'm a member", "I am the owner", "je suis le propriétaire", "soy el titular": who the caller
# is answers another question.
_IDENTITY = re.compile(
    r"^(?:i'm|im|i am|we're|we are|je suis|nous sommes|soy|somos|ich bin|wir sind|he's|she's|hes|shes|"
    r"they're) (?:a|an|the|un|une|le|la|el|ein|eine|der|die|das)?\b"
)
# With a question that names someone ("add your daughter as a driver?"), a reason may be theirs.
_THEIR_SUBJECTS = frozenset({"he", "she", "he's", "she's", "hes", "shes", "they", "they're", "his", "her"})
_THEIR_WORDS = frozenset({"he", "she", "him", "her", "his", "hers", "they", "them", "their"})
# A time word is the reason's own past, or the booked day, after these.
_PAST_TIME = frozenset({"last", "that", "all", "yesterday"})
_TIME_WORDS = frozenset(
    {"week", "day", "month", "year", "night", "morning", "afternoon", "evening", "weekend"}
)
_MAX_REASON_WORDS = 7


def _value_in_reason(tagged: list[_Tagged]) -> bool:
    """Whether every new value comes after a yes and a reason's opener ("yes, I finish at six")."""
    first = next((k for k, t in enumerate(tagged) if t.tag == AFF), None)
    values = [k for k, t in enumerate(tagged) if t.tag == "newvalue"]
    if first is None or not values or values[0] < first:
        return False
    openers = _REASON_SUBJECTS | _PLAN_SUBJECTS | _BECAUSE
    return any(t.tok.key in openers for t in tagged[first + 1 : values[0]])


def _plain_reason(tagged: list[_Tagged], person: bool = False) -> bool:
    """Whether the words the lexicon does not know are a plain reason after a yes.

    "yes please, I need it for a wedding", "yes, we ran out last night", "sí, que se nos ha
    acabado": right after the yes (and thanks or fillers), a clause with the caller as its
    subject, perhaps after "because", of at most seven unknown words, none of which could name
    another person, a wish or choice, a change, a time to come, money, something already done
    or done by the caller, a reply to another question, or irony. Anything else unknown keeps
    the answer ``unclear``.
    """
    first = next((k for k, t in enumerate(tagged) if t.tag == AFF), None)
    if first is None:
        return False
    k = first + 1
    while k < len(tagged) and (tagged[k].tag == AFF or tagged[k].tok.key in _BEFORE_REASON):
        k += 1
    if k < len(tagged) and tagged[k].tok.key in _BECAUSE:
        k += 1
    subjects = _REASON_SUBJECTS | (_THEIR_SUBJECTS if person else frozenset())
    if k >= len(tagged) or tagged[k].tok.key not in subjects:
        return False
    if _IDENTITY.match(" ".join(t.tok.key for t in tagged[k : k + 3])):
        return False  # "yes, I'm the homeowner", "ja, ich bin Mitglied": who they are
    risks = _REASON_RISKS - (_THEIR_WORDS if person else frozenset())
    clause = tagged[k + 1 :]
    if sum(t.tag == "unknown" for t in clause) > _MAX_REASON_WORDS:
        return False
    for j, t in enumerate(clause):
        if t.tag in ("value", "newvalue"):
            return False
        key = _bare(t.tok.key)
        if key in risks or key.removesuffix("'s") in risks:  # "my number's the same"
            before = clause[j - 1].tok.key if j else ""
            if t.tok.key not in _TIME_WORDS or before not in _PAST_TIME:
                return False  # "all week", "last night", "that morning" are the reason's own
    return True


# Object pronouns after a verb: "cancel it", "annulez-le", "stornieren Sie ihn".
_OBJECTS = frozenset(
    {
        *("it", "them", "that", "this", "lo", "la", "los", "las", "le", "les", "ihn", "sie", "es"),
        *("das", "me", "us"),
    }
)  # fmt: skip


def _imperative(tagged: list[_Tagged], terms: frozenset[str]) -> bool:
    """The question's verb said back with an object, and nothing else of weight: "cancel it"."""
    for k, t in enumerate(tagged):
        restated = t.tag == "qterm" or (t.tag == NEUT and t.phrase_len == 1 and _stem_match(t.tok.key, terms))
        if not restated:
            continue
        rest = [u.tok.key for u in tagged[k + 1 : k + 3]]
        if t.clitic or any(w in _OBJECTS for w in rest):
            return k == 0 or all(u.tag == NEUT for u in tagged[:k])
    return False


def _words(tagged: list[_Tagged], *tags: str) -> str:
    seen: list[str] = []
    for t in tagged:
        if t.tag in tags and t.tok.raw not in seen:
            seen.append(t.tok.raw)
    return " ".join(seen[:4])
