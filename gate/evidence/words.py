"""Word data the argument trace reads: units, directions, change markers, agreement.

Plain tables, one per job, named for what they say. Each is keyed by the
folded word (lower case, accents kept) and covers English, Spanish, French and
German where callers use those words.
"""

from __future__ import annotations

# What a number counts, by family: "a table for 2 people" counts people, "2 nights" a stay.
UNIT_FAMILIES: dict[str, frozenset[str]] = {
    "people": frozenset(
        {
            *("people", "person", "persons", "guest", "guests", "seat", "seats", "party", "pax"),
            *("passenger", "passengers", "traveler", "travelers", "traveller", "travellers"),
            *("rider", "riders", "adult", "adults", "ticket", "tickets", "diner", "diners"),
            *("attendee", "attendees", "of", "us", "them", "personas", "personnes", "personen", "gäste"),
            *("friends", "mates", "colleagues", "kids", "children", "pass", "passes"),
            *("folks", "ppl", "heads", "covers", "tix"),
            # "the size of the group": a group or a party counts people
            *("group", "groups", "grupo", "groupe", "gruppe"),
            # not "places": in English, what was found ("donato enoteca redwood city 3 places")
            *("plazas", "plätze", "billetes", "entradas", "billets", "karten", "tickets"),
        }
    ),
    "stay": frozenset(
        {
            *("night", "nights", "day", "days", "stay", "noches", "nuits", "nächte", "tage", "días"),
            *("dias", "jours", "nacht", "tag", "noche", "nuit", "jour", "día", "dia"),
        }
    ),
    "room": frozenset({"room", "rooms", "habitación", "habitaciones", "chambre", "chambres", "zimmer"}),
    # "2 bed rooms" and "3 star" count bedrooms and stars, not rooms or nights.
    "bedroom": frozenset({"bed", "beds", "bedroom", "bedrooms", "dormitorios", "pièces", "schlafzimmer"}),
    "bath": frozenset({"bath", "baths", "bathroom", "bathrooms", "baños", "bäder"}),
    "rating": frozenset({"star", "stars", "estrellas", "étoiles", "sterne", "stelle"}),
    "hour": frozenset(
        {"hour", "hours", "hr", "hrs", "horas", "hora", "heures", "heure", "stunden", "stunde"}
    ),
    "minute": frozenset({"minute", "minutes", "min", "mins", "minutos", "minuten"}),
    "week": frozenset({"week", "weeks", "wk", "wks", "fortnight", "semanas", "semaines", "wochen", "woche"}),
    "month": frozenset({"month", "months", "meses", "mes", "mois", "monate", "monat"}),
    "year": frozenset({"year", "years", "yr", "yrs", "años", "ans", "années", "jahre", "jahr"}),
    "bag": frozenset({"bag", "bags", "suitcase", "suitcases", "luggage", "maletas", "valises", "koffer"}),
    "kg": frozenset({"kg", "kilo", "kilos", "kilogram", "kilograms"}),
    "litre": frozenset({"litre", "litres", "liter", "liters"}),
    # Measures an agent reads out about a place or a day ("wind speed should average 5 miles per
    # hour", "a 22 percent chance of rain", "70 degrees"): they count nothing a call books.
    "distance": frozenset(
        {
            "mile",
            "miles",
            "mi",
            "km",
            "kms",
            "kilometer",
            "kilometers",
            "kilometre",
            "kilometres",
            "mph",
            "kph",
        }
    ),
    "percent": frozenset({"percent", "per cent", "pct", "%", "por ciento", "pour cent", "prozent"}),
    "temperature": frozenset({"degree", "degrees", "fahrenheit", "celsius", "grados", "degrés", "grad"}),
}
# Folded word -> family name.
UNIT_OF: dict[str, str] = {w: family for family, words in UNIT_FAMILIES.items() for w in words}
# Words that may stand between a number and what it counts ("2 adult tickets", "4 more people").
UNIT_FILLERS = frozenset({"more", "extra", "other", "additional", "adult", "grown", "full", "total", "in"})

# Argument names and descriptions that say a value is where something starts or ends.
FROM_WORDS = frozenset(
    {"from", "origin", "departure", "depart", "departing", "leaving", "pickup", "source", "start", "outbound"}
)
TO_WORDS = frozenset(
    {
        "to",
        "destination",
        "arrival",
        "arriving",
        "dropoff",
        "recipient",
        "payee",
        "target",
        "into",
        "beneficiary",
    }
)

