"""Test root for rulewright.sphinx: pages are added by the tests."""

extensions = ["rulewright.sphinx"]
project = "rulewright test"
html_theme = "alabaster"
graphviz_output_format = "svg"
rulewright_simulate_games = 4
# Rulebook quotes are shown verbatim: Sphinx's smart quotes would curl their ' and ".
smartquotes = False
