"""`mnemo mcp`: the MCP tools over stdio, for desktop clients (Claude Desktop, Cursor, VS Code, ...). The tools
call mnemo's REST API: of this machine's data dir in this process (no server to run), or of a remote mnemo
(`MNEMO_MCP_URL`). The key comes from the environment (`MNEMO_MCP_API_KEY`); it is checked before the first
message is read, and a refused key ends the command with the API's message on stderr. stdout carries only the
protocol."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import httpx

from mnemo.api.mcp_server.gateway import ApiRefusalError, Credentials, MemoryGateway, Surface
from mnemo.api.mcp_server.route import IN_PROCESS_BASE
from mnemo.settings import Settings


@asynccontextmanager
async def api_client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the remote mnemo, or of the whole app over the local data dir in this process."""
    if settings.mcp_url:
        async with httpx.AsyncClient(base_url=settings.mcp_url.rstrip("/"), timeout=120) as client:
            yield client
        return
    from pydantic import SecretStr

    from mnemo.api.app import create_app
    from mnemo.composition.container import build_container
    from mnemo.entrypoints.cli import local_jwt_secret

    if not settings.auth_disabled and settings.secret("jwt_secret") is None:
        settings = settings.model_copy(update={"jwt_secret": SecretStr(local_jwt_secret(settings.jwt_secret_path))})
    container = build_container(settings)
    try:
        app = create_app(container, mcp_default_user_id=settings.mcp_default_user_id)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url=IN_PROCESS_BASE, timeout=None
        ) as client:
            yield client
    finally:
        container.close()


async def serve_stdio(settings: Settings, surface: Surface | None = None) -> int:
    from mnemo.api.mcp_server.tools import build_server, using

    key = settings.mcp_api_key.get_secret_value() if settings.mcp_api_key is not None else None
    credentials = Credentials.of_key(key, surface)
    async with api_client(settings) as client:
        gateway = MemoryGateway(client, credentials, settings.mcp_default_user_id, public_base=settings.mcp_url)
        try:
            await gateway.check()
        except ApiRefusalError as refused:
            where = settings.mcp_url or f"the data dir {settings.data_dir}"
            print(
                f"mnemo mcp: {where} refused the key ({refused.status}: {refused.detail}). Set MNEMO_MCP_API_KEY "
                "to a project key (`mnemo platform bootstrap`) or an m0sk_ key (POST /api-keys).",
                file=sys.stderr,
            )
            return 1
        except httpx.HTTPError as unreachable:
            print(f"mnemo mcp: cannot reach {settings.mcp_url}: {unreachable}", file=sys.stderr)
            return 1
        with using(gateway):
            await build_server().run_stdio_async()
    return 0


def run(settings: Settings, surface: Surface | None = None) -> int:
    return int(anyio.run(serve_stdio, settings, surface))
