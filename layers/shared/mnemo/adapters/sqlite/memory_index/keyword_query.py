"""The keyword table's layout and the FTS5 query of a keyword search (BM25), as SQL text and parameters.

`dated` holds the day the memory was made, in words ("8 May 2023"), so that a question naming a day, a month or a
year finds what was said then: keyword context only, the memory's text is unchanged. `user_id` is indexed so that a
search scoped to users intersects their rows inside FTS5 instead of scoring every matching row of every user; its
words never score (weight 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

FTS_ARGS = "text, memory_id UNINDEXED, user_id, dated, tokenize = 'porter unicode61 remove_diacritics 2'"
SCHEMA = f"CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5({FTS_ARGS});"
DATED_WEIGHT = 1.0  # BM25 weight of a date word against a word of the text
BM25 = f"bm25(memory_fts, 1.0, 0.0, 0.0, {DATED_WEIGHT})"
CAPPED_COUNT = "SELECT count(*) FROM (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?)"
KeywordQuery = tuple[str, list[Any]]  # the SQL and its parameters but the row limit (the last `?`)


def keyword_query(terms: list[str], users: set[str] | None, narrow: bool) -> KeywordQuery | None:
    """The FTS5 query of a keyword search, best first, and its parameters but the row limit (None: nothing can
    match). When the users hold a small share of the rows (`narrow`), the match is narrowed to rows holding the
    users' words and then to the users exactly. Otherwise both cost more than they save (bench/memory_index.md): the
    caller's check keeps the users' rows, and its fetch grows until enough passed."""
    if not terms or (users is not None and not users):
        return None
    match = "{text dated} : (" + " OR ".join(quoted(t) for t in terms) + ")"
    sql = f"SELECT memory_id, -{BM25} FROM memory_fts WHERE memory_fts MATCH ?"
    params: list[Any] = []
    if users is not None and narrow:
        match, sql = _narrowed(match, sql, users)
        params.extend(sorted(users))
    return f"{sql} ORDER BY {BM25} LIMIT ?", [match, *params]


def _narrowed(match: str, sql: str, users: set[str]) -> tuple[str, str]:
    """The match kept to rows holding the users' words (when every user has a word), the SQL to the users' rows."""
    if all(any(c.isalnum() for c in u) for u in users):
        match += " AND user_id : (" + " OR ".join(quoted(u) for u in sorted(users)) + ")"
    return match, sql + f" AND user_id IN ({', '.join('?' * len(users))})"


def among(query: KeywordQuery, keys: np.ndarray) -> KeywordQuery:
    """The keyword query kept to these rows (integers: written into the SQL as they are)."""
    sql, params = query
    where, order = sql.split(" ORDER BY ", 1)
    listed = ", ".join(str(int(key)) for key in keys)
    return f"{where} AND rowid IN ({listed}) ORDER BY {order}", params


def term_match(term: str) -> str:
    """The FTS5 match of one term in the scored columns."""
    return "{text dated} : " + quoted(term)


def quoted(text: str) -> str:
    """An FTS5 string: matched as the phrase of its words, with no query syntax."""
    return '"' + text.replace('"', '""') + '"'


def table_args(create: str) -> str:
    """The argument list of a CREATE VIRTUAL TABLE statement, whitespace normalised."""
    inner = create[create.find("(") + 1 : create.rfind(")")]
    return " ".join(inner.split())
