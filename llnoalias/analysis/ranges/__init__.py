"""Ranges: the byte offsets an address can take from its root (design section 2b). The
known-bits and interval domain (``knownbits``, ``interval``), the bound of thread ids
(``workgroup``), integer operations and calls (``transfer``), phis and counted loops
(``loops``) and the per-function queries (``solver``, compiled twin ``_solver.c``).
Imports ``provenance`` and ``memory``."""
