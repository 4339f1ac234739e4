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

   The match page's poll and movies and the replay page's scrubber are the
   platform's (games/page.js, loaded before this script): this script gives it its
   hooks, the stage a turn plays on, the planner to draw again, the scores. */
(function () {
  "use strict";
  // The platform's part of the page (games/page.js): polls, movies, the replay.
  var mp = window.matchPage;
  // Direction d: 0 still, 1 north (y - 1), 2 east (x + 1), 3 south (y + 1), 4 west (x - 1).
  var DX = [0, 0, 1, 0, -1], DY = [0, -1, 0, 1, 0];
  var WORD = ["still", "north", "east", "south", "west"];
  // The seats' colour names (games/play/halite/board.py's SEAT_NAMES).
  var SEAT_NAMES = {1: "blue", 2: "orange", 3: "green", 4: "pink", 5: "red", 6: "yellow"};
  var ARROW = ["• Still", "↑ N", "→ E", "↓ S", "← W"];
  var KEYDIR = {ArrowUp: 1, ArrowRight: 2, ArrowDown: 3, ArrowLeft: 4};
  // The words the plain form takes for a direction (games/play/halite/forms.py).
  var WORDS = {still: 0, x: 0, n: 1, north: 1, e: 2, east: 2, s: 3, south: 3, w: 4, west: 4};
  var $ = mp.dom.$, el = mp.dom.el, html = mp.dom.html, setText = mp.dom.setText;
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
  /* A cell's production and strength, from the hex digits the server wrote (board.py). */
  Board.prototype.numbers = function (x, y) {
    var d = this.svg.dataset, i = y * this.w + x;
    return {prod: d.prod ? parseInt(d.prod.charAt(i), 16) : null, str: d.str ? parseInt(d.str.substr(2 * i, 2), 16) : null};
  };
  Board.prototype.describe = function (x, y) {
    var p = this.piece(x, y), n = this.numbers(x, y), seat = p ? +p.dataset.owner : 0;
    var who = seat ? "seat " + seat + " (" + (SEAT_NAMES[seat] || "") + ")" : "neutral";
    var str = p ? +p.dataset.strength : n.str;
    return "(" + x + ", " + y + "): " + who + ", strength " + (str === null ? "?" : str) + ", production " + (n.prod === null ? "?" : n.prod) + ".";
  };

  /* ---- Animating one turn from its events ---- */
  // The seats' colours and the pieces' outline (games/play/halite/board.py's SEAT_COLOURS
  // and _STYLE), for the pieces a turn draws on its canvas.
  var SEAT_COLOURS = {1: "#2e8fd6", 2: "#e69f00", 3: "#00a67a", 4: "#d884b4", 5: "#f0603a", 6: "#f0e442"};
  var OUTLINE = "#0b0d11";
  // The effects (board.css's .hl-hit, .hl-merge, .hl-boom) and the paint of a cell
  // changing hands (.hl-cap): [fill, stroke or null].
  var FX = {"hl-hit": ["rgba(255,59,59,.45)", "#ff3b3b"], "hl-merge": ["rgba(255,255,255,.35)", "#fff"], "hl-boom": ["rgba(255,154,74,.75)", null]};
  function easeInOut(t) { return t < 0.5 ? 2 * t * t : 1 - 2 * (1 - t) * (1 - t); }
  function easeOut(t) { return 1 - (1 - t) * (1 - t); }
  function easeIn(t) { return t * t; }
  /* Progress 0..1 of something that started at `t0` and lasts `ms`, eased. */
  function progress(now, t0, ms, ease) { return ms > 0 ? ease(Math.min(1, Math.max(0, (now - t0) / ms))) : 1; }
  /* The shapes of the server's drawing (#hpS-B, drawn in a cell's square) as Path2D. */
  function shapesOf(svg) {
    if (!svg.hlShapes) {
      svg.hlShapes = {};
      svg.querySelectorAll("defs path[id^='hp']").forEach(function (p) { svg.hlShapes[p.id] = new Path2D(p.getAttribute("d")); });
    }
    return svg.hlShapes;
  }
  /* What one turn does to the board, event by event: `fire(e)` starts event e's
     effect, lasting its duration at this speed. The turn keeps which piece stands
     where (a seat's pieces meet on a cell before they merge or fight), so a movie of
     several turns plays each on the board the one before left.

     The turn plays on two canvases over the board, not on the board's SVG: as the
     stage is made (before the turn's first frame) the board's pieces are hidden (the
     opacity of their group: one element restyled, where their visibility restyled each
     piece) and drawn once on the lower canvas, and the pieces the turn moves, the
     paint of the cells changing hands and the effects are drawn on the upper one at
     each frame while something moves. A frame then costs a few canvas fills, however
     big the board: no element is restyled, laid out or repainted while the turn
     plays. The server's board after the turn is put into the board (putBoard) and
     its canvases go. */
  function Stage(board, onCount) {
    this.b = board; this.onCount = onCount || function () {};
    this.at = {};  // "x,y" -> [{el, seat, shape, ...}] pieces standing on the cell now
    for (var k in board.pieces) {
      var p = board.pieces[k], x = +p.dataset.x, y = +p.dataset.y;
      this.at[k] = [{el: p, seat: +p.dataset.owner, shape: (p.getAttribute("href") || "").slice(1), x: x, y: y}];
    }
    this.count = board.territory();
    this.painted = {};  // "x,y" -> the paint of a cell that changed hands
    this.moving = [];   // the pieces the turn has touched, drawn on the upper canvas
    this.flashes = [];
    this.asked = false;
    // The canvases and the still pieces at once, as the turn is put on the board (its
    // layout is read here, and the pieces drawn): the turn's first frame only moves
    // what its first events move.
    this.layer();
    this.drawStill();
  }
  /* The two canvases exactly over the board's box (the board may sit in a scrolled,
     zoomed wrap), in device pixels; the board's pieces hidden under them. */
  Stage.prototype.layer = function () {
    if (this.top) return this.top;
    var svg = this.b.svg, wrap = svg.parentNode, a = svg.getBoundingClientRect(), w = wrap.getBoundingClientRect();
    var vb = svg.viewBox.baseVal, dpr = window.devicePixelRatio || 1;
    var left = (a.left - w.left - wrap.clientLeft + wrap.scrollLeft) + "px", top = (a.top - w.top - wrap.clientTop + wrap.scrollTop) + "px";
    function canvas(cls) {
      var c = html("canvas", {"class": "hl-overlay " + cls, "aria-hidden": "true"});
      c.width = Math.max(1, Math.round(a.width * dpr)); c.height = Math.max(1, Math.round(a.height * dpr));
      var st = c.style; st.left = left; st.top = top; st.width = a.width + "px"; st.height = a.height + "px";
      var ctx = c.getContext("2d");
      ctx.setTransform(c.width / vb.width, 0, 0, c.height / vb.height, -vb.x * c.width / vb.width, -vb.y * c.height / vb.height);
      return ctx;
    }
    this.under = canvas("hl-still");
    this.top = canvas("hl-moving");
    wrap.insertBefore(this.under.canvas, svg.nextSibling);
    wrap.insertBefore(this.top.canvas, this.under.canvas.nextSibling);
    this.unit = vb.width / a.width;  // a CSS pixel in board units (the effects' outlines)
    this.shapes = shapesOf(svg);
    var group = $("g.hl-pieces", svg);
    if (group) group.setAttribute("opacity", "0");
    this.stillDrawn = false;
    return this.top;
  };
  /* One piece, its shape of its strength at board point (x, y), scaled about its centre. */
  Stage.prototype.drawPiece = function (ctx, entry, x, y, alpha, scale) {
    var path = this.shapes[entry.shape]; if (!path || alpha <= 0) return;
    var c = this.b.c, zero = /-0$/.test(entry.shape), colour = SEAT_COLOURS[entry.seat] || "#ccc";
    ctx.save();
    ctx.translate(x, y);
    if (scale !== 1) { ctx.translate(c / 2, c / 2); ctx.scale(scale, scale); ctx.translate(-c / 2, -c / 2); }
    ctx.globalAlpha = alpha * (zero ? 0.25 : 1);
    ctx.fillStyle = colour; ctx.fill(path);
    ctx.globalAlpha = alpha;
    ctx.lineWidth = zero ? 1.4 : 1; ctx.strokeStyle = zero ? colour : OUTLINE; ctx.stroke(path);
    ctx.restore();
  };
  /* The lower canvas: every piece the turn has not touched, drawn once. */
  Stage.prototype.drawStill = function () {
    var ctx = this.under, b = this.b;
    for (var k in this.at) {
      this.at[k].forEach(function (entry) { if (!entry.lifted) this.drawPiece(ctx, entry, b.left(entry.x), b.top(entry.y), 1, 1); }, this);
    }
    this.stillDrawn = true;
  };
  /* A piece the turn touches goes from the lower canvas to the upper one. */
  Stage.prototype.lift = function (entry) {
    this.layer();
    if (entry.lifted) return entry;
    entry.lifted = true; entry.dx = 0; entry.dy = 0; entry.tweens = [];
    this.moving.push(entry);
    if (this.stillDrawn) {
      var b = this.b;
      this.under.clearRect(b.left(entry.x), b.top(entry.y), b.c, b.c);
    }
    return entry;
  };
  /* Draw now (after the events of this frame), and at every frame while something moves. */
  Stage.prototype.ask = function () {
    if (this.asked) return;
    this.asked = true;
    var self = this;
    Promise.resolve().then(function () { self.frame(); });
  };
  Stage.prototype.frame = function () {
    this.asked = false;
    if (!this.top || !this.top.canvas.isConnected) return;  // the server's board replaced it
    if (!this.stillDrawn) this.drawStill();
    var now = performance.now(), ctx = this.top, b = this.b, c = b.c, busy = false, self = this;
    var canvas = ctx.canvas;
    ctx.save(); ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.clearRect(0, 0, canvas.width, canvas.height); ctx.restore();
    for (var k in this.painted) {
      var pc = this.painted[k], a = progress(now, pc.t0, pc.ms, easeInOut);
      if (a < 1) busy = true;
      ctx.globalAlpha = a * (pc.owner ? 0.3 : 0.7);
      ctx.fillStyle = pc.owner ? SEAT_COLOURS[pc.owner] || "#ccc" : "#11141a";
      ctx.fillRect(b.left(pc.x), b.top(pc.y), c, c);
    }
    ctx.globalAlpha = 1;
    this.moving.forEach(function (entry) {
      var x = b.left(entry.x) + entry.dx, y = b.top(entry.y) + entry.dy, alpha = 1, scale = 1;
      entry.tweens.forEach(function (t) {
        var p = progress(now, t.t0, t.ms, t.ease);
        if (p < 1) busy = true;
        if (t.kind === "move") { x += t.dx * (p - 1); y += t.dy * (p - 1); if (t.copy && p < 1) self.drawPiece(ctx, entry, x - t.copy[0], y - t.copy[1], 1, 1); }
        else if (t.kind === "fade") alpha *= 1 - p;
        else if (t.kind === "grow") scale *= 1 + 0.35 * (p < 0.5 ? p * 2 : 2 - p * 2);
      });
      self.drawPiece(ctx, entry, x, y, alpha, scale);
    });
    this.flashes = this.flashes.filter(function (f) {
      var p = progress(now, f.t0, f.ms, easeOut);
      if (p >= 1) return false;
      busy = true;
      var style = FX[f.cls], x = b.left(f.x), y = b.top(f.y);
      ctx.globalAlpha = 1 - p;
      ctx.fillStyle = style[0]; ctx.fillRect(x, y, c, c);
      if (style[1]) { ctx.strokeStyle = style[1]; ctx.lineWidth = 2 * self.unit; ctx.strokeRect(x, y, c, c); }
      return true;
    });
    ctx.globalAlpha = 1;
    // How many pieces the turn moves, for whoever watches the page (the browser tests).
    if (canvas.dataset.moving !== String(this.moving.length)) canvas.dataset.moving = String(this.moving.length);
    if (busy && !this.looping) {
      this.looping = true;
      requestAnimationFrame(function () { self.looping = false; self.frame(); });
    }
  };
  Stage.prototype.find = function (c, seat, remove) {
    var list = this.at[key(c[0], c[1])] || [];
    for (var i = 0; i < list.length; i++) if (list[i].seat === seat) { var found = list[i]; if (remove) list.splice(i, 1); return found; }
    return null;
  };
  Stage.prototype.put = function (c, entry) { var k = key(c[0], c[1]); (this.at[k] = this.at[k] || []).push(entry); };
  Stage.prototype.flash = function (c, cls, ms) {
    this.layer();
    if (ms > 0) this.flashes.push({x: c[0], y: c[1], cls: cls, t0: performance.now(), ms: ms});
    this.ask();
  };
  Stage.prototype.paintCell = function (c, owner, ms) {
    this.layer();
    this.painted[key(c[0], c[1])] = {x: c[0], y: c[1], owner: owner, t0: performance.now(), ms: ms};
    this.ask();
  };
  Stage.prototype.fire = function (e, speed) {
    var b = this.b, ms = Math.max(0, (e.duration_ms || 0) / speed), c = b.c, entry, now = performance.now();
    switch (e.type) {
      case "move": {
        entry = this.find(e.from, e.seat, true);
        if (!entry) break;
        this.lift(entry);
        var dx = DX[e.direction] * c, dy = DY[e.direction] * c;
        // Off one edge and in at the other: the piece comes in from beyond the edge it
        // enters by, while a copy of it leaves by the edge it left.
        var sx = (e.to[0] - e.from[0] - DX[e.direction]) * c, sy = (e.to[1] - e.from[1] - DY[e.direction]) * c;
        entry.dx += dx + sx; entry.dy += dy + sy;
        entry.tweens.push({kind: "move", dx: dx, dy: dy, t0: now, ms: ms, ease: easeInOut, copy: sx || sy ? [sx, sy] : null});
        this.put(e.to, entry);
        break;
      }
      case "merge": {
        var list = this.at[key(e.at[0], e.at[1])] || [], keep = null;
        for (var i = list.length - 1; i >= 0; i--) {
          if (list[i].seat !== e.seat) continue;
          if (!keep) { keep = list[i]; continue; }
          this.lift(list.splice(i, 1)[0]).tweens.push({kind: "fade", t0: now, ms: ms, ease: easeInOut});
        }
        if (keep) {
          this.lift(keep).tweens.push({kind: "grow", t0: now, ms: ms, ease: easeInOut});
          this.flash(e.at, "hl-merge", ms);
        }
        break;
      }
      case "damage":
        this.flash(e.at, "hl-hit", ms);
        break;
      case "destroyed":
        entry = this.find(e.at, e.seat, true);
        if (entry) this.lift(entry).tweens.push({kind: "fade", t0: now, ms: ms, ease: easeIn});
        this.flash(e.at, "hl-boom", ms);
        break;
      case "captured":
        this.paintCell(e.at, e.owner, ms);
        if (e.previous) this.count[e.previous] = (this.count[e.previous] || 0) - 1;
        if (e.owner) this.count[e.owner] = (this.count[e.owner] || 0) + 1;
        this.onCount(this.count);
        break;
    }
    this.ask();
  };
  /* ---- The server's next board, put into the one shown ---- */
  /* The board shown becomes the server's `next` in place (page.js's putBoard hook):
     its attributes, texts and paths, its pieces and the ghosts across the edges matched
     by cell. Put in anew, a 50 x 50 board's thousand elements are all restyled and laid
     out at a turn's first and last frames; changed in place, only the pieces the turn
     changed are. What this script added (the turn's canvases, the plan, the paint, the
     pointer's cell) goes, as it would with the board. */
  function sameKind(a, b) {
    if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) return false;
    return a.nodeType !== 1 || a.getAttribute("class") === b.getAttribute("class");
  }
  function syncAttrs(a, b) {
    var i, at, aa = a.attributes, ba = b.attributes, n = ba.length;
    // Most are the same, in the same order: seen at once.
    if (aa.length === n) {
      for (i = 0; i < n && aa[i].name === ba[i].name && aa[i].value === ba[i].value; i++);
      if (i === n) return;
    }
    for (i = a.attributes.length - 1; i >= 0; i--) {
      at = a.attributes[i];
      if (!b.hasAttributeNS(at.namespaceURI, at.localName)) a.removeAttributeNS(at.namespaceURI, at.localName);
    }
    for (i = 0; i < b.attributes.length; i++) {
      at = b.attributes[i];
      if (a.getAttributeNS(at.namespaceURI, at.localName) !== at.value) a.setAttributeNS(at.namespaceURI, at.name, at.value);
    }
  }
  function cellKey(e) { return e.getAttribute("x") + "," + e.getAttribute("y"); }
  /* A group of <use> (the pieces, the ghosts), matched by where they stand, in the
     server's order: those in both walked side by side, what is gone taken out, what
     is new put in at its place (a piece moved in the order is moved). */
  function isUse(e) { return e.nodeType === 1 && e.localName === "use"; }
  function morphUses(a, b) {
    var at = a.firstChild, c, k, found, wanted = null, left = null, gone;
    for (c = b.firstElementChild; c; c = c.nextElementSibling) {
      k = cellKey(c);
      while (at && (!isUse(at) || (cellKey(at) !== k && !(wanted || (wanted = keysIn(b)))[cellKey(at)]))) {
        gone = at; at = at.nextSibling; a.removeChild(gone);
      }
      if (at && cellKey(at) === k) { if (!at.isEqualNode(c)) syncAttrs(at, c); at = at.nextSibling; continue; }
      if (!left) left = keysIn(a, at);
      found = left[k];
      if (found) { a.insertBefore(found, at); syncAttrs(found, c); } else a.insertBefore(c.cloneNode(true), at);
    }
    while (at) { gone = at; at = at.nextSibling; a.removeChild(gone); }
  }
  /* The <use> of `parent` from `from` on, by cell. */
  function keysIn(parent, from) {
    var out = {};
    for (var e = from === undefined ? parent.firstChild : from; e; e = e.nextSibling) if (isUse(e)) out[cellKey(e)] = e;
    return out;
  }
  function morph(a, b) {
    syncAttrs(a, b);
    var first = b.firstElementChild;
    if (first && first.localName === "use") return morphUses(a, b);
    var at = a.firstChild, c, found;
    for (c = b.firstChild; c; c = c.nextSibling) {
      for (found = at; found && !sameKind(found, c); ) found = found.nextSibling;
      if (!found) { a.insertBefore(c.cloneNode(true), at); continue; }
      while (at !== found) { var gone = at; at = at.nextSibling; a.removeChild(gone); }
      // (isEqualNode: the browser's own deep compare, quick where nothing changed.)
      if (c.nodeType === 1) { if (!found.isEqualNode(c)) morph(found, c); } else if (found.nodeValue !== c.nodeValue) found.nodeValue = c.nodeValue;
      at = found.nextSibling;
    }
    while (at) { var rest = at; at = at.nextSibling; a.removeChild(rest); }
  }
  function putBoard(now, next) {
    var d = now.dataset, n = next.dataset;
    if (!now.classList.contains("halite-board") || !n.width || d.width !== n.width || d.height !== n.height) return false;
    var wrap = now.parentNode;
    if (wrap) wrap.querySelectorAll("canvas.hl-overlay").forEach(function (c) { c.remove(); });
    morph(now, next);
    return true;
  }

  /* ---- The planner: directions for the player's own pieces ---- */
  var planner = {on: false, seat: null, plan: {}, sel: {}, cursor: null};
  function ordersForm() { return $("#orders-form"); }
  function movesBox() { var f = ordersForm(); return f ? f.elements.moves : null; }
  function matchBoard() { var svg = $("#board-wrap svg.board"); return svg && svg.dataset.width ? new Board(svg) : null; }
  /* The board under a pointer that moves, read once per drawing of it (its turn). */
  function boardOf(svg) {
    if (!svg || !svg.dataset.width) return null;
    if (!svg.hlBoard || svg.hlBoardTurn !== svg.dataset.turn) { svg.hlBoard = new Board(svg); svg.hlBoardTurn = svg.dataset.turn; }
    return svg.hlBoard;
  }
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
    var b = matchBoard(), merges = b ? keysOf(planner.plan).filter(function (k) { return mergesOf(b, [k], planner.plan[k]).length; }).length : 0;
    if (merges) text += " (" + plural(merges, "merge", "merges") + " onto your own pieces)";
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
  /* The own pieces these moves would step onto: a merge (the two add up, over 255 lost). */
  function mergesOf(b, keys, d) {
    if (!b || !d) return [];
    return keys.filter(function (k) { var xy = k.split(",").map(Number), to = b.step(xy[0], xy[1], d); return own(b, to[0], to[1]); });
  }
  function direct(d) {
    var keys = keysOf(planner.sel), b = matchBoard();
    if (!keys.length) { help("Choose a piece first: click one of yours, or drag a box round several."); return; }
    keys.forEach(function (k) { if (d) planner.plan[k] = d; else delete planner.plan[k]; });
    // One piece is let go once told (the next click may be its neighbour, another piece);
    // a group stays chosen, so another direction changes all of it.
    if (keys.length === 1) planner.sel = {};
    writeMoves(); drawPlan();
    var merging = mergesOf(b, keys, d), what = keys.length === 1 ? "The piece at (" + keys[0].replace(",", ", ") + ")" : plural(keys.length, "piece", "pieces");
    var text;
    if (!d) text = what + (keys.length === 1 ? " stays" : " stay") + " still.";
    else if (keys.length === 1 && merging.length) {
      var xy = keys[0].split(",").map(Number), to = b.step(xy[0], xy[1], d);
      text = what + " goes " + WORD[d] + " onto your piece at (" + to[0] + ", " + to[1] + "): they merge, and strength over 255 is lost. Choose another piece, or send.";
    } else if (keys.length === 1) text = what + " goes " + WORD[d] + ". Choose another piece, or send.";
    else text = what + " go " + WORD[d] + (merging.length ? " (" + plural(merging.length, "of them merges", "of them merge") + " onto your own pieces)" : "") + ". Another direction changes them all; Escape lets go.";
    help(text);
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
  /* A click on cell c (not a drag). A neighbour of the one piece chosen gives it that
     direction, unless the neighbour is another piece of the player's: that click
     chooses that piece, and only Alt with the click (or an arrow key, or a direction
     button) sends the chosen piece onto it, a merge. */
  function clickCell(b, c, add, merge) {
    var k = key(c[0], c[1]), chosen = keysOf(planner.sel);
    planner.cursor = c;
    setText($("#cell-info"), b.describe(c[0], c[1]));
    if (!planner.on) return;
    if (chosen.length === 1 && !add) {
      // A neighbour of the one chosen piece (across an edge too): that way it goes.
      var at = chosen[0].split(",").map(Number);
      for (var d = 1; d <= 4; d++) {
        var n = b.step(at[0], at[1], d);
        if (n[0] === c[0] && n[1] === c[1] && (merge || !own(b, c[0], c[1]))) return direct(d);
      }
      if (chosen[0] === k) { planner.sel = {}; drawPlan(); help("Let go. Click one of your pieces, or drag a box round several."); return; }
    }
    if (!own(b, c[0], c[1])) { if (!add) clearSelection(); return; }
    if (add && planner.sel[k]) { delete planner.sel[k]; drawPlan(); return; }
    var next = false;
    if (chosen.length === 1 && !add) {
      var was = chosen[0].split(",").map(Number);
      for (var dd = 1; dd <= 4; dd++) { var nb = b.step(was[0], was[1], dd); if (nb[0] === c[0] && nb[1] === c[1]) next = true; }
    }
    select([k], add);
    help("Piece (" + c[0] + ", " + c[1] + ") chosen, strength " + b.piece(c[0], c[1]).dataset.strength + ": press an arrow key, click a neighbouring cell or a direction below." +
      (next ? " To merge the piece you had chosen onto this one, Alt-click this one or choose that piece and use an arrow key or a direction." : ""));
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
        title: d ? "Go " + WORD[d] + " (arrow key)" : "Stay still (. key)", "aria-label": d ? ARROW[d].slice(2) + ": go " + WORD[d] : "Stay still"}, ARROW[d]);
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
    // A page drawn again for the same turn (a poll's answer) keeps the pieces chosen that
    // are still the player's; a new turn starts with none.
    var turn = svg ? svg.dataset.turn : null, kept = {};
    if (planner.on && turn === planner.turn) {
      var b0 = new Board(svg);
      keysOf(planner.sel).forEach(function (k) { var xy = k.split(",").map(Number); if (own(b0, xy[0], xy[1])) kept[k] = true; });
    }
    planner.turn = turn;
    planner.sel = kept;
    planner.plan = planner.on ? parseMoves(box.value) : {};
    if (bar) bar.hidden = !planner.on;
    // (Not `own`: that name is the function this one calls above.)
    var f = ordersForm(), formSend = f && $(".send", f);
    if (formSend && formSend !== $("#bar-send")) formSend.hidden = planner.on;
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
      drag = {b: b, p0: b.point(e), id: e.pointerId, box: null, x: e.clientX, y: e.clientY, add: e.shiftKey || e.ctrlKey || e.metaKey, merge: e.altKey};
      if (planner.on) { try { svg.setPointerCapture(e.pointerId); } catch (err) { /* not capturable */ } }
    });
    wrap.addEventListener("pointermove", function (e) {
      if (!drag || e.pointerId !== drag.id || !planner.on || mp.playing()) return;
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
      if (mp.playing()) { mp.skip(); return; }
      if (d.box) { d.box.remove(); return boxSelect(d.b, d.p0, d.b.point(e), d.add); }
      clickCell(d.b, d.b.cellOf(d.b.point(e)), d.add, d.merge);
    }
    wrap.addEventListener("pointerup", function (e) { end(e, false); });
    wrap.addEventListener("pointercancel", function (e) { end(e, true); });
    wrap.addEventListener("keydown", function (e) { if (e.target.closest && e.target.closest("svg.board")) boardKey(e); });
    document.addEventListener("keydown", function (e) {
      if (e.key !== "Escape") return;
      if (mp.playing()) mp.skip(); else if (planner.on) clearSelection();
    });
  }

  /* ---- The cell under the pointer: its owner, strength and production ---- */
  /* A mouse shows them beside the pointer as it moves; a tap (or a pen) shows them
     above the finger for a few seconds, and in the line under the board. */
  function initReadout() {
    var wrap = $("#board-wrap"); if (!wrap) return;
    var tip = html("div", {id: "hl-tip", "class": "hl-tip", "aria-hidden": "true"}), pending = null, hideTimer = null;
    tip.hidden = true;
    document.body.appendChild(tip);
    function show(e) {
      var svg = e.target.closest && e.target.closest("svg.board"), b = boardOf(svg);
      if (!b) { tip.hidden = true; return; }
      var p = b.point(e), cx = Math.floor((p.x - b.m) / b.c), cy = Math.floor((p.y - b.m) / b.c);
      if (cx < -1 || cy < -1 || cx > b.w || cy > b.h) { tip.hidden = true; return; }
      var c = b.wrap(cx, cy);
      setText(tip, b.describe(c[0], c[1]));
      var hover = $("rect.hl-hover", svg) || el("rect", {"class": "hl-hover", "pointer-events": "none"}, svg);
      hover.setAttribute("x", b.left(cx)); hover.setAttribute("y", b.top(cy));
      hover.setAttribute("width", b.c); hover.setAttribute("height", b.c);
      tip.hidden = false;
      var touch = e.pointerType !== "mouse", w = tip.offsetWidth, h = tip.offsetHeight;
      var x = Math.min(Math.max(4, e.clientX + (touch ? -w / 2 : 14)), window.innerWidth - w - 4);
      var y = touch ? e.clientY - h - 36 : e.clientY + 18;
      if (y + h > window.innerHeight - 4) y = e.clientY - h - 12;
      tip.style.left = x + "px"; tip.style.top = Math.max(4, y) + "px";
      clearTimeout(hideTimer);
      if (touch) hideTimer = setTimeout(function () { tip.hidden = true; }, 3000);
    }
    wrap.addEventListener("pointermove", function (e) {
      if (e.pointerType !== "mouse" || e.buttons) return;
      if (!pending) requestAnimationFrame(function () { var last = pending; pending = null; if (last) show(last); });
      pending = e;
    });
    wrap.addEventListener("pointerup", function (e) {
      if (e.pointerType === "mouse") return;
      show(e);
      var svg = e.target.closest && e.target.closest("svg.board"), b = boardOf(svg);
      if (b && !$("#match")) { var c = b.cellOf(b.point(e)); setText($("#cell-info"), b.describe(c[0], c[1])); }
    });
    wrap.addEventListener("pointerleave", function (e) {
      if (e.pointerType !== "mouse") return;
      pending = null; tip.hidden = true;
      var hover = $("svg.board rect.hl-hover", wrap); if (hover) hover.remove();
    });
  }

  /* ---- Zoom and pan: a big map on a small screen ---- */
  /* Where a cell is drawn under ZOOM_BELOW CSS pixels (a 50 x 50 map on a phone), a bar
     over the map zooms it (1x to 4x) and the map scrolls in its frame: a finger pans it,
     a tap chooses a piece as a click does. The zoom is the frame's, so the server's next
     board keeps it. */
  var ZOOM_BELOW = 14, ZOOMS = [1, 1.5, 2, 3, 4];
  function cellPx(svg) { var r = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal; return vb && vb.width ? r.width / vb.width * +svg.dataset.cell : 0; }
  function initZoom() {
    var wrap = $("#board-wrap"), svg = $("#board-wrap svg.board");
    if (!wrap || !svg || !svg.dataset.cell || $("#hl-zoom")) return;
    var base = cellPx(svg);
    if (!base || base >= ZOOM_BELOW) return;
    var level = 0, out = html("output", {id: "hl-zoom-level", "aria-live": "polite"}, "1×");
    var less = html("button", {type: "button", id: "hl-zoom-out", "aria-label": "Zoom out", disabled: "disabled"}, "−");
    var more = html("button", {type: "button", id: "hl-zoom-in", "aria-label": "Zoom in"}, "+");
    function set(next) {
      next = Math.max(0, Math.min(ZOOMS.length - 1, next));
      var z = ZOOMS[next], before = ZOOMS[level];
      // Keep the middle of what is seen in the middle.
      var mx = (wrap.scrollLeft + wrap.clientWidth / 2) / before, my = (wrap.scrollTop + wrap.clientHeight / 2) / before;
      level = next;
      wrap.classList.toggle("hl-zoomed", z > 1);
      wrap.style.setProperty("--hl-zoom", String(z));
      wrap.scrollLeft = mx * z - wrap.clientWidth / 2; wrap.scrollTop = my * z - wrap.clientHeight / 2;
      setText(out, z + "×");
      less.disabled = level === 0; more.disabled = level === ZOOMS.length - 1;
    }
    less.addEventListener("click", function () { set(level - 1); });
    more.addEventListener("click", function () { set(level + 1); });
    var bar = html("div", {id: "hl-zoom", "class": "hl-zoom", role: "group", "aria-label": "Zoom the map"});
    bar.append(html("span", {}, "Zoom"), less, out, more, html("small", {}, "a finger pans the map"));
    wrap.before(bar);
  }

  /* ---- The match page and the replay page: the platform's (games/page.js) ---- */
  /* The panel's score per seat while a turn plays: the territory the board shows. */
  function followCount(count) {
    document.querySelectorAll("#panel tr[data-seat]").forEach(function (tr) {
      var cell = $(".money", tr); if (cell) setText(cell, (count[tr.dataset.seat] || 0).toLocaleString("en"));
    });
  }
  /* The page's seat keys point at Helium 3's robots; here they are the board's shapes. */
  function seatKeys() {
    document.querySelectorAll('svg.key use[href^="#g-s"]').forEach(function (u) {
      var svg = u.closest("svg");
      u.setAttribute("href", u.getAttribute("href").replace("#g-s", "#hl-s"));
      svg.setAttribute("viewBox", "-11 -11 22 22"); svg.classList.add("hl-key");
    });
  }
  /* The replay's figures follow its scrubber: the table shows board k's (after k turns,
     from the series the server wrote), and a line marks turn k on each chart. */
  function followFigures(k) {
    var box = $("#hl-stats"); if (!box || !box.dataset.series) return;
    var all = box.hlSeries || (box.hlSeries = JSON.parse(box.dataset.series)), now = all[Math.min(k, all.length - 1)];
    if (!now) return;
    box.querySelectorAll("tr[data-hl-seat]").forEach(function (tr) {
      var f = now[+tr.dataset.hlSeat - 1] || [0, 0, 0];
      tr.querySelectorAll("td[data-kind]").forEach(function (td, i) { setText(td, f[i]); });
    });
    box.querySelectorAll("svg.hl-chart").forEach(function (svg) {
      var turns = +svg.dataset.turns || 1, axis = $(".hl-chart-axis", svg), box2 = axis.getBBox();
      var x = box2.x + box2.width * Math.min(k, turns) / turns;
      var line = $(".hl-now", svg) || el("line", {"class": "hl-now"}, svg);
      line.setAttribute("x1", x); line.setAttribute("x2", x);
      line.setAttribute("y1", box2.y); line.setAttribute("y2", box2.y + box2.height);
    });
    box.dataset.turn = String(k);
  }
  function seatScores(root, count) {
    root.querySelectorAll("tr[data-seat]").forEach(function (tr) { setText($(".score", tr), count[tr.dataset.seat] || 0); });
  }

  if ($("#match") && $("#board-wrap svg.board")) {
    var keys = html("p", {id: "hl-keys", "class": "vh"}, "Arrow keys move the cell cursor; Enter chooses your piece there; with pieces chosen the arrows give their direction, Shift with an arrow moves the cursor, the full stop keeps them still, A chooses all your pieces, Escape lets go.");
    $("#board-wrap").after(keys);
    initBoardInput();
  }
  var started = mp.init({
    stage: function (svg, following) { return new Stage(new Board(svg), following ? followCount : null); },
    follow: true,
    refresh: function () { seatKeys(); initPlanner(); },
    ordersBox: movesBox,
    drawPlan: drawPlan,
    putBoard: putBoard
  });
  if (started) {
    // The plan as the board holds it ({"x,y": direction}) and the pieces chosen: for
    // the browser tests and the console.
    window.halitePlan = function () { return {plan: JSON.parse(JSON.stringify(planner.plan)), chosen: keysOf(planner.sel), playing: mp.playing()}; };
  }
  initReadout();
  initZoom();
  var replay = $("#replay-turns");
  if (replay) {
    mp.replay(replay, {
      stage: function (svg) { return new Stage(new Board(svg), function (count) { seatScores(replay, count); }); },
      scores: function (svg) { seatScores(replay, new Board(svg).territory()); followFigures(+svg.dataset.turn); },
      putBoard: putBoard
    });
  }
})();
