"""Counting waits and loads in generated code, and the CI gate over those counts."""
