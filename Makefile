PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install test check lint bench clean

install:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,lint]'

# the whole suite (README, CI); CI adds PYTEST_ADDOPTS=--durations=25 to see the slowest
test:
	$(BIN)/python -m pytest -q

# before each commit: ruff and the suite without the tests marked slow, stopping at the first
# failure (under a minute; mypy is in `make lint`)
check:
	$(BIN)/ruff check llnoalias tests scripts
	$(BIN)/python -m pytest -q -x -m "not slow"

lint:
	$(BIN)/ruff check llnoalias tests scripts
	$(BIN)/mypy

bench:
	$(BIN)/python scripts/bench_throughput.py
	$(BIN)/python scripts/bench_waitcnt.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
	find llnoalias -name "*.so" -delete
