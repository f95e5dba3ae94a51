"""A variant with no patches that nothing reads changes nothing: a checker warning at its
name (rulewright.dsl.check.inert; a fresh user's trial: the "longer race" variant's
configurations were all "held" and its page "verified", over games played without it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulewright import check, parse
from rulewright.cli.main import main

HEAD = '''game race "Race" { players 2..2 start play }
var pot = 12
var oil[player] = 0
rule play { while pot > 0 { choose 0 { option "take" { transfer 1 from pot to oil[0] } } } }
scoring(p) { score oil[p] }
'''
MESSAGE = ("variant 'long' (line 6) changes nothing: it has no patches and nothing reads "
           "variant(long)")


def _warnings(extra: str) -> list[tuple[int, int, str]]:
    return [(d.span.line, d.span.column, d.message)
            for d in check(parse(HEAD + extra, "race.rules")) if d.severity == "warning"]


def test_a_variant_with_no_patches_that_nothing_reads_is_warned_about_at_its_name() -> None:
    assert _warnings('variant long "A longer race"\n') == [(6, 9, MESSAGE)]


@pytest.mark.parametrize("extra", [
    'variant long "A longer race" { var pot = 18 }\n',
    'variant long "A longer race"\ninvariant i "pot" only where variant(long): pot <= 18\n',
    'variant long "A longer race"\nfunction f() = cond(variant(long), 1, 0)\n'
    'invariant i "f" : f() >= 0\n',
    'variant long "A longer race"\nvariant other "Other" { var pot = cond(variant(long), 18, 12) }\n',
    'variant long "A longer race" assume "changes nothing: its patches come with the 2nd printing"\n',
    'erratum clarified "Clarified" date "2026-01" source "FAQ" cite "FAQ" "As printed." { }\n',
], ids=["patched", "only-where", "function", "other-patch", "acknowledged", "erratum"])
def test_a_patch_a_read_or_an_acknowledgement_is_no_warning(extra: str) -> None:
    assert _warnings(extra) == []


def test_verify_fails_on_it_unless_acknowledged(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "race.rules"
    spec.write_text(HEAD + 'variant long "A longer race"\n', encoding="utf-8")
    assert main(["verify", str(spec), "--profile", "ci", "--seed", "1", "--no-database",
                 "--trace-dir", str(tmp_path / "t")]) == 1
    assert f"UNACKNOWLEDGED WARNING race:\n{spec}:6:9: warning: {MESSAGE}\n" \
        in capsys.readouterr().out
    spec.write_text(HEAD + 'variant long "A longer race" assume "changes nothing: the second '
                    'printing brings its patches"\n', encoding="utf-8")
    assert main(["verify", str(spec), "--profile", "ci", "--seed", "1", "--no-database",
                 "--trace-dir", str(tmp_path / "t")]) == 0
