"""How long the fuzzers run: the quick profile of the test suite, or the long one of ``make fuzz``.

Environment:
``FUZZ_EXAMPLES``  programs (or mutated files) to check; the quick profile's is small.
``FUZZ_SECONDS``   keep going, in rounds of ``ROUND`` examples, until this many seconds passed
                   (or, if ``FUZZ_EXAMPLES`` is set too, until that many examples ran).
``CI``             derandomize: CI checks the same examples on every run.

The long profile runs hypothesis in rounds with a fresh seed each, because
hypothesis itself has no time budget; every round shrinks its own failure.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import HealthCheck, settings
from hypothesis import seed as with_seed

ROUND = 500


@dataclass(frozen=True, slots=True)
class Budget:
    examples: int | None
    seconds: float | None
    derandomize: bool

    @property
    def long(self) -> bool:
        return self.seconds is not None or (self.examples or 0) > ROUND

    def settings(self, examples: int) -> settings:
        return settings(
            max_examples=examples,
            deadline=None,
            derandomize=self.derandomize,
            database=None if self.derandomize else settings.default.database,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
            print_blob=True,
        )

    def run(self, make_test: Callable[[settings], Callable[[], None]]) -> int:
        """Run ``make_test(settings)()`` until the budget is spent; return how many rounds ran.

        ``make_test`` builds a fresh ``@given`` test for the settings it is given.
        """
        if not self.long:
            assert self.examples is not None
            make_test(self.settings(self.examples))()
            return 1
        started = time.monotonic()
        left = self.examples
        rounds = 0
        while True:
            size = ROUND if left is None else min(ROUND, left)
            test = make_test(self.settings(size))
            with_seed(random.getrandbits(64))(test)()
            rounds += 1
            if left is not None:
                left -= size
                if left <= 0:
                    return rounds
            if self.seconds is not None and time.monotonic() - started >= self.seconds:
                return rounds


def budget(quick_examples: int) -> Budget:
    given_examples = os.environ.get("FUZZ_EXAMPLES")
    given_seconds = os.environ.get("FUZZ_SECONDS")
    seconds = float(given_seconds) if given_seconds else None
    examples = int(given_examples) if given_examples else (None if seconds is not None else quick_examples)
    ci = os.environ.get("CI", "").lower() not in ("", "0", "false")
    return Budget(examples, seconds, derandomize=ci and seconds is None and (examples or 0) <= ROUND)
