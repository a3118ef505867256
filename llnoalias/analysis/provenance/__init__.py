"""Provenance: which root (an LDS global or a kernel argument) each pointer can reach.
The lattice of values (``lattice``), the set of roots (``rootset``), the worklist
(``fixpoint``, compiled twin ``_fixpoint.c``), why a value is unknown (``blame``) and the
demand-driven solver over a function (``solver``). Imports ``memory``, never ``ranges``."""
