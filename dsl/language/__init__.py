"""The language: grammar, parser, syntax tree, unparse, built-ins, mistakes."""
