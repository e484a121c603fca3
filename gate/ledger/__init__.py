"""The audit ledger."""

from gate.ledger.chain import BrokenEntry, ChainReport
from gate.ledger.schema import LedgerOutOfDate, NotALedger
from gate.ledger.store import Ledger, ReceiptWrite
from gate.ledger.tables import ConfirmationRow, DecisionRow, Delivery, DeliveryRow, ReceiptRow

__all__ = [
    "BrokenEntry",
    "ChainReport",
    "ConfirmationRow",
    "DecisionRow",
    "Delivery",
    "DeliveryRow",
    "Ledger",
    "LedgerOutOfDate",
    "NotALedger",
    "ReceiptRow",
    "ReceiptWrite",
]
