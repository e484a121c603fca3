"""The languages gate reads and their word data: one registry, one folder per language.

Each language is a folder ``gate/lang/<code>/`` of TOML files (``answers``, ``reading``,
``values``, ``verbs``, ``questions``) whose fields :mod:`gate.lang.schema` declares. Adding a
language is adding a folder that fills every field (``tests/lang`` checks it) and its corpus.

Reading::

    from gate import lang

    es = lang.language("es")
    es.phrases("affirmations")      # ("claro", "claro que si", ...), folded
    es.words("negators")            # frozenset({"no", "sin", "nunca", ...})
    es.table("weekdays")["jueves"]  # "thu"
    es.flag("si_is_if")             # True
    lang.union_words("negators")    # every language's
    lang.verb_families()["withdraw"]  # every language's verbs that withdraw
    lang.family_of("cancelled")     # "withdraw"

Every string is folded with :func:`gate.lang.text.fold` when loaded, so a lookup key must be
folded too. Data is read on first use (nothing at import) and cached for the process.

Failure modes: a folder with a file or field the schema does not declare, a field of the wrong
kind, or a required field left empty raises :class:`LanguageDataError` naming the file and the
field, the first time that language is read. :func:`language` raises :class:`UnknownLanguage`
for a code with no folder; :func:`code_of` never raises.
"""

from __future__ import annotations

import threading
import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from gate.lang.schema import FILES, Field, fields
from gate.lang.text import fold

__all__ = [
    "Language",
    "LanguageDataError",
    "UnknownLanguage",
    "code_of",
    "codes",
    "family_of",
    "language",
    "languages",
    "load_folder",
    "union_phrases",
    "union_table",
    "union_words",
    "verb_families",
]

_HERE = Path(__file__).resolve().parent
_LOCK = threading.Lock()


class LanguageDataError(ValueError):
    """A language folder does not hold what the schema says (the message names file and field)."""


class UnknownLanguage(KeyError):
    """No folder for this language code."""


class Language:
    """One language's word data, folded. Built by :func:`language`; read-only."""

    def __init__(self, code: str, data: Mapping[str, Any]) -> None:
        self.code = code
        self._data = data

    def __repr__(self) -> str:
        return f"Language({self.code!r})"

    def phrases(self, field: str) -> tuple[str, ...]:
        """A ``phrases`` field, in the file's order. Raises KeyError for an undeclared field."""
        value = self._get(field, "phrases")
        assert isinstance(value, tuple)
        return value

    def words(self, field: str) -> frozenset[str]:
        """A ``words`` field (a ``phrases`` field reads as the set of its phrases too)."""
        value = self._get(field, None)
        if isinstance(value, tuple):
            return frozenset(value)
        if not isinstance(value, frozenset):
            raise KeyError(f"{field} is a {_by_name()[field].kind} field, not a word set")
        return value

    def table(self, field: str) -> Mapping[str, Any]:
        """A ``table`` field."""
        value = self._get(field, "table")
        assert isinstance(value, dict)
        return value

    def flag(self, name: str) -> bool:
        """A flag of ``answer_flags`` or ``value_flags`` (False when the language does not set it)."""
        for field in ("answer_flags", "value_flags"):
            value = self.table(field).get(name)
            if isinstance(value, bool):
                return value
        return False

    def setting(self, name: str) -> str:
        """A text setting of ``value_flags`` ("" when not set)."""
        value = self.table("value_flags").get(name, "")
        return value if isinstance(value, str) else ""

    def _get(self, field: str, kind: str | None) -> Any:
        spec = _by_name().get(field)
        if spec is None:
            raise KeyError(f"no language field {field!r} (see gate/lang/schema.py)")
        if kind is not None and spec.kind != kind:
            raise KeyError(f"{field} is a {spec.kind} field, not {kind}")
        return self._data[field]


@cache
def _by_name() -> dict[str, Field]:
    return {f.name: f for f in fields()}


@cache
def codes() -> tuple[str, ...]:
    """The codes of the languages that have a folder, sorted."""
    return tuple(sorted(p.name for p in _HERE.iterdir() if p.is_dir() and (p / f"{FILES[0]}.toml").is_file()))


@cache
def code_of(tag: str | None) -> str | None:
    """The language code of a tag ("es-MX" -> "es", "FR" -> "fr"), or None when gate has no such language."""
    if not tag:
        return None
    code = tag.strip().lower().replace("_", "-").split("-")[0]
    return code if code in codes() else None


