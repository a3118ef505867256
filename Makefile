PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install test lint bench clean

install:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,lint]'

test:
	$(BIN)/python -m pytest -q

lint:
	$(BIN)/ruff check llnoalias tests scripts
	$(BIN)/mypy

bench:
	$(BIN)/python scripts/bench_throughput.py
	$(BIN)/python scripts/bench_waitcnt.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
	find llnoalias -name "*.so" -delete
