"""Whether a file shows a container's callback methods replaced (DESIGN 2.2.1, ``receivers``).

``xs.forEach(f)`` runs and drops ``f`` only while ``forEach`` is the
builtin's.  A declared type says that ``xs`` is an array, not that its
``forEach`` is ``Array.prototype.forEach``: an own property may shadow it
and a file may patch the prototype, both well typed.  What the file shows of
that is not trusted.  No receiver of the file is, when it assigns a member
named like one of those methods (or ``__proto__``) of anything, through any
alias (``ys.forEach = keep``, ``o["map"] = g``; but not ``this.find = f``,
a class's own field, which no array's code writes); assigns to a member of
``Array``, ``Map``, ``Set`` or ``Object`` (``Array.prototype.forEach = ...``);
defines such a member, or one under a key it computes, with
``Object.defineProperty``/``Reflect.set`` and the like; or sets a prototype
(``Object.setPrototypeOf`` of anything but ``this``, which an ``Error``
subclass sets).  One receiver is not, when the file assigns to
it under a computed key (``xs[k] = v``) while no declared type says what the
key may be (it is known by construction, or read through a cast), or hands
it to ``Object.assign`` first.  Handing a container to other code is trusted
otherwise, as a declared parameter's is: code that patches it elsewhere in
the program is assumed not to exist, as a TypeScript compiler assumes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..model import Binding, Reference

#: the members whose replacement changes what ``receivers`` trusts.
METHODS = (rb"forEach|map|filter|some|every|find|findIndex|findLast|findLastIndex|flatMap|reduce|reduceRight|sort"
           rb"|toSorted|__proto__")
#: an assignment operator: ``=``, ``+=``, ``??=``..., not ``==`` nor ``=>``.
ASSIGNMENT = rb"\s*(?:\*\*|<<|>>>?|&&|\|\||\?\?|[-+*/%&|^])?=(?![=>])"
#: ``.forEach =``, ``["forEach"] =``, ``defineProperty(o, "forEach"``, a computed key given to one, a prototype set.
PATCHES = re.compile(
    rb"(?<!\bthis)(?:\?\.|\.)\s*(?:" + METHODS + rb")\b" + ASSIGNMENT
    + rb"|\[\s*[\"'`](?:" + METHODS + rb")[\"'`]\s*\]" + ASSIGNMENT
    + rb"|\b(?:(?:Object|Reflect)\s*\.\s*defineProperty|Reflect\s*\.\s*set)\s*\(\s*[^,()]+,\s*"
    + rb"(?:[\"'`](?:" + METHODS + rb")[\"'`]|[^\"'`\s])"
    + rb"|\bdefineProperties\s*\(|\bsetPrototypeOf\s*\(\s*(?!this\b)")
#: the globals whose methods ``receivers`` trusts: a member of one assigned patches them all.
GLOBALS = frozenset({"Array", "Map", "Set", "Object"})
#: what may stand between a name and a member of it: ``)`` of ``(xs as any)``, ``!``, ``as T``, blanks.
BETWEEN = re.compile(rb"(?:\s|\)|!|\bas\s+[\w$.]+(?:<[^>]*>)?(?:\[\])*)*")
MEMBER = re.compile(rb"\??\.\s*[\w$]+")
ASSIGNS = re.compile(ASSIGNMENT)


def file_patches(data: bytes, references: Sequence[Reference]) -> bool:
    """Does the file show a container's callback methods replaced, on any container?"""
    return PATCHES.search(data) is not None or any(
        ref.binding is None and ref.name in GLOBALS and written(data, ref.end)[0]
        for ref in references if ref.name in GLOBALS)


def patched(binding: Binding, data: bytes, typed: bool) -> bool:
    """Is ``binding``'s container given members the file does not name: under a computed key, unless its declared
    type (``typed``) says what keys it has and no cast stands between; or handed to ``Object.assign``?"""
    name = binding.name.encode()
    assign = re.compile(rb"\bObject\s*\.\s*assign\s*\(\s*" + re.escape(name) + rb"\b")
    starts = {ref.start for ref in binding.references}
    if any(found.end() - len(name) in starts for found in assign.finditer(data)):
        return True
    for ref in binding.references:
        if ref.is_read and not ref.is_declaration_write:
            member, computed, cast = written(data, ref.end)
            if member and computed and (cast or not typed):
                return True
    return False


def written(data: bytes, end: int) -> tuple[bool, bool, bool]:
    """For the name that ends at ``end``: is a member of it assigned (``x.a = v``, ``x[k].b += v``), under a
    computed key first, and through a cast (``(x as any).a = v``)?"""
    at = BETWEEN.match(data, end)
    index = at.end() if at is not None else end
    cast = index > end and data.find(b"as", end, index) >= 0
    members = 0
    computed = False
    while True:
        member = MEMBER.match(data, index)
        if member is not None:
            index = member.end()
        elif data[index:index + 1] == b"[":
            computed = computed or members == 0
            depth = 0
            while index < len(data):
                depth += {91: 1, 93: -1}.get(data[index], 0)
                index += 1
                if depth == 0:
                    break
        else:
            break
        members += 1
    return members > 0 and ASSIGNS.match(data, index) is not None, computed, cast
