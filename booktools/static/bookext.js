// Display equations that scroll (wider than their box, on a phone) get the class bk-scrolls, which bookext.css
// draws as shadows at the edges that hide more of the formula; re-measured when the window's width changes.
(function () {
  "use strict";
  function mark() {
    Array.prototype.forEach.call(document.querySelectorAll('mjx-container[display="true"]'), function (display) {
      display.classList.toggle("bk-scrolls", display.scrollWidth > display.clientWidth + 1);
    });
  }
  var pending = null;
  window.addEventListener("resize", function () {
    if (pending !== null) {
      cancelAnimationFrame(pending);
    }
    pending = requestAnimationFrame(function () {
      pending = null;
      mark();
    });
  });
  window.addEventListener("load", function () {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(mark);
    }
  });
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
