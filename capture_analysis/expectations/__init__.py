"""Inline expectations of fixtures (docs/expectations.md): what an annotation says (``annotations``), its language
(``grammar``), finding them in a file (``reader``), checking them against the analysis (``check``) and rewriting them
from it (``update``)."""
