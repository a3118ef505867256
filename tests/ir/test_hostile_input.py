"""Bounded work on any input (design section 6): brackets nested past the reader's limit are
located errors (exit 2, within a second, in the compiled and the pure-Python reader alike);
legal but extreme inputs (i8388608, a few thousand nested constant expressions) are read and
annotated; unnamed values are read as LLVM's parser reads them.

Integer widths past LLVM's limit, the first undefined value in file order whatever the hash
seed, and a call to an undeclared function that is not an intrinsic are error fixtures
(``fixtures/errors/int_width_*.ll``, ``undefined_first_*.ll``, ``undeclared_call.ll``, checked
by tests/ir/test_error_fixtures.py in both modes under four hash seeds).

The time bound is enforced by a generous subprocess timeout (a hang or a minute of big-int
arithmetic fails it), not by timing assertions."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.ir import limits
from llnoalias.ir import operands as opparse
from llnoalias.ir.limits import MAX_INT_BITS, MAX_NESTING, PARSE_DEPTH
from llnoalias.ir.numbering import produces_value
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from tests.support.files import ROOT
from tests.support.switches import twin

#: the compiled scan (``_body_reader.hostile``), or None
cscan = twin("body_reader")
#: generous: each run takes well under a second; a hang or megabit arithmetic does not
TIMEOUT = 30
MODES = [pytest.param("", id="compiled"), pytest.param("1", id="pure")]

HEAD = 'target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"\ntarget triple = "nvptx64-nvidia-cuda"\n'
SMEM = "@smem = external addrspace(3) global [0 x i8], align 16\n"


def region_kernel(width: str) -> str:
    """Two regions of one shared-memory block, indexed in ``i{width}`` (the range analysis
    runs on the index: where a huge width used to cost a minute or a MemoryError)."""
    return (HEAD + SMEM + "\ndefine ptx_kernel void @k() {\nentry:\n"
            "  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
            f"  %idx = zext nneg i32 %tid to i{width}\n"
            "  %a = getelementptr inbounds float, ptr addrspace(3) @smem, " f"i{width} %idx\n"
            "  %x = load float, ptr addrspace(3) %a, align 4\n"
            "  %b0 = getelementptr inbounds i8, ptr addrspace(3) @smem, i64 8192\n"
            f"  %b = getelementptr inbounds float, ptr addrspace(3) %b0, i{width} %idx\n"
            "  store float %x, ptr addrspace(3) %b, align 4\n"
            "  ret void\n}\n\ndeclare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n")


def nested_constexpr(depth: int) -> str:
    """A store through a getelementptr constant expression nested ``depth`` deep, and a
    store to another buffer."""
    ce = "@g"
    for _ in range(depth):
        ce = f"getelementptr (i8, ptr addrspace(3) {ce}, i64 1)"
    return (HEAD + "@g = addrspace(3) global [8 x i8] zeroinitializer\n"
            "@h = addrspace(3) global [8 x i8] zeroinitializer\n\n"
            "define ptx_kernel void @k() {\nentry:\n"
            f"  store i8 1, ptr addrspace(3) {ce}, align 1\n"
            "  store i8 2, ptr addrspace(3) @h, align 1\n"
            "  ret void\n}\n")


def nested_type(depth: int) -> str:
    ty = "i8"
    for k in range(depth):
        ty = f"[1 x {ty}]" if k % 2 else f"{{ {ty} }}"
    return (HEAD + "define ptx_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b) {\nentry:\n"
            f"  %v = load {ty}, ptr addrspace(1) %a, align 1\n"
            f"  store {ty} %v, ptr addrspace(1) %b, align 1\n"
            "  ret void\n}\n")


def run(tmp_path: Path, text: str, pure: str, *args: str, seed: str = "0") -> subprocess.CompletedProcess[str]:
    src = tmp_path / "in.ll"
    src.write_text(text)
    env = {**os.environ, "LLNOALIAS_PURE": pure, "PYTHONHASHSEED": seed}
    env.pop("NO_COLOR", None)
    return subprocess.run([sys.executable, "-m", "llnoalias", str(src), "-o", str(tmp_path / "out.ll"),
                           "--no-verify", *args], capture_output=True, text=True, env=env, timeout=TIMEOUT)


def assert_located(proc: subprocess.CompletedProcess[str], tmp_path: Path, line: int, col: int, what: str) -> None:
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    first = proc.stderr.splitlines()[0]
    assert re.fullmatch(rf"llnoalias: .*in\.ll:{line}:{col}: error: .*", first), first[:300]
    assert what in first, first[:300]
    assert not (tmp_path / "out.ll").exists()


# ------------------------------------------------------------------ integer widths

@pytest.mark.parametrize("pure", MODES)
def test_the_widest_legal_integer_is_read_and_costs_no_megabit_arithmetic(tmp_path: Path, pure: str) -> None:
    proc = run(tmp_path, region_kernel(str(MAX_INT_BITS)), pure)
    assert proc.returncode == 0, proc.stderr
    # a chain of wide operations feeding the addresses: the range analysis gives up on
    # the width at once (no tag from a range it did not compute)
    lines = [HEAD + SMEM + "define ptx_kernel void @k() {\nentry:\n  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()",
             f"  %x0 = zext nneg i32 %tid to i{MAX_INT_BITS}"]
    for k in range(1, 400):
        op = ("add", "mul", "and", "shl", "or")[k % 5]
        lines.append(f"  %x{k} = {op} i{MAX_INT_BITS} %x{k - 1}, {1 if op == 'shl' else 3}")
        if k % 10 == 0:
            lines.append(f"  %p{k} = getelementptr inbounds float, ptr addrspace(3) @smem, i{MAX_INT_BITS} %x{k}")
            lines.append(f"  store float 1.0, ptr addrspace(3) %p{k}, align 4")
    lines.append("  ret void\n}\ndeclare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n")
    proc = run(tmp_path, "\n".join(lines), pure)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("pure", MODES)
def test_a_wide_index_gives_no_range_and_no_region_claim(tmp_path: Path, pure: str) -> None:
    """i2048 is legal but past what the range analysis computes in: the two accesses of
    one block get no regions of their own (the i64 spelling of the same kernel does)."""
    narrow = run(tmp_path, region_kernel("64"), pure, "--lds", "all")
    assert narrow.returncode == 0, narrow.stderr
    assert "smem[0,4096)" in (tmp_path / "out.ll").read_text()
    wide = run(tmp_path, region_kernel("2048"), pure, "--lds", "all")
    assert wide.returncode == 0, wide.stderr
    out = (tmp_path / "out.ll").read_text()
    assert "smem[" not in out and "!alias.scope" not in out


@pytest.mark.parametrize("pure", MODES)
@pytest.mark.parametrize("spec", ["p3:4294967295:32", "p:4294967295:64:64:4294967295", "p3:8388608:32:32:8388608"])
def test_a_data_layout_with_huge_pointers_costs_no_megabit_arithmetic(tmp_path: Path, pure: str, spec: str) -> None:
    """LLVM 19 accepts pointer and index widths up to 2**32 - 1: the region measurement and
    the range analysis must not compute modulo 2**width for them."""
    text = region_kernel("64").replace('target datalayout = "e-', f'target datalayout = "e-{spec}-')
    proc = run(tmp_path, text, pure, "--lds", "all")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("text", [
    'source_filename = "i4294967296:64"\n',         # in a string
    "; i0 and i99999999 in a comment\n",
    "@\"i0\" = global i8 0\n@i00 = global i8 0\n@x.i99999999 = global i8 0\n%i0 = type { i8 }\n",
    "!0 = !{!\"i0\"}\n",
    "@a = global i32 0 ; i4294967296\n",
])
def test_names_strings_and_comments_are_no_integer_types(text: str) -> None:
    assert limits.first_hostile(text) is None
    parse_module(SourceFile("t.ll", text))


def test_a_width_in_the_data_layout_is_the_data_layout_readers_error() -> None:
    """Not the lexer's: LLVM's data layout reader refuses it, and so does llnoalias's."""
    text = 'target datalayout = "i4294967296:64"\n'
    assert limits.first_hostile(text) is None
    with pytest.raises(LLNoaliasError) as err:
        parse_module(SourceFile("t.ll", text))
    assert err.value.format().startswith(
        "llnoalias: t.ll:1:23: error: invalid data layout: size must be a non-zero 24-bit integer: 'i4294967296:64'")


