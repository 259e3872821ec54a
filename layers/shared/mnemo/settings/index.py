"""The embedded search index: when it searches approximately and what it keeps out of the keyword search."""

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class IndexSettings(BaseSettings):
    """The local backend's index."""

    model_config = SettingsConfigDict(env_prefix="MNEMO_", extra="ignore", populate_by_name=True)

    # ---- the embedded search index (mnemo.adapters.sqlite.memory_index) ----
    index_ann_min_rows: int = Field(
        default=20_000,
        ge=1,
        description="A search over this many memories or more (one user's, or all of them) takes its semantic "
        "candidates from the approximate index (faiss IVF, int8), built once a store holds this many; fewer are "
        "scanned exactly.",
    )
    index_ann_nprobe: int = Field(
        default=64,
        ge=1,
        le=4096,
        description="Inverted lists the approximate index scans per search: more is slower and closer to exact.",
    )
    prewarm_page_cache: bool = Field(
        default=True,
        description="A serving process asks the kernel to read the data dir's files into its page cache at start "
        "(in the background, when they fit in half the available memory), so that a user's first search does not "
        "wait on the disk (mnemo.adapters.sqlite.page_cache).",
    )
    index_keyword_term_cap: int = Field(
        default=20_000,
        ge=1,
        description="A query word found in more memories than this is left out of the keyword (BM25) search: its "
        "weight is low, and reading and ranking its rows costs about 0.5 µs each (a store of fewer memories keeps "
        "every word).",
    )
