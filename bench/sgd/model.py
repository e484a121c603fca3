"""What the scripted model says after a tool call, read from the chat context.

The dialogue's own agent speaks through :func:`gate.testing.llm.say`; after a tool
call the model's words depend on what the tool answered, so the step is a callable
that ``gate.testing.llm.ScriptedLLM`` hands the chat context.
"""

from __future__ import annotations

from livekit.agents.llm import ChatContext

from gate.testing.llm import Step, say


def latest_output(chat_ctx: ChatContext) -> str:
    """The latest tool output the model was shown ("" when there is none)."""
    for item in reversed(chat_ctx.items):
        if item.type == "function_call_output":
            return str(item.output)
    return ""


def relay(chat_ctx: ChatContext) -> Step:
    """Say the first line of the latest tool output: the gate's question as it was put, or the result.

    The gate's question is the first line of its output; the lines after it are
    instructions to the model, not words for the caller.
    """
    text = latest_output(chat_ctx).strip()
    return say(text.splitlines()[0] if text else "Okay.")
