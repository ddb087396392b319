"""Setuptools reads the project from pyproject.toml; this file only puts the documentation into the package.

The command line and the rules name pages of ``docs/`` (``boxcheck lsp --help``: docs/lsp.md; a rule's text:
docs/parsing.md), and ``--format json`` is described by docs/schema/boxcheck-1.json: a wheel carries the whole
folder as ``capture_analysis/docs/``, beside the rules page generated there, so that what the command names is
installed with it.  An editable install reads the checkout, where ``docs/`` is.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DOCS = Path(__file__).resolve().parent / "docs"


class BuildWithDocs(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        shutil.copytree(DOCS, Path(self.build_lib) / "capture_analysis" / "docs", dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithDocs})
