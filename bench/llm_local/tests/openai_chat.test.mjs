// The protocol translation of openai_chat.mjs: `node --test bench/llm_local/tests/` (no model, no runtime).

import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {
    RequestError, chatCompletionBody, chatHistory, errorBody, finishReason, grammarSchema, parseChatRequest,
    responseFormat,
} from "../openai_chat.mjs";

const USER = {role: "user", content: "Say hi."};

function refused(action, param) {
    assert.throws(action, (error) => error instanceof RequestError && error.status === 400 && error.param === param);
}

describe("chatHistory", () => {
    it("maps OpenAI roles to node-llama-cpp's history and ends with the turn to generate", () => {
        const history = chatHistory([
            {role: "system", content: "Be terse."},
            {role: "developer", content: "Answer in JSON."},
            {role: "user", content: [{type: "text", text: "Hi "}, {type: "text", text: "there"}]},
            {role: "assistant", content: "Hello"},
            USER,
        ]);
        assert.deepEqual(history, [
            {type: "system", text: "Be terse."},
            {type: "system", text: "Answer in JSON."},
            {type: "user", text: "Hi there"},
            {type: "model", response: ["Hello"]},
            {type: "user", text: "Say hi."},
            {type: "model", response: []},
        ]);
    });

    it("refuses what it cannot render", () => {
        refused(() => chatHistory([]), "messages");
        refused(() => chatHistory([{role: "tool", content: "42"}]), "messages[0].role");
        refused(() => chatHistory([{role: "assistant", content: null, tool_calls: [{}]}]), "messages[0]");
        refused(() => chatHistory([{role: "user", content: [{type: "image_url", image_url: {url: "x"}}]}]),
            "messages[0].content[0]");
    });
});

describe("parseChatRequest", () => {
    it("defaults to OpenAI's sampling and no token limit", () => {
        const plan = parseChatRequest({model: "any", messages: [USER]});
        assert.equal(plan.temperature, 1);
        assert.equal(plan.topP, 1);
        assert.equal(plan.topK, 0);
        assert.equal(plan.maxTokens, undefined);
        assert.equal(plan.seed, undefined);
        assert.equal(plan.repeatPenalty, false);
        assert.deepEqual(plan.stop, []);
        assert.deepEqual(plan.format, {kind: "text"});
    });

    it("reads the options it honours, max_completion_tokens before max_tokens", () => {
        const plan = parseChatRequest({
            messages: [USER], temperature: 0, top_p: 0.9, max_tokens: 50, max_completion_tokens: 20, seed: 7,
            stop: "END", presence_penalty: 0.5,
        });
        assert.equal(plan.temperature, 0);
        assert.equal(plan.topP, 0.9);
        assert.equal(plan.maxTokens, 20);
        assert.equal(plan.seed, 7);
        assert.deepEqual(plan.stop, ["END"]);
        assert.deepEqual(plan.repeatPenalty,
            {penalty: 1, frequencyPenalty: 0, presencePenalty: 0.5, penalizeNewLine: true});
        assert.equal(parseChatRequest({messages: [USER], max_tokens: 9}).maxTokens, 9);
    });

    it("refuses values out of range and features it does not serve", () => {
        refused(() => parseChatRequest({messages: [USER], temperature: 3}), "temperature");
        refused(() => parseChatRequest({messages: [USER], max_tokens: 0}), "max_tokens");
        refused(() => parseChatRequest({messages: [USER], max_tokens: 1.5}), "max_tokens");
        refused(() => parseChatRequest({messages: [USER], stop: ["a", "b", "c", "d", "e"]}), "stop");
        refused(() => parseChatRequest({messages: [USER], stream: true}), "stream");
        refused(() => parseChatRequest({messages: [USER], n: 2}), "n");
        refused(() => parseChatRequest({messages: [USER], tools: [{type: "function"}]}), "tools");
        refused(() => parseChatRequest([USER]), null);
    });

    it("accepts what OpenAI clients send and it can ignore", () => {
        const plan = parseChatRequest({messages: [USER], n: 1, stream: false, tools: [], user: "u", store: false});
        assert.equal(plan.history.length, 2);
    });
});

