"""The command line on input llvmlite's LLVM rejects (design section 6): exit 2, the error
located in the input file, nothing written; ``--no-verify`` reads it as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.run import run_cli

CASES = {
    # a type mismatch that llnoalias's reader does not check
    "mismatch": ("define i32 @f(i32 %a) {\n  %x = add i64 %a, 1\n  ret i32 %x\n}\n", "2:16",
                 "defined with type 'i32' but expected 'i64'"),
    # a file cut inside '!7 = '
    "cut": ("define void @f(ptr addrspace(3) %p) {\n  store i32 0, ptr addrspace(3) %p\n  ret void\n}\n"
            "!7 = ", "5:6", "Expected '!' here"),
    # a token no LLVM reads (a placeholder of LLVM's own tests, left unsubstituted)
    "code-object": ('define amdgpu_kernel void @k(ptr addrspace(1) noalias %p, ptr addrspace(1) noalias %q) {\n'
                    "  %v = load i32, ptr addrspace(1) %p\n  store i32 %v, ptr addrspace(1) %q\n  ret void\n}\n"
                    '!llvm.module.flags = !{!0}\n!0 = !{i32 1, !"amdhsa_code_object_version", i32 CODE_OBJECT_VERSION}\n',
                    "7:50", "expected value token"),
    # a verifier error: found by the instruction it prints
    "range": ("define i32 @f(ptr %p) {\n  %x = load i32, ptr %p, !range !0\n  ret i32 %x\n}\n"
              "!0 = !{i64 0, i64 4}\n", "2:3", "Range types must match instruction type"),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("existing", [False, True])
def test_rejected_input_is_a_located_error_and_nothing_is_written(name: str, existing: bool, tmp_path: Path) -> None:
    text, where, fragment = CASES[name]
    src = tmp_path / "in.ll"
    src.write_text(text)
    out = tmp_path / "out.ll"
    if existing:
        out.write_text("old\n")
    res = run_cli([str(src), "-o", str(out)])
    assert res.exit_code == 2, res.stderr
    assert f"{src}:{where}: error: " in res.stderr and fragment in res.stderr, res.stderr
    assert "<string>" not in res.stderr
    assert (out.read_text() == "old\n") if existing else not out.exists()


def test_quiet_and_werror_do_not_hide_it(tmp_path: Path) -> None:
    text, where, _ = CASES["mismatch"]
    src = tmp_path / "in.ll"
    src.write_text(text)
    for flags in (["-q"], ["-Werror"]):
        res = run_cli([str(src), *flags, "-o", str(tmp_path / "out.ll")])
        assert res.exit_code == 2 and f":{where}: error:" in res.stderr, (flags, res.stderr)


def test_no_verify_reads_it_as_before(tmp_path: Path) -> None:
    text, _, _ = CASES["mismatch"]
    src = tmp_path / "in.ll"
    src.write_text(text)
    out = tmp_path / "out.ll"
    res = run_cli([str(src), "--no-verify", "-o", str(out)])
    assert res.exit_code == 0, res.stderr
    assert out.read_text() == text


def test_what_only_llvm22s_verifier_rejects_goes_on_with_one_note(tmp_path: Path) -> None:
    # LLVM 19's own AMDGPU tests write an empty feature first; LLVM 22's verifier rejects it
    text = ('define amdgpu_kernel void @k(ptr addrspace(1) %p) #0 {\n  store i32 0, ptr addrspace(1) %p\n'
            '  ret void\n}\nattributes #0 = { "target-features"=",+wavefrontsize64" }\n')
    src = tmp_path / "in.ll"
    src.write_text(text)
    out = tmp_path / "out.ll"
    res = run_cli([str(src), "-o", str(out)])
    assert res.exit_code == 0, res.stderr
    assert out.read_text() == text
    assert res.stderr.count("empty-target-features") == 1 and "error" not in res.stderr
