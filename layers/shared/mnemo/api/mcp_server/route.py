"""POST /mcp: the Model Context Protocol over streamable HTTP, stateless (every POST carries one JSON-RPC message
or batch and gets its answer as JSON; no session, no server-sent stream), so any instance, or a Lambda function,
serves any call. Authenticated like the REST routes: `Authorization: Token <project key>` (the platform, that
project), `X-API-Key` (an `m0sk_` key or the admin key) or `Authorization: Bearer <token>` (self-hosted); nothing
opens it without credentials unless the self-hosted API runs with AUTH_DISABLED (loopback only). The credentials
are checked before the MCP message is read, and each tool call is a call of the REST API with them."""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Annotated, Any, Literal

import httpx
from fastapi import APIRouter, Depends, Request, Security
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.types import Message, Scope

from mnemo.api.mcp_server.app_state import DEFAULT_USER_ID, DEFAULT_USER_STATE
from mnemo.api.mcp_server.gateway import Credentials, MemoryGateway
from mnemo.api.platform.security import platform_caller_in_thread, token_scheme
from mnemo.api.responses import BadRequestOut, errors
from mnemo.api.security import ApiKeyValue, BearerCredentials, identified
from mnemo.errors import AuthenticationError, ValidationError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

PATH = "/mcp"
IN_PROCESS_BASE = "http://mnemo.internal"

MISSING = (
    "Authentication required. A platform project key as `Authorization: Token <key>`, a self-hosted `m0sk_` key "
    "or the admin key as `X-API-Key: <key>`, or a self-hosted sign-in as `Authorization: Bearer <token>`."
)
MAX_JSON_ID = 2**53  # the largest integer every JSON reader keeps exactly
NUL = "\x00"


class McpMessage(BaseModel):
    """One JSON-RPC 2.0 message of the client: a request (with an id) or a notification (without)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "search_memories", "arguments": {"query": "What does Alice eat?"}},
                }
            ]
        },
    )

    jsonrpc: Literal["2.0"] = Field(description="The protocol: always 2.0.")
    id: Annotated[str, Field(max_length=255)] | Annotated[int, Field(ge=-MAX_JSON_ID, le=MAX_JSON_ID)] | None = Field(
        default=None, description="The request's id, echoed in its answer; none for a notification."
    )
    method: str = Field(
        max_length=255,
        description="initialize, ping, tools/list, tools/call, prompts/list, prompts/get, notifications/…",
        examples=["tools/call"],
    )
    params: dict[str, Any] | None = Field(
        default=None,
        description="The method's parameters; for tools/call, the tool's `name` and its `arguments` (each tool's "
        "input schema, from tools/list, gives their bounds).",
    )

    @field_validator("id", mode="before")
    @classmethod
    def _not_a_boolean(cls, value: Any) -> Any:
        """JSON-RPC ids are strings, numbers or null: pydantic would read `false` as 0, and the SDK then took the
        message for a notification (a 202 for a request it never answered). A whole number written as one (`2.0`)
        is the integer (as JSON Schema has it): `sdk_body` hands it to the SDK so."""
        if isinstance(value, bool):
            raise ValueError("the id must be a string, an integer or null, not a boolean")
        return value


def nul_at(value: Any, path: str = "params") -> str | None:
    """Where a NUL character is in a message's parameters (none belongs in a memory, an id or a filter)."""
    if isinstance(value, str):
        return path if NUL in value else None
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, inner in items:
        if isinstance(key, str) and NUL in key:
            return f"{path} (a key)"
        found = nul_at(inner, f"{path}.{key}")
        if found:
            return found
    return None


class JsonRpcError(BaseModel):
    """A JSON-RPC error: the message could not be served (a tool's own failure is a result with isError)."""

    code: int = Field(description="The JSON-RPC error code (-32602: invalid params, -32601: no such method, ...).")
    message: str = Field(description="What went wrong, for a person to read.")
    data: Any = Field(default=None, description="More about it, when there is more.")


class McpAnswer(BaseModel):
    """The JSON-RPC answer to one MCP message (a batch is answered by a list of them)."""

    jsonrpc: str = Field(description="Always 2.0.", examples=["2.0"])
    id: str | int | None = Field(description="The id of the message answered.")
    result: dict[str, Any] | None = Field(
        default=None, description="What was asked: the server's capabilities, the tools, a tool's result, ..."
    )
    error: JsonRpcError | None = Field(default=None, description="Why the message could not be served.")


def json_rpc_error(description: str, *others: type[BaseModel]) -> dict[str, Any]:
    """A failure the MCP transport answers with a JSON-RPC error (or, for `others`, with mnemo's own error body)."""
    models: tuple[type[BaseModel], ...] = (McpAnswer, *others)
    refs = [{"$ref": f"#/components/schemas/{model.__name__}"} for model in models]
    schema = refs[0] if len(refs) == 1 else {"anyOf": refs}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


