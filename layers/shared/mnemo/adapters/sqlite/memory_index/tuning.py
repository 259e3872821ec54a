"""When the embedded index searches approximately, and how: the knobs mnemo.settings exposes, in one value the
composition root builds and the index's parts read."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class IndexTuning:
    """When the index searches approximately, and how (mnemo.settings documents each)."""

    ann_min_rows: int = 20_000  # a search over this many rows or more asks the approximate index for candidates
    ann_nprobe: int = 64  # inverted lists the approximate index scans per search
    ann_max_candidates: int = 8_192  # candidates asked for before a filter that keeps too few falls back to exact
    keyword_term_cap: int = 20_000  # a word in more memories than this is left out of the keyword search