def language(code: str) -> Language:
    """The language with this code.

    Raises:
        UnknownLanguage: no folder for ``code``.
        LanguageDataError: its folder does not hold what the schema declares.
    """
    if code not in codes():
        raise UnknownLanguage(code)
    return _load(code)


def languages() -> tuple[Language, ...]:
    """Every language, in code order."""
    return tuple(language(code) for code in codes())


@cache
def _load(code: str) -> Language:
    with _LOCK:
        return Language(code, _read_folder(_HERE / code))


def load_folder(folder: str | Path) -> Language:
    """Read a language folder that is not (yet) registered, as :func:`language` would: to check a
    new language before adding it. Its code is the folder's name.

    Raises:
        LanguageDataError: the folder does not hold what the schema declares.
    """
    path = Path(folder)
    return Language(path.name, _read_folder(path))


def _read_folder(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = {}
    present = {p.stem for p in folder.glob("*.toml")}
    for extra in sorted(present - set(FILES)):
        raise LanguageDataError(
            f"{folder / extra}.toml: no such file in the schema (expected {', '.join(FILES)})"
        )
    for name in FILES:
        path = folder / f"{name}.toml"
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        except tomllib.TOMLDecodeError as exc:
            raise LanguageDataError(f"{path}: {exc}") from None
        for key, value in raw.items():
            spec = _by_name().get(key)
            if spec is None or spec.file != name:
                raise LanguageDataError(f"{path}: field {key!r} is not declared for {name}.toml")
            data[key] = _convert(path, spec, value)
    for spec in fields():
        path = folder / f"{spec.file}.toml"
        if spec.name not in data:
            if spec.required:
                raise LanguageDataError(f"{path}: required field {spec.name!r} is missing")
            data[spec.name] = _empty(spec)
        elif spec.required and not data[spec.name]:
            raise LanguageDataError(f"{path}: required field {spec.name!r} is empty")
    return data


def _empty(spec: Field) -> Any:
    return {"phrases": (), "words": frozenset(), "table": {}}[spec.kind]


def _convert(path: Path, spec: Field, value: Any) -> Any:
    if spec.kind in ("phrases", "words"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise LanguageDataError(f"{path}: {spec.name} must be a list of strings")
        folded = tuple(dict.fromkeys(" ".join(fold(v).split()) for v in value if v.strip()))
        return folded if spec.kind == "phrases" else frozenset(folded)
    if not isinstance(value, dict):
        raise LanguageDataError(f"{path}: {spec.name} must be a table")
    return {" ".join(fold(k).split()): _fold_value(v) for k, v in value.items()}


def _fold_value(value: Any) -> Any:
    if isinstance(value, str):
        return fold(value)
    if isinstance(value, list):
        return [_fold_value(v) for v in value]
    if isinstance(value, dict):
        return {fold(k): _fold_value(v) for k, v in value.items()}
    return value


@cache
def union_words(field: str) -> frozenset[str]:
    """A ``words`` (or ``phrases``) field of every language together."""
    out: set[str] = set()
    for lang in languages():
        out |= lang.words(field)
    return frozenset(out)


@cache
def union_phrases(field: str) -> tuple[str, ...]:
    """A ``phrases`` field of every language together, in code order."""
    out: dict[str, None] = {}
    for lang in languages():
        out.update(dict.fromkeys(lang.phrases(field)))
    return tuple(out)


@cache
def union_table(field: str) -> Mapping[str, Any]:
    """A ``table`` field of every language together (a later language's key wins)."""
    out: dict[str, Any] = {}
    for lang in languages():
        out.update(lang.table(field))
    return out


@cache
def verb_families() -> Mapping[str, frozenset[str]]:
    """Every family of action verbs (``verbs.toml`` ``families``) with every language's verbs."""
    out: dict[str, set[str]] = {}
    for lang in languages():
        for name, verbs in lang.table("families").items():
            out.setdefault(name, set()).update(verbs)
    return {name: frozenset(verbs) for name, verbs in out.items()}


@cache
def _family_forms() -> Mapping[str, str]:
    forms: dict[str, str] = {}
    for lang in languages():
        endings = ("", *sorted(lang.words("verb_endings")))
        for name, verbs in lang.table("families").items():
            for verb in verbs:
                for end in endings:
                    forms.setdefault(verb + end, name)
                if verb.endswith("e") and "ing" in endings:
                    forms.setdefault(verb[:-1] + "ing", name)
    return forms


def family_of(word: str) -> str | None:
    """The family of a folded verb or one of its inflected forms ("cancelled" -> "withdraw"), or None."""
    return _family_forms().get(word)
