# Two commands on a fresh clone: `make serve` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8000
STORE  ?= sqlite:///./data/events.db

.PHONY: serve test lint openapi bench clean worker drills

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

serve: $(VENV)/.installed  ## install, then run the server on the embedded SQLite store
	$(PY) -m service serve --host $(HOST) --port $(PORT) --store $(STORE)

worker: $(VENV)/.installed  ## the RQ worker that keeps projections current (Redis deployments)
	$(PY) -m service worker

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check domain projections service tests bench
	$(VENV)/bin/lint-imports

test: $(VENV)/.installed-dev lint  ## install dev dependencies, lint, run every test
	$(PY) -m pytest

drills: $(VENV)/.installed-dev  ## the heavy reliability drills (kill -9 loops, thousands of streams)
	$(PY) -m pytest -m drill tests/reliability -s

openapi: $(VENV)/.installed  ## rewrite openapi.yaml from the app
	$(PY) -m service.openapi > openapi.yaml

bench: $(VENV)/.installed-dev
	for script in bench/*.py; do $(PY) $$script; done

clean:
	rm -rf $(VENV) data
