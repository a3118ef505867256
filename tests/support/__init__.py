"""What the tests share and are not tests themselves: paths and fixture lists (``files``), the
command line run in-process (``run``), the list of fast paths (``fast_paths``), generators,
oracles and simulators, and the data (``data/``, ``fuzz_corpus/``)."""
