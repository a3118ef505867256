"""The test suite, laid out like the package: ``tests/ir/`` tests ``llnoalias/ir/``,
``tests/analysis/ranges/`` tests ``llnoalias/analysis/ranges/``, and so on; a test of a
top-level module (``api``, ``reasons``, ``fileio``, ``triton``) sits here. ``tests/meta/``
tests the project itself (its layers, documents, twin registry, build, start-up, CI),
``tests/scripts/`` the scripts of ``scripts/``, and ``tests/support/`` holds what the tests
share and that is no test (``from tests.support.files import FIXTURES``). Each folder is a
package, so two test files may have one name."""
