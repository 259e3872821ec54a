"""A loopback HTTP server that speaks Google's Gemini REST API (v1beta), for testing the real httpx client code.

- `POST /v1beta/models/{model}:generateContent` answers scripted replies in order: strings, callables that
  receive the request's JSON body and return the reply text, `Blocked(...)` for a prompt or an answer blocked
  by safety, or `HTTPFailure(status)` to fail that call. The response has the real generateContent shape.
- `POST /v1beta/models/{model}:batchEmbedContents` answers deterministic embeddings (the bag of words of
  `tests.support.openai_server.embedding_for`: not unit length, equal texts get equal vectors), one per
  request, of `outputDimensionality` values when asked for, else `embedding_dims`.
- Every request is recorded (path, lower-cased headers, JSON body) for assertions.
- `fail_next(status, headers=...)` makes the next call answer an HTTP error with a Gemini error body
  (`{"error": {"code", "message", "status"}}`); calling it again scripts the call after, and so on.
  `respond_raw_next(...)` sends any body.

Usage::

    with GeminiServer() as server:
        server.reply('{"facts": []}')
        llm = GeminiLLM(GeminiLLMConfig(base_url=server.base_url, api_key="k"))
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tests.support.loopback import HTTPFailure, LoopbackServer, RawResponse, RecordedRequest, TokenCounter, words
from tests.support.openai_server import embedding_for

STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
_ROUTE = re.compile(r"^/v1beta/models/(?P<model>[^/:]+):(?P<method>\w+)$")


@dataclass(frozen=True, slots=True)
class Blocked:
    """A scripted reply blocked by safety: the prompt (`promptFeedback.blockReason`, no candidates), or the
    answer (a candidate whose `finishReason` is `reason`)."""

    reason: str = "SAFETY"
    prompt: bool = False


Reply = str | Callable[[dict[str, Any]], str] | HTTPFailure | Blocked


class GeminiServer(LoopbackServer):
    """A scripted Gemini endpoint on 127.0.0.1, on a free port, served from a background thread."""

    name = "gemini-loopback"

    def __init__(
        self, *, embedding_dims: int = 64, honour_dimensions: bool = True, count_tokens: TokenCounter = words
    ) -> None:
        self.embedding_dims = embedding_dims  # the width of embeddings when a request asks for none
        self.honour_dimensions = honour_dimensions  # False: ignore `outputDimensionality`
        super().__init__(count_tokens=count_tokens)

    @property
    def base_url(self) -> str:
        """What a client's `base_url` should be: `http://127.0.0.1:<port>` (the client adds `/v1beta/...`)."""
        return f"http://127.0.0.1:{self.port}"

    # ---- scripting ----------------------------------------------------------------------------------

    def reply(self, *replies: Reply) -> None:
        """Queue generateContent replies, answered in order, one per call."""
        with self._lock:
            self._replies.extend(replies)

    def fail_next(
        self, status: int, times: int = 1, *, headers: Mapping[str, str] | None = None, message: str = ""
    ) -> None:
        """Answer the next `times` calls (to any path) with this HTTP error status, a Gemini error body and
        these headers; after any calls already scripted, so that calls in turn script a sequence."""
        for _ in range(times):
            self.respond_raw_next(status, error_body(status, message or f"scripted {status}"), headers=headers)

    # ---- inspection ---------------------------------------------------------------------------------

    @property
    def generate_requests(self) -> list[RecordedRequest]:
        return self.requests_to(":generateContent")

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        return self.requests_to(":batchEmbedContents")

    def embedded_texts(self) -> Iterator[str]:
        for request in self.embedding_requests:
            for item in request.body["requests"]:
                yield item["content"]["parts"][0]["text"]

    # ---- serving ------------------------------------------------------------------------------------

    def _route(self, command: str, path: str, body: Any) -> RawResponse:
        route = _ROUTE.match(path)
        method = route["method"] if route and command == "POST" else None
        if method == "generateContent":
            return self._generate(body)
        if method == "batchEmbedContents":
            return self._embed(route["model"] if route else "", body)
        return _error(404, f"no route {command} {path}")

    def _error_response(self, status: int, message: str) -> RawResponse:
        return _error(status, message)

    def _generate(self, body: Any) -> RawResponse:
        if not isinstance(body, dict) or not isinstance(body.get("contents"), list):
            return _error(400, "contents is required")
        reply = self._next_reply()
        if reply is None:
            return _error(500, "no scripted reply left")
        if isinstance(reply, HTTPFailure):
            return self._failure(reply)
        system = body.get("systemInstruction")
        turns = [*body["contents"], *([system] if isinstance(system, dict) else [])]
        prompt_tokens = sum(self.count_tokens(str(p.get("text", ""))) for c in turns for p in c.get("parts", []))
        if isinstance(reply, Blocked):
            return RawResponse(200, json.dumps(_blocked(reply, prompt_tokens)).encode())
        text = reply(body) if callable(reply) else reply
        payload = {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": text}]},
                    "finishReason": "STOP",
                    "index": 0,
                    "safetyRatings": [],
                }
            ],
            "usageMetadata": {
                "promptTokenCount": prompt_tokens,
                "candidatesTokenCount": self.count_tokens(text),
                "totalTokenCount": prompt_tokens + self.count_tokens(text),
            },
            "modelVersion": "gemini-loopback",
        }
        return RawResponse(200, json.dumps(payload).encode())

    def _embed(self, model: str, body: Any) -> RawResponse:
        if not isinstance(body, dict) or not isinstance(body.get("requests"), list):
            return _error(400, "requests is required")
        if len(body["requests"]) > 100:
            return _error(400, "* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch")
        embeddings = []
        for item in body["requests"]:
            if item.get("model") != f"models/{model}":
                return _error(400, f"model {item.get('model')!r} does not match the URL's models/{model}")
            text = item["content"]["parts"][0]["text"]
            asked = item.get("outputDimensionality") if self.honour_dimensions else None
            embeddings.append({"values": embedding_for(text, int(asked or self.embedding_dims))})
        return RawResponse(200, json.dumps({"embeddings": embeddings}).encode())


def _blocked(reply: Blocked, prompt_tokens: int) -> dict[str, Any]:
    usage = {"promptTokenCount": prompt_tokens, "totalTokenCount": prompt_tokens}
    if reply.prompt:
        return {"promptFeedback": {"blockReason": reply.reason, "safetyRatings": []}, "usageMetadata": usage}
    candidate = {"finishReason": reply.reason, "index": 0, "safetyRatings": [{"blocked": True}]}
    return {"candidates": [candidate], "usageMetadata": usage}


def error_body(status: int, message: str) -> bytes:
    """Gemini's error body for this HTTP status."""
    return json.dumps(
        {"error": {"code": status, "message": message, "status": STATUSES.get(status, "UNKNOWN")}}
    ).encode()


def _error(status: int, message: str) -> RawResponse:
    return RawResponse(status, error_body(status, message))
