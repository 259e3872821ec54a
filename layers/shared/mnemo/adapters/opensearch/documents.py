"""The index mapping, the document indexed for each memory, and the filter document read back from hits."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import numpy as np

from mnemo.adapters.opensearch.query_dsl import metadata_terms, micros
from mnemo.domain.memory import FACETS_FIELD, MemoryRecord
from mnemo.domain.timefmt import date_or_none, from_iso, iso
from mnemo.ports.embedder import Vectors
from mnemo.ports.facets import IndexWords

VECTOR_FIELD = "embedding"
# The version of the rules that read a document's facets (the language pack's): a document of another is stale.
FACETS_VERSION_FIELD = "facets_version"
TEXT_FIELDS = ("memory", "dated")  # BM25 over the text and its creation day in words, like the local index
_SCOPE = ("user_id", "agent_id", "run_id", "app_id")
# What a hit brings back: enough to rebuild the filter document for the post-filter.
SOURCE_FIELDS = (
    "id",
    "memory",
    *_SCOPE,
    "actor_id",
    "role",
    "categories",
    "metadata",
    "created_at",
    "updated_at",
    "expiration_date",
    "state",
    FACETS_FIELD,
)


def index_body(dimension: int, *, m: int = 16, ef_construction: int = 128) -> dict[str, Any]:
    """Settings and mapping: HNSW on faiss, inner product (the vectors are unit length, so it is the cosine).

    Unmapped fields (`dynamic: false`) stay in _source only: metadata is never mapped, so no key a user
    invents can grow the mapping; its text values are searchable through `metadata_terms`.
    """
    keyword = {"type": "keyword"}
    return {
        "settings": {"index": {"knn": True}},
        "mappings": {
            "dynamic": False,
            "properties": {
                "id": keyword,
                "memory": {"type": "text", "analyzer": "english"},
                "dated": {"type": "text", "analyzer": "english"},
                **{
                    name: keyword
                    for name in (*_SCOPE, "actor_id", "role", "state", "categories", FACETS_FIELD, FACETS_VERSION_FIELD)
                },
                "metadata": {"type": "object", "enabled": False},
                "metadata_terms": keyword,
                "created_us": {"type": "long"},
                "updated_us": {"type": "long"},
                "expiration_date": {"type": "date", "format": "strict_date"},
                VECTOR_FIELD: {
                    "type": "knn_vector",
                    "dimension": dimension,
                    "method": {
                        "name": "hnsw",
                        "space_type": "innerproduct",
                        "engine": "faiss",
                        "parameters": {"m": m, "ef_construction": ef_construction},
                    },
                },
            },
        },
    }


def derived_fields(text: str, created_at: datetime, words: IndexWords) -> dict[str, Any]:
    """The fields of a document that the language pack reads (its facets, its creation day in words), stamped with
    the pack's version: what a document stale for another version has rewritten (facet_versions.py)."""
    return {
        "dated": words.date_words(created_at),
        FACETS_FIELD: words.facets(text),
        FACETS_VERSION_FIELD: words.version,
    }


def document(record: MemoryRecord, vector: Vectors, facets: IndexWords) -> dict[str, Any]:
    """The document indexed for a memory, its facets read by `facets` and stamped with their version."""
    return {
        "id": record.id,
        "memory": record.text,
        **derived_fields(record.text, record.created_at, facets),
        **{name: getattr(record.scope, name) for name in _SCOPE},
        "actor_id": record.actor_id,
        "role": record.role,
        "state": record.state.value,
        "categories": list(record.categories),
        "metadata": record.metadata,
        "metadata_terms": metadata_terms(record.metadata),
        "created_at": iso(record.created_at),
        "created_us": micros(record.created_at),
        "updated_at": iso(record.updated_at),
        "updated_us": micros(record.updated_at),
        "expiration_date": record.expiration_date.isoformat() if record.expiration_date else None,
        VECTOR_FIELD: np.asarray(vector, dtype=np.float32).reshape(-1).astype(float).tolist(),
    }


def filter_document(source: Mapping[str, Any]) -> dict[str, Any]:
    """The memory's index document (MemoryRecord.index_document) rebuilt from a hit's _source."""
    doc: dict[str, Any] = {name: source.get(name) for name in ("id", "memory", *_SCOPE, "actor_id", "role", "state")}
    doc["categories"] = list(source.get("categories") or [])
    doc[FACETS_FIELD] = list(source.get(FACETS_FIELD) or [])
    doc["metadata"] = dict(source.get("metadata") or {})
    doc["created_at"] = from_iso(source["created_at"])
    doc["updated_at"] = from_iso(source["updated_at"])
    doc["expiration_date"] = date_or_none(source.get("expiration_date"))
    return doc


def cosine_from_score(score: float) -> float:
    """Invert OpenSearch's score for faiss `innerproduct`: ip + 1 when ip >= 0, else 1 / (1 - ip)."""
    if score >= 1.0:
        return score - 1.0
    return 1.0 - 1.0 / score if score > 0 else -1.0
