// An OpenAI-compatible chat-completions server for one local GGUF model, run by node-llama-cpp on the CPU.
//
//   LLM_MODEL_PATH=… LLM_RUNTIME_DIR=… node bench/llm_local/server.mjs   (`make llm-local` sets both)
//
// Loopback only (127.0.0.1), one thread, one generation at a time: requests wait in a queue for their turn, and
// one whose client went away is dropped (or its generation aborted) rather than run for nobody. The context has a
// few sequences ("slots"), each keeping the tokens of the last prompt evaluated in it; a request goes to the slot
// sharing the longest prefix with its prompt, so that a fixed system prompt and examples are evaluated once and
// a pipeline alternating two prompts (extraction, then update decision) keeps both cached. Only the tokens after
// the shared prefix are evaluated; the reply's usage.prompt_tokens_details.cached_tokens says how many were
// reused. The prompt is the model's own chat template (Jinja, from the GGUF file), as llama.cpp's server renders it.
//
// Routes: POST /v1/chat/completions, GET /v1/models, GET /health. The protocol's translation is in
// openai_chat.mjs, the slot choice in prompt_slots.mjs, the queue in one_at_a_time.mjs (all three tested with
// `node --test`, no model needed); node-llama-cpp is imported from LLM_RUNTIME_DIR (the cache `make llm-local`
// installs it to).
//
// Settings (environment): LLM_PORT (8766), LLM_THREADS (1), LLM_CONTEXT (tokens per slot, 16384, at least 4096),
// LLM_SLOTS (4), LLM_MODEL_ID (the name replies carry; the file's name without .gguf).

import http from "node:http";
import {randomUUID} from "node:crypto";
import {createRequire} from "node:module";
import path from "node:path";
import {pathToFileURL} from "node:url";
import {OneAtATime} from "./one_at_a_time.mjs";
import {RequestError, chatCompletionBody, errorBody, parseChatRequest} from "./openai_chat.mjs";
import {chooseSlot} from "./prompt_slots.mjs";

const HOST = "127.0.0.1";
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const GRAMMAR_CACHE_SIZE = 64;

function fail(message) {
    console.error(`mnemo-llm: ${message}`);
    process.exit(1);
}

