"""Lambda entry of POST /mcp, the MCP tools in stateless streamable HTTP (mnemo.api.mcp_server): each tool call is
a call of the memory, entity, configure and platform routes, served in this function's own process.

The handler comes from mnemo.entrypoints.lambda_http.
"""

from mnemo.entrypoints.lambda_http import http_entry

entry = http_entry(["mcp", "memories", "admin", "configure", "platform"])
handler = entry.handler
warm = entry.warm
