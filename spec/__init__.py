"""rulewright.spec."""
