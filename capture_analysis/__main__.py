"""``python -m capture_analysis`` is ``boxcheck``."""

import sys

from .cli import main

sys.exit(main())
