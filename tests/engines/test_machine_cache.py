"""Compile once: a configuration is compiled once per process, and kept on disk for the next
one; a disk entry that is not exactly what this user stored is refused and compiled again."""

from __future__ import annotations

import json
import os
import pickle
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

import rulewright
from rulewright.cli.main import main
from rulewright.dsl.compile.codegen import listing
from rulewright.dsl.machine.machine import Exec
from rulewright.engines import machine_cache as mc
from rulewright.engines.game import bundled_specs, load, load_parsed, load_spec
from rulewright.engines.state import State

# A small spec with a card data file, a variant, an erratum and a worked example at 3
# players: verify at 2 players runs four configurations, and the example a fifth.
SPEC = '''game cached "Cached" {
  rulebook "none" language "en"
  players 2..3
  start play
  bound 200 steps
}
enum suit { red blue }
card c "card" (suit, value) in deck
  assume "Invented cards."
  data "cards.csv"
zone deck: deck of c hidden
zone hand[player]: set of c owner capacity 3
var chips[player] = 0
variant generous "Keeping pays two chips"

rule play cite "Play" "Each player draws until the deck is empty." {
  let p = 0
  while count(deck) > 0 {
    turn p {
      draw x from deck to hand[p]
      choose p { option "keep" { chips[p] += cond(variant(generous), 2, 1) } option "pass" { } }
    }
    let p = left(p)
  }
}
scoring(p) { score sum(c.value for c in hand[p]) + chips[p] then shared }
invariant small "hands stay small": all(count(hand[p]) <= 3 for p in players)
erratum more_chips "More chips" date "2024-01-01" source "FAQ" {
  rule play cite "Play" "Each player draws until the deck is empty." {
    let p = 0
    while count(deck) > 0 {
      turn p {
        draw x from deck to hand[p]
        choose p { option "keep" { chips[p] += 3 } option "pass" { } }
      }
      let p = left(p)
    }
  }
}
example three "Three players draw" players 3 { expect count(deck) == 5 "all cards in the deck" }
'''
CARDS = "suit,value,count\nred,1,1\nred,2,1\nblue,3,2\nblue,4,1\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh disk cache for this test, and no machines in memory."""
    root = tmp_path / "cache"
    monkeypatch.setenv("RULEWRIGHT_CACHE", str(root))
    monkeypatch.delenv(mc.ENV_SWITCH, raising=False)
    mc.clear_memory()
    return root / "machines"


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    """The small spec, with its data file, in a folder of its own."""
    folder = tmp_path / "spec"
    folder.mkdir()
    (folder / "cards.csv").write_text(CARDS, encoding="utf-8")
    path = folder / "cached.rules"
    path.write_text(SPEC, encoding="utf-8")
    return path


def counts() -> dict[str, int]:
    return mc.COUNTS.to_json()


def play(game: rulewright.Game, seed: int) -> tuple[list[int], list[int]]:
    """A seeded random game: its history and returns."""
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(state.sample_chance(rng) if state.is_chance_node()
                           else rng.choice(state.legal_actions()))
    return state.history, state.returns()


