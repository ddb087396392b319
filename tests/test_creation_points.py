"""``creation.declarations_of``: the points where each function declaration may be first read, and what reads it
there, are those of the plain fixpoint that passes every point along every read each round until nothing is
added (the rule of docs/design.md, section 2.1.1).

The analysis passes on only the points a reader gained since it last did (a file of thousands of declarations
that call each other, as TypeScript's own compiler is, took seconds with every point passed every round); the
programs here are made so that the points flow through chains and cycles of declarations over several rounds.
"""

from __future__ import annotations

import random

import pytest

from capture_analysis.analyze import analyze_text
from capture_analysis.creation import Created, declarations_of, stays_at_entry
from capture_analysis.model import Closure, ClosureKind, Reference


def plain_fixpoint(activation: Closure) -> dict[Closure, Created]:
    """The rule as written: every round, each reader passes every point it has to each declaration it reads."""
    declarations = [c for c in activation.children if c.kind is ClosureKind.FUNCTION_DECLARATION]
    reads: dict[Closure, dict[int, tuple[Reference | None, Closure | None]]] = {}
    read_by: dict[Closure, list[tuple[Closure, Reference]]] = {}
    fixed = {d for d in declarations if stays_at_entry(activation, d)}

    def add(found: dict[int, tuple[Reference | None, Closure | None]], offset: int, ref: Reference | None,
            through: Closure | None) -> bool:
        if offset in found:
            return False
        found[offset] = (ref, through)
        return True

    for declaration in declarations:
        if declaration in fixed:
            continue
        found = reads[declaration] = {}
        binding = declaration.binding
        assert binding is not None
        if binding.scope is not activation.scope:
            add(found, declaration.start, None, None)
        for ref in binding.references:
            if ref.closure is activation:
                add(found, ref.start, ref, None)
                continue
            reader = activation.child_containing(ref.closure)
            if reader is None or reader is declaration:
                continue
            if reader.kind is ClosureKind.FUNCTION_DECLARATION:
                read_by.setdefault(reader, []).append((declaration, ref))
            else:
                add(found, reader.creation_offset, ref, reader)
    changed = True
    while changed:
        changed = False
        for reader, targets in read_by.items():
            for declaration, ref in targets:
                if declaration not in reads:
                    continue
                if reader in fixed:
                    changed |= add(reads[declaration], reader.creation_offset, ref, reader)
                elif reader in reads:
                    for offset in sorted(reads[reader]):
                        changed |= add(reads[declaration], offset, ref, reader)
    return {d: Created(tuple(sorted(reads[d])), reads[d]) if reads.get(d)
            else Created((d.creation_offset,)) for d in declarations}


def program(seed: int) -> str:
    """A function of declarations that call one another (chains, cycles, a declaration read twice by one
    reader), read by arrows created at different points, by the function's own calls, and from blocks."""
    rng = random.Random(seed)
    count = rng.randint(3, 14)
    names = [f"f{i}" for i in range(count)]
    lines = ["export function outer(input: number[]) {"]
    for i, name in enumerate(names):
        callees = rng.sample(names, rng.randint(0, min(3, count)))
        if rng.random() < 0.3 and i + 1 < count:
            callees.append(names[i + 1])  # a chain, so that points travel over several rounds
        body = " ".join(f"{callee}();" for callee in callees if callee != name or rng.random() < 0.5)
        lines.append(f"  function {name}() {{ {body} return input; }}")
        if rng.random() < 0.4:
            lines.append(f"  const a{i} = () => {rng.choice(names)}();")
        if rng.random() < 0.3:
            lines.append(f"  {rng.choice(names)}();")
        if rng.random() < 0.2:
            lines.append(f"  if (input.length) {{ function b{i}() {{ return {rng.choice(names)}(); }} b{i}(); }}")
    lines.append(f"  return [{', '.join(rng.sample(names, min(2, count)))}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(40))
def test_the_points_and_their_origins_are_those_of_the_plain_fixpoint(seed: int) -> None:
    analysis = analyze_text("points.ts", program(seed))
    outer = next(c for c in analysis.model.closures if c.name == "outer")
    got = declarations_of(outer)
    want = plain_fixpoint(outer)
    assert list(got) == list(want)
    for declaration, created in want.items():
        assert got[declaration].points == created.points, declaration.name
        assert got[declaration].origins == created.origins, declaration.name


def test_the_programs_make_points_travel_through_other_declarations() -> None:
    """The comparison above is worth something only if points pass through readers that are declarations."""
    travelled = 0
    for seed in range(40):
        outer = next(c for c in analyze_text("points.ts", program(seed)).model.closures if c.name == "outer")
        for created in declarations_of(outer).values():
            travelled += sum(1 for _, through in created.origins.values()
                             if through is not None and through.kind is ClosureKind.FUNCTION_DECLARATION)
    assert travelled > 100
