# Two commands a new machine needs: `make run` (the whole site, embedded) and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
HELIUM3_PORT ?= 8000
export HELIUM3_PORT
# The browser tests (tests/browser) drive the system Chromium; nothing may download one.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1
# Processes for the engine and fault tests (`make test TEST_PROCESSES=4` on a bigger
# machine, and SITE_PROCESSES=5 with it), and for the browser tests (each one a
# Chromium; they mostly wait for movies played in real time, polls and bot turns, so
# more of them than CPUs). Four
# instead of three gave no clear gain on two CPUs with the fault tests beside them
# (docs/benchmarks.md).
# The site tests run on one process more than that: the second half of their stage
# is tests that mostly wait (the scale bench's paces, event streams, programs
# playing whole matches), and on two processes the two CPUs were about half idle
# there. On three, the stage took 199.8 s against 244.6 and 254.1 s on two (PostgreSQL,
# a clean clone, the runs in turn).
TEST_PROCESSES ?= 2
SITE_PROCESSES ?= 3
BROWSER_PROCESSES ?= 3
# On PostgreSQL the site and browser tests' databases are thrown away after the run: a
# commit there need not wait for the disk (libpq's PGOPTIONS, these connections only).
# The fault tests keep the server's durable commits: they crash PostgreSQL on purpose.
THROWAWAY_PG := -c synchronous_commit=off

.PHONY: venv test lint typecheck bench-engine run

# The project and its tools go in with uv (from PyPI, into the environment): the same
# versions pip resolves. `make venv` on a clean clone took 39 s where pip took 101 s
# (caches warm, two loaded CPUs), and 6.5 s against about 15 s when there is nothing
# to do, which every `make test` asks.
$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q uv

venv: $(BIN)/python
	$(BIN)/uv pip install -q --python $(BIN)/python -e '.[dev]'

# ruff (lint and format), then every test, with mypy (strict on the engine, django-stubs on
# the site) beside the first of them (MYPY_LOG below):
# the engine's (pure, no database) on TEST_PROCESSES processes, then the site's on
# SITE_PROCESSES (pytest-xdist; each process has a test database, a Celery worker thread and broker
# queues of its own, so no test waits for another's). With DATABASE_URL and
# CELERY_BROKER_URL set (CI) the site tests run on PostgreSQL and Redis. The fault tests
# (tests/faults, marker `faults`) come after them, in a run of their own (beside the
# browser tests, FAULTS_BESIDE below): they kill and restart their own PostgreSQL,
# Redis, web and worker processes (docs/operations.md, "Faults and bad input"); each
# process of the run has a private PostgreSQL and Redis.
# The browser tests (tests/browser) run last, on BROWSER_PROCESSES processes: each one
# the system Chromium, a live server, a database and a Celery worker of its own.
# `worksteal` (the other stages): a process that runs out of tests takes some of the
# other's, so a few long tests never leave one process waiting alone at the end. The
# browser tests instead are handed out one at a time, the long ones (marked `slow`)
# first (tests/browser/conftest.py): the longest takes about a sixth of the stage.
# With BROWSER_BESIDE=1 the browser tests (which mostly wait for pages, turns and
# animations) start first and run beside all the rest, their output printed once they
# end (BROWSER_LOG): their databases and queues have names of their own
# (tests/browser/conftest.py, isolated_broker). Their timed tests (a turn within so many
# seconds) have less room then on a busy machine, so it is not the default.
# By default (FAULTS_BESIDE=1) the fault tests run beside the browser tests, once the site
# tests have passed, their output printed once both end (FAULTS_LOG): both stages mostly
# wait (the fault tests for outages, restarts and deadlines, the browser tests for pages,
# turns and animations), and neither shares a server, a database or a queue with the
# other (the fault tests' PostgreSQL and Redis are their own). FAULTS_BESIDE=0 runs them
# alone, before the browser tests.
# With ENGINE_BESIDE=1 (and the fault tests beside) the engine's tests run beside the
# browser tests too, after the fault tests, their output printed at the end (ENGINE_LOG).
# It is not the default: on a clean clone the engine's tests took 14 min 43 s there
# (about 95 s in a stage of their own), the fault tests 11 min, the whole run 36 min 49
# s against 23 min the run before, and one browser test's movie was played twice.
BROWSER_BESIDE ?= 0
BROWSER_LOG ?= ci-artifacts/browser-tests.log
FAULTS_BESIDE ?= 1
FAULTS_LOG ?= ci-artifacts/fault-tests.log
FAULT_TESTS = $(BIN)/pytest tests/faults -m faults -n $(TEST_PROCESSES) --dist worksteal
ENGINE_BESIDE ?= 0
# mypy (one process, about 11 s of CPU on a clean clone) runs beside the engine's tests,
# its output printed once they end: on two CPUs both took 64.1 s together where they
# took 68.0 s one after the other (no caches either way).
MYPY_LOG ?= ci-artifacts/mypy.log
ENGINE_LOG ?= ci-artifacts/engine-tests.log
ENGINE_TESTS = $(BIN)/pytest tests/engine -n $(TEST_PROCESSES) --dist worksteal
BROWSER_TESTS = PGOPTIONS="$(THROWAWAY_PG)" $(BIN)/pytest tests/browser -n $(BROWSER_PROCESSES) \
	--dist load --maxschedchunk 1 --durations=20
