"""Lambda entry of the ingest worker: batches of queued platform add jobs from SQS (mnemo.entrypoints.lambda_worker)."""

from mnemo.entrypoints.lambda_worker import worker_entry

entry = worker_entry()
handler = entry.handler
warm = entry.warm
