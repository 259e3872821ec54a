"""The English language pack: the rules that read English (claims and facets, asked facets, change words, life
slots, the deterministic extractor, wording, paraphrase guards, time words, the default categories' phrasings, the
words of topics), as small modules over word lists and patterns kept as data (data/). `english()` is the pack behind
the mnemo.language `Language` interface; only the composition root, the entry points and tests import it."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mnemo.language.en.pack import English


@functools.cache
def english() -> English:
    """The English pack (one per process; its rules load on this first call)."""
    from mnemo.language.en.pack import English

    return English()
