"""llnoalias: trace GPU memory accesses in textual LLVM IR to their buffers and
write ``!alias.scope`` / ``!noalias`` metadata that LLVM's code generators use."""

__version__ = "0.1.0"
