# iopscope: two commands on a fresh machine.
#   make serve   install what is missing, ingest data/raw, dbt build, build the site, serve it
#   make test    install what tests need, then run every suite (pytest, dbt, browser)
# Each install step is guarded by a stamp that depends on its lock file, so a second run
# reinstalls nothing when nothing changed.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMPS := .stamps
PORT ?= 3000

export DBT_SEND_ANONYMOUS_USAGE_STATS := False
export DO_NOT_TRACK := 1
export OBSERVABLE_TELEMETRY_DISABLE := true
export PATH := $(CURDIR)/$(BIN):$(PATH)

.PHONY: help deps serve build ingest dbt site test lint test-python test-js test-dbt test-browser test-browser-and-spark system-deps clean distclean lock spark-deps spark-lock test-spark

help:
	@echo "make serve   build everything from data/raw and serve the site on http://127.0.0.1:$(PORT)/"
	@echo "make test    run every test suite (installs chromium, fio, sysstat when root)"
	@echo "make build   ingest + dbt build + site build, without serving"
	@echo "make lint    ruff (Python) and sqlfluff (dbt models); part of make test"
	@echo "make lock    regenerate requirements.lock after editing pyproject.toml"

# ---------------------------------------------------------------- installs

$(STAMPS):
	@mkdir -p $(STAMPS)

$(STAMPS)/python: requirements.lock pyproject.toml | $(STAMPS)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "iopscope needs Python 3.11 or newer (found " + sys.version.split()[0] + "): set PYTHON=python3.x")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || { \
	  if [ "$$(id -u)" = 0 ]; then rm -rf $(VENV); apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null && $(PYTHON) -m venv $(VENV); \
	  else echo "python3 -m venv failed: install python3-venv (apt-get install python3-venv)"; exit 1; fi; }
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@touch $@

$(STAMPS)/node: package.json package-lock.json | $(STAMPS)
	@node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' || { echo "iopscope needs Node 20 or newer"; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

deps: $(STAMPS)/python $(STAMPS)/node

