"""``boxcheck lsp``: the language server.

The modules follow one change through the server: ``documents`` applies the
client's edits to the text and records them for tree-sitter, ``incremental``
re-parses with those edits (``tree_text`` hands tree-sitter the text) and
analyzes on a worker thread, ``scheduler`` debounces and makes sure an older
analysis never replaces a newer one, ``memory`` frees each replaced analysis
at once, ``hover`` and ``actions`` answer requests from the latest analysis,
and ``server`` wires them to pygls.
"""
