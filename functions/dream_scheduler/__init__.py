"""The dream_scheduler function (its handler is app.handler)."""
