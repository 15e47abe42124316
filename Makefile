# cdk8s-headroom: every target installs what it needs first (virtualenv, pip pins,
# npm lockfile), so `make test` works on a fresh machine with only Python, npm and make.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
NODE_BIN := $(CURDIR)/node_modules/.bin
# The npm package `node@22` provides a Node that jsii supports; putting it first on
# PATH keeps jsii from printing its end-of-life banner under the machine's Node 20.
export PATH := $(NODE_BIN):$(CURDIR)/$(VENV)/bin:$(PATH)
export PYTHONDONTWRITEBYTECODE := 1

VENV_STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
# checkov gets a virtualenv of its own: its dependencies conflict with the project's pins.
CHECKOV_VENV := .venv-checkov
CHECKOV_STAMP := $(CHECKOV_VENV)/.installed
DIST := dist
STAGE := build/synth-stage

.PHONY: help install synth test validate check lint typecheck dist-sync clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 16

$(VENV_STAMP): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(CHECKOV_STAMP): requirements-checkov.txt
	test -x $(CHECKOV_VENV)/bin/python || $(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-checkov.txt
	touch $@

install: $(VENV_STAMP) $(NODE_STAMP) ## create the virtualenv and install the pinned Python and npm packages

synth: install ## synthesize into dist/ (staged, validated, then swapped in)
	rm -rf $(STAGE)
	cdk8s synth --output $(STAGE) || { rm -rf $(STAGE); exit 1; }
	$(PY) -m scripts.promote $(STAGE) $(DIST)

test: install $(CHECKOV_STAMP) ## run the whole test suite (exit code 5, no tests collected, is a failure)
	$(PY) -m pytest; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi; exit $$rc

validate: install $(CHECKOV_STAMP) ## schemas, Pod Security and checkov on a folder of manifests: make validate DIR=path (default dist/)
	$(PY) -m scripts.validate $(or $(DIR),$(DIST))

lint: install ## ruff on the library, the app and the tests
	$(PY) -m ruff check constructs main.py imports scripts tests
	$(PY) -m ruff format --check constructs main.py scripts tests

typecheck: install ## mypy --strict on the library
	$(PY) -m mypy

dist-sync: install ## fail when the committed dist/ differs from a fresh synthesis
	$(PY) scripts/check_sync.py

check: lint typecheck dist-sync ## the fast checks: lint, types, committed output in sync

clean: ## remove the environments and build output (keeps dist/ and charts/)
	rm -rf $(VENV) $(CHECKOV_VENV) node_modules build .pytest_cache .mypy_cache .ruff_cache .hypothesis
