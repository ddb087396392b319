"""boxcheck: decide how a compiler must store each binding that a closure captures.

The pipeline is parse (``parsing``) -> scope builder (``binder``) -> escape
analysis (``escape``) -> storage decision (``decide``) -> allocation report
(``allocations``) -> reporters (``report``). ``analyze.analyze_source`` runs it.
"""

__version__ = "0.1.0"
