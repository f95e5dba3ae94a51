"""The flow of play as a Graphviz diagram, drawn from the compiled machine.

One box per rule, listing its decision and chance nodes (and gaps and game ends) in code order;
an arrow for each ``do rule(...)`` call. Built from :meth:`Machine.graph`, so the picture is
what the engine runs, not a drawing made by hand.
"""

from __future__ import annotations

import html
from typing import Any, Callable

#: How each node kind is shown: marker, colour (readable on white, distinct for colour-blind
#: readers by marker as well as hue).
STYLE = {"choice": ("decision", "#1f4e9c"), "chance": ("chance", "#2b7a3d"),
         "gap": ("GAP", "#b00020"), "end": ("game ends", "#555555")}


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _short(text: str, width: int = 48) -> str:
    return text if len(text) <= width else text[:width - 1] + "\u2026"


#: Above this many rules the flow is drawn as an outline plus one diagram per phase.
PHASE_LIMIT = 14


def phases(graph: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The flow in readable pieces: ``[("", graph)]`` when it has at most
    :data:`PHASE_LIMIT` rules; else an outline (the start rule, the rules it calls without
    their calls, and any rule nothing calls) titled ``""``, then one diagram per rule the
    start calls that calls others: that rule and every rule it reaches, titled with its name.

    Args:
        graph: :meth:`rulewright.dsl.machine.machine.Machine.graph` output (see :func:`flow_dot`).
    """
    rules = graph["rules"]
    if len(rules) <= PHASE_LIMIT:
        return [("", graph)]
    by_name = {r["name"]: r for r in rules}
    start = by_name[graph["start"]]
    callees = [c for c in start["calls"] if c in by_name and c != start["name"]]
    called = {c for r in rules for c in r["calls"]}
    loose = [r for r in rules if r["name"] not in called and r is not start]
    outline = [start, *({**by_name[c], "calls": []} for c in callees), *loose]
    out: list[tuple[str, dict[str, Any]]] = [("", {"start": start["name"], "rules": outline})]
    for root in callees:
        reach, todo = [root], [root]
        while todo:
            for c in by_name[todo.pop(0)]["calls"]:
                if c in by_name and c not in reach and c != start["name"]:
                    reach.append(c)
                    todo.append(c)
        if len(reach) > 1:
            out.append((root, {"start": root, "rules": [by_name[n] for n in reach]}))
    return out


def _dot_quote(text: str) -> str:
    """A DOT double-quoted string (only ``"`` and ``\\`` are special inside one)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def flow_dot(graph: dict[str, Any], title: str,
             links: Callable[[str], str | None] = lambda _rule: None) -> str:
    """Graphviz source for a machine graph.

    Args:
        graph: :meth:`rulewright.dsl.machine.machine.Machine.graph` output: ``{"rules": [{"name",
            "calls", "nodes": [{"kind", "what", "line"}]}], "start": name}``.
        title: the graph's tooltip/label.
        links: rule name -> the URL of its section (``page.html#id``), or None for no link;
            a linked box opens its rule in the top window when clicked.

    Returns:
        A ``digraph`` using HTML-like labels (escaped), left to right (call trees are wide
        and shallow; left to right keeps the text at a readable size).
    """
    lines = ["digraph flow {",
             f'  graph [rankdir=LR, fontname="Helvetica", fontsize=11, '
             f'tooltip="{_esc(title)}", nodesep=0.3, ranksep=0.45];',
             '  node [shape=plain, fontname="Helvetica", fontsize=10];',
             '  edge [color="#444444", arrowsize=0.7];',
             '  __start [shape=circle, style=filled, fillcolor="#222222", label="", width=0.18];']
    for rule in graph["rules"]:
        rows = [f'<tr><td align="left" bgcolor="#eeeeee"><b>{_esc(rule["name"])}</b></td></tr>']
        seen: set[tuple[str, str]] = set()
        for node in rule["nodes"]:
            key = (node["kind"], node["what"])
            if key in seen:   # a loop body compiles once per site; show each site once
                continue
            seen.add(key)
            marker, colour = STYLE.get(node["kind"], (node["kind"], "#000000"))
            what = f': {_short(node["what"])}' if node["what"] and \
                node["what"] not in (node["kind"], "end") else ""
            rows.append(f'<tr><td align="left"><font color="{colour}">{_esc(marker)}'
                        f'{_esc(what)}</font> <font color="#888888">l.{node["line"]}</font>'
                        f'</td></tr>')
        label = ('<<table border="1" cellborder="0" cellspacing="0" cellpadding="3" '
                 f'color="#888888">{"".join(rows)}</table>>')
        url = links(rule["name"])
        link = f", URL={_dot_quote(url)}, target=\"_top\", tooltip=" \
            f"{_dot_quote('rule ' + rule['name'])}" if url else ""
        lines.append(f'  "{_esc(rule["name"])}" [label={label}{link}];')
    lines.append(f'  __start -> "{_esc(graph["start"])}";')
    drawn = {rule["name"] for rule in graph["rules"]}
    for rule in graph["rules"]:
        for callee in rule["calls"]:
            if callee in drawn:    # a phase diagram leaves out the rules of other phases
                lines.append(f'  "{_esc(rule["name"])}" -> "{_esc(callee)}";')
    lines.append("}")
    return "\n".join(lines) + "\n"
