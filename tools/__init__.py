"""Example consequential tools with real state: a visits calendar and a refunds ledger."""

from tools.refunds import issue_refund
from tools.runtime import business, use_business
from tools.store import Business
from tools.visits import book_visit, cancel_visit

TOOLS = [book_visit, cancel_visit, issue_refund]

__all__ = ["TOOLS", "Business", "book_visit", "business", "cancel_visit", "issue_refund", "use_business"]
