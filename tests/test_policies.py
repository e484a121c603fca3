"""Policies are validated at load: file, line, field and what was expected."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import gate
from tests.conftest import POLICIES, Calendar, make_tools

GOOD_REFUND = (POLICIES / "issue_refund.yaml").read_text()
GOOD_BOOK = (POLICIES / "book_visit.yaml").read_text()


def write(tmp_path: Path, refund: str, book: str = GOOD_BOOK) -> Path:
    d = tmp_path / "pol"
    d.mkdir(exist_ok=True)
    (d / "issue_refund.yaml").write_text(textwrap.dedent(refund))
    (d / "book_visit.yaml").write_text(book)
    return d


def load_error(tmp_path: Path, calendar: Calendar, refund: str) -> str:
    with pytest.raises(gate.PolicyError) as info:
        gate.Gate(make_tools(calendar), policies=write(tmp_path, refund))
    return str(info.value)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("confirm: always", "confirm: always\ncolour: blue"), ":8: colour: unknown key (expected one of:"),
        (
            ("rate: {max: 3, per: 1d}", "rate: {max: three, per: 1d}"),
            "rate.max: Input should be a valid integer",
        ),
        (("rate: {max: 3, per: 1d}", "rate: {max: 3, per: fortnight}"), "rate.per: expected a duration"),
        (("action: payment.refund", "action: 9 refunds!"), ":2: action: expected an action name"),
        (
            ("refund order {order_id}", "refund order {order}"),
            "evidence.query: 'order' is not an argument of issue_refund (expected one of: order_id, amount)",
        ),
        (("amount: {min: 0.01, max: 200}", "total: {max: 200}"), "limits.total: 'total' is not an argument"),
        (("mask: [order_id]", "mask: [card_last4]"), "audit.mask: 'card_last4' is not an argument"),
        (
            ("on order {order_id}?", "on order {order_id.x}?"),
            "messages.ask: placeholder {order_id.x} must be a plain argument name",
        ),
        (
            ("min: 0.01, max: 200", "min: 300, max: 200"),
            "limits.amount: min (300.0) is greater than max (200.0)",
        ),
        (("timeout_s: 1.0", "timeout_s: soon"), "timeout_s: Input should be a valid number"),
    ],
)
def test_broken_policy_names_file_and_field(
    tmp_path: Path, home: Path, calendar: Calendar, change: tuple[str, str], expected: str
) -> None:
    old, new = change
    assert old in GOOD_REFUND
    message = load_error(tmp_path, calendar, GOOD_REFUND.replace(old, new))
    assert "issue_refund.yaml" in message
    assert expected in message


def test_every_error_is_reported_at_once(tmp_path: Path, home: Path, calendar: Calendar) -> None:
    broken = GOOD_REFUND.replace("rate: {max: 3, per: 1d}", "rate: {max: 0, per: 1d}").replace(
        "timeout_s: 1.0", "timeout_s: 99"
    )
    with pytest.raises(gate.PolicyError) as info:
        gate.Gate(make_tools(calendar), policies=write(tmp_path, broken))
    fields = [i.field for i in info.value.issues]
    assert fields == ["rate.max", "timeout_s"]
    assert all(i.line for i in info.value.issues)


def test_a_gated_tool_without_policy_refuses_to_start(tmp_path: Path, home: Path, calendar: Calendar) -> None:
    d = tmp_path / "only_book"
    d.mkdir()
    (d / "book_visit.yaml").write_text(GOOD_BOOK)
    with pytest.raises(gate.MissingPolicy, match="gated tool 'issue_refund' has no policy"):
        gate.Gate(make_tools(calendar), policies=d)


def test_not_yaml_and_not_a_mapping(tmp_path: Path) -> None:
    bad = tmp_path / "x.yaml"
    bad.write_text("tool: [unclosed\n")
    with pytest.raises(gate.PolicyError, match=r"x\.yaml:.*not valid YAML"):
        gate.parse_policy(bad)
    bad.write_text("- just\n- a list\n")
    with pytest.raises(gate.PolicyError, match="expected a mapping, got list"):
        gate.parse_policy(bad)


async def test_decisions_record_the_policy_content_hash(the_gate: gate.Gate) -> None:
    import hashlib

    expected = "sha256:" + hashlib.sha256((POLICIES / "issue_refund.yaml").read_bytes()).hexdigest()
    assert the_gate.policies["issue_refund"].content_hash == expected
