"""Zero crashes on the pinned real-world corpus (issue 9).

The corpus (70 npm packages, 10,096 files, about 100 MB) is never committed:
this test uses ``$BOXCHECK_CORPUS``, ``.corpus/`` or ``../corpus`` when one
holds it, else fetches it with ``../shared/corpus/fetch.sh .corpus`` (about
two minutes; needs npm and the npm registry), and skips with the reason when
it cannot.
"""

from __future__ import annotations

import pytest

from benchmarks.corpus_run import file_list, run


@pytest.mark.corpus
def test_no_crash_and_no_internal_error_on_the_whole_corpus(corpus):
    names = file_list(corpus, "all")
    tally, seconds, peak_kb = run(corpus, names, jobs=2)
    print(f"\ncorpus: {tally.files} files, {tally.bytes / 1e6:.1f} MB in {seconds:.0f} s "
          f"({tally.bytes / 1e6 / seconds:.2f} MB/s, 2 jobs), peak RSS {peak_kb / 1024:.0f} MB; "
          f"{tally.functions} functions, {tally.conservative_functions} conservative (syntax errors), "
          f"{tally.files_with_type_only_gaps} files with type-only grammar gaps")
    assert tally.crashes == []
    assert tally.files + tally.skipped == len(names)
    assert tally.files >= 10_000
