"""``@gated_tool``: declare a consequential tool; bind it to a caller later.

The decorator checks the function once, at import time, and returns a
:class:`GatedTool`. It is not yet a LiveKit tool: :meth:`gate.Gate.bind`
turns it into a ``FunctionTool`` closed over one authenticated caller, so
the model only ever supplies business arguments.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, get_type_hints, overload

from livekit.agents import RunContext

from gate.caller import Caller, looks_like_identity
from gate.errors import ToolDefinitionError


@dataclass(frozen=True)
class State:
    """A versioned read of the state a tool acts on (returned by a ``state=`` reader).

    ``unavailable`` says why the action cannot happen on this state (e.g.
    "Thursday is already booked"): the gate then abstains and says so instead
    of asking the caller to confirm something that cannot be done.
    """

    version: str | int
    value: Any = None
    unavailable: str | None = None


@dataclass(frozen=True)
class Executed:
    """A tool's result with a reference to what it did (e.g. a booking id) for the receipt.

    ``external_ref`` must match ``^[A-Za-z0-9._:-]{1,128}$`` and carry no
    personal data; one that does not match is dropped from the receipt.
    """

    output: Any
    external_ref: str | None = None


@dataclass(frozen=True)
class Action:
    """What the gate hands a tool body that declares a parameter of this type.

    Pass ``idempotency_key`` to the system you change, and make the change
    conditional on ``expected_version`` (raise :class:`gate.StaleState` when
    it no longer matches).
    """

    caller: Caller
    decision_id: str
    idempotency_key: str
    expected_version: str | None
    state: Any
    session_id: str
    arguments: dict[str, Any]


StateReader = Callable[..., Awaitable[State]]
ReconcileHook = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class GatedTool:
    """A consequential tool, checked and waiting to be bound to a caller."""

    fn: Callable[..., Awaitable[Any]]
    name: str
    description: str | None
    policy: str
    state: StateReader | None
    reconcile: ReconcileHook | None
    params: tuple[str, ...]
    action_param: str | None
    context_param: str | None

    def __repr__(self) -> str:
        return f"<GatedTool {self.name} policy={self.policy}>"

    async def read_state(self, caller: Caller, args: dict[str, Any]) -> State | None:
        """Run the ``state=`` reader with the caller and the arguments it names."""
        if self.state is None:
            return None
        state: State = await _call_with(self.state, caller, args)
        return state


async def _call_with(fn: Callable[..., Awaitable[Any]], caller: Caller, args: dict[str, Any]) -> Any:
    wanted = inspect.signature(fn).parameters
    kwargs = {k: v for k, v in args.items() if k in wanted}
    if "caller" in wanted:
        kwargs["caller"] = caller
    return await fn(**kwargs)


@overload
def gated_tool(fn: Callable[..., Awaitable[Any]], /) -> GatedTool: ...


@overload
def gated_tool(
    fn: None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    policy: str | None = None,
    state: StateReader | None = None,
    reconcile: ReconcileHook | None = None,
) -> Callable[[Callable[..., Awaitable[Any]]], GatedTool]: ...


def gated_tool(
    fn: Callable[..., Awaitable[Any]] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    policy: str | None = None,
    state: StateReader | None = None,
    reconcile: ReconcileHook | None = None,
) -> GatedTool | Callable[[Callable[..., Awaitable[Any]]], GatedTool]:
    """Declare a consequential tool, bare (``@gated_tool``) or with options.

    Args:
        name: the tool name the model sees (default: the function name).
        description: the description the model sees (default: the docstring).
        policy: the policy's ``tool`` name, when it differs from ``name``.
        state: ``async (caller, <args it names>) -> State``; its version is
            recorded, bound into confirmations and passed as ``expected_version``.
            It runs within the policy's ``timeout_s``: a reader that fails or
            takes longer makes the gate abstain (``state.unavailable``).
        reconcile: ``async (idempotency_key) -> ...`` looks an action up in
            the tool's own system after a crash.

    Raises:
        ToolDefinitionError: the function is not async, a parameter is not
            annotated, or a parameter looks like an identity (``user_id``,
            ``customer_id``, ...): who the caller is comes from the session.
    """

    def build(func: Callable[..., Awaitable[Any]]) -> GatedTool:
        tool_name = name or func.__name__
        if not inspect.iscoroutinefunction(func):
            raise ToolDefinitionError(f"{tool_name}: a gated tool must be an async function")
        try:
            hints = get_type_hints(func, include_extras=True)
        except Exception as exc:
            raise ToolDefinitionError(f"{tool_name}: cannot resolve annotations: {exc}") from exc
        params: list[str] = []
        action_param = context_param = None
        for pname, param in inspect.signature(func).parameters.items():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise ToolDefinitionError(f"{tool_name}: *args and **kwargs cannot be gated")
            hint = hints.get(pname)
            if hint is Action:
                action_param = pname
                continue
            if _is_run_context(hint):
                context_param = pname
                continue
            if looks_like_identity(pname):
                raise ToolDefinitionError(
                    f"{tool_name}: parameter {pname!r} looks like an identity. The caller is "
                    "bound from the authenticated session, never taken from the model; "
                    "remove the parameter and read `action.caller` instead."
                )
            if hint is None:
                raise ToolDefinitionError(f"{tool_name}: parameter {pname!r} needs a type annotation")
            params.append(pname)
        return GatedTool(
            fn=func,
            name=tool_name,
            description=description,
            policy=policy or tool_name,
            state=state,
            reconcile=reconcile,
            params=tuple(params),
            action_param=action_param,
            context_param=context_param,
        )

    if fn is not None:
        return build(fn)
    return build


def _is_run_context(hint: Any) -> bool:
    return hint is RunContext or getattr(hint, "__origin__", None) is RunContext
