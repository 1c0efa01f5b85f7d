# Two commands on a fresh clone: `make serve` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8000
STORE  ?= sqlite:///./data/events.db
TS     := clients/typescript

.PHONY: serve test lint openapi bench clean worker drills

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

# the TypeScript check of openapi.yaml (tests/api/test_typescript_types.py) needs Node.js;
# without npm that test fails and says why
$(TS)/node_modules/.package-lock.json: $(TS)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then cd $(TS) && npm ci --no-audit --no-fund; \
	else echo "make: npm not found: install Node.js 18+ for the TypeScript check of openapi.yaml"; fi

serve: $(VENV)/.installed  ## install, then run the server on the embedded SQLite store
	$(PY) -m service serve --host $(HOST) --port $(PORT) --store $(STORE)

worker: $(VENV)/.installed  ## the RQ worker that keeps projections current (Redis deployments)
	$(PY) -m service worker

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check domain projections service tests bench
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy domain projections service

test: $(VENV)/.installed-dev lint $(TS)/node_modules/.package-lock.json  ## install dev and node dependencies, lint, run every test
	$(PY) -m pytest

drills: $(VENV)/.installed-dev  ## the heavy reliability drills (kill -9 loops, thousands of streams)
	$(PY) -m pytest -m drill tests/reliability -s

openapi: $(VENV)/.installed  ## rewrite openapi.yaml from the app
	$(PY) -m service.openapi > openapi.yaml

bench: $(VENV)/.installed-dev
	for script in bench/*.py; do $(PY) $$script; done

clean:
	rm -rf $(VENV) data $(TS)/node_modules $(TS)/src/generated
