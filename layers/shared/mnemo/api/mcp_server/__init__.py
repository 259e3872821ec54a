"""mnemo's MCP server: its tools (tools.py) over the REST API (gateway.py), served at POST /mcp (route.py) and over
stdio (`mnemo mcp`, mnemo.entrypoints.mcp_stdio). The MCP SDK is imported only when an MCP call comes."""