router = APIRouter(tags=["mcp"])


def mcp_credentials(
    request: Request,
    token: Annotated[str | None, Security(token_scheme)],
    bearer: BearerCredentials,
    api_key: ApiKeyValue,
) -> Credentials:
    """The caller's credentials, checked as the REST routes check them (a 401 or 403 otherwise)."""
    credentials = Credentials.of_request({k.lower(): v for k, v in request.headers.items()})
    if credentials.surface.value == "platform":
        platform_caller_in_thread(request, token)
        return credentials
    try:
        identified(request, bearer, api_key)
    except AuthenticationError as refused:
        if refused.challenge:  # none were sent: name every form /mcp takes, the project key's too
            raise AuthenticationError(MISSING, challenge=True) from None
        raise
    return credentials


@functools.cache
def mcp_server() -> MCPServer:
    """The one MCP server of this process (its SDK imported on the first MCP call, not by every function)."""
    from mnemo.api.mcp_server.tools import build_server

    return build_server()


@router.post(
    PATH,
    summary="Model Context Protocol (streamable HTTP, stateless JSON): mnemo's memory tools for agents",
    description="One JSON-RPC 2.0 message per POST, answered as JSON: `initialize`, `tools/list`, "
    "`tools/call` (add_memory, search_memories, get_memories, get_memory, update_memory, delete_memory, "
    "delete_all_memories, list_entities, delete_entities), `prompts/list`, `prompts/get`. Send "
    "`Accept: application/json, text/event-stream` (406 otherwise) and `Content-Type: application/json` "
    "(415 otherwise). A tool's failure is its result with `isError: true` and the API's status and message.",
    response_description="The JSON-RPC answer; 202 with no body for a notification.",
    response_model=McpAnswer,
    responses={
        **errors(401, 403, 413),
        202: {"description": "A notification or a response was accepted (no body)."},
        400: json_rpc_error(
            "Not a JSON-RPC message (its error says why), or a body mnemo refuses to read (unknown keys: each listed).",
            BadRequestOut,
        ),
        406: json_rpc_error("The Accept header does not allow application/json and text/event-stream."),
        415: json_rpc_error("The body is not application/json."),
    },
)
async def mcp_endpoint(
    request: Request, message: McpMessage, credentials: Annotated[Credentials, Depends(mcp_credentials)]
) -> Response:
    where = nul_at(message.params)
    if where:
        raise ValidationError(f"{where} holds a control character (NUL).")
    body = sdk_body(await request.body(), message)
    settings_user = getattr(request.app.state, DEFAULT_USER_STATE, DEFAULT_USER_ID)
    transport = httpx.ASGITransport(app=request.app)
    async with httpx.AsyncClient(transport=transport, base_url=IN_PROCESS_BASE, timeout=None) as client:
        gateway = MemoryGateway(client, credentials, settings_user, public_base=str(request.base_url))
        return await serve_one(mcp_server(), gateway, request.scope, body)


def sdk_body(body: bytes, message: McpMessage) -> bytes:
    """The message as the SDK reads it: an id sent as a whole number with a fraction part (`2.0`) written as the
    integer it is, which the SDK would otherwise take for no id at all."""
    if not isinstance(message.id, int):
        return body
    raw = json.loads(body)
    if isinstance(raw.get("id"), float):
        raw["id"] = message.id
        return json.dumps(raw).encode("utf-8")
    return body


async def serve_one(server: MCPServer, gateway: MemoryGateway, scope: Scope, body: bytes) -> Response:
    """Answer one MCP POST with a stateless session manager of its own, the tools calling `gateway`."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

    from mnemo.api.mcp_server.tools import using

    manager = StreamableHTTPSessionManager(
        app=server._lowlevel_server,
        json_response=True,
        stateless=True,
        # DNS rebinding protection guards servers without credentials; this one checks them first (and with
        # AUTH_DISABLED the process binds to the loopback interface only).
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    sent = Captured()
    delivered = False

    async def receive() -> Message:
        nonlocal delivered
        if delivered:
            return {"type": "http.disconnect"}
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    with using(gateway):
        async with manager.run():
            await manager.handle_request(scope, receive, sent)
    return sent.response()


class Captured:
    """An ASGI `send` that keeps one answer, to return it as a Response (the JSON answer is never streamed)."""

    def __init__(self) -> None:
        self.status = 500
        self.headers: list[tuple[bytes, bytes]] = []
        self.body = bytearray()

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            self.body.extend(message.get("body", b""))

    def response(self) -> Response:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in self.headers if k.lower() != b"content-length"}
        return Response(content=bytes(self.body), status_code=self.status, headers=headers)
