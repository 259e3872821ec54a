"""The one rule of a user, agent, app or run id, on every route of both surfaces: an id is what it prints as.

An id names whose memories these are, so two ids that look the same must be the same id, and an id must look like
what it is. An id is refused (a 400 naming the field) when it

- is empty, longer than 255 characters, or longer than 512 bytes of UTF-8 (ids become parts of database keys:
  DynamoDB's sort keys hold 1,024 bytes);
- holds whitespace anywhere (a space, a tab, a line break, NBSP, the ideographic space, U+0085, U+2028, ...):
  nothing is stripped, so "alice " is never taken for "alice";
- holds a character that prints as nothing or reorders what follows: controls (NUL, ESC), format characters
  (zero-width spaces and joiners, the byte order mark, the bidirectional overrides such as U+202E), private-use
  and unassigned code points, and halves of UTF-16 surrogate pairs;
- is not in Unicode normalization form NFC ("é" written as "e" and a combining accent is the same text as "é" to a
  reader, so only the composed form is an id);
- mixes writing systems the way a look-alike does: the letters of an id are of one script, or of one of the
  combinations Unicode's "highly restrictive" profile allows (UTS #39, section 5.2: Latin with Han and Japanese
  kana, with Han and Bopomofo, or with Han and Hangul). "аlice" with a Cyrillic "а" is refused; "alice-42",
  "ユーザー山田" and "김민준" are ids.

Digits, punctuation and symbols belong to no script and may go with any.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from mnemo.errors import ValidationError

MAX_ENTITY_ID_LENGTH = 255
MAX_ENTITY_ID_BYTES = 512

# Characters that print as nothing, reorder text, or are not text at all (general categories).
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})

# The scripts a letter's Unicode name starts with (or holds, for "FULLWIDTH LATIN ..."), by the name's words.
_SCRIPT_WORDS = {
    "LATIN": "Latin",
    "CYRILLIC": "Cyrillic",
    "GREEK": "Greek",
    "ARMENIAN": "Armenian",
    "HEBREW": "Hebrew",
    "ARABIC": "Arabic",
    "DEVANAGARI": "Devanagari",
    "BENGALI": "Bengali",
    "THAI": "Thai",
    "GEORGIAN": "Georgian",
    "HANGUL": "Hangul",
    "HIRAGANA": "Hiragana",
    "KATAKANA": "Katakana",
    "BOPOMOFO": "Bopomofo",
    "CJK": "Han",
    "IDEOGRAPHIC": "Han",
}
# UTS #39 "highly restrictive": a single script, or Latin with one of these.
_ALLOWED_MIXES = (
    frozenset({"Latin", "Han", "Hiragana", "Katakana"}),
    frozenset({"Latin", "Han", "Bopomofo"}),
    frozenset({"Latin", "Han", "Hangul"}),
)


def checked_storable_id(value: str, name: str) -> str:
    """The id as given, or a ValidationError when no store or index could keep it: too long, or holding a control
    character or half of a UTF-16 surrogate pair. This is what every stored scope is held to (ids stored before the
    whole rule existed stay readable); what a request names is held to the whole rule (`checked_entity_id`)."""
    if len(value) > MAX_ENTITY_ID_LENGTH or len(value.encode("utf-8", "surrogatepass")) > MAX_ENTITY_ID_BYTES:
        raise ValidationError(
            f"{name} is too long: at most {MAX_ENTITY_ID_LENGTH} characters and {MAX_ENTITY_ID_BYTES} bytes of UTF-8."
        )
    if not value.isprintable() and any(unicodedata.category(ch) in ("Cc", "Cs") for ch in value):
        raise ValidationError(f"{name} must not contain control characters or unpaired UTF-16 surrogates.")
    return value


def checked_entity_id(value: str, name: str) -> str:
    """The id as given, or a ValidationError (400) naming the field and what is wrong with it."""
    problem = entity_id_problem(value)
    if problem is not None:
        raise ValidationError(f"{name} {problem}.")
    return value


def entity_id_problem(value: str) -> str | None:
    """What makes `value` no id (completing "user_id ..."), or None."""
    if not value:
        return "must not be empty"
    if len(value) > MAX_ENTITY_ID_LENGTH or len(value.encode("utf-8", "surrogatepass")) > MAX_ENTITY_ID_BYTES:
        return f"is too long: at most {MAX_ENTITY_ID_LENGTH} characters and {MAX_ENTITY_ID_BYTES} bytes of UTF-8"
    if value.isascii():
        return _ascii_problem(value)
    return _unicode_problem(value)


def _ascii_problem(value: str) -> str | None:
    if " " in value or any(ch in value for ch in "\t\n\r\x0b\x0c"):
        return "must not contain whitespace (nothing is stripped)"
    if not value.isprintable():
        return "must not contain control characters"
    return None


def _unicode_problem(value: str) -> str | None:
    for ch in value:
        category = unicodedata.category(ch)
        if ch.isspace() or category in ("Zs", "Zl", "Zp"):
            return f"must not contain whitespace (nothing is stripped): U+{ord(ch):04X}"
        if category == "Cs":
            return "must not contain unpaired UTF-16 surrogates"
        if category in _INVISIBLE:
            return f"must not contain control, format or invisible characters: U+{ord(ch):04X}"
    if not unicodedata.is_normalized("NFC", value):
        return "must be in Unicode normalization form NFC (compose accents with their letters)"
    scripts = {script for ch in value if (script := script_of(ch)) is not None}
    if len(scripts) > 1 and not any(scripts <= mix for mix in _ALLOWED_MIXES):
        return f"mixes writing systems ({', '.join(sorted(scripts))}), as an id made to look like another does"
    return None


@lru_cache(maxsize=4096)
def script_of(ch: str) -> str | None:
    """The script of a letter (its Unicode name says it: "LATIN SMALL LETTER A", "CJK UNIFIED IDEOGRAPH-4E00"),
    "Other:<first word of its name>" for a letter of another script, and None for what is no letter (digits,
    punctuation, symbols, combining marks: they go with any script)."""
    if not unicodedata.category(ch).startswith("L"):
        return None
    words = unicodedata.name(ch, "").replace("-", " ").split()
    for word in words[:2]:
        if word in _SCRIPT_WORDS:
            return _SCRIPT_WORDS[word]
    return f"Other:{words[0]}" if words else "Other"
