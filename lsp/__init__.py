"""rulewright.lsp: the language server of the rules language (``rulewright lsp``).

Built on pygls and lsprotocol (``pip install 'rulewright[lsp]'``). :mod:`.analysis` turns a
document's text into what ``rulewright check`` reports plus an index of its names
(:mod:`.index`); :mod:`.hover`, :mod:`.edits` and :mod:`.complete` answer the editor's
questions from that index; :mod:`.server` wires them to the protocol.
"""
