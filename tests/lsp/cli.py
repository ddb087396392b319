"""What the command line says about a file, to compare the server's diagnostics with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from .client import ROOT, TIMEOUT


def cli_diagnostics(path: Path, *options: str) -> list[dict[str, Any]]:
    """The ``diagnostics`` of ``boxcheck --format lsp PATH``, run from the file's folder (so its config applies)."""
    done = subprocess.run([sys.executable, "-m", "capture_analysis", "--format", "lsp", *options, str(path)],
                          cwd=path.parent, capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode in (0, 1), done.stderr
    (params,) = json.loads(done.stdout)
    assert params["uri"] == path.as_uri()
    return params["diagnostics"]
