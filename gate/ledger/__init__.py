"""The audit ledger."""

from gate.ledger.chain import BrokenEntry, ChainReport
from gate.ledger.store import Ledger, ReceiptWrite
from gate.ledger.tables import ConfirmationRow, DecisionRow, ReceiptRow

__all__ = [
    "BrokenEntry",
    "ChainReport",
    "ConfirmationRow",
    "DecisionRow",
    "Ledger",
    "ReceiptRow",
    "ReceiptWrite",
]
