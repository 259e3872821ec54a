"""A loopback HTTP server that speaks Ollama's native API, for testing the real httpx client code.

- `POST /api/chat` (any path ending in `/api/chat`, e.g. behind a proxy's prefix) answers scripted replies
  in order: strings, callables that receive the request's JSON body and return the reply text, or
  `HTTPFailure(status)` to fail that call. The response has the real non-streaming `/api/chat` shape
  (`message`, `done`, durations and token counts).
- `POST /api/embed` (any path ending in `/api/embed`) answers deterministic embeddings of `embedding_dims`
  floats (the bag of words of tests.support.openai_server.embedding_for): texts sharing words are similar,
  equal texts get equal vectors, and rows are *not* unit length (the client must normalise them).
- Every request is recorded (path, lower-cased headers, JSON body) for assertions.
- `fail_next(status, headers=...)` makes the next call answer an HTTP error with Ollama's `{"error": "..."}`
  body; calling it again scripts the call after, and so on. `respond_raw_next(...)` sends any body.

Usage::

    with OllamaServer() as server:
        server.reply('{"facts": []}')
        llm = OllamaLLM(OllamaLLMConfig(base_url=server.base_url, model="m"))
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from tests.support.loopback import HTTPFailure, LoopbackServer, RawResponse, RecordedRequest, TokenCounter, words
from tests.support.openai_server import embedding_for

__all__ = ["HTTPFailure", "OllamaServer", "RecordedRequest", "embedding_for"]

_ERROR_MESSAGES = {
    400: "invalid request",
    404: 'model "{model}" not found, try pulling it first',
    500: "llama runner process has terminated",
    503: "server busy, please try again",
}


class OllamaServer(LoopbackServer):
    """A scripted Ollama endpoint on 127.0.0.1, on a free port, served from a background thread."""

    name = "ollama-loopback"

    def __init__(self, *, embedding_dims: int = 32, count_tokens: TokenCounter = words) -> None:
        self.embedding_dims = embedding_dims  # the width of every embedding it answers
        super().__init__(count_tokens=count_tokens)

    @property
    def base_url(self) -> str:
        """What a client's `base_url` should be: `http://127.0.0.1:<port>` (Ollama's paths start at `/api`)."""
        return f"http://127.0.0.1:{self.port}"

    # ---- inspection ---------------------------------------------------------------------------------

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return self.requests_to("/api/chat")

    @property
    def embed_requests(self) -> list[RecordedRequest]:
        return self.requests_to("/api/embed")

    def embedded_texts(self) -> Iterator[str]:
        for request in self.embed_requests:
            yield from request.body["input"]

    # ---- serving ------------------------------------------------------------------------------------

    def _route(self, command: str, path: str, body: Any) -> RawResponse:
        if command == "POST" and path.endswith("/api/chat"):
            return self._chat(body)
        if command == "POST" and path.endswith("/api/embed"):
            return self._embed(body)
        return _error(404, "404 page not found")

    def _error_response(self, status: int, message: str) -> RawResponse:
        return _error(status, message)

    def _scripted_failure(self, status: int) -> RawResponse:
        return _error(status, _ERROR_MESSAGES.get(status, f"scripted {status}").format(model="m"))

    def _chat(self, body: Any) -> RawResponse:
        if not isinstance(body, dict) or not isinstance(body.get("model"), str):
            return _error(400, "model is required")
        if not isinstance(body.get("messages"), list):
            return _error(400, "messages is required")
        reply = self._next_reply()
        if reply is None:
            return _error(500, "no scripted chat reply left")
        if isinstance(reply, HTTPFailure):
            failure = _error(reply.status, _ERROR_MESSAGES.get(reply.status, "scripted").format(model=body["model"]))
            return RawResponse(failure.status, failure.body, failure.content_type, tuple(reply.headers.items()))
        content = reply(body) if callable(reply) else reply
        payload = {
            "model": body["model"],
            "created_at": "2026-01-01T00:00:00.000000Z",
            "message": {"role": "assistant", "content": content},
            "done_reason": "stop",
            "done": True,
            "total_duration": 1_000_000,
            "load_duration": 100_000,
            "prompt_eval_count": sum(self.count_tokens(str(m.get("content", ""))) for m in body["messages"]),
            "prompt_eval_duration": 200_000,
            "eval_count": self.count_tokens(content),
            "eval_duration": 700_000,
        }
        return RawResponse(200, json.dumps(payload).encode())

    def _embed(self, body: Any) -> RawResponse:
        if not isinstance(body, dict) or not isinstance(body.get("model"), str) or "input" not in body:
            return _error(400, "model and input are required")
        texts = body["input"]
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return _error(400, "invalid input type")
        payload = {
            "model": body["model"],
            "embeddings": [embedding_for(text, self.embedding_dims) for text in texts],
            "total_duration": 1_000_000,
            "load_duration": 100_000,
            "prompt_eval_count": sum(self.count_tokens(t) for t in texts),
        }
        return RawResponse(200, json.dumps(payload).encode())


def _error(status: int, message: str) -> RawResponse:
    return RawResponse(status, json.dumps({"error": message}).encode())
