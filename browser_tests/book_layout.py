"""What overflows a page's column, measured in the browser at a phone's width and at a desktop's.

Used by ``test_book_in_browser.py``, which opens every page once and measures it at both widths:

- a display equation (MathJax's ``mjx-container[display="true"]``) whose scroll width exceeds its box: its right
  end is hidden behind a scroll. None may, at either width, except the few in ``SCROLLING_DISPLAYS`` (formulas
  that cannot break, each with the reason), which must show the scroll cue of ``bookext.css``;
- inline code wider than its column (a line box past the right edge of its block);
- at the desktop width, anything else that scrolls or sticks out of the article: a code cell, an output, a table,
  a figure, the page itself;
- more than one search control (the theme's header and sidebar each have one).

At the phone's width, in light and in dark mode (``READING`` and ``reading_findings``), what a reader of a phone
meets on every page:

- the page wider than the screen (anything past the screen's right edge that no scrolling box holds);
- a table wider than its column that neither stacks as cards nor scrolls with its cue: a scrolling box, the line
  that says it scrolls, a shadow on the side that hides columns, and its first column still in view when scrolled
  to the end (sticky);
- a figure whose alt text is its file's path, or (in a chapter) is not the first sentence of its caption (compared
  loosely: the alt text reads a formula as characters, the caption holds its TeX);
- a figure shown below half its natural width (its panels, when it is stacked) that does not open on a tap: the
  test taps each one (``TAPPABLE`` lists them) and checks the image opens at full size (``LIGHTBOX``).
"""

from __future__ import annotations

import difflib
import re

PHONE_WIDTH = 414
DESKTOP_WIDTH = 1400
# displays that cannot break (one long formula without a relation or a sum to break at), named by page and the
# start of their TeX source (whitespace collapsed); at most five, each shown with a visible scroll cue
SCROLLING_DISPLAYS: dict[tuple[str, str], str] = {}
MAX_SCROLLING_DISPLAYS = 5
# the class bookext.js gives a display that scrolls; bookext.css draws the cue for it
SCROLL_CLASS = "bk-scrolls"

MEASURE = r"""
const scrollClass = arguments[0];
// each display's TeX: from MathJax in the page, or from the data-latex attribute of a formula typeset at the build
const tex = new Map();
const jax = window.MathJax && MathJax.startup && MathJax.startup.document;
if (jax && jax.math) { for (const item of jax.math) { if (item.display) tex.set(item.typesetRoot, item.math); } }
const squash = s => (s || '').replace(/\s+/g, ' ').trim();
const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
const main = document.querySelector('main') || document.body;
const article = document.querySelector('article.bd-article') || main;
const edge = article.getBoundingClientRect();
const out = {displays: [], code: [], other: []};
// search controls a reader can see (a box or the phone's magnifier icon), wherever they sit on the page
out.search = Array.from(document.querySelectorAll('.search-button-field, .search-button'))
  .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden').length;
main.querySelectorAll('mjx-container[display="true"]').forEach(e => {
  if (!e.getClientRects().length) return;  // in a closed dropdown
  const style = getComputedStyle(e);
  const cue = e.classList.contains(scrollClass) && style.backgroundImage.includes('gradient') && scrolls(e);
  out.displays.push([squash(tex.get(e) || e.getAttribute('data-latex') || e.textContent), e.scrollWidth,
                    e.clientWidth, cue]);
});
const blockOf = e => { let b = e.parentElement;
                       while (b && getComputedStyle(b).display.startsWith('inline')) b = b.parentElement;
                       return b || main; };
main.querySelectorAll('code').forEach(c => {
  if (c.closest('pre, mjx-container, .bd-toc, .bd-sidebar-primary, .bd-sidebar-secondary')) return;
  const rects = Array.from(c.getClientRects());
  if (!rects.length) return;
  const block = blockOf(c).getBoundingClientRect();
  const past = Math.max(...rects.map(r => r.right)) - block.right;
  if (past > 1) out.code.push([squash(c.textContent).slice(0, 70), Math.round(past)]);
});
const describe = e => { const holder = e.closest('[id]');
                        return e.tagName.toLowerCase() + (e.className && typeof e.className === 'string'
                               ? '.' + e.className.trim().split(/\s+/).slice(0, 2).join('.') : '')
                               + (holder ? ' in #' + holder.id : '') + ': '
                               + squash(e.textContent).slice(0, 60); };
// the article's elements outside formulas and drawings (their subtrees skipped whole: most of a chapter's elements)
const outside = (root, tags) => {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT, {acceptNode: n =>
    tags.includes(n.localName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  const list = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) list.push(n);
  return list;
};
// whether a box between the element and the article clips it (each box's answer computed once)
const clippedMemo = new Map();
const clippedBy = parent => {
  if (!parent || parent === article) return false;
  if (!clippedMemo.has(parent)) {
    clippedMemo.set(parent, getComputedStyle(parent).overflowX !== 'visible' || clippedBy(parent.parentElement));
  }
  return clippedMemo.get(parent);
};
outside(article, ['mjx-container', 'svg']).forEach(e => {
  if (!e.getClientRects().length) return;
  if (scrolls(e) && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) {
    out.other.push(['scrolls ' + (e.scrollWidth - e.clientWidth) + ' px', describe(e)]);
    return;
  }
  const box = e.getBoundingClientRect();
  if (!clippedBy(e.parentElement) && box.width > 0 && box.right > edge.right + 1) {
    out.other.push(['sticks out ' + Math.round(box.right - edge.right) + ' px', describe(e)]);
  }
});
const page = document.documentElement;
if (page.scrollWidth > page.clientWidth + 1) {
  out.other.push(['page scrolls', (page.scrollWidth - page.clientWidth) + ' px']);
}
return out;
"""

