"""The memories function (its handler is app.handler)."""
