"""The annotate path checks itself and is never worse (design section
4b): an AMDGPU module with an LDS-DMA is compiled before and after (one compile of each form),
and per function the input's lines are written where llnoalias's claims add a race (a warning),
spills or vmcnt waits (a note); ``--no-check`` skips it; other modules are never compiled."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from llnoalias.check import best
from llnoalias.cli.entry import main as entry_main
from tests.support.files import ROOT
from tests.support.run import load_script, run_cli

# (a module without LDS-DMA that the defaults annotate: two dynamic LDS names, bytes apart)
NO_DMA = ROOT / "fixtures" / "lds" / "dynamic_apart_kept.ll"
DMA = ROOT / "fixtures" / "check" / "branch_join_scoped_waits.ll"
DMA_FIXTURES = sorted((ROOT / "fixtures" / "dma").glob("*.ll"))
#: FlyDSL's 8-wave GEMM: LLVM 22 gives one function more vmcnt waits with the claims than without
GEMM_8WAVE = ROOT / "fixtures" / "corpus" / "flydsl" / "fp8_gemm_8wave_dynshared_gfx950_k1024.ll.gz"


def _fast(args: list[str]) -> int:
    """The plain command line's fast path (no click), in-process."""
    try:
        entry_main(args)
    except SystemExit as done:
        return int(done.code or 0)
    return 0


