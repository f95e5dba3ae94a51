"""rulewright.dsl."""
