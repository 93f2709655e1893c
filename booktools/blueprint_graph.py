"""The blueprint's dependency graph as Graphviz ``dot`` source: a map of the book's results.

Only the edges a reader needs are drawn: the transitive reduction of "uses" (an edge a -> c is dropped when
a -> b -> ... -> c already connects them), so the picture shows the direct steps of each argument. Each node
is one ``{prf:...}`` result, labelled with its book number ("Prop 19.2"), shaped by its kind, filled by how it
is verified, and linked to its statement. The graph is drawn on its own white card, so it reads the same in
light and dark mode.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from booktools import blueprint

#: fill colours (light, so that dark text stays legible) and the matching border, by verification status
STATUS_STYLE = {
    "symbolic": ("#c7ecd2", "#1a7f37"),
    "exact": ("#e6f6c4", "#4d7c0f"),
    "lime": ("#cfe3ff", "#0969da"),
    "approximate": ("#fff0c2", "#9a6700"),
    "cited": ("#ead9ff", "#8250df"),
    "unverified": ("#ffd8d3", "#cf222e"),
}
DEFINITION_STYLE = ("#eaeef2", "#57606a")
#: Graphviz shape and short name by kind of statement
KIND_SHAPE = {
    "definition": ("note", "Def"),
    "theorem": ("doubleoctagon", "Thm"),
    "proposition": ("box", "Prop"),
    "lemma": ("ellipse", "Lem"),
    "corollary": ("hexagon", "Cor"),
    "remark": ("parallelogram", "Rem"),
    "conjecture": ("diamond", "Conj"),
}


def transitive_reduction(edges: dict[str, Iterable[str]]) -> dict[str, set[str]]:
    """The smallest subgraph with the same reachability as ``edges`` (a DAG: node -> the nodes it uses).

    Parameters
    ----------
    edges : dict of str to iterable of str
        For each node, the nodes it points to. Must be acyclic.

    Returns
    -------
    dict of str to set of str
        The same nodes, keeping an edge ``a -> c`` only if no other path leads from ``a`` to ``c``.

    Examples
    --------
    >>> sorted(transitive_reduction({"a": ["b", "c"], "b": ["c"], "c": []})["a"])
    ['b']
    """
    if not isinstance(edges, dict):
        raise TypeError(f"edges must be a dict of node -> iterable of nodes, got {type(edges).__name__}")
    graph = {node: set(targets) for node, targets in edges.items()}
    for targets in list(graph.values()):
        for target in targets:
            graph.setdefault(target, set())
    if blueprint.find_cycle({node: tuple(sorted(targets)) for node, targets in graph.items()}):
        raise ValueError("edges must be acyclic; the transitive reduction of a cyclic graph is not unique")
    reach: dict[str, set[str]] = {}

    def reachable(node: str) -> set[str]:
        if node not in reach:
            found: set[str] = set()
            for target in graph[node]:
                found |= {target} | reachable(target)
            reach[node] = found
        return reach[node]

    reduced = {}
    for node, targets in graph.items():
        indirect = set().union(*(reachable(target) for target in targets)) if targets else set()
        reduced[node] = {target for target in targets if target not in indirect}
    return reduced


#: the drawing's largest width, in inches (Graphviz scales a wider one down to it): the 784 px column at 1400 px
WIDTH_INCHES = 8.1


def drawn_scale(source: str, dot: str = "dot") -> float:
    """The factor by which Graphviz shrinks the drawing of ``source`` to fit ``WIDTH_INCHES`` (1 if it fits).

    Parameters
    ----------
    source : str
        A ``digraph`` from :func:`dot_source`.
    dot : str
        The Graphviz ``dot`` program.

    Returns
    -------
    float
        In (0, 1]; labels are drawn at this fraction of their font size.

    Examples
    --------
    >>> drawn_scale('digraph g { graph [size="8.1,40"]; a -> b; }')  # doctest: +SKIP
    1.0
    """
    import subprocess

    if not isinstance(source, str):
        raise TypeError(f"source must be a str of dot, got {type(source).__name__}")
    natural = source.replace(f'size="{WIDTH_INCHES},40", ', "")
    drawn = subprocess.run([dot, "-Tplain"], input=natural, capture_output=True, text=True, check=True)
    width = float(drawn.stdout.split(None, 4)[2])
    return min(1.0, WIDTH_INCHES / width)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def dot_source(
    results: list[blueprint.Result],
    number: Callable[[blueprint.Result], str],
    url: Callable[[blueprint.Result], str],
    chapter_title: Callable[[str], str],
    only: set[str] | None = None,
    rankdir: str = "TB",
    stack_chapters: bool = False,
) -> str:
    """Graphviz source of the dependency graph.

    Parameters
    ----------
    results : list of blueprint.Result
        The registry's entries (``blueprint.load_results``).
    number : callable
        Result -> its book number as shown ("19.2"), or "" when the statement is not numbered.
    url : callable
        Result -> the link to its statement, relative to the page that shows the graph.
    chapter_title : callable
        Chapter docname -> the label of its cluster ("19. Linear models at large bandwidth").
    only : set of str, optional
        Draw only these results (e.g. one part of the book), with the results outside it that they use
        directly shown as grey boxes; the reduction is still that of the whole graph.
    rankdir : {"TB", "LR"}
        Graphviz's direction: results that use others below them ("TB") or to their right ("LR").
    stack_chapters : bool
        Place each chapter's box after the previous chapter's (invisible edges), instead of side by side where
        Graphviz finds room: a part of several chapters then grows in height, not in width.

    Returns
    -------
    str
        A ``digraph``; arrows point from a result to the results that use it.

    Examples
    --------
    >>> r = blueprint.Result("a", "lemma", "new in this book", "notebooks/01-x", verified=("exact",))
    >>> "Lem 1.1" in dot_source([r], lambda r: "1.1", lambda r: "x.html#a", lambda c: "1. X")
    True
    """
    if not isinstance(results, list) or not all(isinstance(r, blueprint.Result) for r in results):
        raise TypeError("results must be a list of blueprint.Result")
    if rankdir not in ("TB", "LR"):
        raise ValueError(f"rankdir must be 'TB' or 'LR', got {rankdir!r}")
    if not isinstance(stack_chapters, bool):
        raise TypeError(f"stack_chapters must be True or False, got {stack_chapters!r}")
    known = {r.label for r in results}
    reduced = transitive_reduction({r.label: [u for u in r.uses if u in known] for r in results})
    lines = [
        "digraph blueprint {",
        f'  graph [rankdir={rankdir}, bgcolor="white", pad=0.2, size="{WIDTH_INCHES},40", nodesep=0.12, ranksep=0.32,'
        ' newrank=true, fontname="sans-serif", fontsize=13, fontcolor="#1f2328",'
        ' tooltip="Dependency graph of the results"];',
        '  node [fontname="sans-serif", fontsize=15, fontcolor="#1f2328", style="filled", penwidth=1.6,'
        ' margin="0.06,0.03", height=0.3, target="_top"];',
        '  edge [color="#6e7781", arrowsize=0.6, penwidth=0.9];',
    ]
    shown = [r for r in results if only is None or r.label in only]
    inside = {r.label for r in shown}
    outside = sorted({u for r in shown for u in reduced[r.label]} - inside)
    by_label = {r.label: r for r in results}
    chapters: dict[str, list[blueprint.Result]] = {}
    for result in shown:
        chapters.setdefault(result.chapter, []).append(result)
    for index, (chapter, members) in enumerate(chapters.items()):
        lines.append(f"  subgraph cluster_{index} {{")
        lines.append(
            f'    label={_quote(chapter_title(chapter))}; labeljust="l"; style="rounded"; color="#d0d7de";'
            ' fontcolor="#57606a";'
        )
        for result in members:
            shape, short = KIND_SHAPE.get(result.kind, ("box", result.kind.title()))
            fill, border = DEFINITION_STYLE if result.kind == "definition" else STATUS_STYLE[result.status]
            printed = number(result)
            label = f"{short} {printed}" if printed else f"{short} ({result.label})"
            style = "filled,dashed" if result.is_new else "filled"
            if shape == "box":
                style += ",rounded"
            name = result.paper if not result.is_new else "new in this book"
            tooltip = f"{label}: {name}. {result.kind}, {result.status}"
            lines.append(
                f"    {_quote(result.label)} [label={_quote(label)}, shape={shape}, fillcolor={_quote(fill)},"
                f" color={_quote(border)}, style={_quote(style)}, URL={_quote(url(result))},"
                f" tooltip={_quote(tooltip)}];"
            )
        lines.append("  }")
    for label in outside:
        result = by_label[label]
        _, short = KIND_SHAPE.get(result.kind, ("box", result.kind.title()))
        shown_number = number(result)
        text = f"{short} {shown_number}" if shown_number else f"{short} ({label})"
        lines.append(
            f'  {_quote(label)} [label={_quote(text)}, shape=box, style="filled,rounded", fillcolor="#f6f8fa",'
            f' color="#afb8c1", fontcolor="#57606a", URL={_quote(url(result))},'
            f" tooltip={_quote(text + ': in another part of the book')}];"
        )
    for result in shown:
        for used in sorted(reduced[result.label]):
            lines.append(f"  {_quote(used)} -> {_quote(result.label)};")
    if stack_chapters:
        # every result of a chapter before the first results of the next chapter (those using none of its own)
        order = list(chapters)
        for before, after in zip(order, order[1:], strict=False):
            members = {r.label for r in chapters[after]}
            firsts = [r.label for r in chapters[after] if not any(u in members for u in r.uses)]
            for result in chapters[before]:
                for first in firsts:
                    lines.append(f"  {_quote(result.label)} -> {_quote(first)} [style=invis, weight=0];")
    lines.append("}")
    return "\n".join(lines) + "\n"
