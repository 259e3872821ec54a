"""The ingest_worker function (its handler is app.handler)."""