# resolves once the layout has settled after a resize or a theme switch: two animation frames (bookext.js marks
# scrolling displays in a resize handler), then every finite CSS transition or animation then running is brought to
# its end at once (Animation.finish(): its end state, its transitionend / animationend events and its promise, as if
# it had run its course), then two frames more; again while finishing one starts others (at most 10 rounds).
# At a phone's width the theme's secondary sidebar becomes a drawer that slides out past the screen's edge in 0.2 s,
# still visible while it slides: measured in those 0.2 s, it read as a page wider than the screen. Waiting for the
# transitions instead cost 1.9 s a call: after a resize, the copy buttons' colour transitions (hidden buttons) did
# not advance and the wait ran to its 3 s limit, 6 calls a page.
SETTLED = """
const done = arguments[arguments.length - 1];
const frames = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
const finite = a => a.playState === 'running' && Number.isFinite(a.effect.getComputedTiming().endTime);
(async () => {
  await frames();
  for (let round = 0; round < 10; round++) {
    const running = document.getAnimations().filter(finite);
    if (!running.length) break;
    running.forEach(a => a.finish());
    await Promise.all(running.map(a => a.finished.catch(() => null)));
    await frames();
  }
  done(true);
})();
"""


def _listed(page: str, tex: str) -> str | None:
    for listed_page, start in SCROLLING_DISPLAYS:
        if listed_page == page and tex.startswith(start):
            return start
    return None


def findings(page: str, width: int, measured: dict) -> dict[str, list[str]]:
    """The faults in one page's measurements at one width, by category.

    Categories: ``"wide displays"`` (a display that scrolls and is not listed, or is listed and shows no cue),
    ``"wide inline code"``, ``"desktop overflow"`` (only at the desktop width), ``"search boxes"`` and
    ``"listed displays"`` (the (page, start) of the listed displays that scroll here, for the staleness check).
    """
    found: dict[str, list] = {
        "wide displays": [],
        "wide inline code": [],
        "desktop overflow": [],
        "search boxes": [],
        "listed displays": [],
    }
    for tex, scroll, box, cue in measured["displays"]:
        if scroll <= box + 1:
            continue
        listed = _listed(page, tex)
        if listed is None:
            found["wide displays"].append(f"{page} at {width} px: {scroll} px in a {box} px box: {tex[:90]!r}")
        else:
            found["listed displays"].append((page, listed))
            if not cue:
                found["wide displays"].append(
                    f"{page} at {width} px: listed display without a scroll cue: {tex[:60]!r}"
                )
    for text, past in measured["code"]:
        found["wide inline code"].append(f"{page} at {width} px: {past} px past its column: {text!r}")
    if measured.get("search", 1) != 1:
        found["search boxes"].append(f"{page} at {width} px: {measured['search']} search controls")
    if width == DESKTOP_WIDTH:
        for what, where in measured["other"]:
            found["desktop overflow"].append(f"{page}: {what}: {where}")
    return found


def stale_listings(seen: set[tuple[str, str]]) -> list[str]:
    """Listed displays that scroll nowhere any more (the list must not outlive its reasons)."""
    return [f"{page}: {start!r}" for (page, start) in SCROLLING_DISPLAYS if (page, start) not in seen]


# -- what a phone's reader meets: the page's width, wide tables, figures ---------------------------------------

# a figure shown below this fraction of its natural width must open at full size on a tap
MIN_FIGURE_SCALE = 0.5
# the alt text against the caption's start (TeX read as characters on one side, as source on the other): the
# SequenceMatcher ratio of the two, lower-cased, in the words and ASCII signs both share. A file path or another
# figure's caption scores below 0.4.
MIN_ALT_LIKENESS = 0.75

# the pages whose figures must carry their caption's first sentence as alt text (the chapters' figures are
# notebook outputs, which have no alt text of their own); elsewhere a figure may have alt text its author wrote
CAPTIONED_PAGES = ("notebooks/",)

