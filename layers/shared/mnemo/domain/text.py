"""The words of a text, in any language written with spaces between words: runs of letters and digits, a word's
inner apostrophes kept ("don't"). What is a content word of a language, and how a date is written in it, is the
language pack's (mnemo.language)."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]