# Debian packages the tests drive for real. Installed when missing and we may (root/sudo).
TEST_PROGRAMS := chromium:chromium fio:fio iostat:sysstat mpstat:sysstat java:openjdk-17-jre-headless
# (MariaDB and go-tpc below: installed when missing and we may; their test skips otherwise)
system-deps:
	@missing=""; for pair in $(TEST_PROGRAMS); do \
	  prog=$${pair%%:*}; pkg=$${pair##*:}; \
	  command -v $$prog >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	done; \
	missing=$$(echo $$missing | tr ' ' '\n' | sort -u | tr '\n' ' '); \
	if [ -n "$${missing// /}" ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=sudo; \
	  else echo "missing Debian packages:$$missing -- install them (apt-get install$$missing) or run as root"; exit 1; fi; \
	  echo "installing Debian packages:$$missing"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
	@$(MAKE) --no-print-directory $(GO_TPC)
	@command -v mariadbd >/dev/null 2>&1 || test -x /usr/sbin/mariadbd || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=sudo; \
	  else echo "note: MariaDB is not installed (apt-get install mariadb-server): the real TPC-C test will be skipped"; exit 0; fi; \
	  echo "installing Debian packages: mariadb-server (the real TPC-C test starts a throwaway server)"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq mariadb-server >/dev/null; }

# go-tpc for the real TPC-C test: pinned, from the Go module proxy, cached under .cache/go-tpc
# (the test finds it there; GO_TPC=path overrides). Built only when missing.
GO_TPC_VERSION := v1.0.7
GO_TPC := .cache/go-tpc/go-tpc
$(GO_TPC):
	@GO=$$(command -v go || echo /usr/local/go/bin/go); \
	if [ ! -x "$$GO" ]; then echo "note: no Go toolchain: go-tpc not installed, the real TPC-C test will be skipped"; exit 0; fi; \
	echo "installing go-tpc $(GO_TPC_VERSION) into $(dir $@)"; \
	GOBIN=$(CURDIR)/$(dir $@) $$GO install github.com/pingcap/go-tpc/cmd/go-tpc@$(GO_TPC_VERSION)

# ---------------------------------------------------------------- pipeline

build: deps
	$(BIN)/iopscope build

ingest: $(STAMPS)/python
	$(BIN)/iopscope ingest

dbt: $(STAMPS)/python
	$(BIN)/iopscope dbt build

site: deps
	$(BIN)/iopscope build --skip ingest --skip dbt

serve: build
	$(BIN)/iopscope serve --port $(PORT)

# ---------------------------------------------------------------- tests

test: deps system-deps spark-deps
	@$(MAKE) --no-print-directory lint test-python test-js test-dbt test-browser-and-spark

# The Spark suite beside the browser suite, niced so the browser's timings keep the CPU: the
# browser waits on Chromium and the Spark build on its JVM much of the time, and one after the
# other they took 14 minutes of CI. Spark's output comes after the browser's; either failing fails.
test-browser-and-spark: deps $(STAMPS)/spark
	@log=$$(mktemp); \
	  nice -n 19 $(MAKE) --no-print-directory test-spark > $$log 2>&1 & spark_pid=$$!; \
	  $(MAKE) --no-print-directory test-browser; browser=$$?; \
	  wait $$spark_pid; spark=$$?; \
	  echo "---- make test-spark (ran beside the browser suite) ----"; cat $$log; rm -f $$log; \
	  echo "test-browser: exit $$browser; test-spark: exit $$spark"; \
	  test $$browser -eq 0 && test $$spark -eq 0

# Python (ruff: pyproject.toml [tool.ruff]) and the dbt models (sqlfluff: .sqlfluff).
lint: $(STAMPS)/python
	$(BIN)/ruff check .
	@# sqlfluff only warns (exit 0) when it cannot template a model, which then goes unlinted:
	@# 28 models did, unseen, while its stand-in for adapter.dispatch lacked a macro
	@log=$$(mktemp); $(BIN)/sqlfluff lint models --processes 2 > $$log 2>&1; status=$$?; cat $$log; \
	  if grep -q "Unable to lint" $$log; then echo "lint: sqlfluff could not template the models above (tests/sqlfluff_dbt/adapter.py)"; status=1; fi; \
	  rm -f $$log; exit $$status

# Two workers (pytest-xdist), each file's tests on one worker (its module fixtures built once):
# most tests wait on a child process (dbt, fio, a killed ingest), so two share 2 cores well.
# PYTEST_WORKERS=0 runs them in this process.
PYTEST_WORKERS ?= 2
test-python: $(STAMPS)/python
	$(BIN)/python -m pytest -q -m "not spark" --durations=15 -n $(PYTEST_WORKERS) --dist loadfile

# The bundled data through the whole pipeline: ingest, dbt build (models, data tests), site
# build, then the dbt unit tests (a build leaves them out: pipeline.build_warehouse). Any
# ingest error fails the run: bundled data must read cleanly.
test-dbt: deps
	$(BIN)/iopscope build
	$(BIN)/iopscope dbt test --select test_type:unit

test-js: $(STAMPS)/node
	node --test --test-reporter=spec tests/js/

# a browser test that hangs fails after 5 minutes instead of holding CI until its own limit
test-browser: deps
	node --test --test-reporter=spec --test-timeout=300000 tests/browser/

# ---------------------------------------------------------------- spark (docs/scale-out.md)
# pyspark and dbt-spark (~630 MB) in their own venv, so the default install stays small; Spark
# needs Java 17 (openjdk-17-jre-headless, installed by system-deps). `iopscope build --engine
# spark` and `iopscope dbt --target spark` find this venv themselves.
SPARK_VENV := .venv-spark

$(STAMPS)/spark: requirements-spark.lock pyproject.toml | $(STAMPS)
	@test -x $(SPARK_VENV)/bin/python || $(PYTHON) -m venv $(SPARK_VENV)
	$(SPARK_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-spark.lock
	$(SPARK_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@touch $@

spark-deps: $(STAMPS)/spark

# requirements-spark.txt (what we ask for) -> requirements-spark.lock (every package, exact).
spark-lock: $(STAMPS)/spark
	$(SPARK_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-spark.txt -e .
	{ sed -n '1,2p' requirements-spark.lock; $(SPARK_VENV)/bin/python -m pip freeze --exclude-editable; } > requirements-spark.lock.new
	mv requirements-spark.lock.new requirements-spark.lock

# The bundled data built on DuckDB and on Spark local[2], every mart compared (tests/python/test_spark_marts.py).
test-spark: $(STAMPS)/python $(STAMPS)/spark
	$(BIN)/python -m pytest -q -m spark

# ---------------------------------------------------------------- upkeep

lock: $(STAMPS)/python
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip compile pyproject.toml --extra test --generate-hashes --python-version 3.11 -q -o requirements.lock

# Performance benchmark (docs/performance.md). Work files under /tmp; override with
# BENCH_ARGS, e.g. make bench BENCH_ARGS="--scales 1x,100,1000,10000 --clean".
.PHONY: bench
bench: deps
	$(BIN)/python bench/run.py $(BENCH_ARGS)

clean:
	rm -rf dist data/lake data/warehouse target logs src/.observablehq/cache tests/artifacts

distclean: clean
	rm -rf $(VENV) $(SPARK_VENV) node_modules $(STAMPS)
