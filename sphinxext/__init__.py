"""rulewright.sphinxext."""
