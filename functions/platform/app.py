"""Lambda entry of the platform routes: /v1/*, /v2/*, /v3/*, /api/v1/* (the mem0-compatible, multi-tenant API).

The handler comes from mnemo.entrypoints.lambda_http.
"""

from mnemo.entrypoints.lambda_http import http_entry

entry = http_entry(["platform"])
handler = entry.handler
warm = entry.warm
