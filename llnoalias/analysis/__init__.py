"""What the program does with addresses, in three parts, each importing only those before
it: ``memory`` (which instructions access memory, the intrinsic table, argument effects,
what a load reads), ``provenance`` (which root each pointer reaches, and why not) and
``ranges`` (the byte offsets from its root an address can take). Reads the IR model;
writes nothing."""
