"""A minimal LiveKit agent whose one consequential tool goes through gate.

    python agent.py [HOME]     # offline: a scripted model and caller, no keys, no network

The whole path in one file: a gated tool and its policy (``policies/refund_order.yaml``),
the caller bound from the session (never from the model), the gate's spoken
confirmation, the tool running once with its idempotency key, and the audit record
read back afterwards. State goes to ``HOME`` (default ``./.gate-example``): the
memory engine and the SQLite audit ledger (the order book lives in memory). Each
run refunds 40 to alice, and the policy allows three refunds a caller a day: a
fourth run in one home on one day is refused by the rule ``rate``, which is the
policy at work (give another HOME to start afresh).

To make it a real agent, give ``AgentSession`` a real model (``llm=openai.LLM()``
from ``livekit-plugins-openai``, plus ``stt``/``tts`` for voice) and start it in a
room from your LiveKit entrypoint; build the ``Gate`` once per process, before the
event loop serves calls (``worker.py`` in the gate repository does both).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated, Any

from livekit.agents import Agent, AgentSession
from livekit.agents.llm import ChatContext, ChatMessage, FunctionCallOutput
from livekit.agents.voice.run_result import RunResult
from pydantic import Field

import gate
from gate.testing.llm import ScriptedLLM, Step, call, say

HERE = Path(__file__).resolve().parent
INSTRUCTIONS = (
    "You refund orders with your tool. When the tool asks for confirmation, read its question to "
    "the caller exactly and wait; call confirm_action only after they say yes."
)


class OrderBook:
    """The system of record: orders and the refunds made on them, keyed by gate's idempotency key."""

    def __init__(self) -> None:
        self.remaining = {"A-1001": 120.0}
        self.refunds: dict[str, tuple[str, float]] = {}

    def refund(self, order_id: str, amount: float, key: str) -> str:
        if key in self.refunds:  # the same key never refunds twice (a retry, a re-call)
            return f"refund-{key[:8]}"
        if amount > self.remaining.get(order_id, 0.0):
            raise ValueError(f"only {self.remaining.get(order_id, 0.0):g} remains on {order_id}")
        self.remaining[order_id] -= amount
        self.refunds[key] = (order_id, amount)
        return f"refund-{key[:8]}"


ORDERS = OrderBook()


@gate.gated_tool
async def refund_order(
    order_id: Annotated[str, Field(description="the order number, e.g. A-1001")],
    amount: Annotated[float, Field(description="the amount to refund")],
    action: gate.Action,
) -> gate.Executed:
    """Refund part of one of the caller's orders."""
    ref = ORDERS.refund(order_id, amount, action.idempotency_key)
    return gate.Executed(f"Refunded {amount:g} on {order_id}.", external_ref=ref)


TOOLS = [refund_order]


def build_gate(home: Path) -> gate.Gate:
    """The gate over this agent's tools; raises PolicyError naming the file and line of a bad policy."""
    return gate.Gate(TOOLS, policies=HERE / "policies", settings=gate.GateSettings(home=home))


def read_the_question(chat_ctx: ChatContext) -> Step:
    """What a well-behaved model does with the gate's question: read it out as it was put."""
    outputs = [item for item in chat_ctx.items if isinstance(item, FunctionCallOutput)]
    return say(outputs[-1].output.splitlines()[0])


async def run(home: Path) -> list[str]:
    """One call: the caller asks for a refund, the gate asks, the caller says yes, it is done.

    Returns what was said, line by line, then the audit record of the call.
    """
    g = build_gate(home)
    await g.warm()  # load the embedder now, not inside the first decision's time budget
    said: list[str] = []
    try:
        caller = gate.Caller("alice", verified=True, roles=frozenset({"customer"}))
        model = ScriptedLLM([call("refund_order", order_id="A-1001", amount=40), read_the_question])
        session: AgentSession[Any] = AgentSession(llm=model, vad=None, turn_handling={"turn_detection": None})
        bound = g.bind(caller, session)  # the tools and confirm_action, bound to this caller
        await session.start(Agent(instructions=INSTRUCTIONS, tools=bound.tools))

        async def turn(words: str) -> None:
            said.append(f"caller: {words}")
            result: RunResult[Any] = await session.run(user_input=words)
            said.extend(
                f"agent:  {e.item.text_content}" for e in result.events if isinstance(e.item, ChatMessage)
            )

        try:
            await turn("Please refund 40 on order A-1001.")  # the model calls the tool: the gate asks
            model.add(call(gate.CONFIRM_TOOL), say("Done: 40 refunded on A-1001."))
            await turn(
                "Yes, go ahead."
            )  # the model calls confirm_action: the gate checks the yes, then runs it
        finally:
            await session.aclose()
        for decision in g.ledger.decisions(caller_id=caller.id):
            receipt = g.ledger.receipt_for(decision.id)
            status = receipt.status if receipt else "open"
            said.append(
                f"audit:  {decision.id} {decision.tool} {decision.outcome} ({decision.rule}), {status}"
            )
        said.append(f"audit:  chain {'verified' if g.verify().ok else 'BROKEN'}")
    finally:
        await g.aclose()
    return said


if __name__ == "__main__":
    home = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".gate-example")
    print("\n".join(asyncio.run(run(home))))
    print(f"review it: GATE_HOME={home} gate audit list")
