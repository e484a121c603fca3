"""Where gate keeps its state, read from the environment.

``GATE_HOME`` (default ``./.gate``) holds every local file: the embedded
engine's memory store and, unless ``GATE_DATABASE_URL`` points elsewhere,
the SQLite audit ledger. A malformed variable is a :class:`gate.ConfigError`
naming the variable, the value and what is allowed, raised when the settings
are read.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from gate.errors import ConfigError

if TYPE_CHECKING:
    from gate.ledger.checkpoints import Signer

ENV_PREFIX = "GATE_"


class GateSettings(BaseSettings):
    """Settings from ``GATE_*`` environment variables.

    Raises:
        gate.ConfigError: a variable holds a value that is not allowed (one line:
            ``GATE_MEMORY='nope': expected one of auto, local, cloud, geniffy``).
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    home: Path = Field(default=Path(".gate"), description="directory for all local state")
    database_url: str | None = Field(
        default=None, description="SQLAlchemy URL of the audit ledger (default: SQLite in home)"
    )
    policies: Path = Field(default=Path("policies"), description="directory of policy files")
    memory: Literal["auto", "local", "cloud", "geniffy"] = Field(
        default="auto", description="caller memory backend (auto: cloud with a ContextDB key, else local)"
    )
    embedder: Literal["minilm", "multilingual", "mock"] = Field(
        default="minilm",
        description=(
            "the sentence embedder (minilm: English; multilingual: English, Spanish, French and "
            "German in MiniLM's space; mock: the engine's own, no semantics, for tests)"
        ),
    )
    audit_signing_key: SecretStr | None = Field(
        default=None, description="Ed25519 key that signs the ledger's checkpoints (PEM or base64)"
    )
    audit_signing_key_file: Path | None = Field(
        default=None, description="file holding the checkpoint signing key (`gate audit keygen`)"
    )
    audit_checkpoint_s: float = Field(
        default=300.0, gt=0, description="seconds between checkpoints a running gate signs"
    )

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise ConfigError(settings_problem(exc)) from None

    def ledger_url(self) -> str:
        """The ledger's URL: ``GATE_DATABASE_URL``, else ``sqlite:///<home>/ledger.db``."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.home.resolve() / 'ledger.db'}"

    def memory_url(self) -> str:
        """The embedded engine's storage URL, always a SQLite file in home."""
        return f"sqlite:///{self.home.resolve() / 'memory.db'}"

    def checkpoint_signer(self) -> Signer | None:
        """The checkpoint signer the settings name, or None when no signing key is set.

        Raises:
            gate.ConfigError: the key cannot be read or is not an Ed25519 private key.
        """
        from gate.ledger.checkpoints import signer_from_env

        key = self.audit_signing_key.get_secret_value() if self.audit_signing_key else None
        return signer_from_env(key, self.audit_signing_key_file)

    def ensure_home(self) -> Path:
        """Create the home directory if needed; raises OSError if it cannot be made."""
        self.home.mkdir(parents=True, exist_ok=True)
        return self.home


def settings_problem(exc: ValidationError) -> str:
    """The first problem of a settings validation error as one line naming the variable."""
    first = exc.errors()[0]
    name = str(first["loc"][0]) if first["loc"] else "?"
    variable = ENV_PREFIX + name.upper()
    got = first.get("input")
    field = GateSettings.model_fields.get(name)
    annotation = field.annotation if field is not None else None
    if get_origin(annotation) is Literal:
        expected = "expected one of " + ", ".join(str(a) for a in get_args(annotation))
    else:
        expected = str(first["msg"]).lower()
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{variable}={got!r}: {expected}{more}"
