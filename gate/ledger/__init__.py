"""The audit ledger."""

from gate.ledger.chain import BrokenEntry, ChainReport
from gate.ledger.checkpoints import Checkpoint, CheckpointReport, Signer, Verifier, verify_checkpoints
from gate.ledger.schema import LedgerOutOfDate, NotALedger
from gate.ledger.store import Erasure, Ledger, ReceiptWrite
from gate.ledger.tables import ConfirmationRow, DecisionRow, Delivery, DeliveryRow, ReceiptRow

__all__ = [
    "BrokenEntry",
    "ChainReport",
    "Checkpoint",
    "CheckpointReport",
    "ConfirmationRow",
    "DecisionRow",
    "Delivery",
    "DeliveryRow",
    "Erasure",
    "Ledger",
    "LedgerOutOfDate",
    "NotALedger",
    "ReceiptRow",
    "ReceiptWrite",
    "Signer",
    "Verifier",
    "verify_checkpoints",
]
