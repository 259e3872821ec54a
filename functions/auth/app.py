"""Lambda entry of the account routes: /auth/*, /api-keys*, /users* (mnemo.entrypoints.lambda_http)."""

from mnemo.entrypoints.lambda_http import http_entry

entry = http_entry(["auth"], follow_configuration=False)
handler = entry.handler
warm = entry.warm
