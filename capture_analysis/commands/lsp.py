"""``boxcheck lsp``: start the language server on standard input and output.

The server needs pygls and lsprotocol (the ``lsp`` extra); without them the
command says how to install them instead of failing with a traceback.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

LEVELS = ("debug", "info", "warning", "error")
#: how to add the extra to an installed boxcheck, from a wheel or a git URL alike (pip installs only what the
#: extra adds); `-e '.[lsp]'` would work in a checkout only.
LSP_EXTRA = "`pip install 'boxcheck[lsp]'`"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boxcheck lsp",
        description="Run the boxcheck language server over stdio: diagnostics as you type, hover on a binding "
                    "(storage, captures, evidence, allocations), and code actions. See docs/lsp.md.")
    parser.add_argument("--stdio", action="store_true",
                        help="talk over standard input/output (the default and only transport; accepted because "
                             "editors pass it)")
    parser.add_argument("--log-file", metavar="PATH", help="write the server's log here instead of standard error")
    parser.add_argument("--log-level", choices=LEVELS, default="warning", help="log verbosity (default: warning)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        from ..lsp import memory
        from ..lsp.server import build
    except ImportError as error:
        print(f"boxcheck lsp: the language server needs pygls and lsprotocol ({error}); install them with "
              f"{LSP_EXTRA} (in a checkout of boxcheck, `make test` installs every extra)", file=sys.stderr)
        return 2
    handler = logging.FileHandler(args.log_file, encoding="utf-8") if args.log_file else logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=args.log_level.upper(), handlers=[handler], force=True)
    if args.log_level != "debug":
        # pygls logs every message body at INFO: only ``debug`` asks for that.
        logging.getLogger("pygls").setLevel(max(logging.WARNING, logging.getLogger().level))
    server = build()
    memory.tune()
    server.start_io()
    # LSP: exit code 0 only after a ``shutdown`` request (an ``exit`` without one, or a client that
    # went away, is 1).
    return 0 if server.shut_down else 1
