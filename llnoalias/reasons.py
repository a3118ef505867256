"""Every reason llnoalias gives, in one registry (design section 8, "why").

Why an access was left untagged, an argument or an LDS global not made a root, an
access given no byte range, a DMA's scopes withdrawn, an argument not proved
``readonly``: each is a :class:`Reason` here, with a stable kebab-case code (as mypy's
error codes: ``loaded-pointer``, ``inline-asm``, ``untraced-lds-dma``), a message
template with named fields, a one-line doc and what the user can do about it. The code
that gives a reason makes it from its entry (``LOADED_POINTER.text``,
``CAST_OF_ADDRESS.format(cast=...)``); no module writes a reason's text itself
(tests/test_reasons.py checks the source). The range analysis's C twin is handed its
reasons from here too (``ranges.solver.CRANGE_NAMES``) and returns the messages they make.

The message is what travels through the analysis: a :class:`Said`, a ``str`` (the hot paths
compare, store and drop many) that carries its reason's code, as mypy's ``ErrorMessage(value,
code)`` does; ``--report``, ``explain`` and remarks show the code (``... [loaded-pointer]``) from
there, and nothing reads a code back from the words. A message made from a template that wraps
another reason (``unknown provenance: {rule}``) carries the wrapped reason's, the more telling one.

``python -m llnoalias.reasons_doc`` writes docs/reasons.md, the table made from this module.
Layer 0: imports nothing from llnoalias, and nothing at run time but the standard library.
"""

from __future__ import annotations

#: the groups, in the order docs/reasons.md lists them
GROUPS = {
    "access": "An access left untagged",
    "provenance": "Why a value's provenance is unknown (after \"unknown provenance: \")",
    "memory": "Why integers loaded from memory are taken as addresses",
    "dma": "LDS-DMA: scopes withdrawn",
    "root": "An argument or LDS global that is not a root",
    "range": "Why an access has no byte range (with --regions)",
    "escape": "Why an argument is not proved readonly or writeonly",
    "exact": "Why `check` cannot tell a pair apart per thread (after \"unproven\")",
}


class Said(str):
    """A message made from a reason: the text itself (a ``str``, equal to and hashed as its
    text, so the analysis keeps comparing and storing it as one) that carries its reason's
    ``code`` (as mypy's ``ErrorMessage(value, code)``). ``Reason.text`` is one, ``Reason.format``
    makes one, ``+`` keeps the code (of two messages, the left one's); an f-string or ``str.format``
    makes a plain ``str`` without one. Pickled with its code: workers hand it back whole."""

    __slots__ = ("code",)
    code: str

    def __new__(cls, text: str, code: str) -> Said:
        self = str.__new__(cls, text)
        self.code = code
        return self

    def __reduce__(self) -> tuple[type[Said], tuple[str, str]]:
        return (Said, (str(self), self.code))

    def __add__(self, other: str) -> Said:
        return Said(str.__add__(self, other), self.code or carried_code(other))

    def __radd__(self, other: str) -> Said:  # ``text + said``: tried before ``str.__add__``
        return Said(str.__add__(other, self), carried_code(other) or self.code)


#: ``str.__new__``: a :class:`Said` made without its ``__new__`` called (``Reason.one``)
_new_str = str.__new__


def carried_code(text: str) -> str:
    """The code ``text`` carries when it is a :class:`Said` (a reason's message), else ""
    (no code is read back from the words)."""
    return text.code if isinstance(text, Said) else ""


class Reason:
    """One reason: ``code`` (stable, kebab-case), the message ``text`` (a :class:`Said`; a
    ``str.format`` template when it has ``{fields}``), ``doc`` (what it means), ``todo`` (what
    to do), its ``group``, and ``nested``: the field that holds another reason, whose code a
    message made from this one carries (the more telling one)."""

    __slots__ = ("code", "text", "doc", "todo", "group", "nested", "fields", "_numbered", "_nested_at", "_around")

    def __init__(self, code: str, text: str, group: str, doc: str, todo: str = "", nested: str = "") -> None:
        self.code = code
        self.text = Said(text, code)
        self.group = group
        self.doc = doc
        self.todo = todo
        self.nested = nested
        self.fields = _fields(text)
        #: the template with its fields numbered in order (``__call__``), and the place of
        #: the ``nested`` field among them (-1: none)
        self._numbered = _numbered(text)
        self._nested_at = self.fields.index(nested) if nested else -1
        #: for a template of one plain field that wraps no reason (``one``): the text
        #: before the field and after it; else None
        self._around: tuple[str, str] | None = None
        pieces = _pieces(text)
        if (len(pieces) == 2 and pieces[0][1].isidentifier() and not nested
                and "{{" not in text and "}}" not in text):
            self._around = (pieces[0][0], pieces[1][0])

    def format(self, **fields: object) -> Said:
        """The message with its fields filled in; its code is this reason's or, for one that
        wraps another (``nested``), the wrapped message's when that carries one."""
        code = self.code
        if self.nested:
            code = carried_code(fields[self.nested]) or code  # type: ignore[arg-type]
        return Said(str.format(self.text, **fields), code)

    def __call__(self, *values: object) -> Said:
        """The message with its fields filled in, in the order the template names them
        (how the range solver's C twin fills one, thousands of times in a module): as
        ``format`` with the same fields, through the template with its fields numbered."""
        if len(values) != len(self.fields):
            raise ValueError(f"{self.code}: {len(self.fields)} fields, {len(values)} values")
        code = self.code
        if self._nested_at >= 0:
            code = carried_code(values[self._nested_at]) or code  # type: ignore[arg-type]
        return Said(self._numbered.format(*values), code)

    def one(self, value: object) -> Said:
        """The message of a reason whose template has one field, filled with ``value``: as
        ``format`` with that field (the text around the field and ``value`` as ``format``
        writes it), without the template read again; the argument pass makes two a
        kernel (``attributes._kernel``). ValueError for another template."""
        around = self._around
        if around is None:
            raise ValueError(f"{self.code}: not a template of one field")
        said = _new_str(Said, f"{around[0]}{value}{around[1]}")
        said.code = self.code
        return said

    def matches(self, text: str) -> bool:
        """Was ``text`` made from this reason (does it carry its code)?"""
        return carried_code(text) == self.code

    def __repr__(self) -> str:
        return f"Reason({self.code!r}, {self.text!r})"


