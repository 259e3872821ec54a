"""POST /memories reports what its LLM calls used (calls, input and output tokens, as the provider counted them),
and zero calls when no LLM is called (none configured, or infer=false)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from mnemo.composition.container import Container
from tests.support.openai_server import OpenAIServer

ZERO = {"calls": 0, "input_tokens": 0, "output_tokens": 0}


def add(client: TestClient, text: str, **options: object) -> dict[str, object]:
    answer = client.post("/memories", json={"messages": [{"role": "user", "content": text}], "user_id": "u", **options})
    assert answer.status_code == 200, answer.text
    body: dict[str, object] = answer.json()
    return body


def test_an_add_reports_its_llm_usage_and_zero_without_an_llm(client: TestClient, container: Container) -> None:
    assert add(client, "I live in Oslo.")["llm_usage"] == ZERO  # the deterministic extractor
    with OpenAIServer(embedding_dims=64) as llm:
        config = {"provider": "openai", "config": {"base_url": llm.base_url, "api_key": "sk-test", "model": "m"}}
        container.configuration.update({"llm": config})
        try:
            extraction = '{"facts": [{"text": "Works as a nurse", "sources": [0]}]}'
            decision = '{"memory": [{"id": "new", "text": "Works as a nurse", "event": "ADD"}]}'
            llm.reply(extraction, decision)
            answer = add(client, "I work as a nurse.")
            requests = llm.chat_requests
            prompt = sum(len(m["content"].split()) for r in requests for m in r.body["messages"])
            output = len(extraction.split()) + len(decision.split())
            assert answer["llm_usage"] == {"calls": len(requests), "input_tokens": prompt, "output_tokens": output}
            assert len(requests) == 2
            assert add(client, "I drink tea.", infer=False)["llm_usage"] == ZERO
        finally:
            container.configuration.update({"llm": None})
