"""The child process that runs llvmlite's LLVM for :mod:`llnoalias.backends.llvmlite_backend`.

Run as ``python _llvmlite_child.py WORKDIR``. It reads ``WORKDIR/request.json``, does what
it asks and writes ``WORKDIR/result.json`` (and ``WORKDIR/out.bin`` for an emission). The
result is rewritten, atomically, before each step that may abort the process, so that
the parent knows how far the child got when LLVM takes it down. It imports nothing but
the standard library and llvmlite, so it starts as fast as llvmlite allows and does not
depend on how llnoalias was installed.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def _save(workdir: str, result: dict[str, Any]) -> None:
    tmp = os.path.join(workdir, "result.json.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(result, fh)
    os.replace(tmp, os.path.join(workdir, "result.json"))


def _read_ir(path: str) -> str:
    # llvmlite hands LLVM a UTF-8 C string: bytes that are not UTF-8 (only possible in
    # comments and metadata strings) are replaced, NUL bytes would end the string.
    with open(path, "rb") as fh:
        return fh.read().decode("utf-8", "replace").replace("\0", " ")


def _message(exc: BaseException) -> str:
    text = str(exc)
    if text.startswith("LLVM IR parsing error\n"):
        text = text[len("LLVM IR parsing error\n"):]
    return text.strip()


def _check(llvm: Any, workdir: str, req: dict[str, Any], result: dict[str, Any]) -> None:
    result.update(stage="parse-input", input_readable=False, input_verified=False, output_ok=False,
                  output_checked=False, input_message="", message="")
    _save(workdir, result)
    try:
        mod = llvm.parse_assembly(_read_ir(os.path.join(workdir, req["input"])))
    except RuntimeError as exc:
        result.update(stage="done", input_message=_message(exc))
        return
    result.update(stage="verify-input", input_readable=True)
    _save(workdir, result)
    try:
        mod.verify()
        result["input_verified"] = True
    except RuntimeError as exc:
        result["input_message"] = _message(exc)
    mod.close()
    result["stage"] = "parse-output"
    _save(workdir, result)
    result["output_checked"] = True
    try:
        out = llvm.parse_assembly(_read_ir(os.path.join(workdir, req["output"])))
    except RuntimeError as exc:
        result.update(stage="done", message=_message(exc))
        return
    result["stage"] = "verify-output"
    _save(workdir, result)
    try:
        out.verify()
        result["output_ok"] = True
    except RuntimeError as exc:
        result["message"] = _message(exc)
    result["stage"] = "done"


def _emit(llvm: Any, workdir: str, req: dict[str, Any], result: dict[str, Any]) -> None:
    result.update(stage="parse", ok=False, error="", message="")
    _save(workdir, result)
    try:
        mod = llvm.parse_assembly(_read_ir(os.path.join(workdir, req["input"])))
    except RuntimeError as exc:
        result.update(stage="done", error="parse", message=_message(exc))
        return
    if req.get("verify", True):
        result["stage"] = "verify"
        _save(workdir, result)
        try:
            mod.verify()
        except RuntimeError as exc:
            result.update(stage="done", error="verify", message=_message(exc))
            return
    result["stage"] = "target"
    _save(workdir, result)
    try:
        target = llvm.Target.from_triple(req["triple"])
        tm = target.create_target_machine(cpu=req["cpu"], opt=3)
    except RuntimeError as exc:
        result.update(stage="done", error="target", message=_message(exc))
        return
    mod.triple = req["triple"]
    if not mod.data_layout:
        mod.data_layout = str(tm.target_data)
    if req.get("opt"):
        # LLVM's -O3 middle end (the new pass manager), for `compile --opt`.
        result["stage"] = "optimize"
        _save(workdir, result)
        pto = llvm.create_pipeline_tuning_options(speed_level=3)
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(mod, pb)
    result["stage"] = "emit"
    _save(workdir, result)
    try:
        if req["kind"] == "obj":
            data = tm.emit_object(mod)
        else:
            data = tm.emit_assembly(mod).encode("utf-8", "surrogateescape")
    except RuntimeError as exc:
        result.update(stage="done", error="emit", message=_message(exc))
        return
    with open(os.path.join(workdir, "out.bin"), "wb") as fh:
        fh.write(data)
    result.update(stage="done", ok=True)


def _no_core_dumps() -> None:
    # An LLVM abort is expected now and then; it should not leave a core file behind.
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass


def main(argv: list[str]) -> int:
    _no_core_dumps()
    workdir = argv[1]
    with open(os.path.join(workdir, "request.json"), encoding="utf-8") as fh:
        req = json.load(fh)
    result: dict[str, Any] = {"op": req["op"], "stage": "import"}
    _save(workdir, result)
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    if req["op"] == "check":
        _check(llvm, workdir, req, result)
    elif req["op"] == "emit":
        _emit(llvm, workdir, req, result)
    else:
        result.update(stage="done", error="request", message=f"unknown op {req['op']!r}")
    _save(workdir, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