def _pieces(text: str) -> list[tuple[str, str]]:
    """``text`` as (literal, field name) pairs; the last name may be empty."""
    out = []
    rest = text
    while "{" in rest:
        lit, _, after = rest.partition("{")
        name, _, rest = after.partition("}")
        out.append((lit, name))
    out.append((rest, ""))
    return out


def _fields(text: str) -> tuple[str, ...]:
    return tuple(name for _, name in _pieces(text) if name)


def _numbered(text: str) -> str:
    """``text`` with its fields numbered in order (``{op} at {at}`` -> ``{0} at {1}``)."""
    out: list[str] = []
    n = 0
    for lit, name in _pieces(text):
        out.append(lit)
        if name:
            out.append(f"{{{n}}}")
            n += 1
    return "".join(out)


#: every reason by code, in the order they are declared
REASONS: dict[str, Reason] = {}


def _r(code: str, text: str, group: str, doc: str, todo: str = "", nested: str = "") -> Reason:
    assert code not in REASONS, code
    assert group in GROUPS, group
    r = REASONS[code] = Reason(code, text, group, doc, todo, nested)
    return r


_TRACE = "Keep the address in SSA values from the root to the access, or accept the access untagged."
_RANGE = "Keep offsets computable (constants, thread ids with a bound, loop counters with a bound)."

# ----------------------------------------------------------------- accesses
UNKNOWN_PROVENANCE = _r("unknown-provenance", "unknown provenance: {rule}", "access",
                        "A pointer operand's buffer is not known; the code is that of the rule that made it so.",
                        _TRACE, nested="rule")
PROVENANCE_NOT_EXPLAINED = _r("unexplained-provenance", "unknown provenance (not explained: no report was asked for)",
                              "access", "A pointer operand's buffer is not known; no report was asked, so the "
                              "walk that finds why was skipped.", "Run `explain` or `--report` to see why.")
RAW_INTEGER_POINTER = _r("raw-integer-pointer", "pointer is a raw integer address (traced to no buffer)", "access",
                         "The pointer is an integer made into an address, traced to no buffer.",
                         "Derive the address from the buffer's pointer (getelementptr) instead.")
UNDEF_POINTER = _r("undef-pointer", "pointer is undef/poison", "access",
                   "The pointer operand is undef or poison.", "Nothing: the access is undefined behaviour.")
OTHER_DOMAIN = _r("other-domain", "pointer traced to {root}, which is not a buffer of this domain", "access",
                  "The pointer reaches a buffer of another domain (an LDS buffer seen from an argument domain).",
                  "Nothing: the access is tagged in its own domain.")
OPAQUE_RESOURCE = _r("opaque-resource", "buffer resource given as <4 x i32>, not traced", "access",
                     "A buffer intrinsic takes its resource as four integers, whose base is not traced.",
                     "Use the `ptr addrspace(8)` form of the buffer intrinsic.")
SINGLE_SCOPE = _r("single-scope", "single scope in the domain ({root}): no claim to make", "access",
                  "The domain has one scope only: there is nothing to tell apart.",
                  "Add roots (`--lds all`, `--args noalias`) or regions (`--regions`).")
METADATA_NOT_PLAIN = _r("metadata-not-plain", "existing !alias.scope/!noalias is not a plain list of scopes", "access",
                        "The access already carries scope metadata llnoalias cannot extend.",
                        "Strip the input's scope metadata, or accept the access untagged.")
INLINE_ASM_MEMORY = _r("inline-asm-memory",
                       "{count} inline asm statement(s) take pointer operands ({what}): what they load and store "
                       "is not an access llnoalias can tag",
                       "access",
                       "The module reaches memory inside inline assembly (Triton's NVIDIA modules load global "
                       "memory and copy it to shared memory in inline PTX: `ld.global`, `cp.async`). Metadata on "
                       "the call does not describe those accesses, so they count in no access and stay unknown "
                       "to alias analysis; the accesses outside inline asm are tagged as usual.",
                       "Nothing in llnoalias: the producer would have to use LLVM's loads and stores or its "
                       "intrinsics (Triton's AMD modules do).")
VOLATILE = _r("volatile", "volatile access", "access", "Volatile accesses are never tagged.",
              "Drop `volatile` where the kernel does not need it (a CUDA/HIP `volatile` pointer used for "
              "synchronisation: use atomics or a barrier instead); while it is volatile, nothing: it must "
              "stay ordered with every access.")
ATOMIC_ORDERING = _r("atomic-ordering", "atomic ordered {ordering} (stronger than monotonic)", "access",
                     "An atomic ordered stronger than monotonic orders other accesses: it is not tagged.",
                     "Use monotonic ordering where the algorithm allows it.")
UNPARSED_INSTRUCTION = _r("unparsed-instruction", "instruction not understood by llnoalias's parser", "access",
                          "llnoalias could not read the instruction's operands.", "Report the instruction.")
UNPARSED_CALL = _r("unparsed-call", "call not understood by llnoalias's parser", "access",
                   "llnoalias could not read the call's operands.", "Report the call.")
VOLATILE_INTRINSIC = _r("volatile-intrinsic", "volatile memory intrinsic", "access",
                        "A memory intrinsic with its volatile flag set is never tagged.",
                        "Clear the volatile flag (the last `i1` operand of `llvm.memcpy`/`memset`) where "
                        "nothing outside the kernel watches the bytes; otherwise nothing: it must stay "
                        "ordered.")
VOLATILE_CACHE_POLICY = _r("volatile-cache-policy", "volatile bit set in the cache-policy operand", "access",
                           "A buffer intrinsic whose cache-policy operand has the volatile bit is never tagged.",
                           "Clear the volatile bit (bit 31) of the cache-policy (aux) operand where the "
                           "access need not be ordered; otherwise nothing: it must stay ordered.")

# ------------------------------------------------------- provenance rules
GEP_ADDRESS_INDEX = _r("gep-address-index", "getelementptr with an index that carries an address", "provenance",
                       "A getelementptr's index is itself derived from an address.", _TRACE)
