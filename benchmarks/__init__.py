"""Benchmarks and corpus runs: ``python -m benchmarks.corpus_run`` and friends (see docs/performance.md)."""
