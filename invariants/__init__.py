"""rulewright.invariants."""
