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
# cdk8s-cli asks the npm registry for a newer version on every run; builds stay offline.
export CDK8S_CHECK_UPGRADE := false

VENV_STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
# Outside make, `source .venv/bin/activate` gives the same tools: Node 22 as `node` (jsii
# finds it on PATH) and `cdk8s` without its upgrade check.
VENV_TOOLS := $(VENV)/bin/node $(VENV)/bin/cdk8s
# checkov gets a virtualenv of its own: its dependencies conflict with the project's pins.
CHECKOV_VENV := .venv-checkov
CHECKOV_STAMP := $(CHECKOV_VENV)/.installed
DIST := dist
STAGE := build/synth-stage
CHART := charts/node-headroom
CHART_PACKAGES := build/charts

.PHONY: help install promtool synth chart chart-package test test-live live-build validate check lint typecheck dist-sync dist docs bench clean

help: ## list the targets
	@# The names' column is as wide as the longest name (a tab stop misaligned longer ones).
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' \
	  '{ name[NR] = $$1; text[NR] = $$2; if (length($$1) > width) width = length($$1) } \
	  END { for (i = 1; i <= NR; i++) printf "%-" width + 2 "s%s\n", name[i], text[i] }'

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
	# The frozen set was resolved on Python 3.11; an older Python resolves checkov's own
	# dependencies (several of the frozen versions need 3.11).
	if $(CHECKOV_VENV)/bin/python -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then \
	  $(CHECKOV_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-checkov.txt; \
	else \
	  $(CHECKOV_VENV)/bin/python -m pip install --quiet --disable-pip-version-check "$$(grep '^checkov==' requirements-checkov.txt)"; \
	fi
	touch $@

# Order-only: make reads a symlink's time from the Node it points to, older than the
# stamps, so a normal prerequisite would remake the link on every target.
$(VENV)/bin/node: | $(VENV_STAMP) $(NODE_STAMP)
	ln -sf $(CURDIR)/node_modules/node/bin/node $@

$(VENV)/bin/cdk8s: $(VENV_STAMP) $(NODE_STAMP)
	printf '#!/bin/sh\n# cdk8s-cli on the project'"'"'s Node 22 (also for the app'"'"'s jsii), without the upgrade check (make install)\nexport CDK8S_CHECK_UPGRADE=false PATH="%s:$$PATH"\nexec node "%s" "$$@"\n' \
	  "$(CURDIR)/$(VENV)/bin" "$(CURDIR)/node_modules/cdk8s-cli/bin/cdk8s" > $@
	chmod +x $@

install: $(VENV_STAMP) $(NODE_STAMP) $(VENV_TOOLS) ## create the virtualenv (with Node 22 and cdk8s in .venv/bin) and install the pinned Python and npm packages

# `cdk8s synth` runs main.py, which stages, checks and swaps in dist/ itself (see its
# docstring), so `make synth`, `cdk8s synth` and `python main.py` publish the same way;
# $(STAGE) (cdk8s.yaml's output) only receives a copy, removed here.
synth: install ## synthesize into dist/ (staged, checked, swapped in whole; on failure dist/ is untouched and cdk8s synth exits 1 with one message); Q=1 for no summary
	HEADROOM_QUIET=$(Q) cdk8s synth --output $(STAGE) $(if $(Q),> /dev/null,) || { rm -rf $(STAGE); exit 1; }
	rm -rf $(STAGE)
	$(PY) scripts/chart.py --out $(CHART)

chart: install ## generate the Helm chart charts/node-headroom/ from main.py's app (written whole, or not at all)
	$(PY) scripts/chart.py --out $(CHART)

chart-package: chart ## pack the chart into build/charts/node-headroom-<version>.tgz, same bytes for the same chart
	$(PY) scripts/chart.py --package $(CHART_PACKAGES) $(CHART)

promtool: ## promtool and prometheus (Debian's prometheus package), which the alert rules' tests run (and the live tier's)
	@command -v promtool > /dev/null && command -v prometheus > /dev/null || { \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus > /dev/null; \
	} || echo "promtool could not be installed (apt-get needs root): the alert rules' promtool and live tests will skip" >&2

# The live tier (tests/live) runs beside the rest of the suite; each worker that takes a
# live test starts its own control plane per release (tests/live/conftest.py says why
# the xdist group does not keep them on one worker under pytest 9). The slowest tests are
# listed at the end, for the time the suite takes (the warm aim is 15 minutes).
PYTEST_ARGS := -n auto --dist loadgroup --durations=15

test: install $(CHECKOV_STAMP) promtool live-build ## run the whole test suite, the live tier too where Go is present (exit code 5, no tests collected, is a failure)
	$(PY) -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi; exit $$rc

# e2e/build.py builds the control plane of each release (Kubernetes, etcd, KWOK), the
# GitOps health helper, kube-state-metrics and Karpenter from their pinned Go modules, once
# per machine, into ~/.cache/cdk8s-headroom/e2e (HEADROOM_E2E_CACHE); it fetches the Go 1.27
# toolchain that the health helper and Karpenter need as GOTOOLCHAIN=go1.27.3 itself.
live-build: install ## build the live tier's components from their pinned Go modules (cold: about 20 minutes on 2 cores; then cached)
	@if command -v go > /dev/null; then $(PY) e2e/build.py; \
	else echo "make: no Go on PATH: the live tier will $(if $(CI),fail (CI runs it),be skipped)" >&2; fi

test-live: install promtool live-build ## run the live tier alone, on every release (HEADROOM_LIVE_RELEASES=1.37 for one)
	$(PY) -m pytest -p no:xdist -m live tests/live; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi; exit $$rc

validate: install $(CHECKOV_STAMP) ## cdk8s-headroom validate on a folder of manifests: make validate DIR=path (default dist/)
	@# GNU make exits 2 whenever a recipe fails, whatever its status: the status of
	@# `cdk8s-headroom validate` (1: objects failed, 2: the folder cannot be read) is
	@# said on the last line, and kept as is by calling the command itself.
	@$(PY) -m cdk8s_headroom validate $(or $(DIR),$(DIST)) || { rc=$$?; \
	  if [ $$rc -eq 1 ]; then why="objects failed"; else why="the folder cannot be read, or bad input"; fi; \
	  echo "make validate: cdk8s-headroom validate exited $$rc ($$why)" >&2; exit $$rc; }

lint: install ## ruff on the library, the app, the examples, the benchmarks and the tests
	$(PY) -m ruff check constructs main.py setup.py imports scripts tests examples bench e2e
	$(PY) -m ruff format --check constructs main.py setup.py scripts tests examples bench e2e

typecheck: install ## mypy --strict on the library, e2e/, scripts/ and bench/, and on a consumer's app that uses it
	$(PY) -m mypy
	$(PY) -m mypy --strict tests/consumer/app.py

dist-sync: install ## fail when the committed dist/ or charts/ differs from a fresh generation
	$(PY) scripts/check_sync.py

check: lint typecheck dist-sync ## the fast checks: lint, types, committed output in sync

PYDIST := build/python-dist

dist: install ## build the wheel and the sdist into build/python-dist/
	rm -rf $(PYDIST)
	$(PY) -m build --no-isolation --outdir $(PYDIST) . > /dev/null
	ls -1 $(PYDIST)

docs: install ## API reference from the docstrings, into build/docs/
	rm -rf build/docs
	# jsii starts a Node process at import; pdoc blocks subprocesses unless told. Before
	# Python 3.12, a TypedDict does not record its bases, so pdoc cannot tell where
	# BurstWorkloadProps's inherited props are declared: it warns, and lists them under
	# BurstWorkloadProps, which is what the page should show.
	PDOC_ALLOW_EXEC=1 $(PY) -W 'ignore:Cannot determine where cdk8s_headroom.BurstWorkloadProps.' -m pdoc --docformat google --output-directory build/docs cdk8s_headroom
	@echo "open build/docs/index.html"

bench: install ## measure synthesis, scale, the simulator, Helm and the test suite; writes bench/results.md
	$(PY) bench/run.py

clean: ## remove the environments and build output (keeps dist/ and charts/)
	rm -rf $(VENV) $(CHECKOV_VENV) node_modules build .pytest_cache .mypy_cache .ruff_cache .hypothesis

.PHONY: model-comparison bench-simulate fidelity

model-comparison: install ## recompute docs/model-comparison.md (and README's table) with the simulator
	$(PY) scripts/compare_models.py

fidelity: install live-build ## simulate against the live kube-scheduler of each release: COUNT random scenarios (default 500) of SEED (default 33); writes bench/results.md
	PYTHONPATH=constructs:. $(PY) bench/fidelity.py --seed $(or $(SEED),33) --count $(or $(COUNT),500)

bench-simulate: install ## time the simulator on 100 to 1,000 nodes
	PYTHONPATH=constructs:. $(PY) bench/bench_simulate.py
