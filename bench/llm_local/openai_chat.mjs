// The OpenAI chat-completions protocol, translated to and from what server.mjs hands node-llama-cpp.
//
// Pure functions only (no model, no I/O), so that `node --test` checks them without the runtime installed:
// a request body becomes a plan (the chat history, the sampling options, the response format), a finished
// generation becomes the reply body, and an OpenAI response_format's JSON Schema becomes the subset that
// node-llama-cpp turns into a grammar. Anything the server cannot honour is refused with a 400, never ignored
// in a way that would change the answer: streaming, several choices, tools, non-text content.

export class RequestError extends Error {
    constructor(message, {param = null, status = 400, code = null} = {}) {
        super(message);
        this.param = param;
        this.status = status;
        this.code = code;
    }
}

/** The body of an error reply, in OpenAI's shape. */
export function errorBody(message, {type = "invalid_request_error", param = null, code = null} = {}) {
    return {error: {message, type, param, code}};
}

const ROLES = {system: "system", developer: "system", user: "user", assistant: "model"};

function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
}

function messageText(content, param) {
    if (typeof content === "string")
        return content;
    if (content == null)
        return "";
    if (!Array.isArray(content))
        throw new RequestError("content must be a string or an array of text parts", {param});
    return content.map((part, index) => {
        if (!isObject(part) || part.type !== "text" || typeof part.text !== "string")
            throw new RequestError("only text content parts are supported", {param: `${param}[${index}]`});
        return part.text;
    }).join("");
}

/** OpenAI messages as node-llama-cpp chat history, ending with the empty model turn to generate. */
export function chatHistory(messages) {
    if (!Array.isArray(messages) || messages.length === 0)
        throw new RequestError("messages must be a non-empty array", {param: "messages"});
    const history = messages.map((message, index) => {
        const param = `messages[${index}]`;
        if (!isObject(message))
            throw new RequestError("each message must be an object", {param});
        const type = ROLES[message.role];
        if (type == null)
            throw new RequestError(`role ${JSON.stringify(message.role)} is not supported ` +
                "(system, developer, user, assistant)", {param: `${param}.role`});
        if (message.tool_calls != null || message.function_call != null)
            throw new RequestError("tool calls are not supported", {param});
        const text = messageText(message.content, `${param}.content`);
        return type === "model" ? {type, response: [text]} : {type, text};
    });
    history.push({type: "model", response: []});
    return history;
}

function optionalNumber(body, name, {min, max, integer = false}) {
    const value = body[name];
    if (value == null)
        return undefined;
    if (typeof value !== "number" || !Number.isFinite(value) || (integer && !Number.isInteger(value)) ||
        value < min || value > max)
        throw new RequestError(`${name} must be ${integer ? "an integer" : "a number"} from ${min} to ${max}`,
            {param: name});
    return value;
}

function stopStrings(stop) {
    if (stop == null)
        return [];
    const list = typeof stop === "string" ? [stop] : stop;
    if (!Array.isArray(list) || list.length > 4 || list.some((item) => typeof item !== "string" || item === ""))
        throw new RequestError("stop must be a non-empty string or an array of at most 4 of them", {param: "stop"});
    return list;
}

/** What response_format asks for: {kind: "text"}, {kind: "json"} (any object) or {kind: "schema", schema}. */
export function responseFormat(format) {
    if (format == null)
        return {kind: "text"};
    if (!isObject(format))
        throw new RequestError("response_format must be an object", {param: "response_format"});
    if (format.type === "text")
        return {kind: "text"};
    if (format.type === "json_object")  // llama.cpp's extension: a schema beside json_object
        return format.schema == null ? {kind: "json"} : {kind: "schema", schema: grammarSchema(format.schema)};
    if (format.type === "json_schema") {
        const spec = format.json_schema;
        if (!isObject(spec))
            throw new RequestError("json_schema must be an object", {param: "response_format.json_schema"});
        return spec.schema == null ? {kind: "json"} : {kind: "schema", schema: grammarSchema(spec.schema)};
    }
    throw new RequestError(`response_format type ${JSON.stringify(format.type)} is not supported ` +
        "(text, json_object, json_schema)", {param: "response_format.type"});
}