# The verbs callers use for the moments arguments name: a drop-off is when the car is returned,
# a check-in when a guest arrives. Keyed by a word of an argument's name or description.
EVENT_VERBS: dict[str, tuple[str, ...]] = {
    "dropoff": ("return", "returning", "bring", "drop"),
    "pickup": ("collect", "collecting", "pick", "get"),
    "checkin": ("arrive", "arriving", "arrival", "check"),
    "checkout": ("leave", "leaving", "depart", "check"),
    "departure": ("leave", "leaving", "depart", "go"),
    "leaving": ("leave", "depart", "go"),
    "leaves": ("leave", "leaving", "depart", "go"),
    # where a journey starts: "I'd like to leave from Washington"
    "origin": ("leave", "leaving", "depart", "start", "go"),
    "arrival": ("arrive", "arriving", "get", "land"),
    "return": ("return", "returning", "come", "back"),
    "destination": ("go", "going", "head", "heading", "get"),
    "visit": ("see", "view", "visit", "tour"),
    "stay": ("stay", "staying", "remain"),
}

# An argument named with one of these is the other party the action is for (a transfer's payee).
RECIPIENT_WORDS = frozenset({"recipient", "payee", "beneficiary", "receiver", "addressee"})

# Phrasal verbs that say where someone gets to, whatever their first word does alone.
ARRIVING = frozenset({"end up", "wind up", "get to", "get there", "turn up", "show up", "get in"})

# Words that say a later value replaces an earlier one ("actually make it four", "instead").
CHANGE_MARKERS = frozenset(
    {
        *("actually", "instead", "rather", "change", "changed", "switch", "make it", "make that", "meant"),
        *("correction", "sorry", "no wait", "wait", "not", "scratch", "update", "move it", "now"),
        *("en realidad", "mejor", "en lugar", "en vez", "plutôt", "en fait", "finalement", "eigentlich"),
        *("doch", "lieber", "stattdessen", "au lieu"),
        # a change of mind said as such ("on second thoughts eighty")
        *("on second thought", "on second thoughts", "second thoughts", "come to think of it"),
    }
)
# Words that put a value in the place of another ("tuesday instead", "plutôt jeudi"): said with
# the request's own value, they change it to that value and take nothing back.
SUBSTITUTES = frozenset(
    {"instead", "rather", "en lugar", "en vez", "plutôt", "au lieu", "stattdessen", "lieber"}
)
# Words that say a later request is another one besides the first ("and also order B-22").
ALSO_MARKERS = frozenset(
    {"also", "too", "as well", "another", "and", "plus", "second", "también", "aussi", "auch", "noch"}
)

# Verbs and function words that stand before a name without being part of it ("try Lotus",
# "book Sino"); a longer name is another word of the same name ("rose gold", "Gold Plus").
BEFORE_NAME = frozenset(
    {
        *("try", "want", "like", "love", "prefer", "pick", "choose", "take", "get", "book", "reserve"),
        *("find", "play", "watch", "hear", "see", "visit", "go", "fly", "stay", "eat", "order", "rent"),
        *("call", "at", "in", "to", "from", "with", "for", "on", "near", "called", "named", "is", "was"),
        *("about", "by", "into", "and", "or", "me", "us", "the", "a", "an", "how", "what", "does", "do"),
        *("check", "search", "look", "looking", "need", "send", "pay", "transfer", "move", "put", "use"),
        *("listen", "stream", "show", "schedule", "leave", "head", "heading", "going", "travel", "drive"),
        *("ride", "cab", "taxi", "called", "titled", "film", "movie", "song", "track", "album", "restaurant"),
        *("hotel", "place", "city", "town", "either", "maybe", "perhaps", "then", "so", "ok", "okay", "yes"),
        *("name", "names", "title", "label"),
        *("yeah", "sure", "great", "good", "like", "think", "guess", "also", "just", "only", "really"),
        *("probably", "definitely", "let's", "lets", "shall", "should", "would", "could", "can", "will"),
        *("en", "à", "a", "de", "para", "pour", "nach", "zu", "in", "bei", "im", "al", "au", "aux"),
    }
)

