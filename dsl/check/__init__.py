"""Checking a parsed spec: names, types, kinds, constraints, purity, labels."""