function refuseUnsupported(body) {
    if (body.stream === true)
        throw new RequestError("stream is not supported", {param: "stream"});
    if (body.n != null && body.n !== 1)
        throw new RequestError("n must be 1", {param: "n"});
    for (const name of ["tools", "functions"])
        if (Array.isArray(body[name]) && body[name].length > 0)
            throw new RequestError(`${name} are not supported`, {param: name});
}

function repeatPenalty(body) {
    const frequencyPenalty = optionalNumber(body, "frequency_penalty", {min: -2, max: 2}) ?? 0;
    const presencePenalty = optionalNumber(body, "presence_penalty", {min: -2, max: 2}) ?? 0;
    if (frequencyPenalty === 0 && presencePenalty === 0)
        return false;
    return {penalty: 1, frequencyPenalty, presencePenalty, penalizeNewLine: true};
}

/** A chat-completions request body as a plan for one generation; a RequestError when it cannot be served. */
export function parseChatRequest(body) {
    if (!isObject(body))
        throw new RequestError("the body must be a JSON object");
    refuseUnsupported(body);
    const maxTokens = optionalNumber(body, "max_completion_tokens", {min: 1, max: 1e9, integer: true}) ??
        optionalNumber(body, "max_tokens", {min: 1, max: 1e9, integer: true});
    return {
        history: chatHistory(body.messages),
        maxTokens,
        temperature: optionalNumber(body, "temperature", {min: 0, max: 2}) ?? 1,
        topP: optionalNumber(body, "top_p", {min: 0, max: 1}) ?? 1,
        topK: optionalNumber(body, "top_k", {min: 0, max: 1e9, integer: true}) ?? 0,
        minP: optionalNumber(body, "min_p", {min: 0, max: 1}) ?? 0,
        seed: optionalNumber(body, "seed", {min: -(2 ** 53), max: 2 ** 53, integer: true}),
        stop: stopStrings(body.stop),
        repeatPenalty: repeatPenalty(body),
        format: responseFormat(body.response_format),
    };
}

/** The finish_reason of a node-llama-cpp stop reason: `length` when max_tokens (or the context) ran out. */
export function finishReason(stopReason) {
    return stopReason === "maxTokens" ? "length" : "stop";
}

/** The reply body of one finished generation. `timings` (milliseconds) is an extension, as in llama.cpp. */
export function chatCompletionBody({id, created, model, content, stopReason, promptTokens, cachedTokens,
    completionTokens, timings}) {
    return {
        id,
        object: "chat.completion",
        created,
        model,
        choices: [{
            index: 0,
            message: {role: "assistant", content, refusal: null},
            logprobs: null,
            finish_reason: finishReason(stopReason),
        }],
        usage: {
            prompt_tokens: promptTokens,
            completion_tokens: completionTokens,
            total_tokens: promptTokens + completionTokens,
            prompt_tokens_details: {cached_tokens: cachedTokens},
        },
        system_fingerprint: null,
        timings,
    };
}

// ---- JSON Schema -> the schema subset node-llama-cpp makes a grammar of ----------------------------------------
//
// node-llama-cpp knows type (one or several basic types), const, enum, oneOf, object (properties, all generated;
// additionalProperties; min/maxProperties), array (items, prefixItems, min/maxItems), string (min/maxLength,
// format date, time, date-time), $defs and $ref. OpenAI's schemas also use anyOf, `type: ["object", "null"]`,
// `definitions` and schemas with no type (any value): each is rewritten into that subset. Keywords it cannot
// enforce (pattern, minimum, ...) are left out: the grammar then admits more than the schema, never less.

const ANY_VALUE = {
    oneOf: [
        {type: ["string", "number", "boolean", "null"]},
        {type: "object", additionalProperties: true},
        {type: "array"},
    ],
};
const BASIC_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);
const STRING_FORMATS = new Set(["date", "time", "date-time"]);

