"""What a label template may name: the kind's attributes and {kind}; {id} is refused."""

from __future__ import annotations

from rulewright.dsl.check.check import check
from rulewright.dsl.language.parse import parse

HEAD = ('game g "G" { players 2..2 start play }\nscoring(p) { score 0 then shared }\n'
        "zone deck: deck of c hidden\nrule play { end }\n")


def _label_diagnostics(label: str) -> list[tuple[int, int, str, str]]:
    text = HEAD + f'card c "C" (name, v) in deck\n  label "{label}"\n{{ (a, 1) * 2 (b, 2) }}\n'
    return [(d.span.line, d.span.column, d.message, d.hint)
            for d in check(parse(text, "lab.rules"))]


def test_a_template_may_not_name_the_id() -> None:
    assert _label_diagnostics("{kind}{id}") == [
        (6, 17, "label template of card kind 'c' names 'id'; a template names the kind's "
         "attributes and {kind}, not a component's id (copies of one card share a label)",
         "the attributes of 'c' are: name, v, and {kind}")]


def test_an_unknown_name_lists_the_attributes_and_kind() -> None:
    assert _label_diagnostics("{name} {colour}") == [
        (6, 18, "label template of card kind 'c' names 'colour', which is not one of its "
         "attributes", "the attributes of 'c' are: name, v, and {kind}")]


def test_kind_and_the_attributes_are_accepted() -> None:
    assert _label_diagnostics("{kind} {name} {v}") == []
