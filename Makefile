PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install build test test-pure check lint bench clean

# The editable install puts the checkout on sys.path with a plain .pth line ("compat"):
# setuptools' default editable mode imports an import hook (pathlib, fnmatch, importlib.util)
# at every interpreter start, 10-25 ms that a regular install never pays (every CLI test and
# benchmark run started one). Where a setuptools no longer has that mode, the default one.
EDITABLE := --config-settings editable_mode=compat

install:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,lint]' $(EDITABLE) 2>/dev/null || $(BIN)/pip install -q -e '.[test,lint]'

# rebuild the C twins after changing a C file (or pulling a change to one)
build:
	$(BIN)/pip install -q -e . --no-deps $(EDITABLE) 2>/dev/null || $(BIN)/pip install -q -e . --no-deps

# the whole suite (README, CI), one pytest-xdist worker per CPU; the tests that fork worker
# processes go to one xdist worker, which runs them in a fresh pytest process
# (tests/conftest.py). CI adds PYTEST_ADDOPTS=--durations=25 to see the slowest
test:
	$(BIN)/python -m pytest -q -n auto --dist loadgroup

# the tests that exercise the pure-Python references of the C twins (CI runs them with
# LLNOALIAS_PURE=1, where the twins' own comparisons skip): the fast-path rows (every
# shortcut over the references), every FileCheck and error fixture, the API
REFERENCE_TESTS := tests/test_fast_paths.py tests/test_api.py tests/cli/test_fixtures.py \
	tests/ir/test_error_fixtures.py
test-pure:
	LLNOALIAS_PURE=1 $(BIN)/python -m pytest -q -n auto --dist loadgroup $(REFERENCE_TESTS)

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