READING = r"""
const vw = document.documentElement.clientWidth;
const main = document.querySelector('main') || document.body;
const article = document.querySelector('article.bd-article') || main;
const squash = s => (s || '').replace(/\s+/g, ' ').trim();
const scroller = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
const clips = e => getComputedStyle(e).overflowX !== 'visible';
const shown = e => e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
const describe = e => { const holder = e.closest('[id]');
                        return e.tagName.toLowerCase() + (typeof e.className === 'string' && e.className.trim()
                               ? '.' + e.className.trim().split(/\s+/).slice(0, 2).join('.') : '')
                               + (holder ? ' in #' + holder.id : '') + ': ' + squash(e.textContent).slice(0, 50); };
const out = {page: [document.documentElement.scrollWidth, vw], beyond: [], tables: [], figures: []};
// past the screen's right edge, outside any box that clips or scrolls (the outermost such element only)
// (formulas, drawings and dialogs skipped whole: a walker that rejects their subtrees, most of a chapter's elements)
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT, {acceptNode: n =>
  ['mjx-container', 'svg', 'dialog'].includes(n.localName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
for (let e = walker.nextNode(); e; e = walker.nextNode()) {
  const box = e.getBoundingClientRect();
  if (box.width <= 0 || box.right <= vw + 1 || !shown(e)) continue;
  let clipped = false;
  for (let p = e.parentElement; p && p !== document.body && !clipped; p = p.parentElement) clipped = clips(p);
  if (clipped) continue;
  const parent = e.parentElement.getBoundingClientRect();
  if (e.parentElement !== document.body && parent.right > vw + 1) continue;
  out.beyond.push([Math.round(box.right - vw), describe(e)]);
}
// the math's TeX, for the captions' text: from MathJax in the page, or from the data-latex attribute of a formula
// typeset at the build (booktools/prerender_math.py)
const tex = new Map();
const jax = window.MathJax && MathJax.startup && MathJax.startup.document;
if (jax && jax.math) { for (const item of jax.math) tex.set(item.typesetRoot, item.math); }
const textOf = n => n.nodeType === 3 ? n.data
  : (n.nodeName.toLowerCase() === 'mjx-container' ? ' ' + (tex.get(n) || n.getAttribute('data-latex') || '') + ' '
     : (n.classList && n.classList.contains('headerlink') ? '' : Array.from(n.childNodes).map(textOf).join('')));
article.querySelectorAll('table').forEach(t => {
  if (!shown(t)) return;
  // the column the table is read in: its section, output, statement or list item
  const column = t.parentElement.closest('section, div.cell_output, div.admonition, div.proof, dd, li, blockquote, '
                                         + 'article') || article;
  const style = getComputedStyle(column);
  const room = column.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const width = t.getBoundingClientRect().width;
  const row = t.querySelector('tr');
  const cards = getComputedStyle(t).display === 'block' && row && getComputedStyle(row).display === 'block';
  const entry = {what: describe(t), width: Math.round(width), room: Math.round(room), cards: !!cards,
                 scrolls: false, hint: false, shadow: false, sticky: false};
  let box = t.parentElement;
  while (box && box !== column && !scroller(box)) box = box.parentElement;
  if (box && box !== column && scroller(box) && box.scrollWidth > box.clientWidth + 1) {
    entry.scrolls = true;
    // a line that says so, beside the table: in the box that holds it (not in the table) or just before or after
    let outer = t;
    while (outer.parentElement !== column) outer = outer.parentElement;
    const says = e => !!e && shown(e) && !e.contains(t) && !t.contains(e) && /scroll|swipe/i.test(e.textContent);
    entry.hint = [...outer.querySelectorAll('*'), outer.previousElementSibling, outer.nextElementSibling].some(says);
    // a shadow: a gradient painted (at full opacity) by the scrolling box, or by a box around it or a pseudo-element
    // of one, between the table and its column
    const gradient = (e, pseudo) => { const st = getComputedStyle(e, pseudo);
                                      return st.backgroundImage.includes('gradient') && st.opacity === '1'
                                             && (!pseudo || st.content !== 'none'); };
    for (let e = box; e && e !== column && !entry.shadow; e = e.parentElement) {
      for (const e2 of [e, ...e.querySelectorAll(':scope > :not(table):not(.pst-scrollable-table-container)')]) {
        entry.shadow = entry.shadow || gradient(e2, null) || gradient(e2, '::before') || gradient(e2, '::after');
      }
    }
    const first = t.querySelector('tbody tr > :first-child');
    const before = box.scrollLeft;
    box.scrollLeft = box.scrollWidth;
    entry.sticky = !!first && Math.abs(first.getBoundingClientRect().left - box.getBoundingClientRect().left) <= 1.5
                   && box.scrollLeft > 0;
    box.scrollLeft = before;
  }
  out.tables.push(entry);
});
article.querySelectorAll('figure').forEach((f, index) => {
  const img = f.querySelector(':scope > img, :scope > a > img');
  if (!img || !img.naturalWidth) return;
  const caption = f.querySelector('figcaption .caption-text') || f.querySelector('figcaption');
  const panels = f.querySelector('.bk-panels');
  const stacked = shown(panels) && !shown(img);
  let scale = img.getBoundingClientRect().width / img.naturalWidth;
  if (stacked) {
    scale = Math.min(...Array.from(panels.querySelectorAll('img')).map(
      crop => crop.getBoundingClientRect().width / img.naturalWidth));
  }
  out.figures.push({index: index, alt: img.getAttribute('alt') || '', caption: caption ? squash(textOf(caption)) : '',
                    natural: img.naturalWidth, scale: scale, stacked: stacked,
                    src: (img.getAttribute('src') || '').split('/').pop().slice(0, 40)});
});
return out;
"""

