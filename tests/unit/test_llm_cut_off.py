"""A reply the provider cut off at its output limit is known as such (ports/llm.py `Completion.truncated`), so the
add asks once more instead of reading half an answer."""

from __future__ import annotations

from mnemo.adapters.llms.openai import cut_off


def reply(finish_reason: str | None) -> dict[str, object]:
    return {"choices": [{"message": {"content": '{"facts": ['}, "finish_reason": finish_reason}]}


def test_an_openai_reply_that_stopped_at_max_tokens_is_cut_off() -> None:
    assert cut_off(reply("length"))
    assert not cut_off(reply("stop"))
    assert not cut_off(reply(None))
    assert not cut_off({"choices": []})
    assert not cut_off({})
