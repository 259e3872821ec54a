"""Webhooks: their management, the relay from the stores' outboxes to deliveries, the signed dispatch in each
webhook's order with retries, and the local worker that runs both."""