# Words that may stand right beside a name without making it another name ("my gold plan
# please"): function words, politeness, time, states and order words.
_LEGACY_BESIDE = frozenset(
    {
        *("please", "thanks", "now", "today", "tomorrow", "tonight", "asap", "too", "also", "then", "one"),
        *("ones", "so", "because", "but", "or", "if", "when", "right", "away", "immediately", "instead"),
        *("anymore", "again", "already", "is", "was", "are", "it", "that", "i", "we", "you", "effective"),
        *("current", "existing", "old", "present", "new", "just", "straight", "thank", "cheers", "ok"),
        *("okay", "yes", "yeah", "which", "who", "since", "as", "well", "all", "any", "whole", "entire"),
        *("there", "here", "not", "no", "never", "thing", "stuff", "etc", "actually", "really", "after"),
        *("things", "bit", "bits", "lot"),  # "the sports bit": a word that stands for the thing
        *("before", "until", "till", "about", "during", "into", "onto", "off", "out", "up", "down"),
        *("over", "under", "through", "via", "per", "than", "like", "each", "every", "this", "these"),
        # a verb's particle said after whom it is for ("pay jo back", "send dad round")
        *("back", "round", "around", "along", "away"),
        *("those", "they", "he", "she", "us", "them", "him", "her", "his", "their", "its", "mine"),
        *("my", "our", "your", "yours", "ours"),
        *("has", "have", "had", "do", "does", "did", "will", "would", "can", "could", "should", "must"),
        *("shall", "may", "might", "be", "been", "being", "were", "am", "what", "where", "how", "why"),
        *("no", "nor", "yet", "still", "even", "only", "else", "matter", "either", "neither", "both"),
        # Conjunctions, which open a clause of their own ("7 quay street while i'm there").
        *("while", "whilst", "although", "though", "unless", "whereas", "cos", "cause", "once"),
        # States, which say how a thing is left, not which thing ("leave it active").
        *("active", "inactive", "open", "running", "going", "enabled", "working", "alone", "unchanged"),
        # Order and quantity, which say which one, not what kind ("a second visit").
        *("first", "second", "third", "another", "next", "other", "extra", "additional", "further"),
        *("more", "less", "fewer", "some", "much", "enough"),
        *("same", "usual", "regular", "normal", "quick", "short", "follow", "later", "earlier", "last"),
        # Determiners and possessives of the other languages callers use.
        *("mein", "meine", "meinen", "meinem", "meiner", "den", "die", "das", "der", "dem", "ein"),
        *("eine", "einen", "le", "la", "les", "mon", "ma", "mes", "un", "une", "el", "los", "las"),
        *("mi", "mis", "una", "de", "du", "des", "del", "al", "bitte", "por", "favor"),
    }
)
BESIDE_NAME = _LEGACY_BESIDE | BEFORE_NAME

# Words of agreement a caller takes up an offer with ("that works", "sounds good", "perfect").
AGREEMENT = frozenset(
    {
        *("yes", "yeah", "yep", "yup", "sure", "ok", "okay", "alright", "fine", "great", "perfect"),
        *("good", "works", "work", "sounds", "nice", "excellent", "lovely", "brilliant", "cool"),
        *("absolutely", "definitely", "correct", "right", "exactly", "please", "wonderful", "awesome"),
        *("ideal", "fantastic", "superb", "terrific", "fabulous", "splendid", "marvellous", "agreed"),
        *("certainly",),
        *("sí", "si", "vale", "claro", "perfecto", "bien", "bueno", "oui", "d'accord", "parfait"),
        *("ja", "gut", "genau", "passt", "prima", "super", "klar", "gerne", "gern", "bon", "dale"),
    }
)
# Words of refusal that turn an offer down ("no", "not that one", "something else").
REFUSAL = frozenset(
    {
        *("no", "nope", "nah", "not", "don't", "dont", "else", "other", "another", "different"),
        *("neither", "none", "never", "non", "nein", "nicht", "kein", "otro", "otra", "autre", "andere"),
    }
)

# Closing politeness that says nothing for or against a request ("thanks", "that's all").
CLOSING = frozenset(
    {
        *("thanks", "thank", "you", "cheers", "ta", "great", "perfect", "lovely", "that's", "that", "is"),
        *("all", "it", "for", "now", "bye", "goodbye", "much", "very", "so", "ok", "okay", "cool"),
        *("gracias", "merci", "danke", "vielen", "muchas", "beaucoup", "schön", "sehr", "works", "me"),
        *("fine", "good", "sounds", "awesome", "wonderful", "brilliant", "appreciate", "it", "nice"),
    }
)

