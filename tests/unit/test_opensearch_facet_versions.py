"""OpenSearch documents carry the version of the rules that read their facets (mnemo.adapters.opensearch.documents):
a keyword field of the mapping, written with the facets in every document; the index re-derives stale ones itself
(tests/unit/test_opensearch_stale_facets.py) and `mnemo reindex` writes them all again with the current pack's."""

from __future__ import annotations

from datetime import datetime

import numpy as np

from mnemo.adapters.opensearch.documents import FACETS_VERSION_FIELD, derived_fields, document, index_body
from mnemo.domain.memory import FACETS_FIELD, MemoryRecord, Scope
from mnemo.language.en import english


class Rules:
    version = "rules-7"

    def facets(self, text: str) -> list[str]:
        return ["residence"] if "live" in text else []

    def keywords(self, text: str) -> list[str]:  # the words of keyword search are English's
        return english().keywords(text)

    def date_words(self, moment: datetime) -> str:
        return english().date_words(moment)


def test_given_the_mapping_then_the_facets_version_is_a_keyword_field() -> None:
    assert index_body(4)["mappings"]["properties"][FACETS_VERSION_FIELD] == {"type": "keyword"}


def test_given_a_memory_then_its_document_holds_its_facets_and_the_version_that_read_them() -> None:
    record = MemoryRecord.create("I live in Lisbon", Scope(user_id="alice"))

    body = document(record, np.zeros(4, dtype=np.float32), Rules())

    assert body[FACETS_FIELD] == ["residence"]
    assert body[FACETS_VERSION_FIELD] == "rules-7"


def test_given_a_text_and_its_creation_time_then_the_derived_fields_are_what_the_document_holds() -> None:
    record = MemoryRecord.create("I live in Lisbon", Scope(user_id="alice"))

    fields = derived_fields(record.text, record.created_at, Rules())

    assert fields == {
        "dated": english().date_words(record.created_at),
        FACETS_FIELD: ["residence"],
        FACETS_VERSION_FIELD: "rules-7",
    }
    assert fields.items() <= document(record, np.zeros(4, dtype=np.float32), Rules()).items()
