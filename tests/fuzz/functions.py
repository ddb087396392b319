"""Functions and class elements, printed as TypeScript or as instrumented JavaScript.

The JavaScript print of a function's body begins with the oracle's entry
hooks: ``__tick()`` (the budget) and, if it refers to bindings of enclosing
functions whose instance tokens it can see, ``__live(...)``, which reports any
of those instances that has already ended.  A function whose own activation
is checked by some closure also gets a token for it: in a hidden rest
parameter ``...{[__K]: __a3 = __enter(0)}`` (which parameter defaults can see,
and which takes no argument: a symbol key is never in the rest array), or, if
the function has a rest parameter, in a ``const`` first in the body; the body
then runs in ``try { ... } finally { __leave(__a3); }``, which marks the
activation dead when it completes (for a generator or an async function: when
it finishes, not when it suspends).
"""

from __future__ import annotations

from .expressions import Expr
from .model import JS, Fn, FnKind, Mode, live_checks


def entry_hooks(fn: Fn) -> list[str]:
    hooks = ["__tick();"]
    if fn.checks:
        hooks.append(f"__live({live_checks(fn)});")
    return hooks


def token_name(fn: Fn) -> str | None:
    return fn.activation.name if fn.activation is not None and fn.activation.used else None


def params_text(fn: Fn, mode: Mode) -> str:
    parts = [p.render(mode) for p in fn.params]
    token = token_name(fn)
    if mode is JS and token is not None and fn.token_in_params:
        parts.append(f"...{{[__K]: {token} = __enter(0)}}")
    return "(" + ", ".join(parts) + ")"


def body_text(fn: Fn, mode: Mode, indent: str) -> str:
    """A block body (a ``Block``), or an expression body: ``expr``, or its JavaScript print."""
    token = token_name(fn)
    if mode is not JS:
        if isinstance(fn.body, Expr):
            expr = fn.body.render(mode)
            return f"({expr})" if expr.startswith("{") else expr
        return fn.body.render(mode, indent)
    hooks = entry_hooks(fn)
    if token is None:
        if isinstance(fn.body, Expr):
            return "(" + ", ".join(h.removesuffix(";") for h in hooks) + f", {fn.body.render(mode)})"
        return fn.body.render(mode, indent, hooks)
    inner = indent + "  "
    lines = [inner + h for h in hooks]
    if not fn.token_in_params:
        lines.append(f"{inner}const {token} = __enter(0);")
    if isinstance(fn.body, Expr):
        guarded = f"{{ return {fn.body.render(mode)}; }}"
    else:
        guarded = fn.body.render(mode, inner)
    lines.append(f"{inner}try {guarded} finally {{ __leave({token}); }}")
    return "{\n" + "\n".join(lines) + f"\n{indent}}}"


def render_function(fn: Fn, mode: Mode, indent: str = "") -> str:
    prefix = "async " if fn.is_async else ""
    params = params_text(fn, mode)
    body = body_text(fn, mode, indent)
    if fn.kind is FnKind.ARROW:
        return f"{prefix}{params} => {body}"
    star = "*" if fn.is_generator else ""
    name = f" {fn.name.name}" if fn.name is not None else ""
    return f"{prefix}function{star}{name}{params} {body}"


def render_element(fn: Fn, mode: Mode) -> str:
    """A class element; its name is ``fn.label``."""
    if fn.kind is FnKind.METHOD:
        prefix = ("async " if fn.is_async else "") + ("*" if fn.is_generator else "")
        return f"{prefix}{fn.label}{params_text(fn, mode)} {body_text(fn, mode, '')}"
    if fn.kind is FnKind.STATIC_BLOCK:
        return "static " + body_text(fn, mode, "")
    assert isinstance(fn.body, Expr)
    value = body_text(fn, mode, "")
    static = "static " if fn.kind is FnKind.STATIC_FIELD else ""
    return f"{static}{fn.label} = {value};"
