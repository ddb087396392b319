"""What each step of an evidence chain means, in words, for ``--explain``.

A step (``results.Step``) says what happened where: "captured by `add`",
"reassigned at 11:7 inside `add`", "`add`: stored in an object literal".
Read alone, a chain of them leaves the reader to work out why those facts
rule out a cheaper storage.  Each step's role in the decision says that: a
capture is why the binding is more than ``local``, a write after capture or
a capture before initialization why closures cannot hold copies (not
``value``), the escape why the frame cannot hold it (not ``stack``).
"""

from __future__ import annotations

from ..results import Decision, Retention, Step, StepRole


def meaning(decision: Decision | Retention, index: int) -> str:
    """What ``decision.evidence[index]`` contributes to the decision (or to a BX107 retention)."""
    step = decision.evidence[index]
    name = f"`{decision.binding.name}`"
    role = step.role
    if isinstance(decision, Retention):
        return retention_meaning(decision, index, name)
    if role is StepRole.CAPTURE:
        if any(earlier.role is StepRole.CAPTURE for earlier in decision.evidence[:index]):
            return f"another closure that uses {name}, so it captures it too"
        return f"this closure uses {name}, so it captures it: whenever the closure runs, it must see {name}"
    if role is StepRole.WRITE_AFTER_CAPTURE:
        return (f"{name} is written after a closure captured it: a copy taken when the closure was created would "
                f"miss this write, so the closures and the function must share one {name} (not `value`)")
    if role is StepRole.CAPTURE_BEFORE_INIT:
        return (f"a closure captures {name} before {name} holds its first value: a copy taken then would miss "
                f"the initialization, so {name} needs a slot the closure shares (not `value`)")
    if role is StepRole.CONTROL_FLOW:
        return (f"the function's control flow can lead from the closure's creation to this write without making "
                f"{name} afresh, so the write can follow the capture")
    if role is StepRole.ARGUMENTS_ALIAS:
        return (f"writes through the sloppy-mode `arguments` object reach the parameter {name}, also after a "
                f"closure captured it: a copy would miss them, so {name} needs a shared slot (not `value`)")
    if role is StepRole.CONSERVATIVE:
        return f"nothing about {name} can be known here, so it gets shared heap storage (never `value` or `stack`)"
    if role is StepRole.ESCAPE:
        return escape_meaning(decision, index, name)
    if role is StepRole.OUTLIVES_ITERATION:
        return (f"{step.subject} is kept beyond this iteration of the loop: each iteration's {name} must outlive "
                "it, so it needs heap storage of its own (not `stack`)")
    if role is StepRole.CONTEXT_SLOT:
        return context_slot_meaning(name)
    assert role is StepRole.POLICY_RULE, role
    return f"the rule of the legacy compiler that boxes {name}"


def context_slot_meaning(name: str) -> str:
    """Why a binding is in a V8 context: the same step explains a `v8` decision and a BX107 retention."""
    return (f"V8 keeps every binding that an inner function refers to in a slot of its scope's context, "
            f"written or not: {name} is one of them")


def retention_meaning(retention: Retention, index: int, name: str) -> str:
    """BX107: how the escaping closure comes to keep the binding alive, step by step."""
    step = retention.evidence[index]
    role = step.role
    if role is StepRole.CONTEXT_SLOT:
        return context_slot_meaning(name)
    if role is StepRole.HOLDS_CONTEXT:
        return "every closure created in that scope holds its context, whatever in it the closure uses"
    if role is StepRole.ESCAPE:
        return "the closure outlives the call that creates it: the context it holds, and what is in it, lives on"
    assert role is StepRole.UNUSED, role
    return f"so the closure keeps {name} alive for as long as it lives, though no code it can run reads {name}"


def escape_meaning(decision: Decision, index: int, name: str) -> str:
    """The chain's steps up to its last link carry the closure on; the last one is where it gets out."""
    chain = [step for step in decision.evidence if step.role is StepRole.ESCAPE]
    step = decision.evidence[index]
    holder = chain[0].subject
    function = decision.binding.closure.name
    call = f"the call of `{function}`" if function else "the call"
    if step is not chain[-1]:
        return f"one link of how {holder} outlives {call} that creates it: {step.subject} is handed on"
    through = "" if step.subject == holder else f" (through {step.subject})"
    return (f"here {holder} outlives {call} that creates it{through}: it may run after that call has returned, "
            f"so {name} cannot live in its frame and needs heap storage (not `stack`)")


def label(step: Step) -> str:
    return step.role.value
