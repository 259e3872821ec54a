"""The shapes of the two JSON replies of the LLM path (services/llm_json.Reply): the facts of the extraction
(extract.py) and the changes of the decision (decide.py).

What is asked of a provider that constrains its output is strict (every property required, no other allowed);
what is accepted is what the readers can read: a fact may be a plain string (as many prompts and models answer), and
items the readers drop one by one (a fact without a text, a decision naming an unknown event) do not make the whole
reply unreadable."""

from __future__ import annotations

from typing import Any

from mnemo.ports.llm import JsonSchema
from mnemo.services.llm_json import Reply

_NUMBERS = {"type": "array", "items": {"type": "integer"}}


def _strict_object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


_FACTS_ASKED = _strict_object(
    {"facts": {"type": "array", "items": _strict_object({"text": {"type": "string"}, "sources": _NUMBERS})}}
)


_FACTS_ACCEPTED = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"type": "string"},
                    {"type": "object", "properties": {"text": {"type": ["string", "null"]}}},
                ]
            },
        }
    },
    "required": ["facts"],
}

FACTS = Reply(JsonSchema("facts", _FACTS_ASKED), _FACTS_ACCEPTED, "facts")

_DECISION_ASKED = _strict_object(
    {
        "memory": {
            "type": "array",
            "items": _strict_object(
                {
                    "id": {"type": "string"},
                    "text": {"type": "string"},
                    "event": {"type": "string", "enum": ["ADD", "UPDATE", "DELETE"]},
                    "old_memory": {"type": ["string", "null"]},
                    "replaced_by": {"type": ["integer", "null"]},
                }
            ),
        }
    }
)

_DECISION_ACCEPTED = {
    "type": "object",
    "properties": {"memory": {"type": "array"}},
    "required": ["memory"],
}

DECISIONS = Reply(JsonSchema("memory_changes", _DECISION_ASKED), _DECISION_ACCEPTED, "memory")