# ------------------------------------------------------------------ nesting

@pytest.mark.slow
@pytest.mark.parametrize("pure", MODES)
@pytest.mark.parametrize("depth", [500, 3000])
def test_deep_constant_expressions_are_read(tmp_path: Path, pure: str, depth: int) -> None:
    """LLVM reads these (opt-19 up to about 5000): llnoalias too, without recursion the
    input can exhaust; past ``PARSE_DEPTH`` the access is unknown (no claim), the other
    one keeps its tag, and the output is the input plus tags."""
    text = nested_constexpr(depth)
    proc = run(tmp_path, text, pure, "--lds", "all")
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = (tmp_path / "out.ll").read_text()
    deep_line = next(ln for ln in out.splitlines() if ln.startswith("  store i8 1"))
    assert "!alias.scope" not in deep_line and "!noalias" not in deep_line
    assert re.sub(r", !(alias\.scope|noalias) !\d+", "", out).startswith(text)


@pytest.mark.parametrize("pure", MODES)
@pytest.mark.parametrize("make", [nested_constexpr, nested_type], ids=["constexpr", "type"])
def test_nesting_past_the_limit_is_a_located_error(tmp_path: Path, pure: str, make) -> None:
    text = make(MAX_NESTING + 50)
    proc = run(tmp_path, text, pure)
    line_no = next(k for k, ln in enumerate(text.splitlines(), 1) if len(ln) > MAX_NESTING)
    line = text.splitlines()[line_no - 1]
    depth, col = 0, 0
    while depth <= MAX_NESTING:
        ch = line[col]
        col += 1
        depth += (ch in "([{<") - (ch in ")]}>")
    assert_located(proc, tmp_path, line_no, col, f"nested more than {MAX_NESTING} deep")


