"""The chapters' cell markers, kept as cell tags so that readers do not see them.

Two kinds of code cell carry a marker:

- a cell that verifies a result has the tag ``check-<id>``: the blueprint names the check by its id and links to the
  cell (the book gives the cell the anchor ``#check-<id>``);
- the chapter's summary cell, whose printed output nbval compares, has the tag ``nbval-check-output`` (nbval's own
  tag for ``# NBVAL_CHECK_OUTPUT``, read by ``nbval.plugin.find_metadata_tags``).

Chapters used to start those cells with the comments ``# check: <id>`` and ``# NBVAL_CHECK_OUTPUT``, which the
rendered book showed. ``python -m booktools.markers notebooks/NN-slug.md ...`` rewrites a chapter from the old form
to the tags, in its MyST source and in its paired ``.ipynb`` (outputs kept: only comment lines go), and does
nothing to a chapter already converted.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

CHECK_TAG = "check-{}"
SUMMARY_TAG = "nbval-check-output"
CHECK_TAG_PATTERN = re.compile(r"^check-([a-z0-9][a-z0-9-]*)$")
OLD_CHECK = re.compile(r"^# check: ([a-z0-9][a-z0-9-]*)\s*$")
OLD_SUMMARY = re.compile(r"^#\s*NBVAL_CHECK_OUTPUT\s*$")
# the old markers anywhere in a chapter's code (a converter that missed one, or a chapter written the old way)
OLD_MARKER_ANYWHERE = re.compile(r"^(?:# check: [a-z0-9][a-z0-9-]*|#\s*NBVAL_CHECK_OUTPUT)\s*$", re.MULTILINE)

_FENCE = re.compile(r"^(`{3,})\{code-cell\}[^\n]*$")
_TAGS_OPTION = re.compile(r"^:tags:\s*(.*)$")


def check_tags(tags) -> list[str]:
    """The check ids named by a cell's tags (``check-<id>``), in their order."""
    return [match.group(1) for tag in tags if (match := CHECK_TAG_PATTERN.match(str(tag)))]


def _leading_markers(lines: list[str]) -> tuple[list[str], int]:
    """The tags the marker comments at the top of a cell's code stand for, and how many lines they take."""
    tags, count = [], 0
    for line in lines:
        if match := OLD_CHECK.match(line):
            tags.append(CHECK_TAG.format(match.group(1)))
        elif OLD_SUMMARY.match(line):
            tags.append(SUMMARY_TAG)
        else:
            break
        count += 1
    while tags and count < len(lines) and not lines[count].strip():
        count += 1  # the blank lines that separated the markers from the code go with them
    return tags, count


def _with(tags, new) -> list[str]:
    return list(tags) + [tag for tag in new if tag not in tags]


def _flow(tags) -> str:
    return "[" + ", ".join(tags) + "]"


class _Cell:
    """One ``{code-cell}`` block of a MyST chapter: its option lines and its code lines."""

    def __init__(self, fence: str, options: list[str], code: list[str]):
        self.fence, self.options, self.code = fence, options, code

    def tags(self) -> list[str]:
        if self.options and self.options[0] == "---":
            meta = yaml.safe_load("\n".join(self.options[1:-1])) or {}
            return list(meta.get("tags", []))
        for line in self.options:
            if match := _TAGS_OPTION.match(line):
                return list(yaml.safe_load(match.group(1)) or [])
        return []

    def convert(self) -> bool:
        new, count = _leading_markers(self.code)
        if not count:
            return False
        del self.code[:count]
        tags = _with(self.tags(), new)
        if self.options and self.options[0] == "---":
            body = self.options[1:-1]
            index = next((i for i, line in enumerate(body) if line.startswith("tags:")), None)
            if index is None:
                body.insert(0, f"tags: {_flow(tags)}")
            else:
                body[index] = f"tags: {_flow(tags)}"
            self.options = ["---", *body, "---"]
        else:
            index = next((i for i, line in enumerate(self.options) if _TAGS_OPTION.match(line)), None)
            if index is None:
                self.options.insert(0, f":tags: {_flow(tags)}")
            else:
                self.options[index] = f":tags: {_flow(tags)}"
            if self.options[-1] != "":  # `:key: value` options end with a blank line before the code
                self.options.append("")
        return True


