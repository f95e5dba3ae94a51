"""rulewright.engines."""