def test_the_lazy_readers_stop_at_their_depth() -> None:
    """A type or constant nested past ``PARSE_DEPTH`` reads as unknown; one level less is read."""
    for depth, readable in ((PARSE_DEPTH - 2, True), (PARSE_DEPTH + 5, False)):
        mod = parse_module(SourceFile("t.ll", nested_type(depth)))
        load = mod.functions[0].instrs[0]
        assert (opparse.parse(mod, load).kind == "load") is readable
        mod = parse_module(SourceFile("t.ll", nested_constexpr(depth)))
        store = mod.functions[0].instrs[0]
        assert (opparse.parse(mod, store).kind == "store") is readable
    assert opparse.parse_constant_text("ptr " + nested_constexpr(PARSE_DEPTH + 5).split("store i8 1, ptr ")[1]
                                       .split(", align")[0]) is None


# -------------------------------------------------- the compiled scan equals Python's

def _random_text(rng: random.Random) -> str:
    pieces = ["i0", "i8388608", "i8388609", "i00000008", "i4294967296", "%i0", "@i0", "!i0", "x.i0", "i0:",
              "i32", "(", ")", "[", "]", "{", "}", "<", ">", '"', '"i0"', "; i0 ", "\n", " ", ",", "i",
              "i1234567", "i9999999", "c\"(\"", "#i0", "^i0", "\\i0", "i0x", "$i0", "addrspace", "addrspace(",
              "addrspace (\t16777216)", "addrspace(16777215", "00", "0", "123456789", "16777216", "99999999", "x",
              ".addrspace(", "\t", "addrspace(0000000016777216)"]
    return "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 60)))


def test_the_compiled_scan_finds_what_the_python_scan_finds() -> None:
    if cscan is None:
        pytest.skip("the compiled reader is not built here (no C compiler or LLNOALIAS_PURE)")
    rng = random.Random(24)
    for _ in range(3000):
        text = _random_text(rng)
        for bits, depth in ((MAX_INT_BITS, MAX_NESTING), (MAX_INT_BITS, 3)):
            want = [f for f in (_py_width(text, bits), _py_deep(text, depth)) if f is not None]
            got = cscan.hostile(text, bits, depth)
            assert got == (min(want) if want else None), repr(text)
            # with the address spaces (``first_hostile`` asks for them)
            space = limits._first_addrspace(text)
            want = want + [space] if space is not None else want
            got = cscan.hostile(text, bits, depth, limits.MAX_ADDRSPACE)
            assert got == (min(want) if want else None), repr(text)


def _py_width(text: str, bits: int) -> tuple[int, int] | None:
    saved = limits.MAX_INT_BITS
    limits.MAX_INT_BITS = bits
    try:
        return limits._first_width(text)
    finally:
        limits.MAX_INT_BITS = saved


def _py_deep(text: str, depth: int) -> tuple[int, int] | None:
    saved = limits.MAX_NESTING
    limits.MAX_NESTING = depth
    try:
        return limits._first_deep(text)
    finally:
        limits.MAX_NESTING = saved


# ------------------------------------------------- implicit numbering, intrinsics

PARSE_FIXTURES = sorted(Path(ROOT, "fixtures", "parse").glob("*.ll"))


