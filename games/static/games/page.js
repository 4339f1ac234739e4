/* The platform's part of a game's board script: the match page's poll, Send without
   a reload, the movies (queued, paced, paused, skipped, told in the caption), the
   deadline countdowns, the speed kept across pages, and the replay page. A game's
   own script (games/play/<game>/static/play/<game>/planner.js; Helium 3's and the
   remake's games/board.js) draws and animates its board and plans orders; this
   script plays the turns the server sends, in order and once, through the hooks
   the game gives. Loaded before the game's script (both deferred, so in that
   order); on its own it does nothing.

   window.matchPage.init(hooks) starts the match page (#match) and answers whether
   its board is there. Hooks:
     stage(svg, following, movie)  the game's stage for a movie played on `svg`: an
                            object whose fire(event, speed) starts one event's effect;
                            `following` says the panel follows the movie (its
                            scores are the game's to update); `movie` is what plays:
                            {turns, data (the fragment's JSON, or the replay's
                            {turns, timing, record}), from (the first turn played)}.
                            A stage may also draw any moment itself:
                              beginTurn(k)  turn k begins (or is sought): none of
                                            its events fired yet;
                              moment(k, T)  draws turn k at T ms into it, the events
                                            fired so far at their moments; answers
                                            the scores shown then ({seat: n}), or null.
                            Such a stage is drawn every animation frame, a movie with
                            turns this browser has shown starts at the first one not
                            shown, and it plays a replay over the battle clock.
     tail                   ms a turn lasts after its last event starts (0).
     pace                   true: a long turn plays faster: its events in at most
                            BUSY_MS at 1x, the idle rest of it in IDLE_MS, and each
                            turn at least LEAST_MS (or its length) to be seen and told.
     lasts(event)           optional: ms an event's effect shows from its t_ms (its
                            duration_ms), for the pace.
     who(t)                 optional: the caption's words on whose turn t is
                            ("seat 2's turn"), or "".
     follow                 true: while a movie plays, the panel's status and the
                            history show the turn playing, and the panel and
                            history the page had come back after it.
     followTurn(t)          optional: the game's own marks on the panel for turn t.
     watch                  true: while a movie of turns not shown plays (and while
                            the page asks for them), <html> is "watching": board.css
                            hides the planner until the board is at the turn to play.
     unseenOnly             true: a movie plays only the turns this browser has not
                            shown, and its end board replaces the one shown even
                            at the same turn (a turn of steps changes the board
                            within its number). Else a movie with any turn unseen
                            plays whole, from the board before its first turn.
     refresh()              the page's fragments are new (at load, after a poll,
                            after a movie): the game's seat keys and planner.
     ordersBox()            the game's orders box, or null: with no box, the
                            viewer's orders are in, so the page polls again soon.
     drawPlan()             optional: draws the plan on a board swapped in or
                            left by a movie.
     putBoard(now, svg)     optional: changes the board shown (`now`) in place into
                            the server's `svg` (not in the page; left as it is),
                            so that only what differs is restyled; true when done,
                            false to have the board put in anew. The replay page's
                            hooks may have it too.
     onSettled()            optional: an htmx request settled with nothing to play.
     afterSent()            optional: the first poll after orders were accepted
                            settled with nothing to play (a step's new board).
     sendRefused(answer)    optional: orders sent were refused (the answer's
                            message shows beside the planner) or not sent at all.
   matchPage.playing() says a movie plays, matchPage.paused() that it is paused (the
   #pause button), matchPage.skipping() that Skip is ending every movie queued;
   matchPage.skip() ends them; matchPage.markSeen() stores the turn of the board
   shown as seen; matchPage.ending(id) is the part of the page (panel, history...)
   that will show once the movies are over: the one a poll brought, held, else the
   one shown.
   matchPage.dom holds the DOM helpers the board scripts share: $(selector, root),
   el(svgTag, attrs, parent, before), html(tag, attrs, text), setText(node, text).

   A page that opens on turns this browser has not shown (an inline script of the
   game's template may mark <html> "catching-up" at once, so no later state flashes
   first) plays them first: <html> loses "catching-up" once the movie shows its first
   turn (or the poll brought none, or failed), and "watching" once no movie plays.

   window.matchPage.replay(root, hooks) starts the replay page: #replay-turns (turn
   by turn, each turn's board the server's) or #replay (over the battle clock, from
   the match's record; the stage must draw any moment). Hooks: stage, tail and who
   as above; scores(svg, atEnd), optional, writes the scores of the board shown
   (`atEnd`: the match's end). */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  /* The small DOM helpers every board script uses (matchPage.dom). */
  function $(s, r) { return (r || document).querySelector(s); }
  /* An SVG element, put into `parent` before `before` (else last) when given. */
  function el(tag, attrs, parent, before) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.insertBefore(e, before || null);
    return e;
  }
  function html(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  /* Text written only when it changes (a screen reader hears no repeat). */
  function setText(node, text) { if (node && node.textContent !== String(text)) node.textContent = text; }
  function showReplayButtons() { document.querySelectorAll(".replay-turn").forEach(function (b) { b.hidden = false; }); }
  /* The URL of turn k's movie fragment, from the URL of turn 0's. */
  function movieUrl(url0, k) { return url0.replace(/\/0\/movie\/$/, "/" + k + "/movie/"); }
  /* The movie a poll brought (#movie), taken out of the page to play; or null. */
  function takeMovie() {
    var movie = $("#movie");
    if (!movie || !$("template.mv-start", movie)) return null;
    var holder = movie.cloneNode(true); movie.replaceChildren();
    return holder;
  }
  /* Board `svg` (a template's, a fetched one: not in the page) shown in the board's box:
     changed in place by the game's putBoard where it has one, else put in, a copy
     of it unless `own`. */
  function showBoard(wrap, svg, h, own) {
    var now = wrap.firstElementChild;
    if (h.putBoard && now && now !== svg && h.putBoard(now, svg)) return;
    wrap.replaceChildren(own ? svg : svg.cloneNode(true));
  }
  function parseFragment(text) { var holder = document.createElement("div"); holder.innerHTML = text; return holder; }

  /* The lines of turn t told by movie time T (ms into the turn): each as its events
     play, the match's end (t_ms null) only once the turn has `ended`. A fragment
     without the times tells its lines at once. */
  function toldBy(t, T, ended) {
    if (!t.told) return t.lines || [];
    return t.told.filter(function (x) { return x.t_ms === null ? ended : x.t_ms <= T; }).map(function (x) { return x.line; });
  }
  /* The caption: the latest lines that fit, whole (never cut mid-sentence). */
  function caption(hooks, t, said) {
    var who = hooks.who ? hooks.who(t) : "", lines = (said || []).slice();
    while (lines.length > 1 && lines.join(" ").length > 160) lines.shift();
    var text = lines.join(" ");
    return "Turn " + t.number + " plays" + (who ? ", " + who : "") + (text ? ": " + text : ".");
  }

  /* Plays turns one after another: `turns` [{events, turn_ms, ...}], `show(k)` when
     turn k begins, `at(k, T, ended)` at each frame (T ms into turn k; `ended`: its
     last effect is over), `done()` after the last. Each event fires at its t_ms; a turn ends
     at its turn_ms, and not before `tail` after its last event (the effects' tails).
     Speed divides every time. */
  function TurnPlayer(stage, turns, opts) {
    this.stage = stage; this.turns = turns; this.opts = opts; this.k = -1; this.playing = false; this.finished = false;
    this.speed = opts.speed || 1; this.paused = false;
  }
  /* The pace (opts.pace): a turn's events play in at most BUSY_MS at 1x, its idle
     rest in IDLE_MS; every turn is on the board at least LEAST_MS (or its length),
     so a turn of quiet events is seen and told, not gone in a blink. */
  var BUSY_MS = 2500, IDLE_MS = 250, LEAST_MS = 1200;
  TurnPlayer.prototype.start = function (k) {
    var self = this, lasts = this.opts.lasts;
    this.k = k; this.T = 0; this.fired = 0; this.last = null; this.playing = true;
    this.events = (this.turns[k].events || []).slice().sort(function (a, b) { return a.t_ms - b.t_ms; });
    this.end = Math.max(this.turns[k].turn_ms || 0, this.events.length ? this.events[this.events.length - 1].t_ms + (this.opts.tail || 0) : 0);
    // How long the turn's effects run: past that the turn is idle.
    this.busy = this.events.reduce(function (most, e) { return Math.max(most, e.t_ms + (lasts ? lasts(e) : e.duration_ms || 0)); }, 0);
    this.busy = Math.min(Math.max(this.busy, Math.min(this.turns[k].turn_ms || 0, LEAST_MS)), this.turns[k].turn_ms || 0);
    if (this.stage.beginTurn) this.stage.beginTurn(k);
    if (this.opts.show) this.opts.show(k);
    // A stage that draws its moments shows the turn's first one at once, with its caption.
    if (this.stage.moment) { this.fire(); this.stage.moment(k, 0); }
    requestAnimationFrame(function (now) { self.tick(now); });
  };
  /* Movie time per ms of real time at 1x, at this moment of the turn. */
  TurnPlayer.prototype.rate = function () {
    if (!this.opts.pace) return 1;
    var turnMs = this.turns[this.k].turn_ms || 0;
    return this.T < this.busy ? Math.max(1, this.busy / BUSY_MS) : Math.max(1, (turnMs - this.busy) / IDLE_MS);
  };
  TurnPlayer.prototype.fire = function () {
    while (this.fired < this.events.length && this.events[this.fired].t_ms <= this.T) this.stage.fire(this.events[this.fired++], this.speed);
  };
  TurnPlayer.prototype.pause = function () { this.paused = true; };
  TurnPlayer.prototype.resume = function () {
    var self = this;
    if (!this.paused || !this.playing) return;
    this.paused = false; this.last = null;
    requestAnimationFrame(function (now) { self.tick(now); });
  };
  TurnPlayer.prototype.tick = function (now) {
    if (!this.playing || this.paused) return;
    var self = this;
    if (this.last !== null) this.T += (now - this.last) * this.speed * this.rate();
    this.last = now;
    this.fire();
    if (this.stage.moment) this.stage.moment(this.k, this.T);
    var ended = this.T >= this.end && this.fired >= this.events.length;
    if (this.opts.at) this.opts.at(this.k, this.T, ended);
    if (ended) {
      if (this.k + 1 < this.turns.length) return this.start(this.k + 1);
      return this.finish();
    }
    requestAnimationFrame(function (t) { self.tick(t); });
  };
  TurnPlayer.prototype.finish = function () {
    if (this.finished) return;
    if (this.k >= 0 && this.opts.at) this.opts.at(this.k, Infinity, true);
    this.playing = false; this.finished = true;
    if (this.opts.done) this.opts.done();
  };

  /* Deadline countdowns tick every second (and at once when a poll brings a new one). */
  var ticking = false;
  function countdowns() { tick(); if (!ticking) { ticking = true; setInterval(tick, 1000); } }
  function tick() {
    document.querySelectorAll("time.countdown").forEach(function (t) {
      var left = Date.parse(t.getAttribute("datetime")) - Date.now();
      var s = Math.max(0, Math.round(left / 1000)), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
      t.textContent = "in " + (h ? h + " h " : "") + m + " min " + ("0" + (s % 60)).slice(-2) + " s";
    });
  }

  /* The speed chosen on one page is the speed of every page (match and replay). */
  function speed() { var s = $("#speed"); return s ? +s.value || 1 : 1; }
  function keepSpeed(changed) {
    var sp = $("#speed"); if (!sp) return;
    try { var kept = localStorage.getItem("h3-speed"); if (kept && sp.querySelector('option[value="' + kept + '"]')) sp.value = kept; } catch (e) { /* private mode */ }
    sp.addEventListener("change", function () {
      changed();
      try { localStorage.setItem("h3-speed", sp.value); } catch (e) { /* private mode */ }
    });
  }

  /* ---- The match page: polls, movies and the panel following the board ---- */
  var page = null, hooks = null;
  var queue = [], current = null, skipping = false;
  /* What a poll brings while the board still plays earlier turns (the panel, the
     history, the next orders) waits in a holder until the board reaches it. */
  // The heading's status and the badge of matches waiting (and the tab's title that
  // follows it) wait too: a match's end is not said before its last turn is shown.
  var HELD = ["panel", "history", "orders", "match-status", "move-badge"];
  /* `landed()` runs once the whole of an answer is in the page, before anything else
     runs (a movie's next frame, another answer): the parts it brought are held until
     then, as whether a movie came with them is known only at its end. */
  function holder(busy, onBoard, landed) {
    var held = {}, landing = false, board = null;
    function putBoard(box) {
      var wrap = document.getElementById("board-wrap"), now = wrap && $("svg.board", wrap), next = $("svg.board", box);
      if (!wrap || (now && next && +next.dataset.turn < +now.dataset.turn)) return;  // older than the one shown
      if (next && box.children.length === 1) showBoard(wrap, next, hooks, true);
      else wrap.replaceChildren.apply(wrap, [].slice.call(box.childNodes));
      if (onBoard) onBoard();
    }
    document.addEventListener("htmx:oobBeforeSwap", function (e) {
      var id = e.detail.target && e.detail.target.id;
      if (id === "board-wrap") {
        // A board sent anew goes into the board's box, which stays: the game's
        // listeners are on it (a page loaded anew would set them again; this one is not).
        // While a movie plays (it ends on its own board), the board waits for it.
        var box = e.detail.fragment.firstElementChild;
        if (!box) return;
        e.detail.shouldSwap = false;
        if (busy()) { board = box; return; }
        putBoard(box);
        return;
      }
      if (HELD.indexOf(id) < 0) return;
      // Every part waits for the end of its answer, even with nothing playing: the
      // movie comes after these parts, and an answer to a request made for a poll
      // element a newer answer has replaced since says nothing else of itself (its
      // htmx:beforeSwap goes to that element, out of the page). The answer is
      // processed in one go, so the parts are in before the next paint.
      e.detail.shouldSwap = false;
      held[id] = e.detail.fragment.firstElementChild;
      if (!landing) {
        landing = true;
        Promise.resolve().then(function () { landing = false; landed(); });
      }
    });
    return {
      held: function (id) { return held[id]; },
      forget: function (id) { delete held[id]; },
      swapIn: function (shown) {
        var fresh = [];
        HELD.forEach(function (id) {
          var now = document.getElementById(id), next = held[id] || (shown && shown[id]);
          if (now && next) {
            now.replaceWith(next); fresh.push(next);
            if (id === "orders") keepPlan(now, next);
            // As an htmx swap would say (the tab's title follows the badge: site.js).
            if (id === "move-badge") next.dispatchEvent(new CustomEvent("htmx:oobAfterSwap", {bubbles: true}));
          }
        });
        held = {};
        if (board) { putBoard(board); board = null; }
        if (window.htmx) fresh.forEach(function (e) { window.htmx.process(e); });
        return fresh;
      }
    };
  }
  /* The orders of the turn being planned, brought again (a poll's answer on its way
     since before the form came, a look after a push or after Send: the same turn,
     its status changed), keep what the player has changed in the form shown: the
     game's planner starts again from the form, and a refresh must not wipe a plan
     being made. The same turn is the same `turn` field (and `step_no`, in a game of
     steps); a field the player changed is one whose value is not the one the server
     drew. `now` has just been replaced by `next`. */
  var PLANNED_FOR = ["turn", "step_no"];
  function fieldValue(f, name) { var e = f.elements.namedItem(name); return e ? e.value : null; }
  function changedByPlayer(e) {
    if (e.type === "checkbox" || e.type === "radio") return e.checked !== e.defaultChecked;
    if (e.tagName === "SELECT") return [].some.call(e.options, function (o) { return o.selected !== o.defaultSelected; });
    return e.value !== e.defaultValue;
  }
  function keepPlan(now, next) {
    var from = $("#orders-form", now), to = $("#orders-form", next);
    if (!from || !to || PLANNED_FOR.some(function (n) { return fieldValue(from, n) !== fieldValue(to, n); })) return;
    var nth = {};
    [].forEach.call(from.elements, function (e) {
      var tag = e.tagName, type = e.type;
      if (!e.name || (tag !== "INPUT" && tag !== "TEXTAREA" && tag !== "SELECT") || /^(hidden|submit|button|reset|image|file)$/.test(type)) return;
      var i = nth[e.name] = (nth[e.name] || 0) + 1;
      if (!changedByPlayer(e)) return;
      // Its field in the new form: the same name (a box ticked: the same value too).
      var same = [].filter.call(to.elements, function (t) { return t.name === e.name && t.tagName === tag && t.type === type; });
      if (type === "checkbox" || type === "radio") { same.forEach(function (t) { if (t.value === e.value) t.checked = e.checked; }); return; }
      var t = same[i - 1];
      if (!t) return;
      if (tag === "SELECT") {
        var picked = [].filter.call(e.options, function (o) { return o.selected; }).map(function (o) { return o.value; });
        [].forEach.call(t.options, function (o) { o.selected = picked.indexOf(o.value) >= 0; });
      } else t.value = e.value;
    });
  }
  function quietPolls() {
    // A 304 from the poll means nothing changed: keep the page as it is.
    if (window.htmx) window.htmx.config.responseHandling = [{code: "304", swap: false}, {code: "204", swap: false}, {code: "[23]..", swap: true}, {code: "[45]..", swap: false, error: true}];
  }
  // `shown` is the panel and history as they were when a movie began, put back if nothing came.
  var hold = null, shown = null;
  /* The last turn this browser has shown of match `id` (a string), or null. */
  function seenOf(id) { try { return localStorage.getItem("h3-seen-" + id); } catch (e) { return null; } }
  function storeSeenOf(id, turn) { try { localStorage.setItem("h3-seen-" + id, String(turn)); } catch (e) { /* private mode */ } }
  function storeSeen(turn) { storeSeenOf(page.dataset.match, turn); }
  function seen() { return seenOf(page.dataset.match); }
  /* The turn of the board shown: the drawing's, else the poll's, else the orders form's. */
  function boardTurn() {
    var svg = $("#board-wrap svg.board"), poll = $("#poll"), f = $("#orders-form");
    if (svg && svg.dataset.turn !== undefined) return svg.dataset.turn;
    if (poll && poll.dataset.since !== undefined) return poll.dataset.since;
    return f && f.elements.turn ? f.elements.turn.value : null;
  }
  function markSeen() { var turn = boardTurn(); if (turn !== null) storeSeen(turn); }
  function drawPlan() { if (hooks.drawPlan) hooks.drawPlan(); }

  function beginShow() {
    var panel = $("#panel"), hist = $("#history");
    shown = {panel: panel ? panel.cloneNode(true) : null, history: hist ? hist.cloneNode(true) : null};
  }
  /* The panel and history at the start of a turn of the movie: no later turn shown. */
  function followTurn(t, k, count) {
    var st = $("#panel .status");
    if (st) {
      st.replaceChildren("Showing turn ");
      var n = html("strong", {"class": "showing", "data-turn": String(t.number)}, String(t.number));
      var notes = (t.seat ? ["seat " + t.seat + "'s turn"] : []).concat(count > 1 ? [(k + 1) + " of " + count + " to catch up"] : []);
      st.append(n, notes.length ? " (" + notes.join("; ") + ")." : ".");
    }
    if (hooks.followTurn) hooks.followTurn(t);
    // A finished match's result waits for its last turn.
    document.querySelectorAll("#panel .results, #panel .winner-mark").forEach(function (e) { e.hidden = true; });
    document.querySelectorAll("#history li.turn").forEach(function (li) { li.hidden = +li.dataset.turn > t.number; });
  }
  function release() {
    hold.swapIn(shown);
    shown = null;
    caughtUp();
    news();
    unpin("sent");
  }
  /* The board has shown the first turn the page had to catch up on (or there was
     none, or the poll failed): nothing hidden any more; the planner again once no
     movie plays (board.css hides it while the page is "watching"). */
  function caughtUp() {
    var root = document.documentElement;
    if (!current && !queue.length) { root.classList.remove("watching"); unpin("watch"); }
    root.classList.remove("catching-up");
  }
  /* The page keeps its height while a movie plays (the planner hides meanwhile) and
     while orders just sent wait for their turn's movie (a planner sent may go away
     until the next turn's comes): a page scrolled down to a long planner (the
     arena's cards) stays where it was rather than being pulled up and left there. */
  var pins = {}, pinTimer = null;
  function pin(why, ms) {
    var root = document.documentElement;
    if (!Object.keys(pins).length) root.style.minHeight = root.scrollHeight + "px";
    pins[why] = true;
    if (why === "sent") { clearTimeout(pinTimer); pinTimer = setTimeout(function () { unpin("sent"); }, ms); }
  }
  function unpin(why) {
    if (!pins[why]) return;
    delete pins[why];
    if (why === "sent") clearTimeout(pinTimer);
    // The height is let go once the parts that came with the movie are drawn.
    requestAnimationFrame(function () { if (!Object.keys(pins).length) document.documentElement.style.minHeight = ""; });
  }
  function watch() {
    if (!hooks.watch) return;
    pin("watch");
    document.documentElement.classList.add("watching");
  }
  function news() {
    hooks.refresh();
    settleNotes();
    // The line under the title says how far the match has come, as the panel does.
    var said = $("#progress"), intro = $("#match-progress");
    if (said && intro) setText(intro, said.textContent.trim().toLowerCase());
    pollSoon();
    showReplayButtons();
    tick();
  }
  /* Play a movie fragment (#movie after a poll, or a past turn), then show its end. */
  function playFragment(holder, restoring) {
    var tplStart = $("template.mv-start", holder), tplEnd = $("template.mv-end", holder);
    var data = JSON.parse($("script", holder).textContent), turns = data.turns;
    var wrap = $("#board-wrap"), saved = restoring ? wrap.firstElementChild : null;
    if (saved && hooks.putBoard) saved = saved.cloneNode(true);  // the board shown changes in place
    // Turns this browser has shown already are not played again.
    var from = restoring ? null : seen(), k0 = 0;
    if (from !== null) while (k0 < turns.length && turns[k0].number < +from) k0++;
    var endSvg = tplEnd ? tplEnd.content.firstElementChild : saved;
    if (k0 >= turns.length) {
      if (endSvg && !restoring && (hooks.unseenOnly || +endSvg.dataset.turn > +(wrap.firstElementChild && wrap.firstElementChild.dataset.turn))) showBoard(wrap, endSvg, hooks);
      drawPlan();
      return next();
    }
    // Some of its turns seen, some not: the board drawn is the one before its first
    // turn, so it plays from there (the turns seen once more) rather than on a board
    // they left; unless the game plays only the turns unseen, or its stage draws any
    // moment (it starts at the first turn unseen).
    if (hooks.unseenOnly) { turns = turns.slice(k0); k0 = 0; }
    if (!restoring) watch();
    showBoard(wrap, tplStart.content.firstElementChild, hooks);
    var following = !!hooks.follow && !restoring && !!$("#panel"), cap = $("#caption"), skip = $("#skip");
    if (following && !shown) beginShow();
    var movie = {turns: turns, data: data, from: k0};
    var stage = hooks.stage($("#board-wrap svg.board"), following, movie);
    if (!stage.moment) movie.from = k0 = 0;
    var player = new TurnPlayer(stage, turns, {speed: speed(), tail: hooks.tail, pace: hooks.pace, lasts: hooks.lasts, show: function (k) {
      var t = turns[k];
      if (cap) { setText(cap, caption(hooks, t, toldBy(t, 0, false))); cap.dataset.turn = t.number; }
      if (following) followTurn(t, k - k0, turns.length - k0);
    }, at: function (k, T, ended) {
      if (cap && cap.dataset.turn === String(turns[k].number)) setText(cap, caption(hooks, turns[k], toldBy(turns[k], T, ended)));
    }, done: function () {
      if (endSvg) showBoard(wrap, endSvg, hooks, endSvg === saved);
      current = null;
      if (!restoring) markSeen();
      // The match's end, told after the last animation, stays said.
      var last = turns[turns.length - 1], ending = restoring || !last.told ? [] : last.told.filter(function (x) { return x.t_ms === null; }).map(function (x) { return x.line; });
      if (cap) { cap.textContent = restoring ? "Back to the board as it is now." : ending.join(" "); delete cap.dataset.turn; }
      drawPlan();
      next();
    }});
    $("#player").hidden = false; $("#player").classList.add("playing"); if (skip) skip.disabled = false;
    pauseButton(true, false);
    current = player;
    if (skipping) return player.finish();
    player.start(k0);
    // The first turn not seen is on the board, the panel at its moment: nothing to hide any more.
    if (!restoring) caughtUp();
  }
  function next() {
    var fn = queue.shift();
    if (fn) return fn();
    skipping = false;
    var skip = $("#skip"); if (skip) skip.disabled = true;
    pauseButton(false, false);
    $("#player").classList.remove("playing");
    release();
  }
  function enqueue(fn) { if (current) queue.push(fn); else fn(); }
  /* Skip: everything queued ends at once, the board shows the latest turn. */
  function skipAll() { if (current) { skipping = true; current.finish(); } }
  /* Pause holds the movie on its moment (a poll's news waits with it); Play goes on. */
  function pauseButton(enabled, paused) {
    var b = $("#pause"); if (!b) return;
    b.disabled = !enabled; b.textContent = paused ? "Play" : "Pause"; b.setAttribute("aria-pressed", paused ? "true" : "false");
  }
  function togglePause() {
    if (!current) return;
    if (current.paused) { current.resume(); pauseButton(true, false); } else { current.pause(); pauseButton(true, true); }
  }

  /* The push channel is open (site.js): the page is told of every change of its
     match, and asks its poll only then; the poll's own timer asks nothing meanwhile. */
  function pushing() { return !!(window.h3Push && window.h3Push.up); }
  /* The player's orders are in and the turn waits for the others: against bots it
     resolves in a moment, so the page looks again soon rather than at the next
     regular poll (each look is a 304 while nothing changed); unless it will be told. */
  function pollSoon() {
    var poll = $("#poll"), url = poll && poll.getAttribute("hx-get");
    if (!url || !window.htmx || !page.dataset.viewer || hooks.ordersBox() || pushing()) return;
    [300, 900, 1800].forEach(function (ms) {
      setTimeout(function () {
        var now = $("#poll");
        if (now && now.getAttribute("hx-get") === url && !current && !pushing()) askPoll(null);
      }, ms);
    });
  }
  /* An answer is in: its movie (if it brought one) is queued at once, so the parts it
     brought wait for it; with nothing to play they show now. */
  function landed() {
    var holder = takeMovie();
    // Orders sent for turn `sentFor` took the match off the badge: until the board
    // shows a later turn, an answer without that turn's movie does not count it
    // again (one asked before the orders went says "your move" for a turn played).
    var badge = hold.held("move-badge"), now = $("#move-badge"), turn = boardTurn();
    if (!holder && badge && now && sentFor !== null && turn !== null && +turn <= sentFor &&
        +badge.dataset.count > +now.dataset.count) hold.forget("move-badge");
    if (holder) enqueue(function () { playFragment(holder, false); });
    if (current || queue.length) return;
    hold.swapIn(null);
    news();
  }
  function listen() {
    quietPolls();
    document.addEventListener("htmx:afterSettle", function (e) {
      var holder = takeMovie();
      if (holder) enqueue(function () { playFragment(holder, false); });
      delete page.dataset.catchingUp;
      if (!current && !queue.length) {
        // The poll brought nothing to play: the page is shown as it is.
        if (pollEvent(e)) caughtUp();
        if (hooks.onSettled) hooks.onSettled();
        news();
        // The first answer after orders were accepted, with no movie: the game may
        // show what was sent on the board it brought.
        if (sentAwaits) { sentAwaits = false; if (hooks.afterSent) hooks.afterSent(); }
      } else sentAwaits = false;
    });
    // The poll's answer (the catching up's included) failed: the page is shown as it is.
    ["htmx:responseError", "htmx:sendError", "htmx:timeout"].forEach(function (name) {
      document.addEventListener(name, function (e) { if (pollEvent(e) && !current && !queue.length) caughtUp(); });
    });
    hold = holder(function () { return !!(current || queue.length); }, drawPlan, landed);
    document.addEventListener("htmx:afterSwap", function (e) {
      var id = e.detail && e.detail.target && e.detail.target.id;
      if (id === "history") showReplayButtons();
      // A board swapped in by a poll (no movie) keeps the plan drawn on it.
      if (id === "board-wrap") drawPlan();
    });
    countdowns();
  }
  function init(given) {
    page = $("#match");
    if (!page || hooks) return false;
    hooks = given;
    listen();
    if (!$("#board-wrap svg.board")) return false;
    var skip = $("#skip"), pause = $("#pause");
    if (skip) skip.addEventListener("click", skipAll);
    if (pause) pause.addEventListener("click", togglePause);
    keepSpeed(function () { if (current) current.speed = speed(); });
    $("#player").hidden = false;
    document.addEventListener("click", function (e) {
      var btn = e.target.closest(".replay-turn"); if (!btn) return;
      fetch(movieUrl($("#history").dataset.movie, btn.dataset.turn), {credentials: "same-origin"}).then(function (r) { return r.text(); }).then(function (text) {
        var holder = parseFragment(text);
        enqueue(function () { playFragment(holder.firstElementChild, true); });
      });
    });
    news();
    var turn = boardTurn(), last = seen();
    if (turn !== null && last !== null && +last < +turn && window.htmx && page.dataset.pollUrl) {
      // Turns were played since this browser last looked: ask for them and play them
      // once. Until the answer is here (and its movie queued) the page says it is
      // catching up.
      page.dataset.catchingUp = "1";
      watch();
      var caught = function () { setTimeout(function () { delete page.dataset.catchingUp; }, 1500); };
      askPoll(page.dataset.pollUrl + "?v=stale&since=" + (+last)).then(caught, caught);
      // Should no movie come (a lost answer), the page is shown as it is.
      setTimeout(caughtUp, CATCH_UP_MS);
    } else {
      if (turn !== null) storeSeen(turn);
      caughtUp();
    }
    return true;
  }
  var CATCH_UP_MS = 20000;
  function pollEvent(e) { var d = e.detail || {}; return (d.target && d.target.id === "poll") || (d.elt && d.elt.id === "poll"); }

  /* ---- Sending orders without leaving the page ---- */
  /* The orders form posts by fetch, asking for JSON: the page stays where it was
     scrolled and its plan stays drawn. Accepted, the page says so beside the planner
     and asks the poll for what changed (the panel, then the turn's movie); refused,
     the reason shows there and the plan stays as it was. An answer that is not the
     JSON asked for (signed out, a server page) sends the form the plain way, as the
     page does without JavaScript. */
  var SEND_POLLS = [0, 300, 300, 400, 500, 700, 1000, 1500, 2000, 3000];
  var sentAwaits = false, sentFor = null;

  /* One ask of the poll out at a time, whoever asks (the looks after Send, the poll's
     own timer, a pushed turn's asks in site.js, the catching up): an ask made while
     one is on its way waits for its answer, and goes once it is in, once for all the
     asks made meanwhile, with the poll's URL as that answer left it (an ask of a URL
     of its own, the look after Send's, is made from the poll's URL when it goes:
     were it made when it was wished, a pushed turn's answer that came in meanwhile
     would leave it naming the turn before, and the turn's movie would come twice).
     Two asks out at once were two identical requests, each bringing the turn's movie.
     `waiting` holds the asks to go, in order: {url (null: the poll's own; a function:
     the URL it makes when it goes), promise}, whose promise is settled once its
     answer is in. */
  var pollsOut = 0, waiting = [], asking = false;
  // Poll requests on their way (htmx's own events, whoever asked).
  document.addEventListener("htmx:beforeRequest", function (e) { if (pollEvent(e)) pollsOut++; });
  document.addEventListener("htmx:afterRequest", function (e) {
    if (!pollEvent(e) || pollsOut <= 0) return;
    pollsOut--;
    // After htmx is done with the answer (its swap in, its element free).
    setTimeout(askWaiting, 0);
  });
  /* A poll request unanswered after 20 s (the page's data-poll-timeout-ms, if given)
     is given up (htmx:timeout, then htmx:afterRequest as for any answer): one that
     never came back would otherwise hold every later ask, the timer's and the pushed
     turns' included. */
  document.addEventListener("htmx:configRequest", function (e) {
    if (!pollEvent(e) || e.detail.timeout) return;
    e.detail.timeout = (page && +page.dataset.pollTimeoutMs) || 20000;
  });
  function pollUrl() { var poll = $("#poll[hx-get]"); return poll ? poll.getAttribute("hx-get") : null; }
  function ask(url) {
    asking = true;
    try { var asked = window.htmx.ajax("GET", url, {target: "#poll", swap: "outerHTML"}); } finally { asking = false; }
    return asked && asked.then ? asked : Promise.resolve();
  }
  /* An ask that waits: the poll's own URL is covered by any ask waiting (it goes
     later than this one was wanted); another URL by the same one waiting. */
  function wish(url) {
    var own = !url || url === pollUrl(), found = null;
    if (typeof url === "function") own = false;
    waiting.forEach(function (w) { if (own || w.url === url) found = w; });
    if (found) return found.promise;
    var entry = {url: own ? null : url};
    entry.promise = new Promise(function (resolve) { entry.resolve = resolve; });
    waiting.push(entry);
    return entry.promise;
  }
  /* The URL an ask goes to: `url` (made from the poll's URL now, if a function), else
     the poll's own; null once the match is over. */
  function destination(url) {
    if (typeof url === "function") return pollUrl() ? url(pollUrl()) : null;
    return url || pollUrl();
  }
  /* Ask the poll (`url`, else its own): at once if nothing is on its way, else once
     the answer is in. The promise settles once this ask's answer is in. */
  function askPoll(url) {
    if (!window.htmx) return Promise.resolve();
    if (pollsOut > 0 || waiting.length) return wish(url);
    var go = destination(url);
    return go ? ask(go) : Promise.resolve();
  }
  function askWaiting() {
    while (!pollsOut && waiting.length) {
      var w = waiting.shift(), go = destination(w.url);
      if (!go) { w.resolve(); continue; }  // the match is over: no poll to ask
      ask(go).then(w.resolve, w.resolve);
    }
  }
  // The asks the page does not make itself (the poll's timer, site.js's after a push,
  // htmx's own) pass here too: made while one is on its way, they wait.
  document.addEventListener("htmx:confirm", function (e) {
    var d = e.detail || {};
    if (asking || e.defaultPrevented || !pollEvent(e) || !page) return;
    if (pushing() && !(d.etc && d.etc.returnPromise)) return;  // the timer's: site.js calls it off
    if (pollsOut > 0 || waiting.length) { e.preventDefault(); wish(d.path); }
  });
  /* Counts the answers to orders sent that the page has shown (the refusal, or the
     first poll after the orders were accepted): data-orders-answered on <html>, and
     data-orders-answer the last answer, "accepted" or "refused". */
  function answered(kind) {
    var r = document.documentElement;
    r.dataset.ordersAnswer = kind;
    r.dataset.ordersAnswered = String(+(r.dataset.ordersAnswered || 0) + 1);
  }
  function sendButtons(f) {
    var out = [].slice.call(f.querySelectorAll("button[type=submit], .send"));
    document.querySelectorAll('button[form="' + f.id + '"]').forEach(function (b) { if (out.indexOf(b) < 0) out.push(b); });
    return out;
  }
  /* The list of notes about the orders sent, beside the planner (made once), in a
     live region of its own: a list keeps its list role (its items stay list items),
     as the server's messages sit in base.html. */
  function sendNotes() {
    var list = $("#sent-note");
    if (list) return list;
    list = html("ul", {id: "sent-note", "class": "messages sent-note"});
    var region = html("div", {"class": "sent-notes", role: "status"});
    region.appendChild(list);
    var bar = $("#board-bar"), wrap = $("#board-wrap");
    if (bar) bar.appendChild(region); else if (wrap) wrap.after(region); else $("#main").prepend(region);
    return list;
  }
  function sendError(text) {
    document.querySelectorAll(".send-error").forEach(function (e) { e.remove(); });
    if (!text) return;
    // The alert is inside the item: an item with a role of its own is no list item.
    var li = html("li", {"class": "error send-error"});
    li.appendChild(html("span", {role: "alert"}, text));
    sendNotes().appendChild(li);
    // Without the planner's bar (a plain form), the reason shows at the form too.
    var planner = $("#planner"), f = $("#orders-form");
    if ((!planner || planner.hidden) && f) f.prepend(html("p", {"class": "error send-error", role: "alert"}, text));
  }
  /* "Orders accepted": it stays until the turn it was sent for is resolved. */
  function noteAccepted(text, turn) {
    document.querySelectorAll(".orders-accepted").forEach(function (e) { e.remove(); });
    sendNotes().appendChild(html("li", {"class": "success orders-accepted", "data-turn": String(turn)}, text));
  }
  /* The turn a note of accepted orders is about: its data-turn, else its "turn-N" tag. */
  function noteTurn(e) {
    if (e.dataset.turn !== undefined) return +e.dataset.turn;
    var m = /(?:^|\s)turn-(\d+)(?:\s|$)/.exec(e.className);
    return m ? +m[1] : null;
  }
  /* Notes of orders whose turn the board shows resolved go (the match over too). */
  function settleNotes() {
    var shown = boardTurn(), poll = $("#poll");
    var over = !!poll && !poll.getAttribute("hx-get") && !!$("#board-wrap svg.board");
    document.querySelectorAll(".orders-accepted").forEach(function (e) {
      var t = noteTurn(e);
      if (over || (t !== null && shown !== null && +shown > t)) {
        var list = e.parentNode; e.remove();
        if (list && list.classList.contains("messages") && !list.children.length && list.id !== "sent-note") list.remove();
      }
    });
  }
  /* Ask the poll again and again for a moment after orders are accepted: against
     bots the turn is resolved in a moment. `first` is the first look's: its URL
     (a step changes the board within its turn: it may ask for the board itself)
     and what to do once its answer is in. The first look always goes (its answer
     is the page after the orders: the form again, the panel saying they are in);
     the later ones only while the push channel is shut, else the page is told. */
  /* With the channel open the page is told of the turn; should a telling be missed
     (an ask lost behind a slow answer), it looks once more after 12 s, then 24 and
     48 s, while the board still shows the turn the orders were sent for. */
  function lateLook(turn, delay) {
    setTimeout(function () {
      var poll = $("#poll[hx-get]");
      if (!poll || !window.htmx || +poll.dataset.since > turn) return;
      if (!current && !queue.length) askPoll(null);
      if (delay < 48000) lateLook(turn, delay * 2);
    }, delay);
  }
  function pollAfterSend(turn, first, k) {
    if (k >= SEND_POLLS.length) return;
    if (k > 0 && pushing()) return lateLook(turn, 12000);
    setTimeout(function () {
      var poll = $("#poll[hx-get]");
      if (!poll || !window.htmx) { if (k === 0) { if (first.sent) first.sent(); answered("accepted"); } return; }
      if (k > 0 && (+poll.dataset.since > turn || pushing())) return;
      var next = function () { if (k === 0) { if (first.sent) first.sent(); answered("accepted"); } pollAfterSend(turn, null, k + 1); };
      // A look made while a poll answer is on its way (a timer's, a push's ask) goes
      // once it is in; the first one as it was asked (the page anew, the board
      // after a step), and the next look counts from its answer.
      askPoll(first ? first.url : null).then(next, next);
    }, SEND_POLLS[k]);
  }
  function send(e) {
    var f = e.target;
    if (!f || f.id !== "orders-form" || e.defaultPrevented || !window.fetch || !window.FormData) return;
    e.preventDefault();
    if (f.dataset.sending) return;
    var body;
    try { body = new FormData(f, e.submitter || undefined); } catch (err) { body = new FormData(f); }
    var buttons = sendButtons(f);
    f.dataset.sending = "1";
    // From the click the panel no longer says it is the player's move: the orders are
    // on their way (said again should they be refused).
    var mark = $("#panel .your-move");
    if (mark) { mark.className = "orders-going"; mark.textContent = "orders on their way"; }
    var unmark = function () {
      var now = $("#panel .orders-going");
      if (now) { now.className = "your-move"; now.textContent = "your move"; }
    };
    buttons.forEach(function (b) { b.disabled = true; });
    sendError("");
    var done = function () { delete f.dataset.sending; buttons.forEach(function (b) { b.disabled = false; }); };
    fetch(f.action, {method: "POST", body: body, credentials: "same-origin", headers: {Accept: "application/json"}}).then(function (r) {
      var json = (r.headers.get("Content-Type") || "").indexOf("application/json") >= 0;
      return json ? r.json() : null;
    }).then(function (data) {
      if (!data) { done(); unmark(); f.submit(); return; }
      if (!data.accepted) {
        done(); unmark();
        // The orders section as the server sees it (the orders sent, each error at its
        // field) takes the place of the one shown: the game's planner starts again
        // from it, so the plan stays (as after a plain post).
        if (data.orders && window.htmx && $("#orders")) window.htmx.swap("#orders", data.orders, {swapStyle: "outerHTML"});
        sendError(data.message || "The orders were refused.");
        if (hooks && hooks.sendRefused) hooks.sendRefused(data);
        answered("refused");
        return;
      }
      // The form stays until the poll brings the next one (its buttons off meanwhile);
      // a board script that plans on its own hears that its plan is gone.
      // Until the turn's movie has played (or for a while, should it not come soon),
      // the page keeps its height: a planner sent may go away meanwhile.
      if (!data.steps) pin("sent", 15000);
      noteAccepted(data.message, data.turn);
      // The match no longer waits for this player: the badge and the tab title stop
      // counting it now (the turn's poll counts it again, if it is their move again,
      // once its movie has played).
      // (A step leaves the turn the player's: the badge stays.)
      var count = window.h3Push && window.h3Push.badgeCount();
      if (mark && count && !data.steps) { window.h3Push.setBadge(count - 1); sentFor = +data.turn; }
      document.dispatchEvent(new CustomEvent("matchpage:accepted", {detail: data}));
      // The first look always brings the page's parts anew (never "nothing changed"),
      // and in a game of steps the board too; then the form shown may be sent again.
      // Its URL is made from the poll's as it is when the look goes (a pushed turn's
      // answer may have moved it on meanwhile).
      var steps = !!data.steps, first = {sent: done, url: function (from) {
        var url = from.replace(/([?&]v=)[^&]*/, "$1sent");
        return steps ? url.replace(/([?&]since=)-?\d+/, "$1-1") : url;
      }};
      sentAwaits = true;
      pollAfterSend(+data.turn, first, 0);
    }).catch(function () {
      done(); unmark();
      sendError("The orders could not be sent: no answer from the server. Try again.");
      if (hooks && hooks.sendRefused) hooks.sendRefused(null);
      answered("refused");
    });
  }
  if ($("#match")) document.addEventListener("submit", send);

  /* ---- The replay page: the match turn by turn, each turn's board the server's ---- */
  /* Board k is the board after k turns: 0 the start, N the end; between, the board
     before turn k, which the turn's movie fragment carries with turn k's events (a
     turn of steps: each step's). */
  function replay(root, rh) {
    if (root.dataset.record) return clockReplay(root, rh);
    var N = +root.dataset.turns, bar = $("#scrub"), play = $("#play"), cap = $("#caption"), out = $("#scrub-turn");
    var wrap = $("#board-wrap"), boards = {}, turnsOf = {}, asked = {}, want = N, player = null, shownK = N;
    boards[0] = $("#replay-start").content.firstElementChild;
    boards[N] = wrap.firstElementChild;
    if (rh.putBoard) boards[N] = boards[N].cloneNode(true);  // the board shown changes in place
    /* Fetch turn k's fragment (the board before it and its events), once. */
    function load(k) {
      if (k < 0 || k >= N) return Promise.resolve();
      if (!asked[k]) {
        asked[k] = fetch(movieUrl(root.dataset.movie, k), {credentials: "same-origin"}).then(function (r) {
          if (!r.ok) throw new Error("turn " + k + ": " + r.status);
          return r.text();
        }).then(function (text) {
          var holder = parseFragment(text);
          var start = $("template.mv-start", holder), data = JSON.parse($("script", holder).textContent);
          if (k > 0) boards[k] = start.content.firstElementChild;
          turnsOf[k] = data.turns;
        }).catch(function (err) { delete asked[k]; throw err; });
      }
      return asked[k];
    }
    function scores() { if (rh.scores) rh.scores($("svg.board", wrap), shownK === N); }
    function label(k) {
      setText(out, k + " of " + N);
      bar.value = k;
      bar.setAttribute("aria-valuetext", k === 0 ? "the start" : k === N ? "the end, after turn " + (N - 1) : "after turn " + (k - 1));
    }
    /* Show board k (as soon as it is here; a later wish wins over an earlier one). */
    function show(k) {
      want = k; label(k);
      return load(k).then(function () {
        if (want !== k || !boards[k]) return;
        showBoard(wrap, boards[k], rh);
        shownK = k;
        setText(cap, k === 0 ? "The start, before turn 0." : k === N ? "The end of the match, after turn " + (N - 1) + "." : "The board after turn " + (k - 1) + ".");
        scores();
      });
    }
    function stop() {
      if (player) { player.playing = false; player = null; }
      play.textContent = "Play"; play.setAttribute("aria-pressed", "false");
    }
    /* Play from board k: turn k's events over it, then board k + 1, and on. */
    function playFrom(k) {
      if (k >= N) { stop(); return; }
      Promise.all([show(k), load(k + 1)]).then(function () {
        if (!player || player.wanted !== k) return;
        load(k + 2).catch(function () { /* asked again when needed */ });
        var list = turnsOf[k] || [];
        var turn = new TurnPlayer(rh.stage($("svg.board", wrap)), list.length ? list : [{events: [], turn_ms: 0}], {speed: speed(), tail: rh.tail, show: function (i) {
          if (list[i]) setText(cap, caption(rh, list[i], toldBy(list[i], 0, false)));
        }, at: function (i, T, ended) {
          if (list[i] && player && player.wanted === k) setText(cap, caption(rh, list[i], toldBy(list[i], T, ended)));
        }, done: function () {
          if (!player || player.wanted !== k) return;
          player.wanted = k + 1;
          if (k + 1 >= N) { show(N); stop(); return; }
          playFrom(k + 1);
        }});
        player.turn = turn;
        turn.start(0);
      }).catch(function () { setText(cap, "The replay could not fetch turn " + k + "; press Play to try again."); stop(); });
    }
    function toggle() {
      if (player) { if (player.turn) player.turn.playing = false; stop(); show(shownK); return; }
      var from = +bar.value >= N ? 0 : +bar.value;
      player = {wanted: from, playing: true};
      play.textContent = "Pause"; play.setAttribute("aria-pressed", "true");
      playFrom(from);
    }
    function halt() { if (player) { if (player.turn) player.turn.playing = false; stop(); } }
    play.addEventListener("click", toggle);
    bar.addEventListener("input", function () { halt(); show(+bar.value); });
    $("#prev").addEventListener("click", function () { halt(); show(Math.max(0, shownK - 1)); });
    $("#next").addEventListener("click", function () { halt(); show(Math.min(N, shownK + 1)); });
    keepSpeed(function () { if (player && player.turn) player.turn.speed = speed(); });
    root.addEventListener("keydown", function (e) {
      if (e.key === " " && !e.target.closest("button, select")) { e.preventDefault(); toggle(); }
    });
    [bar, play, $("#prev"), $("#next")].forEach(function (c) { c.disabled = N === 0 && c !== bar; });
    bar.disabled = false;
    label(N); scores();
    root.dataset.ready = "1";
  }

  /* ---- The replay page over the battle clock: the whole match from its record ---- */
  /* A game timed by a battle clock: the scrubber runs over the clock, and the game's
     stage draws any moment of the match (its moment()). The record is the platform's
     replay file ({initial, turns: [{orders, events}]}); each turn's length and the
     game's timing are on the page (#replay-turn-ms, #replay-timing). */
  function mmss(ms) { var s = Math.floor(Math.max(0, ms) / 1000); return Math.floor(s / 60) + ":" + ("0" + (s % 60)).slice(-2); }
  function num(n) { return typeof n === "number" ? n.toLocaleString("en") : String(n); }
  function clockReplay(root, rh) {
    var svg = $("svg.board", root), ms = JSON.parse($("#replay-turn-ms").textContent);
    var bar = $("#scrub"), play = $("#play"), cap = $("#caption"), clock = $("#replay-clock");
    fetch(root.dataset.record, {credentials: "same-origin"}).then(function (r) {
      if (!r.ok) throw new Error("record: " + r.status);
      return r.json();
    }).then(function (record) {
      var turns = record.turns.map(function (t, i) {
        var events = (t.events || []).slice().sort(function (a, b) { return a.t_ms - b.t_ms; });
        return {number: i, seat: t.orders && t.orders.seat, events: events, turn_ms: ms[i] || 0};
      });
      var stage = rh.stage(svg, false, {turns: turns, data: {turns: turns, timing: JSON.parse($("#replay-timing").textContent), record: record}, from: 0});
      var offsets = [], total = 0;
      turns.forEach(function (t) { offsets.push(total); total += t.turn_ms; });
      var T = 0, k = -1, local = 0, fired = 0, playing = false;
      function turnAt(at) { var i = 0; while (i + 1 < offsets.length && offsets[i + 1] <= at) i++; return i; }
      /* Moment `at` on the board: its turn's events fired up to it (from the turn's
         start when the clock went back), then drawn; the match's end all done. */
      function seek(at) {
        T = Math.max(0, Math.min(at, total));
        bar.value = T; setText(clock, mmss(T) + " of " + mmss(total));
        if (!turns.length) return;
        var i = turnAt(T), was = k, at_ = T >= total ? Infinity : T - offsets[i], events = turns[i].events;
        if (i !== k || at_ < local) { k = i; fired = 0; if (stage.beginTurn) stage.beginTurn(i); }
        local = at_;
        while (fired < events.length && events[fired].t_ms <= local) stage.fire(events[fired++], Infinity);
        var scores = stage.moment(i, local);
        for (var seat in scores || {}) setText($("#money-" + seat), num(scores[seat]));
        if (i !== was) setText(cap, "Turn " + turns[i].number + " of " + turns.length + (turns[i].seat ? " · seat " + turns[i].seat : ""));
      }
      function stop() { playing = false; play.textContent = "Play"; play.setAttribute("aria-pressed", "false"); }
      function toggle() {
        if (playing) { stop(); return; }
        if (T >= total) seek(0);
        playing = true; play.textContent = "Pause"; play.setAttribute("aria-pressed", "true");
        var last = null;
        requestAnimationFrame(function step(now) {
          if (!playing) return;
          if (last !== null) seek(T + (now - last) * speed());
          last = now;
          if (T >= total) { stop(); return; }
          requestAnimationFrame(step);
        });
      }
      bar.max = total; bar.disabled = false; play.disabled = false;
      play.addEventListener("click", toggle);
      keepSpeed(function () { /* read at every frame */ });
      bar.addEventListener("input", function () { seek(+bar.value); });
      // Previous: to the start of the turn shown (past its first half second), else the turn before.
      $("#prev").addEventListener("click", function () { var i = turnAt(T); seek(offsets[T - offsets[i] > 500 ? i : Math.max(0, i - 1)]); });
      $("#next").addEventListener("click", function () { var i = turnAt(T); seek(i + 1 < offsets.length ? offsets[i + 1] : total); });
      $("#prev").disabled = false; $("#next").disabled = false;
      seek(0);
      root.dataset.ready = "1";
    }).catch(function () { setText(cap, "The replay could not fetch the match's record; reload the page to try again."); });
  }

  window.matchPage = {
    init: init,
    replay: replay,
    playing: function () { return !!current; },
    skip: skipAll,
    markSeen: function () { if (page) markSeen(); },
    paused: function () { return !!current && current.paused; },
    skipping: function () { return skipping; },
    ending: function (id) { return (hold && hold.held(id)) || document.getElementById(id); },
    dom: {$: $, el: el, html: html, setText: setText}
  };
})();
