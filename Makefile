# The two set-up commands of the README: `make demo` and `make test` (and `make lint`, which CI runs too).
#
# `make demo` installs boxcheck and what it needs to run (the `dependencies` of pyproject.toml), no more; the
# extras (`test`, `lsp`, `cluster`: pytest, ruff, mypy, pygls, dask, ...) come with `make test`, `make lint` and
# the other targets that run them, or with `make extras`. They are installed from pyproject.toml's lists, without
# installing boxcheck again: a compiled install takes minutes, and CI runs `make demo` then `make test`.
#
# Both work in a project virtual environment, .venv/ (git-ignored), made by $(PYTHON): a distribution's own Python
# refuses `pip install` outside one (PEP 668, Debian 12, Ubuntu 24.04). It is made once, and boxcheck is installed
# into it (editable) again only when what it is built from changes, so running either command twice installs
# nothing.
#
# The install compiles the analysis core with mypyc (setup.py) where a C compiler and the Python headers are, in
# place: the extension modules sit beside their sources. A compiled module hides later edits of its source, so a
# change to any source builds it again (minutes); to develop, install pure Python instead: `make test PURE=1` (or
# BOXCHECK_PURE=1 in the environment); setup.py removes the extension modules a compiled install left.
PYTHON ?= python3
VENV ?= .venv
VENV_PYTHON = $(VENV)/bin/python
BOXCHECK = $(VENV_PYTHON) -m capture_analysis
PURE ?= $(filter-out 0,$(BOXCHECK_PURE))
BUILD = $(if $(PURE),pure,compiled)
#: touched after a successful install of this kind; older than what it is built from means "install again".
INSTALLED = $(VENV)/.installed-$(BUILD)
#: the extras' requirements, written after they were installed (the stamp of `make extras`).
EXTRAS_INSTALLED = $(VENV)/extras-requirements.txt
EXTRAS = test lsp cluster
#: prints the requirements of the extras named as its arguments, one a line, from pyproject.toml.
REQUIREMENTS_OF = import importlib, sys; \
	toml = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "tomli"); \
	extras = toml.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]; \
	print("\n".join(requirement for name in sys.argv[1:] for requirement in extras[name]))
#: what a compiled install is built from: every source, since each may be compiled (setup.py's COMPILED).
SOURCES = $(wildcard capture_analysis/*.py capture_analysis/*/*.py)
NOT_COMPILED = boxcheck: installed as pure Python, which takes about a third more time: no C compiler or no Python \
	headers to compile its core (Debian, Ubuntu: sudo apt-get install gcc python3-dev; then make compiled)
COMPILING = boxcheck: installing into $(VENV)/ and compiling its analysis core with mypyc, which takes a few minutes \
	(PURE=1 installs pure Python at once)

.PHONY: install extras compiled demo test lint examples rules architecture golden graphs fuzz bench

install: $(INSTALLED)

# The test, lsp and cluster extras: what `make test` and `make lint` run, `boxcheck lsp` and `--scheduler` need.
extras: install $(EXTRAS_INSTALLED)

# The compiled core again, whatever is installed: after installing the C compiler that the first install lacked.
compiled:
	rm -f $(VENV)/.installed-pure $(VENV)/.installed-compiled
	$(MAKE) -f $(firstword $(MAKEFILE_LIST)) install PURE= BOXCHECK_PURE=

# Debian and Ubuntu ship `venv`'s ensurepip in a package of its own (python3-venv); without it `python3 -m venv`
# leaves a .venv/ without pip behind. So ask first, and stop with one line that says what to do.
NO_PYTHON = no $(PYTHON) to create $(VENV)/ with: install Python 3.10 to 3.13, or run make PYTHON=/path/to/python3
NO_VENV = $(PYTHON) cannot create $(VENV)/, its venv module is missing: on Debian or Ubuntu, sudo apt-get install python3-venv

$(VENV_PYTHON):
	$(if $(shell command -v $(PYTHON)),,$(error $(NO_PYTHON)))
	$(if $(shell $(PYTHON) -c 'import ensurepip, venv' 2>/dev/null && echo yes),,$(error $(NO_VENV)))
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); exit 1; }

