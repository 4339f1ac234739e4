/* The challenge dialog of a player's page: the Challenge button (a link to the form's
   own page, which works without this script) opens a dialog and loads the form into
   it; choosing another game loads that game's form. On the form's own page the game
   choice follows the select at once. Sending the form leaves the page, as a link. */
(function () {
  "use strict";

  function load(box, url) {
    return fetch(url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); })
      .then(function (html) { box.innerHTML = html; wire(box); });
  }

  function partUrl(form) {
    var params = new URLSearchParams(new FormData(form));
    params.set("part", "1");
    return form.action + "?" + params.toString();
  }

  // The game select: reload the form for the game chosen, keeping the player.
  function wire(box) {
    box.querySelectorAll("[data-no-script]").forEach(function (b) { b.hidden = true; });
    var pick = box.querySelector("form.challenge-game");
    if (!pick) return;
    var select = pick.querySelector("select[name=game]");
    select.addEventListener("change", function () {
      if (select.value === pick.closest("[data-game]").dataset.game) return;  // no change
      var holder = box.closest(".dialog-body");
      if (holder) load(holder, partUrl(pick)).then(function () {
        var again = holder.querySelector("select[name=game]");
        if (again) again.focus();
      });
      else pick.submit();
    });
    // The seats past the count chosen are hidden, as on the new match form.
    var count = box.querySelector("select[name=seat_count]");
    function showSeats() {
      box.querySelectorAll(".form-field[data-seat]").forEach(function (row) {
        row.hidden = +row.dataset.seat > +count.value;
      });
    }
    if (count) { count.addEventListener("change", showSeats); showSeats(); }
  }

  document.querySelectorAll(".challenge-form").forEach(function (box) {
    if (!box.closest("dialog")) wire(box);
  });

  document.querySelectorAll("[data-challenge-dialog]").forEach(function (link) {
    var dialog = document.getElementById(link.dataset.challengeDialog);
    if (!dialog || typeof dialog.showModal !== "function") return;
    var body = dialog.querySelector(".dialog-body");
    link.addEventListener("click", function (e) {
      e.preventDefault();
      dialog.showModal();
      load(body, link.href + (link.href.indexOf("?") < 0 ? "?" : "&") + "part=1").then(function () {
        var first = body.querySelector("select[name=game]");
        if (first) first.focus();
      }).catch(function () { window.location.href = link.href; });
    });
    dialog.querySelector("[data-dialog-close]").addEventListener("click", function () { dialog.close(); });
    dialog.addEventListener("click", function (e) { if (e.target === dialog) dialog.close(); });
  });
})();
