// Every measure-then-change pass below reads all its boxes first and changes the page after: a change between two
// reads (a class that sets a border) makes the next read lay the whole page out again, and a chapter of 800
// formulas takes a third of a second per layout on a phone.

// Display equations that scroll (wider than their box, on a phone) get the class bk-scrolls, which bookext.css
// draws as shadows at the edges that hide more of the formula; re-measured when the window's width changes.
// The formulas are typeset at the build (booktools/prerender_math.py): they are in the page from the start, and are
// marked once the document is parsed and again once it has loaded (its fonts may change the column's width). A page
// the build left to the browser's MathJax is marked once MathJax has typeset it.
(function () {
  "use strict";
  var width = null;  // the window's width at the last marking
  function mark() {
    width = document.documentElement.clientWidth;
    var displays = Array.prototype.slice.call(document.querySelectorAll('mjx-container[display="true"]'));
    var scrolls = displays.map(function (display) {
      return display.scrollWidth > display.clientWidth + 1;
    });
    displays.forEach(function (display, index) {
      display.classList.toggle("bk-scrolls", scrolls[index]);
    });
  }
  function markTypeset() {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(mark);
    } else if (!window.MathJax) {
      mark();
    }
  }
  var pending = null;
  // a phone fires resize when its address bar shows or hides (the height only): the displays' widths stay
  window.addEventListener("resize", function () {
    if (pending !== null) {
      cancelAnimationFrame(pending);
    }
    pending = requestAnimationFrame(function () {
      pending = null;
      if (document.documentElement.clientWidth !== width) {
        mark();
      }
    });
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", markTypeset);
  } else {
    markTypeset();
  }
  window.addEventListener("load", markTypeset);
})();

