"""The command line: thin click commands and rich output. The only layer that prints."""

from .main import cli, main

__all__ = ["cli", "main"]
