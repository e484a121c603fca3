"""The ``gate`` command line: audit review, policy tooling, receipts, memory, the demo.

Tables for people, ``--json`` for machines. Every failure (no ledger, an
unknown id, a bad filter, a broken policy, a malformed setting, an
unreachable database) is one line on stderr naming what to do and a non-zero
exit, never a traceback (``GATE_LOG_LEVEL=DEBUG`` logs it for gate's own
developers). Logs go to stderr: dependencies at WARNING, gate at WARNING, or
INFO with ``--verbose``, or whatever ``GATE_LOG_LEVEL`` says. One module per
command group.
"""

from __future__ import annotations

import logging
import os
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

from gate.cli.audit import audit_app
from gate.cli.common import err
from gate.cli.demo import demo
from gate.cli.ledger import ledger_app
from gate.cli.memory import forget
from gate.cli.policy import policy_app
from gate.cli.receipts import receipts_app


class _OneLineErrors(TyperGroup):
    """Every failure, usage errors included, becomes one line on stderr and a non-zero exit."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            _missing_command(self, ctx, ctx.command_path)
        try:
            return super().parse_args(ctx, args)
        except typer.TyperException as exc:
            _usage(exc)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name, command, rest = super().resolve_command(ctx, args)
        # A command group given nothing (`gate audit`): click would print its help on stdout
        # and fail with an empty message; say which commands it has instead.
        group = hasattr(command, "list_commands") and getattr(command, "no_args_is_help", False)
        if group and not rest and not ctx.resilient_parsing:
            _missing_command(command, ctx, f"{ctx.command_path} {name}")
        return name, command, rest

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort):
            raise
        except typer.TyperException as exc:  # a subcommand's usage error
            _usage(exc)
        except BrokenPipeError:
            # The reader stopped (`gate audit list | head`): stop quietly, as Unix tools do.
            _quiet_stdout()
            raise typer.Exit(0) from None
        except Exception as exc:
            from gate.errors import describe

            logging.getLogger("gate.cli").debug("command failed", exc_info=True)
            err.print(f"gate: {describe(exc)}")
            raise typer.Exit(2) from None


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail on the closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _missing_command(group: Any, ctx: Any, path: str) -> NoReturn:
    """``gate`` (or a command group) with no command: one line naming the commands, exit 2."""
    names = [n for n in group.list_commands(ctx) if not getattr(group.get_command(ctx, n), "hidden", False)]
    err.print(f"gate: missing a command: one of {', '.join(names)} (see {path} --help)")
    raise typer.Exit(2)


def _usage(exc: Any) -> NoReturn:
    ctx = getattr(exc, "ctx", None)
    see = f" (see {ctx.command_path} --help)" if ctx is not None else ""
    err.print(f"gate: {exc.format_message()}{see}")
    raise typer.Exit(getattr(exc, "exit_code", 2)) from None


app = typer.Typer(
    cls=_OneLineErrors,
    help="Action governance for LiveKit voice agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        try:
            found = version("gate")
        except PackageNotFoundError:  # running from a checkout that was never installed
            found = "unknown"
        sys.stdout.write(f"gate {found}\n")
        raise typer.Exit()


@app.callback()
def _options(
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="log gate's events (decisions, receipts) on stderr; GATE_LOG_LEVEL sets any level",
        ),
    ] = False,
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="print gate's version and exit"
        ),
    ] = False,
) -> None:
    """Action governance for LiveKit voice agents."""
    from gate.log import configure_cli, level_from_env

    configure_cli(level_from_env("INFO" if verbose else "WARNING"))


app.add_typer(audit_app, name="audit")
app.add_typer(policy_app, name="policy")
app.add_typer(receipts_app, name="receipts")
app.add_typer(ledger_app, name="ledger")
app.command("forget")(forget)
app.command("demo")(demo)


def main() -> None:
    """Entry point: every failure is one line on stderr and a non-zero exit, never a traceback."""
    try:
        app()
    except Exception as exc:  # raised outside any command (parsing, start-up)
        from gate.errors import describe

        err.print(f"gate: {describe(exc)}")
        sys.exit(2)
