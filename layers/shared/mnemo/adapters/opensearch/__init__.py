"""OpenSearch adapters: the memory search index over HTTP, signed with SigV4."""
