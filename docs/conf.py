"""Sphinx configuration for the rulewright documentation.

Builds offline: the furo theme (mobile navigation and search, no CDN scripts or web fonts); diagrams are SVG rendered
by Graphviz at build time. Game pages are generated from the bundled specs (``games/``).
"""

project = "rulewright"
author = "the rulewright authors"
copyright = "2026, the rulewright authors"
extensions = ["myst_parser", "rulewright.sphinx"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
html_theme = "furo"
html_title = "rulewright"
html_theme_options = {"navigation_with_keys": True}
html_static_path: list[str] = []
graphviz_output_format = "svg"
highlight_language = "text"
myst_heading_anchors = 3

# One page per bundled spec, generated into games/ at build time (see rulewright.sphinx.pages).
rulewright_game_pages = "games"
rulewright_players = "all"
rulewright_simulate_games = 20
# Results of `rulewright verify --json verify.json` (optional: pages say "not verified").
rulewright_verify_json = "verify.json"
