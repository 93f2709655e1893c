"""The chapter loop: MyST sources (notebooks/*.md) and their executed .ipynb twins.

``regenerate`` executes a chapter from its .md and writes the .ipynb deterministically
(cell ids from positions, no timing metadata, no stale outputs: every output comes from
this execution).  ``input_drift`` lists where a .md and its .ipynb disagree in their inputs.

Command line: ``python -m limetheory.chapters notebooks/01-tfidf.md [...]`` regenerates,
``python -m limetheory.chapters --check notebooks/*.md`` reports drift.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# "<pandas.io.formats.style.Styler at 0x7f...>": the address changes from run to run
_MEMORY_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")

KERNEL = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def _markdown_path(path) -> Path:
    path = Path(path)
    if path.suffix != ".md":
        raise ValueError(f"expected a chapter source ending in .md, got {path}")
    if not path.is_file():
        raise ValueError(f"no chapter source at {path}")
    return path


def read_source(md_path):
    """The chapter's MyST source as an (unexecuted) nbformat notebook."""
    import jupytext

    return jupytext.read(_markdown_path(md_path), fmt="md:myst")


def _inputs(notebook):
    return [(cell.cell_type, cell.source.strip()) for cell in notebook.cells]


def input_drift(md_path, ipynb_path=None):
    """Differences in inputs between a chapter's .md and its .ipynb, as readable strings.

    An empty list means the .ipynb was generated from this exact source.
    """
    import nbformat

    md_path = _markdown_path(md_path)
    ipynb_path = Path(ipynb_path) if ipynb_path else md_path.with_suffix(".ipynb")
    if not ipynb_path.is_file():
        return [f"{ipynb_path} is missing: run `make outputs`"]
    source = _inputs(read_source(md_path))
    executed = _inputs(nbformat.read(ipynb_path, as_version=4))
    problems = []
    if len(source) != len(executed):
        problems.append(f"{md_path.name}: {len(source)} cells in the .md, {len(executed)} in the .ipynb")
    for index, (left, right) in enumerate(zip(source, executed, strict=False)):
        if left != right:
            problems.append(f"{md_path.name}: cell {index} differs ({left[0]}: {left[1][:60]!r})")
    return problems


def normalise(notebook):
    """Strip what changes from run to run: timing metadata, kernel versions, object addresses in reprs.

    Cell ids are set from the cells' positions.
    """
    notebook.metadata = {"kernelspec": dict(KERNEL), "language_info": {"name": "python"}}
    for index, cell in enumerate(notebook.cells):
        cell.id = f"cell-{index:03d}"
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            for output in cell.outputs:
                output.get("metadata", {}).pop("execution", None)
                plain = output.get("data", {}).get("text/plain")
                if isinstance(plain, str):
                    output["data"]["text/plain"] = _MEMORY_ADDRESS.sub(">", plain)
    return notebook


def regenerate(md_path, *, timeout=1800):
    """Execute the chapter ``md_path`` from scratch and write its .ipynb beside it; return that path."""
    import nbformat
    from nbclient import NotebookClient

    md_path = _markdown_path(md_path)
    notebook = read_source(md_path)
    notebook.metadata["kernelspec"] = dict(KERNEL)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    client = NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name=KERNEL["name"],
        resources={"metadata": {"path": str(md_path.parent.resolve())}},
    )
    client.execute()
    target = md_path.with_suffix(".ipynb")
    nbformat.write(normalise(notebook), target)
    return target


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in argv
    paths = [arg for arg in argv if arg != "--check"]
    if not paths:
        print("usage: python -m limetheory.chapters [--check] notebooks/NN-slug.md ...", file=sys.stderr)
        return 2
    if check:
        problems = [problem for path in paths for problem in input_drift(path)]
        print("\n".join(problems) or "no drift")
        return 1 if problems else 0
    for path in paths:
        print(f"executing {path} ...", flush=True)
        print(f"wrote {regenerate(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
