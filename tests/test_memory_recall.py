"""What reached the model: the held-out caller-memory set, through live text-mode calls.

Each caller says their facts in earlier calls (real ``AgentSession``s with a
``MemoryAgent``, chatter and the agent's filler included), corrects two of
them in a later call, and then asks about them in other words. What is
measured is the block the model was shown before each answer
(``ScriptedLLM.seen``), not a direct recall.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

import gate
from gate.memory.base import BEGIN, NOTHING_KNOWN, UNSURE
from gate.testing.llm import say
from tests.conftest import POLICIES, Calendar, make_tools
from tests.test_memory import Call

DATA = Path(__file__).parent / "data" / "memory_heldout.yaml"

# What the agent says back while the caller talks: filler and its own words, never facts.
AGENT_SAYS = ["Let me see.", "Okay, noted.", "Thanks for telling me.", "Got it.", "One moment.", "Sure."]
# What callers also say in a call: greetings, questions, filler. None of it is a fact.
CHATTER = ["hello", "um let me think", "okay thanks", "can you hear me", "what was i saying", "right"]

_STOP = frozenset(
    str.split(
        """
        a an the and or but so if then than that this these those there here it its is are was were be
        been being am do does did done have has had will would shall should can could may might must i
        me my mine myself we us our ours you your yours he him his she her they them their to of in on
        at by for with about from into onto over under up down out off as just also too very really
        what when where who whom whose which why how whats i'm im i've i'd i'll don't doesn't didn't
        isn't aren't wasn't not no yes any some all each every one ones get got go going anything
        something else ever kind sort way
        """
    )
)


@dataclass(frozen=True)
class Asked:
    caller: str
    question: str
    answer: str | None  # the line that must be in the top 3; None when nothing on file answers it
    stale: str | None = None  # a corrected fact that must not be shown


def _content(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", text.lower().replace("'", ""))
    stems = set()
    for w in words:
        if w in _STOP:
            continue
        for suffix in ("ing", "ed", "es", "s"):
            if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                w = w[: -len(suffix)]
                break
        stems.add(w)
    return stems


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _callers() -> list[dict[str, Any]]:
    callers: list[dict[str, Any]] = yaml.safe_load(DATA.read_text())["callers"]
    return callers


def test_the_set_is_what_it_claims_to_be() -> None:
    callers = _callers()
    pairs = [(c["id"], p) for c in callers for p in c["pairs"]]
    assert len(callers) >= 10 and len(pairs) >= 150
    for c in callers:
        # Every question has at least 30 facts of the same caller that do not answer it.
        assert len(c["pairs"]) - 1 + len(c["distractors"]) + 2 * len(c["corrections"]) >= 30
        assert c["corrections"] and c["unknown"]
        for p in c["pairs"]:
            assert not _content(p["fact"]) & _content(p["question"]), (c["id"], p)


def _block_lines(ctx: Any) -> tuple[str, list[str]]:
    """The block shown with the caller's latest words: its heading and its memory lines."""
    for item in reversed(ctx.items):
        text = item.text_content or "" if item.type == "message" else ""
        if (
            item.type == "message"
            and item.role == "system"
            and (text.startswith(BEGIN) or text.startswith(UNSURE) or text == NOTHING_KNOWN)
        ):
            heading, *rest = text.split("\n")
            return heading, [re.sub(r"^- \([^)]*\) ", "", line) for line in rest if line.startswith("- (")]
    raise AssertionError("no memory block reached the model")


def _shown(line: str, fact: str) -> bool:
    a, b = _norm(line), _norm(fact)
    return bool(a) and (a in b or b in a)