function intSetting(env, name, fallback, min, max) {
    const raw = env[name];
    if (raw == null || raw === "")
        return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max)
        fail(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(raw)}`);
    return value;
}

function readSettings(env) {
    const modelPath = env.LLM_MODEL_PATH;
    const runtimeDir = env.LLM_RUNTIME_DIR;
    if (!modelPath || !runtimeDir)
        fail("LLM_MODEL_PATH and LLM_RUNTIME_DIR must be set (`make llm-local` sets them)");
    return {
        modelPath,
        runtimeDir,
        port: intSetting(env, "LLM_PORT", 8766, 1, 65535),
        threads: intSetting(env, "LLM_THREADS", 1, 1, 256),
        contextSize: intSetting(env, "LLM_CONTEXT", 16384, 4096, 131072),
        slots: intSetting(env, "LLM_SLOTS", 4, 1, 16),
        modelId: env.LLM_MODEL_ID || path.basename(modelPath).replace(/\.gguf$/i, ""),
    };
}

async function importRuntime(runtimeDir) {
    const require = createRequire(path.join(path.resolve(runtimeDir), "package.json"));
    return import(pathToFileURL(require.resolve("node-llama-cpp")).href);
}

/** The loaded model and its context's slots (sequences), each with the tokens of the last prompt run in it. */
class Generator {
    constructor(runtime, llama, model, sequences, modelId) {
        this.llama = llama;
        this.model = model;
        this.modelId = modelId;
        this.slots = sequences.map((sequence) => ({
            sequence, completion: new runtime.LlamaCompletion({contextSequence: sequence}), lastUsed: 0,
        }));
        this.generations = 0;
        const template = model.fileInfo.metadata?.tokenizer?.chat_template;
        this.chatWrapper = typeof template === "string"
            ? new runtime.JinjaTemplateChatWrapper({template, tokenizer: model.tokenizer})
            : runtime.resolveChatWrapper(model);
        this.grammars = new Map();
    }

    static async load(runtime, settings) {
        const llama = await runtime.getLlama({
            gpu: false, build: "never", maxThreads: settings.threads, logLevel: runtime.LlamaLogLevel.error,
        });
        const model = await llama.loadModel({modelPath: settings.modelPath});
        const context = await model.createContext({
            contextSize: settings.contextSize, sequences: settings.slots, threads: settings.threads,
        });
        const sequences = Array.from({length: settings.slots}, () => context.getSequence());
        return new Generator(runtime, llama, model, sequences, settings.modelId);
    }

    async grammarFor(format) {
        if (format.kind === "text")
            return undefined;
        const key = format.kind === "json" ? "json" : JSON.stringify(format.schema);
        let grammar = this.grammars.get(key);
        if (grammar == null) {
            try {
                grammar = format.kind === "json"
                    ? await this.llama.getGrammarFor("json")
                    : await this.llama.createGrammarForJsonSchema(format.schema);
            } catch (error) {
                throw new RequestError(`the response_format schema cannot be enforced: ${error.message}`,
                    {param: "response_format"});
            }
            if (this.grammars.size >= GRAMMAR_CACHE_SIZE)
                this.grammars.delete(this.grammars.keys().next().value);
            this.grammars.set(key, grammar);
        }
        return grammar;
    }

    /** The prompt's tokens as the context will hold them: the chat template applied, the BOS token first when
     * the model wants one (LlamaCompletion prepends it, so it is left out of what it is given). */
    promptTokens(history) {
        const {contextText} = this.chatWrapper.generateContextState({chatHistory: history});
        const tokens = contextText.tokenize(this.model.tokenizer);
        const bos = this.model.tokens.shouldPrependBosToken ? this.model.tokens.bos : null;
        if (bos == null)
            return {prompt: tokens, input: tokens};
        const input = tokens[0] === bos ? tokens.slice(1) : tokens;
        return {prompt: [bos, ...input], input};
    }

    async generate(plan, signal) {
        const grammar = await this.grammarFor(plan.format);
        const {prompt, input} = this.promptTokens(plan.history);
        const contextSize = this.slots[0].sequence.contextSize;
        if (prompt.length >= contextSize)
            throw new RequestError(`This model's context holds ${contextSize} tokens; the messages came to ` +
                `${prompt.length} (one more is needed to answer).`, {param: "messages", code: "context_length_exceeded"});
        const {index, reused: cachedTokens} = chooseSlot(
            this.slots.map((slot) => ({tokens: slot.sequence.contextTokens, lastUsed: slot.lastUsed})), prompt);
        const slot = this.slots[index];
        slot.lastUsed = ++this.generations;
        const started = performance.now();
        let firstTokenAt = null;
        let completionTokens = 0;
        const result = await slot.completion.generateCompletionWithMeta(input, {
            signal,
            maxTokens: plan.maxTokens,
            temperature: plan.temperature,
            topP: plan.topP,
            topK: plan.topK,
            minP: plan.minP,
            seed: plan.seed,
            repeatPenalty: plan.repeatPenalty,
            grammar,
            customStopTriggers: plan.stop.length > 0 ? plan.stop : undefined,
            contextShiftSize: 0,
            disableContextShift: true,
            onToken(tokens) {
                firstTokenAt ??= performance.now();
                completionTokens += tokens.length;
            },
        });
        const finished = performance.now();
        return {
            content: result.response,
            stopReason: result.metadata.stopReason,
            promptTokens: prompt.length,
            cachedTokens,
            slot: index,
            completionTokens,
            firstTokenMs: firstTokenAt == null ? null : Math.round(firstTokenAt - started),
            generationMs: Math.round(finished - started),
        };
    }
}

function sendJson(res, status, body) {
    if (res.destroyed || res.headersSent)
        return;
    const data = JSON.stringify(body);
    res.writeHead(status, {"content-type": "application/json", "content-length": Buffer.byteLength(data)});
    res.end(data);
}

