"""The MCP server's tools, named and shaped like the reference MCP server's (add_memory, search_memories,
get_memories, get_memory, update_memory, delete_memory, delete_all_memories, list_entities, delete_entities), so
agent prompts written for it keep working. Each tool is one call of the caller's MemoryGateway (the request's,
set by the transport in `current_gateway`); what it answers is the API's JSON, and what the API refuses is the
tool's error, with the API's status and message."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

import mnemo
from mnemo.api.mcp_server.gateway import ApiRefusalError, MemoryGateway

current_gateway: ContextVar[MemoryGateway] = ContextVar("mnemo_mcp_gateway")

MAX_ID = 255
MAX_TEXT = 100_000
MAX_PAGE_SIZE = 1000

INSTRUCTIONS = (
    "mnemo keeps long-term memories for users, agents, apps and runs. Search before answering questions about "
    "the user (search_memories); store durable facts and preferences as they come up (add_memory); list, update "
    "or delete only memories whose memory_id you know. Without a user_id, memories belong to the server's default "
    "user."
)

FILTER_HELP = """
Filters (JSON): {"AND": [{"user_id": "alice"}]} for one user; {"AND": [{"agent_id": "planner"}]} for an agent;
{"AND": [{"user_id": "alice"}, {"created_at": {"gte": "2026-01-01"}}]} for recent ones;
{"OR": [{"user_id": "alice"}, {"agent_id": "planner"}]} across entities. When the filters name no user_id,
agent_id, app_id or run_id, the default user is added."""

MEMORY_ASSISTANT = (
    """You are using mnemo's MCP server for long-term memory.

1. Store: add_memory with a plain sentence (or messages) and the user_id it is about.
2. Recall: search_memories with a question in natural language; get_memories to page through all of them.
3. Change: update_memory or delete_memory with an exact memory_id from a search or a list.
4. Entities: list_entities shows who has memories; delete_entities removes one and all its memories.
"""
    + FILTER_HELP
)

UserId = Annotated[str | None, Field(default=None, max_length=MAX_ID, description="The user the memory is about.")]
AgentId = Annotated[str | None, Field(default=None, max_length=MAX_ID, description="The agent's identifier.")]
AppId = Annotated[
    str | None, Field(default=None, max_length=MAX_ID, description="The application's identifier (platform keys).")
]
RunId = Annotated[str | None, Field(default=None, max_length=MAX_ID, description="The run or session identifier.")]
MemoryId = Annotated[str, Field(min_length=1, max_length=MAX_ID, description="The exact memory_id.")]
Filters = Annotated[dict[str, Any] | None, Field(default=None, description="Filter clauses." + FILTER_HELP)]

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
CHANGES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)


@contextmanager
def using(gateway: MemoryGateway) -> Iterator[None]:
    """Tool calls made inside are the gateway's (its caller, its surface)."""
    token = current_gateway.set(gateway)
    try:
        yield
    finally:
        current_gateway.reset(token)


async def answer(call: Callable[[MemoryGateway], Awaitable[Any]]) -> str:
    """The JSON of what the API answered, or the tool's error saying what it refused and why."""
    try:
        gateway = current_gateway.get()
    except LookupError as exc:  # a transport that did not say whose call this is: a bug, not the caller's
        raise ToolError("No caller for this call: the server was not started through mnemo's transport.") from exc
    try:
        result = await call(gateway)
    except ApiRefusalError as failure:
        raise ToolError(f"mnemo answered {failure.status}: {failure.detail}") from failure
    return json.dumps(result, ensure_ascii=False)


async def add_memory(
    text: Annotated[
        str | None,
        Field(default=None, max_length=MAX_TEXT, description="A plain sentence of what to remember."),
    ] = None,
    messages: Annotated[
        list[dict[str, str]] | None,
        Field(
            default=None,
            max_length=1000,
            description='Conversation turns, each {"role": "user"|"assistant", "content": "…"}; used '
            "instead of `text` when given.",
        ),
    ] = None,
    user_id: UserId = None,
    agent_id: AgentId = None,
    app_id: AppId = None,
    run_id: RunId = None,
    metadata: Annotated[dict[str, Any] | None, Field(default=None, description="JSON stored with the memory.")] = None,
    infer: Annotated[
        bool | None,
        Field(
            default=None,
            description="Extract facts (true) or store as given (false). Default: true for `messages`, false "
            "for `text`, a fact the agent already chose to keep.",
        ),
    ] = None,
) -> str:
    if not messages:
        if not text or not text.strip():
            raise ToolError("Give `text` (a sentence) or `messages` (turns) to remember.")
        messages = [{"role": "user", "content": text}]
        infer = False if infer is None else infer
    ids = {"user_id": user_id, "agent_id": agent_id, "app_id": app_id, "run_id": run_id}
    return await answer(lambda g: g.add(messages, ids, metadata, infer))