def _split(text: str) -> list:
    """The chapter as a list of plain lines and :class:`_Cell` blocks (joined back by :func:`_join`)."""
    lines = text.split("\n")
    parts, i = [], 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            parts.append(lines[i])
            i += 1
            continue
        close = fence.group(1)
        end = next((j for j in range(i + 1, len(lines)) if lines[j] == close), None)
        if end is None:
            raise ValueError(f"line {i + 1}: a {{code-cell}} block that is never closed")
        body = lines[i + 1 : end]
        options: list[str] = []
        if body and body[0] == "---":
            stop = next((j for j in range(1, len(body)) if body[j] == "---"), None)
            if stop is None:
                raise ValueError(f"line {i + 2}: a cell's YAML options that are never closed")
            options, body = body[: stop + 1], body[stop + 1 :]
        else:
            while body and body[0].startswith(":") and re.match(r"^:[a-z_-]+:", body[0]):
                options.append(body.pop(0))
            if options and body and body[0] == "":
                options.append(body.pop(0))
        parts.append((lines[i], _Cell(close, options, body)))
        i = end + 1
    return parts


def _join(parts) -> str:
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        else:
            header, cell = part
            out.extend([header, *cell.options, *cell.code, cell.fence])
    return "\n".join(out)


def markdown_cells(text: str) -> list[tuple[list[str], str]]:
    """Each ``{code-cell}`` of a MyST chapter as ``(tags, code)``, in order.

    Examples
    --------
    >>> chapter = "```{code-cell} ipython3\\n:tags: [hide-input, check-sum]\\n\\nassert 1 + 1 == 2\\n```\\n"
    >>> markdown_cells(chapter)
    [(['hide-input', 'check-sum'], 'assert 1 + 1 == 2')]
    """
    return [(part[1].tags(), "\n".join(part[1].code)) for part in _split(text) if not isinstance(part, str)]


def convert_markdown(text: str) -> str:
    """A MyST chapter with its marker comments turned into cell tags (unchanged when it has none).

    Examples
    --------
    >>> old = "```{code-cell} ipython3\\n# check: sum\\nassert 1 + 1 == 2\\n```\\n"
    >>> print(convert_markdown(old))
    ```{code-cell} ipython3
    :tags: [check-sum]
    <BLANKLINE>
    assert 1 + 1 == 2
    ```
    <BLANKLINE>
    >>> convert_markdown(convert_markdown(old)) == convert_markdown(old)
    True
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str (a MyST chapter), got {type(text).__name__}")
    parts = _split(text)
    changed = [part[1].convert() for part in parts if not isinstance(part, str)]
    return _join(parts) if any(changed) else text


def convert_notebook(notebook: dict) -> bool:
    """Turn the marker comments of a notebook's code cells (nbformat JSON, edited in place) into tags.

    Returns whether anything changed. The outputs are kept: the comments did not produce any.
    """
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise TypeError("notebook must be a notebook's JSON (a dict with a list of cells)")
    changed = False
    for cell in notebook["cells"]:
        if cell.get("cell_type") != "code":
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        lines = source.split("\n")
        new, count = _leading_markers(lines)
        if not count:
            continue
        rest = "\n".join(lines[count:])
        cell["source"] = rest if isinstance(cell["source"], str) else rest.splitlines(keepends=True)
        metadata = cell.setdefault("metadata", {})
        metadata["tags"] = _with(metadata.get("tags", []), new)
        changed = True
    return changed


def convert_chapter(md_path) -> list[Path]:
    """Convert ``notebooks/NN-slug.md`` and its ``.ipynb`` (if there is one); the files rewritten."""
    md_path = Path(md_path)
    if md_path.suffix != ".md" or not md_path.is_file():
        raise ValueError(f"md_path must be a chapter's MyST source (an existing .md file), got {md_path}")
    written = []
    text = md_path.read_text(encoding="utf-8")
    converted = convert_markdown(text)
    if converted != text:
        md_path.write_text(converted, encoding="utf-8")
        written.append(md_path)
    ipynb = md_path.with_suffix(".ipynb")
    if ipynb.is_file():
        notebook = json.loads(ipynb.read_text(encoding="utf-8"))
        if convert_notebook(notebook):
            # the layout nbformat.write gives (booktools.chapters writes with it): sorted keys, indent 1
            text = json.dumps(notebook, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
            ipynb.write_text(text, encoding="utf-8")
            written.append(ipynb)
    return written


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if not args or any(arg.startswith("-") for arg in args):
        print("usage: python -m booktools.markers notebooks/NN-slug.md ...", file=sys.stderr)
        return 2
    for arg in args:
        for path in convert_chapter(arg):
            print(f"converted {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
