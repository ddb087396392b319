"""``boxcheck lsp``: the language server.

The modules follow one change through the server: ``documents`` applies the
client's edits to the text and records them for tree-sitter, ``incremental``
re-parses with those edits and analyzes on a worker thread, ``scheduler``
debounces and makes sure an older analysis never replaces a newer one,
``hover`` and ``actions`` answer requests from the latest analysis, and
``server`` wires them to pygls.
"""
