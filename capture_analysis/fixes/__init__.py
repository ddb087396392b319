"""Fixes: edits that resolve a finding or state what the analysis proves, offered only where they are certain.

Each is computed from a file's analysis and its tree, as byte offsets into
the analyzed text (``edits``).  Two front ends apply them: the language
server offers each as a code action (``lsp/actions.py`` converts the offsets
to the client's encoding), and ``boxcheck --fix`` applies them to the files
of a run (``batch/fixing.py``).  Neither front end imports the other, so the
command line needs no ``lsp`` extra.

- ``declare_const``: a ``let`` that is never reassigned becomes ``const`` (a
  rewrite: no finding and no decision changes);
- ``own_block``: the binding of a BX107 finding and the code that uses it go
  into a block of their own, out of the context an escaping closure holds.

Applying either never changes what the program does.  The suppression
comments the language server also offers are its own (``lsp/suppress.py``):
``--fix`` never silences a finding.
"""

from .declare_const import declare_const_fixes
from .edits import ActionKind, Fix, Replacement, applied, compatible
from .own_block import own_block_fix, own_block_fixes

__all__ = ["ActionKind", "Fix", "Replacement", "applied", "compatible", "declare_const_fixes", "own_block_fix",
           "own_block_fixes"]
