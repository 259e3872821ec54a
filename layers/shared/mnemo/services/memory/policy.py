"""What an add does beyond storing, per namespace: the platform's projects file and merge, the self-hosted
deployment does neither."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AddPolicy:
    """What an add does beyond storing: `categorize`, file every memory under the add's custom categories, else the
    15 default ones (zero-shot by embedding similarity, with an LLM or without:
    mnemo.services.category_classifier) — the platform's projects; off, only an add's custom categories are
    matched by keyword (the self-hosted surface). `merge`: a new memory that states the same fact as an active
    memory of its scope (the language pack's `same_fact`) is stored MERGED into it (`replaced_by`), hidden
    from reads that do not ask for merged memories; the add answers it with the event NONE. `rules_beside_llm`:
    with an LLM, the extractor's statements its answer left out are stored beside it (MNEMO_LLM_RULES_BESIDE)."""

    categorize: bool = False
    merge: bool = False  # a memory that says what an active one of its scope says is kept merged into it
    rules_beside_llm: bool = False  # the extractor's statements an LLM's answer left out are stored beside it
