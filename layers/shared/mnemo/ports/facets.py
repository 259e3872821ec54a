"""What a search index that derives a memory's facets itself is given (by the composition root): the reader of the
facets a memory states, and the version of the rules it reads them with. An index stores the version with each facet
set and reads again, itself, the facets stored with another (mnemo.language: a language pack is such a reader). An
index that searches by keywords is given the words of keyword search too (`IndexWords`)."""

from __future__ import annotations

from typing import Protocol

from mnemo.language import KeywordWords


class FacetReader(Protocol):
    @property
    def version(self) -> str:
        """Changes whenever the facets of a text may."""
        ...

    def facets(self, text: str) -> list[str]:
        """The attributes the memory's text states, as the index files it."""
        ...


class IndexWords(FacetReader, KeywordWords, Protocol):
    """What a search index that files memories by their facets and their keywords reads them with (a language
    pack): the facets and their version, a text's keywords, a day in words."""
