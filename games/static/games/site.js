/* The site's frame: the theme switch (system, light, dark; kept in localStorage and
   applied before the first paint by the script in base.html's head), menus that
   close on a click elsewhere or Escape, the "your move" count in the tab title
   following the badge when the match page's poll updates it, and the battle
   length presets on the new match form. Everything works without it. */
(function () {
  "use strict";
  var root = document.documentElement, KEY = "h3-theme";

  var select = document.getElementById("theme-switch");
  if (select) {
    var saved = null;
    try { saved = localStorage.getItem(KEY); } catch (e) { /* storage off: system */ }
    select.value = saved === "light" || saved === "dark" ? saved : "system";
    select.closest("[hidden]") && (select.closest("[hidden]").hidden = false);
    select.addEventListener("change", function () {
      var theme = select.value;
      try {
        if (theme === "system") localStorage.removeItem(KEY); else localStorage.setItem(KEY, theme);
      } catch (e) { /* this page only */ }
      if (theme === "system") delete root.dataset.theme; else root.dataset.theme = theme;
    });
  }

  function closeMenus(except) {
    document.querySelectorAll("details.menu[open]").forEach(function (d) {
      if (d !== except) d.open = false;
    });
  }
  document.addEventListener("click", function (e) {
    closeMenus(e.target.closest && e.target.closest("details.menu"));
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "Escape") return;
    var open = document.querySelector("details.menu[open]");
    if (open) { open.open = false; open.querySelector("summary").focus(); }
  });

  function titleFollowsBadge() {
    var badge = document.getElementById("move-badge");
    if (!badge) return;
    var n = parseInt(badge.dataset.count, 10) || 0;
    var bare = document.title.replace(/^\(\d+\) /, "");
    document.title = n > 0 ? "(" + n + ") " + bare : bare;
  }
  document.addEventListener("htmx:oobAfterSwap", titleFollowsBadge);

  // The new match form: seats past the chosen number are not used, so neither shown
  // nor sent (a bot left in a hidden seat would be refused beside a field not seen).
  var seatCount = document.getElementById("id_seat_count");
  if (seatCount) {
    var showSeats = function (first) {
      document.querySelectorAll(".form-field[data-seat]").forEach(function (row) {
        // A refused seat stays in sight beside its error until the count changes.
        if (first === true && row.classList.contains("invalid")) return;
        var unused = +row.dataset.seat > +seatCount.value;
        row.hidden = unused;
        row.querySelectorAll("select").forEach(function (s) { s.disabled = unused; });
      });
    };
    seatCount.addEventListener("change", showSeats);
    showSeats(true);
  }

  document.querySelectorAll("button[data-fill]").forEach(function (button) {
    var input = document.getElementById(button.dataset.fill);
    if (!input) return;
    button.closest(".presets").classList.add("ready");
    button.addEventListener("click", function () {
      input.value = button.dataset.value;
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    function mark() { button.setAttribute("aria-pressed", String(+input.value === +button.dataset.value)); }
    input.addEventListener("input", mark);
    mark();
  });
})();
