"""The memory use cases of one namespace, as small pipelines composed by one facade (`MemoryService`)."""
