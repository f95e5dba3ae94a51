"""The compiled machine and its run-time helpers."""
