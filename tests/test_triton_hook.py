"""``llnoalias.triton``: the Triton compile hook (design section 9).

The first half runs against a small stand-in for ``triton`` put into ``sys.modules``, so the
hook's protocol is tested everywhere; the second half compiles real kernels ahead of time with
the installed Triton (no GPU needed: Triton ships its LLVM, and ptxas for NVIDIA) and skips
when Triton is missing.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import llnoalias
import llnoalias.triton as hook
from tests.support.check import racing_pair
from tests.support.files import ROOT

FIXTURE = ROOT / "fixtures" / "lds" / "two_bases_int.ll"
BAD_IR = "define void @k() {\n  %a = add i32 %nope, 1\n  ret void\n}\n"


# --- the hook's protocol, against a stand-in for triton -----------------------------------

#: whether the real Triton is installed, found before any test puts a fake one in sys.modules
TRITON_INSTALLED = importlib.util.find_spec("triton") is not None


@pytest.fixture
def fake_triton(monkeypatch: pytest.MonkeyPatch) -> types.SimpleNamespace:
    """A ``triton`` module with just ``knobs.runtime.add_stages_inspection_hook``."""
    runtime = types.SimpleNamespace(add_stages_inspection_hook=None)
    mod = types.ModuleType("triton")
    mod.knobs = types.SimpleNamespace(runtime=runtime)  # type: ignore[attr-defined]
    mod.__version__ = "0.0-fake"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "triton", mod)
    return runtime


def add_stages(runtime: types.SimpleNamespace, llir_text: str) -> dict[str, Any]:
    """What a backend's ``add_stages`` does: write its stages, then call the hook."""
    seen: list[str] = []
    stages: dict[str, Any] = {
        "ttgir": lambda src, md: src,
        "llir": lambda src, md: llir_text,
        "amdgcn": lambda src, md: seen.append(src) or "asm",
    }
    if runtime.add_stages_inspection_hook is not None:
        runtime.add_stages_inspection_hook(object(), stages, object(), "triton", None)
    stages["_seen"] = seen
    return stages


def run_stages(stages: dict[str, Any]) -> str:
    """Run the pipeline as ``triton.compile`` does; return what the codegen stage read."""
    module: Any = "ttgir-module"
    metadata: dict[str, Any] = {}
    for name in ("ttgir", "llir", "amdgcn"):
        module = stages[name](module, metadata)
    seen: list[str] = stages["_seen"]
    assert len(seen) == 1
    return seen[0]


def test_llir_stage_is_annotated_before_codegen(fake_triton: types.SimpleNamespace) -> None:
    text = FIXTURE.read_text()
    want = llnoalias.annotate(text).text
    assert want != text
    assert run_stages(add_stages(fake_triton, text)) == text  # no hook: untouched
    hook.enable()
    stages = add_stages(fake_triton, text)
    got = run_stages(stages)
    assert "!alias.scope" in got and got == want
    assert stages["ttgir"]("x", {}) == "x"  # other stages are not wrapped


def test_options_reach_annotate(fake_triton: types.SimpleNamespace) -> None:
    # a second kernel with two pointer arguments for may_alias 0,1 to name (an index past
    # every kernel's arguments is an error: the hook would leave the kernel unannotated)
    text = FIXTURE.read_text() + (
        "\ndefine amdgpu_kernel void @k2(ptr addrspace(1) %a, ptr addrspace(1) %b) {\n"
        "  %v = load i32, ptr addrspace(1) %a, align 4\n  store i32 %v, ptr addrspace(1) %b, align 4\n"
        "  ret void\n}\n")
    hook.enable(lds="off", args="off")
    assert run_stages(add_stages(fake_triton, text)) == text
    hook.enable(lds="all", args="noalias", may_alias=["0,1"], regions=False)
    want = llnoalias.annotate(text, lds="all", args="noalias", may_alias=["0,1"], regions=False)
    assert run_stages(add_stages(fake_triton, text)) == want.text
    assert hook.enabled() == llnoalias.AnnotateOptions(lds="all", args="noalias",
                                                      may_alias=((0, 1),), regions=False)


def key_of(runtime: types.SimpleNamespace) -> tuple[str, str]:
    key, digest = runtime.add_stages_inspection_hook()
    assert isinstance(key, str) and isinstance(digest, str) and len(digest) == 64
    return key, digest


