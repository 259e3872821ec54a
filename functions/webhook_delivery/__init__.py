"""The webhook_delivery function (its handler is app.handler)."""