async def search_memories(
    query: Annotated[str, Field(min_length=1, max_length=MAX_TEXT, description="What to find, in natural language.")],
    filters: Filters = None,
    limit: Annotated[
        int | None, Field(default=None, ge=1, le=MAX_PAGE_SIZE, description="At most this many (10).")
    ] = None,
) -> str:
    return await answer(lambda g: g.search(query, filters, limit))


async def get_memories(
    filters: Filters = None,
    page: Annotated[int, Field(default=1, ge=1, le=100_000, description="The page, from 1.")] = 1,
    page_size: Annotated[int, Field(default=10, ge=1, le=MAX_PAGE_SIZE, description="Memories per page (10).")] = 10,
) -> str:
    return await answer(lambda g: g.list(filters, page, page_size))


async def get_memory(memory_id: MemoryId) -> str:
    return await answer(lambda g: g.get(memory_id))


async def update_memory(
    memory_id: MemoryId,
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT, description="The memory's new text.")],
) -> str:
    return await answer(lambda g: g.update(memory_id, text))


async def delete_memory(memory_id: MemoryId) -> str:
    return await answer(lambda g: g.delete(memory_id))


async def delete_all_memories(
    user_id: UserId = None, agent_id: AgentId = None, app_id: AppId = None, run_id: RunId = None
) -> str:
    ids = {"user_id": user_id, "agent_id": agent_id, "app_id": app_id, "run_id": run_id}
    return await answer(lambda g: g.delete_all(ids))


async def list_entities() -> str:
    return await answer(lambda g: g.entities())


async def delete_entities(
    user_id: UserId = None, agent_id: AgentId = None, app_id: AppId = None, run_id: RunId = None
) -> str:
    given = [(kind, v) for kind, v in (("user", user_id), ("agent", agent_id), ("app", app_id), ("run", run_id)) if v]
    if len(given) != 1:
        raise ToolError("Give exactly one of user_id, agent_id, app_id or run_id: the entity to delete.")
    kind, name = given[0]
    return await answer(lambda g: g.delete_entity(kind, name))


TOOLS: list[tuple[Callable[..., Awaitable[str]], ToolAnnotations, str]] = [
    (
        add_memory,
        WRITES,
        "Store a new fact, preference or conversation snippet. Give a fact you have distilled as a plain "
        "sentence in `text` (stored as written), or conversation turns in `messages` (mnemo extracts the facts "
        "worth keeping and drops small talk); at least one of user_id, agent_id, app_id or run_id scopes it (the "
        "default user otherwise). Answers what was stored: each memory's id, text and event (ADD, UPDATE, NOOP).",
    ),
    (search_memories, READ_ONLY, "Find the memories that answer a question, by meaning, best first." + FILTER_HELP),
    (get_memories, READ_ONLY, "Page through memories by filters instead of a search (newest first)." + FILTER_HELP),
    (get_memory, READ_ONLY, "Fetch one memory by its memory_id."),
    (update_memory, CHANGES, "Replace the text of one memory, by its memory_id."),
    (delete_memory, CHANGES, "Delete one memory, by its memory_id, once the user confirms it."),
    (
        delete_all_memories,
        CHANGES,
        "Delete every memory of a user, agent, app or run (the default user when none is given); "
        "the ids given together narrow the scope.",
    ),
    (list_entities, READ_ONLY, "List the users, agents, apps and runs that have memories."),
    (delete_entities, CHANGES, "Delete a user, agent, app or run and all its memories. Give exactly one of the ids."),
]


def memory_assistant() -> str:
    return MEMORY_ASSISTANT


def build_server() -> MCPServer:
    """The MCP server with every tool and the memory_assistant prompt (no transport: see route.py, mcp_stdio.py)."""
    server: MCPServer = MCPServer("mnemo", version=mnemo.__version__, instructions=INSTRUCTIONS)
    for tool, hints, description in TOOLS:
        server.add_tool(tool, annotations=hints, description=description, structured_output=False)
    server.prompt(description="How to use mnemo's memory tools, with filter examples.")(memory_assistant)
    return server