# Other names callers use for well-known places ("SF" is San Francisco, "NYC" New York): a value
# said by one of these is said. Keys and values are folded.
PLACE_NAMES: dict[str, tuple[str, ...]] = {
    "san francisco": ("sf", "san fran", "frisco", "sfo"),
    "new york": ("ny", "nyc", "new york city", "the big apple", "manhattan"),
    "los angeles": ("la", "l.a.", "l a", "lax"),
    "las vegas": ("vegas",),
    "philadelphia": ("philly",),
    "washington": ("dc", "d.c.", "washington dc", "washington d.c.", "district of columbia"),
    "washington d.c.": ("dc", "d.c.", "washington dc", "washington", "district of columbia"),
    "mexico city": ("cdmx", "ciudad de mexico", "ciudad de méxico", "mexico df"),
    "atlanta": ("atl",),
    "kuala lumpur": ("kl",),
    "portland": ("pdx",),
    "san jose": ("sj", "sjc"),
    "san diego": ("sd",),
    "new orleans": ("nola",),
    "chicago": ("chi-town", "chi town", "chitown"),
    "london": ("ldn",),
}

# Relative days, by language: the number of days after the call's date.
RELATIVE_DAYS: dict[str, int] = {
    "today": 0,
    "tonight": 0,
    "this evening": 0,
    "this afternoon": 0,
    "this morning": 0,
    "tomorrow": 1,
    "day after tomorrow": 2,
    "the day after tomorrow": 2,
    "hoy": 0,
    "esta noche": 0,
    "mañana": 1,
    "manana": 1,
    "pasado mañana": 2,
    "aujourd'hui": 0,
    "ce soir": 0,
    "demain": 1,
    "après-demain": 2,
    "heute": 0,
    "heute abend": 0,
    "morgen": 1,
    "übermorgen": 2,
}
# Words before a weekday that put it in the week after the coming one.
WEEK_AFTER = frozenset({"next", "nächsten", "nächster", "prochain", "prochaine", "próximo", "proximo"})

# English past participles that do not end in -ed, by their verb ("i want my card frozen",
# "get it sent"): a participle after a thing ends the thing and may name the action.
IRREGULAR_PARTICIPLES: dict[str, str] = {
    **{"frozen": "freeze", "chosen": "choose", "stolen": "steal", "broken": "break", "written": "write"},
    **{"driven": "drive", "given": "give", "taken": "take", "shown": "show", "sold": "sell"},
    **{"bought": "buy", "brought": "bring", "held": "hold", "shut": "shut", "cut": "cut", "sent": "send"},
    **{"paid": "pay", "done": "do", "made": "make", "kept": "keep", "lost": "lose", "spent": "spend"},
    **{"withdrawn": "withdraw", "undone": "undo", "rebuilt": "rebuild", "redone": "redo", "reset": "reset"},
    **{"unfrozen": "unfreeze", "dealt": "deal", "split": "split", "put": "put", "set": "set"},
}


# What a verb does, by class: a request with a verb of another class than the action's is for
# another action ("cancel" is not "ship", "refund" is not "pay"); verbs of one class ask for the
# same kind of thing in other words ("reserve the bus" buys its tickets).
VERB_CLASSES: dict[str, str] = {
    **dict.fromkeys(
        (
            *("book", "reserve", "schedule", "buy", "order", "purchase", "rent", "hire", "arrange", "make"),
            *("set", "add", "sign", "enrol", "enroll", "register", "play", "call", "send", "transfer", "pay"),
            *("get", "grab", "start", "open", "subscribe", "join", "deliver", "ship", "release", "dispatch"),
            *("wire", "settle", "deposit", "put", "stream", "cast", "watch", "listen", "visit", "see"),
            *("fit", "pencil", "squeeze", "refill", "renew", "issue", "create", "apply", "claim"),
            *("file", "lodge", "submit", "report", "reorder"),
        ),
        "create",
    ),
    # A new one in place of the old: issued again, not held, ended or paid ("replace my card"
    # freezes nothing, "reissue invoice INV-77" pays nothing).
    **dict.fromkeys(("replace", "reissue", "resend", "reprint"), "replace"),
    # Making what the caller already has last longer or come to more: no new one made ("extend my
    # hotel in rome by 3 nights" books no hotel). Another supply or another term of it ("refill",
    # "renew") is one more made.
    **dict.fromkeys(("extend", "top", "raise", "increase", "prolong", "lengthen", "topup"), "extend"),
    # ... or shorter or less: no new one made either ("shorten my hotel booking to 2 nights").
    **dict.fromkeys(("shorten", "reduce", "decrease", "lessen", "trim", "discount"), "reduce"),
    # Putting a thing down in writing: nothing done to it ("i want my appointment written down").
    **dict.fromkeys(("write", "note"), "note"),
    **dict.fromkeys(
        (
            *("cancel", "end", "stop", "terminate", "drop", "close", "delete", "remove", "unsubscribe"),
            *("quit", "scrap", "ditch", "axe", "lose", "cut", "discontinue"),
        ),
        "remove",
    ),
    # Putting a thing on hold, to be taken up again: not its end ("pause my gold plan").
    **dict.fromkeys(("pause", "suspend", "freeze", "block", "lock"), "pause"),
    **dict.fromkeys(
        (
            *("move", "change", "switch", "reschedule", "update", "upgrade", "downgrade", "swap", "shift"),
            *("push", "exchange"),
        ),
        "change",
    ),
    **dict.fromkeys(("refund", "return", "reimburse", "repay", "credit"), "refund"),
    # ... or leaving it as it is, said to be so ("i'd like my friday appointment confirmed")
    **dict.fromkeys(("keep", "hold", "retain", "leave", "confirm"), "keep"),
    # Seeing to a thing that is wrong: none of the above ("chase her for it"). Not "fix", which
    # also arranges ("fix an appointment for the 10th").
    **dict.fromkeys(("repair", "investigate", "chase", "dispute", "troubleshoot", "mend"), "repair"),
    # Sharing a cost or a thing with somebody: nothing sent to them, bought or ended ("split the 50
    # dinner bill with maria" pays Maria nothing by itself).
    **dict.fromkeys(("split", "share", "divide", "halve"), "share"),
}

