"""Each language's word data in one place: every folder fills every field the schema declares."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gate import lang
from gate.lang import LanguageDataError, UnknownLanguage
from gate.lang.schema import FILES, fields
from gate.lang.text import fold, fold_with_positions, stem_match, tokens, words

HERE = Path(__file__).parent
LANG_DIR = Path(lang.__file__).parent


def test_the_registry_holds_the_four_languages_and_each_has_a_corpus() -> None:
    assert lang.codes() == ("de", "en", "es", "fr")
    for code in lang.codes():
        assert (HERE / code / "answers.yaml").is_file(), code
        assert (HERE / code / "heard.yaml").is_file(), code


@pytest.mark.parametrize("code", ["de", "en", "es", "fr"])
def test_every_language_fills_every_field(code: str) -> None:
    language = lang.language(code)
    declared = {f.file: set() for f in fields()}
    for field in fields():
        declared[field.file].add(field.name)
        value = {"phrases": language.phrases, "words": language.words, "table": language.table}[field.kind](
            field.name
        )
        if field.required:
            assert value, f"{code}: required field {field.name} ({field.file}.toml) is empty"
    # Every declared field is written in the folder, empty where it does not apply.
    import tomllib

    for name in FILES:
        written = set(tomllib.loads((LANG_DIR / code / f"{name}.toml").read_text()))
        assert written == declared[name], f"{code}/{name}.toml: missing {declared[name] - written}"


def test_a_folder_with_an_undeclared_or_empty_field_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "xx"
    shutil.copytree(LANG_DIR / "en", folder)
    assert lang.load_folder(folder).code == "xx"
    (folder / "verbs.toml").write_text('synonyms = ["a"]\n' + (folder / "verbs.toml").read_text())
    with pytest.raises(LanguageDataError, match=r"verbs.toml: field 'synonyms' is not declared"):
        lang.load_folder(folder)
    shutil.copy(LANG_DIR / "en" / "verbs.toml", folder / "verbs.toml")
    text = (folder / "questions.toml").read_text()
    (folder / "questions.toml").write_text(text.replace("terms = [", "terms = [] \nold_terms = ["))
    with pytest.raises(LanguageDataError, match=r"questions\.toml"):
        lang.load_folder(folder)


def test_unknown_codes() -> None:
    with pytest.raises(UnknownLanguage):
        lang.language("it")
    assert lang.code_of("es-MX") == "es"
    assert lang.code_of("FR_ca") == "fr"
    assert lang.code_of("it") is None
    assert lang.code_of(None) is None


def test_one_fold_one_tokeniser() -> None:
    assert fold("Straße") == fold("STRASSE") == "strasse"
    assert fold("Miércoles") == "miercoles"
    assert fold("don’t") == "don't"
    folded, where = fold_with_positions("Große Straße 5")
    assert folded == "grosse strasse 5"
    assert where is not None and where[folded.index("5")] == "Große Straße 5".index("5")
    assert [t.key for t in tokens("Yes, A-1001 at 7pm on 2026-03-04!")] == [
        "yes", ",", "a-1001", "at", "7", "pm", "on", "2026-03-04", "!",
    ]  # fmt: skip
    assert words("¿Le parece bien?") == ["le", "parece", "bien"]
    assert stem_match("cancelled", frozenset({"cancel"}))
    assert not stem_match("cancel", frozenset({"book"}))


def test_the_action_verbs_are_one_table_every_reader_shares() -> None:
    families = lang.verb_families()
    assert {"cancel", "cancelar", "annuler", "stornieren"} <= families["withdraw"]
    assert lang.family_of("cancelled") == "withdraw"
    assert lang.family_of("booking") == "book"
    assert lang.family_of("zzz") is None
    # Evidence and utterance reading can take negations and question words from the same place.
    assert {"no", "without", "sin", "sans", "ohne", "kein"} <= lang.union_words("negators")
    assert ("how", "much") in {tuple(p.split()) for p in lang.union_phrases("question_words")}