def test_verify_compiles_each_configuration_once(cache: Path, spec: Path,
                                                 tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    code = main(["verify", str(spec), "--players", "2", "--profile", "ci", "--examples", "1",
                 "--seed", "1", "--no-database", "--json", str(out),
                 "--trace-dir", str(tmp_path / "traces")])
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert code == 0
    labels = [c["label"] for c in doc["games"][0]["configs"]]
    assert labels == ["2p", "2p +more_chips", "2p v:generous", "2p v:generous +more_chips"]
    # four configurations and the example's (3 players, with and without the erratum):
    # each compiled once, the example's run in 2 players would have reused its machine
    assert doc["compile"] == {"compiled": 6, "memory_hits": 0, "disk_hits": 0, "stored": 6,
                              "rejected": 0}
    again = tmp_path / "again.json"
    assert main(["verify", str(spec), "--players", "2", "--profile", "ci", "--examples", "1",
                 "--seed", "1", "--no-database", "--json", str(again),
                 "--trace-dir", str(tmp_path / "traces")]) == 0
    # the same process: every machine from memory, nothing compiled or read
    assert json.loads(again.read_text(encoding="utf-8"))["compile"] == {
        "compiled": 0, "memory_hits": 6, "disk_hits": 0, "stored": 0, "rejected": 0}


def test_example_in_a_verified_configuration_reuses_its_machine(cache: Path,
                                                                spec: Path) -> None:
    before = counts()
    load(spec, 3)
    load(spec, 3, (), ("more_chips",))
    load(spec, 3)
    assert mc.COUNTS.since(before)["compiled"] == 2
    assert mc.COUNTS.since(before)["memory_hits"] == 1


def test_a_second_process_reads_the_disk_cache(cache: Path, spec: Path) -> None:
    script = ("import json, sys, rulewright\n"
              "from rulewright.engines import machine_cache as mc\n"
              "from rulewright.engines.game import load\n"
              "for n in (2, 3):\n"
              "    load(sys.argv[1], n, ('generous',), ('more_chips',))\n"
              "print(json.dumps(mc.COUNTS.to_json()))\n")

    def run() -> dict[str, int]:
        done = subprocess.run([sys.executable, "-c", script, str(spec)], check=True,
                              capture_output=True, text=True, env=dict(os.environ))
        return json.loads(done.stdout)  # type: ignore[no-any-return]
    assert run() == {"compiled": 2, "memory_hits": 0, "disk_hits": 0, "stored": 2,
                     "rejected": 0}
    assert run() == {"compiled": 0, "memory_hits": 0, "disk_hits": 2, "stored": 0,
                     "rejected": 0}
    assert sorted(p.suffix for p in cache.iterdir()) == [".machine", ".machine"]
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    assert all(oct(p.stat().st_mode & 0o777) == "0o600" for p in cache.iterdir())


def test_a_machine_from_disk_plays_as_the_compiled_one(cache: Path, spec: Path) -> None:
    compiled = load(spec, 3, ("generous",))
    mc.clear_memory()
    before = counts()
    stored = load(spec, 3, ("generous",))
    assert mc.COUNTS.since(before)["disk_hits"] == 1
    assert stored.machine is not compiled.machine
    for seed in range(5):
        assert play(stored, seed) == play(compiled, seed)
    # generated functions keep their listings (their syntax trees come along)
    runs = [[ins.run for ins in r.code if isinstance(ins, Exec)] for r in (
        compiled.machine.rules[0], stored.machine.rules[0])]
    listings = [[listing(fn, g.machine.code_space) for fn in fns]
                for fns, g in zip(runs, (compiled, stored))]
    assert listings[0] == listings[1]
    assert listings[1][0] == [(17, "def rule2_play(st, l):"), (17, "    try:"),
                              (17, "        l[0] = 0"), (17, "    except value_errors as err:"),
                              (17, "        raise at_statement(0, err) from None")]


@pytest.mark.parametrize("name", bundled_specs())
def test_every_bundled_machine_is_stored_and_plays_the_same(name: str) -> None:
    game = load(name)
    key = "0" * 64
    stored = mc.decode(mc.encode(game.machine, key), key)
    again = rulewright.engines.game.Game(stored, game.source)
    for seed in range(2):
        assert play(again, seed) == play(game, seed)
    # a generated namespace's constants are found again by value (ids are per process)
    space = stored.code_space
    assert all(space.named[id(v)] == k for k, v in space.values.items())



@pytest.mark.parametrize("name,players,variants,errata", [
    ("zlap_kadr", 2, ("side_b",), ("board_a2",)), ("picture_perfect", 3, (), ()),
    ("braff", 2, ("tiny",), ())])
def test_an_entry_refers_to_the_spec_s_objects_and_reads_as_the_compiled_machine(
        name: str, players: int, variants: tuple[str, ...], errata: tuple[str, ...]) -> None:
    """An entry stores references to the parsed spec's objects, not the objects: read with
    a spec parsed from the same text, the machine holds that spec's objects, as a compiled
    one holds its own, and hashes as the compiled machine (machine_digest)."""
    from rulewright.dsl.compile.compile import compile_checked
    from rulewright.dsl.language.parse import parse
    from rulewright.engines.machine_digest import machine_digest
    parsed = load_spec(name)
    compiled = compile_checked(parsed, players=players, variants=variants, errata=errata)
    key = "0" * 64
    blob = mc.encode(compiled, key, parsed)
    whole = mc.encode(compiled, key)
    # the spec's nodes, spans and text are not in the entry
    assert len(blob) < len(whole) - 100_000
    assert parsed.source.encode("utf-8") not in blob
    again = parse(parsed.source, parsed.path, parsed.file)  # another parse: other objects
    assert again is not parsed and again.decls[0] is not parsed.decls[0]
    assert mc.spec_objects(again)[1] == mc.spec_objects(parsed)[1]  # the same shape
    stored = mc.decode(blob, key, again)
    assert stored.spec is again
    assert stored.rules[0].decl in again.decls
    assert machine_digest(stored) == machine_digest(compiled)
    game, fresh = rulewright.engines.game.Game(stored), rulewright.engines.game.Game(compiled)
    for seed in range(3):
        assert play(game, seed) == play(fresh, seed)
    # an entry with references read without the spec has nothing to resolve them with
    with pytest.raises(mc._Refused, match="does not load"):
        mc.decode(blob, key)


def test_a_spec_whose_walk_differs_is_another_key(spec: Path) -> None:
    """The walk's shape is in the key: a spec parsed into other objects (here, one
    declaration met twice where another parse would make two equal ones) never reads an
    entry written for the other shape."""
    import attrs
    parsed = load_spec(spec)
    first = parsed.decls[0]
    shared = attrs.evolve(parsed, decls=(*parsed.decls, first))
    equal = attrs.evolve(parsed, decls=(*parsed.decls, attrs.evolve(first)))
    assert len(mc.spec_objects(shared)[0]) == len(mc.spec_objects(equal)[0]) - 1
    assert mc.spec_objects(shared)[1] != mc.spec_objects(equal)[1]
    assert mc.entry_key(shared, "", 2, (), ()) != mc.entry_key(equal, "", 2, (), ())
    # the spec's strings are listed first, the rest of its text's strings not at all
    objects = mc.spec_objects(parsed)[0]
    assert objects[:4] == [parsed, parsed.path, parsed.file, parsed.source]
    assert not any(type(o) is str for o in objects[4:])


def test_a_stored_machine_s_functions_keep_the_restricted_built_ins() -> None:
    """A function takes its built-ins from its namespace when it is made, and unpickling
    made the generated functions before their namespace was filled: a machine read from the
    disk cache ran with Python's whole built-ins (``open``, ``__import__``) until the
    namespace's own were passed apart."""
    game = load("tic_tac_toe")
    key = "0" * 64
    stored = mc.decode(mc.encode(game.machine, key), key)
    space = stored.code_space
    restricted = space.ns["__builtins__"]
    generated = [v for v in space.ns.values()
                 if callable(v) and getattr(v, "__globals__", None) is space.ns]
    # tic-tac-toe's four functions: mark_of, lines, has_row, full
    assert len(generated) == 4
    assert all(f.__builtins__ is restricted for f in generated)
    assert "open" not in restricted and "__import__" not in restricted

def test_a_changed_data_file_or_spec_compiles_again(cache: Path, spec: Path) -> None:
    load(spec, 2)
    mc.clear_memory()
    before = counts()
    load(spec, 2)
    assert mc.COUNTS.since(before) == {"compiled": 0, "memory_hits": 0, "disk_hits": 1,
                                       "stored": 0, "rejected": 0}
    # one more blue 4: a changed data file is another machine
    (spec.parent / "cards.csv").write_text(CARDS.replace("blue,4,1", "blue,4,2"),
                                           encoding="utf-8")
    before = counts()
    game = load(spec, 2)
    assert mc.COUNTS.since(before)["compiled"] == 1
    assert len(game.machine.components) == 6
    # a changed spec text (a later modification time: parsed again) is another machine too
    spec.write_text(SPEC.replace("capacity 3", "capacity 4"), encoding="utf-8")
    os.utime(spec, (spec.stat().st_atime, spec.stat().st_mtime + 5))
    before = counts()
    game = load(spec, 2)
    assert mc.COUNTS.since(before)["compiled"] == 1
    assert game.machine.zones[1].capacity == 4


def _copy(spec: Path, folder: Path, name: str = "copied.rules",
          cards: str = CARDS, text: str = SPEC) -> Path:
    """The small spec (or ``text``) and its data file (or ``cards``) in another folder."""
    folder.mkdir()
    (folder / "cards.csv").write_text(cards, encoding="utf-8")
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def test_a_copy_in_another_folder_reads_the_entry_and_names_the_copy(
        cache: Path, spec: Path, tmp_path: Path) -> None:
    original = load(spec, 3, ("generous",))
    copy = _copy(spec, tmp_path / "elsewhere")
    mc.clear_memory()
    before = counts()
    game = load(copy, 3, ("generous",))
    # the key is the spec's text, data and configuration, not where the file is
    assert mc.COUNTS.since(before) == {"compiled": 0, "memory_hits": 0, "disk_hits": 1,
                                       "stored": 0, "rejected": 0}
    # ... and the machine read names the copy, as one compiled from it would
    assert (game.machine.spec.path, game.machine.spec.file) == (str(copy), str(copy))
    assert {ins.site.span.path for r in game.machine.rules for ins in r.code} == {str(copy)}
    assert str(game.machine.rules[0].code[0].site.span) == f"{copy}:17:3"
    assert str(spec.parent).encode() not in mc.encode(game.machine, "0" * 64)
    for seed in range(3):
        assert play(game, seed) == play(original, seed)
    # the original still reads its entry (the same one) and names itself
    mc.clear_memory()
    before = counts()
    again = load(spec, 3, ("generous",))
    assert mc.COUNTS.since(before)["disk_hits"] == 1
    assert {ins.site.span.path for r in again.machine.rules for ins in r.code} == {str(spec)}


def test_a_copy_with_another_data_file_text_or_rulewright_compiles_again(
        cache: Path, spec: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    load(spec, 2)

    def compiled(path: Path) -> rulewright.Game:
        mc.clear_memory()
        before = counts()
        game = load(path, 2)
        assert mc.COUNTS.since(before) == {"compiled": 1, "memory_hits": 0, "disk_hits": 0,
                                           "stored": 1, "rejected": 0}
        return game
    # one more blue 4 in the copy's data file
    game = compiled(_copy(spec, tmp_path / "data", cards=CARDS.replace("blue,4,1", "blue,4,2")))
    assert len(game.machine.components) == 6
    # another capacity in the copy's text
    game = compiled(_copy(spec, tmp_path / "text", text=SPEC.replace("capacity 3", "capacity 4")))
    assert game.machine.zones[1].capacity == 4
    # the same spec compiled by another rulewright (its version, or its modules' contents)
    monkeypatch.setattr(mc, "code_version", lambda: "rulewright 0.0.0|another build")
    compiled(spec)


def test_a_machine_that_holds_its_path_is_keyed_by_it(cache: Path, spec: Path,
                                                     tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # a machine whose bytes hold the spec's path where the references do not reach is
    # stored under a key with the path: the same file reads it, a copy compiles its own
    monkeypatch.setattr(mc, "_holds_path", lambda payload, parsed: True)
    load(spec, 2)
    mc.clear_memory()
    before = counts()
    load(spec, 2)
    assert mc.COUNTS.since(before)["disk_hits"] == 1
    mc.clear_memory()
    before = counts()
    game = load(_copy(spec, tmp_path / "elsewhere"), 2)
    assert mc.COUNTS.since(before)["compiled"] == 1
    assert game.machine.spec.path == str(tmp_path / "elsewhere" / "copied.rules")


def test_mutants_are_compiled_once_and_never_stored(cache: Path, spec: Path) -> None:
    import attrs
    mutant = attrs.evolve(load_spec(spec), mutation="#0 test")
    before = counts()
    load_parsed(mutant, 2)
    load_parsed(mutant, 2)
    assert mc.COUNTS.since(before) == {"compiled": 1, "memory_hits": 1, "disk_hits": 0,
                                       "stored": 0, "rejected": 0}


def test_the_cache_can_be_turned_off(cache: Path, spec: Path, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(mc.ENV_SWITCH, "off")
    load(spec, 2)
    assert not cache.exists()
    monkeypatch.delenv(mc.ENV_SWITCH)
    out = tmp_path / "out.json"
    assert main(["verify", str(spec), "--players", "2", "--variant", "generous", "--errata",
                 "off", "--profile", "ci", "--examples", "1", "--seed", "1", "--no-database",
                 "--no-compile-cache", "--json", str(out),
                 "--trace-dir", str(tmp_path / "traces")]) == 0
    assert not cache.exists()
    assert json.loads(out.read_text(encoding="utf-8"))["compile"]["stored"] == 0


# ---- entries that are not what this user stored --------------------------------------------

def stored_entry(cache: Path, spec: Path) -> Path:
    """Compile the 2-player configuration once, forget it in memory; its entry."""
    load(spec, 2)
    mc.clear_memory()
    (entry,) = cache.iterdir()
    return entry


def reload(spec: Path) -> dict[str, int]:
    """Load the 2-player configuration again; what that did."""
    before = counts()
    game = load(spec, 2)
    assert play(game, 1)[1]  # whatever was refused, the game plays
    mc.clear_memory()
    return mc.COUNTS.since(before)


REFUSED = {"compiled": 1, "memory_hits": 0, "disk_hits": 0, "stored": 1, "rejected": 1}


@pytest.mark.parametrize("damage", ["truncated", "flipped byte", "other key", "other format",
                                    "forbidden global"])
def test_a_damaged_entry_is_a_miss_and_is_rebuilt(cache: Path, spec: Path, damage: str,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    entry = stored_entry(cache, spec)
    blob = entry.read_bytes()
    key = entry.name.removesuffix(".machine")
    if damage == "truncated":
        blob = blob[:len(blob) // 2]
    elif damage == "flipped byte":
        blob = blob[:-100] + bytes([blob[-100] ^ 1]) + blob[-99:]
    elif damage == "other key":
        blob = mc.MAGIC + b"1" * 64 + blob[len(mc.MAGIC) + 64:]
    elif damage == "other format":
        blob = b"rulewright-machine/0\n" + blob[len(mc.MAGIC):]
    else:  # a payload with a valid header and hash that names os.system
        import hashlib
        payload = pickle.dumps(os.system)
        blob = (mc.MAGIC + key.encode() + b"\n" + hashlib.sha256(payload).hexdigest().encode()
                + b"\n" + payload)
    entry.write_bytes(blob)
    assert reload(spec) == REFUSED
    assert "compiling again" in caplog.text
    assert reload(spec) == {"compiled": 0, "memory_hits": 0, "disk_hits": 1, "stored": 0,
                            "rejected": 0}


def test_the_reasons_for_refusing_an_entry() -> None:
    key = "a" * 64
    with pytest.raises(mc._Refused, match="may not name posix.system|may not name nt.system"):
        import hashlib
        payload = pickle.dumps(os.system)
        mc.decode(mc.MAGIC + key.encode() + b"\n" + hashlib.sha256(payload).hexdigest().encode()
                  + b"\n" + payload, key)
    with pytest.raises(mc._Refused, match="hash does not match"):
        mc.decode(mc.MAGIC + key.encode() + b"\n" + b"0" * 64 + b"\n" + b"x", key)
    with pytest.raises(mc._Refused, match="stored under another key"):
        mc.decode(mc.MAGIC + b"b" * 64 + b"\n" + b"0" * 64 + b"\n" + b"x", key)
    with pytest.raises(mc._Refused, match="not a rulewright machine entry"):
        mc.decode(b"\x80\x05junk", key)


def test_an_entry_others_may_write_is_refused(cache: Path, spec: Path) -> None:
    entry = stored_entry(cache, spec)
    entry.chmod(0o666)
    assert reload(spec) == REFUSED
    assert oct(next(cache.iterdir()).stat().st_mode & 0o777) == "0o600"


def test_a_link_in_place_of_an_entry_is_refused(cache: Path, spec: Path,
                                                tmp_path: Path) -> None:
    entry = stored_entry(cache, spec)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(entry.read_bytes())
    elsewhere.chmod(0o600)
    entry.unlink()
    entry.symlink_to(elsewhere)
    assert reload(spec) == REFUSED
    assert not entry.is_symlink()


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0,
                    reason="giving a file to another user needs root")
def test_an_entry_of_another_user_is_refused(cache: Path, spec: Path) -> None:
    entry = stored_entry(cache, spec)
    os.chown(entry, 12345, 12345)
    assert reload(spec) == REFUSED


def test_a_folder_others_may_write_is_not_used(cache: Path, spec: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    cache.mkdir(parents=True, mode=0o700)
    cache.chmod(0o777)
    before = counts()
    load(spec, 2)
    assert mc.COUNTS.since(before) == {"compiled": 1, "memory_hits": 0, "disk_hits": 0,
                                       "stored": 0, "rejected": 0}
    assert list(cache.iterdir()) == []
    assert "has permissions 777 (others may write or read it)" in caplog.text


def test_a_link_in_place_of_the_folder_is_not_used(cache: Path, spec: Path,
                                                   tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    cache.parent.mkdir(parents=True, mode=0o700)
    cache.symlink_to(real)
    load(spec, 2)
    assert list(real.iterdir()) == []
    assert mc.unsafe_folder(cache) == "is a symbolic link"


def test_state_keeps_working_with_a_stored_machine(cache: Path, spec: Path) -> None:
    stored_entry(cache, spec)
    game = load(spec, 2)
    state = game.new_initial_state(seed=3)
    again = State.from_json(game, state.to_json())
    assert again == state


def test_an_unknown_cache_switch_value_is_named_in_a_warning(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(mc, "_warned_switch", set())
    for value, enabled in [("off", False), (" No ", False), ("on", True), ("", True)]:
        monkeypatch.setenv(mc.ENV_SWITCH, value)
        assert mc.disk_cache_enabled() is enabled
    assert caplog.messages == []
    monkeypatch.setenv(mc.ENV_SWITCH, "bogus")
    assert mc.disk_cache_enabled() is True
    assert mc.disk_cache_enabled() is True
    assert caplog.messages == [
        "rulewright: RULEWRIGHT_MACHINE_CACHE='bogus' is not on or off (on, 1, yes, true, or "
        "off, 0, no, false); the compile cache is on"]


def test_a_dead_writer_s_old_temporary_file_is_removed(cache: Path, spec: Path) -> None:
    cache.mkdir(parents=True, mode=0o700)
    old, new = cache / ".dead.123.tmp", cache / ".live.456.tmp"
    for f in (old, new):
        f.write_bytes(b"partial")
    os.utime(old, (time.time() - mc.TMP_MAX_AGE - 60,) * 2)
    load(spec, 2)   # stores an entry, and prunes
    assert not old.exists()
    assert new.read_bytes() == b"partial"
    assert len(list(cache.glob("*.machine"))) == 1
