"""Lambda entry of the admin routes: /requests, /entities*, and the API explorer (/, /docs, /openapi.json).

The handler comes from mnemo.entrypoints.lambda_http.
"""

from mnemo.entrypoints.lambda_http import http_entry

entry = http_entry(["admin"], follow_configuration=False)
handler = entry.handler
warm = entry.warm
