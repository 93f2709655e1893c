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