def test_cache_key_changes_with_options_and_version(fake_triton: types.SimpleNamespace,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    hook.enable()
    default = key_of(fake_triton)
    assert llnoalias.__version__ in default[0]
    hook.enable()
    assert key_of(fake_triton) == default  # same options: same key, the cache is reused
    keys = {default}
    for kw in ({"lds": "all"}, {"args": "noalias"}, {"may_alias": ["0,2"]}, {"regions": False},
               {"strict": True}):
        hook.enable(**kw)  # type: ignore[arg-type]
        keys.add(key_of(fake_triton))
    assert len(keys) == 6
    hook.enable()
    monkeypatch.setattr(llnoalias, "__version__", "99.0")
    assert key_of(fake_triton)[1] != default[1]
    assert "99.0" in key_of(fake_triton)[0]


def test_disable_removes_the_hook_and_keeps_one_installed_before(
        fake_triton: types.SimpleNamespace) -> None:
    calls: list[str] = []

    def theirs(*args: Any) -> Any:
        if not args:
            return "theirs-key", "0" * 64
        calls.append("stages")
        args[1]["ttgir"] = lambda src, md: "theirs"
        return None

    fake_triton.add_stages_inspection_hook = theirs
    hook.enable()
    hook.enable(lds="all")  # enabling twice does not stack two of ours
    key, _ = key_of(fake_triton)
    assert key.startswith("theirs-key+llnoalias-") and key.count("llnoalias-") == 1
    stages = add_stages(fake_triton, FIXTURE.read_text())
    assert calls == ["stages"] and stages["ttgir"]("x", {}) == "theirs"
    assert "!alias.scope" in run_stages(stages)
    hook.disable()
    assert fake_triton.add_stages_inspection_hook is theirs
    assert hook.enabled() is None
    hook.disable()  # not installed: nothing happens
    assert fake_triton.add_stages_inspection_hook is theirs


def test_bad_ir_falls_back_with_a_warning(fake_triton: types.SimpleNamespace) -> None:
    hook.enable()
    stages = add_stages(fake_triton, BAD_IR)
    with pytest.warns(hook.LLNoaliasWarning, match=r"unannotated: llnoalias: <triton llir k>:2:"):
        assert run_stages(stages) == BAD_IR
    hook.enable(strict=True)
    with pytest.raises(llnoalias.LLNoaliasError):
        run_stages(add_stages(fake_triton, BAD_IR))


def test_an_internal_error_falls_back_too(fake_triton: types.SimpleNamespace,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import llnoalias.api

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(llnoalias.api, "annotate", boom)
    hook.enable()
    text = FIXTURE.read_text()
    with pytest.warns(hook.LLNoaliasWarning, match="internal error.*boom"):
        assert run_stages(add_stages(fake_triton, text)) == text
    hook.enable(strict=True)
    with pytest.raises(RuntimeError, match="boom"):
        run_stages(add_stages(fake_triton, text))


def test_a_stage_output_that_is_not_text_is_left_alone_with_a_warning(fake_triton: types.SimpleNamespace) -> None:
    hook.enable()
    stages = add_stages(fake_triton, "")
    stages["llir"] = hook._Hook(llnoalias.AnnotateOptions(), False, None).wrap(lambda s, m: b"\x00")
    with pytest.warns(hook.LLNoaliasWarning, match="returned bytes, not LLVM IR text"):
        assert stages["llir"]("m", {}) == b"\x00"


@pytest.mark.parametrize("kwargs, error", [
    ({"lds": "some"}, ValueError), ({"args": "restrict"}, ValueError),
    ({"may_alias": ["0"]}, ValueError), ({"regions": "yes"}, TypeError),
    ({"strict": 1}, TypeError), ({"options": {"lds": "all"}}, TypeError),
    ({"lsd": "all"}, TypeError),
])
def test_bad_options_raise_at_enable(fake_triton: types.SimpleNamespace, kwargs: dict[str, Any],
                                     error: type[Exception]) -> None:
    with pytest.raises(error):
        hook.enable(**kwargs)
    assert fake_triton.add_stages_inspection_hook is None


def test_missing_triton_is_a_clear_import_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "triton", None)  # makes `import triton` fail
    # what works: llnoalias is not on PyPI, so no 'pip install llnoalias[triton]'
    with pytest.raises(ImportError, match=r"needs Triton: pip install triton \(from a checkout of llnoalias, "
                                          r"pip install -e '\.\[triton\]'") as exc:
        hook.enable()
    assert "install 'llnoalias[" not in str(exc.value)
    hook.disable()  # nothing to remove: no error
    assert hook.enabled() is None


def test_an_old_triton_without_the_hook_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    mod = types.ModuleType("triton")
    mod.__version__ = "3.1.0"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "triton", mod)
    with pytest.raises(ImportError, match="add_stages_inspection_hook"):
        hook.enable()