CAST_OF_ADDRESS = _r("cast-of-address", "{cast} of an address", "provenance",
                     "A cast that does not keep an address (e.g. trunc) was applied to one.", _TRACE)
ADD_OF_ADDRESSES = _r("add-of-addresses", "{op} of two values that both carry an address", "provenance",
                      "An add (or disjoint or) whose two operands both derive from addresses.", _TRACE)
OR_WITHOUT_DISJOINT = _r("or-without-disjoint", "or without 'disjoint' on an address", "provenance",
                         "An `or` on an address without the `disjoint` flag may change its high bits.",
                         "Let the compiler prove the flag, or use add.")
SUB_ON_ADDRESS = _r("sub-on-address", "sub on an address", "provenance",
                    "A subtraction on an address is not followed.", _TRACE)
OP_ON_ADDRESS = _r("op-on-address", "{op} on an address", "provenance",
                   "An instruction that does not keep an address (mul, and, shift, ...) was applied to one.", _TRACE)
ADDRESS_COMPARE = _r("address-compare", "comparison of addresses", "provenance",
                     "The value is a comparison of addresses, not an address.", _TRACE)
JOIN_OF_BUFFERS = _r("join-of-buffers", "{op} joins values from different buffers (or a raw integer with a buffer)",
                     "provenance", "A phi, select or lane intrinsic picks between addresses of different buffers.",
                     "Give each buffer its own access, or let both buffers share a root (`--may-alias`).")
FREEZE_UNDEF = _r("freeze-undef", "freeze of undef (an arbitrary value)", "provenance",
                  "`freeze undef` is an arbitrary value, not an address of a buffer.",
                  "Nothing for this value: it is no address. If an access uses it, the kernel computes an "
                  "address from undef: give the phi or select its real incoming value.")
AGGREGATE_FIELD = _r("aggregate-field", "aggregate field not traced", "provenance",
                     "A field of an aggregate value whose provenance is not followed.", _TRACE)
AGGREGATE = _r("aggregate", "aggregate not traced", "provenance",
               "An aggregate value whose fields' provenance is not followed.", _TRACE)
ALLOCA = _r("alloca", "alloca (private memory, not a root)", "provenance",
            "Private (stack) memory is never a root.", "Promote the alloca to registers (mem2reg/SROA).")
UNTRACED_OPCODE = _r("untraced-opcode", "'{op}' is not traced", "provenance",
                     "llnoalias does not follow addresses through this instruction.", "Report the instruction.")
OPERAND_CARRIES_ADDRESS = _r("operand-carries-address", "{name} with an operand that carries an address",
                             "provenance", "An intrinsic that passes its first operand through has an address "
                             "in another operand.", _TRACE)
INLINE_ASM = _r("inline-asm", "result of inline asm", "provenance",
                "The value comes out of inline assembly.", "Keep addresses out of inline assembly's results.")
READ_BY_INTRINSIC = _r("read-by-intrinsic", "value read from memory by {name}", "provenance",
                       "A value a memory intrinsic read may be an address.", "See `memory-holds-addresses`.")
RETURNED_POINTER = _r("returned-pointer", "pointer returned by a call to {callee}", "provenance",
                      "A call returned the pointer.", "Inline the callee.")
CALL_RESULT = _r("call-result", "result of a call to {callee}{at}", "provenance",
                 "The value is the result of a call to a function of the module, or an indirect call.",
                 "Inline the callee.")
INTRINSIC_ON_ADDRESS = _r("intrinsic-on-address", "result of {name} on an address", "provenance",
                          "An intrinsic computes on an address; its result is not one.", _TRACE)
LANE_CONTROL_ADDRESS = _r("lane-control-address", "{name} with a lane or control operand that carries an address",
                          "provenance", "A lane intrinsic's lane or control operand derives from an address.", _TRACE)
LANE_MAY_INVENT = _r("lane-may-invent", "{name} on an address: it may hand back a value no lane held (0 or an "
                     "undefined value from a disabled lane), which is not inside the buffer", "provenance",
                     "A lane intrinsic that can return 0 or a disabled lane's value (docs/soundness.md).",
                     "Move the lane operation to an integer offset, not the address.")
LOADED_POINTER = _r("loaded-pointer", "pointer loaded from memory", "provenance",
                    "The pointer was loaded from memory; what memory holds is not traced.",
                    "Pass the buffer as a kernel argument, or keep the pointer in a register.")
ATOMIC_RESULT = _r("atomic-result", "value read by an atomic", "provenance",
                   "The value an atomic read may be an address.", "See `memory-holds-addresses`.")
#: the start of ``memory-holds-addresses`` for a load (no reason of its own)
LOADED_INTEGER = "integer loaded from memory"
MEMORY_HOLDS_ADDRESSES = _r("memory-holds-addresses", "{what}, and {memory}", "provenance",
                            "An integer read from memory, in a module where memory may hold an address "
                            "(the second part says where).", "Do not store addresses to memory.")
SLOT_MIXED_STORES = _r("slot-mixed-stores", "loaded from the stack slot {slot}, whose stores (lines {lines}) write "
                       "an address llnoalias cannot trace or addresses of different buffers", "provenance",
                       "A private slot read whole, written with addresses of several buffers or untraced ones.",
                       "Promote the alloca to registers (mem2reg/SROA).")
SLOT_HOLDS_ADDRESS = _r("slot-holds-address", "integer loaded from the stack slot {slot}, and line {line} stores an "
                        "address there: {code}", "provenance", "An integer read from a private slot an address "
                        "is stored into.", "Promote the alloca to registers (mem2reg/SROA).")
KERNEL_ARGUMENT_NOT_ROOT = _r("kernel-argument-not-root", "kernel argument {name} is not a root", "provenance",
                              "The pointer is a kernel argument the options did not make a root.",
                              "`--args noalias` (or `all`) makes it one.")
NON_KERNEL_POINTER_ARGUMENT = _r("non-kernel-pointer-argument", "pointer argument {name} of a non-kernel function",
                                 "provenance", "A pointer argument of a function that is not a kernel.",
                                 "Inline the function into its kernel.")
