"""One module per subcommand of ``boxcheck`` (``rule``, ``graph``, ``verify``, ``lsp``) and per generated document
(``rules_doc`` for docs/rules.md, ``architecture`` for docs/architecture.md's package map)."""
