"""Memory: which instructions access memory and through which operand (``accesses``), what
each intrinsic reads, writes and passes through (``intrinsics``), what a kernel does
through each pointer argument (``effects``), and what a load can read back (``loads``).
The lowest of the analysis's three parts: it imports nothing of the other two."""