// The errata table's severity filter (tools/bookext.py, directive errata-table): a button shows the rows of one
// severity, "all" shows every row. Pages without the filter are left alone.
(function () {
  "use strict";
  function setUp(bar) {
    var buttons = Array.prototype.slice.call(bar.querySelectorAll("button[data-severity]"));
    var rows = Array.prototype.slice.call(document.querySelectorAll(".errata-table tbody tr"));
    buttons.forEach(function (button) {
      button.addEventListener("click", function () {
        var wanted = button.getAttribute("data-severity");
        buttons.forEach(function (other) {
          other.setAttribute("aria-pressed", String(other === button));
        });
        rows.forEach(function (row) {
          var badge = row.querySelector(".erratum-severity");
          var severity = badge ? badge.getAttribute("data-severity") : "";
          row.hidden = wanted !== "all" && severity !== wanted;
        });
      });
    });
  }
  function init() {
    Array.prototype.forEach.call(document.querySelectorAll(".errata-filter"), setUp);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();

// Wide tables (bookext.css): each table of the article is wrapped once in div.bk-table > div.bk-table-frame >
// div.bk-table-scroll, with a line under it that says it scrolls (the frame holds the shadows, over the table).
// When the table is wider than its column the wrapper gets bk-scrolls-x (the box around the table scrolls, the first
// column is sticky, the hint line shows), and bk-more-left / bk-more-right while
// columns hide on that side (a shadow there). A table marked bk-cards (the back matter's, by bookext.py) stacks as
// cards on a phone: each cell gets its column's name as data-label, which the card shows above the cell.
(function () {
  "use strict";
  var HINT = "\u2194 Swipe sideways for more columns";
  var wrappers = [];
  function label(table) {
    var head = table.tHead && table.tHead.rows.length ? table.tHead.rows[table.tHead.rows.length - 1] : null;
    if (!head) {
      return;
    }
    var names = Array.prototype.map.call(head.cells, function (cell) {
      return cell.textContent.replace(/\s+/g, " ").trim();
    });
    Array.prototype.forEach.call(table.tBodies, function (body) {
      Array.prototype.forEach.call(body.rows, function (row) {
        Array.prototype.forEach.call(row.cells, function (cell, index) {
          if (names[index]) {
            cell.setAttribute("data-label", names[index]);
          }
        });
      });
    });
  }
  // whether the table is wider than its column (a read only)
  function wide(wrapper) {
    var scroll = wrapper.querySelector(".bk-table-scroll");
    return scroll.querySelector("table").getBoundingClientRect().width > scroll.clientWidth + 1;
  }
  // where a wide table's box scrolls to, and its sticky column's width, as bk-scrolls-x lays it out (reads only)
  function edges(wrapper) {
    var scroll = wrapper.querySelector(".bk-table-scroll");
    var first = scroll.querySelector("table tr > :first-child");
    return {
      sticky: first ? first.getBoundingClientRect().width : 0,
      left: scroll.scrollLeft > 1,
      right: scroll.scrollLeft + scroll.clientWidth < scroll.scrollWidth - 1
    };
  }
  function showEdges(wrapper, edge) {
    wrapper.style.setProperty("--bk-sticky-width", edge.sticky + "px");
    wrapper.classList.toggle("bk-more-left", edge.left);
    wrapper.classList.toggle("bk-more-right", edge.right);
  }
  // the tables given, in three passes: which are wide (reads), the class that says so (writes), then the wide ones'
  // shadows and sticky column (reads, then writes)
  function updateAll(list) {
    var wides = list.map(wide);
    list.forEach(function (wrapper, index) {
      wrapper.classList.toggle("bk-scrolls-x", wides[index]);
      if (!wides[index]) {
        wrapper.classList.remove("bk-more-left", "bk-more-right");
      }
    });
    var scrolling = list.filter(function (wrapper, index) {
      return wides[index];
    });
    var found = scrolling.map(edges);
    scrolling.forEach(function (wrapper, index) {
      showEdges(wrapper, found[index]);
    });
  }
  function wrap(table) {
    if (table.closest(".bk-table, .bk-lightbox")) {
      return;
    }
    if (table.classList.contains("bk-cards")) {
      label(table);
    }
    // the theme's scroll container (or the table itself) moves into ours
    var moved = table.parentElement.classList.contains("pst-scrollable-table-container") ? table.parentElement : table;
    var wrapper = document.createElement("div");
    wrapper.className = "bk-table";
    var frame = document.createElement("div");
    frame.className = "bk-table-frame";
    var scroll = document.createElement("div");
    scroll.className = "bk-table-scroll";
    var hint = document.createElement("p");
    hint.className = "bk-scroll-hint";
    hint.textContent = HINT;
    moved.parentElement.insertBefore(wrapper, moved);
    scroll.appendChild(moved);
    frame.appendChild(scroll);
    wrapper.appendChild(frame);
    wrapper.appendChild(hint);
    scroll.addEventListener("scroll", function () {
      updateAll([wrapper]);
    }, {passive: true});
    wrappers.push(wrapper);
  }
  function updateEvery() {
    updateAll(wrappers);
  }
  function init() {
    var article = document.querySelector("article.bd-article") || document.querySelector("main");
    if (!article) {
      return;
    }
    Array.prototype.forEach.call(article.querySelectorAll("table"), wrap);
    updateEvery();
    window.addEventListener("resize", updateEvery);
    window.addEventListener("load", updateEvery);  // after MathJax and the fonts, which change the widths
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(updateEvery);
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();

// Figures (bookext.css). An image that its column shows below its natural width opens at full size on a tap or on
// Enter, in a lightbox (a modal <dialog> that scrolls both ways, with the caption and a link to the image file).
// On a phone, a drawing of several panels side by side (matplotlib's SVG: one group "axes_N" per panel) is also
// shown as its panels one under the other: each panel is cropped out of the same image file (no second download),
// all panels at one scale, never above the image's natural size.
(function () {
  "use strict";
  var PHONE = window.matchMedia("(max-width: 576px)");
  var dialog = null;
  function caption(figure) {
    var text = figure && figure.querySelector("figcaption");
    return text ? text.textContent.replace(/#\s*$/, "").trim() : "";
  }
  function openLightbox(image) {
    if (!dialog) {
      dialog = document.createElement("dialog");
      dialog.className = "bk-lightbox";
      dialog.setAttribute("aria-label", "The figure at full size");
      dialog.innerHTML = '<div class="bk-lightbox-bar"><a class="bk-lightbox-file" target="_blank" rel="noopener">'
        + "Open the image file</a><button type=\"button\" class=\"bk-lightbox-close\" autofocus>Close \u2715</button>"
        + "</div>"
        + '<div class="bk-lightbox-body"><img alt=""><p class="bk-lightbox-caption"></p></div>';
      document.body.appendChild(dialog);
      dialog.querySelector(".bk-lightbox-close").addEventListener("click", function () {
        dialog.close();
      });
      dialog.addEventListener("click", function (event) {
        if (event.target === dialog) {
          dialog.close();
        }
      });
    }
    var source = image.currentSrc || image.src;
    var full = dialog.querySelector(".bk-lightbox-body img");
    full.src = source;
    full.alt = image.alt;
    full.style.width = image.naturalWidth + "px";
    dialog.querySelector(".bk-lightbox-file").href = source;
    dialog.querySelector(".bk-lightbox-caption").textContent = caption(image.closest("figure"));
    dialog.showModal();
    dialog.querySelector(".bk-lightbox-body").scrollTo(0, 0);
  }
  function zoomable(element, image) {
    element.setAttribute("role", "button");
    element.setAttribute("tabindex", "0");
    element.setAttribute("aria-label", "Open the figure at full size" + (image.alt ? ": " + image.alt : ""));
    element.addEventListener("click", function () {
      openLightbox(image);
    });
    element.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        openLightbox(image);
      }
    });
  }
  function shownScale(figure, image) {
    if (figure.classList.contains("bk-stacked") && PHONE.matches) {
      var panels = figure.querySelectorAll(".bk-panel");
      var scale = Infinity;
      Array.prototype.forEach.call(panels, function (panel) {
        scale = Math.min(scale, panel.getBoundingClientRect().width / Number(panel.getAttribute("data-natural")));
      });
      return scale;
    }
    return image.getBoundingClientRect().width / image.naturalWidth;
  }
  // every figure's scale read first, then every figure marked (bk-shrunk shows a hint line: a change of layout)
  function markAll(items) {
    var scales = items.map(function (item) {
      return shownScale(item.figure, item.image);
    });
    items.forEach(function (item, index) {
      var scale = scales[index];
      item.image.classList.toggle("bk-zoomable", scale < 0.98);
      // the hint shows where the labels are small (under 3/4)
      item.figure.classList.toggle("bk-shrunk", scale < 0.75);
      item.figure.setAttribute("data-bk-scale", scale.toFixed(3));
    });
  }
  // the panels' boxes, in the SVG's user units: one per axes group (a thin one, a colour bar, joins its neighbour;
  // overlapping ones, twin axes or an inset, are one), plus the figure's own legends and titles
  function panelBoxes(svg) {
    var figure = svg.querySelector("g[id^='figure_']");
    if (!figure) {
      return [];
    }
    var boxes = [];
    Array.prototype.forEach.call(figure.children, function (child) {
      if (!/^(axes|legend|text)_\d+$/.test(child.id || "")) {
        return;
      }
      var box = child.getBBox();
      if (box.width > 0 && box.height > 0) {
        boxes.push({x: box.x, y: box.y, w: box.width, h: box.height, axes: child.id.indexOf("axes_") === 0});
      }
    });
    function overlap(a, b) {
      var w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
      var h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
      return w > 0 && h > 0 ? (w * h) / Math.min(a.w * a.h, b.w * b.h) : 0;
    }
    function join(a, b) {
      var x = Math.min(a.x, b.x), y = Math.min(a.y, b.y);
      return {x: x, y: y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y,
              axes: a.axes || b.axes};
    }
    var widest = boxes.reduce(function (m, b) { return b.axes ? Math.max(m, b.w) : m; }, 0);
    var merged = true;
    while (merged) {
      merged = false;
      for (var i = 0; i < boxes.length && !merged; i++) {
        for (var j = i + 1; j < boxes.length && !merged; j++) {
          var a = boxes[i], b = boxes[j];
          var thin = (a.axes && a.w < 0.25 * widest) || (b.axes && b.w < 0.25 * widest);
          var rowMates = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 0.5 * Math.min(a.h, b.h);
          if (overlap(a, b) > 0.3 || (thin && a.axes && b.axes && rowMates
                                       && Math.abs((a.x + a.w / 2) - (b.x + b.w / 2)) < 0.75 * widest)) {
            boxes[i] = join(a, b);
            boxes.splice(j, 1);
            merged = true;
          }
        }
      }
    }
    // reading order: rows from the top, left to right in a row
    boxes.sort(function (a, b) {
      var sameRow = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 0.5 * Math.min(a.h, b.h);
      return sameRow ? a.x - b.x : a.y - b.y;
    });
    return boxes;
  }
  function sideBySide(boxes) {
    var axes = boxes.filter(function (b) { return b.axes; });
    for (var i = 0; i < axes.length; i++) {
      for (var j = i + 1; j < axes.length; j++) {
        var a = axes[i], b = axes[j];
        if (Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 0.5 * Math.min(a.h, b.h)) {
          return true;
        }
      }
    }
    return false;
  }
  // an SVG's view box and its panels' boxes, or null (not an SVG): getBBox needs a rendered element, so the drawing is
  // put in a document of its own (frameDocument, an iframe's), whose layout leaves the page's alone
  function measure(frameDocument, text) {
    var parsed = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
    if (!parsed || parsed.nodeName.toLowerCase() !== "svg") {
      return null;
    }
    var view = (parsed.getAttribute("viewBox") || "").split(/[\s,]+/).map(Number);
    if (view.length !== 4 || !(view[2] > 0)) {
      return null;
    }
    var holder = frameDocument.createElement("div");
    holder.style.cssText = "position:absolute;left:0;top:0;width:" + view[2] + "px;height:" + view[3]
      + "px;overflow:hidden;visibility:hidden";
    var svg = frameDocument.importNode(parsed, true);
    svg.removeAttribute("id");
    holder.appendChild(svg);
    frameDocument.body.appendChild(holder);
    try {
      return {view: view, boxes: panelBoxes(svg)};
    } finally {
      frameDocument.body.removeChild(holder);
    }
  }
  // the SVG texts measured in one off-screen iframe (null where a text is empty or not an SVG), then the iframe removed
  function measureAll(texts) {
    var frame = document.createElement("iframe");
    frame.setAttribute("aria-hidden", "true");
    frame.tabIndex = -1;
    frame.style.cssText = "position:absolute;left:-100000px;top:0;width:10px;height:10px;border:0";
    document.body.appendChild(frame);
    try {
      return texts.map(function (text) {
        return text ? measure(frame.contentDocument, text) : null;
      });
    } finally {
      document.body.removeChild(frame);
    }
  }
  function stack(figure, image, measured) {
    if (!measured || measured.boxes.length < 2 || !sideBySide(measured.boxes)) {
      return;
    }
    var view = measured.view;
    var boxes = measured.boxes;
    var unitsToPx = image.naturalWidth / view[2];
    var pad = 3;
    var panels = document.createElement("div");
    panels.className = "bk-panels";
    var widest = 0;
    boxes.forEach(function (box) {
      box.x = Math.max(view[0], box.x - pad);
      box.y = Math.max(view[1], box.y - pad);
      box.w = Math.min(view[0] + view[2], box.x + box.w + 2 * pad) - box.x;
      box.h = Math.min(view[1] + view[3], box.y + box.h + 2 * pad) - box.y;
      widest = Math.max(widest, box.w);
    });
    boxes.forEach(function (box) {
      var panel = document.createElement("div");
      panel.className = "bk-panel";
      // one scale for all panels: the widest fills the column, none above its natural size
      panel.style.width = (100 * box.w / widest).toFixed(3) + "%";
      panel.style.maxWidth = (box.w * unitsToPx).toFixed(1) + "px";
      panel.style.aspectRatio = box.w.toFixed(2) + " / " + box.h.toFixed(2);
      panel.setAttribute("data-natural", (box.w * unitsToPx).toFixed(1));
      var crop = document.createElement("img");
      crop.src = image.currentSrc || image.src;
      crop.alt = "";
      crop.setAttribute("aria-hidden", "true");
      crop.style.width = (100 * view[2] / box.w).toFixed(3) + "%";
      crop.style.left = (-100 * (box.x - view[0]) / box.w).toFixed(3) + "%";
      crop.style.top = (-100 * (box.y - view[1]) / box.h).toFixed(3) + "%";
      panel.appendChild(crop);
      panels.appendChild(panel);
    });
    panels.setAttribute("role", "img");
    panels.setAttribute("aria-label", image.alt);
    zoomable(panels, image);
    image.insertAdjacentElement("afterend", panels);
    figure.classList.add("bk-stacked");
    figure.setAttribute("data-bk-panels", String(boxes.length));
  }
  // the panels are cut out once, the first time the page is as narrow as a phone, after the page has loaded (a
  // desktop reader's page does no work for them): every figure's SVG fetched, all measured, then all cut out
  function stackAll(items) {
    var todo = items.filter(function (item) {
      if (item.figure.hasAttribute("data-bk-stacking")) {
        return false;
      }
      item.figure.setAttribute("data-bk-stacking", "");
      return /\.svg(\?|#|$)/.test(item.image.currentSrc || item.image.src);
    });
    if (!todo.length) {
      return Promise.resolve();
    }
    return Promise.all(todo.map(function (item) {
      return fetch(item.image.currentSrc || item.image.src).then(function (response) {
        return response.ok ? response.text() : "";
      }).catch(function () {
        return "";
      });
    })).then(function (texts) {
      var measured = measureAll(texts);
      todo.forEach(function (item, index) {
        stack(item.figure, item.image, measured[index]);
      });
    }).catch(function () {});
  }
  // data-bk-ready says the figures are laid out for the current width
  function layOutAll(items) {
    items.forEach(function (item) {
      item.figure.setAttribute("data-bk-ready", "false");
    });
    var ready = PHONE.matches ? stackAll(items) : Promise.resolve();
    ready.then(function () {
      markAll(items);
      items.forEach(function (item) {
        item.figure.setAttribute("data-bk-ready", "true");
      });
    });
  }
  function setUp(item) {
    zoomable(item.image, item.image);
    var hint = document.createElement("span");
    hint.className = "bk-zoom-hint";
    hint.textContent = "Tap the figure to open it at full size.";
    item.figure.insertBefore(hint, item.figure.querySelector("figcaption"));
  }
  // the figures whose image loads, once every image has loaded or failed (an image that fails is left alone)
  function init() {
    var article = document.querySelector("article.bd-article") || document.querySelector("main");
    if (!article) {
      return;
    }
    var items = [];
    var loads = [];
    Array.prototype.forEach.call(article.querySelectorAll("figure"), function (figure) {
      var image = figure.querySelector(":scope > img, :scope > a > img");
      if (!image || image.closest(".bk-table")) {
        return;
      }
      items.push({figure: figure, image: image});
      if (!image.complete) {
        loads.push(new Promise(function (resolve) {
          image.addEventListener("load", resolve, {once: true});
          image.addEventListener("error", resolve, {once: true});
        }));
      }
    });
    Promise.all(loads).then(function () {
      var loaded = items.filter(function (item) {
        return item.image.naturalWidth > 0;
      });
      loaded.forEach(setUp);
      layOutAll(loaded);
      PHONE.addEventListener("change", function () {
        layOutAll(loaded);
      });
      window.addEventListener("resize", function () {
        markAll(loaded);
      });
    });
  }
  if (document.readyState === "complete") {
    init();
  } else {
    window.addEventListener("load", init);
  }
})();
