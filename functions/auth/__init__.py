"""The auth function (its handler is app.handler)."""
