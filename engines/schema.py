"""Foreign JSON documents (traces, state snapshots): read with limits, check against a schema.

The schemas are published as package data (``rulewright/engines/schemas/*.schema.json``,
JSON Schema 2020-12) and checked with :mod:`jsonschema`. A document that fails gets one line
naming the field and what it must be, taken from the schema's ``description``; the offending
value itself is never echoed in full, since a forged file can make it arbitrarily large.

Reading is limited before a schema sees the data: a file must be a regular file of at most
:data:`MAX_DOCUMENT_BYTES`, numbers have at most :data:`MAX_NUMBER_DIGITS` digits, ``NaN`` and
``Infinity`` are refused and nesting deeper than Python's recursion limit is an error, not a
crash.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

from jsonschema import Draft202012Validator, ValidationError, validators
from jsonschema.exceptions import best_match

from rulewright.errors import TraceError, UsageError

#: Trace and state files larger than this are refused before they are read (bytes).
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
#: Numbers in a document have at most this many digits (a 64-bit number has 20).
MAX_NUMBER_DIGITS = 40
#: Every schema file shipped, by document kind.
SCHEMAS = {"trace": "trace.schema.json", "state": "state.schema.json"}


def _is_integer(_checker: Any, value: Any) -> bool:
    # JSON Schema counts 1.0 as an integer and Python counts True as one; an action id is neither
    return isinstance(value, int) and not isinstance(value, bool)


_Validator: Any = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer))


def schema_text(kind: str) -> str:
    """The published schema of ``kind`` (``"trace"`` or ``"state"``) as JSON text."""
    return resources.files("rulewright.engines.schemas").joinpath(SCHEMAS[kind]) \
        .read_text(encoding="utf-8")


#: Per kind, the top-level lists with one entry per action: up to a million entries, which
#: the validator takes minutes to check one by one, so their entries are checked only once
#: their number is known to fit the game (see :func:`validate`).
PER_ACTION = {"trace": ("history", "steps"), "state": ("history",)}


@lru_cache(maxsize=None)
def _validator(kind: str, entries: bool = True) -> Any:
    schema = json.loads(schema_text(kind))
    Draft202012Validator.check_schema(schema)
    if not entries:  # the same schema without the per-action lists' "items"
        for key in PER_ACTION[kind]:
            prop = schema["properties"][key]
            ref = prop.get("$ref", "")
            if ref.startswith("#/$defs/"):
                prop = dict(schema["$defs"][ref.removeprefix("#/$defs/")], **{
                    k: v for k, v in prop.items() if k != "$ref"})
            schema["properties"][key] = {k: v for k, v in prop.items() if k != "items"}
    return _Validator(schema)


class _Refused(Exception):
    """A number or constant that :func:`read_json` will not turn into a value."""


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _Refused(f"a number with {len(text.lstrip('-'))} digits "
                       f"(at most {MAX_NUMBER_DIGITS} are allowed)")
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS + 10:
        raise _Refused(f"a number written with {len(text)} characters")
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise _Refused("a number too large for a float")
    return value


def _parse_constant(text: str) -> Any:
    raise _Refused(f"{text}, which is not a JSON number")


def loads(text: str, what: str) -> Any:
    """Parse JSON text with the limits above.

    Args:
        text: the JSON text. what: how error messages name it, e.g. ``"x.json"``.

    Raises:
        TraceError: not JSON, a number too large, NaN/Infinity, or nested too deeply.
    """
    try:
        return json.loads(text, parse_int=_parse_int, parse_float=_parse_float,
                          parse_constant=_parse_constant)
    except _Refused as err:
        raise TraceError(f"{what}: the JSON holds {err}") from None
    except RecursionError:
        raise TraceError(f"{what}: the JSON is nested too deeply") from None
    except json.JSONDecodeError as err:
        raise TraceError(f"{what}: not JSON ({err.msg}: line {err.lineno} column "
                         f"{err.colno})") from None


def read_json(path: Path, what: str) -> Any:
    """Read a JSON file that came from elsewhere, with the limits above.

    Args:
        path: the file. what: what it should be, e.g. ``"trace"``, for messages.

    Raises:
        UsageError: no such file, not a regular file, too large, or unreadable.
        TraceError: not UTF-8 or not JSON (see :func:`loads`).
    """
    try:
        if not path.is_file():
            why = "not a regular file" if path.exists() else "no such file"
            raise UsageError(f"{path}: cannot read the {what}: {why}")
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise UsageError(f"{path}: {size} bytes; a {what} file has at most "
                             f"{MAX_DOCUMENT_BYTES} bytes")
        data = path.read_bytes()[:MAX_DOCUMENT_BYTES + 1]
    except OSError as err:
        raise UsageError(f"{path}: cannot read the {what}: {err.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise TraceError(f"{path}: not a JSON {what} (not UTF-8 text: {err.reason} at byte "
                         f"{err.start})") from None
    return loads(text, str(path))


def _where(path: Iterable[Any]) -> str:
    """``history[2] (step 3)``: a JSON path, and the 1-based step that the other messages
    (``step 3: action 5 is not legal here``) name an entry of ``history`` or ``steps`` by."""
    parts = list(path)
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    if len(parts) > 1 and parts[0] in ("history", "steps") and isinstance(parts[1], int):
        out += f" (step {parts[1] + 1})"
    return out


def _short(name: Any) -> str:
    text = repr(name)
    return text if len(text) <= 40 else text[:37] + "..."


def describe(error: ValidationError) -> str:
    """One line for a schema failure: where, and what the schema expects there.

    Never includes the failing value itself, except a field name cut to 40 characters.
    """
    where = _where(error.absolute_path)
    instance: Any = error.instance
    schema: Any = error.schema
    wanted: Any = error.validator_value
    if error.validator == "required":
        missing = [k for k in wanted if k not in instance]
        return f"{where + ': ' if where else ''}missing field {_short(missing[0])}"
    if error.validator == "additionalProperties":
        allowed = set(schema.get("properties", {}))
        extra = sorted((str(k) for k in instance if k not in allowed), key=len)
        return f"{where + ': ' if where else ''}unknown field {_short(extra[0])}"
    expected = schema.get("description") if isinstance(schema, dict) else None
    if expected is None:
        expected = f"something that passes the schema's {error.validator!r} check"
    return f"{where or 'the document'} must be {expected}"


def _first_error(kind: str, doc: Any, entries: bool = True) -> ValidationError | None:
    # best_match prefers the shallowest error, so a missing field beats a bad value inside it
    error: ValidationError | None = best_match(_validator(kind, entries).iter_errors(doc))
    return error


def _has_huge_number(doc: Any, limit: int) -> bool:
    # a tight walk without paths: a trace holds millions of small numbers
    todo: list[Any] = [doc]
    seen: set[int] = set()  # a Python-built document may contain itself
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        values = node.values() if isinstance(node, dict) else node
        for v in values:
            t = type(v)
            if t is int:
                if not -limit < v < limit:
                    return True
            elif t is dict or t is list:
                todo.append(v)
            elif isinstance(v, int) and not isinstance(v, bool):
                if not -limit < v < limit:
                    return True
            elif isinstance(v, (dict, list)):
                todo.append(v)
    return False


def _huge_number(doc: Any) -> str | None:
    """Where ``doc`` holds an integer of more than :data:`MAX_NUMBER_DIGITS` digits, if anywhere.

    A document built in Python (not read by :func:`loads`) may hold any integer, and the
    validator's own messages print the value, which Python refuses past 4,300 digits. The walks
    are iterative, so deep nesting cannot exhaust the stack here; the one that names the place
    runs only when there is one.
    """
    limit = 10 ** MAX_NUMBER_DIGITS
    if isinstance(doc, int) and not isinstance(doc, bool):
        return None if -limit < doc < limit else "the document"
    if not isinstance(doc, (dict, list)) or not _has_huge_number(doc, limit):
        return None
    todo: list[tuple[Any, tuple[Any, ...]]] = [(doc, ())]
    seen: set[int] = set()
    while todo:
        node, path = todo.pop()
        if isinstance(node, int) and not isinstance(node, bool):
            if not -limit < node < limit:
                return _where(path) or "the document"
        elif id(node) in seen:
            continue
        elif isinstance(node, dict):
            seen.add(id(node))
            todo.extend((v, (*path, k)) for k, v in node.items())
        elif isinstance(node, list):
            seen.add(id(node))
            todo.extend((v, (*path, i)) for i, v in enumerate(node))
    return None


def validate(kind: str, doc: Any, what: str = "", *, entries: bool = True,
             at_most: int | None = None, numbers: bool = True) -> None:
    """Check ``doc`` against the published schema of ``kind``.

    Everything but the entries of the per-action lists (:data:`PER_ACTION`) is checked first,
    so a list longer than the schema allows is refused at once; then, with ``at_most``, a list
    longer than the game can be; only then each entry (about 0.1 ms each).

    Args:
        kind: ``"trace"`` or ``"state"``. doc: the parsed JSON.
        what: a prefix for the message, e.g. the file name.
        entries: False checks all but the per-action lists' entries (their number included).
        at_most: the most actions a game of the spec can have (its ``bound``), when known.
        numbers: False skips the walk for numbers of more than :data:`MAX_NUMBER_DIGITS`
            digits, for a document whose numbers were checked already (read by
            :func:`loads`, or by an earlier call).

    Raises:
        TraceError: the first problem, as one line (see :func:`describe`).
    """
    prefix = f"{what}: " if what else ""
    tag = f"rulewright-{kind}/1"
    if not isinstance(doc, dict) or doc.get("format") != tag:
        raise TraceError(f"{prefix}not a rulewright {kind} (expected an object with "
                         f"format {tag!r})")
    huge = _huge_number(doc) if numbers else None
    if huge is not None:
        raise TraceError(f"{prefix}{huge} is a number of more than {MAX_NUMBER_DIGITS} digits")
    error = _first_error(kind, doc, entries=False)
    if error is None and at_most is not None:
        for key in PER_ACTION[kind]:
            if len(doc[key]) > at_most:
                raise TraceError(f"{prefix}{key} has {len(doc[key])} entries, but a game of "
                                 f"this spec ends within {at_most} actions (its bound)")
    if error is None and entries:
        error = _first_error(kind, doc)
    if error is not None:
        raise TraceError(prefix + describe(error))


__all__ = ["MAX_DOCUMENT_BYTES", "MAX_NUMBER_DIGITS", "PER_ACTION", "SCHEMAS", "describe", "loads",
           "read_json", "schema_text", "validate"]
