"""Webhook deliveries over HTTP: the sender of the `WebhookSender` port (http_sender.py)."""
