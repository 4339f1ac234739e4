/* Halite's board script: plays each turn's events on the server's SVG, plans moves
   by pointing at the board, and plays a finished match turn by turn.

   The server draws every board (games/play/halite/board.py). This script reads
   only what the drawing promises: the SVG's data-width, data-height, data-cell and
   data-margin, and one element `.hl-piece.seat-S` per owned cell with data-x,
   data-y, data-owner and data-strength. It moves those elements and draws in its
   own layers: the plan (arrows, selection), the paint under the pieces (cells
   changing hands) and the effects over them (hits). A turn's timing is the
   engine's: each event starts at its t_ms and lasts its duration_ms, the turn lasts
   its turn_ms; the speed control only divides them. Once a turn has played, the
   server's board after it replaces the animated one, so what stays on the screen
   is always the server's drawing.

   The match page polls with htmx as Helium 3's board script does (the same poll,
   the same movie fragment), so the two scripts share the page's templates. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  // Direction d: 0 still, 1 north (y - 1), 2 east (x + 1), 3 south (y + 1), 4 west (x - 1).
  var DX = [0, 0, 1, 0, -1], DY = [0, -1, 0, 1, 0];
  var WORD = ["still", "north", "east", "south", "west"];
  var ARROW = ["• Still", "↑ N", "→ E", "↓ S", "← W"];
  var KEYDIR = {ArrowUp: 1, ArrowRight: 2, ArrowDown: 3, ArrowLeft: 4};
  // The words the plain form takes for a direction (games/play/halite/forms.py).
  var WORDS = {still: 0, x: 0, n: 1, north: 1, e: 2, east: 2, s: 3, south: 3, w: 4, west: 4};
  function $(s, r) { return (r || document).querySelector(s); }
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
  function setText(node, text) { if (node && node.textContent !== String(text)) node.textContent = text; }
  function key(x, y) { return x + "," + y; }
  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

  /* ---- The board: geometry and pieces, read from the server's SVG ---- */
  function Board(svg) {
    var d = svg.dataset;
    this.svg = svg; this.w = +d.width; this.h = +d.height; this.c = +d.cell; this.m = +(d.margin || 0);
    this.pieces = {};
    var first = null;
    svg.querySelectorAll(".hl-piece").forEach(function (p) {
      if (!first) first = p;
      this.pieces[key(+p.dataset.x, +p.dataset.y)] = p;
    }, this);
    // The paint goes under the pieces, the plan and the effects over everything.
    this.paint = $("g.hl-paint", svg) || el("g", {"class": "hl-paint", "pointer-events": "none"}, first ? first.parentNode : svg, first);
    this.fx = $("g.hl-fx", svg) || el("g", {"class": "hl-fx", "pointer-events": "none"}, svg);
    this.plan = $("g.hl-plan", svg) || el("g", {"class": "hl-plan", "pointer-events": "none"}, svg);
  }
  Board.prototype.piece = function (x, y) { return this.pieces[key(x, y)] || null; };
  Board.prototype.wrap = function (x, y) { return [((x % this.w) + this.w) % this.w, ((y % this.h) + this.h) % this.h]; };
  Board.prototype.step = function (x, y, d) { return this.wrap(x + DX[d], y + DY[d]); };
  Board.prototype.left = function (x) { return this.m + x * this.c; };
  Board.prototype.top = function (y) { return this.m + y * this.c; };
  /* The point of the viewBox under a pointer event. */
  Board.prototype.point = function (evt) {
    var pt = this.svg.createSVGPoint(); pt.x = evt.clientX; pt.y = evt.clientY;
    var ctm = this.svg.getScreenCTM();
    return ctm ? pt.matrixTransform(ctm.inverse()) : {x: 0, y: 0};
  };
  /* The cell under a point: the wrap margin shows the far side, so it maps there. */
  Board.prototype.cellOf = function (p) {
    return this.wrap(Math.floor((p.x - this.m) / this.c), Math.floor((p.y - this.m) / this.c));
  };
  Board.prototype.owner = function (x, y) { var p = this.piece(x, y); return p ? +p.dataset.owner : 0; };
  /* Cells per seat: a seat's score is the territory it holds. */
  Board.prototype.territory = function () {
    var out = {};
    for (var k in this.pieces) { var s = this.pieces[k].dataset.owner; out[s] = (out[s] || 0) + 1; }
    return out;
  };
  Board.prototype.describe = function (x, y) {
    var p = this.piece(x, y);
    if (!p) return "(" + x + ", " + y + "): nobody's cell.";
    return "(" + x + ", " + y + "): seat " + p.dataset.owner + ", strength " + p.dataset.strength + ".";
  };

  /* ---- Animating one turn from its events ---- */
  /* A piece's place is its drawn transform (the server's) plus an offset in board units. */
  function baseOf(p) {
    if (!p.hlBase) {
      var list = p.transform && p.transform.baseVal, m = list && list.numberOfItems ? list.consolidate().matrix : null;
      p.hlBase = m ? [m.a, m.b, m.c, m.d, m.e, m.f] : [1, 0, 0, 1, 0, 0];
      p.hlOff = [0, 0];
    }
    return p.hlBase;
  }
  function placed(p, ox, oy, extra) {
    var b = baseOf(p);
    return (extra || "") + "matrix(" + b[0] + "," + b[1] + "," + b[2] + "," + b[3] + "," + (b[4] + ox) + "," + (b[5] + oy) + ")";
  }
  function animate(node, frames, ms, easing) {
    if (ms > 0 && node.animate) return node.animate(frames, {duration: ms, easing: easing || "ease-in-out"});
    return null;
  }
  /* What one turn does to the board, event by event: `fire(e)` starts event e's
     effect, lasting its duration at this speed. The turn keeps which element stands
     where (a seat's pieces meet on a cell before they merge or fight), so a movie of
     several turns plays each on the board the one before left. */
  function Stage(board, onCount) {
    this.b = board; this.onCount = onCount || function () {};
    this.at = {};  // "x,y" -> [{el, seat}] pieces standing on the cell now
    for (var k in board.pieces) { var p = board.pieces[k]; this.at[k] = [{el: p, seat: +p.dataset.owner}]; }
    this.count = board.territory();
    this.painted = {};  // "x,y" -> the paint of a cell that changed hands
  }
  Stage.prototype.find = function (c, seat, remove) {
    var list = this.at[key(c[0], c[1])] || [];
    for (var i = 0; i < list.length; i++) if (list[i].seat === seat) { var found = list[i]; if (remove) list.splice(i, 1); return found; }
    return null;
  };
  Stage.prototype.put = function (c, entry) { var k = key(c[0], c[1]); (this.at[k] = this.at[k] || []).push(entry); };
  Stage.prototype.flash = function (c, cls, ms) {
    var b = this.b, r = el("rect", {"class": cls, x: b.left(c[0]), y: b.top(c[1]), width: b.c, height: b.c}, b.fx);
    var a = animate(r, [{opacity: 1}, {opacity: 0}], ms, "ease-out");
    if (a) a.onfinish = function () { r.remove(); }; else r.remove();
  };
  Stage.prototype.paintCell = function (c, owner, ms) {
    var b = this.b, k = key(c[0], c[1]);
    if (this.painted[k]) this.painted[k].remove();
    var r = this.painted[k] = el("rect", {"class": "hl-cap" + (owner ? " seat-" + owner : " neutral"), x: b.left(c[0]), y: b.top(c[1]), width: b.c, height: b.c}, b.paint);
    animate(r, [{opacity: 0}, {opacity: 1}], ms);
  };
  Stage.prototype.fire = function (e, speed) {
    var b = this.b, ms = Math.max(0, (e.duration_ms || 0) / speed), c = b.c, entry, p;
    switch (e.type) {
      case "move": {
        entry = this.find(e.from, e.seat, true);
        if (!entry) break;
        p = entry.el; baseOf(p);
        var ox = p.hlOff[0], oy = p.hlOff[1], dx = DX[e.direction] * c, dy = DY[e.direction] * c;
        var from = placed(p, ox, oy), to = placed(p, ox + dx, oy + dy);
        // The cell it leaves stays its seat's (a piece of strength 0): its territory wash stays.
        var wraps = e.from[0] + DX[e.direction] !== e.to[0] || e.from[1] + DY[e.direction] !== e.to[1];
        var sx = (e.to[0] - e.from[0] - DX[e.direction]) * c, sy = (e.to[1] - e.from[1] - DY[e.direction]) * c;
        if (wraps) {
          // Off one edge and in at the other: a copy leaves while the piece comes in.
          var ghost = p.cloneNode(true); ghost.classList.add("hl-leaving"); b.fx.appendChild(ghost);
          var g = animate(ghost, [{transform: from}, {transform: to}], ms);
          if (g) g.onfinish = function () { ghost.remove(); }; else ghost.remove();
          from = placed(p, ox + sx, oy + sy); to = placed(p, ox + dx + sx, oy + dy + sy);
          p.hlOff = [ox + dx + sx, oy + dy + sy];
        } else p.hlOff = [ox + dx, oy + dy];
        p.style.transform = to;
        animate(p, [{transform: from}, {transform: to}], ms);
        this.put(e.to, entry);
        break;
      }
      case "merge": {
        var list = this.at[key(e.at[0], e.at[1])] || [], keep = null;
        for (var i = list.length - 1; i >= 0; i--) {
          if (list[i].seat !== e.seat) continue;
          if (!keep) { keep = list[i]; continue; }
          var gone = list.splice(i, 1)[0].el;
          gone.style.opacity = 0;
          animate(gone, [{opacity: 1}, {opacity: 0}], ms);
        }
        if (keep) {
          p = keep.el;
          var cx = b.left(e.at[0]) + c / 2, cy = b.top(e.at[1]) + c / 2, rest = placed(p, p.hlOff[0], p.hlOff[1]);
          var grow = "translate(" + cx + "px," + cy + "px) scale(1.35) translate(" + -cx + "px," + -cy + "px) ";
          animate(p, [{transform: rest}, {transform: placed(p, p.hlOff[0], p.hlOff[1], grow)}, {transform: rest}], ms);
          this.flash(e.at, "hl-merge", ms);
        }
        break;
      }
      case "damage":
        this.flash(e.at, "hl-hit", ms);
        break;
      case "destroyed":
        entry = this.find(e.at, e.seat, true);
        if (entry) {
          entry.el.style.opacity = 0;
          animate(entry.el, [{opacity: 1}, {opacity: 0}], ms, "ease-in");
        }
        this.flash(e.at, "hl-boom", ms);
        break;
      case "captured":
        this.paintCell(e.at, e.owner, ms);
        if (e.previous) this.count[e.previous] = (this.count[e.previous] || 0) - 1;
        if (e.owner) this.count[e.owner] = (this.count[e.owner] || 0) + 1;
        this.onCount(this.count);
        break;
    }
  };
  /* Plays turns one after another: `turns` [{events, turn_ms, ...}], `show(k)` when
     turn k begins, `done()` after the last. Speed divides every time. */
  function TurnPlayer(stage, turns, opts) {
    this.stage = stage; this.turns = turns; this.opts = opts; this.k = -1; this.playing = false; this.finished = false;
    this.speed = opts.speed || 1;
  }
  TurnPlayer.prototype.start = function (k) {
    var self = this;
    this.k = k; this.T = 0; this.fired = 0; this.last = null; this.playing = true;
    this.events = (this.turns[k].events || []).slice().sort(function (a, b) { return a.t_ms - b.t_ms; });
    if (this.opts.show) this.opts.show(k);
    requestAnimationFrame(function (now) { self.tick(now); });
  };
  TurnPlayer.prototype.tick = function (now) {
    if (!this.playing) return;
    var self = this, turn = this.turns[this.k];
    if (this.last !== null) this.T += (now - this.last) * this.speed;
    this.last = now;
    while (this.fired < this.events.length && this.events[this.fired].t_ms <= this.T) this.stage.fire(this.events[this.fired++], this.speed);
    if (this.T >= (turn.turn_ms || 0) && this.fired >= this.events.length) {
      if (this.k + 1 < this.turns.length) return this.start(this.k + 1);
      return this.finish();
    }
    requestAnimationFrame(function (t) { self.tick(t); });
  };
  TurnPlayer.prototype.finish = function () {
    if (this.finished) return;
    this.playing = false; this.finished = true;
    if (this.opts.done) this.opts.done();
  };

  /* ---- The planner: directions for the player's own pieces ---- */
  var planner = {on: false, seat: null, plan: {}, sel: {}, cursor: null};
  function ordersForm() { return $("#orders-form"); }
  function movesBox() { var f = ordersForm(); return f ? f.elements.moves : null; }
  function matchBoard() { var svg = $("#board-wrap svg.board"); return svg && svg.dataset.width ? new Board(svg) : null; }
  function own(b, x, y) { return planner.seat !== null && b.owner(x, y) === planner.seat; }
  function keysOf(o) { return Object.keys(o); }
  function parseMoves(text) {
    var out = {};
    (text || "").split(/\r?\n/).forEach(function (line) {
      var f = line.trim().toLowerCase().split(/[\s,;]+/).filter(Boolean);
      if (f.length !== 3 || f[0].charAt(0) === "#") return;
      var d = WORDS[f[2]] !== undefined ? WORDS[f[2]] : /^[0-4]$/.test(f[2]) ? +f[2] : -1;
      if (/^\d+$/.test(f[0]) && /^\d+$/.test(f[1]) && d >= 1) out[key(+f[0], +f[1])] = d;
    });
    return out;
  }
  function writeMoves() {
    var box = movesBox(); if (!box) return;
    box.value = keysOf(planner.plan).map(function (k) { return k.replace(",", " ") + " " + planner.plan[k]; }).join("\n");
  }
  function help(text) { setText($("#hl-help"), text); }
  function summary() {
    var n = keysOf(planner.plan).length, s = keysOf(planner.sel).length;
    var text = n ? plural(n, "move", "moves") + " planned" : "No move planned (every piece stays still)";
    if (s === 1) { var k = keysOf(planner.sel)[0], d = planner.plan[k]; text += " · piece (" + k.replace(",", ", ") + ") chosen" + (d ? ", going " + WORD[d] : ""); }
    else if (s) text += " · " + s + " pieces chosen";
    setText($("#hl-count"), text + ".");
    document.querySelectorAll("#hl-dirs button").forEach(function (btn) { btn.disabled = !s; });
    var clear = $("#hl-clear"); if (clear) clear.disabled = !n && !s;
  }
  /* The plan on the board: an arrow per planned move (a wrapping one runs off its edge
     and comes back in at the other), the chosen pieces outlined, the keyboard's cell. */
  function drawPlan() {
    var b = matchBoard(); if (!b) return;
    var layer = b.plan, c = b.c, shafts = "", heads = "", sel = "";
    layer.textContent = "";
    function arrow(x0, y0, d, len) {
      var dx = DX[d], dy = DY[d], x1 = x0 + dx * len, y1 = y0 + dy * len, hw = c * 0.2, hl = c * 0.28;
      shafts += "M" + x0 + " " + y0 + "L" + (x1 - dx * hl) + " " + (y1 - dy * hl);
      heads += "M" + x1 + " " + y1 + "L" + (x1 - dx * hl - dy * hw) + " " + (y1 - dy * hl + dx * hw) + "L" + (x1 - dx * hl + dy * hw) + " " + (y1 - dy * hl - dx * hw) + "Z";
    }
    for (var k in planner.plan) {
      var xy = k.split(",").map(Number), d = planner.plan[k];
      var cx = b.left(xy[0]) + c / 2, cy = b.top(xy[1]) + c / 2, to = b.step(xy[0], xy[1], d);
      arrow(cx, cy, d, c * 0.92);
      if (to[0] !== xy[0] + DX[d] || to[1] !== xy[1] + DY[d]) {
        // It wraps: the arrow's end comes in at the far edge, onto the cell it reaches.
        arrow(b.left(to[0]) + c / 2 - DX[d] * c * 0.6, b.top(to[1]) + c / 2 - DY[d] * c * 0.6, d, c * 0.6);
      }
    }
    for (var s in planner.sel) { var p = s.split(",").map(Number); sel += "M" + (b.left(p[0]) + 1) + " " + (b.top(p[1]) + 1) + "h" + (c - 2) + "v" + (c - 2) + "h" + (2 - c) + "Z"; }
    if (sel) el("path", {"class": "hl-sel", d: sel}, layer);
    if (shafts) { el("path", {"class": "hl-shaft", d: shafts}, layer); el("path", {"class": "hl-head", d: heads}, layer); }
    var cur = planner.cursor;
    if (cur && planner.keyboard) el("rect", {"class": "hl-cursor", x: b.left(cur[0]) + 0.5, y: b.top(cur[1]) + 0.5, width: c - 1, height: c - 1}, layer);
    summary();
  }
  function select(keys, add) {
    if (!add) planner.sel = {};
    keys.forEach(function (k) { planner.sel[k] = true; });
    drawPlan();
  }
  function direct(d) {
    var keys = keysOf(planner.sel);
    if (!keys.length) { help("Choose a piece first: click one of yours, or drag a box round several."); return; }
    keys.forEach(function (k) { if (d) planner.plan[k] = d; else delete planner.plan[k]; });
    // One piece is let go once told (the next click may be its neighbour, another piece);
    // a group stays chosen, so another direction changes all of it.
    if (keys.length === 1) planner.sel = {};
    writeMoves(); drawPlan();
    var what = keys.length === 1 ? "The piece at (" + keys[0].replace(",", ", ") + ")" : plural(keys.length, "piece", "pieces");
    help(d ? what + (keys.length === 1 ? " goes " + WORD[d] + ". Choose another piece, or send." : " go " + WORD[d] + ". Another direction changes them all; Escape lets go.") : what + (keys.length === 1 ? " stays" : " stay") + " still.");
  }
  function clearSelection() {
    if (!keysOf(planner.sel).length) return false;
    planner.sel = {}; drawPlan(); help("Nothing chosen. Click one of your pieces, or drag a box round several.");
    return true;
  }
  function clearPlan() { planner.plan = {}; planner.sel = {}; writeMoves(); drawPlan(); help("Plan cleared: every piece stays still unless you give it a direction."); }
  function allPieces() {
    var b = matchBoard(); if (!b) return;
    var keys = keysOf(b.pieces).filter(function (k) { return +b.pieces[k].dataset.owner === planner.seat; });
    select(keys, false);
    help(plural(keys.length, "piece", "pieces") + " chosen: an arrow key or a direction sends them all.");
  }
  /* A click on cell c (not a drag). */
  function clickCell(b, c, add) {
    var k = key(c[0], c[1]), chosen = keysOf(planner.sel);
    planner.cursor = c;
    setText($("#cell-info"), b.describe(c[0], c[1]));
    if (!planner.on) return;
    if (chosen.length === 1 && !add) {
      // A neighbour of the one chosen piece (across an edge too): that way it goes.
      var at = chosen[0].split(",").map(Number);
      for (var d = 1; d <= 4; d++) {
        var n = b.step(at[0], at[1], d);
        if (n[0] === c[0] && n[1] === c[1]) return direct(d);
      }
      if (chosen[0] === k) { planner.sel = {}; drawPlan(); help("Let go. Click one of your pieces, or drag a box round several."); return; }
    }
    if (!own(b, c[0], c[1])) { if (!add) clearSelection(); return; }
    if (add && planner.sel[k]) { delete planner.sel[k]; drawPlan(); return; }
    select([k], add);
    help("Piece (" + c[0] + ", " + c[1] + ") chosen, strength " + b.piece(c[0], c[1]).dataset.strength + ": press an arrow key, click a neighbouring cell or a direction below.");
  }
  /* A box dragged from p0 to p1 (viewBox points): every own piece whose cell it touches. */
  function boxSelect(b, p0, p1, add) {
    var x0 = Math.min(p0.x, p1.x), x1 = Math.max(p0.x, p1.x), y0 = Math.min(p0.y, p1.y), y1 = Math.max(p0.y, p1.y), keys = [];
    for (var k in b.pieces) {
      var p = b.pieces[k], x = +p.dataset.x, y = +p.dataset.y;
      if (+p.dataset.owner !== planner.seat) continue;
      var l = b.left(x), t = b.top(y);
      if (l + b.c > x0 && l < x1 && t + b.c > y0 && t < y1) keys.push(k);
    }
    select(keys, add);
    help(keys.length ? plural(keys.length, "piece", "pieces") + " chosen: an arrow key or a direction below sends them all." : "No piece of yours in that box.");
  }
  function buildBar() {
    var bar = $("#planner");
    if (!bar || $("#hl-dirs", bar)) return;
    var dirs = html("div", {id: "hl-dirs", "class": "dirs hl-dirs", role: "toolbar", "aria-label": "Direction for the chosen pieces"});
    [1, 2, 3, 4, 0].forEach(function (d) {
      var btn = html("button", {type: "button", "data-dir": String(d), "class": "hl-dir hl-dir-" + d,
        title: d ? "Go " + WORD[d] + " (arrow key)" : "Stay still (. key)", "aria-label": d ? "Go " + WORD[d] : "Stay still"}, ARROW[d]);
      btn.addEventListener("click", function () { direct(d); });
      dirs.appendChild(btn);
    });
    var tools = html("div", {"class": "plan-tools"});
    var all = html("button", {type: "button", id: "hl-all", title: "A key"}, "All my pieces");
    var clear = html("button", {type: "button", id: "hl-clear"}, "Clear");
    var send = html("button", {type: "submit", form: "orders-form", "class": "send", id: "bar-send"}, "Send");
    all.addEventListener("click", allPieces);
    clear.addEventListener("click", clearPlan);
    tools.append(all, clear, send);
    var row = html("div", {"class": "plan-row"});
    row.append(dirs, tools);
    bar.replaceChildren(
      html("p", {id: "hl-help", "class": "plan-help", "aria-live": "polite"}, "Click one of your pieces or drag a box round several; then an arrow key, a neighbouring cell or a direction. Pieces not given one stay still."),
      row,
      html("p", {id: "hl-count", "class": "hl-count"}));
  }
  function initPlanner() {
    var page = $("#match"), box = movesBox(), svg = $("#board-wrap svg.board"), bar = $("#planner");
    planner.seat = page && page.dataset.viewer ? +page.dataset.viewer : null;
    planner.on = !!(box && svg && planner.seat !== null);
    planner.sel = {};
    planner.plan = planner.on ? parseMoves(box.value) : {};
    if (bar) bar.hidden = !planner.on;
    var f = ordersForm(), own = f && $(".send", f);
    if (own && own !== $("#bar-send")) own.hidden = planner.on;
    if (svg) {
      svg.setAttribute("tabindex", "0");
      svg.setAttribute("aria-describedby", "hl-keys");
      svg.classList.toggle("hl-planning", planner.on);
    }
    if (planner.on) {
      buildBar();
      var b = matchBoard(), mine = b ? keysOf(b.pieces).filter(function (k) { return +b.pieces[k].dataset.owner === planner.seat; }) : [];
      if (!planner.cursor && mine.length) planner.cursor = mine[0].split(",").map(Number);
      if (!box.dataset.hlBound) {
        box.dataset.hlBound = "1";
        box.addEventListener("input", function () { planner.plan = parseMoves(box.value); drawPlan(); help("The moves written below are drawn on the board."); });
      }
      // The textarea holds the plan at every change (and what is typed there is drawn),
      // so whatever sends the form (the bar, the form's own button) sends the plan.
    }
    drawPlan();
  }
  function boardKey(e) {
    var b = matchBoard(); if (!b) return;
    var d = KEYDIR[e.key], k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    planner.keyboard = true;
    if (!planner.cursor) planner.cursor = [0, 0];
    if (d && (e.shiftKey || !planner.on || !keysOf(planner.sel).length)) {
      e.preventDefault();
      planner.cursor = b.step(planner.cursor[0], planner.cursor[1], d);
      setText($("#cell-info"), b.describe(planner.cursor[0], planner.cursor[1]));
      drawPlan();
      return;
    }
    if (!planner.on) return;
    if (d) { e.preventDefault(); direct(d); return; }
    if (k === "Enter" || k === " ") {
      e.preventDefault();
      var c = planner.cursor, ck = key(c[0], c[1]);
      if (!own(b, c[0], c[1])) { help("(" + c[0] + ", " + c[1] + ") is not one of your pieces."); return; }
      if (planner.sel[ck]) { delete planner.sel[ck]; drawPlan(); return; }
      select([ck], true);
      help("Piece (" + c[0] + ", " + c[1] + ") chosen: an arrow key sends it; Shift with an arrow moves the cursor to add another.");
      return;
    }
    if (k === "." || k === "0") { e.preventDefault(); direct(0); return; }
    if (k === "a" && !e.ctrlKey && !e.metaKey) { e.preventDefault(); allPieces(); }
  }
  function initBoardInput() {
    var wrap = $("#board-wrap"), drag = null;
    wrap.addEventListener("pointerdown", function (e) {
      var svg = e.target.closest("svg.board");
      if (!svg || e.button !== 0) return;
      var b = matchBoard();
      drag = {b: b, p0: b.point(e), id: e.pointerId, box: null, x: e.clientX, y: e.clientY, add: e.shiftKey || e.ctrlKey || e.metaKey};
      if (planner.on) { try { svg.setPointerCapture(e.pointerId); } catch (err) { /* not capturable */ } }
    });
    wrap.addEventListener("pointermove", function (e) {
      if (!drag || e.pointerId !== drag.id || !planner.on || current) return;
      if (!drag.box && Math.hypot(e.clientX - drag.x, e.clientY - drag.y) < 8) return;
      var p = drag.b.point(e), p0 = drag.p0;
      if (!drag.box) drag.box = el("rect", {"class": "hl-box"}, drag.b.plan);
      drag.box.setAttribute("x", Math.min(p0.x, p.x)); drag.box.setAttribute("y", Math.min(p0.y, p.y));
      drag.box.setAttribute("width", Math.abs(p.x - p0.x)); drag.box.setAttribute("height", Math.abs(p.y - p0.y));
    });
    function end(e, cancelled) {
      if (!drag || e.pointerId !== drag.id) return;
      var d = drag; drag = null;
      if (cancelled) { if (d.box) d.box.remove(); return; }
      var svg = $("#board-wrap svg.board");
      if (svg && document.activeElement !== svg) svg.focus({preventScroll: true});
      planner.keyboard = false;
      if (current) { skipAll(); return; }
      if (d.box) { d.box.remove(); return boxSelect(d.b, d.p0, d.b.point(e), d.add); }
      clickCell(d.b, d.b.cellOf(d.b.point(e)), d.add);
    }
    wrap.addEventListener("pointerup", function (e) { end(e, false); });
    wrap.addEventListener("pointercancel", function (e) { end(e, true); });
    wrap.addEventListener("keydown", function (e) { if (e.target.closest && e.target.closest("svg.board")) boardKey(e); });
    document.addEventListener("keydown", function (e) {
      if (e.key !== "Escape") return;
      if (current) skipAll(); else if (planner.on) clearSelection();
    });
  }

  /* ---- The match page: polls, movies and the panel following the board ---- */
  var page = $("#match");
  var queue = [], current = null, skipping = false;
  // What a poll brings while the board still plays earlier turns (the panel, the
  // history, the next orders) waits here until the board reaches it.
  var HELD = ["panel", "history", "orders"], held = {}, incoming = false, shown = null;
  function speed() { var s = $("#speed"); return s ? +s.value || 1 : 1; }
  function storeSeen(turn) { try { localStorage.setItem("h3-seen-" + page.dataset.match, String(turn)); } catch (e) { /* private mode */ } }
  function seen() { try { return localStorage.getItem("h3-seen-" + page.dataset.match); } catch (e) { return null; } }
  /* The panel's score per seat while a turn plays: the territory the board shows. */
  function followCount(count) {
    document.querySelectorAll("#panel tr[data-seat]").forEach(function (tr) {
      var cell = $(".money", tr); if (cell) setText(cell, count[tr.dataset.seat] || 0);
    });
  }
  function beginShow() {
    var panel = $("#panel"), hist = $("#history");
    shown = {panel: panel ? panel.cloneNode(true) : null, history: hist ? hist.cloneNode(true) : null};
  }
  /* The panel and history at the start of a turn of the movie: no later turn shown. */
  function followTurn(t, k, left) {
    var st = $("#panel .status");
    if (st) {
      st.replaceChildren("Showing turn ");
      var n = html("strong", {"class": "showing", "data-turn": String(t.number)}, String(t.number));
      st.append(n, left > 1 ? " (" + (k + 1) + " of " + left + " to catch up)." : ".");
    }
    document.querySelectorAll("#panel .results, #panel .winner-mark").forEach(function (e) { e.hidden = true; });
    document.querySelectorAll("#history li.turn").forEach(function (li) { li.hidden = +li.dataset.turn > t.number; });
  }
  function release() {
    var fresh = [];
    HELD.forEach(function (id) {
      var now = document.getElementById(id), next = held[id] || (shown && shown[id]);
      if (now && next) { now.replaceWith(next); fresh.push(next); }
    });
    held = {}; shown = null;
    if (window.htmx) fresh.forEach(function (e) { window.htmx.process(e); });
    news();
  }
  /* The page's seat keys point at Helium 3's robots; here they are the board's shapes. */
  function seatKeys() {
    document.querySelectorAll('svg.key use[href^="#g-s"]').forEach(function (u) {
      var svg = u.closest("svg");
      u.setAttribute("href", u.getAttribute("href").replace("#g-s", "#hl-s"));
      svg.setAttribute("viewBox", "-11 -11 22 22"); svg.classList.add("hl-key");
    });
  }
  function news() {
    seatKeys();
    // The line under the title says how far the match has come, as the panel does.
    var said = $("#progress"), intro = $("#match-progress");
    if (said && intro) setText(intro, said.textContent.trim().toLowerCase());
    initPlanner();
    pollSoon();
    document.querySelectorAll(".replay-turn").forEach(function (b) { b.hidden = false; });
    tick();
  }
  function caption(t) {
    var lines = (t.lines || []).join(" ");
    if (lines.length > 160) lines = lines.slice(0, 157).replace(/\s+\S*$/, "") + "…";
    return "Turn " + t.number + " plays" + (lines ? ": " + lines : ".");
  }
  /* Play a movie fragment (#movie after a poll, or a past turn), then show its end. */
  function playFragment(holder, restore) {
    var tplStart = $("template.mv-start", holder), tplEnd = $("template.mv-end", holder);
    var data = JSON.parse($("script", holder).textContent), turns = data.turns;
    var wrap = $("#board-wrap"), saved = restore ? wrap.firstElementChild : null;
    // Turns this browser has shown already are not played again.
    var from = restore ? null : seen(), k0 = 0;
    if (from !== null) while (k0 < turns.length && turns[k0].number < +from) k0++;
    var endSvg = tplEnd ? tplEnd.content.firstElementChild : saved;
    if (k0 >= turns.length) {
      if (endSvg && !restore && +endSvg.dataset.turn > +(wrap.firstElementChild && wrap.firstElementChild.dataset.turn)) wrap.replaceChildren(endSvg.cloneNode(true));
      drawPlan();
      return next();
    }
    // Some of its turns seen, some not: the board drawn is the one before its first turn,
    // so it plays from there (the turns seen once more) rather than on a board they left.
    k0 = 0;
    wrap.replaceChildren(tplStart.content.firstElementChild.cloneNode(true));
    var b = matchBoard(), following = !restore && !!$("#panel"), cap = $("#caption"), skip = $("#skip");
    if (following && !shown) beginShow();
    var stage = new Stage(b, following ? followCount : null), playing = turns.slice(k0);
    var player = new TurnPlayer(stage, playing, {speed: speed(), show: function (k) {
      var t = playing[k];
      if (cap) { cap.textContent = caption(t); cap.dataset.turn = t.number; }
      if (following) followTurn(t, k, playing.length);
    }, done: function () {
      if (endSvg) wrap.replaceChildren(endSvg === saved ? saved : endSvg.cloneNode(true));
      current = null;
      var svg = $("#board-wrap svg.board");
      if (!restore && svg) storeSeen(svg.dataset.turn);
      if (cap) { cap.textContent = restore ? "Back to the board as it is now." : ""; delete cap.dataset.turn; }
      drawPlan();
      next();
    }});
    $("#player").hidden = false; $("#player").classList.add("playing"); if (skip) skip.disabled = false;
    current = player;
    if (skipping) player.finish(); else player.start(0);
  }
  function next() {
    var fn = queue.shift();
    if (fn) return fn();
    skipping = false;
    var skip = $("#skip"); if (skip) skip.disabled = true;
    $("#player").classList.remove("playing");
    release();
  }
  function enqueue(fn) { if (current) queue.push(fn); else fn(); }
  function skipAll() { if (current) { skipping = true; current.finish(); } }

  /* The player's orders are in and the turn waits for the others: against bots it
     resolves in a moment, so the page looks again soon rather than at the next
     regular poll (each look is a 304 while nothing changed). */
  function pollSoon() {
    var poll = $("#poll"), url = poll && poll.getAttribute("hx-get");
    if (!url || !window.htmx || !page.dataset.viewer || movesBox()) return;
    [300, 900, 1800].forEach(function (ms) {
      setTimeout(function () {
        var now = $("#poll");
        if (now && now.getAttribute("hx-get") === url && !current) window.htmx.ajax("GET", url, {target: "#poll", swap: "outerHTML"});
      }, ms);
    });
  }
  function initMatchPage() {
    var skip = $("#skip");
    if (skip) skip.addEventListener("click", skipAll);
    keepSpeed(function () { if (current) current.speed = speed(); });
    $("#player").hidden = false;
    var keys = html("p", {id: "hl-keys", "class": "vh"}, "Arrow keys move the cell cursor; Enter chooses your piece there; with pieces chosen the arrows give their direction, Shift with an arrow moves the cursor, the full stop keeps them still, A chooses all your pieces, Escape lets go.");
    $("#board-wrap").after(keys);
    initBoardInput();
    document.addEventListener("click", function (e) {
      var btn = e.target.closest(".replay-turn"); if (!btn) return;
      var url = $("#history").dataset.movie.replace(/\/0\/movie\/$/, "/" + btn.dataset.turn + "/movie/");
      fetch(url, {credentials: "same-origin"}).then(function (r) { return r.text(); }).then(function (text) {
        var holder = document.createElement("div"); holder.innerHTML = text;
        enqueue(function () { playFragment(holder.firstElementChild, true); });
      });
    });
    document.querySelectorAll(".replay-turn").forEach(function (b) { b.hidden = false; });
    seatKeys();
    initPlanner();
    pollSoon();
    var svg = $("#board-wrap svg.board"), last = seen();
    if (svg && last !== null && +last < +svg.dataset.turn && window.htmx && page.dataset.pollUrl) {
      // Turns were played since this browser last looked: ask for them and play them once.
      window.htmx.ajax("GET", page.dataset.pollUrl + "?v=stale&since=" + (+last), {target: "#poll", swap: "outerHTML"});
    } else if (svg) storeSeen(svg.dataset.turn);
  }
  if (window.htmx) {
    // A 304 from the poll means nothing changed: keep the page as it is.
    window.htmx.config.responseHandling = [{code: "304", swap: false}, {code: "204", swap: false}, {code: "[23]..", swap: true}, {code: "[45]..", swap: false, error: true}];
  }
  document.addEventListener("htmx:afterSettle", function () {
    if (!page) return;
    var movie = $("#movie");
    if (movie && $("template.mv-start", movie)) {
      var holder = movie.cloneNode(true); movie.replaceChildren();
      enqueue(function () { playFragment(holder, false); });
    }
    incoming = false;
    if (!current && !queue.length) news();
  });
  document.addEventListener("htmx:beforeSwap", function (e) {
    var text = e.detail && e.detail.serverResponse;
    incoming = typeof text === "string" && text.indexOf('class="mv-start"') >= 0;
  });
  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    var id = e.detail.target && e.detail.target.id;
    if (!page || HELD.indexOf(id) < 0 || !(incoming || current || queue.length)) return;
    e.detail.shouldSwap = false;
    held[id] = e.detail.fragment.firstElementChild;
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    if (e.detail && e.detail.target && e.detail.target.id === "history") document.querySelectorAll(".replay-turn").forEach(function (b) { b.hidden = false; });
    // A board swapped in by a poll (no movie) keeps the plan drawn on it.
    if (e.detail && e.detail.target && e.detail.target.id === "board-wrap") drawPlan();
  });

  /* Deadline countdowns tick every second (and at once when a poll brings a new one). */
  function tick() {
    document.querySelectorAll("time.countdown").forEach(function (t) {
      var left = Date.parse(t.getAttribute("datetime")) - Date.now();
      var s = Math.max(0, Math.round(left / 1000)), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
      t.textContent = "in " + (h ? h + " h " : "") + m + " min " + ("0" + (s % 60)).slice(-2) + " s";
    });
  }
  tick();
  setInterval(tick, 1000);

  /* The speed chosen on one page is the speed of every page (match and replay). */
  function keepSpeed(changed) {
    var sp = $("#speed"); if (!sp) return;
    try { var kept = localStorage.getItem("h3-speed"); if (kept && sp.querySelector('option[value="' + kept + '"]')) sp.value = kept; } catch (e) { /* private mode */ }
    sp.addEventListener("change", function () {
      changed();
      try { localStorage.setItem("h3-speed", sp.value); } catch (e) { /* private mode */ }
    });
  }

  /* ---- The replay page: the match turn by turn, each turn's board the server's ---- */
  /* Board k is the board after k turns: 0 the start, N the end; between, the board
     before turn k, which the turn's movie fragment carries with turn k's events. */
  function initReplay(root) {
    var N = +root.dataset.turns, bar = $("#scrub"), play = $("#play"), cap = $("#caption"), out = $("#scrub-turn");
    var wrap = $("#board-wrap"), boards = {}, events = {}, asked = {}, want = N, player = null, shownK = N;
    boards[0] = $("#replay-start").content.firstElementChild;
    boards[N] = wrap.firstElementChild;
    function movieUrl(k) { return root.dataset.movie.replace(/\/0\/movie\/$/, "/" + k + "/movie/"); }
    /* Fetch turn k's fragment (the board before it and its events), once. */
    function load(k) {
      if (k < 0 || k >= N) return Promise.resolve();
      if (!asked[k]) {
        asked[k] = fetch(movieUrl(k), {credentials: "same-origin"}).then(function (r) {
          if (!r.ok) throw new Error("turn " + k + ": " + r.status);
          return r.text();
        }).then(function (text) {
          var holder = document.createElement("div"); holder.innerHTML = text;
          var start = $("template.mv-start", holder), data = JSON.parse($("script", holder).textContent);
          if (k > 0) boards[k] = start.content.firstElementChild;
          events[k] = data.turns[0];
        }).catch(function (err) { delete asked[k]; throw err; });
      }
      return asked[k];
    }
    function scores(b) {
      var count = b.territory();
      root.querySelectorAll("tr[data-seat]").forEach(function (tr) { setText($(".score", tr), count[tr.dataset.seat] || 0); });
    }
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
        wrap.replaceChildren(boards[k].cloneNode(true));
        shownK = k;
        setText(cap, k === 0 ? "The start, before turn 0." : k === N ? "The end of the match, after turn " + (N - 1) + "." : "The board after turn " + (k - 1) + ".");
        scores(new Board($("svg.board", wrap)));
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
        var b = new Board($("svg.board", wrap)), t = events[k];
        var stage = new Stage(b, function (count) {
          root.querySelectorAll("tr[data-seat]").forEach(function (tr) { setText($(".score", tr), count[tr.dataset.seat] || 0); });
        });
        var turn = new TurnPlayer(stage, [t], {speed: +$("#speed").value || 1, show: function () {
          setText(cap, caption({number: t.number, lines: t.lines}));
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
    keepSpeed(function () { if (player && player.turn) player.turn.speed = +$("#speed").value || 1; });
    root.addEventListener("keydown", function (e) {
      if (e.key === " " && !e.target.closest("button, select")) { e.preventDefault(); toggle(); }
    });
    [bar, play, $("#prev"), $("#next")].forEach(function (c) { c.disabled = N === 0 && c !== bar; });
    bar.disabled = false;
    label(N); scores(new Board($("svg.board", wrap)));
    root.dataset.ready = "1";
  }

  if (page && $("#board-wrap svg.board")) {
    initMatchPage();
    // The plan as the board holds it ({"x,y": direction}) and the pieces chosen: for
    // the browser tests and the console.
    window.halitePlan = function () { return {plan: JSON.parse(JSON.stringify(planner.plan)), chosen: keysOf(planner.sel), playing: !!current}; };
  }
  var replay = $("#replay-turns");
  if (replay) initReplay(replay);
})();
