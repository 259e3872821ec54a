"""The entry points: the `mnemo` command and the Lambda handlers' factories (functions/<group>/app.py calls one).
Each builds nothing at import time but what its runtime needs, and gets its services from the composition root."""