@pytest.mark.parametrize("path", PARSE_FIXTURES, ids=lambda p: p.name)
def test_the_parse_fixtures_are_valid_llvm_and_stay_valid_once_annotated(path: Path, tmp_path: Path) -> None:
    opt = shutil.which("opt-19")
    if opt is None:
        pytest.skip("opt-19 is not installed: LLVM's verifier cannot check the fixture")
    ok = subprocess.run([opt, "-passes=verify", "-disable-output", str(path)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    out = tmp_path / "out.ll"
    proc = subprocess.run([sys.executable, "-m", "llnoalias", "--args", "noalias", str(path), "-o", str(out)],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    assert "!alias.scope" in out.read_text()
    ok = subprocess.run([opt, "-passes=verify", "-disable-output", str(out)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr


def _names(text: str) -> list[tuple[list[str], list[tuple[str | None, str]]]]:
    mod = parse_module(SourceFile("t.ll", text))
    return [(fn.blocks, [(i.name, i.opcode) for i in fn.instrs]) for fn in mod.functions]


def test_unnamed_values_and_blocks_are_numbered_as_llvm_numbers_them() -> None:
    text = (Path(ROOT) / "fixtures" / "parse" / "implicit_numbering.ll").read_text()
    [(blocks, insts)] = _names(text)
    assert blocks == ["%1", "%8", "%10"]
    assert [n for n, _ in insts] == ["%2", "%3", "%4", "%5", None, None, None, "%6", None, "%7", None, "%9", None,
                                     None, "%11", "%20", "%21", "%22", None, None]


@pytest.mark.slow
@pytest.mark.parametrize("pure", MODES)
def test_numbering_with_gaps_old_labels_and_numbered_arguments(tmp_path: Path, pure: str) -> None:
    # an old-style '; <label>:3:' block is unnamed: it takes its number; an unnamed
    # argument after '%5' is %6
    text = ("define i32 @f(i32 %5, i32) {\n  add i32 %5, %6\n  br label %9\n\n; <label>:9:\n"
            "  %12 = add i32 %7, 1\n  mul i32 %12, 2\n  ret i32 %13\n}\n")
    proc = run(tmp_path, text, pure)
    assert proc.returncode == 0, proc.stderr
    env = {**os.environ, "LLNOALIAS_PURE": pure}
    got = subprocess.run([sys.executable, "-c", "from tests.ir.test_hostile_input import _names; "
                          f"print(_names(open({str(tmp_path / 'in.ll')!r}).read()))"],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=TIMEOUT)
    assert got.stdout.strip() == str([(["%7", "%9"], [("%8", "add"), (None, "br"), ("%12", "add"),
                                                    ("%13", "mul"), (None, "ret")])]), got.stderr


@pytest.mark.slow
@pytest.mark.parametrize("line, value", [
    ("call void @f()", False), ("tail call fastcc void @f()", False), ("call void (ptr, ...) @f(ptr null)", False),
    ("call nnan void @f()", False), ("call addrspace(4) void @f()", False), ("call cc 10 void @f()", False),
    ('call void asm sideeffect "", ""()', False), ("call i32 @f()", True), ("call noundef i32 @f()", True),
    ("call range(i32 0, 10) i32 @f()", True), ("call { i32, i32 } @f()", True), ("call %T @f()", True),
    ("call ptr @f()", True), ("call <2 x i32> @f()", True), ("call voidx @f()", True), ("store i32 0, ptr %p", False),
    ("fence seq_cst", False), ("alloca i32", True), ("load i32, ptr %p", True), ("atomicrmw add ptr %p, i32 1 seq_cst", True),
    ("unknownop i32 1", False),
])
def test_which_unnamed_instructions_take_a_number(line: str, value: bool) -> None:
    op, _, _ = line.partition(" ")
    assert produces_value(op, line[len(op):]) is value
    # the compiled reader agrees
    text = f"%T = type {{ i32 }}\ndeclare void @f(...)\ndefine void @k(ptr %p) {{\n  {line}\n  ret void\n}}\n"
    try:
        [(_, insts)] = _names(text)
    except LLNoaliasError:
        pytest.fail("not read")
    assert (insts[0][0] == "%1") is value
    if cscan is not None:
        env = {**os.environ, "LLNOALIAS_PURE": "1"}
        pure = subprocess.run([sys.executable, "-c", "from tests.ir.test_hostile_input import _names; "
                               f"print(_names({text!r}))"], capture_output=True, text=True, env=env, cwd=ROOT,
                              timeout=TIMEOUT)
        assert pure.stdout.strip() == str(_names(text)), pure.stderr


# ------------------------------------------------------------------ out-of-range numbers (design section 6)

BIG = "7" * 4301


def _hostile_numbers() -> list[tuple[str, str, int, int, str]]:
    """(name, text, line, col, message fragment): each number LLVM refuses, or that the
    analysis would have computed with past what it can (a C long, a shift, Python's int())."""
    space63 = region_kernel("64").replace("@smem = external addrspace(3)",
                                          "@smem = external addrspace(9223372036854775808)")
    space24 = region_kernel("64").replace("ptr addrspace(3) %b0", "ptr addrspace(16777216) %b0")
    layout64 = region_kernel("64").replace('datalayout = "e-', 'datalayout = "e-p3:18446744073709551616:32-')
    layout0 = region_kernel("64").replace('datalayout = "e-', 'datalayout = "e-p3:0:0-')
    index0 = region_kernel("64").replace('datalayout = "e-', 'datalayout = "e-p3:32:32:32:0-')
    wide = region_kernel("1" * 4301)
    ranged = region_kernel("64").replace("sreg.tid.x()\n", "sreg.tid.x(), !range !0\n", 1) + f"!0 = !{{i32 0, i32 {BIG}}}\n"
    return [
        ("addrspace 2**63", space63, 3, 28, "invalid address space, must be a 24-bit integer: '9223372036854775808'"),
        ("addrspace 2**24", space24, 12, 52, "invalid address space, must be a 24-bit integer: '16777216'"),
        ("pointer size 2**64", layout64, 1, 27,
         "invalid data layout: pointer size must be a non-zero 32-bit integer: 'p3:18446744073709551616:32'"),
        ("pointer size 0", layout0, 1, 27, "invalid data layout: pointer size must be a non-zero 32-bit integer"),
        ("index size 0", index0, 1, 36, "invalid data layout: index size must be a non-zero 32-bit integer"),
        ("4301-digit width", wide, 8, 32, "bitwidth for integer type out of range: 'i11111111111111111111111...'"),
        ("4301-digit constant", ranged, 18, 19, "number of 4301 digits: longer than llnoalias reads (4300 digits)"),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("case", _hostile_numbers(), ids=lambda c: c[0])
def test_out_of_range_numbers_are_located_errors_alike_in_both_modes(tmp_path: Path, case: tuple) -> None:
    """The issue's hostile numbers: an OverflowError in the compiled range solver, a negative
    shift count, Python's int-conversion limit in pure mode only. Now each is the same
    located error (exit 2) in compiled and pure-Python mode, before any analysis runs."""
    _, text, line, col, what = case
    got = []
    for pure in ("", "1"):
        proc = run(tmp_path, text, pure, "--lds", "all")
        assert_located(proc, tmp_path, line, col, what)
        got.append((proc.returncode, proc.stderr))
    assert got[0] == got[1]


@pytest.mark.parametrize("layout, bad", [
    ("e-p3:32:32", None),
    ("e-p:4294967295:64:64:4294967295", None),          # LLVM 19 reads 32-bit sizes
    ("e-p16777215:32:32", None),
    ("e-p16777216:32:32", "address space must be a 24-bit integer"),
    ("e-p3:32:0", "ABI alignment must be a non-zero power of two"),
    ("e-p3:32:24", "ABI alignment must be a non-zero power of two"),
    ("e-p3:32:32:0", "preferred alignment"),
    ("e-p3:4294967296:32", "pointer size must be a non-zero 32-bit integer"),
    ("e-i0:8", "size must be a non-zero 24-bit integer"),
    ("e-v16777216:8", "size must be a non-zero 24-bit integer"),
    ("e-i32:0", "ABI alignment"),
    ("e-p3:" + "9" * 5000 + ":32", "pointer size"),        # not converted: no ValueError
    ("e-m:e-p3:x:32-ni:7:8:9-A5-G1-S32-n32:64", None),       # not numbers, or not read here: LLVM's to judge
])
def test_data_layout_numbers_every_llvm_refuses(layout: str, bad: str | None) -> None:
    from llnoalias.ir.datalayout import DataLayout, layout_error

    got = layout_error(layout)
    if bad is None:
        assert got is None
        DataLayout(layout)
    else:
        assert got is not None and bad in got[1], got
        assert layout[got[0] - 1] in "-:pifv"  # the offset is a field's start


def test_the_added_scans_find_nothing_in_real_code() -> None:
    """The address-space and long-number searches run in both modes on every input (a
    regex with a literal prefix, and one character in 2150 sampled): on a real Triton
    kernel they find nothing."""
    text = (Path(ROOT) / "fixtures/corpus/triton39/matmul_128x128x64_w8s3_sm90.ll").read_text() * 3
    assert limits._first_addrspace(text) is None and limits._first_long_number(text) is None
    # a long run inside a string or a comment is text; in a name it is part of the name
    assert limits._first_long_number(f'!0 = !{{!"{BIG}"}}\n; {BIG}\n@a{BIG} = global i8 0\n') is None
    assert limits._first_long_number(f"@g = global i8 -{BIG}\n") == (len("@g = global i8 -"), 3)