NON_KERNEL_INTEGER_ARGUMENT = _r("non-kernel-integer-argument", "integer argument {name} of a non-kernel function",
                                 "provenance", "An integer argument of a function that is not a kernel may "
                                 "carry an address.", "Inline the function into its kernel.")
AGGREGATE_ARGUMENT_FIELD = _r("aggregate-argument-field", "pointer field of the aggregate kernel argument {name} "
                              "(not a root)", "provenance", "A pointer inside a struct passed by value.",
                              "Pass the buffer as a pointer argument of its own.")
AGGREGATE_ARGUMENT = _r("aggregate-argument", "argument {name} of aggregate type", "provenance",
                        "An aggregate argument of a function that is not a kernel.",
                        "Inline the function into its kernel.")
GLOBAL_NOT_ROOT = _r("global-not-root", "{name} is not a root (not an LDS buffer llnoalias gives a scope)",
                     "provenance", "The address is of a global that is not a root.",
                     "`--lds all` makes every sized LDS global a root.")
SYMBOL_NOT_ROOT = _r("symbol-not-root", "{name} is not a root (a function or an undefined global)", "provenance",
                     "The address is of a function or a global not defined in the module.",
                     "Nothing: a function or a global defined in another module is no buffer llnoalias can "
                     "scope. Link the module that defines the LDS global first (llvm-link) to make it a "
                     "root.")
CONSTEXPR_ON_ADDRESS = _r("constexpr-on-address", "constant expression '{op}' on an address", "provenance",
                          "A constant expression llnoalias does not follow applied to an address.", _TRACE)
UNREADABLE_VALUE = _r("unreadable-value", "value llnoalias cannot read ({text})", "provenance",
                      "An operand llnoalias could not read.", "Report the operand.")
UNTRACEABLE_VALUE = _r("untraceable-value", "value llnoalias cannot trace", "provenance",
                       "An operand whose provenance is not followed.", "Report the operand.")
PHI_CYCLE = _r("phi-cycle", "a cycle of phis none of which has a traced value", "provenance",
               "Phis that only feed each other, with no traced value coming in.",
               "Give the loop its address on entry: phis that only feed each other carry no buffer in "
               "(after optimisation the entry value is often undef or poison).")
UNDEFINED_NAME = _r("undefined-name", "{name} is not defined in {function}", "provenance",
                    "An operand names a value the function does not define.", "Check the input with opt -verify.")
NOT_ANALYSED = _r("not-analysed", "'{op}' was not analysed", "provenance",
                  "The instruction was not reached by the analysis.", "Report the instruction.")
MADE_UNKNOWN = _r("made-unknown", "'{op}' made the value unknown", "provenance",
                  "The instruction made an unknown value from known operands.", _TRACE)
CHAIN_TOO_LONG = _r("chain-too-long", "a chain of values too long to follow", "provenance",
                    "The chain of values back to the cause is longer than the walk follows.",
                    "Run `explain` on the access; shorten the chain from the buffer to the access (fewer "
                    "casts and copies), or accept the access untagged.")
#: the callee named in a reason when the call is indirect
INDIRECT_CALLEE = "an indirect callee"

# --------------------------------------------------- memory holds addresses
ADDRESS_IN_INITIALIZER = _r("address-in-initializer", "the initializer of {name} (line {line}) holds an address",
                            "memory", "A global the program can read is initialized with an address.",
                            "Make the global constant or unread, or pass the address another way.")
SLOT_CHAIN_TOO_LONG = _r("slot-chain-too-long", "{function}: an address passes through more than {rounds} stack "
                         "slots in a row", "memory", "An address is copied through too many private slots.",
                         "Promote the allocas to registers (mem2reg/SROA).")
UNREADABLE_STORE = _r("unreadable-store", "line {line}: a store llnoalias cannot read: {code}", "memory",
                      "A store whose operands llnoalias could not read might store an address.", "Report the store.")
ADDRESS_STORED = _r("address-stored", "{function} line {line} writes an address to memory: {code}", "memory",
                    "The module stores an address to memory, so any loaded integer may be one.",
                    "Keep addresses out of memory (pass buffers as arguments).")

# ------------------------------------------------------------------ LDS-DMA
UNTRACED_LDS_DMA = _r("untraced-lds-dma", "untraced LDS-DMA in the function: its LDS accesses get no LDS scopes",
                      "dma", "An LDS-DMA whose LDS destination is not traced may write any LDS access's bytes.",
                      "Address the DMA's LDS destination from an LDS global.")
LDS_DMA_WINDOW = _r("lds-dma-window", "shares an LDS scope with an LDS-DMA that alias analysis may tell apart from "
                    "it (one lane's window): no LDS scopes", "dma", "Alias analysis sees an LDS-DMA's one-lane "
                    "window and may drop the wait for it (docs/soundness.md).",
                    "Nothing llnoalias can make safe: LLVM 21 and later ask alias analysis about one lane's "
                    "bytes of the DMA, so no LDS scopes are written in the function and the input's waits "
                    "stay (nothing is lost against the input). LLVM 19 and 20 do not read the DMA's scopes.")
LDS_DMA_ORDER = _r("lds-dma-order", "shares an LDS scope with an LDS-DMA that may reach it in flight across a "
                   "block join or a loop back edge: no LDS scopes", "dma", "The code generator's wait pass does "
                   "not carry a scoped LDS-DMA's slot across a join where a predecessor lacks the DMA, nor around "
                   "a loop: an access the DMA's block does not dominate, or one reached from the DMA through a "
                   "back edge, may lose its wait (docs/design.md section 4b).", "Wait for the DMA (s.waitcnt "
                   "vmcnt(0)) before the join or the back edge, or accept the access untagged.")
LDS_DMA_SAME_BYTES = _r("lds-dma-same-bytes", "may touch bytes an LDS-DMA into another dynamic LDS variable writes "
                        "(every dynamic LDS variable starts at the same address): no LDS scopes", "dma",
                        "LLVM's module-LDS lowering puts every external zero-sized LDS variable at the start of "
                        "dynamic LDS, so two of them share bytes at equal offsets; a scope of each would let the "
                        "code generator skip the DMA's wait or move the access above the DMA (found by llnoalias "
                        "check in LLVM 22's assembly).", "Carve the variables apart by offset (as FlyDSL's named "
                        "bases do: each at its own constant offset), so that their byte ranges are disjoint.")
