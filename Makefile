# Two commands a new machine needs: `make run` (the whole site, embedded) and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
HELIUM3_PORT ?= 8000
export HELIUM3_PORT
# The browser tests (tests/browser) drive the system Chromium; nothing may download one.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1

.PHONY: venv test lint typecheck bench-engine run

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

venv: $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'

# ruff (lint and format), mypy (strict on the engine, django-stubs on the site), then every test:
# the engine's (pure, no database) on two processes, then the site's. With DATABASE_URL and
# CELERY_BROKER_URL set (CI) the site tests run on PostgreSQL and Redis. The fault tests
# (tests/faults, marker `faults`) come last and alone: they kill and restart their own
# PostgreSQL, Redis, web and worker processes (docs/operations.md, "Faults and bad input").
# The browser tests (tests/browser) run last, in a process of their own: the system
# Chromium, a live server and one Celery worker of their own.
test: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy engine
	$(BIN)/mypy games helium3_site
	$(BIN)/pytest tests/engine -n 2
	$(BIN)/pytest tests -m "not faults" --ignore=tests/browser --ignore=tests/engine
	$(BIN)/pytest tests/faults -m faults
	$(BIN)/pytest tests/browser

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
