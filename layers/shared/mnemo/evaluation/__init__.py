"""Offline evaluations of mnemo: retrieval quality on public benchmarks, and the peer systems run beside it."""
