"""Lambda entry of the configuration routes: /configure* (mnemo.entrypoints.lambda_http)."""

from mnemo.entrypoints.lambda_http import http_entry

entry = http_entry(["configure"])
handler = entry.handler
warm = entry.warm
