# Embedding Space Math: set-up, build, serve and test.
#   make serve   install what is missing, build, serve on http://127.0.0.1:8000
#   make test    install what is missing, run the whole suite (strict build included)
#   make build   install what is missing, write the site to site/ (--strict)
#   make pdf     the whole book as book.pdf
#   make zensical-canary   try the site on Zensical in .zensical-venv/, print a report
# The virtualenv (.venv) and node_modules are made only when missing or older than
# pyproject.toml / package-lock.json.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY_OK  := $(VENV)/.installed
NODE_OK := node_modules/.package-lock.json
export NO_MKDOCS_2_WARNING := 1
# Dates in the built site (the sitemap's) come from the last commit: two builds are identical.
export SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

.PHONY: serve build test pdf zensical-canary deps clean check-tools

serve: deps
	$(BIN)/mkdocs serve --strict -a 127.0.0.1:8000

build: deps
	$(BIN)/mkdocs build --strict --clean -d site

test: deps
	$(BIN)/python -m pytest

# The whole book as one PDF (outline, page numbers): mkdocs-print-site-plugin + Chromium.
pdf: deps
	$(BIN)/python tests/tools/pdf.py -o book.pdf

# Build with the current Zensical release in its own venv and report what works (not in `make test`).
zensical-canary: check-tools
	$(PYTHON) tests/tools/zensical_canary.py

deps: $(PY_OK) $(NODE_OK)

check-tools:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null || { \
	  echo "error: Python 3.11 or newer is needed as '$(PYTHON)' (found: $$($(PYTHON) --version 2>&1 || echo none))."; \
	  echo "       Install it, or run: make PYTHON=/path/to/python3.11 ..."; exit 1; }
	@command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { \
	  echo "error: Node.js and npm are needed to render the math at build time (KaTeX)."; \
	  echo "       Install them (e.g. 'apt-get install nodejs npm') and run make again."; exit 1; }

$(PY_OK): pyproject.toml | check-tools
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

$(NODE_OK): package.json package-lock.json | check-tools
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

clean:
	rm -rf site .pytest_cache book.pdf zensical-site