# Verbs of actions that bring their thing about for the caller (book, order, hire, open, refill):
# a caller who wants the thing asks for the action ("i need a dentist appointment"); for the
# others of the "create" class (pay, send, deliver, report) the thing exists already, and
# wanting it ("i need the invoice") asks for no payment.
OBTAINING = frozenset(
    {"book", "reserve", "schedule", "arrange", "pencil", "squeeze", "fit", "order", "reorder"}
    | {"buy", "purchase", "hire", "rent", "get", "grab", "make", "create", "open", "join"}
    | {"enrol", "enroll", "register", "sign", "subscribe", "apply", "renew", "refill", "issue", "add"}
)

# Verbs that say only that something is to be done: the action is the noun after them ("arrange a
# return", "make a payment", "set up a transfer", "get a refund"), so its class is the noun's.
LIGHT_VERBS = frozenset(
    {"arrange", "make", "set", "place", "request", "organise", "organize", "process", "do", "raise"}
    | {"initiate", "start", "get", "have", "issue", "sort", "put", "book"}
)

# The verb an action noun names ("a return" is returning): read after a light verb.
ACTION_NOUN_VERBS: dict[str, str] = {
    **dict.fromkeys(("return", "returns"), "return"),
    **dict.fromkeys(("refund", "refunds"), "refund"),
    "reimbursement": "reimburse",
    **dict.fromkeys(("payment", "overpayment", "repayment"), "pay"),
    "transfer": "transfer",
    **dict.fromkeys(("cancellation", "termination"), "cancel"),
    **dict.fromkeys(("booking", "reservation"), "book"),
    "purchase": "buy",
    "renewal": "renew",
    "upgrade": "upgrade",
    "downgrade": "downgrade",
    "delivery": "deliver",
    "repair": "repair",
    "refill": "refill",
    "extension": "extend",
    "suspension": "suspend",
    "closure": "close",
    "removal": "remove",
    "deletion": "delete",
    "deposit": "deposit",
    "replacement": "replace",
}

# Verbs that ask to know or see something, not to change it: a request with one of them is
# never a request to book, pay or cancel ("find me a restaurant in Danville").
# Sizes and speeds said with a spoken unit ("ten gig" is 10GB, "500 meg" 500Mb): the unit words
# of each scale, as written after a number and as said.
DATA_UNITS: dict[str, frozenset[str]] = {
    "giga": frozenset({"gb", "gig", "gigs", "gigabyte", "gigabytes", "gigabit", "gigabits", "gbps", "gbit"}),
    "mega": frozenset({"mb", "meg", "megs", "megabyte", "megabytes", "megabit", "megabits", "mbps", "mbit"}),
    "tera": frozenset({"tb", "tera", "terabyte", "terabytes"}),
}
DATA_UNIT_OF: dict[str, str] = {w: scale for scale, units in DATA_UNITS.items() for w in units}

# Values that are an absence ("None" subtitles, no extras): a no that says one gives the value.
ABSENCE = frozenset(
    {"none", "no", "nothing", "without", "n/a", "ninguno", "ninguna", "aucun", "aucune", "kein", "keine"}
)

# Where a person keeps money: a sum sent to "maria's account" or "tom's card" is sent to them.
MONEY_HOLDERS = frozenset({"account", "accounts", "bank", "card", "wallet", "cuenta", "compte", "konto"})

