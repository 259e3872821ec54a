"""The routes the reference's dashboard calls besides the memories (issue 17, part 2): POST /generate-instructions
(any caller with credentials; written by the LLM when one is configured, else a template for the use case, never an
error) and POST /auth/onboarding-complete (a signed-in user, by Bearer token)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

from mnemo.composition.container import Container
from tests.e2e.auth.conftest import new_key, ok, register_admin
from tests.support.openai_server import OpenAIServer


def test_without_an_llm_the_instructions_are_a_template_for_the_use_case(api: TestClient) -> None:
    admin = register_admin(api)
    got = ok(api.post("/generate-instructions", json={"use_case": "a cooking coach"}, headers=admin.headers))
    assert "a cooking coach" in got["custom_instructions"] and got["test_message"]
    key = new_key(api, admin)["key"]
    by_key = api.post("/generate-instructions", json={"use_case": "x"}, headers={"X-API-Key": key})
    assert by_key.status_code == 200  # any caller with credentials, as the reference's verify_auth
    assert api.post("/generate-instructions", json={"use_case": "x"}).status_code == 401
    assert api.post("/generate-instructions", json={"use_case": "x" * 2001}, headers=admin.headers).status_code == 422


def test_with_an_llm_it_writes_them_and_a_reply_in_another_form_is_kept_as_it_is(
    api: TestClient, container_of: Callable[[TestClient], Container]
) -> None:
    admin = register_admin(api)
    with OpenAIServer() as fake:
        config = {"provider": "openai", "config": {"base_url": fake.base_url, "api_key": "sk-test", "model": "m"}}
        container_of(api).configuration.update({"llm": config})
        fake.reply(
            "INSTRUCTIONS: Remember dietary needs and favourite cuisines.\nTEST_MESSAGE: I'm vegan and love Thai food.",
            "Remember what they cook.",
        )
        written = ok(api.post("/generate-instructions", json={"use_case": "a cooking coach"}, headers=admin.headers))
        assert written == {
            "custom_instructions": "Remember dietary needs and favourite cuisines.",
            "test_message": "I'm vegan and love Thai food.",
        }
        assert "a cooking coach" in fake.chat_requests[0].body["messages"][0]["content"]
        raw = ok(api.post("/generate-instructions", json={"use_case": "a cooking coach"}, headers=admin.headers))
        assert raw == {"custom_instructions": "Remember what they cook.", "test_message": "I like to hike on weekends."}
        fake.fail_next(500, times=5)
        failed = api.post("/generate-instructions", json={"use_case": "a cooking coach"}, headers=admin.headers)
        assert failed.status_code == 502


def test_onboarding_complete_is_for_a_signed_in_user(api: TestClient) -> None:
    admin = register_admin(api)
    done = api.post("/auth/onboarding-complete", json={"use_case": "a cooking coach"}, headers=admin.headers)
    assert done.status_code == 200 and done.json() == {"message": "Onboarding completed."}
    key = new_key(api, admin)["key"]
    by_key = api.post("/auth/onboarding-complete", json={"use_case": "x"}, headers={"X-API-Key": key})
    assert by_key.status_code == 401  # a key is not a sign-in
