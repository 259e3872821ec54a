"""The sentences of a message, each with where it is in the message (its span: `content[start:end]`). The
abbreviations a full stop does not end a sentence after are data (data/sentences.toml)."""

from __future__ import annotations

import re

from mnemo.language.en.words import word_set
from mnemo.language.statements import Sentence

# Words after which a full stop does not end the sentence ("Dr. Smith", "e.g. pasta").
ABBREVIATIONS = word_set("sentences.toml", "abbreviations")
_ENDS = ".!?;\n"


def sentences(content: str) -> list[Sentence]:
    """The non-empty sentences of `content`, in order: split after `.`, `!`, `?`, `;` and line breaks (the run of
    closing marks kept with the sentence), except a full stop inside a number ("3.5"), after an abbreviation or
    after an initial ("J. R. R. Tolkien")."""
    found: list[Sentence] = []
    begin = 0
    i = 0
    while i < len(content):
        if content[i] in _ENDS and _ends_here(content, i):
            end = i + 1
            while end < len(content) and content[end] in ".!?;":
                end += 1
            _add(found, content, begin, end)
            begin = i = end
            continue
        i += 1
    _add(found, content, begin, len(content))
    return found


def _ends_here(content: str, i: int) -> bool:
    if content[i] != ".":
        return True
    after = content[i + 1 : i + 2]
    if after.isdigit():
        return False
    word = re.search(r"([\w.]+)$", content[:i])
    if word is None:
        return True
    token = word.group(1).lower()
    return token not in ABBREVIATIONS and not (len(token) == 1 and token.isalpha() and content[i - 1].isupper())


def _add(found: list[Sentence], content: str, begin: int, end: int) -> None:
    raw = content[begin:end]
    text = raw.strip()
    if text:
        start = begin + (len(raw) - len(raw.lstrip()))
        found.append(Sentence(text, start, start + len(text)))
