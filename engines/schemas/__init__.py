"""JSON Schemas of rulewright's JSON documents, one file per format, and a validator.

A document names its format in its ``"format"`` key, ``"rulewright-<kind>/<version>"``
(``"rulewright-verify/2"``); the schema for it is the package-data file
``rulewright-<kind>-<version>.schema.json`` next to this module. A format changes its version
whenever a key is renamed, removed or changes meaning; old schema files stay.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

_FORMAT = re.compile(r"rulewright-([a-z]+)/([0-9]+)")


def formats() -> list[str]:
    """Every format with a schema, sorted (``["rulewright-check/1", ...]``)."""
    out = []
    for entry in resources.files(__name__).iterdir():
        m = re.fullmatch(r"rulewright-([a-z]+)-([0-9]+)\.schema\.json", entry.name)
        if m:
            out.append(f"rulewright-{m[1]}/{m[2]}")
    return sorted(out)


@cache
def schema(fmt: str) -> dict[str, Any]:
    """The JSON Schema (a dict) of format ``fmt``, e.g. ``"rulewright-verify/2"``.

    Raises:
        KeyError: no schema for that format (the message lists the known ones).
    """
    m = _FORMAT.fullmatch(fmt)
    name = f"rulewright-{m[1]}-{m[2]}.schema.json" if m else ""
    file = resources.files(__name__) / name
    if not m or not file.is_file():
        raise KeyError(f"no JSON schema for format {fmt!r}; known: {', '.join(formats())}")
    loaded: dict[str, Any] = json.loads(file.read_text(encoding="utf-8"))
    return loaded


def validate(doc: Any) -> None:
    """Check a document against the schema its ``"format"`` key names.

    Raises:
        KeyError: no ``"format"`` key, or a format without a schema.
        jsonschema.ValidationError: the document does not match (``.json_path`` says where).
    """
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if not isinstance(fmt, str):
        raise KeyError("the document has no \"format\" key naming its format")
    jsonschema.validate(doc, schema(fmt), cls=jsonschema.Draft202012Validator)
