# The two set-up commands of the README: `make demo` and `make test`.
PYTHON ?= python3
BOXCHECK = $(PYTHON) -m capture_analysis

.PHONY: install demo test examples rules architecture golden graphs fuzz bench

install:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -e ".[test,lsp]"

# Runs boxcheck on the bundled examples. Exit 1 only means "findings were reported".
demo: install
	$(BOXCHECK) examples/; status=$$?; test $$status -le 1

test: install
	$(PYTHON) -m pytest -q

# Regenerate the committed JSON output of the examples after an intended change.
examples:
	for f in examples/*.ts; do $(BOXCHECK) --format json "$$f" > "$${f%.ts}.json"; test $$? -le 1 || exit 1; done

# Regenerate docs/rules.md from the rule catalogue (a test fails when it is stale).
rules:
	$(PYTHON) -m capture_analysis.commands.rules_doc --write

# Redraw docs/img/architecture.svg from the package's imports (needs Graphviz `dot`; a test fails when it is stale).
architecture:
	$(PYTHON) -m capture_analysis.commands.architecture --write

# Rewrite tests/golden/ (lsp, sarif, github, text outputs of the examples and tests/unicode/) after an intended change.
golden:
	BOXCHECK_UPDATE_GOLDEN=1 $(PYTHON) -m pytest -q tests/test_format_lsp.py tests/test_format_sarif.py \
		tests/test_format_github.py tests/test_format_text_and_json.py

# Redraw the README's diagrams (needs Graphviz `dot`; a test fails when they are stale).
graphs:
	mkdir -p docs/img
	$(BOXCHECK) graph examples/factories.ts --function makeTally -o docs/img/make-tally.svg
	$(BOXCHECK) graph examples/loops.ts --function counterPerIteration -o docs/img/counter-per-iteration.svg
	$(BOXCHECK) graph examples/factories.ts --function makeTally --compare legacy,optimal,v8 -o docs/img/compare-tally.svg

# The long fuzzing profile (docs/fuzzing.md): `make fuzz FUZZ_EXAMPLES=20000` or `make fuzz FUZZ_SECONDS=1200`.
FUZZ_EXAMPLES ?=
FUZZ_SECONDS ?=
fuzz:
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) FUZZ_SECONDS=$(or $(FUZZ_SECONDS),$(if $(FUZZ_EXAMPLES),,600)) \
		nice $(PYTHON) -m pytest -q -s tests/test_fuzz_soundness.py tests/test_fuzz_mutations.py \
		-k "random_programs or mutated_sources"

# The benchmark harness of docs/performance.md: tree-sitter's parse floor, boxcheck on one and two processes and
# typescript-eslint (pinned in benchmarks/package-lock.json) side by side, scaling from 10 KB to 10 MB, the cache.
# Needs the corpus: bash ../shared/corpus/fetch.sh ../corpus. Takes about 25 minutes on two cores.
bench:
	cd benchmarks && npm ci --no-audit --no-fund --loglevel=error
	nice $(PYTHON) -m benchmarks all
