"""The configure function (its handler is app.handler)."""
