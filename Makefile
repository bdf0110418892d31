# Every target sets itself up: a fresh clone needs only Python >= 3.12 and make.
# The virtualenv is rebuilt only when pyproject.toml changes.

# PYTHON picks the interpreter for a new virtualenv (CI builds one per supported
# version: `make test VENV=.venv-3.12 PYTHON=python3.12`); by default the newest found.
VENV ?= .venv
PYTHON ?=
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
ARGS ?=
# Parallel test workers (pytest-xdist). The suite mostly waits (browsers, servers,
# sockets), so one more worker than cores keeps both cores busy.
WORKERS ?= 3
# Each test file runs in one worker, start to end: a file's browser, live server and
# fixtures are made once.
# A worker that dies fails the run at once, naming its test (a replaced worker can leave
# the run waiting for ever).
PARALLEL = -n $(WORKERS) --dist loadfile --max-worker-restart=0
# What `make quick` leaves out: the browser, scale-out and fuzz tests (pyproject markers).
QUICK = not browser and not scaleout and not fuzz

.PHONY: run test quick screenshots lighthouse bench bench-imports bench-flood lint typecheck check setup clean

setup: $(STAMP)

$(PY):
	@python=$$(scripts/find-python $(PYTHON)) && echo "Creating $(VENV) with $$python" && \
		"$$python" -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --disable-pip-version-check --quiet -e '.[dev]'
	@touch $(STAMP)

run: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput -v0
	$(PY) manage.py seed_demo
	$(PY) -m vtt.serve -b $${HOST:-127.0.0.1} -p $${PORT:-8000} vtt.asgi:application

# The whole suite, in parallel. `make test ARGS=tests/rules` runs a part of it.
test: $(STAMP)
	$(PY) -m pytest $(PARALLEL) $(ARGS)

# Everything but the browser, scale-out and fuzz tests: after every change.
quick: $(STAMP)
	$(PY) -m pytest $(PARALLEL) -m "$(QUICK)" $(ARGS)

# Photographs every page into docs/screenshots/ (no other test run writes there).
screenshots: $(STAMP)
	VTT_SCREENSHOTS=1 $(PY) -m pytest $(ARGS) \
		tests/browser/test_screenshots.py tests/ux/test_table_ready.py

# Lighthouse scores of the player page (phone) and the spectators' screen (desktop), against
# a running `make run` (another terminal); figures in docs/testing.md.
lighthouse: $(STAMP)
	PY=$(PY) scripts/lighthouse

bench: $(STAMP)
	$(PY) -m tests.bench $(ARGS)

# Another table's commands while a GM imports the largest exports allowed (docs/security.md).
bench-imports: $(STAMP)
	$(PY) -m tests.bench.imports

# Another table's command time while one player floods, one account sends through ten
# tokens, and twenty spectator screens ask for whole views (docs/security.md).
bench-flood: $(STAMP)
	$(PY) -m tests.bench.flood

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# What CI runs before the tests: any finding fails it.
check: lint typecheck

clean:
	rm -rf .venv .venv-* .pytest_cache .ruff_cache .mypy_cache .hypothesis staticfiles *.egg-info