class _Recorder:
    """``check.best.choose`` replaced: what it was asked, and the annotated text back."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def __call__(self, annotated: str, original: str, path: str, **kwargs: object) -> best.BestChoice:
        self.calls.append((annotated, original))
        return best.BestChoice(annotated)


def _no_codegen(*args: object, **kwargs: object) -> bytes:
    raise AssertionError("a module without an LDS-DMA must not be compiled")


@pytest.mark.parametrize("fast", [False, True])
def test_a_module_without_lds_dma_is_never_compiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    fast: bool) -> None:
    from llnoalias.backends import codegen

    monkeypatch.setattr(codegen, "generate", _no_codegen)
    monkeypatch.setattr(best, "choose", _no_codegen)
    out = tmp_path / "out.ll"
    args = ["--no-verify", str(NO_DMA), "-o", str(out)]
    code = _fast(args) if fast else run_cli(args).exit_code
    assert code == 0
    assert out.read_text() != NO_DMA.read_text(), "the module was annotated (and still not compiled)"


@pytest.mark.parametrize("fast", [False, True])
def test_an_lds_dma_module_is_checked_once_unless_no_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          fast: bool) -> None:
    rec = _Recorder()
    monkeypatch.setattr(best, "choose", rec)
    out = tmp_path / "out.ll"
    args = ["--no-verify", "--args", "noalias", str(DMA), "-o", str(out)]
    assert (_fast(args) if fast else run_cli(args).exit_code) == 0
    assert len(rec.calls) == 1
    annotated, original = rec.calls[0]
    assert original == DMA.read_text() and annotated == out.read_text() != original
    assert (_fast(["--no-check", *args]) if fast else run_cli(["--no-check", *args]).exit_code) == 0
    assert len(rec.calls) == 1, "--no-check compiles nothing"


def test_help_says_what_the_check_costs() -> None:
    res = run_cli(["annotate", "--help"])
    assert "--no-check" in res.stdout.decode() and "two compiles" in res.stdout.decode()


@pytest.mark.slow
def test_a_function_whose_claims_race_gets_the_inputs_lines_and_one_warning(
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("llvmlite", reason="llvmlite's LLVM generates the code the check reads")
    from llnoalias.check.checker import check_text
    from llnoalias.cli.best import keep_never_worse
    from tests.support.check import racing_pair

    annotated, original = racing_pair()
    text = keep_never_worse(annotated, original, "k.ll", mcpu=None, codegen="llvmlite")
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "withdrew llnoalias's claims in k:" in err
    assert check_text(text, "k.ll").clean
    # @k has the input's lines (@other's lines are the same in both forms)
    assert text == original


def _measure(text: str, path: str, mcpu: str | None) -> tuple[bool, int, int]:
    """Clean, vmcnt waits, spills of ``text`` (counted by ``stats.counters`` in the code the check judged)."""
    from llnoalias.check.checker import check_text
    from llnoalias.stats import counters

    res = check_text(text, path, mcpu=mcpu)
    total = counters.collect(res.asm, path).total
    return res.clean, total["vmcnt"], total["vgpr_spill"] + total["sgpr_spill"]


def _never_worse(tmp_path: Path, src: Path, mcpu: str | None, options: list[str]) -> None:
    out = tmp_path / f"{src.stem}.out.ll"
    res = run_cli(["--no-verify", "-q", *options, *(["--mcpu", mcpu] if mcpu else []), str(src), "-o", str(out)])
    assert res.exit_code == 0, res.stderr
    clean_in, vm_in, sp_in = _measure(src.read_text(), str(src), mcpu)
    clean_out, vm_out, sp_out = _measure(out.read_text(), str(out), mcpu)
    if clean_in:
        assert clean_out, f"{src.name}: the output races where the input does not"
        assert (sp_out, vm_out) <= (sp_in, vm_in), f"{src.name}: spills/vmcnt {sp_in}/{vm_in} -> {sp_out}/{vm_out}"


@pytest.mark.slow
@pytest.mark.parametrize("src", DMA_FIXTURES, ids=[p.name for p in DMA_FIXTURES])
def test_the_dma_fixtures_are_never_worse(tmp_path: Path, src: Path) -> None:
    pytest.importorskip("llvmlite", reason="llvmlite's LLVM generates the code the check reads")
    _never_worse(tmp_path, src, None if '"target-cpu"' in src.read_text() else "gfx950", [])


@pytest.mark.slow
@pytest.mark.parametrize("options", [[], ["--lds", "all", "--args", "noalias"]], ids=["defaults", "all"])
def test_generated_dma_kernels_are_never_worse(tmp_path: Path, options: list[str]) -> None:
    pytest.importorskip("llvmlite", reason="llvmlite's LLVM generates the code the check reads")
    kernels = load_script("dma_kernels")
    for k in kernels.generate_many(44, 6, fence=False):
        src = tmp_path / f"{k.name}.ll"
        src.write_text(k.text)
        _never_worse(tmp_path, src, None, options)


@pytest.mark.slow
def test_flydsl_gemm_keeps_the_input_where_the_claims_cost_waits(tmp_path: Path) -> None:
    pytest.importorskip("llvmlite", reason="llvmlite's LLVM generates the code the check reads")
    src = tmp_path / "gemm.ll"
    src.write_bytes(gzip.decompress(GEMM_8WAVE.read_bytes()))
    out = tmp_path / "out.ll"
    res = run_cli(["--no-verify", str(src), "-o", str(out)])
    assert res.exit_code == 0, res.stderr
    assert "kept the input's lines in" in res.stderr and "the claims cost vmcnt waits" in res.stderr
    _, vm_in, sp_in = _measure(src.read_text(), str(src), None)
    _, vm_out, sp_out = _measure(out.read_text(), str(out), None)
    assert (sp_out, vm_out) <= (sp_in, vm_in)


def test_without_a_code_generator_that_keeps_the_waits_the_output_is_written_unchecked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from llnoalias.backends import triton_backend
    from tests.support.explicit_waits import marked_plain

    monkeypatch.setattr(triton_backend, "available", lambda: False)
    src = tmp_path / "m.ll"
    src.write_text(marked_plain())
    checked, unchecked = tmp_path / "c.ll", tmp_path / "u.ll"
    res = run_cli(["--no-verify", "--args", "noalias", str(src), "-o", str(checked)])
    assert res.exit_code == 0, res.stderr
    assert ("warning: " + f"{src}: the output was not checked for LDS-DMA races: llvm.amdgcn.wait.asyncmark "
            "(explicit LDS-DMA waits) needs a code generator that keeps them") in res.stderr
    assert run_cli(["--no-verify", "--no-check", "--args", "noalias", str(src), "-o", str(unchecked)]).exit_code == 0
    assert checked.read_text() == unchecked.read_text() != src.read_text()


def test_the_checks_warning_fails_a_werror_run_and_writes_nothing(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from llnoalias.backends import triton_backend
    from tests.support.explicit_waits import marked_plain

    monkeypatch.setattr(triton_backend, "available", lambda: False)
    src, out = tmp_path / "m.ll", tmp_path / "o.ll"
    src.write_text(marked_plain())
    res = run_cli(["--no-verify", "-Werror", "--args", "noalias", str(src), "-o", str(out)])
    assert res.exit_code == 2 and "treated as error" in res.stderr
    assert not out.exists()
