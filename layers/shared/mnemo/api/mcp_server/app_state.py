"""What an app keeps in its state for the MCP route: whose memories a tool touches when a call names no entity.
Apart from route.py, so that building an app that serves no MCP route (api/app.py `create_app`) does not import the
route, and through it httpx and the platform's routers."""

from __future__ import annotations

DEFAULT_USER_STATE = "mcp_default_user_id"
DEFAULT_USER_ID = "mnemo-mcp"
