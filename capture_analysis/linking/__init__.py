"""Callees in other files of the run (DESIGN 2.2.1): a call of an imported function reads that function's summary.

A file's analysis gives, beside its record, its ``interface.Interface``:
each exported function's parameters, each either escaping or escaping only
if some imported function's parameter does (a symbolic summary, made from
the file alone, so that it is computed once, in whichever process analyzes
the file, and cached with its record), and the imported parameters that
its own closures are handed to.  ``project.Project`` resolves those against
the interfaces of the run's other files (``resolve``: relative specifiers,
and bare ones that the importer's ``tsconfig.json`` maps, ``tsconfig``), and
``batch.linked`` analyzes again, with the resolved summaries, the few files
whose closures are handed to imported parameters that do not escape.
"""