# Verbs with a second sense beside their class above, by the words they are said with: "hold a
# table for us" and "save us a spot" book, "drop the box round" delivers, "drop me down to
# basic" changes. A verb asks for another action only when none of its senses is the action's.
OTHER_SENSES: dict[str, frozenset[str]] = {
    "hold": frozenset({"create"}),
    "save": frozenset({"create"}),
    "drop off": frozenset({"create"}),
    "drop round": frozenset({"create"}),
    "drop by": frozenset({"create"}),
    "drop over": frozenset({"create"}),
    "drop down": frozenset({"change"}),
    # "replace my address with 3 bay view": a value put in another's place is a change
    "replace": frozenset({"change"}),
    # "confirm the table for 4 on friday": a yes to making it
    "confirm": frozenset({"create"}),
}

# Things that are a meeting with whoever the query names them by ("a dentist appointment", "a
# session with the physio"), and the verbs of having one ("see the dentist").
MEETINGS = frozenset(
    {"appointment", "appointments", "consultation", "session", "checkup", "check-up", "meeting", "visit"}
)
MEETING_VERBS = frozenset({"see", "meet", "visit", "consult"})

INQUIRY = frozenset(
    {
        *("find", "search", "look", "check", "show", "tell", "see", "know", "list", "browse", "compare"),
        *("recommend", "suggest", "explain", "describe", "ask", "wonder", "quote", "estimate", "price"),
        *("track", "trace", "locate"),
        *("busca", "buscar", "encuentra", "chercher", "cherchez", "trouve", "suchen", "finden", "zeigen"),
    }
)
# Verbs of telling somebody about a thing or going over it ("remind tom about the 50", "email
# me the invoice", "verify the amount"): another action than one that books, pays or changes it.
TELLING = frozenset(
    {"remind", "notify", "email", "e-mail", "text", "message", "print", "scan", "verify", "review"}
)
# The verbs of an inquiry that look for things, not for facts: "find me an apartment" starts
# another task, "tell me the bus station" asks about this one.
SEEKING = frozenset(
    {
        *("find", "search", "look", "locate", "browse", "recommend", "suggest"),
        *("busca", "buscar", "encuentra", "chercher", "cherchez", "trouve", "suchen", "finden"),
    }
)
# Counting the people a request is for: "me and my wife" is two, "me and three friends" four.
PEOPLE = frozenset(
    {
        *("friend", "friends", "mate", "mates", "colleague", "colleagues", "kid", "kids", "child"),
        *("children", "guest", "guests", "people", "others", "family", "parents", "sons", "daughters"),
    }
)
PARTNERS = frozenset(
    {
        *("wife", "husband", "partner", "colleague", "friend", "mate", "son", "daughter", "mum", "mom"),
        *("dad", "brother", "sister", "boyfriend", "girlfriend", "fiance", "fiancee", "boss", "kid"),
        *("other half", "hubby", "missus", "plus one"),
    }
)

# Things callers name in Spanish, French and German, as :data:`FOREIGN_VERBS` gives them (stems
# matched at a word's start, three letters or fewer as whole words): read only for what a request
# asks the action on ("envía 75 dólares a la cuenta ...": the account), never as its verb.
FOREIGN_THINGS: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = tuple(
    (frozenset(english.split("|")), tuple(stems.split("|")))
    for english, stems in (
        ("account|bank account", "cuenta|compte|konto"),
        ("card|bank card", "tarjeta|carte|karte"),
        ("subscription|plan|membership", "suscripci|subscripci|abonnement|abo"),
        ("invoice|bill", "factura|facture|rechnung|recibo"),
        ("order", "pedido|commande|bestellung"),
        ("appointment|booking|slot", "cita|rendez|termin"),
        ("insurance|cover|policy", "seguro|assuranc|versicherung"),
        ("prescription", "receta|ordonnanc|rezept"),
        ("meter|reading", "contador|compteur|zähler|zahler|zählerstand"),
        ("direct debit|debit", "prélèvement|prelevement|domiciliaci|lastschrift"),
        ("engineer|technician", "técnico|tecnico|technicien|techniker"),
        ("delivery|parcel", "entrega|livraison|lieferung"),
    )
)