describe("responseFormat", () => {
    it("reads text, json_object and OpenAI's json_schema", () => {
        assert.deepEqual(responseFormat(undefined), {kind: "text"});
        assert.deepEqual(responseFormat({type: "text"}), {kind: "text"});
        assert.deepEqual(responseFormat({type: "json_object"}), {kind: "json"});
        const schema = {type: "object", properties: {a: {type: "string"}}, required: ["a"], additionalProperties: false};
        assert.deepEqual(responseFormat({type: "json_schema", json_schema: {name: "x", schema, strict: true}}), {
            kind: "schema",
            schema: {type: "object", properties: {a: {type: "string"}}, additionalProperties: false},
        });
        assert.deepEqual(responseFormat({type: "json_object", schema: {type: "array"}}),
            {kind: "schema", schema: {type: "array"}});
    });

    it("refuses other formats", () => {
        refused(() => responseFormat({type: "xml"}), "response_format.type");
        refused(() => responseFormat({type: "json_schema", json_schema: "x"}), "response_format.json_schema");
        refused(() => responseFormat("json"), "response_format");
    });
});

describe("grammarSchema", () => {
    it("rewrites anyOf, type lists and definitions into node-llama-cpp's subset", () => {
        assert.deepEqual(grammarSchema({anyOf: [{type: "string"}, {type: "null"}]}),
            {oneOf: [{type: "string"}, {type: "null"}]});
        assert.deepEqual(grammarSchema({type: ["integer", "null"]}), {oneOf: [{type: "integer"}, {type: "null"}]});
        assert.deepEqual(grammarSchema({
            type: "object",
            properties: {item: {$ref: "#/definitions/Item"}},
            definitions: {Item: {type: "string", enum: ["a", "b"]}},
        }), {
            type: "object",
            properties: {item: {$ref: "#/$defs/Item"}},
            $defs: {Item: {enum: ["a", "b"]}},
        });
        assert.deepEqual(grammarSchema({allOf: [{type: "boolean"}]}), {type: "boolean"});
    });

    it("admits any members in an object that declares none, and any value for an empty schema", () => {
        assert.deepEqual(grammarSchema({type: "object"}), {type: "object", properties: {}, additionalProperties: true});
        const any = grammarSchema({});
        assert.ok(Array.isArray(any.oneOf) && any.oneOf.length === 3);
        assert.deepEqual(grammarSchema({type: "array", items: true}), {type: "array"});
    });

    it("keeps the limits it can enforce and drops the ones it cannot", () => {
        assert.deepEqual(grammarSchema({type: "string", minLength: 1, maxLength: 9, pattern: "^a"}),
            {type: "string", minLength: 1, maxLength: 9});
        assert.deepEqual(grammarSchema({type: "string", format: "date"}), {type: "string", format: "date"});
        assert.deepEqual(grammarSchema({type: "array", items: [{type: "string"}], minItems: 1}),
            {type: "array", prefixItems: [{type: "string"}], minItems: 1});
        assert.deepEqual(grammarSchema({type: "number", minimum: 0}), {type: "number"});
    });

    it("refuses schemas it would get wrong", () => {
        refused(() => grammarSchema({allOf: [{type: "string"}, {maxLength: 3}]}), "response_format");
        refused(() => grammarSchema({type: "decimal"}), "response_format");
        refused(() => grammarSchema({anyOf: []}), "response_format");
        refused(() => grammarSchema("string"), "response_format");
    });
});

describe("replies", () => {
    it("say length when the token limit stopped the answer, stop otherwise", () => {
        assert.equal(finishReason("maxTokens"), "length");
        for (const reason of ["eogToken", "stopGenerationTrigger", "customStopTrigger"])
            assert.equal(finishReason(reason), "stop");
    });

    it("carry the usage with the cached prompt tokens", () => {
        const body = chatCompletionBody({
            id: "chatcmpl-1", created: 1, model: "m", content: "{}", stopReason: "eogToken",
            promptTokens: 500, cachedTokens: 460, completionTokens: 12, timings: {queue_ms: 0},
        });
        assert.equal(body.object, "chat.completion");
        assert.deepEqual(body.choices[0].message, {role: "assistant", content: "{}", refusal: null});
        assert.equal(body.choices[0].finish_reason, "stop");
        assert.deepEqual(body.usage, {
            prompt_tokens: 500, completion_tokens: 12, total_tokens: 512, prompt_tokens_details: {cached_tokens: 460},
        });
    });

    it("shape errors as OpenAI does", () => {
        assert.deepEqual(errorBody("bad", {param: "n"}),
            {error: {message: "bad", type: "invalid_request_error", param: "n", code: null}});
    });
});
