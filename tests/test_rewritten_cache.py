"""tests/conftest.py keeps pytest's rewritten modules in its cache folder when bytecode is not
to be written (PYTHONDONTWRITEBYTECODE), and writes nothing else."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from _pytest.assertion.rewrite import PYC_TAIL

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).with_name("conftest.py")


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.syspathinsert()
    return pytester.runpytest_subprocess("-p", "no:rulewright", "-p", "no:xdist",
                                         "-p", "no:randomly", *args)


def test_rewritten_modules_go_to_the_cache_folder(pytester: pytest.Pytester,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(helper="VALUE = 2\n", test_one="""
        import sys
        import helper

        def test_rewritten():
            assert sys.dont_write_bytecode      # the user's setting while tests run
            x = helper.VALUE
            assert x == 3
        """)
    first = _run(pytester)
    first.assert_outcomes(failed=1)
    # the assert was rewritten (the values are shown), as always
    assert "assert 2 == 3" in first.stdout.str()
    test = pytester.path.resolve() / "test_one.py"
    cached = pytester.path / ".pytest_cache" / "d" / "rewritten" / Path(*test.parts[1:-1])
    assert (cached / f"test_one{PYC_TAIL}").is_file()
    # nothing beside the sources: neither the rewritten module nor the plain import
    assert not list(pytester.path.glob("**/__pycache__"))
    # (the conftest itself is imported before it can set this up; helper is not rewritten)
    assert [p.name for p in cached.iterdir()] == [f"test_one{PYC_TAIL}"]
    # a changed test is rewritten again, not read from the cache
    (pytester.path / "test_one.py").write_text(
        "def test_rewritten():\n    x = 4\n    assert x == 5\n", encoding="utf-8")
    again = _run(pytester)
    again.assert_outcomes(failed=1)
    assert "assert 4 == 5" in again.stdout.str()


def test_bytecode_written_as_usual_without_the_setting(pytester: pytest.Pytester,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(test_two="def test_ok():\n    assert True\n")
    _run(pytester).assert_outcomes(passed=1)
    assert (pytester.path / "__pycache__" / f"test_two{PYC_TAIL}").is_file()
    assert not (pytester.path / ".pytest_cache" / "d" / "rewritten").exists()


def test_this_session_restores_the_setting() -> None:
    # the conftest gives the user's setting back after each module it rewrote
    assert sys.dont_write_bytecode == bool(sys.flags.dont_write_bytecode)
