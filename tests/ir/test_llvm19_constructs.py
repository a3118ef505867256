"""Constructs LLVM 19 reads that llnoalias's reader once rejected, each a fixture of
``fixtures/parse/`` cut from LLVM 19's own CodeGen tests: annotate keeps every byte of the input
where it claims nothing, and opt-19 reads what it writes where it claims something."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from llnoalias import LLNoaliasError, annotate
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from tests.support.files import FIXTURES

NAMES = ["multiline_asm_string", "continued_operands", "body_on_define_line", "global_continued"]


def _text(name: str) -> str:
    return (Path(FIXTURES) / "parse" / f"{name}.ll").read_text()


@pytest.mark.parametrize("name", NAMES)
def test_nothing_claimed_keeps_every_byte(name: str) -> None:
    text = _text(name)
    result = annotate(text, args="off", lds="off")
    assert not result.changed
    assert result.text == text


@pytest.mark.parametrize("name", NAMES)
def test_what_is_claimed_only_adds_to_the_lines(name: str) -> None:
    text = _text(name)
    result = annotate(text, args="noalias")
    assert result.changed
    out = result.text.splitlines()
    k = 0
    for line in text.splitlines():
        while not out[k].startswith(line.split("(")[0] if line.startswith("define") else line):
            k += 1  # (a metadata line added between)
        k += 1


@pytest.mark.parametrize("name", NAMES)
def test_opt19_reads_the_output(name: str, tmp_path: Path) -> None:
    opt = shutil.which("opt-19")
    if opt is None:
        pytest.skip("opt-19 is not installed")
    out = tmp_path / "out.ll"
    out.write_text(annotate(_text(name), args="noalias").text)
    proc = subprocess.run([opt, "-passes=verify", "-disable-output", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def _instructions(text: str, fn: str) -> list[str]:
    mod = parse_module(SourceFile("t.ll", text))
    return [mod.text[i.start:i.end].strip() for i in mod.functions_by_name[fn].instrs]


def test_the_lines_of_a_string_are_no_instructions() -> None:
    got = _instructions(_text("multiline_asm_string"), "@k")
    assert [s.split()[0] if not s.startswith("%") else s.split()[2] for s in got] == [
        "load", "call", "store", "call", "load", "call", "store", "ret"]
    assert got[1].endswith('", ""()') and got[3].endswith('v_nop_e64", ""()')
    assert got[5].endswith('"() #0')


def test_a_switch_table_on_the_lines_below_is_the_switchs() -> None:
    got = _instructions(_text("continued_operands"), "@k")
    assert got[1].startswith("switch") and got[1].endswith("label %exit0 ]")


def test_bodies_on_the_define_line() -> None:
    text = _text("body_on_define_line")
    assert _instructions(text, "@a") == ["ret i32 0"]
    assert _instructions(text, "@k")[0] == "%zext.offset = zext i32 %voffset to i64"
    assert len(_instructions(text, "@brace")) == 3


@pytest.mark.parametrize(("text", "fragment"), [
    ("define i32 @a() { %x = add i32 1, 2 ret i32 %x }\n", "one terminator"),
    ("define i32 @a() { ret i32 0 } ret\n", "nothing after the '}'"),
    ("define i32 @a() { }\n", "at least one basic block"),
])
def test_what_a_one_line_body_may_not_hold_is_a_located_error(text: str, fragment: str) -> None:
    with pytest.raises(LLNoaliasError, match=fragment) as exc:
        parse_module(SourceFile("t.ll", text))
    assert exc.value.location is not None and exc.value.location.line == 1


def test_a_line_after_a_global_that_starts_an_entity_is_not_the_globals() -> None:
    text = "@g = addrspace(1) global i32\n  0, align 4\n@h = addrspace(1) global i32 1\n"
    mod = parse_module(SourceFile("t.ll", text))
    assert set(mod.globals) == {"@g", "@h"} and mod.globals["@g"].has_initializer
    assert not mod.globals["@g"].is_external
