"""Text processing of the AMDGPU assembly LLVM's back end writes: ``reader`` splits it into
functions, instructions and blocks; ``queue`` replays each wave's in-order vector-memory
queue over a function's control flow. Standard library and layer 0 only; nothing prints."""
