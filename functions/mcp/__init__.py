"""The admin function (its handler is app.handler)."""
