"""The ``rulewright`` command: argument parsing and dispatch only.

Exit codes: 0 success; 1 an invariant was violated (also one a replayed counterexample
reproduces), a trace cannot be replayed (corrupt, diverging, a recorded violation that does
not reproduce), or ``check`` found spec errors;
2 a usage error (bad flag, unknown spec, unreadable file), named with its subcommand, or a spec
with errors given to any other command (:data:`~rulewright.cli.common.EXIT_SPEC`);
3 an internal error (a bug);
141 the reader of the output left (``| head``), as for a process killed by SIGPIPE.
Each subcommand lives in its own module and registers itself in :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
import traceback
from typing import Any, Callable, Sequence

from rulewright.cli import interrupt
from rulewright.cli.common import EXIT_SPEC, version_line
from rulewright.cli.output import escaping_output
from rulewright.dsl.language.near import did_you_mean
from rulewright.errors import RulewrightError, SpecError, TraceError, UsageError

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_PIPE = 141  # 128 + SIGPIPE: the shell's status for a writer whose reader left

Register = Callable[[Any], None]


def _commands() -> list[Register]:
    from rulewright.cli import check_cmd, diff_cmd, lsp_cmd, replay_cmd, simulate_cmd
    registers: list[Register] = [check_cmd.register, simulate_cmd.register, replay_cmd.register,
                                 diff_cmd.register, lsp_cmd.register]
    for optional in ("verify_cmd", "docs_cmd", "explore_cmd", "mutate_cmd"):
        try:
            module = __import__(f"rulewright.cli.{optional}", fromlist=["register"])
        except ModuleNotFoundError as err:
            if err.name != f"rulewright.cli.{optional}":
                raise  # the command is there but something it imports is not: a bug
            continue
        registers.append(module.register)
    return registers


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # '--versio' or '--seed' cut short would silently mean a flag the user did not type,
        # and would change meaning when a new flag shares the prefix
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        #: the subcommands' parsers by name (the top level's; see :func:`parse`)
        self.commands: dict[str, argparse.ArgumentParser] = {}

    def error(self, message: str) -> None:  # type: ignore[override]
        hint = _suggestion(self, message)
        raise UsageError(f"{self.prog}: {message}\n{hint + chr(10) if hint else ''}"
                         f"(see '{self.prog} --help')")


_INVALID_CHOICE = re.compile(r"invalid choice: '((?:[^'\\]|\\.)*)' \(choose from (.*)\)$")
_UNRECOGNIZED = "unrecognized arguments: "


def _suggestion(parser: argparse.ArgumentParser, message: str) -> str:
    """'did you mean ...?' for a mistyped command, choice or flag (argparse in Python 3.11
    suggests nothing), or ""."""
    m = _INVALID_CHOICE.search(message)
    if m is not None:
        return did_you_mean(m.group(1), re.findall(r"'([^']*)'", m.group(2)))
    if message.startswith(_UNRECOGNIZED):
        flags = [f for f in parser._option_string_actions if f.startswith("--")]  # noqa: SLF001
        hints = [(arg, did_you_mean(arg.split("=", 1)[0], flags))
                 for arg in message[len(_UNRECOGNIZED):].split() if arg.startswith("--")]
        hints = [(arg, hint) for arg, hint in hints if hint]
        return "; ".join(f"{arg}: {hint}" if len(hints) > 1 else hint for arg, hint in hints)
    return ""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = _Parser(
        prog="rulewright",
        description="Board-game rules as checked, executable specifications. "
                    "Write rules in the rules language (*.rules), then check, play, verify "
                    "and document them.",
        epilog="Exit codes: 0 ok, 1 a violation, a spec defect in play or a trace that does "
               "not replay (check: spec errors), 2 usage or spec errors, 3 internal error. "
               "Bundled specs can be named without a path (e.g. 'braff').")
    parser.add_argument("--version", action="store_true",
                        help="print the versions of rulewright, Hypothesis and Python, and exit")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for register in _commands():
        register(sub)
    parser.commands = dict(sub.choices)
    return parser


def parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """Parse ``argv``; arguments no parser knows are the usage error of the subcommand they
    came with, so its message points to ``rulewright COMMAND --help``, not the top level's.

    Raises:
        UsageError: a bad flag or value (from the parser that owns it).
    """
    args, extra = parser.parse_known_args(argv)
    if extra:
        commands: dict[str, argparse.ArgumentParser] = getattr(parser, "commands", {})
        owner = commands.get(getattr(args, "command", None) or "", parser)
        owner.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _stdout_is_devnull() -> bool:
    try:
        return os.path.samestat(os.fstat(sys.stdout.fileno()), os.stat(os.devnull))
    except (OSError, ValueError):  # no stdout file descriptor at all
        return False


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (also used by the console script).

    Everything it prints goes through :func:`rulewright.cli.output.escaping_output`: no
    control character of a spec, trace, file name or flag reaches the terminal raw.
    """
    with escaping_output():
        code = _main(argv)
    if argv is None:  # the console script: the process ends next
        # the interpreter's last collections walk every object still alive (a mutate or
        # verify run's compiled machines and Hypothesis' caches): at least 9 of the 90 CPU-s
        # of `mutate zlap_kadr --n 20 --players 2`, 1.2 of 5.3 of a small Braff run; frozen,
        # they are left to the end of the process (output is flushed, files are closed)
        gc.freeze()
    return code


def _main(argv: Sequence[str] | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_list
    prog = "rulewright"  # with the command once known: a usage error names it
    try:
        parser = build_parser()
        args = parse(parser, args_list)
        if getattr(args, "command", None):
            prog = f"rulewright {args.command}"
        if args.version:
            print(version_line())
            return EXIT_OK
        if not getattr(args, "command", None):
            parser.print_help()
            return EXIT_USAGE
        with interrupt.watching():
            code: int = args.run(args)
            # a Ctrl-C swallowed where Python ignores exceptions (a gc callback) still counts
            interrupt.raise_if_interrupted()
        return code
    except SpecError as err:  # check reports its own (exit 1); any other command: EXIT_SPEC
        print(err.render(), file=sys.stderr)
        return EXIT_SPEC
    except TraceError as err:
        print(f"rulewright: trace error: {err}", file=sys.stderr)
        return EXIT_FAIL
    except UsageError as err:
        text = str(err)
        print(text if text.startswith("rulewright") else f"{prog}: {text}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # the reader left (``| head``): what was asked for ran; as other tools, say nothing
        # and exit as one killed by SIGPIPE would, not 1 ("violations") or 2
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_PIPE
    except SystemExit as err:
        # rich meets a closed pipe the same way but exits 1 itself, after pointing stdout
        # at os.devnull (Console.on_broken_pipe): that 1 is not a verdict
        if err.code == 1 and _stdout_is_devnull():
            return EXIT_PIPE
        raise
    except OSError as err:  # a file or folder named on the command line cannot be used
        where = f": {err.filename}" if err.filename else ""
        print(f"{prog}: {err.strerror or err}{where}", file=sys.stderr)
        return EXIT_USAGE
    except RulewrightError as err:
        print(f"rulewright: {err}", file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt:
        print("rulewright: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # noqa: BLE001 - the last line of defence is a bug report
        print(f"rulewright: internal error (a bug in rulewright, please report it): "
              f"{type(err).__name__}: {err}", file=sys.stderr)
        if debug:
            traceback.print_exc()
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
