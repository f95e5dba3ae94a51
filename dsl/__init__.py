"""rulewright.dsl: the rules language, one subpackage per stage of its pipeline.

``language`` (text -> syntax tree: grammar, parser, unparse, built-ins, mistakes, mutants)
-> ``check`` (names, types, none, kinds, constraints, purity, labels, information flow)
-> ``errata`` (patches and editions applied to a checked tree, spec diffs)
-> ``compile`` (syntax tree -> generated Python, built as syntax trees; layout, listing)
-> ``machine`` (the compiled machine the engines run, and its run-time helpers).
"""