PRODUCER_WINDOW = _r("producer-window", "an LDS access of the function keeps the input's own metadata in reach of an "
                     "LDS-DMA's one-lane window: no LDS scopes in the function, so the waits the input forces stay",
                     "dma", "The input's own LDS metadata already lets alias analysis skip a DMA wait.",
                     "The input's waits stay (nothing is lost against it). For LDS scopes, drop the "
                     "producer's metadata from the LDS loads and stores: `--repair` (compile or annotate) "
                     "does it where check finds the race and says what it removed; or clang's "
                     "`-fno-strict-aliasing` emits no `!tbaa`.")
LOWERED_LDS_DMA = _r("lowered-lds-dma", "LDS-DMA into a static LDS variable, addressed directly: LLVM's module-LDS "
                     "lowering replaces the alias metadata of its accesses, so the function gets no LDS scopes and "
                     "the DMA no metadata at all", "dma", "LLVM's module-LDS lowering rewrites the metadata of "
                     "static LDS variables' accesses.", "Use dynamic LDS for DMA destinations.")
DMA_DESTINATION_UNTRACED = _r("dma-destination-untraced", "its LDS destination is not traced", "dma",
                              "The DMA's LDS pointer was not traced to a root (said in a warning).",
                              "Address the DMA's LDS destination from an LDS global (getelementptr, or "
                              "integer arithmetic on its `ptrtoint`), not from a loaded pointer or an "
                              "argument; `--lds all` when the global is sized.")

# -------------------------------------------------------------------- roots
NOT_A_POINTER = _r("not-a-pointer", "not a pointer", "root", "The argument is not a pointer.",
                   "Nothing: only pointer arguments are buffers. Pass the buffer as a pointer argument if "
                   "an integer carries its address.")
LDS_OR_PRIVATE_POINTER = _r("lds-or-private-pointer", "points to LDS/private memory", "root",
                            "A pointer argument to LDS or private memory is no global buffer.",
                            "Nothing: an LDS or private pointer argument is no global buffer; LDS is scoped "
                            "through its globals (`--lds`).")
ATTRIBUTE_ARGUMENT = _r("attribute-argument", "{attribute} argument", "root",
                        "The argument's attribute (byval, byref, ...) makes it no buffer binding.",
                        "Nothing: a byval/byref argument is kernel-argument memory, not a buffer; pass the "
                        "buffer as a plain pointer argument.")
NOT_NOALIAS = _r("not-noalias", "not noalias in the input (--args noalias roots it)", "root",
                 "`--args auto` roots only arguments marked noalias.", "`--args noalias` (a promise).")
STATIC_LDS = _r("static-lds", "sized (static) LDS global; --lds all includes it", "root",
                "`--lds dynamic` roots only dynamic (zero-sized) LDS.", "`--lds all`.")
LDS_OFF = _r("lds-off", "--lds off", "root", "LDS roots were turned off.", "`--lds dynamic` or `--lds all`.")
ARGS_OFF = _r("args-off", "--args off", "root", "Argument roots were turned off.", "`--args auto` or `noalias`.")

# ------------------------------------------------------------------- ranges
NO_RANGE = _r("no-range", "no range", "range", "The access has no byte range (no report asked for why).",
              "Run `explain` or `--report` to see why the access has no byte range.")
NO_RANGE_BECAUSE = _r("no-range-because", "no range: {why}", "range",
                      "The access has no byte range; the code is the rule's.", _RANGE, nested="why")
SEVERAL_ROOTS = _r("several-roots", "reaches several roots: keeps their scopes", "range",
                   "An access that may reach several roots is not split into regions.",
                   "Nothing needed: the access keeps the scopes of every root it may reach. Address one "
                   "buffer per access to let it join a region.")
SIZE_UNKNOWN = _r("size-unknown", "size of {type} not known", "range", "The accessed type has no known size.",
                  "Access a sized type (define the named struct in the module; no opaque or unsized type).")
INTRINSIC_NO_LENGTH = _r("intrinsic-no-length", "memory intrinsic with no length", "range",
                         "A memory intrinsic whose length operand is missing.",
                         "Report the call (llnoalias's version and the line): a memory intrinsic has a "
                         "length operand that llnoalias could not read.")
NOT_EVALUATED = _r("not-evaluated", "{value} is not evaluated per thread: {what}", "exact",
                   "`check` computes each LDS address per thread and loop state; this value (a kernel "
                   "argument, a loaded value, a loop value with no known evolution, a phi of a join, an "
                   "operation it does not evaluate) blocks it, so the pair is unproven, not a race.",
                   "Nothing, or give the check more to read: a work-group size, addresses from thread ids "
                   "and loop counters; `--strict` makes an unproven pair fail.")
LENGTH_NO_RANGE = _r("length-no-range", "length with no range: {why}", "range",
                     "A memory intrinsic's length has no range.", _RANGE, nested="why")
DMA_GLOBAL_SIDE = _r("dma-global-side", "the global side of an LDS DMA", "range",
                     "Regions are of LDS; the DMA's global side has none.",
                     "Nothing: regions split LDS only; the DMA's global side is tagged through argument "
                     "roots (`--args noalias`).")
DMA_NOT_UNDERSTOOD = _r("dma-not-understood", "LDS DMA call not understood", "range",
                        "The LDS-DMA's operands could not be read.",
                        "Report the call (llnoalias's version and the line): its LDS-DMA row in "
                        "`llnoalias/analysis/memory/intrinsics.py` does not match it.")
DMA_NON_CONSTANT = _r("dma-non-constant", "LDS DMA with a non-constant size or offset", "range",
                      "An LDS-DMA's size or offset is not a constant.",
                      "Report the call: LLVM requires the DMA's size and offset to be immediates "
                      "(`immarg`), so llnoalias failed to read one.")
