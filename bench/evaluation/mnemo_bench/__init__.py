"""Offline evaluations of mnemo: retrieval quality on public benchmarks, and the peer systems run beside it.

Not part of the runtime package (nor of the Lambda layer): this distribution, mnemo-bench, adds the
`mnemo bench` command through the `mnemo.commands` entry point group (see `mnemo_bench.cli`).
"""
