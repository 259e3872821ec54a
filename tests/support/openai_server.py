"""A loopback HTTP server that speaks the OpenAI wire protocol, for testing the real httpx client code.

- `POST /v1/chat/completions` (any path ending in `/chat/completions`) answers scripted replies in order:
  strings, callables that receive the request's JSON body and return the reply text, or `HTTPFailure(status)`
  to fail that call. The response has the real chat-completions shape.
- `POST /v1/embeddings` (any path ending in `/embeddings`) answers deterministic embeddings: a bag of words,
  each word a hash-seeded Gaussian vector, so texts sharing words are similar and equal texts get equal
  vectors. Rows are *not* unit length (the client must normalise them) and, unless told otherwise, are sent
  in reverse order with their `index`.
- Every request is recorded (path, lower-cased headers, JSON body, query string) for assertions. Any path
  prefix works, so Azure OpenAI's `/openai/deployments/<name>/chat/completions?api-version=…` is served too.
- `fail_next(status, headers=...)` makes the next call answer an HTTP error (with these headers, e.g.
  `{"Retry-After": "2"}`); calling it again scripts the call after, and so on. `respond_raw_next(...)` sends
  any body.

Usage::

    with OpenAIServer() as server:
        server.reply('{"facts": []}')
        llm = OpenAILLM(OpenAILLMConfig(base_url=server.base_url, model="m"))
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any

import numpy as np

from tests.support.loopback import (
    HTTPFailure,
    LoopbackServer,
    RawResponse,
    RecordedRequest,
    Reply,
    TokenCounter,
    words,
)

__all__ = ["HTTPFailure", "OpenAIServer", "RawResponse", "RecordedRequest", "Reply", "embedding_for"]


_WORD = re.compile(r"\w+", re.UNICODE)
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_api_key",
    403: "permission_denied",
    404: "not_found",
    429: "rate_limit_exceeded",
}


def embedding_for(text: str, dimension: int) -> list[float]:
    """The server's embedding of `text`: the sum of one hash-seeded vector per lower-cased word (not normalised)."""
    total = np.zeros(dimension, dtype=np.float64)
    words = _WORD.findall(text.lower()) or [text]
    for word in words:
        seed = int.from_bytes(hashlib.sha256(word.encode("utf-8")).digest()[:8], "big")
        total += np.random.default_rng(seed).standard_normal(dimension)
    return [float(x) * 3.0 for x in total]  # scaled so that rows are clearly not unit length


class OpenAIServer(LoopbackServer):
    """A scripted OpenAI-compatible endpoint on 127.0.0.1, on a free port, served from a background thread."""

    name = "openai-loopback"

    def __init__(
        self,
        *,
        embedding_dims: int = 64,
        shuffle_embeddings: bool = True,
        honour_dimensions: bool = True,
        count_tokens: TokenCounter = words,
    ) -> None:
        self.embedding_dims = embedding_dims  # the width of embeddings when a request asks for none
        self.shuffle_embeddings = shuffle_embeddings
        self.honour_dimensions = honour_dimensions  # False: ignore a request's `dimensions`, as some servers do
        super().__init__(count_tokens=count_tokens)

    @property
    def base_url(self) -> str:
        """What a client's `base_url` should be: `http://127.0.0.1:<port>/v1`."""
        return f"http://127.0.0.1:{self.port}/v1"

    # ---- inspection ---------------------------------------------------------------------------------

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return self.requests_to("/chat/completions")

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        return self.requests_to("/embeddings")

    def embedded_texts(self) -> Iterator[str]:
        for request in self.embedding_requests:
            yield from request.body["input"]

    # ---- serving ------------------------------------------------------------------------------------

    def _route(self, command: str, path: str, body: Any) -> RawResponse:
        if command == "POST" and path.endswith("/chat/completions"):
            return self._chat(body)
        if command == "POST" and path.endswith("/embeddings"):
            return self._embeddings(body)
        return _error(404, f"no route {command} {path}")

    def _error_response(self, status: int, message: str) -> RawResponse:
        return _error(status, message)

    def _chat(self, body: Any) -> RawResponse:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400, "messages is required")
        reply = self._next_reply()
        if reply is None:
            return _error(500, "no scripted chat reply left")
        if isinstance(reply, HTTPFailure):
            return self._failure(reply)
        content = reply(body) if callable(reply) else reply
        prompt_tokens = sum(self.count_tokens(str(m.get("content", ""))) for m in body["messages"])
        completion_tokens = self.count_tokens(content)
        payload = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": body.get("model", "unknown"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": None},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        return RawResponse(200, json.dumps(payload).encode())

    def _embeddings(self, body: Any) -> RawResponse:
        if not isinstance(body, dict) or "input" not in body:
            return _error(400, "input is required")
        texts = body["input"]
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return _error(400, "input must be a string or a list of strings")
        asked = body.get("dimensions") if self.honour_dimensions else None
        dimension = int(asked or self.embedding_dims)
        data = [
            {"object": "embedding", "index": i, "embedding": embedding_for(text, dimension)}
            for i, text in enumerate(texts)
        ]
        if self.shuffle_embeddings:
            data.reverse()
        tokens = sum(self.count_tokens(t) for t in texts)
        payload = {
            "object": "list",
            "data": data,
            "model": body.get("model", "unknown"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        return RawResponse(200, json.dumps(payload).encode())


def _error(status: int, message: str) -> RawResponse:
    kind = _ERROR_TYPES.get(status, "server_error")
    return RawResponse(status, json.dumps({"error": {"message": message, "type": kind, "code": kind}}).encode())