# the figure at ``arguments[0]`` (its index among the article's figures): the element a reader taps (its panels
# when they are what shows), scrolled into view
TAPPABLE = """
const f = document.querySelectorAll('article.bd-article figure, main figure')[arguments[0]];
const panels = f.querySelector('.bk-panels');
const target = panels && panels.getClientRects().length ? panels : f.querySelector('img');
target.scrollIntoView({block: 'center'});
return target;
"""
# what shows after the tap: the open dialog's image, its drawn width against the figure's natural width
LIGHTBOX = """
const f = document.querySelectorAll('article.bd-article figure, main figure')[arguments[0]];
const natural = f.querySelector('img').naturalWidth;
const open = Array.from(document.querySelectorAll('dialog[open]'));
const img = open.length ? open[0].querySelector('img') : null;
return {open: open.length, natural: natural,
        width: img && img.complete ? img.getBoundingClientRect().width : 0,
        loaded: !!img && img.complete && img.naturalWidth > 0};
"""


def _likeness(alt: str, caption: str) -> float:
    """How closely the alt text matches the caption's start (1 = the same text)."""

    def plain(text: str) -> str:
        # the words and ASCII signs both sides share: TeX commands dropped from the caption, the characters they
        # became (Greek letters, norms, accents) from the alt text
        text = re.sub(r"\\[A-Za-z]+", " ", text.lower())
        return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9 ,.;:()'’=+<>-]", " ", text)).strip()

    alt, caption = plain(alt), plain(caption)
    return difflib.SequenceMatcher(None, alt, caption[: len(alt)], autojunk=False).ratio() if alt else 0.0


def reading_findings(page: str, width: int, theme: str, measured: dict) -> dict[str, list]:
    """The faults in one page's reading measurements (``READING``) at one width and colour mode, by category.

    Categories: ``"page wider than the screen"``, ``"wide tables"``, ``"figure alt text"``, and ``"figures to tap"``
    (not a fault: the indices of the figures shown below ``MIN_FIGURE_SCALE``, which the test taps).
    """
    where = f"{page} at {width} px ({theme})"
    found: dict[str, list] = {
        "page wider than the screen": [],
        "wide tables": [],
        "figure alt text": [],
        "figures to tap": [],
    }
    scroll_width, screen = measured["page"]
    if scroll_width > screen + 1 or measured["beyond"]:
        culprits = "; ".join(f"{what} ({past} px past)" for past, what in measured["beyond"][:3])
        found["page wider than the screen"].append(f"{where}: {scroll_width} px on a {screen} px screen: {culprits}")
    for table in measured["tables"]:
        if table["cards"] or table["width"] <= table["room"] + 1:
            continue
        missing = [name for name in ("scrolls", "hint", "shadow", "sticky") if not table[name]]
        if missing:
            found["wide tables"].append(
                f"{where}: a {table['width']} px table in {table['room']} px, without {', '.join(missing)}: "
                f"{table['what']}"
            )
    for figure in measured["figures"]:
        alt, caption = figure["alt"].strip(), figure["caption"]
        if not alt or re.fullmatch(r"\S*/\S*", alt) or re.search(r"\.(svg|png|jpe?g|gif)$", alt, re.IGNORECASE):
            found["figure alt text"].append(f"{where}: alt text {alt!r} is not words ({figure['src']})")
        elif caption and page.startswith(CAPTIONED_PAGES) and _likeness(alt, caption) < MIN_ALT_LIKENESS:
            found["figure alt text"].append(
                f"{where}: alt text {alt[:60]!r} is not the caption's first sentence {caption[:60]!r}"
            )
        if figure["scale"] < MIN_FIGURE_SCALE:
            found["figures to tap"].append(figure["index"])
    return found
