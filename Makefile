# docfact: install, test, reproduce.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
CONFIG ?= configs/gnmf_tdt2.yaml
JOBS ?= -1
# A local mirror of the public data files, tried before the public addresses (see README).
export DOCFACT_MIRROR ?= $(wildcard $(abspath ../shared/data))

.PHONY: install run test reproduce lint bench

install:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'

run:
	$(BIN)/docfact run $(CONFIG) --jobs $(JOBS)

test:
	$(BIN)/python -m pytest -q

lint:
	$(BIN)/ruff check docfact tests

reproduce:
	@for c in configs/*.yaml; do echo "== $$c"; $(BIN)/docfact run $$c --jobs $(JOBS) --quiet || exit $$?; done
	$(BIN)/docfact report

bench:
	$(BIN)/python bench/bench.py --out bench/RESULTS.md --readme README.md
	$(BIN)/python bench/scaling.py --out bench/SCALING.md --readme README.md
