"""What every command shares: the consoles, one-line failures, opening the ledger."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console

from gate.config import GateSettings
from gate.errors import ConfigError, describe
from gate.ledger import Ledger

if TYPE_CHECKING:
    from gate.decorator import GatedTool

# Piped output is read by tools and wide terminals alike: don't fold it to 80 columns.
# Ids, arguments and memories are user values: printed literally, never read as rich markup
# (``[bold]``), emoji codes (``:x:``) or highlighted; a command that wants styling passes
# ``markup=True`` for that one line and escapes the values in it.
out = Console(
    soft_wrap=True,
    width=None if sys.stdout.isatty() else 240,
    markup=False,
    emoji=False,
    highlight=False,
)
err = Console(stderr=True, soft_wrap=True, markup=False, emoji=False, highlight=False)

DatabaseUrl = Annotated[
    str | None, typer.Option("--database-url", help="ledger URL (default: GATE_DATABASE_URL or GATE_HOME)")
]
AsJson = Annotated[bool, typer.Option("--json", help="print JSON instead of a table")]
PolicyDir = Annotated[Path, typer.Argument(help="policy directory")]


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr, then exit with ``code`` (2: usage or environment, 1: a finding)."""
    err.print(f"gate: {message}", markup=False, highlight=False)
    raise typer.Exit(code)


def open_ledger(database_url: str | None, *, write: bool = False) -> Ledger:
    """The ledger to use, or a one-line failure naming where it was looked for.

    Review commands read (``write=False``): the ledger is opened read-only, so
    they work on a read-only copy or with a read-only database role. Commands
    that write (drain) pass ``write=True``; neither ever creates a ledger.
    """
    url = database_url or GateSettings().ledger_url()
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        if not path.exists():
            fail(f"no ledger at {path} ({_where_to_look(path)})")
    try:
        return Ledger(url, create=False, read_only=not write)
    except ConfigError as exc:
        fail(describe(exc))


# Where `gate demo` keeps its state when GATE_HOME is not set (gate.cli.demo_run.DEFAULT_HOME).
DEMO_HOME = Path(".gate-demo")


def _where_to_look(missing: Path) -> str:
    """What to do about a missing ledger; names the demo's ledger when there is one here."""
    demo = DEMO_HOME / "ledger.db"
    if demo.exists() and demo.resolve() != missing.resolve():
        return (
            f"the demo's ledger is in {DEMO_HOME}: set GATE_HOME={DEMO_HOME}, "
            f"e.g. GATE_HOME={DEMO_HOME} gate audit list"
        )
    return "set GATE_HOME or GATE_DATABASE_URL, or pass --database-url"


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def load_tools(spec: str, *, source: str = "--tools") -> list[GatedTool]:
    """The gated tools named by ``MODULE:NAME`` (e.g. ``worker:TOOLS``), as the worker imports them.

    The module is imported from the current directory first (a console
    script, unlike ``python -m``, does not put it on ``sys.path``). ``NAME``
    defaults to ``TOOLS`` and may name a list of gated tools or one.
    ``source`` says where the spec came from in failure messages.

    Exits with one line on stderr (code 2) when the module cannot be
    imported, has no such name, or the name is not gated tools.
    """
    import importlib

    from gate.decorator import GatedTool

    module_name, _, attr = spec.partition(":")
    attr = attr or "TOOLS"
    if not module_name or not all(p.isidentifier() for p in [*module_name.split("."), *attr.split(".")]):
        fail(f"{source} {spec}: expected MODULE:NAME, e.g. worker:TOOLS")
    cwd = str(Path.cwd())
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        value: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module_name + ".").startswith(exc.name + "."):
            fail(f"{source} {spec}: no module named {exc.name!r} in {cwd} or the installed packages")
        fail(f"{source} {spec}: importing {module_name} failed: {type(exc).__name__}: {exc}")
    except Exception as exc:  # the user's module is arbitrary code; any failure is one line
        first = str(exc).splitlines()[0] if str(exc) else ""
        fail(f"{source} {spec}: importing {module_name} failed: {type(exc).__name__}: {first}")
    for part in attr.split("."):
        if not hasattr(value, part):
            fail(f"{source} {spec}: {module_name} has no attribute {attr!r}")
        value = getattr(value, part)
    found = [value] if isinstance(value, GatedTool) else value
    if not isinstance(found, list | tuple) or not all(isinstance(t, GatedTool) for t in found):
        fail(f"{source} {spec}: expected a list of @gated_tool functions, got {type(value).__name__}")
    return list(found)