function mapValues(object, transform) {
    return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, transform(value, key)]));
}

function copyNumbers(from, to, names) {
    for (const name of names)
        if (typeof from[name] === "number")
            to[name] = from[name];
    return to;
}

function objectSchema(schema, path) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const out = {
        type: "object",
        properties: mapValues(properties, (value, key) => convert(value, `${path}.properties.${key}`)),
    };
    const extra = schema.additionalProperties;
    if (isObject(extra))
        out.additionalProperties = convert(extra, `${path}.additionalProperties`);
    else if (typeof extra === "boolean")
        out.additionalProperties = extra;
    else if (Object.keys(properties).length === 0)
        out.additionalProperties = true;  // JSON Schema: an object with nothing declared admits any members
    return copyNumbers(schema, out, ["minProperties", "maxProperties"]);
}

function arraySchema(schema, path) {
    const out = {type: "array"};
    if (Array.isArray(schema.items))  // the older tuple form
        out.prefixItems = schema.items.map((item, index) => convert(item, `${path}.items[${index}]`));
    else if (schema.items != null && schema.items !== true)
        out.items = convert(schema.items, `${path}.items`);
    if (Array.isArray(schema.prefixItems))
        out.prefixItems = schema.prefixItems.map((item, index) => convert(item, `${path}.prefixItems[${index}]`));
    return copyNumbers(schema, out, ["minItems", "maxItems"]);
}

function stringSchema(schema) {
    if (STRING_FORMATS.has(schema.format))
        return {type: "string", format: schema.format};
    return copyNumbers(schema, {type: "string"}, ["minLength", "maxLength"]);
}

function typedSchema(schema, type, path) {
    if (type === "object")
        return objectSchema(schema, path);
    if (type === "array")
        return arraySchema(schema, path);
    if (type === "string")
        return stringSchema(schema);
    if (BASIC_TYPES.has(type))
        return {type};
    throw new RequestError(`${path}: type ${JSON.stringify(type)} is not a JSON Schema type`,
        {param: "response_format"});
}

function alternatives(list, path) {
    if (!Array.isArray(list) || list.length === 0)
        throw new RequestError(`${path} must be a non-empty array of schemas`, {param: "response_format"});
    return {oneOf: list.map((item, index) => convert(item, `${path}[${index}]`))};
}

function convertKeywords(schema, path) {
    if (typeof schema.$ref === "string")
        return {$ref: schema.$ref.replace(/^#\/definitions\//, "#/$defs/")};
    if (schema.anyOf != null)
        return alternatives(schema.anyOf, `${path}.anyOf`);
    if (schema.oneOf != null)
        return alternatives(schema.oneOf, `${path}.oneOf`);
    if (schema.allOf != null) {
        if (!Array.isArray(schema.allOf) || schema.allOf.length !== 1)
            throw new RequestError(`${path}.allOf: only a single schema is supported`, {param: "response_format"});
        return convert(schema.allOf[0], `${path}.allOf[0]`);
    }
    if ("const" in schema)
        return {const: schema.const};
    if (Array.isArray(schema.enum))
        return {enum: schema.enum};
    if (Array.isArray(schema.type)) {
        const variants = schema.type.map((type) => typedSchema(schema, type, path));
        return variants.length === 1 ? variants[0] : {oneOf: variants};
    }
    if (schema.type != null)
        return typedSchema(schema, schema.type, path);
    if (schema.properties != null)
        return objectSchema(schema, path);
    return ANY_VALUE;
}

function convert(schema, path) {
    if (schema === true)
        return ANY_VALUE;
    if (!isObject(schema))
        throw new RequestError(`${path}: a schema must be an object`, {param: "response_format"});
    const out = convertKeywords(schema, path);
    const defs = schema.$defs ?? schema.definitions;
    if (!isObject(defs))
        return out;
    return {...out, $defs: mapValues(defs, (value, key) => convert(value, `${path}.$defs.${key}`))};
}

/** A response_format schema as node-llama-cpp's JSON Schema subset (see above). */
export function grammarSchema(schema) {
    return convert(schema, "schema");
}
