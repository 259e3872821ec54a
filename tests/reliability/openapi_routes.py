"""The routes of /openapi.json as the generated suites walk them (test_authorization_matrix.py,
test_hostile_inputs.py): each operation with its parameters, its JSON body's schema and its success statuses, the
fields of that schema by kind, and one request per route made valid enough to reach the route's decision from the
small table route_requests.yaml (placeholders such as {memory_id} filled with a tenant's real ids)."""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).parent
PLATFORM_PREFIXES = ("/v1/", "/v2/", "/v3/", "/api/v1/")
ID_FIELDS = ("user_id", "agent_id", "run_id", "app_id")
HTTP_METHODS = ("get", "put", "post", "delete", "patch")

FieldPath = tuple[str | int, ...]


def load_yaml(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((HERE / name).read_text(encoding="utf-8"))
    return loaded


# ---- the description --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Operation:
    method: str  # upper case
    path: str
    spec: dict[str, Any] = field(repr=False)
    components: dict[str, Any] = field(repr=False)

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def surface(self) -> str:
        return "platform" if self.path.startswith(PLATFORM_PREFIXES) else "selfhosted"

    @property
    def success(self) -> frozenset[int]:
        """The 2xx statuses the route documents."""
        return frozenset(int(code) for code in self.spec.get("responses", {}) if code.startswith("2"))

    def parameters(self, where: str) -> list[dict[str, Any]]:
        return [p for p in self.spec.get("parameters", []) if p["in"] == where]

    def parameter_names(self, where: str) -> list[str]:
        return [p["name"] for p in self.parameters(where)]

    @property
    def body_schema(self) -> dict[str, Any] | None:
        content = self.spec.get("requestBody", {}).get("content", {})
        schema = content.get("application/json", {}).get("schema")
        return None if schema is None else self.resolve(schema)

    def resolve(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        """The schema with a top-level $ref followed (nested ones are followed as they are walked)."""
        while "$ref" in schema:
            schema = self.components[schema["$ref"].rsplit("/", 1)[-1]]
        return dict(schema)

    def variants(self, schema: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The non-null alternatives of a schema (`X | None` is anyOf [X, null]), each resolved."""
        resolved = self.resolve(schema)
        options = resolved.get("anyOf") or resolved.get("oneOf")
        if not options:
            return [resolved]
        return [v for option in options for v in self.variants(option) if v.get("type") != "null"]

    def fields(
        self, schema: Mapping[str, Any] | None = None, at: FieldPath = ()
    ) -> Iterator[tuple[FieldPath, dict[str, Any]]]:
        """Every (path, schema) of the body's fields, nested objects and the first item of lists included."""
        for variant in self.variants(schema if schema is not None else (self.body_schema or {})):
            yield at, variant
            if at.count(0) > 2:  # a recursive schema: three levels of lists are enough
                continue
            for name, child in variant.get("properties", {}).items():
                yield from self.fields(child, (*at, name))
            if variant.get("type") == "array" and "items" in variant:
                yield from self.fields(variant["items"], (*at, 0))


def operations(spec: dict[str, Any]) -> list[Operation]:
    components = spec.get("components", {}).get("schemas", {})
    return [
        Operation(method.upper(), path, operation, components)
        for path, methods in spec["paths"].items()
        for method, operation in methods.items()
        if method in HTTP_METHODS
    ]


def string_fields(op: Operation) -> dict[FieldPath, dict[str, Any]]:
    return {path: s for path, s in op.fields() if path and s.get("type") == "string"}


def bounded_strings(op: Operation) -> dict[FieldPath, int]:
    return {path: int(s["maxLength"]) for path, s in string_fields(op).items() if "maxLength" in s}


def bounded_integers(op: Operation) -> dict[FieldPath, int]:
    return {
        path: int(s["maximum"]) for path, s in op.fields() if path and s.get("type") == "integer" and "maximum" in s
    }


def id_fields(op: Operation) -> list[FieldPath]:
    """The body's entity-id fields, wherever they are nested, and each entity id inside a `filters` object."""
    found = {path for path, _ in op.fields() if path and path[-1] in ID_FIELDS}
    found |= {(*path, name) for path, s in op.fields() if path and path[-1] == "filters" for name in ID_FIELDS}
    return sorted(found, key=str)


# ---- values of a request ---------------------------------------------------------------------------------------


class Values(dict[str, Any]):
    """The values placeholders name. A callable is called at each use (a fresh token, a unique suffix)."""

    def __getitem__(self, name: str) -> Any:
        value = super().__getitem__(name)
        return value() if callable(value) else value


_FIELD = re.compile(r"\{(\w+)\}")


def render(template: Any, values: Values) -> Any:
    """A copy of a YAML template with every "{name}" in its strings replaced by that value (a whole-string
    placeholder keeps the value's type)."""
    if isinstance(template, str):
        whole = _FIELD.fullmatch(template)
        if whole:
            return values[whole.group(1)]
        return _FIELD.sub(lambda m: str(values[m.group(1)]), template)
    if isinstance(template, list):
        return [render(item, values) for item in template]
    if isinstance(template, dict):
        return {key: render(item, values) for key, item in template.items()}
    return template


def fill_path(template: str, values: Values, **overrides: str) -> str:
    names = [name for _, name, _, _ in string.Formatter().parse(template) if name]
    return template.format(**{name: overrides.get(name, values[name]) for name in names})


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    has_body: bool = False

    def send(self, client: Any, headers: Mapping[str, str], *, raw: bytes | None = None) -> Any:
        """The request through a TestClient; `raw` replaces the JSON body with these bytes."""
        if raw is not None:
            sent = {**headers, "content-type": "application/json"}
            return client.request(self.method, self.path, params=self.query, content=raw, headers=sent)
        if self.has_body:
            return client.request(self.method, self.path, params=self.query, json=self.body, headers=dict(headers))
        return client.request(self.method, self.path, params=self.query, headers=dict(headers))

    def encoded(self) -> bytes:
        """The JSON body as bytes: a lone surrogate or a control character as its JSON escape (\\ud800, \\u0000)."""
        return json.dumps(self.body, ensure_ascii=True).encode("ascii")


def minimal(op: Operation, schema: Mapping[str, Any]) -> Any:
    """A small value a schema accepts: its example, else the required properties of an object, else by type."""
    chosen = op.variants(schema)[0] if op.variants(schema) else {}
    if chosen.get("examples"):
        return chosen["examples"][0]
    kind = chosen.get("type")
    if kind == "object":
        props = chosen.get("properties", {})
        return {name: minimal(op, props[name]) for name in chosen.get("required", []) if name in props}
    builders: dict[str, Callable[[], Any]] = {
        "string": lambda: "x",
        "integer": lambda: chosen.get("minimum", 1),
        "number": lambda: chosen.get("minimum", 0),
        "boolean": lambda: False,
        "array": lambda: [],
    }
    return builders.get(str(kind), lambda: None)()


def request_for(op: Operation, table: Mapping[str, Any], values: Values) -> Request:
    """The route's request from route_requests.yaml (its query and body), or from its schema when not there."""
    entry = table.get(op.key) or {}
    query = render(entry.get("query") or {}, values)
    schema = op.body_schema
    body = None if schema is None else minimal(op, schema)
    if "body" in entry:
        body = render(entry["body"], values)
    return Request(op.method, fill_path(op.path, values), query, body, has_body=schema is not None or "body" in entry)


def set_at(body: Any, path: FieldPath, value: Any) -> Any:
    """A copy of `body` with `value` at `path`, the missing objects and lists on the way made."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        items = list(body) if isinstance(body, list) else []
        while len(items) <= head:
            items.append({} if rest and isinstance(rest[0], str) else [])
        items[head] = set_at(items[head], rest, value)
        return items
    current = dict(body) if isinstance(body, dict) else {}
    current[head] = set_at(current.get(head), rest, value)
    return current


def dotted(path: FieldPath) -> str:
    return ".".join(str(part) for part in path)
