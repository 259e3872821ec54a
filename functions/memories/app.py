"""Lambda entry of the memory routes: /memories*, /search, /reset (mnemo.entrypoints.lambda_http)."""

from mnemo.entrypoints.lambda_http import http_entry

entry = http_entry(["memories"])
handler = entry.handler
warm = entry.warm
