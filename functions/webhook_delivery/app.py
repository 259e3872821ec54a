"""Lambda entry of the webhook delivery function: batches of the webhook delivery queue (the events topic's
subscription, and delayed retries) and the one-minute schedule (mnemo.entrypoints.lambda_webhooks)."""

from mnemo.entrypoints.lambda_webhooks import webhooks_entry

entry = webhooks_entry()
handler = entry.handler
warm = entry.warm
