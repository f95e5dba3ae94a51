"""The Sphinx extension's error class."""

from __future__ import annotations

from sphinx.errors import SphinxError


class RulewrightDocsError(SphinxError):
    """A problem rendering a spec page: unknown spec, bad spec, unreadable verify JSON.

    The directive turns it into a warning at the directive's line (an error under ``-W``).
    """

    category = "rulewright docs error"