async function readJson(req) {
    const chunks = [];
    let size = 0;
    for await (const chunk of req) {
        size += chunk.length;
        if (size > MAX_BODY_BYTES)
            throw new RequestError(`the body is larger than ${MAX_BODY_BYTES} bytes`, {status: 413});
        chunks.push(chunk);
    }
    try {
        return JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
        throw new RequestError("the body is not valid JSON");
    }
}

/** An AbortSignal that fires when the client goes away before its reply was sent. */
function clientGone(res) {
    const controller = new AbortController();
    res.on("close", () => {
        if (!res.writableFinished)
            controller.abort(new Error("the client closed the connection"));
    });
    return controller.signal;
}

async function chatCompletion(generator, queue, req, res) {
    const plan = parseChatRequest(await readJson(req));
    const signal = clientGone(res);
    const received = performance.now();
    const outcome = await queue.run(async () => {
        signal.throwIfAborted();
        const queueMs = Math.round(performance.now() - received);
        return {...await generator.generate(plan, signal), queueMs};
    });
    sendJson(res, 200, chatCompletionBody({
        ...outcome,
        id: `chatcmpl-${randomUUID()}`,
        created: Math.floor(Date.now() / 1000),
        model: generator.modelId,
        timings: {queue_ms: outcome.queueMs, first_token_ms: outcome.firstTokenMs, generation_ms: outcome.generationMs},
    }));
    return outcome;
}

function logLine(req, status, outcome, started) {
    const usage = outcome == null ? "" : ` slot=${outcome.slot} prompt=${outcome.promptTokens} cached=${outcome.cachedTokens} ` +
        `completion=${outcome.completionTokens} finish=${outcome.stopReason}`;
    const ms = Math.round(performance.now() - started);
    console.error(`${new Date().toISOString()} ${req.method} ${req.url} ${status}${usage} ${ms}ms`);
}

function routeOf(req) {
    let url;
    try {
        url = new URL(req.url, `http://${HOST}`);
    } catch {
        throw new RequestError("the request target is not a URL");
    }
    const pathname = url.pathname.replace(/\/+$/, "");
    return {pathname, key: `${req.method} ${pathname}`};
}

async function handle(generator, queue, req, res) {
    const started = performance.now();
    let outcome = null;
    try {
        const {pathname, key} = routeOf(req);
        if (key === "POST /v1/chat/completions")
            outcome = await chatCompletion(generator, queue, req, res);
        else if (key === "GET /v1/models")
            sendJson(res, 200, {object: "list", data: [
                {id: generator.modelId, object: "model", created: 0, owned_by: "local"},
            ]});
        else if (key === "GET /health")
            sendJson(res, 200, {status: "ok", model: generator.modelId, queued: queue.pending});
        else if (["/v1/chat/completions", "/v1/models", "/health"].includes(pathname))
            throw new RequestError(`${req.method} is not allowed here`, {status: 405});
        else
            throw new RequestError(`no route ${pathname}`, {status: 404});
    } catch (error) {
        if (res.destroyed) {
            logLine(req, "client-gone", null, started);
            return;
        }
        if (!(error instanceof RequestError))
            console.error(error);
        sendJson(res, error.status ?? 500, error instanceof RequestError
            ? errorBody(error.message, {param: error.param, code: error.code})
            : errorBody(`the server failed: ${error.message}`, {type: "server_error"}));
    }
    logLine(req, res.statusCode, outcome, started);
}

async function main() {
    const settings = readSettings(process.env);
    const runtime = await importRuntime(settings.runtimeDir);
    const generator = await Generator.load(runtime, settings);
    const queue = new OneAtATime();
    const server = http.createServer((req, res) => {
        handle(generator, queue, req, res).catch((error) => console.error(error));
    });
    server.keepAliveTimeout = 30_000;
    server.on("error", (error) => fail(`cannot listen on ${HOST}:${settings.port}: ${error.message}`));
    server.listen(settings.port, HOST, () => {
        console.log(`mnemo-llm: serving ${settings.modelId} at http://${HOST}:${settings.port}/v1 ` +
            `(threads ${settings.threads}, ${settings.slots} slots of ${settings.contextSize} tokens)`);
    });
    const stop = async () => {
        server.close();
        server.closeAllConnections();
        await Promise.race([generator.llama.dispose(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
        process.exit(0);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
}

await main();
