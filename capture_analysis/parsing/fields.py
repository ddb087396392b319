"""The grammars' field ids, looked up once per grammar.

``child_by_field_id`` costs half of ``child_by_field_name``, which compares
the name with the grammar's field names on every call, and the binder and
the control-flow builder make hundreds of thousands of them; the ids differ
between the TypeScript and TSX grammars.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from functools import cache

import tree_sitter


@dataclass(frozen=True, slots=True)
class Fields:
    """The ids of the fields the binder and the control-flow builder read, in one grammar."""

    alias: int
    alternative: int
    argument: int
    arguments: int
    body: int
    condition: int
    consequence: int
    constructor: int
    finalizer: int
    function: int
    handler: int
    increment: int
    index: int
    initializer: int
    key: int
    kind: int
    label: int
    left: int
    name: int
    object: int
    operator: int
    parameter: int
    parameters: int
    pattern: int
    property: int
    right: int
    source: int
    type: int
    value: int


#: the fields they read.
FIELDS = tuple(f.name for f in dataclass_fields(Fields))


@cache
def field_ids(language: tree_sitter.Language) -> Fields:
    """The ids of ``FIELDS`` in ``language``: they differ between the TypeScript and TSX grammars.

    ``child_by_field_id`` costs half of ``child_by_field_name``, which compares the name with
    the grammar's field names on every call, and the handlers make hundreds of thousands of them.
    """
    ids: dict[str, int] = {}
    missing = []
    for name in FIELDS:
        field_id = language.field_id_for_name(name)
        if field_id is None:
            missing.append(name)
        else:
            ids[name] = field_id
    if missing:
        raise ValueError(f"the grammar has no field named {', '.join(sorted(missing))}")
    return Fields(**ids)
