"""The rulewright command line (thin: parsing and printing only)."""
