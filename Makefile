# Two commands on a fresh clone: `make serve` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8000
STORE  ?= sqlite:///./data/events.db
TS     := clients/typescript

.PHONY: serve test lint openapi bench clean worker drills repeat compile pure soak archive

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

# The rules engine compiled with mypyc (tools/compile_domain.py): C extensions beside domain/'s
# sources, which Python imports instead of them. Rebuilt when a domain source changes; where
# mypyc (a dev dependency) or a C compiler is missing, or the build fails, the pure-Python
# sources run instead: the same rules, slower. `make pure` removes the compiled modules.
DOMAIN_SOURCES := $(shell find domain -name '*.py')
$(VENV)/.compiled: $(DOMAIN_SOURCES) tools/compile_domain.py
	@if [ -x $(VENV)/bin/mypyc ]; then \
	  $(PY) tools/compile_domain.py || { echo "make: the mypyc build failed; the engine runs as pure Python"; \
	                                     $(PY) tools/compile_domain.py --clean; }; \
	else echo "make: mypyc not installed (make .venv/.installed-dev); the engine runs as pure Python"; fi
	@touch $@

compile: $(VENV)/.compiled

pure:
	$(PY) tools/compile_domain.py --clean
	rm -f $(VENV)/.compiled

serve: $(VENV)/.installed $(VENV)/.compiled  ## install, then run the server on the embedded SQLite store
	$(PY) -m service serve --host $(HOST) --port $(PORT) --store $(STORE)

worker: $(VENV)/.installed  ## an RQ worker of every lane (Redis deployments; LANES=clocks,bots,... for some)
	$(PY) -m service worker --lanes $(or $(LANES),clocks,bots,webhooks,projections)

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check domain projections service tests bench
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy domain projections service

test: $(VENV)/.installed-dev lint $(TS)/node_modules/.package-lock.json $(VENV)/.compiled  ## install dev and node dependencies, lint, compile, run every test
	$(PY) -m pytest
	@# where the suite ran on the compiled engine, the random-play property tests and the stored
	@# streams run once more on the pure-Python sources (about a minute)
	@if [ "$$($(PY) tools/compile_domain.py --check)" = compiled ]; then \
	  echo "make: the property tests again, on the pure-Python engine (DOMAIN_PURE=1)"; \
	  DOMAIN_PURE=1 $(PY) -m pytest tests/property tests/unit/kernel/test_stored_streams_fold.py; fi

drills: $(VENV)/.installed-dev  ## the heavy reliability drills (kill -9 loops, thousands of streams)
	$(PY) -m pytest -m drill tests/reliability -s

# an hour of the production shape on Redis (bench/soak.py: several web processes, one worker per
# lane, live games of both types with bot seats); SOAK_ARGS to change it, e.g. --archive-url
soak: $(VENV)/.installed-dev  ## the one-hour soak (not CI): a row of figures every 5 minutes
	$(PY) bench/soak.py --minutes 60 --report-every 300 $(SOAK_ARGS)

archive: $(VENV)/.installed  ## move finished games past GAMES_ARCHIVE_AFTER from Redis to GAMES_ARCHIVE_URL now
	$(PY) -m service archive

repeat: $(VENV)/.installed-dev  ## the fast tests three times over, under two hash seeds: a test that flakes shows here
	PYTHONHASHSEED=1 $(PY) -m pytest tests/unit --count 3 -q
	PYTHONHASHSEED=7 $(PY) -m pytest tests/unit -q

openapi: $(VENV)/.installed  ## rewrite openapi.yaml from the app
	$(PY) -m service.openapi > openapi.yaml

bench: $(VENV)/.installed-dev
	for script in bench/*.py; do $(PY) $$script; done

clean:
	-$(PY) tools/compile_domain.py --clean
	rm -rf $(VENV) data $(TS)/node_modules $(TS)/src/generated
