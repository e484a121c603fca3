"""The business's own system of record (not the audit ledger): SQLite under ``GATE_HOME``.

Rows are versioned; every change is a compare-and-set on the version read
earlier (``StaleState`` when another writer got there first); every change
is keyed by the gate's idempotency key, so the same key never changes
anything twice and a crashed call can be looked up afterwards.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, event
from sqlmodel import Field, Session, SQLModel, create_engine, select

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


class VisitSlot(SQLModel, table=True):
    __tablename__ = "visit_slots"

    day: str = Field(primary_key=True)
    booked_by: str | None = None
    booking_ref: str | None = None
    version: int = 1


class Booking(SQLModel, table=True):
    __tablename__ = "bookings"

    idempotency_key: str = Field(primary_key=True)
    ref: str = Field(unique=True)
    day: str
    caller_id: str
    kind: str  # book | cancel


class Order(SQLModel, table=True):
    __tablename__ = "orders"

    id: str = Field(primary_key=True)
    caller_id: str = Field(index=True)
    total: float
    refunded: float = 0.0
    version: int = 1


class Refund(SQLModel, table=True):
    __tablename__ = "refunds"

    idempotency_key: str = Field(primary_key=True)
    ref: str = Field(unique=True)
    order_id: str
    amount: float


class Business:
    """The calendar and the orders, in one SQLite file (``business.db`` in ``GATE_HOME``)."""

    def __init__(self, home: Path) -> None:
        home.mkdir(parents=True, exist_ok=True)
        # Workers on one machine share GATE_HOME: wait for another process's write, don't fail on it.
        self.engine: Engine = create_engine(
            f"sqlite:///{home.resolve() / 'business.db'}",
            connect_args={"check_same_thread": False, "timeout": 30.0},
        )

        @event.listens_for(self.engine, "connect")
        def _wal(conn: object, _: object) -> None:
            cur = conn.cursor()  # type: ignore[attr-defined]
            cur.execute("PRAGMA journal_mode=WAL")
            cur.close()

        SQLModel.metadata.create_all(
            self.engine,
            tables=[VisitSlot.__table__, Booking.__table__, Order.__table__, Refund.__table__],  # type: ignore[attr-defined]
        )
        with Session(self.engine) as session:
            if session.exec(select(VisitSlot)).first() is None:
                session.add_all(VisitSlot(day=day) for day in WEEKDAYS)
                session.commit()

    def add_order(self, order_id: str, caller_id: str, total: float) -> None:
        with Session(self.engine) as session:
            if session.get(Order, order_id) is None:
                session.add(Order(id=order_id, caller_id=caller_id, total=total))
                session.commit()

    def slot(self, day: str) -> VisitSlot | None:
        with Session(self.engine) as session:
            return session.get(VisitSlot, day)

    def order(self, order_id: str) -> Order | None:
        with Session(self.engine) as session:
            return session.get(Order, order_id)
