"""What the program does with addresses: the provenance lattice and solver, accesses, the intrinsic table, integer ranges, argument effects. Reads the IR model; writes nothing."""
