"""The providers a deployment runs now (its embedder, its LLM, its custom instructions): the deployment's defaults
with the stored changes of POST /configure on top, their secrets sealed at rest (a SecretBox,
mnemo.services.config_secrets).

Built before anything that uses the providers (the memory services hold its `ActiveProviders`), and before the
configuration service that changes them, which is given what a change of embedder must do once those exist: so the
composition root builds each in dependency order, with nothing set afterwards."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import Any

from mnemo.ports.memory_store import MemoryStore
from mnemo.ports.providers import ProviderCatalog
from mnemo.ports.secret_box import SecretBox
from mnemo.services.config_secrets import REDACTED, open_secrets, seal_secrets
from mnemo.services.providers import ActiveProviders, ProviderSet

SETTINGS_KEY = "config_overrides"


class ConfiguredProviders:
    def __init__(
        self,
        store: MemoryStore,
        catalog: ProviderCatalog,
        defaults: dict[str, Any],
        box: SecretBox,
        changed_elsewhere: Callable[[], bool] | None = None,
    ) -> None:
        """`changed_elsewhere`: whether another process may have changed the stored configuration since the last
        call (mnemo serve --workers N); when given, the providers follow such a change before they are used. `box`
        seals the secrets of the stored configuration: a stored one it cannot open fails the construction."""
        self._store = store
        self._box = box
        self._catalog = catalog
        self._defaults = defaults
        self._lock = threading.RLock()
        self._applied = self.current()  # the configuration the active providers were built from
        self.providers = ActiveProviders(self._build(self._applied, None, None))
        if changed_elsewhere is not None:
            self.providers.follow = lambda: changed_elsewhere() and self.refresh()

    def current(self) -> dict[str, Any]:
        return merge_config(copy.deepcopy(self._defaults), self._overrides())

    def bundled(self) -> dict[str, list[str]]:
        return self._catalog.bundled()

    def apply(self, body: dict[str, Any], on_embedder_change: Callable[[], object] | None) -> None:
        """A checked change applied: the providers rebuilt where it changes them, `on_embedder_change` run when the
        embedder changed (the old providers back if it fails), then the change stored, its secrets sealed."""
        with self._lock:
            before = self.current()
            after = merge_config(copy.deepcopy(before), body)
            # Sealed before anything changes: a secret the box cannot seal (no key) leaves all as it was.
            stored = seal_secrets(merge_config(self._overrides(), body), self._box)
            old = self.providers.get()
            new = self._build(after, before, old)
            self.providers.swap(new)
            try:
                if new.embedder is not old.embedder and on_embedder_change is not None:
                    on_embedder_change()
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

    def _overrides(self) -> dict[str, Any]:
        """The stored changes to the defaults, their secrets opened."""
        return open_secrets(self._store.get_setting(SETTINGS_KEY) or {}, self._box)

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