def test_importing_llnoalias_does_not_import_triton() -> None:
    code = ("import sys, llnoalias, llnoalias.triton\n"
            "assert llnoalias.triton.enable\n"
            "assert 'triton' not in sys.modules, 'triton imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.fixture(autouse=True)
def _no_hook_left_behind() -> Any:
    yield
    triton = sys.modules.get("triton")
    runtime = getattr(getattr(triton, "knobs", None), "runtime", None)
    if runtime is not None and isinstance(runtime.add_stages_inspection_hook, hook._Hook):
        runtime.add_stages_inspection_hook = runtime.add_stages_inspection_hook.previous


# --- real Triton: ahead-of-time compiles, no GPU needed -------------------------------------

@pytest.fixture
def real_triton(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """The installed Triton with a fresh cache (so no earlier compile hides the hook) and the
    hook removed afterwards; skips when Triton is missing."""
    triton = pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")  # silences 3.9's notice about a default
    yield triton
    hook.disable()


def compile_matmul(triton: Any, target: Any) -> Any:
    from tests.support._triton_kernels import MATMUL_CONSTEXPRS, MATMUL_SIGNATURE, matmul

    src = triton.compiler.ASTSource(fn=matmul, signature=MATMUL_SIGNATURE,
                                    constexprs=MATMUL_CONSTEXPRS)
    return triton.compile(src, target=target)


def test_real_amd_matmul_is_annotated_and_cached_apart(real_triton: Any) -> None:
    target = real_triton.backends.compiler.GPUTarget("hip", "gfx942", 64)
    plain = compile_matmul(real_triton, target)
    assert "!alias.scope" not in plain.asm["llir"]
    # Triton's pointer arguments are not noalias: args="noalias" asserts it for this kernel
    hook.enable(args="noalias")
    hooked = compile_matmul(real_triton, target)
    assert hooked.hash != plain.hash  # another cache entry, not the plain kernel from the cache
    llir = hooked.asm["llir"]
    assert "!alias.scope" in llir and "!noalias" in llir
    assert llir == llnoalias.annotate(plain.asm["llir"], args="noalias").text
    assert hooked.asm["amdgcn"] and hooked.asm["hsaco"]
    hook.disable()
    again = compile_matmul(real_triton, target)
    assert again.hash == plain.hash and "!alias.scope" not in again.asm["llir"]


def test_real_nvptx_matmul_goes_through_the_hook(real_triton: Any,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import llnoalias.api

    seen: list[Any] = []
    real_annotate = llnoalias.api.annotate

    def spy(text: str, **kwargs: Any) -> Any:
        result = real_annotate(text, **kwargs)
        seen.append(result)
        return result

    monkeypatch.setattr(llnoalias.api, "annotate", spy)
    hook.enable(args="noalias")
    target = real_triton.backends.compiler.GPUTarget("cuda", 90, 32)
    try:
        compiled = compile_matmul(real_triton, target)
    except Exception as err:  # ptxas comes with Triton's wheel; a build without it stops here
        if "ptxas" not in str(err).lower():
            raise
        pytest.skip(f"no usable ptxas for the cubin stage: {err}")
    assert len(seen) == 1 and "@llvm.nvvm." in compiled.asm["llir"]
    assert compiled.asm["llir"] == seen[0].text and compiled.asm["ptx"]
    # Triton's NVIDIA backend loads and stores global memory through inline PTX (ld.global /
    # st.global in `asm`), so there is no global access to tag; its shared memory is one
    # buffer whose swizzled tiles llnoalias splits into regions (known bits and spanning
    # accesses), so the shared-memory loads and stores carry scopes, and args="noalias"
    # marks the pointer arguments noalias.
    llir = compiled.asm["llir"]
    lds = [line for line in llir.splitlines()
           if re.search(r"^\s*(%\S+ = load|store) .*ptr addrspace\(3\)", line)]
    assert lds and all("!alias.scope" in line for line in lds), [x for x in lds if "!alias.scope" not in x][:3]
    assert "!alias.scope" in llir
    assert "ptr addrspace(1) noalias %0, ptr addrspace(1) noalias %1" in llir


def test_check_keeps_the_unannotated_function_where_tritons_llvm_races(fake_triton: types.SimpleNamespace,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """enable(check=True): the llir stage's output, annotated, is compiled with Triton's own
    LLVM; a function that races only with the claims goes back to the stage's own text, with a
    warning that names it. The stand-in annotation here adds clang's !tbaa to the read of
    fixtures/check/tbaa_unscoped_dma_races.ll (an unscoped DMA beside it: no wait)."""
    if not TRITON_INSTALLED:
        pytest.skip("Triton (its LLVM 24, which the check compiles with) is not installed")

    from llnoalias.backends import triton_backend

    # the fake `triton` module stands in the parent only: the code generator's child imports
    # the real one
    monkeypatch.setattr(triton_backend, "available", lambda: True)
    racing, original = racing_pair()
    monkeypatch.setattr(hook._Hook, "annotate", lambda self, text, md: racing)
    hook.enable(check=True)
    stages: dict[str, Any] = {"llir": lambda src, md: original}
    fake_triton.add_stages_inspection_hook(object(), stages, types.SimpleNamespace(arch="gfx942"), "triton", None)
    with pytest.warns(hook.LLNoaliasWarning, match=r"withdrew the claims in k: Triton's LLVM"):
        out = stages["llir"]("ttgir", {})
    assert out.count("!tbaa !0") == original.count("!tbaa !0")  # @k went back; @other kept its own
    # without check, or for an NVIDIA target, the annotated text goes on as it is
    hook.enable()
    stages = {"llir": lambda src, md: original}
    fake_triton.add_stages_inspection_hook(object(), stages, types.SimpleNamespace(arch="gfx942"), "triton", None)
    assert stages["llir"]("ttgir", {}) == racing
    hook.enable(check=True)
    stages = {"llir": lambda src, md: original}
    fake_triton.add_stages_inspection_hook(object(), stages, types.SimpleNamespace(arch="sm_90"), "triton", None)
    assert stages["llir"]("ttgir", {}) == racing
    hook.disable()
