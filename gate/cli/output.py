"""Human output of the command line: tables and lines people read, JSON for machines.

On a terminal, tables are drawn with rich; piped or redirected, they are
plain columns aligned with spaces (no box drawing), one row a line, so
``grep``, ``cut`` and ``column`` work on them. Values are printed literally
(never read as markup) and never as Python reprs: ``None`` is ``-``,
booleans are yes/no, mappings are ``key=value`` pairs.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text


def terminal() -> bool:
    """Whether stdout is a terminal (rich tables) rather than a pipe or file (plain columns)."""
    return sys.stdout.isatty()


def human(value: Any) -> str:
    """A value as a person reads it: ``-`` for nothing, yes/no, ``k=v`` pairs, comma lists."""
    if value is None or value == "":
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={human(v)}" for k, v in value.items()) or "-"
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(human(v) for v in value) or "-"
    return str(value)


def line(text: str = "") -> None:
    """One line on stdout, literally."""
    sys.stdout.write(text + "\n")


def table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    title: str | None = None,
    right: Sequence[str] = (),
) -> None:
    """A table: rich on a terminal, aligned plain columns otherwise. Cells go through :func:`human`."""
    cells = [[human(v) for v in row] for row in rows]
    if terminal():
        shown = Table(title=title, expand=False)
        for col in columns:
            shown.add_column(col, justify="right" if col in right else "left", overflow="fold")
        for row in cells:
            shown.add_row(*(Text(c) for c in row))
        Console(soft_wrap=True).print(shown)
        return
    if title:
        line(title)
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]

    def fmt(row: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if col in right else v.ljust(w) for col, v, w in zip(columns, row, widths, strict=True)
        ]
        return "  ".join(parts).rstrip()

    line(fmt(list(columns)))
    for row in cells:
        line(fmt(row))


def fields(pairs: Sequence[tuple[str, Any]], *, indent: str = "") -> None:
    """Aligned ``label  value`` lines (a record read top to bottom)."""
    width = max((len(k) for k, _ in pairs), default=0)
    for key, value in pairs:
        line(f"{indent}{key.ljust(width)}  {human(value)}")


def print_json(value: Any) -> None:
    """``value`` as indented JSON on stdout (``--json``)."""
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")
