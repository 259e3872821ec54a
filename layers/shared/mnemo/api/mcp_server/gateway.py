"""What the MCP tools do, as calls of mnemo's own REST API: a project key (`Authorization: Token …`) reaches that
project's platform routes, any other credential (an `m0sk_` key, the admin key, a Bearer token) the self-hosted
routes. The calls go through the same authentication, validation, bounds and isolation as any client's, in the
same process (`mnemo serve`, the MCP Lambda function, local `mnemo mcp`) or to a remote mnemo over HTTP."""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx

ENTITY_KINDS = ("user_id", "agent_id", "app_id", "run_id")
SELF_HOSTED_KINDS = ("user_id", "agent_id", "run_id")
FORWARDED_HEADERS = ("authorization", "x-api-key")


class Surface(enum.Enum):
    PLATFORM = "platform"
    SELF_HOSTED = "self-hosted"


class ApiRefusalError(Exception):
    """A call the API refused or could not serve, with what it said: the tool answers it as an error."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"{status}: {detail}")
        self.status = status
        self.detail = detail


@dataclass(frozen=True)
class Credentials:
    """The caller's credential headers, forwarded as they came, and the surface they open."""

    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def surface(self) -> Surface:
        scheme = self.headers.get("authorization", "").strip().partition(" ")[0]
        return Surface.PLATFORM if scheme.lower() == "token" else Surface.SELF_HOSTED

    @classmethod
    def of_request(cls, headers: Mapping[str, str]) -> Credentials:
        return cls({name: headers[name] for name in FORWARDED_HEADERS if name in headers})

    @classmethod
    def of_key(cls, key: str | None, surface: Surface | None = None) -> Credentials:
        """A key from the environment (stdio): a project key as `Token`, an `m0sk_` or admin key as X-API-Key.
        Without a surface, an `m0sk_` key is self-hosted and any other key a project key."""
        if not key:
            return cls({})
        chosen = surface or (Surface.SELF_HOSTED if key.startswith("m0sk_") else Surface.PLATFORM)
        return cls({"authorization": f"Token {key}"} if chosen is Surface.PLATFORM else {"x-api-key": key})


