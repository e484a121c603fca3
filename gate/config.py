"""Where gate keeps its state, read from the environment.

``GATE_HOME`` (default ``./.gate``) holds every local file: the embedded
engine's memory store and, unless ``GATE_DATABASE_URL`` points elsewhere,
the SQLite audit ledger.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class GateSettings(BaseSettings):
    """Settings from ``GATE_*`` environment variables."""

    model_config = SettingsConfigDict(env_prefix="GATE_", extra="ignore")

    home: Path = Field(default=Path(".gate"), description="directory for all local state")
    database_url: str | None = Field(
        default=None, description="SQLAlchemy URL of the audit ledger (default: SQLite in home)"
    )
    policies: Path = Field(default=Path("policies"), description="directory of policy files")
    memory: Literal["auto", "local", "cloud", "geniffy"] = Field(
        default="auto", description="caller memory backend (auto: cloud with a ContextDB key, else local)"
    )
    embedder: Literal["minilm", "mock"] = Field(
        default="minilm", description="the embedded engine's embedder (mock: no semantics, for tests)"
    )

    def ledger_url(self) -> str:
        """The ledger's URL: ``GATE_DATABASE_URL``, else ``sqlite:///<home>/ledger.db``."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.home.resolve() / 'ledger.db'}"

    def memory_url(self) -> str:
        """The embedded engine's storage URL, always a SQLite file in home."""
        return f"sqlite:///{self.home.resolve() / 'memory.db'}"

    def ensure_home(self) -> Path:
        """Create the home directory if needed; raises OSError if it cannot be made."""
        self.home.mkdir(parents=True, exist_ok=True)
        return self.home
