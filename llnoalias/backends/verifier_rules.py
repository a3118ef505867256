"""The bridge's other half (design section 7): rules LLVM 22's verifier has that LLVM 19's lacks.

:mod:`.bridge` rewrites newer syntax into what LLVM 22 reads; some input LLVM 19 reads is
rejected by LLVM 22's verifier alone, and no rewrite can stand in (the module means something
else to LLVM 22, or nothing). Each such rule is a :class:`VerifierRule` here; an input whose
every verifier error is one of them is not an error of the input: the run goes on with one
note naming the rules (design section 6). Found by ``scripts/llvm19_codegen_tests.py`` on
LLVM 19's own AMDGPU CodeGen tests.
"""

from __future__ import annotations

import re


class VerifierRule:
    """A rule LLVM 22's verifier has that LLVM 19's lacks: input LLVM 19 reads that only it
    rejects goes on with a note naming the rule (design section 6), where no rewrite above
    can stand in (the module means something else to LLVM 22, or nothing)."""

    __slots__ = ("name", "message", "names", "what")

    def __init__(self, name: str, message: str, names: str, what: str) -> None:
        self.name = name
        #: the verifier's message, as it prints it (without its '!')
        self.message = message
        #: a regex the line LLVM prints after the message must match ('' for any)
        self.names = names
        #: what LLVM 19 makes of the module, in words
        self.what = what


#: the named-barrier intrinsics whose signatures LLVM 22 changed
_NAMED_BARRIERS = (r"ptr @llvm\.amdgcn\.(?:s\.barrier\.(?:init|join|leave|signal\.var|signal\.isfirst\.var)"
                   r"|s\.wakeup\.barrier|s\.get\.barrier\.state)$")
_NAMED_BARRIERS_WHAT = ("LLVM 19's named-barrier intrinsics take an i32 barrier id (and s.barrier.leave returns "
                        "i1); LLVM 22's take the barrier's LDS pointer")

VERIFIER_RULES: tuple[VerifierRule, ...] = (
    VerifierRule("empty-target-features", "target-features attribute should not contain an empty string", "",
                 'LLVM 19 passes over an empty feature in the list ("target-features"=",+wavefrontsize64", as '
                 "LLVM 19's own AMDGPU tests write it)"),
    VerifierRule("call-to-kernel", "calling convention does not permit calls", r"\s*(?:tail\s+)?call\s+amdgpu_kernel\b",
                 "LLVM 19's verifier lets a function call an amdgpu_kernel (its code generator rejects the call)"),
    VerifierRule("amdgcn-named-barrier-signatures", "Intrinsic has incorrect argument type", _NAMED_BARRIERS,
                 _NAMED_BARRIERS_WHAT),
    VerifierRule("amdgcn-named-barrier-signatures", "Intrinsic has incorrect return type", _NAMED_BARRIERS,
                 _NAMED_BARRIERS_WHAT),
)


def newer_verifier_rules(message: str) -> list[str] | None:
    """The names of the ``VERIFIER_RULES`` a verifier's whole ``message`` (every error it
    printed, each with the line that shows what it is about) consists of; None when any error
    in it is none of them."""
    lines = [ln for ln in message.splitlines() if ln.strip()]
    found: list[str] = []
    k = 0
    while k < len(lines):
        head = lines[k].strip().rstrip("!")
        rule = next((r for r in VERIFIER_RULES if head == r.message), None)
        if rule is None:
            return None
        shown = lines[k + 1] if k + 1 < len(lines) else ""
        about = bool(shown) and shown.strip().rstrip("!") not in {r.message for r in VERIFIER_RULES}
        if rule.names and not (about and re.match(rule.names, shown)):
            return None
        if rule.name not in found:
            found.append(rule.name)
        k += 2 if about else 1
    return found or None


__all__ = ["VERIFIER_RULES", "VerifierRule", "newer_verifier_rules"]