async def _earlier_calls(g: gate.Gate, c: dict[str, Any]) -> None:
    caller = gate.Caller(c["id"], verified=True, roles=frozenset({"customer"}))
    said = [p["fact"] for p in c["pairs"]] + list(c["distractors"]) + [k["before"] for k in c["corrections"]]
    # Interleaved, so facts of one topic are not said back to back.
    said = said[::2] + said[1::2]
    async with Call(g, caller, turn_budget_s=10.0) as call:
        for i, words in enumerate(said):
            if i % 7 == 3:
                await call.turn(CHATTER[i % len(CHATTER)], say(AGENT_SAYS[(i + 1) % len(AGENT_SAYS)]))
            await call.turn(words, say(AGENT_SAYS[i % len(AGENT_SAYS)]))
    async with Call(g, caller, turn_budget_s=10.0) as call:
        await call.turn("hi it's me again", say("Welcome back."))
        for k in c["corrections"]:
            await call.turn(k["after"], say("Let me see. Okay, updated."))


async def _ask(g: gate.Gate, caller_id: str, asked: list[Asked]) -> list[tuple[Asked, str, list[str]]]:
    caller = gate.Caller(caller_id, verified=True, roles=frozenset({"customer"}))
    shown = []
    # A generous budget: this measures what is recalled, not how fast (bench/memory.py does).
    async with Call(g, caller, turn_budget_s=10.0) as call:
        for a in asked:
            await call.turn(a.question, say("Let me check."))
            heading, lines = _block_lines(call.llm.seen[-1])
            shown.append((a, heading, lines))
    return shown


@pytest.fixture
async def g(home: Path, calendar: Calendar) -> Any:
    the_gate = gate.Gate(make_tools(calendar), policies=POLICIES)
    yield the_gate
    await the_gate.aclose()


async def test_heldout_set_reaches_the_model_through_live_calls(g: gate.Gate) -> None:
    results = []
    for c in _callers():
        await _earlier_calls(g, c)
        asked = [Asked(c["id"], p["question"], p["fact"]) for p in c["pairs"]]
        asked += [Asked(c["id"], k["question"], k["after"], stale=k["before"]) for k in c["corrections"]]
        asked += [Asked(c["id"], q, None) for q in c["unknown"]]
        results += await _ask(g, c["id"], asked)

    answerable = [(a, lines) for a, _, lines in results if a.answer is not None]
    hit = {id(a) for a, lines in answerable if any(_shown(line, a.answer or "") for line in lines[:3])}
    misses = [(a.caller, a.question, lines[:3]) for a, lines in answerable if id(a) not in hit]
    pairs = [a for a, _ in answerable if a.stale is None]
    fixed = [a for a, _ in answerable if a.stale is not None]
    pair_hits, fixed_hits = sum(id(a) in hit for a in pairs), sum(id(a) in hit for a in fixed)
    rate = len(hit) / len(answerable)
    report = "\n".join(f"  {who}: {q!r} -> {top}" for who, q, top in misses)
    pair_rate = pair_hits / len(pairs)
    print(
        f"\nlive top-3: {len(hit)}/{len(answerable)} ({rate:.1%}); paraphrased facts "
        f"{pair_hits}/{len(pairs)} ({pair_rate:.1%}), corrections {fixed_hits}/{len(fixed)}\n{report}"
    )
    assert rate >= 0.95, f"top-3 {len(hit)}/{len(answerable)}\n{report}"
    assert pair_rate >= 0.93, f"paraphrased facts {pair_hits}/{len(pairs)}\n{report}"

    # A corrected fact is history: the block never offers it next to its correction.
    corrected = [(a, lines) for a, _, lines in results if a.stale is not None]
    stale = [(a.question, a.stale) for a, lines in corrected if any(_shown(x, a.stale or "") for x in lines)]
    assert not stale, stale

    # Nothing on file answers these: the block says so, and holds no more than a few candidates.
    unknown = [(a, h, lines) for a, h, lines in results if a.answer is None]
    honest = [r for r in unknown if r[1] in (NOTHING_KNOWN, UNSURE) and len(r[2]) <= 3]
    print(f"unanswerable said as such: {len(honest)}/{len(unknown)}")
    assert len(honest) / len(unknown) >= 0.8, [(a.question, h[:40], lines) for a, h, lines in unknown]

    # Questions, greetings, filler and the agent's words never became facts about the caller.
    noise = {_norm(x) for x in [*AGENT_SAYS, *CHATTER, "Let me check.", "hi it's me again"]}
    assert not any(_norm(line) in noise for _, _, lines in results for line in lines)