$(INSTALLED): pyproject.toml $(wildcard setup.py) $(if $(PURE),,$(SOURCES)) | $(VENV_PYTHON)
	$(if $(PURE),,@echo "$(COMPILING)")
	$(if $(PURE),BOXCHECK_PURE=1 )$(VENV_PYTHON) -m pip install --quiet --disable-pip-version-check -e .
	rm -f $(VENV)/.installed-pure $(VENV)/.installed-compiled
	touch $@
	$(if $(PURE),,@$(BOXCHECK) --version | grep -q compiled || echo "$(NOT_COMPILED)" >&2)

# Only the extras' own requirements: `pip install -e ".[test]"` would build boxcheck again (minutes, compiled).
$(EXTRAS_INSTALLED): pyproject.toml | $(INSTALLED)
	$(VENV_PYTHON) -c '$(REQUIREMENTS_OF)' $(EXTRAS) > $@.new
	$(VENV_PYTHON) -m pip install --quiet --disable-pip-version-check -r $@.new
	mv $@.new $@

# Runs boxcheck on the bundled examples. Exit 1 only means "findings were reported".
demo: install
	$(BOXCHECK) examples/; status=$$?; test $$status -le 1

test: extras
	$(VENV_PYTHON) -m pytest -q

# ruff's lint rules and mypy, both configured in pyproject.toml (mypy checks the package: `files` there).
lint: extras
	$(VENV_PYTHON) -m ruff check capture_analysis tests benchmarks .ci setup.py
	$(VENV_PYTHON) -m mypy

# Regenerate the committed JSON output of the examples after an intended change.
examples: install
	for f in examples/*.ts; do $(BOXCHECK) --format json "$$f" > "$${f%.ts}.json"; test $$? -le 1 || exit 1; done

# Regenerate docs/rules.md from the rule catalogue (a test fails when it is stale).
rules: install
	$(VENV_PYTHON) -m capture_analysis.commands.rules_doc --write

# Redraw docs/img/architecture.svg from the package's imports (needs Graphviz `dot`; a test fails when it is stale).
architecture: install
	$(VENV_PYTHON) -m capture_analysis.commands.architecture --write

# Rewrite tests/golden/ (lsp, sarif, github, text and --explain outputs of the examples and tests/unicode/) after an
# intended change.
golden: extras
	BOXCHECK_UPDATE_GOLDEN=1 $(VENV_PYTHON) -m pytest -q tests/test_format_lsp.py tests/test_format_sarif.py \
		tests/test_format_github.py tests/test_format_text_and_json.py tests/test_explain.py

# Redraw the README's diagrams (needs Graphviz `dot`; a test fails when they are stale).
graphs: install
	mkdir -p docs/img
	$(BOXCHECK) graph examples/factories.ts --function makeTally -o docs/img/make-tally.svg
	$(BOXCHECK) graph examples/loops.ts --function counterPerIteration -o docs/img/counter-per-iteration.svg
	$(BOXCHECK) graph examples/factories.ts --function makeTally --compare legacy,optimal,v8 -o docs/img/compare-tally.svg

# The long fuzzing profile (docs/fuzzing.md): `make fuzz FUZZ_EXAMPLES=20000` or `make fuzz FUZZ_SECONDS=1200`.
FUZZ_EXAMPLES ?=
FUZZ_SECONDS ?=
fuzz: extras
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) FUZZ_SECONDS=$(or $(FUZZ_SECONDS),$(if $(FUZZ_EXAMPLES),,600)) \
		nice $(VENV_PYTHON) -m pytest -q -s tests/test_fuzz_soundness.py tests/test_fuzz_mutations.py \
		-k "random_programs or mutated_sources"

# The benchmark harness of docs/performance.md: tree-sitter's parse floor, boxcheck on one and two processes and
# typescript-eslint (pinned in benchmarks/package-lock.json) side by side, scaling from 10 KB to 10 MB, the cache.
# Needs the corpus: bash ../shared/corpus/fetch.sh ../corpus. Takes about 25 minutes on two cores.
bench: extras
	cd benchmarks && npm ci --no-audit --no-fund --loglevel=error
	nice $(VENV_PYTHON) -m benchmarks all
