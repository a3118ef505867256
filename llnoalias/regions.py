"""Regions (SPEC section 2b): one root split by byte ranges. Not implemented yet (issue 6):
every access keeps its root's scope."""

from __future__ import annotations

from .model import Module
from .scopes import Plan


def split_regions(mod: Module, plan: Plan) -> None:
    return None