def detail_of(response: httpx.Response) -> str:
    """The message of an error answer: `detail` (a string, or the problems of a 400/422), `error` or `message`."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:500] or response.reason_phrase
    if isinstance(body, dict):
        for key in ("detail", "error", "message"):
            if key in body:
                value = body[key]
                return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)[:1000]
    return json.dumps(body, ensure_ascii=False)[:1000]


def entity_ids(filters: Any) -> dict[str, str]:
    """The entity ids a filter pins with a plain equality (`{"user_id": "u"}` or inside a top-level AND)."""
    found: dict[str, str] = {}
    if not isinstance(filters, dict):
        return found
    for clause in [filters, *(c for c in filters.get("AND", []) if isinstance(c, dict))]:
        for kind in ENTITY_KINDS:
            if isinstance(clause.get(kind), str):
                found.setdefault(kind, clause[kind])
    return found


def with_default_user(filters: dict[str, Any] | None, user_id: str) -> dict[str, Any]:
    """The filters, scoped to the default user when they name no entity at all."""
    if not filters:
        return {"AND": [{"user_id": user_id}]}
    if any(kind in json.dumps(filters) for kind in ENTITY_KINDS):
        return filters
    return {"AND": [{"user_id": user_id}, filters]}


class MemoryGateway:
    """The tools' operations on one surface, for one caller. `client` sends to a mnemo (its base URL set);
    `public_base` is where that mnemo is reached from outside (None: nowhere, an API served in this process), so
    that the page links a list answers are links a client can follow, or none."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        credentials: Credentials,
        default_user_id: str,
        public_base: str | None = None,
    ) -> None:
        self.client = client
        self.credentials = credentials
        self.surface = credentials.surface
        self.default_user_id = default_user_id
        self.public_base = None if public_base is None else public_base.rstrip("/")

    async def call(self, method: str, path: str, *, body: Any = None, params: Mapping[str, Any] | None = None) -> Any:
        response = await self.client.request(
            method,
            path,
            json=body,
            params={k: v for k, v in (params or {}).items() if v is not None},
            headers=dict(self.credentials.headers),
        )
        if response.status_code >= 400:
            raise ApiRefusalError(response.status_code, detail_of(response))
        return response.json() if response.content else None

    def _platform(self) -> bool:
        return self.surface is Surface.PLATFORM

    def _ids(self, ids: Mapping[str, str | None]) -> dict[str, str]:
        given = {kind: value for kind, value in ids.items() if value}
        if not self._platform() and given.get("app_id"):
            raise ApiRefusalError(400, "app_id scopes platform memories only; use user_id, agent_id or run_id here.")
        return given

    async def add(
        self,
        messages: list[dict[str, str]],
        ids: Mapping[str, str | None],
        metadata: dict[str, Any] | None,
        infer: bool | None,
    ) -> Any:
        scope = self._ids(ids) or {"user_id": self.default_user_id}
        body: dict[str, Any] = {"messages": messages, **scope, "metadata": metadata, "infer": infer}
        body = {k: v for k, v in body.items() if v is not None}
        if self._platform():  # answered now (not queued), with what was stored
            body |= {"async_mode": False, "output_format": "v1.1", "version": "v2"}
            return await self.call("POST", "/v1/memories/", body=body)
        return await self.call("POST", "/memories", body=body)

    async def search(self, query: str, filters: dict[str, Any] | None, limit: int | None) -> Any:
        scoped = with_default_user(filters, self.default_user_id)
        if self._platform():
            return await self.call(
                "POST", "/v3/memories/search/", body={"query": query, "filters": scoped, "top_k": limit or 10}
            )
        body = {"query": query, "filters": scoped, "top_k": limit}
        return await self.call("POST", "/search", body={k: v for k, v in body.items() if v is not None})

    async def list(self, filters: dict[str, Any] | None, page: int, page_size: int) -> Any:
        scoped = with_default_user(filters, self.default_user_id)
        if self._platform():
            answer = await self.call(
                "POST", "/v3/memories/", body={"filters": scoped}, params={"page": page, "page_size": page_size}
            )
            return self._followable(answer)
        ids = entity_ids(scoped)
        if set(ids) - set(SELF_HOSTED_KINDS) or not ids:
            raise ApiRefusalError(400, "Self-hosted memories are listed by user_id, agent_id or run_id only.")
        answer = await self.call("GET", "/memories", params={**ids, "top_k": page * page_size})
        results = answer.get("results", []) if isinstance(answer, dict) else []
        return {"results": results[(page - 1) * page_size : page * page_size], "page": page, "page_size": page_size}

    def _followable(self, answer: Any) -> Any:
        """The answer with its `next` and `previous` links on the public base (or none where there is none)."""
        called = str(self.client.base_url).rstrip("/")
        if not isinstance(answer, dict) or self.public_base == called:
            return answer
        for key in ("next", "previous"):
            link = answer.get(key)
            if isinstance(link, str) and link.startswith(called):
                answer[key] = None if self.public_base is None else self.public_base + link[len(called) :]
        return answer

    async def get(self, memory_id: str) -> Any:
        return await self.call("GET", self._memory_path(memory_id))

    async def update(self, memory_id: str, text: str) -> Any:
        return await self.call("PUT", self._memory_path(memory_id), body={"text": text})

    async def delete(self, memory_id: str) -> Any:
        return await self.call("DELETE", self._memory_path(memory_id))

    async def delete_all(self, ids: Mapping[str, str | None]) -> Any:
        scope = self._ids(ids) or {"user_id": self.default_user_id}
        return await self.call("DELETE", "/v1/memories/" if self._platform() else "/memories", params=scope)

    async def entities(self) -> Any:
        return await self.call("GET", "/v1/entities/" if self._platform() else "/entities")

    async def delete_entity(self, kind: str, name: str) -> Any:
        entity = quote(name, safe="")
        if self._platform():
            return await self.call("DELETE", f"/v2/entities/{kind}/{entity}/")
        return await self.call("DELETE", f"/entities/{kind}/{entity}")

    async def check(self) -> Any:
        """Whether the credentials open this surface: the platform's ping, or the self-hosted entity list."""
        return await self.call("GET", "/v1/ping/" if self._platform() else "/configure/providers")

    def _memory_path(self, memory_id: str) -> str:
        identifier = quote(memory_id, safe="")
        return f"/v1/memories/{identifier}/" if self._platform() else f"/memories/{identifier}"
