# Two commands on a fresh clone: `make serve` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8000
STORE  ?= sqlite:///./data/events.db
TS     := clients/typescript

.PHONY: serve test lint openapi bench clean worker drills repeat compile pure soak archive FORCE

# The contributor's venv: the dependencies and this checkout installed editable, as pure Python
# (an editable install never compiles: the sources are what runs).
$(VENV)/.installed: pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	rm -f $(VENV)/.engine-installed
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[dev]'
	rm -f $(VENV)/.engine-installed
	touch $@

# the TypeScript check of openapi.yaml (tests/api/test_typescript_types.py) needs Node.js;
# without npm that test fails and says why
$(TS)/node_modules/.package-lock.json: $(TS)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then cd $(TS) && npm ci --no-audit --no-fund; \
	else echo "make: npm not found: install Node.js 18+ for the TypeScript check of openapi.yaml"; fi

# The server's package as a wheel (setup.py): its rules engine (domain/) compiled with mypyc
# where mypyc and a C compiler are found, else pure Python (the same rules, slower); it says
# which. GAMES_USE_MYPYC=1 insists on compiling, =0 builds pure Python. Where the compiler is GCC
# the engine is compiled twice, the second time with a profile of seeded games (GAMES_PGO=0: once,
# without it; a slower engine). Build output stays in build/, never beside the sources. Rebuilt
# when a source changes (an edit that leaves the C code unchanged costs about a minute of mypy's
# analysis).
PACKAGE_SOURCES := $(shell find domain projections service -name '*.py')
WHEELS := build/wheels
# the build's switches as last given, rewritten only when one changes: switching one rebuilds
SWITCHES := GAMES_USE_MYPYC=$(GAMES_USE_MYPYC) GAMES_PGO=$(GAMES_PGO)
build/switches.txt: FORCE
	@mkdir -p build
	@echo '$(SWITCHES)' | cmp -s - $@ || echo '$(SWITCHES)' > $@
FORCE:
$(WHEELS)/.built: pyproject.toml setup.py README.md $(PACKAGE_SOURCES) build/switches.txt | $(VENV)/.installed
	rm -rf $(WHEELS)
	@echo "make: building the server's package; its rules engine is compiled with mypyc where a C compiler"
	@echo "      is found: several minutes (with GCC it is compiled twice: instrumented, then with what"
	@echo "      seeded games counted; GAMES_PGO=0: once; GAMES_USE_MYPYC=0: pure Python, in seconds)"
	$(PY) -m pip wheel --no-deps --wheel-dir $(WHEELS) .
	@echo "make: $$(cat build/engine.txt)"
	@touch $@

# the built package in the venv, replacing the editable checkout (`make serve` runs it)
$(VENV)/.engine-installed: $(WHEELS)/.built $(VENV)/.installed
	$(PY) -m pip install --quiet --no-deps --force-reinstall $(WHEELS)/*.whl
	@touch $@

# The built package unpacked into build/engine, where the tests find its compiled domain/
# (tests/helpers/engine.py); with DOMAIN_PURE=1 they run the sources instead. `make pure`
# removes it: the tests then run the sources too.
ENGINE := build/engine
$(ENGINE)/.built: $(WHEELS)/.built
	rm -rf $(ENGINE)
	$(PY) -m zipfile -e $(WHEELS)/*.whl $(ENGINE)
	@touch $@

compile: $(ENGINE)/.built

pure:  ## the tests run the sources (and a build left beside them by an older checkout is removed)
	rm -rf $(ENGINE)
	find domain -name '*.so' -delete

# -P: the installed package, not this checkout's sources (the current directory stays off the path)
serve: $(VENV)/.engine-installed  ## install the server (its engine compiled where it can be), serve on SQLite
	$(PY) -P -m service serve --host $(HOST) --port $(PORT) --store $(STORE)

worker: $(VENV)/.installed  ## an RQ worker of every lane (Redis deployments; LANES=clocks,bots,... for some)
	$(PY) -m service worker --lanes $(or $(LANES),clocks,bots,webhooks,projections)

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check domain projections service tests bench
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy domain projections service

test: $(VENV)/.installed-dev lint $(TS)/node_modules/.package-lock.json $(ENGINE)/.built  ## install dev and node dependencies, lint, build, run every test
	$(PY) -m pytest
	@# where the suite ran on the compiled engine, the random-play property tests and the stored
	@# streams run once more on the pure-Python sources (about a minute)
	@if [ "$$($(PY) -m tests.helpers.engine)" = compiled ]; then \
	  echo "make: the property tests again, on the pure-Python engine (DOMAIN_PURE=1)"; \
	  DOMAIN_PURE=1 $(PY) -m pytest tests/property tests/unit/kernel/test_stored_streams_fold.py; fi

drills: $(VENV)/.installed-dev  ## the heavy reliability drills (kill -9 loops, thousands of streams)
	$(PY) -m pytest -m drill tests/reliability -s

# an hour of the production shape on Redis (bench/soak.py: several web processes, one worker per
# lane, live games of both types with bot seats); SOAK_ARGS to change it, e.g. --archive-url
soak: $(VENV)/.installed-dev $(ENGINE)/.built  ## the one-hour soak (not CI): a row of figures every 5 minutes
	$(PY) bench/soak.py --minutes 60 --report-every 300 $(SOAK_ARGS)

archive: $(VENV)/.installed  ## move finished games past GAMES_ARCHIVE_AFTER from Redis to GAMES_ARCHIVE_URL now
	$(PY) -m service archive

repeat: $(VENV)/.installed-dev  ## the fast tests (unit and API) three times over, under two hash seeds: a test that flakes shows here
	PYTHONHASHSEED=1 $(PY) -m pytest tests/unit tests/api --count 2 -q
	PYTHONHASHSEED=7 $(PY) -m pytest tests/unit tests/api -q

openapi: $(VENV)/.installed  ## rewrite openapi.yaml from the app
	$(PY) -m service.running.openapi > openapi.yaml

bench: $(VENV)/.installed-dev
	for script in bench/*.py; do $(PY) $$script; done

clean:
	find domain -name '*.so' -delete
	rm -rf $(VENV) build data $(TS)/node_modules $(TS)/src/generated
