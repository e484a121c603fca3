"""@gated_tool: what the model sees, and what it can never supply."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import pytest
from livekit.agents import RunContext, function_tool
from livekit.agents.llm.utils import build_legacy_openai_schema
from pydantic import Field

import gate
from gate import Action, Caller, gated_tool
from tests.conftest import POLICIES, Calendar, make_tools


async def book_visit(
    day: Annotated[str, Field(description="weekday of the visit")], ctx: RunContext, note: str = ""
) -> str:
    """Book a home visit on a weekday.

    Args:
        note: anything the technician should know
    """
    return day


async def issue_refund(order_id: str, amount: float) -> str:
    """Refund part of an order."""
    return order_id


@pytest.mark.parametrize("fn", [book_visit, issue_refund])
async def test_schema_is_identical_to_plain_function_tool(home: Path, fn: object) -> None:
    plain = function_tool(fn)  # type: ignore[call-overload]
    gated = gated_tool(fn)  # type: ignore[call-overload]
    policy = gated.name
    g = gate.Gate([gated], policies=POLICIES)
    (tool, confirm) = g.tools_for(Caller("alice", verified=True))
    assert policy in ("book_visit", "issue_refund")
    assert build_legacy_openai_schema(tool) == build_legacy_openai_schema(plain)
    assert tool.info.name == plain.info.name and tool.info.description == plain.info.description
    assert confirm.info.name == gate.CONFIRM_TOOL
    assert build_legacy_openai_schema(confirm)["function"]["parameters"]["properties"] == {}
    await g.aclose()


async def test_action_parameter_is_hidden_from_the_model(home: Path, calendar: Calendar) -> None:
    g = gate.Gate(make_tools(calendar), policies=POLICIES)
    tools = {t.info.name: t for t in g.tools_for(Caller("alice"))}
    params = build_legacy_openai_schema(tools["book_visit"])["function"]["parameters"]
    assert set(params["properties"]) == {"day"}
    await g.aclose()


@pytest.mark.parametrize(
    "param",
    ["user_id", "caller_id", "customer_id", "account_holder", "userId", "CUSTOMER_ID", "client_email"],
)
def test_identity_parameters_are_refused(param: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"async def change_plan(plan: str, {param}: str) -> str:\n    return plan", namespace)
    with pytest.raises(gate.ToolDefinitionError, match=f"{param!r} looks like an identity"):
        gated_tool(namespace["change_plan"])  # type: ignore[call-overload]


def test_business_parameters_are_fine() -> None:
    async def refund(order_id: str, amount: float, reason: str, action: Action) -> str:
        return order_id

    tool = gated_tool(policy="issue_refund", state=None)(refund)
    assert tool.params == ("order_id", "amount", "reason") and tool.action_param == "action"
    assert tool.policy == "issue_refund" and tool.name == "refund"


def test_sync_tools_are_refused() -> None:
    def book(day: str) -> str:
        return day

    with pytest.raises(gate.ToolDefinitionError, match="must be an async function"):
        gated_tool(book)  # type: ignore[arg-type]


def test_caller_id_is_validated() -> None:
    with pytest.raises(ValueError, match=r"Caller\.id must match"):
        Caller("alice smith")
    assert Caller("+15551234567").id == "+15551234567"
