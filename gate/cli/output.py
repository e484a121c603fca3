"""Human output of the command line: tables and lines people read, JSON for machines.

On a terminal, tables are fitted to its width and never break an
identifier (a decision id stays on one line, to be copied whole; other
columns wrap); piped or redirected, they are plain columns aligned with
spaces (no box drawing), one row a line, so ``grep``, ``cut`` and
``column`` work on them. Values are printed literally
(never read as markup) and never as Python reprs: ``None`` is ``-``,
booleans are yes/no, mappings are ``key=value`` pairs.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any


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
    optional: Sequence[str] = (),
) -> None:
    """A table: fitted to the terminal's width on a terminal, aligned plain columns otherwise.

    Cells go through :func:`human`. On a terminal the table never breaks an
    identifier (see :func:`is_identifier`): a column holding one is at least
    as wide as its longest identifier, and the other columns wrap at spaces
    (or are cut) to fit. When even that does not fit, the ``optional``
    columns are left out, in the order given, and a line says which. Piped,
    every row is one line, however long, for ``grep`` and ``cut``.
    """
    cells = [[human(v) for v in row] for row in rows]
    if terminal():
        if title:
            line(title)
        for text in fit(columns, cells, width=terminal_width(), right=right, optional=optional):
            line(text)
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


_IDENTIFIER = re.compile(
    r"^(?:[A-Za-z][A-Za-z0-9]{0,7}_[A-Za-z0-9_\-]{6,}|sha256:[0-9a-f]{8,}|ed25519:[0-9a-f]{8,}"
    r"|personal:sha256:[0-9a-f]{8,})$"
)
_GAP = "  "
_WORD = 12


def is_identifier(text: str) -> bool:
    """Whether a cell is an identifier a reader copies whole (``gd_…``, ``call_…``, ``sha256:…``)."""
    return _IDENTIFIER.match(text) is not None


def terminal_width() -> int:
    """The terminal's width in columns (``COLUMNS`` when set, else the terminal's own, else 100)."""
    return shutil.get_terminal_size((100, 24)).columns


def fit(
    columns: Sequence[str],
    cells: Sequence[Sequence[str]],
    *,
    width: int,
    right: Sequence[str] = (),
    optional: Sequence[str] = (),
) -> list[str]:
    """The lines of a table fitted to ``width`` columns: identifiers whole, other cells wrapped.

    Each column gets its natural width when everything fits. Otherwise every
    column shrinks toward its floor (its longest identifier, or its longest
    word up to twelve characters), and what is left over is shared out in proportion
    to what each column wanted. Columns named in ``optional`` are dropped,
    in order, while even the floors do not fit; a last line names them. When
    nothing more can be dropped the table is wider than ``width`` rather than
    breaking an identifier.
    """
    keep = list(range(len(columns)))
    natural = [max([len(columns[i]), *(len(r[i]) for r in cells)]) for i in keep]
    floor = []
    for i in keep:
        ids = [len(r[i]) for r in cells if is_identifier(r[i])]
        # Short words (a status, a caller id, a date) are not cut either; long text is.
        words = [len(w) for r in [*cells, columns] for w in str(r[i]).split() if not is_identifier(w)]
        floor.append(max(max(ids, default=0), min(max(words, default=1), _WORD)))
    dropped: list[str] = []
    pending = [c for c in optional if c in columns]

    def room(shown: list[int]) -> int:
        return width - len(_GAP) * (len(shown) - 1)

    while sum(floor[i] for i in keep) > room(keep) and pending:
        name = pending.pop(0)
        keep = [i for i in keep if columns[i] != name]
        dropped.append(name)
    if sum(natural[i] for i in keep) <= room(keep):
        widths = {i: natural[i] for i in keep}
    else:
        spare = max(room(keep) - sum(floor[i] for i in keep), 0)
        wanted = {i: natural[i] - floor[i] for i in keep}
        total = sum(wanted.values()) or 1
        widths = {i: floor[i] + spare * wanted[i] // total for i in keep}
    lines: list[str] = []

    def emit(row: Sequence[str], header: bool = False) -> None:
        wrapped = {i: _wrap(row[i], widths[i]) for i in keep}
        height = max(len(w) for w in wrapped.values())
        for n in range(height):
            parts = []
            for i in keep:
                piece = wrapped[i][n] if n < len(wrapped[i]) else ""
                parts.append(piece.rjust(widths[i]) if columns[i] in right else piece.ljust(widths[i]))
            lines.append(_GAP.join(parts).rstrip())
        if header:
            lines.append(_GAP.join("─" * widths[i] for i in keep))

    emit(list(columns), header=True)
    for row in cells:
        emit(row)
    if dropped:
        note = f"(left out at this width: {', '.join(dropped)}; widen the terminal or use --json)"
        lines += textwrap.wrap(note, max(width, 20))
    return lines


def _wrap(text: str, width: int) -> list[str]:
    """One cell's lines at ``width``: identifiers whole, other text wrapped at spaces, long words cut."""
    if len(text) <= width or is_identifier(text):
        return [text]
    return textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False) or [""]


def fields(pairs: Sequence[tuple[str, Any]], *, indent: str = "") -> None:
    """Aligned ``label  value`` lines (a record read top to bottom)."""
    width = max((len(k) for k, _ in pairs), default=0)
    for key, value in pairs:
        line(f"{indent}{key.ljust(width)}  {human(value)}")


def print_json(value: Any) -> None:
    """``value`` as indented JSON on stdout (``--json``)."""
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")
