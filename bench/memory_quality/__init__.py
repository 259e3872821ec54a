"""The memory-quality evaluation of issue 16: labelled conversations (bench/data/memory_quality/) added to the
embedded default through both surfaces, and what it remembers of them (`python -m bench.memory_quality`)."""
