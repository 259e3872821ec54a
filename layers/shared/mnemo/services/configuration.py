"""Runtime configuration of the providers: validated, applied at once, persisted with its secrets sealed (a
SecretBox, mnemo.services.config_secrets), shown redacted."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import Any

from mnemo.domain.json_shape import json_problem
from mnemo.errors import ValidationError
from mnemo.ports.memory_store import MemoryStore
from mnemo.ports.providers import ProviderCatalog
from mnemo.ports.secret_box import SecretBox
from mnemo.services.config_secrets import REDACTED, open_secrets, redact, seal_secrets
from mnemo.services.providers import ActiveProviders, ProviderSet

SETTINGS_KEY = "config_overrides"
CONFIGURABLE = ("version", "llm", "embedder", "custom_instructions")
FIXED_BY_DEPLOYMENT = ("vector_store", "history_db_path", "graph_store", "reranker")


class ConfigurationService:
    def __init__(
        self,
        store: MemoryStore,
        catalog: ProviderCatalog,
        defaults: dict[str, Any],
        box: SecretBox,
        on_embedder_change: Callable[[], object] | None = None,
        changed_elsewhere: Callable[[], bool] | None = None,
    ) -> None:
        """`changed_elsewhere`: whether another process may have changed the stored configuration since the last
        call (mnemo serve --workers N); when given, the providers follow such a change before they are used. `box`
        seals the secrets of the stored configuration: a stored one it cannot open fails the construction."""
        self._store = store
        self._box = box
        self._catalog = catalog
        self._defaults = defaults
        self.on_embedder_change = on_embedder_change
        self._lock = threading.RLock()
        self._applied = self.current()  # the configuration the active providers were built from
        self.providers = ActiveProviders(self._build(self._applied, None, None))
        if changed_elsewhere is not None:
            self.providers.follow = lambda: changed_elsewhere() and self.refresh()

    def current(self) -> dict[str, Any]:
        return merge_config(copy.deepcopy(self._defaults), self._overrides())

    def _overrides(self) -> dict[str, Any]:
        """The stored changes to the defaults, their secrets opened."""
        return open_secrets(self._store.get_setting(SETTINGS_KEY) or {}, self._box)

    def redacted(self) -> dict[str, Any]:
        shown: dict[str, Any] = redact(self.current())
        return shown

    def bundled(self) -> dict[str, list[str]]:
        return self._catalog.bundled()

    def update(self, body: dict[str, Any]) -> None:
        check_keys(body)
        with self._lock:
            before = self.current()
            after = merge_config(copy.deepcopy(before), body)
            # Sealed before anything changes: a secret the box cannot seal (no key) leaves all as it was.
            stored = seal_secrets(merge_config(self._overrides(), body), self._box)
            old = self.providers.get()
            new = self._build(after, before, old)
            self.providers.swap(new)
            try:
                if new.embedder is not old.embedder and self.on_embedder_change is not None:
                    self.on_embedder_change()
            except BaseException:
                self.providers.swap(old)
                raise
            self._store.put_setting(SETTINGS_KEY, stored)
            self._applied = self.current()

    def refresh(self) -> bool:
        """Rebuild the providers when the stored configuration differs from the one they were built from: another
        process (another Lambda execution environment) changed it. True when they changed. The process that made
        the change re-embedded the memories; this one only follows."""
        with self._lock:
            stored = self.current()
            if stored == self._applied:
                return False
            self.providers.swap(self._build(stored, self._applied, self.providers.get()))
            self._applied = stored
            return True

    def _build(self, config: dict[str, Any], before: dict[str, Any] | None, old: ProviderSet | None) -> ProviderSet:
        embedder_cfg = config.get("embedder") or {}
        llm_cfg = config.get("llm")
        if old is not None and before is not None and embedder_cfg == before.get("embedder"):
            embedder = old.embedder
        else:
            embedder = self._catalog.build_embedder(str(embedder_cfg.get("provider")), embedder_cfg.get("config"))
        if old is not None and before is not None and llm_cfg == before.get("llm"):
            llm = old.llm
        elif llm_cfg:
            llm = self._catalog.build_llm(str(llm_cfg.get("provider")), llm_cfg.get("config"))
        else:
            llm = None
        return ProviderSet(embedder=embedder, llm=llm, custom_instructions=config.get("custom_instructions"))


MAX_CUSTOM_INSTRUCTIONS = 20_000  # characters


def check_keys(body: dict[str, Any]) -> None:
    problem = json_problem(body, "the configuration")
    if problem is not None:
        raise ValidationError(f"{problem}.")
    fixed = [k for k in body if k in FIXED_BY_DEPLOYMENT]
    if fixed:
        raise ValidationError(
            f"{', '.join(fixed)} cannot be configured here: storage is chosen by the deployment "
            f"(MNEMO_DATA_DIR locally, the AWS template in the cloud). Configurable keys: {', '.join(CONFIGURABLE)}."
        )
    unknown = [k for k in body if k not in CONFIGURABLE]
    if unknown:
        raise ValidationError(
            f"Unknown configuration keys: {', '.join(unknown)}. Configurable: {', '.join(CONFIGURABLE)}."
        )
    for kind in ("llm", "embedder"):
        if kind in body and not (body[kind] is None and kind == "llm"):
            _check_section(kind, body[kind])
    instructions = body.get("custom_instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise ValidationError("custom_instructions must be a string.")
    if isinstance(instructions, str) and len(instructions) > MAX_CUSTOM_INSTRUCTIONS:
        raise ValidationError(f"custom_instructions takes at most {MAX_CUSTOM_INSTRUCTIONS:,} characters.")


def _check_section(kind: str, section: Any) -> None:
    if not isinstance(section, dict):
        raise ValidationError(f"{kind} must be an object with 'provider' and 'config'.")
    extra = [k for k in section if k not in ("provider", "config")]
    if extra:
        raise ValidationError(f"{kind} takes only 'provider' and 'config', not {', '.join(extra)}.")


def names_an_llm(store: MemoryStore, defaults: dict[str, Any]) -> bool:
    """Whether the configuration in effect (the deployment's defaults with the stored changes) names an LLM, read
    without building any provider (what a function that calls none asks: the Dream scheduler)."""
    overrides = store.get_setting(SETTINGS_KEY) or {}
    llm = merge_config(copy.deepcopy(defaults), overrides).get("llm")
    return isinstance(llm, dict) and bool(llm.get("provider"))


def merge_config(base: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """Deep-merge `change` into `base`; a provider section naming another provider replaces its config."""
    for key, value in change.items():
        current = base.get(key)
        if value == REDACTED:
            continue  # a redacted secret sent back unchanged keeps the stored one
        if key in ("llm", "embedder") and isinstance(value, dict) and isinstance(current, dict):
            if value.get("provider", current.get("provider")) != current.get("provider"):
                base[key] = {
                    "provider": value["provider"],
                    "config": copy.deepcopy(value.get("config") or {}),
                }
            else:
                base[key] = merge_config(current, value)
        elif isinstance(value, dict) and isinstance(current, dict):
            base[key] = merge_config(current, value)
        else:
            base[key] = copy.deepcopy(value)
    return base
