/* The site's frame: the theme switch (system, light, dark; kept in localStorage and
   applied before the first paint by the script in base.html's head), menus that
   close on a click elsewhere or Escape, the "your move" count in the tab title
   following the badge when the match page's poll or the push channel updates it,
   the push channel itself (below), and the battle length presets on the new match
   form. Everything works without it. */
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

  /* The push channel (docs/push.md): one EventSource to /push/ per page, naming the
     match the page shows (#match with a running poll), or watch=1 on the watch
     page (#watch-list). A `turn` event goes to page.js as "h3:push-turn" (it asks
     the poll at once; while the channel is open the poll's own timer asks nothing);
     a `moves` event sets the badge and the tab title; a `watch` event asks the watch
     page's list again. A channel that cannot open, or drops, leaves the page to its
     poll and opens again with what it was last told (Last-Event-ID, or `last`). */
  var push = window.h3Push = {up: false, last: null, turnAt: 0};
  function badgeCount() {
    var badge = document.getElementById("move-badge");
    return badge ? String(parseInt(badge.dataset.count, 10) || 0) : "-";
  }
  function setBadge(n) {
    var badge = document.getElementById("move-badge");
    if (!badge || +badge.dataset.count === n) return;
    badge.dataset.count = String(n);
    badge.hidden = !n;
    var shown = badge.children[0], said = badge.children[1];
    if (shown) shown.textContent = String(n);
    if (said) said.textContent = " " + n + " match" + (n === 1 ? "" : "es") + " waiting for your orders";
    titleFollowsBadge();
  }
  push.setBadge = setBadge;
  push.badgeCount = function () { var n = badgeCount(); return n === "-" ? null : +n; };
  function pushOpen(delay) {
    if (!window.EventSource) return;
    var match = document.getElementById("match"), poll = document.getElementById("poll");
    var url = poll && poll.getAttribute("hx-get"), params = [];
    var watching = document.getElementById("watch-list");
    if (watching) {
      params.push("watch=1");
      if (push.last === null) push.last = "-|" + badgeCount() + "|" + (watching.dataset.watch || "-");
    } else if (match && match.dataset.match && url) {
      params.push("match=" + encodeURIComponent(match.dataset.match));
      var v = /[?&]v=([^&]*)/.exec(url);
      if (push.last === null && v) push.last = decodeURIComponent(v[1]).split(".").slice(0, 3).join(".") + "|" + badgeCount();
    } else if (document.getElementById("move-badge")) {
      if (push.last === null) push.last = "-|" + badgeCount();
    } else return;  // nothing to hear
    params.push("last=" + encodeURIComponent(push.last));
    var source = new EventSource("/push/?" + params.join("&"));
    push.source = source;
    var down = function () {
      if (push.up) { push.up = false; document.dispatchEvent(new CustomEvent("h3:push-down")); }
    };
    source.onopen = function () {
      delay = 1000;
      push.up = true;
      document.dispatchEvent(new CustomEvent("h3:push-up"));
    };
    source.onerror = function () {
      down();
      // Refused or unreachable: the browser gives up; open again later, saying what
      // was last told (a dropped one reconnects by itself, with Last-Event-ID).
      if (source.readyState === 2) setTimeout(function () { pushOpen(Math.min(delay * 2, 60000)); }, delay);
    };
    var told = function (e) { if (e.lastEventId) push.last = e.lastEventId; };
    source.addEventListener("turn", function (e) {
      var data = JSON.parse(e.data);
      push.turnAt = Date.now();
      told(e);
      document.dispatchEvent(new CustomEvent("h3:push-turn", {detail: data}));
    });
    source.addEventListener("moves", function (e) {
      var data = JSON.parse(e.data);
      told(e);
      // The count a turn of the page's own match changed comes with that turn's
      // poll, which holds it until the board has shown the turn (page.js).
      if (Date.now() - push.turnAt > 100 || !document.getElementById("poll")) setBadge(+data.count);
    });
    source.addEventListener("watch", function (e) {
      var data = JSON.parse(e.data);
      told(e);
      document.dispatchEvent(new CustomEvent("h3:push-watch", {detail: data}));
      watchAsk(data.version);
    });
  }
  // While the channel is open the poll's timer asks nothing: its request is called
  // off before it leaves. What the page asks itself (htmx.ajax: after orders are
  // sent, a turn pushed, catching up) still goes.
  document.addEventListener("htmx:confirm", function (e) {
    var d = e.detail || {};
    if (push.up && d.elt && d.elt.id === "poll" && !(d.etc && d.etc.returnPromise)) e.preventDefault();
  });
  /* A pushed turn: ask the poll (the viewer's own view) until the page's poll says
     the version pushed or a later turn (an answer already on its way may predate it,
     and an ask made while it is on its way is dropped: the asks go on for up to 20 s,
     not a count of asks that a slow answer would use up). */
  var wanted = null, since = 0;
  function versionOf(url) {
    var v = /[?&]v=([^&]*)/.exec(url || "");
    return v ? decodeURIComponent(v[1]).split(".").slice(0, 3).join(".") : null;
  }
  function reached(version) {
    if (version === null || wanted === null) return false;
    return version === wanted || +version.split(".")[1] > +wanted.split(".")[1];
  }
  function askPoll() {
    var poll = document.getElementById("poll"), url = poll && poll.getAttribute("hx-get");
    if (!url || !window.htmx || wanted === null || reached(versionOf(url)) || Date.now() - since > 20000) { wanted = null; return; }
    var again = function () { setTimeout(askPoll, 200); };
    var asked = window.htmx.ajax("GET", url, {target: "#poll", swap: "outerHTML"});
    if (asked && asked.then) asked.then(again, again); else again();
  }
  document.addEventListener("h3:push-turn", function (e) {
    var fresh = wanted === null;
    wanted = e.detail.version; since = Date.now();
    if (fresh) askPoll();
  });
  /* The watch page's list (#watch-list, its version in data-watch): asked again when
     a `watch` event says another version, until it shows that one (at most 10 asks);
     while the channel is down, every 3 s (a 204 while it is the same). */
  var watchWanted = null, watchTries = 0, watchBusy = false;
  function watchAsk(version) {
    var fresh = watchWanted === null && !watchBusy;
    watchWanted = version; watchTries = 0;
    if (fresh) watchFetch();
  }
  function watchFetch() {
    var list = document.getElementById("watch-list");
    if (!list || !window.fetch) return;
    if (watchWanted !== null && (list.dataset.watch === watchWanted || watchTries++ >= 10)) { watchWanted = null; return; }
    watchBusy = true;
    var done = function () {
      watchBusy = false;
      if (watchWanted !== null) setTimeout(watchFetch, 200);  // shows the version told, or asks again
    };
    fetch(list.dataset.list + "&v=" + encodeURIComponent(list.dataset.watch || ""), {credentials: "same-origin", headers: {"Accept": "text/html"}})
      .then(function (r) { return r.status === 200 ? r.text() : null; })
      .then(function (html) {
        var now = document.getElementById("watch-list");
        if (html && now) {
          var made = document.createElement("template");
          made.innerHTML = html.trim();
          var next = made.content.getElementById("watch-list");
          // A keyboard's place in the list is kept: the same match's link again.
          var focused = document.activeElement;
          var href = focused && focused !== now && now.contains(focused) && focused.getAttribute("href");
          if (next) {
            now.replaceWith(next);
            var again = href && next.querySelector('a[href="' + href + '"]');
            if (again) again.focus();
          }
        }
        done();
      }, done);
  }
  if (document.getElementById("watch-list")) {
    var watchPoll = function () { if (!push.up && !document.hidden && !watchBusy && watchWanted === null) watchFetch(); };
    setInterval(watchPoll, 3000);
    document.addEventListener("h3:push-down", watchPoll);  // a cut channel: ask at once, then every 3 s
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { pushOpen(1000); });
  else pushOpen(1000);

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