TRANSPOSED_READ = _r("transposed-read", "transposed LDS read of unknown size", "range",
                     "A transposed LDS read whose size is not known.",
                     "Report the call: the intrinsic table (`llnoalias/analysis/memory/intrinsics.py`) "
                     "lacks the size of this transposed read.")
BYTES_UNKNOWN = _r("bytes-unknown", "bytes touched by {what} not known", "range",
                   "The bytes an intrinsic touches are not known.",
                   "Give the intrinsic a constant length (`llvm.memcpy`/`memset` of a compile-time size), "
                   "or accept the access with its root's scope.")
SCALABLE_VECTOR = _r("scalable-vector", "scalable vector type: its size is not known{at}", "range",
                     "A scalable vector's size is known only at run time.",
                     "Nothing: GPU targets have no scalable vectors; the access keeps its root's scope.")
ANOTHER_ROOT = _r("another-root", "pointer traced to another root", "range",
                  "The pointer reaches a root other than the access's.",
                  "Nothing: the access keeps the scopes of the roots it may reach; address one buffer per "
                  "access.")
OUTSIDE_BUFFER = _r("outside-buffer", "offsets [{lo}, {hi}) leave the buffer's address range", "range",
                    "The offsets may leave the buffer.",
                    "Bound the offset inside the buffer: a mask (`& (N-1)`), `urem` by a constant, or a "
                    "smaller work-group size (`amdgpu-flat-work-group-size`, `maxntid`); declare the LDS "
                    "global with its real size (`--lds all`).")
NO_POINTER = _r("no-pointer", "no pointer operand", "range", "The access has no pointer operand.",
                "Nothing: there is no pointer to measure.")
JOIN_UNREADABLE = _r("join-unreadable", "join of ranges that fit no single reading", "range",
                     "Two ranges fit neither one signed nor one unsigned reading.", _RANGE)
TOO_WIDE = _r("too-wide", "i{width} is wider than the range analysis follows (i{limit})", "range",
              "Integers wider than the range analysis's limit are not followed.",
              "Compute offsets in i64 or narrower (the index type of a getelementptr).")
SELECT_NO_VALUE = _r("select-no-value", "select with no possible value", "range",
                     "Neither arm of the select can be chosen.",
                     "Nothing: no arm can be chosen, so the access is unreachable; let the optimiser remove "
                     "it.")
UNDEF_ONLY = _r("undef-only", "{kind} of undef values only{at}", "range", "Every incoming value is undef.",
                "Nothing: every value is undef, so the access is undefined or dead; if it is live, give the "
                "phi or select its real values.")
UNBOUNDED_LOOP_PHI = _r("unbounded-loop-phi", "loop phi with no bound (line {line})", "range",
                        "A loop-carried value with no bound the analysis can find.", "Bound the loop's trip count.")
GEP_NOT_UNDERSTOOD = _r("gep-not-understood", "getelementptr not understood{at}", "range",
                        "The getelementptr could not be read.",
                        "Report the getelementptr (llnoalias's version and the line): its operands could "
                        "not be read.")
LOOP_ADVANCED_ADDRESS = _r("loop-advanced-address", "address advanced around a loop by a phi{at}", "range",
                           "An address that moves each iteration (a pointer induction variable).",
                           "Index from the loop's base address with an integer counter.")
TWO_ROOTS = _r("two-roots", "{kind} of two roots{at}", "range", "A phi or select of addresses of two roots.",
               "Give each buffer its own access (split the phi or select into two branches), so each access "
               "falls into one root's regions.")
ADDRESS_FROM_CALL = _r("address-from-call", "address returned by a call to {callee}{at}", "range",
                       "A call returned the address.", "Inline the callee.")
ADDRESS_COMPUTED = _r("address-computed", "address computed by '{op}'{at}", "range",
                      "The address comes from an instruction the range analysis does not follow.", _RANGE)
INT_TO_ADDRESS = _r("int-to-address", "bitcast of an integer to an address", "range",
                    "An integer bitcast to an address.",
                    "Make the address with `inttoptr` (or a getelementptr from the buffer), not a bitcast "
                    "of an integer.")
NON_SCALAR_CAST = _r("non-scalar-cast", "{cast} to a non-scalar type", "range", "A cast to a vector or aggregate.",
                     "Compute each lane's address as a scalar pointer, not through a vector or aggregate "
                     "cast.")
NARROWING_CAST = _r("narrowing-cast", "{cast} to i{bits} drops address bits", "range",
                    "An address cast to an integer too narrow to hold it.",
                    "Cast the address to an integer as wide as the pointer (i32 for LDS, i64 for global "
                    "memory) before the arithmetic.")
WIDENED_CAST = _r("widened-cast", "{cast} from i{bits} lost address bits", "range",
                  "An address rebuilt from an integer too narrow to have held it.",
                  "Keep the address in an integer as wide as the pointer from `ptrtoint` to `inttoptr` (i32 "
                  "for LDS, i64 for global memory).")
QUOTED_OP_ON_ADDRESS = _r("quoted-op-on-address", "'{op}' on an address", "range",
                          "An integer operation on an address the range analysis does not follow.", _RANGE)
NARROW_ADDRESS_ARITHMETIC = _r("narrow-address-arithmetic", "address arithmetic in i{bits} drops address bits",
                               "range", "Address arithmetic done in an integer narrower than the address.",
                               "Do address arithmetic in the pointer's width (i32 for LDS, i64 for global "
                               "memory).")
GEP_VECTOR_OF_POINTERS = _r("gep-vector-of-pointers", "getelementptr on a vector of pointers", "range",
                            "A getelementptr over a vector of pointers.",
                            "Use a scalar getelementptr per lane; a vector of pointers is not measured.")
NARROW_GEP_INDEX = _r("narrow-gep-index", "getelementptr index width ({width}) narrower than the pointer", "range",
                      "The data layout's index width is narrower than the pointer.",
                      "Use the target's own data layout (its index width is the pointer's); offsets wrap at "
                      "a narrower index width.")
GEP_VECTOR_INDEX = _r("gep-vector-index", "getelementptr with a vector index", "range",
                      "A getelementptr with a vector index.",
                      "Index with a scalar (one getelementptr per lane).")
