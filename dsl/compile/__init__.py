"""Compiling a checked spec into a machine: statements, expressions, code generation."""
