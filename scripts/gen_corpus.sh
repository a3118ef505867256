#!/usr/bin/env bash
# Regenerate the clang-19 part of the IR corpus (fixtures/corpus/clang19/*.ll)
# from fixtures/corpus/src/*.hip and *.cu, and verify every output with
# LLVM 19's opt. The outputs are checked in; tests never need clang.
#
# Usage: scripts/gen_corpus.sh            (regenerate + verify)
#        scripts/gen_corpus.sh --check    (only verify what is checked in)
#
# Needs Debian's clang-19 / llvm-19 (apt-get install -y clang-19 llvm-19).
# Typed-pointer modules (typed/*.ll) are printed by LLVM 14's opt from the
# hand-written typed/src/*.ll.in. odd/ files and the Triton-*style* modules
# in triton/ (LLVM 22+ syntax) are hand-written and checked in as they are.
# Real Triton output lives in triton39/: the llir of Triton 3.9.0 for a few
# tutorial kernels, made by scripts/gen_triton_corpus.py (no GPU needed;
# `.venv/bin/pip install triton==3.9.0 && .venv/bin/python
# scripts/gen_triton_corpus.py`), not by this script.
# Set LLVMLITE=1 to also report which files llvmlite's LLVM accepts.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CORPUS="$ROOT/fixtures/corpus"
SRC="$CORPUS/src"
OUT="$CORPUS/clang19"
CLANG="${CLANG:-clang-19}"
OPT19="${OPT19:-/usr/lib/llvm-19/bin/opt}"
OPT14="${OPT14:-/usr/lib/llvm-14/bin/opt}"
TYPED="$CORPUS/typed"

if ! command -v "$CLANG" >/dev/null 2>&1 || [ ! -x "$OPT19" ]; then
  echo "gen_corpus: installing clang-19 llvm-19" >&2
  apt-get install -y clang-19 llvm-19
fi

# Flags shared by every compile. -cuid fixes HIP's @__hip_cuid_<hash> global;
# -fdebug-compilation-dir=. keeps the build path out of DICompileUnit.
COMMON=(-S -emit-llvm -fdebug-compilation-dir=. -Wno-unknown-cuda-version)
HIP=(-x hip --cuda-device-only -nogpulib -nogpuinc --offload-arch=gfx942 -cuid=corpus)
CUDA=(-x cuda --cuda-device-only -nocudalib -nocudainc --cuda-gpu-arch=sm_80)

if [ "${1:-}" != "--check" ]; then
  mkdir -p "$OUT"
  cd "$SRC"   # relative source names keep ModuleID/source_filename stable
  for src in *.hip; do
    base="${src%.hip}"
    for o in 0 1 2 3; do
      "$CLANG" "${HIP[@]}" "${COMMON[@]}" -O$o    "$src" -o "$OUT/${base}_O${o}.ll"
      "$CLANG" "${HIP[@]}" "${COMMON[@]}" -O$o -g "$src" -o "$OUT/${base}_O${o}_g.ll"
    done
  done
  for src in *.cu; do
    base="${src%.cu}"
    for o in 0 3; do
      "$CLANG" "${CUDA[@]}" "${COMMON[@]}" -O$o    "$src" -o "$OUT/${base}_O${o}.ll"
      "$CLANG" "${CUDA[@]}" "${COMMON[@]}" -O$o -g "$src" -o "$OUT/${base}_O${o}_g.ll"
    done
  done
  # LLVM 14 typed pointers: canonical print (-S) and one -O2 run.
  cd "$TYPED/src"
  for in in *.ll.in; do
    base="${in%.ll.in}"
    "$OPT14" -S "$in" | sed "s/^; ModuleID = .*/; ModuleID = '$base.ll'/; s/^source_filename = .*/source_filename = \"$base.ll\"/" > "$TYPED/$base.ll"
  done
  "$OPT14" -O2 -S amdgpu_lds_typed.ll.in \
    | sed "s/^; ModuleID = .*/; ModuleID = 'amdgpu_lds_typed_O2.ll'/; s/^source_filename = .*/source_filename = \"amdgpu_lds_typed_O2.ll\"/" > "$TYPED/amdgpu_lds_typed_O2.ll"
fi

fail=0
verify() {  # verify <label> <opt> <args...> <file>
  local label="$1"; shift
  local f="${!#}"
  if "$@" >/dev/null 2>"$CORPUS/.verify.err"; then
    echo "ok      $label  ${f#$CORPUS/}"
  else
    echo "FAILED  $label  ${f#$CORPUS/}"; sed 's/^/    /' "$CORPUS/.verify.err"; fail=1
  fi
}
shopt -s nullglob
for f in "$OUT"/*.ll "$CORPUS"/odd/*.ll; do
  if [ "$(head -c 3 "$f" | od -An -tx1 | tr -d ' ')" = "efbbbf" ]; then
    # LLVM rejects a byte-order mark ("expected top-level entity" at 1:1):
    # check the rest of the file.
    tail -c +4 "$f" > "$CORPUS/.nobom.ll"
    verify "llvm-19 (BOM stripped)" "$OPT19" -passes=verify -disable-output "$CORPUS/.nobom.ll"
    rm -f "$CORPUS/.nobom.ll"
    continue
  fi
  verify llvm-19 "$OPT19" -passes=verify -disable-output "$f"
done
for f in "$CORPUS"/typed/*.ll; do
  verify llvm-14 "$OPT14" -verify -disable-output "$f"
done
rm -f "$CORPUS/.verify.err"

if [ "${LLVMLITE:-0}" = 1 ]; then
  # One child process per file: llvmlite's LLVM aborts (SIGABRT) on some inputs.
  for f in "$CORPUS"/clang19/*.ll "$CORPUS"/triton/*.ll "$CORPUS"/typed/*.ll "$CORPUS"/odd/*.ll; do
    out=$(python3 -c '
import sys, llvmlite.binding as l
m = l.parse_assembly(open(sys.argv[1], "rb").read().decode("latin-1"))
m.verify()
' "$f" 2>&1) && r="accepted" || r="rejected (rc=$?): $(printf '%s' "$out" | grep -v '^ ' | tail -n 2 | tr '\n' ' ' | cut -c1-200)"
    echo "llvmlite-$(python3 -c 'import llvmlite.binding as l; print(".".join(map(str, l.llvm_version_info)))')  ${f#$CORPUS/}  $r"
  done
fi
# Triton files use LLVM 24 syntax: no installed opt reads them. See README.
exit $fail
