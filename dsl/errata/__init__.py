"""Errata and editions: patches, their text, spec diffs, patch checks."""