# Each test process imports the site's modules and some 150 test modules, compiling them
# and rewriting the tests' asserts (pytest): 5 s of CPU a process when nothing is cached
# (9.1 s against 4.3 s to collect the site tests). An environment with
# PYTHONDONTWRITEBYTECODE=1 never keeps those caches, so every stage of every run would
# pay it again; the test target writes them (__pycache__, ignored by git).
test: export PYTHONDONTWRITEBYTECODE :=
test: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@browser=; \
	if [ "$(BROWSER_BESIDE)" = 1 ]; then \
	  mkdir -p $(dir $(BROWSER_LOG)); \
	  echo "browser tests: started beside the others, output in $(BROWSER_LOG) at the end"; \
	  $(BROWSER_TESTS) >$(BROWSER_LOG) 2>&1 & browser=$$!; \
	  trap 'kill $$browser 2>/dev/null' INT TERM; \
	fi; \
	faults_beside=; engine_beside=; \
	if [ "$(FAULTS_BESIDE)" = 1 ] && [ -z "$$browser" ]; then faults_beside=1; fi; \
	if [ "$(ENGINE_BESIDE)" = 1 ] && [ -n "$$faults_beside" ]; then engine_beside=1; fi; \
	others=0; \
	mkdir -p $(dir $(MYPY_LOG)); \
	{ set -x; \
	  { $(BIN)/mypy engine && $(BIN)/mypy games helium3_site; } >$(MYPY_LOG) 2>&1 & typing=$$!; \
	  { test -n "$$engine_beside" || $(ENGINE_TESTS); } && engined=0 || engined=$$?; \
	  wait $$typing && typed=0 || typed=$$?; \
	  { set +x; } 2>/dev/null; echo "----- mypy ($(MYPY_LOG)) -----"; cat $(MYPY_LOG); set -x; \
	  test $$typed -eq 0 && test $$engined -eq 0 && \
	  PGOPTIONS="$(THROWAWAY_PG)" $(BIN)/pytest tests -m "not faults" --ignore=tests/browser \
		--ignore=tests/engine -n $(SITE_PROCESSES) --dist worksteal --durations=20 && \
	  { test -n "$$faults_beside" || $(FAULT_TESTS); }; \
	} || others=$$?; \
	{ set +x; } 2>/dev/null; \
	if [ -n "$$browser" ]; then \
	  wait $$browser && browsers=0 || browsers=$$?; \
	  echo "----- browser tests ($(BROWSER_LOG)) -----"; cat $(BROWSER_LOG); \
	  test $$others -eq 0 && test $$browsers -eq 0; \
	elif [ -n "$$faults_beside" ]; then \
	  test $$others -eq 0 || exit $$others; \
	  mkdir -p $(dir $(FAULTS_LOG)) $(dir $(ENGINE_LOG)); \
	  echo "fault tests: started beside the browser tests, output in $(FAULTS_LOG) at the end"; \
	  if [ -n "$$engine_beside" ]; then \
	    echo "engine tests: beside the browser tests after the fault tests, output in $(ENGINE_LOG)"; \
	  fi; \
	  { $(FAULT_TESTS) >$(FAULTS_LOG) 2>&1 && faulted=0 || faulted=$$?; \
	    engined=0; \
	    if [ -n "$$engine_beside" ]; then \
	      $(ENGINE_TESTS) >$(ENGINE_LOG) 2>&1 || engined=$$?; \
	    fi; \
	    test $$faulted -eq 0 && test $$engined -eq 0; \
	  } & beside=$$!; \
	  trap 'kill $$beside 2>/dev/null' INT TERM; \
	  { set -x; $(BROWSER_TESTS); } && browsers=0 || browsers=$$?; \
	  { set +x; } 2>/dev/null; \
	  wait $$beside && besides=0 || besides=$$?; \
	  echo "----- fault tests ($(FAULTS_LOG)) -----"; cat $(FAULTS_LOG); \
	  if [ -n "$$engine_beside" ]; then \
	    echo "----- engine tests ($(ENGINE_LOG)) -----"; cat $(ENGINE_LOG); \
	  fi; \
	  test $$browsers -eq 0 && test $$besides -eq 0; \
	else \
	  test $$others -eq 0 && { set -x; $(BROWSER_TESTS); }; \
	fi

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: venv
	$(BIN)/mypy engine
	$(BIN)/mypy games helium3_site

bench-engine: venv
	$(BIN)/python -m engine bench

# The whole site on this machine: SQLite + Celery's filesystem broker under ./var/,
# web server, a real Celery worker and celery beat, all under honcho.
run: venv
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demo_user --staff
	@echo
	@echo "  Helium 3 is starting at http://127.0.0.1:$(HELIUM3_PORT)/"
	@echo "  Log in as: demo / helium3-demo   (also a superuser: /admin/)"
	@echo "  Emails are written to ./var/mail/. Stop with Ctrl-C."
	@echo
	$(BIN)/honcho -f Procfile.dev start
