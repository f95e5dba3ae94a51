"""The language server's parts, in process: incremental parsing, the index of names, hover
text, completion, rename and quick fixes, and positions in UTF-16."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from rulewright.dsl.language import ast
from rulewright.dsl.language.parse import parse
from rulewright.errors import Diagnostic, SpecError, Span
from rulewright.lsp import hover as hover_mod
from rulewright.lsp.analysis import analyse, with_compile
from rulewright.lsp.complete import candidates, expected_kind, keywords
from rulewright.lsp.edits import RenameError, quick_fixes, rename_edits
from rulewright.lsp.hover import hover_text, md
from rulewright.lsp.incremental import parse_incremental
from rulewright.lsp.index import Index, build_index
from rulewright.lsp.positions import Positions

SPEC = Path(__file__).resolve().parents[2] / "spec"
BUNDLED = sorted(SPEC.glob("*.rules"))
HEADER = 'game g "G" {\n  players 2..2\n  start play\n}\n'


@cache
def _braff() -> tuple[str, ast.Spec, Index]:
    text = (SPEC / "braff.rules").read_text(encoding="utf-8")
    spec = parse(text, "braff.rules", str(SPEC / "braff.rules"))
    return text, spec, build_index(spec)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_incremental_parse_is_the_parse_after_edits(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    spec, cache = parse_incremental(text, str(path), str(path), {})
    assert spec == parse(text, str(path), str(path))
    assert len(cache) > 10
    # a line typed into the middle: the declarations after it are moved, not parsed again
    lines = text.split("\n")
    rules = [i for i, line in enumerate(lines) if line.startswith("rule ")]
    middle = rules[len(rules) // 2]
    moved = "\n".join([*lines[:middle], "# a new line", "", *lines[middle:]])
    again, _ = parse_incremental(moved, str(path), str(path), cache)
    assert again == parse(moved, str(path), str(path))


def test_incremental_parse_of_a_syntax_error_is_the_parse_error() -> None:
    text = HEADER + "rule play { end }\nrule other { if }\nscoring(p) { score 0 then shared }\n"
    with pytest.raises(SpecError) as whole:
        parse(text, "e.rules")
    with pytest.raises(SpecError) as pieces:
        parse_incremental(text, "e.rules", "e.rules", {})
    assert pieces.value.diagnostics == whole.value.diagnostics


def test_a_cut_inside_a_string_falls_back_to_the_whole_parse() -> None:
    text = HEADER + 'rule play\n  note "a note that runs on\nrule like this line" { end }\n' \
        "scoring(p) { score 0 then shared }\n"
    spec, cache = parse_incremental(text, "s.rules", "s.rules", {})
    assert spec == parse(text, "s.rules") and cache == {}
    rule = spec.decls[1]
    assert isinstance(rule, ast.RuleDecl)
    assert rule.prov.notes[0].value == "a note that runs on\nrule like this line"


def test_analysis_keeps_the_index_of_the_last_text_that_parsed() -> None:
    text, _, _ = _braff()
    good = analyse(text, "braff.rules")
    bad = analyse(text.replace("rule spy(p)", "rule spy(p) {{"), "braff.rules", previous=good)
    assert bad.spec is None and bad.diagnostics[0].message.startswith("unexpected '{'")
    assert bad.index is good.index
    assert good.diagnostics == () and with_compile(good).diagnostics == ()


def test_a_compile_error_comes_with_the_compile_step() -> None:
    text = (HEADER + 'card c "C" (a) in pile data "missing.csv"\nzone pile: set of c public\n'
            "rule play { end }\nscoring(p) { score 0 then shared }\n")
    first = analyse(text, "/nowhere/c.rules")
    assert first.diagnostics == () and not first.compiled
    full = with_compile(first)
    assert [d.message for d in full.diagnostics] == [
        "cannot read card data 'missing.csv': No such file or directory"]


def test_the_index_finds_declarations_uses_and_locals() -> None:
    text, _, index = _braff()
    (fits,) = index.symbols["fits"]
    assert (fits.kind, fits.span.line, fits.span.column) == ("function", 121, 10)
    uses = [o.span.line for o in index.occurrences if o.name == "fits" and o.scope == -1]
    assert uses == [121, 238, 256, 702, 702, 702]
    # 'deck' after ':' is the zone's kind, not the zone named deck
    deck_line = text.split("\n").index("zone deck: deck of animal hidden") + 1
    assert [o.span.column for o in index.occurrences
            if o.name == "deck" and o.span.line == deck_line] == [6]
    # the parameter p of rule take is a local of take, not a global
    take = text.index("rule take(p") + len("rule take(")
    occ = index.at(take)
    assert occ is not None and occ.name == "p" and occ.scope >= 0
    assert all(o.span.line >= 269 for o in index.same(occ))


def test_hover_on_a_gap_and_on_a_local() -> None:
    text, spec, index = _braff()
    gap = text.index('gap "The spy may look at the top 5')
    shown = hover_text(index, gap + 8, spec, "")
    assert shown is not None
    assert shown.startswith("*gap* (line 358): The spy may look at the top 5 cards but the deck "
                            "holds fewer than 5.")
    assert "*ruling:* the spy looks at the cards the deck holds" in shown
    assert "*often:*" not in shown
    bonus = hover_text(index, text.index('gap "The deck is empty when bonus') + 8, spec, "")
    # the reason in markdown: its brackets and hyphens escaped
    assert bonus is not None and bonus.endswith(
        "  \n*often:* In the tiny variant \\(not the book's game: only the cats and dogs\\) "
        "the deck is too small for six players' collections and bonus cards, so it is empty at "
        "the bonus in almost every 6\\-player game; in the book's game it happens only with "
        "many kept bonus cards or tied players.")
    local = hover_text(index, text.index("rule take(p") + len("rule take("), spec, "")
    assert local is not None and local.startswith("**local** `p` of rule `take`, bound at line 281")


def test_the_type_hook_shows_a_type(monkeypatch: pytest.MonkeyPatch) -> None:
    text, spec, index = _braff()
    monkeypatch.setattr(hover_mod, "type_of", lambda spec, symbol: f"{symbol.kind} type")
    shown = hover_text(index, text.index("function fits") + 10, spec, "")
    assert shown is not None and "type: `function type`" in shown


def test_hover_shows_the_inferred_type_of_the_expression_and_the_declaration() -> None:
    text, spec, index = _braff()
    use = text.index("if not fits(d, size)")
    local = hover_text(index, use + len("if not fits(d, "), spec, "")
    assert local is not None and local.startswith(
        "`size` : `number`\n\n**local** `size` of rule `deal`, bound at line 229")
    function = hover_text(index, use + len("if not "), spec, "")
    assert function is not None and function.startswith(
        "`fits(d, size)` : `truth`\n\n**function** `fits` (line 121)")
    assert function.endswith("\n\ntype: `(number, number) -> truth`")
    # an operator, no name under it: the type of the expression alone
    plus = text.index("count(collection[p, k]) + n")
    assert hover_text(index, plus + len("count(collection[p, k]) "), spec, "") == \
        "`count(collection[p, k]) + n` : `number`"


def test_hover_shows_none_in_a_type() -> None:
    text = (SPEC / "tic_tac_toe.rules").read_text(encoding="utf-8")
    spec = parse(text, "tic_tac_toe.rules", str(SPEC / "tic_tac_toe.rules"))
    index = build_index(spec)
    shown = hover_text(index, text.index("var winner") + 5, spec, "")
    assert shown is not None and "\n\ntype: `number?`\n\n" in shown


def test_markdown_in_spec_text_is_shown_literally() -> None:
    assert md("[link](x) *b* <i>") == r"\[link\]\(x\) \*b\* \<i\>"


def test_keywords_come_from_the_grammar() -> None:
    words = keywords()
    for word in ("rule", "simultaneously", "ruling", "deck", "public", "fewest", "during",
                 "bottom", "assume", "visibility"):
        assert word in words
    assert "NAME" not in words and "count" not in words


@pytest.mark.parametrize(("before", "kind"), [
    ("  do ", "rule"), ("  do sp", "rule"), ("  start ", "rule"), ("  errata ", "erratum"),
    ("  remove rule ", "rule"), ("  replace function f", "function"),
    ('example e "E" players 2 variant ', "variant"), ("invariant i during rule ", "rule"),
    ('invariant i at choice "take" in rule ', "rule"),
    ("  let x = ", None), ("", None)])
def test_completion_knows_the_kind_of_name_after_a_keyword(before: str, kind: str | None) -> None:
    assert expected_kind(before) == kind


def test_completion_offers_names_builtins_and_keywords() -> None:
    _, _, index = _braff()
    offered = dict(candidates(index, "  let x = "))
    assert offered["fits"] == "function" and offered["deck"] == "zone"
    assert offered["count"] == "built-in" and offered["while"] == "keyword"
    assert offered["cat"] == "enum member"


def test_rename_refuses_what_is_not_a_free_name() -> None:
    text, _, index = _braff()
    occ = index.at(text.index("function fits") + 10)
    assert occ is not None
    edits = rename_edits(index, occ, "fits_in")
    assert len(edits) == 6 and {new for *_, new in edits} == {"fits_in"}
    assert len(rename_edits(index, occ, "deck_fits")) == 6
    for bad, why in (("9lives", "is not a name"), ("while", "keyword or built-in"),
                     ("count", "keyword or built-in"), ("offer", "already names")):
        with pytest.raises(RenameError, match=why):
            rename_edits(index, occ, bad)


def _fix(text: str, hint: str, at: str) -> str:
    start = text.index(at)
    diag = Diagnostic(Span("f.rules", 1, start + 1, 1, start + 2), "unexpected", hint)
    (fix,) = quick_fixes(diag, text, start)
    for a, b, new in sorted(fix.edits, reverse=True):
        text = text[:a] + new + text[b:]
    return text


@pytest.mark.parametrize(("text", "hint", "at", "fixed"), [
    ("game g 'G' {", "strings use double quotes", "'", 'game g "G" {'),
    ("rule r { end; }", "statements are not separated by ';' (write one per line)", ";",
     "rule r { end }"),
    ("if x = 1 {", "use '==' to compare; '=' assigns", "=", "if x == 1 {"),
    ("if a && b {", "write 'and' and 'or' (not '&&' and '||')", "&", "if a and b {"),
    ("x || y", "write 'and' and 'or' (not '&&' and '||')", "|", "x or y"),
    ("if !a {", "write 'not x' for negation and '!=' for 'not equal'", "!", "if not a {"),
    ("} else if b {", "write 'elif' for 'else if'", "if b", "} elif b {"),
    ("rule r { deal(p) }", "call a rule with 'do': do name(args)", "(", "rule r { do deal(p) }"),
])
def test_quick_fixes(text: str, hint: str, at: str, fixed: str) -> None:
    assert _fix(text, hint, at) == fixed


def test_no_quick_fix_when_the_text_is_not_the_mistake() -> None:
    diag = Diagnostic(Span("f.rules", 1, 1, 1, 2), "unexpected", "use '==' to compare")
    assert quick_fixes(diag, "== 1", 0) == []


def test_positions_count_utf16_units() -> None:
    text = 'note "\U0001F600 é" x\nsecond'
    pos = Positions(text, lambda s: len(s.encode("utf-16-le")) // 2)
    x = text.index("x")
    assert pos.position(x).character == x + 1  # the emoji is two UTF-16 units
    assert pos.offset(pos.position(x)) == x
    span = Span("f", 1, x + 1, 1, x + 2)
    rng = pos.range(span)
    assert (rng.start.character, rng.end.character) == (x + 1, x + 2)
    assert pos.offset(pos.position(len(text))) == len(text)


def test_variants_and_errata_are_found_where_they_are_used() -> None:
    _, _, braff = _braff()
    (tiny,) = braff.symbols["tiny"]
    assert (tiny.kind, tiny.span.line) == ("variant", 13)
    assert [o.span.line for o in braff.occurrences if o.name == "tiny"][:4] == [13, 61, 112, 113]
    path = SPEC / "love_letter.rules"
    text = path.read_text(encoding="utf-8")
    index = build_index(parse(text, str(path), str(path)))
    (erratum,) = index.symbols["z_man_2019"]
    assert erratum.kind == "erratum"
    uses = [o.span.line for o in index.occurrences if o.name == "z_man_2019"]
    assert uses[0] == 24 and erratum.span.line in uses
    # a rule the erratum replaces is declared twice: as written and in the erratum
    kinds = [(s.kind, s.container) for s in index.symbols["end_round"]]
    assert kinds == [("rule", ""), ("rule", "z_man_2019")]


def test_an_error_as_written_hidden_by_another_has_no_erratum_prefix() -> None:
    # the trial's F7 in the editor: the invariant's type error is the spec's as written,
    # though only the erratum that replaces the rule with the unknown name lets it be found
    base = (Path(__file__).parents[1] / "specs" / "patchable.rules").read_text(encoding="utf-8")
    written = base.replace("chips[p] += 1", "chips[p] += extra").replace(
        "count(hand[p]) <= 3", 'count(hand[p]) <= "three"')
    erratum = ('erratum e1 "E" date "2020" source "S" {\n'
               '  replace rule play cite "Play" "Each player draws until the deck is empty." {\n'
               "    let p = 0\n    while count(deck) > 0 {\n"
               "      turn p { draw x from deck to hand[p] }\n      let p = left(p)\n    }\n"
               "  }\n}\n")
    found = analyse(written + erratum, "/nowhere/small.rules")
    assert [(d.span.line, d.message) for d in found.diagnostics] == [
        (21, "unknown name 'extra'"),
        (31, "cannot compare a number with a text: count(hand[p]) is a number, so '<=' needs "
             "a number here")]


#: patchable.rules with an erratum of every kind of patch the outline missed.
PATCHED = (Path(__file__).parents[1] / "specs" / "patchable.rules").read_text(
    encoding="utf-8") + '''erratum e1 "E" date "2020" source "S" {
  var bonus = 2
  zone hand capacity 4
  players 2..4
  replace scoring(p) {
    score chips[p]
    then shared
  }
  remove invariant small
  replace rule play cite "Play" "Each player draws until the deck is empty." {
    end
  }
}
'''


def test_the_outline_lists_every_patch_of_an_erratum() -> None:
    # the trial's F13: an erratum listed its replaced declarations only, not its `var pot =
    # 15` nor its `replace scoring(p)`
    from rulewright.lsp.symbols import document_symbols
    found = analyse(PATCHED, "/nowhere/small.rules")
    assert found.index is not None
    (erratum,) = [s for s in document_symbols(found.index, Positions(PATCHED, len))
                  if s.detail == "erratum"]
    assert [(c.name, c.detail, c.selection_range.start.line + 1)
            for c in erratum.children or []] == [
        ("bonus", "counter: initial value", 33), ("hand", "zone: capacity or visibility", 34),
        ("players", "players 2..4", 35), ("scoring(p)", "replace scoring", 36),
        ("small", "remove invariant", 40), ("play", "rule", 41)]


def test_hover_on_a_patched_counter_shows_the_patch_then_the_declaration() -> None:
    # the trial's F13: hover on an erratum's `var pot = 15` showed only `var pot = 12`
    found = analyse(PATCHED, "/nowhere/small.rules")
    assert found.index is not None
    shown = hover_text(found.index, PATCHED.index("var bonus = 2") + len("var b"), found.spec,
                       "")
    assert shown is not None
    patch, declaration = shown.split("\n\n---\n\n")
    assert patch == ("**counter** `bonus` in e1 (line 33): its initial value there\n\n"
                     "```rules\nvar bonus = 2\n```")
    assert declaration.startswith("**counter** `bonus` (line 13)\n\n```rules\nvar bonus = 0\n```")
    # the declaration as written shows no patch
    written = hover_text(found.index, PATCHED.index("var bonus = 0") + len("var b"),
                         found.spec, "")
    assert written is not None and "in e1" not in written
