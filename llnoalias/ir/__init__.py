"""The text layer: LLVM IR read into a model with spans, and an editor that splices into the original text. Imports nothing of the analysis."""
