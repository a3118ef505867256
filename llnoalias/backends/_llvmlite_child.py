"""The child process that runs llvmlite's LLVM for :mod:`llnoalias.backends.llvmlite_backend`.

Run as ``python _llvmlite_child.py WORKDIR``. It reads ``WORKDIR/request.json``, does what
it asks and writes ``WORKDIR/result.json`` (and ``WORKDIR/out.bin`` for an emission).
``python _llvmlite_child.py WORKDIR --stream`` checks a module whose input and output
come while it runs (see :func:`_stream`). The
result is rewritten, atomically, before each step that may abort the process, so that
the parent knows how far the child got when LLVM takes it down. It imports nothing but
the standard library and llvmlite, so it starts as fast as llvmlite allows and does not
depend on how llnoalias was installed.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def _dumps(result: dict[str, Any]) -> str:
    """``json.dumps(result)`` for the flat results of a check, without importing ``json``
    (whose decoder pulls in ``re`` and ``enum``: about 10 ms of the child's start)."""
    quote: Callable[[str], str] | None
    try:
        from _json import encode_basestring_ascii as quote
    except ImportError:
        quote = None
    parts: list[str] = []
    for key, value in result.items():
        if quote is None or not isinstance(key, str):
            parts = []
            break
        if value is True or value is False or value is None:
            text = "true" if value is True else "false" if value is False else "null"
        elif isinstance(value, int):
            text = str(int(value))
        elif isinstance(value, str):
            text = quote(value)
        else:
            parts = []
            break
        parts.append(f"{quote(key)}: {text}")
    else:
        return "{" + ", ".join(parts) + "}"
    import json

    return json.dumps(result)


def _save(workdir: str, result: dict[str, Any]) -> None:
    tmp = os.path.join(workdir, "result.json.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(_dumps(result))
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


def _check_input(llvm: Any, workdir: str, path: str, result: dict[str, Any]) -> bool:
    """Parse and verify the input; False when it does not parse (then there is nothing to
    compare the output with)."""
    result.update(stage="parse-input", input_readable=False, input_verified=False, output_ok=False,
                  output_checked=False, input_message="", message="")
    _save(workdir, result)
    try:
        mod = llvm.parse_assembly(_read_ir(path))
    except RuntimeError as exc:
        result.update(stage="done", input_message=_message(exc))
        return False
    result.update(stage="verify-input", input_readable=True)
    _save(workdir, result)
    try:
        mod.verify()
        result["input_verified"] = True
    except RuntimeError as exc:
        result["input_message"] = _message(exc)
    mod.close()
    return True


def _check_output(llvm: Any, workdir: str, path: str, result: dict[str, Any]) -> None:
    result["stage"] = "parse-output"
    _save(workdir, result)
    result["output_checked"] = True
    try:
        out = llvm.parse_assembly(_read_ir(path))
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


def _check(llvm: Any, workdir: str, req: dict[str, Any], result: dict[str, Any]) -> None:
    if _check_input(llvm, workdir, os.path.join(workdir, req["input"]), result):
        _check_output(llvm, workdir, os.path.join(workdir, req["output"]), result)


class _DirectModule:
    def __init__(self, lib: Any, ptr: int) -> None:
        self._lib = lib
        self._ptr: int | None = ptr

    def verify(self) -> None:
        import ctypes

        msg = ctypes.c_char_p()
        failed = self._lib.LLVMPY_VerifyModule(self._ptr, ctypes.byref(msg))
        text = (msg.value or b"").decode("utf-8", "replace")
        if msg.value is not None:
            self._lib.LLVMPY_DisposeString(msg)
        if failed:
            raise RuntimeError(text)

    def close(self) -> None:
        if self._ptr is not None:
            self._lib.LLVMPY_DisposeModule(self._ptr)
            self._ptr = None


class _DirectLLVM:
    """The two calls a check makes (``parse_assembly``, then ``verify`` and ``close`` on
    the module), made straight into llvmlite's shared library with ctypes, as
    ``llvmlite.binding`` makes them: importing ``llvmlite.binding`` costs a check about
    70 ms more than loading the library. Used for checks only; emission imports
    llvmlite. :func:`_direct_llvm` falls back to llvmlite wherever this cannot be set up."""

    def __init__(self, lib: Any) -> None:
        self._lib = lib
        self._context = lib.LLVMPY_GetGlobalContext()

    def parse_assembly(self, text: str) -> _DirectModule:
        import ctypes

        msg = ctypes.c_char_p()
        ptr = self._lib.LLVMPY_ParseAssembly(self._context, text.encode("utf-8"), ctypes.byref(msg))
        if msg.value is not None:
            err = msg.value.decode("utf-8", "replace")
            self._lib.LLVMPY_DisposeString(msg)
            if ptr:
                self._lib.LLVMPY_DisposeModule(ptr)
            raise RuntimeError(f"LLVM IR parsing error\n{err}")
        if not ptr:
            raise RuntimeError("LLVM IR parsing error\n(no module and no message)")
        return _DirectModule(self._lib, ptr)


def _direct_llvm() -> Any:
    """:class:`_DirectLLVM` over llvmlite's library; ``llvmlite.binding`` where the
    library or its entry points are not where llvmlite 0.44-0.50 has them (or
    ``LLNOALIAS_CHILD_BINDING=1``)."""
    if not os.environ.get("LLNOALIAS_CHILD_BINDING"):
        try:
            import ctypes

            import llvmlite
            from llvmlite.utils import get_library_name

            path = os.path.join(os.path.dirname(os.path.abspath(llvmlite.__file__)), "binding", get_library_name())
            lib = ctypes.CDLL(path)
            lib.LLVMPY_GetGlobalContext.restype = ctypes.c_void_p
            lib.LLVMPY_GetGlobalContext.argtypes = []
            lib.LLVMPY_ParseAssembly.restype = ctypes.c_void_p
            lib.LLVMPY_ParseAssembly.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
            lib.LLVMPY_VerifyModule.restype = ctypes.c_bool
            lib.LLVMPY_VerifyModule.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p)]
            lib.LLVMPY_DisposeModule.restype = None
            lib.LLVMPY_DisposeModule.argtypes = [ctypes.c_void_p]
            lib.LLVMPY_DisposeString.restype = None
            lib.LLVMPY_DisposeString.argtypes = [ctypes.c_char_p]
            return _DirectLLVM(lib)
        except Exception:  # noqa: BLE001 - anything unexpected: the binding itself
            pass
    import llvmlite.binding as llvm

    return llvm


