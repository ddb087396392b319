"""The command line's ``--counts``, ``--hot-share`` and ``--hot-min``, kept out of ``cli.py``.

A ``--counts`` run holds its files' outcomes until the last one is analyzed (BX109 needs the run's total),
then hands them on in input order, weighted, as a run without it hands them on as they come.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Iterable, Iterator

from ..batch.tasks import Analyzed, Outcome
from ..config import Config
from ..report.file_record import FileRecord
from ..rules import Severity
from .run import CountsRun, Hot


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--counts", metavar="PATH",
                        help="weight every allocation by a measured run: V8's precise coverage, a NODE_V8_COVERAGE "
                             "directory, one of its files or a Profiler.takePreciseCoverage result (run node "
                             "with --enable-source-maps for compiled TypeScript, --no-opt for exact counts)")
    parser.add_argument("--hot-share", type=percent, default=1.0, metavar="PERCENT",
                        help="with --counts: a function that made at least this share of the run's allocations "
                             "is a BX109 warning (default: 1)")
    parser.add_argument("--hot-min", type=count, default=1000, metavar="N",
                        help="with --counts: ... and at least this many (default: 1000)")


def percent(text: str) -> float:
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        value = -1.0
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"expected a percentage from 0 to 100, got {text!r}")
    return value


def count(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a number (0 or more), got {text!r}")
    return int(text)


def of(args: argparse.Namespace) -> Measuring | None:
    """The run's ``--counts``, read at once so that a bad path fails before anything is analyzed."""
    if args.counts is None:
        return None
    return Measuring(CountsRun(args.counts, args.compare, args.policy, Hot(args.hot_share, args.hot_min)))


@dataclasses.dataclass(slots=True)
class Measuring:
    run: CountsRun

    def weighed(self, outcomes: Iterable[Outcome], settings: Config,
                advance: Callable[[], None]) -> Iterator[Outcome]:
        held = []
        for outcome in outcomes:
            advance()
            if isinstance(outcome, Analyzed):
                self.run.weigh(outcome.record)
            held.append(outcome)
        records: dict[str, FileRecord] = {o.path: o.record for o in held if isinstance(o, Analyzed)}
        added = self.run.hot_findings(records, settings.severities_for)
        for outcome in held:
            extra: list[Severity] = added.get(outcome.path, []) if isinstance(outcome, Analyzed) else []
            if extra and isinstance(outcome, Analyzed):
                counts = dataclasses.replace(outcome.counts, levels=outcome.counts.levels + tuple(extra))
                outcome = dataclasses.replace(outcome, counts=counts)
            yield outcome