# Words callers use for the same action or the same thing in customer-service speech.
FAMILIES: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split("|"))
    for group in (
        "cancel|end|stop|terminate|drop|quit|discontinue|get rid of|unsubscribe|close|want out|opt out|shut|"
        "call off|call it off|scrap",
        "plan|subscription|membership|package|contract|tariff|bundle|service|account|tier",
        # what a bank keeps money in for a caller, besides an account ("the savings pot")
        "account|accounts|pot|pots|jar|vault|savings pot",
        "refund|money back|reimburse|repay|refunded|credit back|my money|give me back|give me my",
        "return|send back|sending back|bring back|give back|take back",
        "pay|settle|payment|transfer|send|wire|move money|deposit",
        "deliver|delivery|deliveries|drop off|drop it|drop round|drop by|bring round|bring|ship|shipping|"
        "parcel|receive|courier|leave|send|post",
        # A package is also what a plan is sold as: the thing delivered, in a family of its own.
        "parcel|parcels|package|packages|packet|delivery|box|boxes",
        "visit|come out|come round|come over|come by|call out|callout|technician|engineer|appointment",
        "home|house|flat|apartment|my place",
        "book|reserve|schedule|booking|reservation|appointment|slot|sign up|sign me up|enrol|enroll|register|"
        "join|get in|fit me in|put me down|see the|come in|pop in",
        # A seat is had at a table, on a flight or on a bus: in each of their families.
        "table|restaurant|dinner|lunch|breakfast|brunch|seat|seats",
        "flight|fly|flying|plane|airline|trip|seat|seats",
        "bus|seat|seats|trip|journey",
        "train|trains|rail|railway",
        "hotel|room|stay|check in|check-in|accommodation|reservation",
        "move|change|switch|reschedule|push|shift|update|swap|put|redirect|forward|send",
        "address|live|living|moved|moving|residence",
        "remove|take off|take out|drop|get rid of|delete",
        "add-on|addon|extra|bolt-on|option|channel",
        "insurance|cover|policy|protection",
        "invoice|bill|statement",
        "order|purchase|item|buy|get me|have",
        "money|cash|funds|balance|amount|sum|payment",
        "car|vehicle|wheels|hire car|rental|van",
        "phone|mobile|line|sim",
        "mail|post|letters|correspondence",
        "tour|trip|excursion|outing|visit|walk|walking tour",
        "bag|bags|suitcase|suitcases|luggage|holdall",
        "bin|bins|wheelie|wheelies|wheelie bin|tonne|poubelle|cubo",
        "taxi|cab|car|ride|minicab|lift",
    )
)

# Words for a kind of thing a caller holds, said after the value that names it ("the sports
# package", "the movies bundle", "the gold tier"): the value says which thing, the word only
# what sort, and callers use them for one another.
# Things a caller asks to know and never books: a search for one ("tell me the weather for
# March 8th") says nothing of the request's values.
INFORMATION_THINGS = frozenset(
    {"weather", "forecast", "temperature", "humidity", "wind", "winds", "rain", "traffic", "news"}
)

# Words that pick one thing out without saying what it is ("a specific doctor", "the given
# date"): a frame's thing is the word after them.
PICKING_WORDS = frozenset(
    {"specific", "particular", "given", "certain", "chosen", "selected", "preferred", "desired", "requested"}
)

KINDS_OF_ITEM = frozenset(
    {
        *("plan", "subscription", "membership", "package", "pack", "tariff", "bundle", "tier", "deal"),
        *("service", "add-on", "addon", "extra", "bolt-on", "option", "one", "thing", "bit", "product"),
        # the same words in the other languages callers use ("Starter-Tarif", "forfait gold")
        *("tarif", "tarifa", "paket", "abo", "abonnement", "vertrag", "forfait", "paquete", "contrato"),
        *("suscripción", "suscripcion", "mitgliedschaft", "membresía", "membresia", "adhésion"),
    }
)

# Values that exclude one another: a caller who asked for one and later says
# another of the same group has changed it ("business class" → "economy is
# fine"). Each group lists one kind of choice a booking offers, in the
# languages gate reads; a value matches a group when it says one of its words.
ALTERNATIVES: tuple[tuple[str, ...], ...] = (
    # parts of the day
    (
        *("morning", "afternoon", "evening", "night", "lunchtime", "midday"),
        *("mañana", "tarde", "noche", "matin", "matinée", "après-midi", "soir", "soirée"),
        *("vormittag", "nachmittag", "abend", "nacht"),
    ),
    # cabins and travel classes
    (
        "economy",
        "premium economy",
        "business",
        "first class",
        "coach",
        "standard class",
        "turista",
        "affaires",
    ),
    # seats
    ("window", "aisle", "middle seat", "ventana", "pasillo", "hublot", "couloir", "fenster"),
    # rooms and beds
    (
        "single",
        "double",
        "twin",
        "suite",
        "king",
        "queen",
        "individual",
        "doble",
        "simple",
        "einzelzimmer",
        "doppelzimmer",
    ),
    # sizes
    (
        "small",
        "medium",
        "large",
        "extra large",
        "pequeño",
        "mediano",
        "grande",
        "petit",
        "moyen",
        "klein",
        "mittel",
        "groß",
    ),
    # classes of hire car
    (
        *("mini", "economy", "compact", "intermediate", "midsize", "mid-size", "standard", "full-size"),
        *("fullsize", "full size", "premium", "luxury", "suv", "minivan", "convertible", "people carrier"),
    ),
    # speed of delivery
    ("standard", "express", "next day", "next-day", "overnight", "same day", "same-day", "economy delivery"),
    # seats in a venue
    ("stalls", "circle", "balcony", "general admission", "vip", "front row"),
)