def _stream(workdir: str) -> int:
    """``--stream``: a check whose texts come while it runs. The child imports llvmlite
    at once, then reads ``input`` and ``output`` lines on stdin, each when ``input.ll`` or
    ``output.ll`` is written, so that llvmlite loads and the input is checked while the
    parent is still annotating. End of input before ``output``: the parent needs only
    the input's verdict (nothing changed) or none (it failed); the child saves it and exits."""
    result: dict[str, Any] = {"op": "check", "stage": "import"}
    _save(workdir, result)
    llvm = _direct_llvm()
    result["stage"] = "wait-input"
    _save(workdir, result)
    if sys.stdin.readline().strip() != "input":
        return 0
    if _check_input(llvm, workdir, os.path.join(workdir, "input.ll"), result):
        result["stage"] = "wait-output"
        _save(workdir, result)
        if sys.stdin.readline().strip() != "output":
            # the output equals the input (nothing changed): the input's verdict is all
            result["stage"] = "done"
            _save(workdir, result)
            return 0
        _check_output(llvm, workdir, os.path.join(workdir, "output.ll"), result)
    _save(workdir, result)
    return 0


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
        tm = target.create_target_machine(cpu=req["cpu"], opt=int(req.get("level", 3)))
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


def _cpus(llvm: Any, workdir: str, req: dict[str, Any], result: dict[str, Any]) -> None:
    """The CPUs LLVM knows for ``req["triple"]``, as ``-mcpu=help`` lists them: LLVM
    prints the list on stderr (which the parent reads) when a target machine is made
    for the CPU ``help``."""
    result["stage"] = "cpus"
    _save(workdir, result)
    try:
        llvm.Target.from_triple(req["triple"]).create_target_machine(cpu="help")
    except RuntimeError as exc:
        result.update(stage="done", error="target", message=_message(exc))
        return
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
    where = os.environ.get("LLNOALIAS_CHILD_PATH")
    if where and where not in sys.path:
        sys.path.append(where)  # started with -S: llvmlite's site-packages, and nothing else
    workdir = argv[1]
    if argv[2:] == ["--stream"]:
        status = _stream(workdir)
        # The verdict is on disk: skip the interpreter's and LLVM's teardown (tens of ms
        # of unloading a 170 MB library) that the parent would otherwise wait for.
        sys.stderr.flush()
        os._exit(status)
    import json

    with open(os.path.join(workdir, "request.json"), encoding="utf-8") as fh:
        req = json.load(fh)
    result: dict[str, Any] = {"op": req["op"], "stage": "import"}
    _save(workdir, result)
    import llvmlite
    import llvmlite.binding as llvm

    result["llvmlite"] = str(getattr(llvmlite, "__version__", ""))
    result["llvm"] = ".".join(str(v) for v in getattr(llvm, "llvm_version_info", ()))
    if req["op"] in ("emit", "cpus"):
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
    if req["op"] == "check":
        _check(llvm, workdir, req, result)
    elif req["op"] == "emit":
        _emit(llvm, workdir, req, result)
    elif req["op"] == "cpus":
        _cpus(llvm, workdir, req, result)
    else:
        result.update(stage="done", error="request", message=f"unknown op {req['op']!r}")
    _save(workdir, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