GEP_NO_LAYOUT = _r("gep-no-layout", "getelementptr through a type llnoalias cannot lay out", "range",
                   "A getelementptr through a type whose layout is not known.",
                   "Give the type a layout: define the named struct in the module, no opaque type in "
                   "address computations.")
GEP_UNKNOWN_NAMED_TYPE = _r("gep-unknown-named-type", "getelementptr through an unknown named type", "range",
                            "A getelementptr through a named type the module does not define.",
                            "Define the named type in the module (link the module that defines it first).")
GEP_STRUCT_NOT_LAID_OUT = _r("gep-struct-not-laid-out", "getelementptr into a struct not laid out", "range",
                             "A struct index that is not a constant, or a struct with no layout.",
                             "Index a struct with constant field numbers, and define the struct in the "
                             "module.")
GEP_NON_AGGREGATE = _r("gep-non-aggregate", "getelementptr into a non-aggregate type", "range",
                       "A getelementptr index into a type that has no elements.",
                       "Check the getelementptr: it indexes into a scalar; use one index per level "
                       "(`getelementptr T, ptr %p, i64 %i`).")
GEP_UNSIZED = _r("gep-unsized", "getelementptr over a type with no known size", "range",
                 "A getelementptr over a type with no known size.",
                 "Use a sized element type in the getelementptr (no opaque struct or function type).")
GEP_INDEX_NO_RANGE = _r("gep-index-no-range", "getelementptr index with no range: {why}", "range",
                        "A getelementptr index with no range; the code is the rule's.", _RANGE, nested="why")
GEP_INDEX_UNREAD = _r("gep-index-unread", "getelementptr index with a range not read", "range",
                      "A getelementptr index's range could not be read (the compiled twin only).",
                      "Nothing in the kernel: run with `LLNOALIAS_PURE=1`, and report it if the pure-Python "
                      "run finds a range.")
GEP_INDEX_MAY_WRAP = _r("gep-index-may-wrap", "getelementptr index truncated to the index width may wrap", "range",
                        "A wide index truncated to the index width may wrap.",
                        "Compute the index in the index width (i32 for LDS, i64 for global memory) instead "
                        "of truncating a wider value, or bound it.")
GEP_INDEX_NEGATIVE = _r("gep-index-negative", "getelementptr index may be negative once sign-extended", "range",
                        "A narrow index of any value is negative once sign-extended.", "Add `nneg`/bound the index.")
OFFSET_NO_RANGE = _r("offset-no-range", "offset with no range: {why}", "range",
                     "An integer added to an address has no range; the code is the rule's.", _RANGE, nested="why")
RANGE_ARGUMENT = _r("range-argument", "argument {name}", "range", "An address that is a function's argument.",
                    "Inline the function into its kernel, so the address is traced to its buffer.")
NOT_A_ROOT = _r("not-a-root", "{name} is not a root", "range", "A global address that is not a root.",
                "`--lds all` makes sized LDS globals roots; other globals are never roots.")
ADDRESS_NOT_TRACED = _r("address-not-traced", "address not traced to a root", "range",
                        "An address that is not traced to a root.",
                        "Derive the address from an LDS global (getelementptr, or integer arithmetic on its "
                        "`ptrtoint`); `explain` shows where the trace stops.")
MAY_WRAP = _r("may-wrap", "{op} may wrap around{at}", "range", "The arithmetic may wrap around its width.",
              "Add `nuw`/`nsw`, or bound the operands.")
SHIFT_NON_CONSTANT = _r("shift-non-constant", "{op} by a non-constant amount{at}", "range",
                        "A shift by an amount that is not a constant.",
                        "Shift by a constant (a compile-time stride), or bound the result with a mask "
                        "(`and`).")
DIVISION_NON_CONSTANT = _r("division-non-constant", "{op} by a non-constant{at}", "range",
                           "A division or remainder by a value that is not a constant.",
                           "Divide by a constant (a compile-time tile size), or bound the result with a "
                           "mask or `urem` by a constant.")
DIVISION_BY_ZERO = _r("division-by-zero", "{op} by zero{at}", "range", "A division or remainder by zero.",
                      "Nothing: the division is undefined (or dead); fix the divisor.")
SDIV_MINUS_ONE = _r("sdiv-minus-one", "sdiv by -1{at}", "range", "A signed division by -1 may overflow.",
                    "Divide by a positive constant, or use `udiv`: `sdiv` by -1 overflows at the smallest "
                    "value.")
NOT_FOLLOWED = _r("not-followed", "'{op}' not followed by the range analysis{at}", "range",
                  "An instruction the range analysis does not follow.", _RANGE)
TRUNC_DROPS_BITS = _r("trunc-drops-bits", "{cast} may drop bits{at}", "range", "A trunc of a value that may not fit.",
                      "Truncate only values known to fit (mask first), keep the wider type, or mark the "
                      "trunc `nuw`/`nsw`.")
#: the word that marks :data:`DEPENDS_ON_ITSELF` inside a range query's reason (or one that
#: wraps it): inside a loop being solved, such a value lets its phi iterate
ITSELF = "itself"
#: where a range reason applied (its ``{at}`` field), or ""
AT_LINE = " (line {line})"
DEPENDS_ON_ITSELF = _r("depends-on-itself", "value depends on itself through a loop", "range",
                       "A value computed from itself around a loop (its phi finds the bound).",
                       "Nothing: the loop's phi finds the bound; if it has none, bound the loop's trip "
                       "count.")
TOO_DEEP = _r("too-deep", "expression too deep", "range", "An expression deeper than the analysis follows.",
              "Simplify the offset expression (-O3 folds most of it), or accept the access with its root's "
              "scope.")
BUDGET_EXHAUSTED = _r("budget-exhausted", "range analysis budget exhausted", "range",
                      "The range analysis spent its budget for one query.",
                      "Simplify the offsets (fewer phis and loops feeding one address), or accept the "
                      "access with its root's scope; the budget keeps each query bounded.")
NOT_AN_INTEGER = _r("not-an-integer", "not an integer", "range", "The value is not an integer.",
                    "Nothing: a floating-point or vector value is no offset; compute offsets in integers.")
