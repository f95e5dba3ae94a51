"""The outline of a spec (document symbols) and the protocol's kind for each declaration."""

from __future__ import annotations

from lsprotocol import types

from rulewright.dsl.language import ast
from rulewright.dsl.language.locate import Locator
from rulewright.lsp.index import Index, Symbol, declared
from rulewright.lsp.positions import Positions

_KIND = {
    "game": types.SymbolKind.Module, "variant": types.SymbolKind.Namespace,
    "assumption": types.SymbolKind.Property, "enum": types.SymbolKind.Enum,
    "enum member": types.SymbolKind.EnumMember, "card kind": types.SymbolKind.Class,
    "zone": types.SymbolKind.Array, "counter": types.SymbolKind.Variable,
    "token": types.SymbolKind.Object, "table": types.SymbolKind.Struct,
    "function": types.SymbolKind.Function, "rule": types.SymbolKind.Method,
    "invariant": types.SymbolKind.Boolean, "erratum": types.SymbolKind.Namespace,
    "example": types.SymbolKind.Event, "edition": types.SymbolKind.Package,
}


def symbol_kind(symbol: Symbol) -> types.SymbolKind:
    """The protocol's kind for a declared name."""
    return _KIND.get(symbol.kind, types.SymbolKind.Variable)


def _symbol(symbol: Symbol, pos: Positions, loc: Locator) -> types.DocumentSymbol:
    decl = symbol.decl
    children: list[types.DocumentSymbol] = []
    if isinstance(decl, ast.EnumDecl):
        children = [types.DocumentSymbol(
            name=m, kind=types.SymbolKind.EnumMember, range=pos.range(loc(decl.span, m, "{")),
            selection_range=pos.range(loc(decl.span, m, "{"))) for m in decl.members]
    if isinstance(decl, (ast.ErratumDecl, ast.VariantDecl)):
        children = [child for p in decl.patches for child in _patch_symbols(p, pos, loc,
                                                                            decl.name)]
    return types.DocumentSymbol(
        name=symbol.name, kind=symbol_kind(symbol), detail=symbol.kind,
        range=pos.range(decl.span), selection_range=pos.range(symbol.span),
        children=children or None)


#: A patch that changes a declaration in place: (its keyword, the protocol's kind, detail).
_IN_PLACE: dict[type, tuple[str, types.SymbolKind, str]] = {
    ast.VarPatch: ("var", types.SymbolKind.Variable, "counter: initial value"),
    ast.ZonePatch: ("zone", types.SymbolKind.Array, "zone: capacity or visibility"),
    ast.CardPatch: ("card", types.SymbolKind.Class, "card kind: rows"),
}


def _patch_symbols(p: ast.Patch, pos: Positions, loc: Locator, container: str
                   ) -> list[types.DocumentSymbol]:
    """The outline entries of one patch of an erratum or variant: every patch has one
    (the trial's F13: ``var pot = 15`` and ``replace scoring(p)`` had none)."""
    if isinstance(p, ast.DeclPatch):
        if isinstance(p.decl, ast.ScoringDecl):
            return [types.DocumentSymbol(
                name=f"scoring({p.decl.var})", kind=types.SymbolKind.Operator,
                detail=f"{p.mode} scoring", range=pos.range(p.span),
                selection_range=pos.range(loc(p.span, "scoring")))]
        return [_symbol(s, pos, loc) for s in declared(p.decl, loc, container)
                if s.decl is p.decl and s.kind != "enum member"]
    if isinstance(p, ast.RemovePatch):
        return [types.DocumentSymbol(
            name=p.name, kind=types.SymbolKind.Null, detail=f"remove {p.kind}",
            range=pos.range(p.span), selection_range=pos.range(loc(p.span, p.name, p.kind)))]
    if isinstance(p, ast.PlayersPatch):
        return [types.DocumentSymbol(
            name="players", kind=types.SymbolKind.Number, detail=f"players {p.low}..{p.high}",
            range=pos.range(p.span), selection_range=pos.range(loc(p.span, "players")))]
    word, kind, detail = _IN_PLACE[type(p)]
    return [types.DocumentSymbol(
        name=p.name, kind=kind, detail=detail, range=pos.range(p.span),
        selection_range=pos.range(loc(p.span, p.name, word)))]


def document_symbols(index: Index, pos: Positions) -> list[types.DocumentSymbol]:
    """One symbol per top-level declaration, in file order (scoring as ``scoring(p)``)."""
    loc = Locator(index.text)
    out: list[types.DocumentSymbol] = []
    for _, _, decl in index.decls:
        if isinstance(decl, ast.ScoringDecl):
            out.append(types.DocumentSymbol(
                name=f"scoring({decl.var})", kind=types.SymbolKind.Operator, detail="scoring",
                range=pos.range(decl.span), selection_range=pos.range(
                    loc(decl.span, "scoring"))))
            continue
        for symbol in declared(decl, loc):
            if symbol.decl is decl and symbol.kind != "enum member":
                out.append(_symbol(symbol, pos, loc))
    return out