# The verbs of the families above as callers say them in Spanish, French and German: stems,
# matched at a word's start ("reserv" is reservar, réserver, reservieren), three letters or
# fewer only as whole words. The English words say which family; no stem starts a common
# English word of another family.
FOREIGN_VERBS: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = tuple(
    (frozenset(english.split("|")), tuple(stems.split("|")))
    for english, stems in (
        ("book|reserve|schedule|booking|reservation", "reserv|réserv|buche|buchen|gebucht|apúnt|apunt|agend"),
        (
            "cancel|end|stop|terminate|unsubscribe",
            "cancel|anul|annul|résili|resili|kündig|kundig|storn|baja|désabonn|desabonn|abbestell|abmeld|"
            "beend|arrêt|arret",
        ),
        (
            "pay|settle|payment",
            "pagar|pague|pago|págu|régl|regl|payer|paie|payez|zahl|bezahl|begleich|abonar|abóne|abone",
        ),
        (
            "refund|reimburse|money back|return",
            "devolv|devuelv|devuélv|reembols|rembours|erstatt|zurückerstatt|rückerstatt",
        ),
        (
            "send|transfer|wire|pay",
            "envía|envia|enviar|envíe|envoy|transfer|transfér|virez|virer|virement|überweis|uberweis|schick|mánd|mandar",
        ),
        (
            "move|change|switch|swap|update",
            "cambi|chang|änder|wechsel|umstell|pásame|pasarme|passer|passez|umbuch|verschieb|verleg|"
            "décal|decal|déplac|deplac",
        ),
        ("deliver|delivery|ship", "entreg|livr|liefer|zustell|tráig|traig|traer|apport"),
        ("block|freeze|suspend|pause", "sperr|bloque|bloqu|congel|pausier"),
        ("open", "abrir|abra|abran|abre|ábrame|abrame|ouvr|eröffn|eroffn"),
        # not "activ" or "deposit": English words start so ("active", "the deposit")
        (
            "turn on|enable|activate|switch on",
            "activa|activez|activer|activen|aktivier|einschalt|encend|allum",
        ),
        ("turn off|disable|deactivate|switch off", "desactiv|désactiv|deaktivier|ausschalt|abschalt"),
        ("subscribe|sign up|join", "abonn|suscrib|suscríb|abonnier|inscri"),
        ("deposit|pay in", "ingres|deposita|deposite|deposez|deposer|einzahl"),
        ("submit|report", "transmet|communiqu|übermittel|ubermittel|mitteil"),
        ("refill|renew|reorder", "renov|renuev|renouvel|erneuer|nachbestell"),
        ("extend|prolong|lengthen", "alarg|prolong|rallong|verlänger|verlanger"),
        ("shorten|reduce|cut", "acort|raccourc|verkürz|verkurz"),
        ("add|include", "añad|anad|agreg|ajout|hinzufüg|hinzufug"),
        ("replace", "reemplaz|remplac|ersetz|sustitu"),
        ("unlock|unblock|unfreeze", "desbloque|débloqu|debloqu|entsperr|freischalt"),
        ("remove|take off|drop|delete", "quít|quitar|quita|sacar|sáca|enlev|entfern|supprim|elimin"),
        ("car|rental|hire car", "alquil|coche|voiture|louer|loue|miet|mietwagen"),
        ("flight|fly|flying", "vuelo|volar|vol|vols|flieg|flug"),
        ("table|restaurant|dinner|lunch", "mesa|cenar|comer|dîner|diner|déjeuner|tisch|essen"),
        ("hotel|room|stay|accommodation", "habitaci|chambre|zimmer|hôtel|übernacht"),
    )
)
# The rows of :data:`FOREIGN_VERBS` that name a thing, with the verbs said of it ("alquilar un
# coche", "una mesa"): no verb of another action when a verb is said beside them.
FOREIGN_THING_ROWS = frozenset({"car", "flight", "table", "hotel"})
