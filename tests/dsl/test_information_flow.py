"""The static information-flow analysis (rulewright.dsl.check.information_flow): no leak in the
bundled and test specs, what the book makes public (``reveal``, ``announce``, a move into a
public zone) is no leak, and taking that declaration away brings the leak back. The leak
family itself is in tests/invariants/test_leaks.py."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulewright as rw
from rulewright.dsl.check.check import check
from rulewright.dsl.check.information_flow import leaks
from rulewright.dsl.language.parse import parse
from rulewright.dsl.language.unparse import stmt_text

ROOT = Path(__file__).parent.parent.parent
CLEAN = sorted((ROOT / "spec").glob("*.rules")) + sorted((ROOT / "tests" / "specs").glob("*.rules"))


def _leaks(text: str, path: str = "x.rules") -> list[tuple[int, int, str]]:
    return [(k.span.line, k.span.column, k.message) for k in leaks(parse(text, path))]


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.name)
def test_no_leak_in_the_bundled_and_test_specs(path: Path) -> None:
    # every selection of errata and variants, too
    assert _leaks(path.read_text(encoding="utf-8"), str(path)) == []


def test_without_the_reveal_player_0_is_offered_what_only_player_1_sees() -> None:
    text = (ROOT / "tests" / "specs" / "reveal_to_one.rules").read_text(encoding="utf-8")
    assert "  reveal hand[1] to 0\n" in text
    assert _leaks(text.replace("  reveal hand[1] to 0\n", "")) == [(19, 31, (
        "information leak: whether option 'call high' is offered (so whether player 0 is "
        "asked at all) depends on hand[1], which only player 1 sees; player 0 observes it: "
        "hand[1] (line 19) -> option 'call high' (line 19)"))]


LOVE_LETTER = (ROOT / "spec" / "love_letter.rules").read_text(encoding="utf-8")


def test_without_announcing_the_discarded_card_its_effects_leak_it() -> None:
    text = LOVE_LETTER.replace("  announce n  # face up: all see it", "", 1)
    assert text != LOVE_LETTER
    found = _leaks(text, "love_letter.rules")
    assert found[0] == (122, 24, (
        "information leak: public counter protected[p] depends on hand[p], which only "
        "player p sees; every player observes it: hand[p] (line 110) -> n (line 110) -> "
        "n (line 112) -> if n == guard (line 119) -> public counter protected[p] (line 122); "
        "the same flow reaches lines 131, 132, 177, 183, 185, 197, 198"))
    # and in the 2019 edition's own card_effect (an erratum's rule)
    assert found[1][2].startswith("with edition '2019': information leak: 'move hand[q] to "
                                  "discards[q]' depends on hand[p]")


def test_the_baron_tells_everyone_who_had_the_lower_card() -> None:
    # "The player with the lower value is out of the round": a third player learns that the
    # other hand is higher; the spec says the book announces it
    text = LOVE_LETTER.replace("announce hand_value(p) < hand_value(q)  ", "", 1)
    assert text != LOVE_LETTER
    assert _leaks(text, "love_letter.rules") == [(131, 3, (
        "information leak: 'move hand[q] to discards[q]' depends on hand[q], which only "
        "player q sees; every player observes it: hand[q] (line 66) -> hand_value(q) "
        "(line 165) -> if hand_value(p) < hand_value(q) (line 165) -> "
        "'move hand[q] to discards[q]' (line 131); the same flow reaches line 132"))]


HEAD = """game g "G" {
  rulebook "none" language "en"
  players 2..2
  start play
  bound 40 steps
}
card c "card" (value) in deck {
  (1) (2) (3) (4)
}
zone deck: deck of c hidden
zone hand[player]: set of c owner
zone table: set of c public
var secret[player] = 0 owner
var score[player] = 0
scoring(p) { score score[p] then shared }
"""


def _rule(body: str) -> str:
    return HEAD + 'rule play cite "Play" "Play." {\n' + body + "\n}\n"


def test_a_secret_into_another_players_owner_counter() -> None:
    assert _leaks(_rule("  draw x from deck to hand[1]\n  secret[0] = x.value\n"
                        "  choose 0 { option \"a\" { } option \"b\" { } }")) == [(18, 3, (
                            "information leak: counter secret[0] depends on hand[1], which "
                            "only player 1 sees; player 0 observes it: hand[1] (line 17) -> "
                            "x (line 17) -> counter secret[0] (line 18)"))]


def test_a_return_on_a_secret_decides_whether_what_follows_happens() -> None:
    assert _leaks(_rule("  draw x from deck to hand[1]\n  if x.value > 2 { return }\n"
                        "  choose 0 { option \"a\" { } option \"b\" { } }")) == [(19, 3, (
                            "information leak: whether player 0 is asked 'a / b' depends on "
                            "hand[1], which only player 1 sees; player 0 observes it: hand[1] "
                            "(line 17) -> x (line 17) -> if x.value > 2 (line 18) -> whether "
                            "player 0 is asked 'a / b' (line 19)"))]


def test_the_owner_may_see_their_own_secret_and_a_zones_size_is_public() -> None:
    assert _leaks(_rule("  draw x from deck to hand[1]\n  secret[1] = x.value\n"
                        "  choose 1 { option \"a\" when secret[1] > 2 { } option \"b\" { } }\n"
                        "  score[0] = count(hand[1])\n"
                        "  choose 0 { option \"a\" { } option \"b\" { } }")) == []


def test_a_card_moved_to_a_public_zone_is_public_from_there() -> None:
    body = ("  draw x from deck to hand[1]\n  score[0] = x.value\n  move x to table\n"
            "  choose 0 { option \"a\" { } option \"b\" { } }")
    assert _leaks(_rule(body)) == []  # shown before anyone looks
    moved_later = body.replace("  move x to table\n", "") + "\n  move x to table"
    assert [leak[:2] for leak in _leaks(_rule(moved_later))] == [(18, 3)]


def test_announce_to_one_player_is_no_announcement_to_the_others() -> None:
    body = ("  draw x from deck to hand[1]\n  secret[0] = x.value\n  ANNOUNCE\n"
            "  choose 0 { option \"a\" when secret[0] > 2 { } option \"b\" { } }\n"
            "  score[1] = x.value\n  choose 1 { option \"a\" { } option \"b\" { } }")
    assert _leaks(_rule(body.replace("ANNOUNCE", "announce x.value to 0"))) == [(21, 3, (
        "information leak: public counter score[1] depends on hand[1], which only player 1 "
        "sees (and player 0 has been shown); every player observes it: hand[1] (line 17) -> x (line 17) -> public counter "
        "score[1] (line 21)"))]
    assert _leaks(_rule(body.replace("ANNOUNCE", "announce x.value"))) == []


def test_announce_parses_checks_and_does_nothing_in_play(tmp_path: Path) -> None:
    text = _rule("  draw x from deck to hand[1]\n  announce x.value to [0, 1]\n  end")
    spec = parse(text, "x.rules")
    rule = next(d for d in spec.decls if getattr(d, "name", "") == "play")
    assert stmt_text(rule.body[1]) == "announce x.value to [0, 1]"
    assert [d for d in check(spec) if d.severity == "error"] == []
    bad = check(parse(text.replace("to [0, 1]", "to deck"), "x.rules"))
    assert any("announce ... to needs" in d.message for d in bad)
    (tmp_path / "x.rules").write_text(text, encoding="utf-8")
    state = rw.load(tmp_path / "x.rules", players=2).new_initial_state()
    assert state.is_chance_node()
    state.apply_action(state.chance_outcomes()[0][0])
    assert state.is_terminal()


def test_the_language_server_shows_the_leak_as_check_does() -> None:
    from rulewright.lsp.analysis import analyse  # the editor's analysis on every pause

    path = ROOT / "tests" / "invariants" / "specs" / "leaks" / "public_counter.rules"
    analysis = analyse(path.read_text(encoding="utf-8"), str(path))
    assert [(d.severity, d.span.line, d.span.column) for d in analysis.diagnostics] == [
        ("warning", 19, 3)]
    assert analysis.diagnostics[0].message.startswith("information leak: public counter shown")


def test_every_hand_at_once_is_every_players_secret() -> None:
    assert _leaks(_rule("  for p in players { draw x from deck to hand[p] }\n"
                        "  score[0] = sum(k.value for k in hand[*])\n"
                        "  choose 0 { option \"a\" { } option \"b\" { } }")) == [(18, 3, (
                            "information leak: public counter score[0] depends on hand[*], "
                            "of which each player sees only their own part; every player "
                            "observes it: hand[*] (line 18) -> public counter score[0] "
                            "(line 18)"))]


def test_a_revealed_zone_is_secret_again_once_a_card_is_drawn_into_it() -> None:
    body = ("  draw x from deck to hand[1]\n  reveal hand[1] to players\n  DRAW\n"
            "  choose 0 { option \"a\" when any(k.value > 2 for k in hand[1]) { }"
            " option \"b\" { } }")
    assert _leaks(_rule(body.replace("DRAW", ""))) == []
    assert _leaks(_rule(body.replace("DRAW", "draw y from deck to hand[1]"))) == [(20, 30, (
        "information leak: whether option 'a' is offered (so whether player 0 is asked at "
        "all) depends on hand[1], which only player 1 sees; player 0 observes it: hand[1] "
        "(line 20) -> option 'a' (line 20)"))]


def test_the_options_of_a_choice_from_another_players_hand_depend_on_it() -> None:
    # a new user's trial: "the options of 'play' depends on" (the verb now agrees)
    assert _leaks(_rule("  draw x from deck to hand[1]\n"
                        "  choose 0 c from hand[1] label \"play\"\n  move c to table")) == [
        (18, 3, "information leak: the options of 'play' depend on hand[1], which only "
                "player 1 sees; player 0 observes it: hand[1] (line 18) -> the options of "
                "'play' (line 18)")]
