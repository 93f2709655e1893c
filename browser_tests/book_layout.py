"""What overflows a page's column, measured in the browser at a phone's width and at a desktop's.

Used by ``test_book_in_browser.py``, which opens every page once and measures it at both widths:

- a display equation (MathJax's ``mjx-container[display="true"]``) whose scroll width exceeds its box: its right
  end is hidden behind a scroll. None may, at either width, except the few in ``SCROLLING_DISPLAYS`` (formulas
  that cannot break, each with the reason), which must show the scroll cue of ``bookext.css``;
- inline code wider than its column (a line box past the right edge of its block);
- at the desktop width, anything else that scrolls or sticks out of the article: a code cell, an output, a table,
  a figure, the page itself;
- more than one search control (the theme's header and sidebar each have one).

Each finding names the page and what overflows (a display by its TeX source), so a failure says what to fix.
"""

from __future__ import annotations

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
  out.displays.push([squash(tex.get(e) || e.textContent), e.scrollWidth, e.clientWidth, cue]);
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
article.querySelectorAll('*').forEach(e => {
  if (e.closest('mjx-container, svg') || !e.getClientRects().length) return;
  if (scrolls(e) && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) {
    out.other.push(['scrolls ' + (e.scrollWidth - e.clientWidth) + ' px', describe(e)]);
    return;
  }
  const box = e.getBoundingClientRect();
  let parent = e.parentElement, clipped = false;
  while (parent && parent !== article) {
    if (getComputedStyle(parent).overflowX !== 'visible') { clipped = true; break; }
    parent = parent.parentElement;
  }
  if (!clipped && box.width > 0 && box.right > edge.right + 1) {
    out.other.push(['sticks out ' + Math.round(box.right - edge.right) + ' px', describe(e)]);
  }
});
const page = document.documentElement;
if (page.scrollWidth > page.clientWidth + 1) {
  out.other.push(['page scrolls', (page.scrollWidth - page.clientWidth) + ' px']);
}
return out;
"""

# resolves once the layout has settled after a resize (two animation frames: bookext.js marks scrolling displays
# in a resize handler)
SETTLED = """
const done = arguments[arguments.length - 1];
requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
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