CONSTANT_NOT_INTEGER = _r("constant-not-integer", "constant {value} not read as an integer", "range",
                          "A constant operand that could not be read as an integer.",
                          "Write the constant as a plain integer; report it if it is one (llnoalias could "
                          "not read it).")
UNDEF_VALUE = _r("undef-value", "{value} value", "range", "An undef or poison operand.",
                 "Nothing: an undef or poison offset is undefined; give the value its real definition.")
VALUE_NOT_INTEGER = _r("value-not-integer", "value not read as an integer", "range",
                       "An operand that could not be read as an integer.",
                       "Report the operand (llnoalias's version and the line): it could not be read as an "
                       "integer.")
FUNCTION_ARGUMENT = _r("function-argument", "function argument {name}", "range",
                       "An integer argument with no known range.",
                       "Inline the function into its kernel, or compute the offset there from thread ids "
                       "and constants.")
CONSTANT_EXPRESSION = _r("constant-expression", "constant expression '{op}'", "range",
                         "A constant expression the range analysis does not follow.",
                         "Let the optimiser fold the constant expression (-O1 or more), or write the offset "
                         "as instructions.")
OP_RESULT = _r("op-result", "{kind} result{at}", "range", "The result of a cast or instruction not followed.",
               "Compute the offset with what the range analysis follows: add, `or disjoint`, shl and mul by "
               "constants, and, urem, min/max, zext/sext (docs/design.md section 2b).")
VALUE_LOADED = _r("value-loaded", "value loaded from memory{at}", "range",
                  "An integer loaded from memory has no known range.", "Use a `!range` on the load.")
NOT_UNDERSTOOD = _r("not-understood", "instruction not understood{at}", "range",
                    "An instruction the range analysis could not read.",
                    "Report the instruction (llnoalias's version and the line).")
FREEZE_IN_CONSTEXPR = _r("freeze-in-constexpr", "freeze in a constant expression", "range",
                         "A freeze inside a constant expression.",
                         "Let the optimiser fold the constant expression (-O1 or more).")
FREEZE_POISON = _r("freeze-poison", "freeze of a value that may be poison ('{what}', line {line})", "range",
                   "A freeze of a value whose flags make it poison where it wraps: its range is not its "
                   "operands'.",
                   "Drop the poison-generating flags (`nuw`, `nsw`, `exact`) from the frozen instruction, "
                   "or freeze its operands instead.")
FREEZE_POISON_RANGE = _r("freeze-poison-range", "freeze of a value that may be poison (range() of @{name}, line "
                         "{line})", "range", "A freeze of a call result whose range() may make it poison.",
                         "Drop the call's `range()` return attribute, or freeze its operands instead of its "
                         "result.")
FREEZE_TOO_LARGE = _r("freeze-too-large", "freeze of a value computed by too many instructions to check", "range",
                      "A freeze whose operand is computed by more instructions than are checked for poison.",
                      "Freeze the inputs of the computation instead of its result, or accept the access "
                      "with its root's scope.")
THREAD_ID_UNBOUNDED = _r("thread-id-unbounded", "thread id with no known bound", "range",
                         "A thread id in a kernel with no known work-group size.",
                         "Give the kernel a maximum work-group size (amdgpu-flat-work-group-size, maxntid).")

# ------------------------------------------------ readonly and writeonly
ALREADY = _r("already", "already in the input", "escape", "The input already says so.",
             "Nothing: the input says so already.")
NO_ESCAPES = _r("escapes", "no: escapes at line {line} ({how})", "escape",
                "The pointer escapes; what it reaches is not followed.",
                "Keep the pointer inside the kernel: do not store it or pass it to a call or inline asm "
                "(inline the callee).", nested="how")
NO_WRITTEN = _r("written", "no: written at line {line}", "escape", "The argument's buffer is written.",
                "Nothing: the kernel writes the buffer, so it is not readonly.")
NO_READ = _r("read", "no: read at line {line}", "escape", "The argument's buffer is read.",
             "Nothing: the kernel reads the buffer, so it is not writeonly.")
NO_INPUT_WRITEONLY = _r("input-writeonly", "no: the input says writeonly", "escape",
                        "The input says writeonly, so not readonly.",
                        "Nothing: the input's `writeonly` rules out `readonly`.")
NO_PROVED_READONLY = _r("proved-readonly", "no: proved readonly", "escape", "Proved readonly, so not writeonly.",
                        "Nothing: a buffer that is only read is not writeonly.")
ESCAPE_UNREADABLE = _r("escape-unreadable", "used by an instruction llnoalias cannot read", "escape",
                       "The pointer is used by an instruction that could not be read.",
                       "Report the instruction (llnoalias's version and the line).")
ESCAPE_STORED = _r("escape-stored", "stored to memory", "escape", "The pointer is stored to memory.",
                   "Do not store the pointer to memory; a stored pointer may be written through elsewhere.")
ESCAPE_STORED_ATOMIC = _r("escape-stored-atomic", "stored to memory by an atomic", "escape",
                          "The pointer is stored to memory by an atomic.",
                          "Do not store the pointer to memory; a stored pointer may be written through "
                          "elsewhere.")
ESCAPE_USED = _r("escape-used", "used by '{op}'", "escape", "The pointer is used by an instruction not followed.",
                 "Use the pointer only in loads, stores, getelementptr and casts.")
ESCAPE_NOT_CONVERGED = _r("escape-not-converged", "analysis did not converge", "escape",
                          "The escape analysis did not converge.",
                          "Report the kernel: the escape analysis is bounded and gave up; the argument gets "
                          "no readonly/writeonly.")
ESCAPE_WRITTEN_BY = _r("escape-written-by", "written to memory by {name}", "escape",
                       "An intrinsic writes the pointer to memory.",
                       "Do not pass the pointer as the data a memory intrinsic writes.")
ESCAPE_PASSED = _r("escape-passed", "passed to {callee}", "escape", "The pointer is passed to a call.",
                   "Inline the callee into the kernel (`__forceinline__`, `always_inline`).")
#: the callee named when it is indirect or inline asm
INDIRECT_OR_ASM_CALLEE = "an indirect or inline-asm callee"
