/* The robot arena's board script: the robot built on part cards, a turn played one
   step at a time by pointing at the board, each step's and each turn's events played
   on the server's SVG, and a finished match played turn by turn.

   The server draws every board (games/play/arena/board.py), as the seat knows it.
   This script reads only what the drawing promises: the SVG's data-width,
   data-height, data-cell and data-margin; one `rect.ar-cell.k-K` per cell with data-x
   and data-y (K unknown, empty, obstacle or robot); one `g.ar-robot` per robot drawn
   (`own` for the viewer's, `seen` for one a scan showed) with data-x and data-y and a
   class seat-S. What a step may do is the rulebook's (docs/games/arena*.md): the
   script offers only what the engine would take, and the engine judges it anyway.

   A step is sent on its own through the page's orders form (its `actions_json`) and
   resolved within the request; the page comes back with the new board, and the step
   just sent plays on it (a walk along its path, the radar's sweep, the shot). Other
   seats' turns come with the match page's poll as movies of the viewer's copy of
   their events, played by the platform's games/page.js through this script's hooks,
   as is the replay page. */
(function () {
  "use strict";
  // The platform's part of the page (games/page.js): polls, movies, the replay.
  var mp = window.matchPage;
  var DIRS = {up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0]};
  /* The parts as the engine has them (engine/arena/state.py): gun and cannon are both of
     the kind "weapon", so a robot has one of them at most. The page's hints carry the
     engine's own table and capacity, which replace these when present. */
  var KINDS = ["engine", "radar", "shield", "weapon"];
  var PARTS = {
    engine1: {kind: "engine", cap: 2, value: 2}, engine2: {kind: "engine", cap: 4, value: 4}, engine3: {kind: "engine", cap: 6, value: 6},
    radar1: {kind: "radar", cap: 2, value: 1}, radar2: {kind: "radar", cap: 4, value: 3}, radar3: {kind: "radar", cap: 6, value: 6},
    shield1: {kind: "shield", cap: 2, value: 2}, shield2: {kind: "shield", cap: 4, value: 4}, shield3: {kind: "shield", cap: 6, value: 8},
    gun: {kind: "weapon", cap: 2, value: 3}, cannon: {kind: "weapon", cap: 4, value: 8}
  };
  var CAPACITY = 10, BASE_HEALTH = 10;
  var RANGE = {gun: 3, cannon: 1};
  var WHAT = {
    engine: function (p) { return p.value + " steps a turn"; },
    radar: function (p) { return "scans " + p.value + " cell" + (p.value === 1 ? "" : "s") + " around"; },
    shield: function (p) { return "+" + p.value + " health"; },
    weapon: function (p, name) {
      var r = RANGE[name];
      return "hits for " + p.value + " within " + r + " cell" + (r === 1 ? "" : "s") + (name === "cannon" ? ", every second turn" : ", every turn");
    }
  };
  function takeEngineTable(h) {
    if (!h || !h.parts || typeof h.parts !== "object") return;
    var parts = {}, kinds = [];
    Object.keys(h.parts).forEach(function (name) {
      var p = h.parts[name];
      parts[name] = {kind: p.kind, cap: +p.capacity, value: +p.strength};
      if (kinds.indexOf(p.kind) < 0) kinds.push(p.kind);
    });
    PARTS = parts; KINDS = kinds;
    if (+h.capacity) CAPACITY = +h.capacity;
    if (h.ranges && typeof h.ranges === "object") RANGE = h.ranges;
  }
  var $ = mp.dom.$, el = mp.dom.el, html = mp.dom.html, setText = mp.dom.setText;
  function key(x, y) { return x + "," + y; }
  function cheb(a, b) { return Math.max(Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1])); }
  function seatOf(node) { var m = /(?:^|\s)seat-(\d+)(?:\s|$)/.exec(node.getAttribute("class") || ""); return m ? +m[1] : 0; }
  function kindOf(node) { var m = /(?:^|\s)k-([a-z]+)(?:\s|$)/.exec(node.getAttribute("class") || ""); return m ? m[1] : "unknown"; }

  /* ---- The board: cells and robots, read from the server's SVG ---- */
  function Board(svg) {
    this.svg = svg; this.w = +svg.dataset.width || 10; this.h = +svg.dataset.height || 10;
    this.cell = +svg.dataset.cell || 40; this.margin = +svg.dataset.margin || 0;
    this.cells = {}; this.robots = {}; this.own = null;
    svg.querySelectorAll("rect.ar-cell").forEach(function (r) {
      this.cells[key(+r.dataset.x, +r.dataset.y)] = {el: r, kind: kindOf(r), age: r.dataset.age};
    }, this);
    svg.querySelectorAll("g.ar-robot").forEach(function (g) {
      var s = seatOf(g); if (!s) return;
      this.robots[s] = g;
      if (g.classList.contains("own")) this.own = s;
    }, this);
    this.fx = $("g.ar-fx", svg) || el("g", {"class": "ar-fx", "pointer-events": "none"}, svg);
    this.plan = $("g.ar-plan", svg) || el("g", {"class": "ar-plan", "pointer-events": "none"}, svg, this.fx);
  }
  Board.prototype.centre = function (c) { return [this.margin + (c[0] + 0.5) * this.cell, this.margin + (c[1] + 0.5) * this.cell]; };
  Board.prototype.on = function (c) { return c[0] >= 0 && c[1] >= 0 && c[0] < this.w && c[1] < this.h; };
  Board.prototype.kind = function (c) { var t = this.cells[key(c[0], c[1])]; return t ? t.kind : "unknown"; };
  Board.prototype.at = function (seat) { var g = this.robots[seat]; return g ? [+g.dataset.x, +g.dataset.y] : null; };
  Board.prototype.robotAt = function (c) {
    for (var s in this.robots) { var g = this.robots[s]; if (+g.dataset.x === c[0] && +g.dataset.y === c[1]) return +s; }
    return 0;
  };
  Board.prototype.square = function (c, cls, layer, pad) {
    var p = pad || 0, m = this.margin, u = this.cell;
    return el("rect", {"class": cls, x: m + c[0] * u + p, y: m + c[1] * u + p, width: u - 2 * p, height: u - 2 * p}, layer || this.plan);
  };
  Board.prototype.area = function (c, r, cls, layer) {
    var x0 = Math.max(0, c[0] - r), y0 = Math.max(0, c[1] - r), x1 = Math.min(this.w - 1, c[0] + r), y1 = Math.min(this.h - 1, c[1] + r), m = this.margin, u = this.cell;
    return el("rect", {"class": cls, x: m + x0 * u, y: m + y0 * u, width: (x1 - x0 + 1) * u, height: (y1 - y0 + 1) * u}, layer || this.plan);
  };
  /* What the seat knows of cell c, from its view's knowledge as the server drew it: empty,
     an obstacle or seat N's robot, seen at turn T (the board's turn less the cell's age),
     or never scanned. */
  Board.prototype.describe = function (c) {
    var t = this.cells[key(c[0], c[1])], where = "(" + c[0] + ", " + c[1] + "): ";
    if (!t) return "";
    var s = this.robotAt(c);
    if (s && s === this.own) return where + "your robot.";
    if (t.kind === "unknown" || t.age === "" || t.age === undefined) return where + "unknown: never scanned.";
    var seat = +(t.el.dataset.seat || 0) || (t.kind === "robot" ? s : 0);
    var what = t.kind === "robot" ? (seat ? "robot of seat " + seat : "a robot") : t.kind === "obstacle" ? "obstacle" : "empty";
    var turn = (+this.svg.dataset.turn || 0) - (+t.age || 0);
    return where + what + ", seen at turn " + turn + (t.age === "0" ? " (this turn)." : " (" + t.age + " turn" + (t.age === "1" ? "" : "s") + " ago).");
  };
  /* The cells a walk of at most n steps reaches, each with its shortest path, around
     known obstacles and robots (a cell never scanned may be walked into: the engine says). */
  Board.prototype.reach = function (from, n) {
    var out = {}, todo = [from];
    out[key(from[0], from[1])] = [];
    while (todo.length) {
      var c = todo.shift(), path = out[key(c[0], c[1])];
      if (path.length >= n) continue;
      for (var d in DIRS) {
        var m = [c[0] + DIRS[d][0], c[1] + DIRS[d][1]], k = key(m[0], m[1]);
        if (!this.on(m) || out[k] || this.kind(m) === "obstacle" || this.kind(m) === "robot" || this.robotAt(m)) continue;
        out[k] = path.concat([d]); todo.push(m);
      }
    }
    delete out[key(from[0], from[1])];
    return out;
  };

  /* ---- Animation ---- */
  function baseOf(g) {
    if (!g.arBase) {
      var list = g.transform && g.transform.baseVal, m = list && list.numberOfItems ? list.consolidate().matrix : null;
      g.arBase = m ? [m.a, m.b, m.c, m.d, m.e, m.f] : [1, 0, 0, 1, 0, 0];
    }
    return g.arBase;
  }
  function placed(g, ox, oy) { var b = baseOf(g); return "matrix(" + b[0] + "," + b[1] + "," + b[2] + "," + b[3] + "," + (b[4] + ox) + "," + (b[5] + oy) + ")"; }
  function animate(node, frames, ms, easing) {
    if (ms > 0 && node.animate) return node.animate(frames, {duration: ms, easing: easing || "ease-in-out", fill: "forwards"});
    return null;
  }
  function gone(node, a) { if (a) a.onfinish = function () { node.remove(); }; else node.remove(); }

  /* What one step or turn does to the board: `fire(e)` starts event e's effect. */
  function Stage(board) {
    this.b = board; this.pos = {};
    for (var s in board.robots) this.pos[s] = board.at(+s);
  }
  Stage.prototype.walk = function (seat, cells, ms) {
    var g = this.b.robots[seat]; if (!g || !cells.length) return;
    var home = [+g.dataset.x, +g.dataset.y], h = this.b.centre(home), self = this;
    var frames = cells.map(function (c) { var t = self.b.centre(c); return {transform: placed(g, t[0] - h[0], t[1] - h[1])}; });
    g.style.transform = frames[frames.length - 1].transform;
    if (frames.length < 2) frames.unshift(frames[0]);
    animate(g, frames, ms, "linear");
    this.pos[seat] = cells[cells.length - 1];
  };
  Stage.prototype.flash = function (c, cls, ms) {
    var f = this.b.square(c, "ar-flash " + cls, this.b.fx);
    gone(f, animate(f, [{opacity: 1}, {opacity: 0}], Math.max(ms, 300), "ease-out"));
  };
  Stage.prototype.float = function (c, text, cls, ms) {
    if (!c) return;
    var xy = this.b.centre(c), u = this.b.cell;
    var t = el("text", {"class": "ar-float " + (cls || ""), x: xy[0], y: xy[1] - u * 0.2, "font-size": u * 0.45, "text-anchor": "middle"}, this.b.fx);
    t.textContent = text;
    gone(t, animate(t, [{transform: "translate(0px,0px)", opacity: 1}, {transform: "translate(0px," + (-u * 0.8) + "px)", opacity: 0}], Math.max(ms * 2.5, 800), "ease-out"));
  };
  Stage.prototype.sweep = function (at, r, cells, ms) {
    var b = this.b, self = this, ring = b.area(at, r, "ar-sweep", b.fx);
    gone(ring, animate(ring, [{opacity: 0}, {opacity: 1, offset: 0.3}, {opacity: 0}], Math.max(ms, 500)));
    (cells || []).forEach(function (c) { if (cheb(c, at) > 0) setTimeout(function () { self.flash(c, "ar-scanned", ms); }, (Math.max(ms, 500) * cheb(c, at)) / (r + 1)); });
  };
  Stage.prototype.shot = function (e, ms) {
    var b = this.b, a = b.centre(e.from), z = b.centre(e.target);
    var line = el("line", {"class": "ar-shot seat-" + e.seat + " " + (e.weapon || "gun"), x1: a[0], y1: a[1], x2: z[0], y2: z[1], "stroke-width": b.cell * (e.weapon === "cannon" ? 0.22 : 0.1)}, b.fx);
    gone(line, animate(line, [{opacity: 0}, {opacity: 1, offset: 0.2}, {opacity: 1, offset: 0.6}, {opacity: 0}], Math.max(ms, 350)));
    this.flash(e.target, e.hit ? "ar-hit" : "ar-miss", ms);
    if (!e.hit) this.float(e.target, "miss", "", ms);
  };
  Stage.prototype.fire = function (e, speed) {
    var ms = Math.max(0, (e.duration_ms || 0) / speed), g;
    switch (e.type) {
      case "move": {
        var path = (e.path && e.path.length ? e.path : [e.to]).map(function (c) { return [c[0], c[1]]; });
        if (e.from) path.unshift([e.from[0], e.from[1]]);
        this.walk(e.seat, path, ms);
        break;
      }
      case "scan": {
        var cells = Object.keys(e.cells || {}).map(function (k) { return k.split(",").map(Number); });
        this.sweep(e.at, e.radius || 1, cells, ms);
        break;
      }
      case "shot": this.shot(e, ms); break;
      case "hit":
        this.float(this.pos[e.seat], "−" + e.damage + " (seat " + e.by + ")", "ar-dmg", ms);
        if (this.pos[e.seat]) this.flash(this.pos[e.seat], "ar-hit", ms);
        break;
      case "damage":
        if (this.pos[e.seat]) { this.flash(this.pos[e.seat], "ar-hit", ms); this.float(this.pos[e.seat], "−" + e.damage, "ar-dmg", ms); }
        break;
      case "destroyed":
        g = this.b.robots[e.seat];
        if (g) { g.classList.add("ar-destroyed"); animate(g, [{opacity: 1}, {opacity: 0.15}], Math.max(ms, 400)); }
        this.float(this.pos[e.seat], "destroyed", "ar-dmg", ms);
        break;
    }
  };
  /* ---- What the seat knows of its robot: the page's hints (the view), else the drawing ---- */
  function pageView() {
    var node = $("#hints");
    if (!node) return null;
    try {
      var v = JSON.parse(node.textContent);
      if (v && v.view) v = v.view;
      return v && typeof v === "object" ? v : null;
    } catch (err) { return null; }
  }
  function myRobot(b, seat) {
    var v = pageView() || {}, r = null;
    if (v.robot && typeof v.robot === "object") r = v.robot;
    var list = Array.isArray(v.robots) ? v.robots : [];
    if (!r) r = list.filter(function (x) { return +x.seat === seat; })[0] || null;
    if (!r && Array.isArray(v.parts)) r = v;
    var g = b.robots[seat], out = {seat: seat, at: b.at(seat), parts: [], steps_left: 0, shot: false, reload: 0, health: null, max_health: null};
    if (r) {
      out.parts = r.parts || []; out.steps_left = +r.steps_left || 0; out.shot = !!r.shot; out.reload = +r.reload || 0;
      out.health = r.health; out.max_health = r.max_health;
      if (!out.at && r.x !== undefined) out.at = [+r.x, +r.y];
    } else if (g) {
      out.parts = (g.dataset.parts || "").split(/[\s,]+/).filter(Boolean);
      out.steps_left = +(g.dataset.stepsLeft || 0); out.shot = g.dataset.shot === "true"; out.reload = +(g.dataset.reload || 0);
    }
    return out;
  }
  function has(me, part) { return me.parts.indexOf(part) >= 0; }
  function partOf(me, kind) { return me.parts.filter(function (p) { return PARTS[p] && PARTS[p].kind === kind; })[0] || null; }
  function radarRange(me) { var p = partOf(me, "radar"); return p ? PARTS[p].value : 0; }
  /* The weapons that may fire now and the farthest of their reaches. */
  function ready(me) {
    if (me.shot) return [];
    var out = [];
    if (has(me, "gun")) out.push("gun");
    if (has(me, "cannon") && !me.reload) out.push("cannon");
    return out;
  }
  function shotRange(me) { return Math.max.apply(null, [0].concat(ready(me).map(function (w) { return RANGE[w]; }))); }

  /* ---- The planner ---- */
  var planner = {on: false, seat: null, phase: null, mode: null, chosen: {}, turn: null};
  function ordersForm() { return $("#orders-form"); }
  function jsonBox() { var f = ordersForm(); return f ? f.elements.actions_json : null; }
  function matchBoard() { var svg = $("#board-wrap svg.board"); return svg && svg.dataset.width ? new Board(svg) : null; }
  function help(text) { setText($("#ar-help"), text); }
  function chosenParts() { return KINDS.map(function (k) { return planner.chosen[k]; }).filter(Boolean); }
  function used(parts) { return parts.reduce(function (n, p) { return n + PARTS[p].cap; }, 0); }
  function stats(parts) {
    var by = {}; parts.forEach(function (p) { by[PARTS[p].kind] = PARTS[p]; });
    return {
      health: BASE_HEALTH + (by.shield ? by.shield.value : 0),
      steps: by.engine ? by.engine.value : 0,
      radar: by.radar ? by.radar.value : 0,
      weapons: parts.filter(function (p) { return PARTS[p].kind === "weapon"; })
    };
  }
  function submitJson(obj, sent) {
    var f = ordersForm(), box = jsonBox(); if (!f || !box) return;
    box.value = JSON.stringify(obj);
    if (sent) { try { sessionStorage.setItem("ar-sent-" + page.dataset.match, JSON.stringify(sent)); } catch (e) { /* private mode */ } }
    planner.sending = true;
    document.querySelectorAll("#planner button").forEach(function (btn) { btn.disabled = true; });
    if (f.requestSubmit) f.requestSubmit(); else f.submit();
  }

  /* Why a part cannot go in now (it would pass the capacity), or "". */
  function refusalOf(p) {
    var parts = chosenParts(), k = PARTS[p].kind, other = planner.chosen[k] ? PARTS[planner.chosen[k]].cap : 0;
    var n = used(parts) - other + PARTS[p].cap;
    if (planner.chosen[k] === p || n <= CAPACITY) return "";
    return p + " takes " + PARTS[p].cap + " of the capacity: with " + parts.filter(function (q) { return PARTS[q].kind !== k; }).join(", ") +
      " it would be " + n + " of " + CAPACITY + ". Take a smaller part out first.";
  }
  function refuse(text) {
    var box = $("#ar-refusal"); if (!box) return;
    box.replaceChildren();
    if (text) box.append(html("p", {}, text));
    box.hidden = !text;
  }
  /* The plain form's parts, ticked as the cards are (and its capacity used with them). */
  function plainBoxes() { var f = ordersForm(); return f ? Array.prototype.slice.call(f.querySelectorAll('input[name="parts"]')) : []; }
  function syncPlain(parts, n) {
    plainBoxes().forEach(function (b) {
      var p = b.value; if (!PARTS[p]) return;
      b.checked = parts.indexOf(p) >= 0;
      b.disabled = !b.checked && !!refusalOf(p);
    });
    var out = $("#id_capacity output"); if (out) setText(out, String(n));
  }
  function buildBuild(bar) {
    var cards = html("div", {id: "ar-cards", "class": "ar-cards", role: "group", "aria-label": "Parts: at most one of each kind, within a capacity of " + CAPACITY});
    KINDS.forEach(function (kind) {
      var group = html("fieldset", {"class": "ar-kind", "data-kind": kind});
      group.append(html("legend", {}, kind.charAt(0).toUpperCase() + kind.slice(1)));
      Object.keys(PARTS).filter(function (p) { return PARTS[p].kind === kind; }).forEach(function (p) {
        var id = "ar-part-" + p, card = html("label", {"class": "ar-card", "for": id, "data-part": p});
        var box = html("input", {type: "checkbox", id: id, value: p, name: "ar-part"});
        box.addEventListener("change", function () {
          if (box.checked) planner.chosen[kind] = p; else if (planner.chosen[kind] === p) delete planner.chosen[kind];
          refuse("");
          render();
        });
        // A disabled box takes no click: the card says why, beside the cards.
        card.addEventListener("click", function () { if (box.disabled) refuse(refusalOf(p)); });
        var title = html("span", {"class": "ar-card-title"}); title.append(box, " " + p);
        card.append(title, html("span", {"class": "ar-cap"}, "capacity " + PARTS[p].cap), html("small", {}, WHAT[kind] ? WHAT[kind](PARTS[p], p) : ""));
        group.append(card);
      });
      cards.append(group);
    });
    // What the server refused (the form's errors, below the board) is shown here too.
    var said = [];
    document.querySelectorAll("#orders-form .errorlist li").forEach(function (li) { if (li.textContent.trim()) said.push(li.textContent.trim()); });
    var refusal = html("div", {id: "ar-refusal", "class": "action-error ar-refusal", role: "alert"});
    refusal.hidden = true;
    var meter = html("div", {"class": "ar-meter"});
    var bar2 = html("div", {id: "ar-capacity", "class": "ar-capacity", role: "meter", "aria-valuemin": "0", "aria-valuemax": String(CAPACITY), "aria-labelledby": "ar-used-label"});
    bar2.append(html("div", {"class": "ar-fill"}));
    meter.append(html("span", {id: "ar-used-label", "class": "ar-used-label"}, "Capacity used"), bar2, html("span", {id: "ar-used", "class": "ar-used"}, "0 of " + CAPACITY));
    var send = html("button", {type: "button", "class": "send", id: "bar-send"}, "Send the robot");
    send.addEventListener("click", function () { submitJson({build: chosenParts()}); });
    var tools = html("div", {"class": "plan-tools"}); tools.append(send);
    bar.replaceChildren(
      html("p", {id: "ar-help", "class": "plan-help", "aria-live": "polite"}, "Build your robot: one part of each kind at most, within a capacity of " + CAPACITY + "."),
      cards, refusal, meter, html("dl", {id: "ar-stats", "class": "ar-stats"}), tools);
    if (said.length) { refuse(said.join(" ")); refusal.scrollIntoView({block: "center"}); }
    plainBoxes().forEach(function (b) {
      b.addEventListener("change", function () {
        var p = b.value, k = PARTS[p] && PARTS[p].kind; if (!k) return;
        if (b.checked) planner.chosen[k] = p; else if (planner.chosen[k] === p) delete planner.chosen[k];
        refuse("");
        render();
      });
    });
  }
  function button(id, text, fn) {
    var b = html("button", {type: "button", id: id}, text);
    b.addEventListener("click", fn);
    return b;
  }
  function buildPlay(bar) {
    var acts = html("div", {id: "ar-acts", "class": "kinds ar-acts", role: "toolbar", "aria-label": "Steps"});
    var scan = button("ar-scan", "Scan", function () { submitJson({step: {type: "scan"}}, sentStep({type: "scan"})); });
    ["pointerenter", "focus"].forEach(function (ev) { scan.addEventListener(ev, function () { planner.preview = "scan"; draw(); }); });
    ["pointerleave", "blur"].forEach(function (ev) { scan.addEventListener(ev, function () { planner.preview = null; draw(); }); });
    var move = button("ar-move", "Move", function () { mode("move"); });
    var shoot = button("ar-shoot", "Shoot", function () { mode("shoot"); });
    move.setAttribute("aria-pressed", "false"); shoot.setAttribute("aria-pressed", "false");
    var end = button("ar-end", "End turn", function () { submitJson({step: {type: "end"}}, sentStep({type: "end"})); });
    end.classList.add("send");
    acts.append(scan, move, shoot, end);
    bar.replaceChildren(
      html("p", {id: "ar-help", "class": "plan-help", "aria-live": "polite"}, ""),
      html("p", {id: "ar-left", "class": "ar-left"}), acts);
  }
  function sentStep(step) {
    var b = matchBoard(), me = b ? myRobot(b, planner.seat) : null;
    return {turn: planner.turn, step: step, from: me ? me.at : null, radius: me ? radarRange(me) : 0};
  }
  function mode(m) {
    planner.mode = planner.mode === m ? null : m;
    render();
    var b = matchBoard(), me = b && myRobot(b, planner.seat);
    if (!me) return;
    if (planner.mode === "move") help("Click a lit cell: the robot walks there along a shortest path (" + me.steps_left + " step" + (me.steps_left === 1 ? "" : "s") + " left).");
    else if (planner.mode === "shoot") help("Click a cell in range to fire at it (" + ready(me).join(" or ") + ").");
    else help("Choose a step.");
  }
  function render() {
    var bar = $("#planner");
    if (!bar || !planner.on) return;
    if (planner.phase === "build") {
      var parts = chosenParts(), n = used(parts), s = stats(parts);
      document.querySelectorAll("#ar-cards .ar-card").forEach(function (c) {
        var p = c.dataset.part, on = planner.chosen[PARTS[p].kind] === p;
        var box = $("input", c);
        box.checked = on; c.classList.toggle("chosen", on);
        box.disabled = !on && !!refusalOf(p);
        c.classList.toggle("too-big", box.disabled);
        c.title = box.disabled ? refusalOf(p) : "";
      });
      syncPlain(parts, n);
      $("#bar-send").disabled = n > CAPACITY;
      var fill = $("#ar-capacity .ar-fill");
      fill.style.width = (100 * n / CAPACITY) + "%";
      $("#ar-capacity").setAttribute("aria-valuenow", String(n));
      setText($("#ar-used"), n + " of " + CAPACITY);
      var dl = $("#ar-stats");
      dl.replaceChildren();
      [["Health", s.health], ["Steps a turn", s.steps], ["Radar range", s.radar || "none"], ["Weapons", s.weapons.length ? s.weapons.join(", ") : "none"]].forEach(function (row) {
        var d = html("div", {"class": "ar-stat"}); d.append(html("dt", {}, row[0]), html("dd", {"data-stat": row[0]}, String(row[1])));
        dl.append(d);
      });
      help(parts.length ? "Your robot: " + parts.join(", ") + " (" + n + " of " + CAPACITY + "). Send it, or change parts." : "Build your robot: one part of each kind at most, within a capacity of " + CAPACITY + ".");
      return;
    }
    var b = matchBoard(); if (!b) return;
    var me = myRobot(b, planner.seat), canMove = me.steps_left > 0 && !!partOf(me, "engine"), range = shotRange(me);
    var sending = !!planner.sending;
    $("#ar-scan").disabled = sending || !radarRange(me);
    $("#ar-scan").title = radarRange(me) ? "Scan the cells within " + radarRange(me) + " of your robot" : "No radar";
    $("#ar-move").disabled = sending || !canMove;
    $("#ar-shoot").disabled = sending || !range;
    $("#ar-shoot").title = me.shot ? "Fired this turn" : !has(me, "gun") && has(me, "cannon") && me.reload ? "The cannon is reloading" : range ? "Range " + range : "No weapon";
    $("#ar-end").disabled = sending;
    if (planner.mode === "move" && !canMove) planner.mode = null;
    if (planner.mode === "shoot" && !range) planner.mode = null;
    $("#ar-move").setAttribute("aria-pressed", planner.mode === "move" ? "true" : "false");
    $("#ar-shoot").setAttribute("aria-pressed", planner.mode === "shoot" ? "true" : "false");
    var left = $("#ar-left");
    left.replaceChildren("Steps left this turn: ", html("strong", {id: "ar-steps-left"}, String(me.steps_left)),
      me.health !== null && me.health !== undefined ? " · health " + me.health + (me.max_health ? " of " + me.max_health : "") : "",
      " · " + (me.shot ? "fired this turn" : ready(me).length ? ready(me).join(" and ") + " ready" : has(me, "cannon") ? "cannon reloading" : "no weapon"));
    if (!$("#ar-help").textContent) help(canMove ? "Choose a step: Move lights the cells you can walk to." : "Scan, shoot or end the turn.");
    draw();
  }
  /* The step's reach on the board: the radar square, the cells a walk reaches, the cells in range. */
  function draw() {
    var b = matchBoard(); if (!b) return;
    b.plan.textContent = "";
    if (!planner.on || planner.phase !== "play" || planner.sending) return;
    var me = myRobot(b, planner.seat); if (!me.at) return;
    if (planner.preview === "scan" && radarRange(me)) { b.area(me.at, radarRange(me), "ar-radar"); return; }
    if (planner.mode === "move") {
      var reach = b.reach(me.at, me.steps_left);
      Object.keys(reach).forEach(function (k) {
        var c = k.split(",").map(Number), r = b.square(c, "ar-reach", b.plan, b.cell * 0.06);
        r.dataset.x = c[0]; r.dataset.y = c[1]; r.dataset.steps = reach[k].length;
      });
      if (planner.hover && reach[key(planner.hover[0], planner.hover[1])]) {
        var pts = [me.at], c0 = me.at.slice();
        reach[key(planner.hover[0], planner.hover[1])].forEach(function (d) { c0 = [c0[0] + DIRS[d][0], c0[1] + DIRS[d][1]]; pts.push(c0); });
        el("polyline", {"class": "ar-path", points: pts.map(function (c) { return b.centre(c).join(","); }).join(" "), "stroke-width": b.cell * 0.12}, b.plan);
      }
    } else if (planner.mode === "shoot") {
      var r = shotRange(me);
      b.area(me.at, r, "ar-range");
      for (var x = me.at[0] - r; x <= me.at[0] + r; x++) for (var y = me.at[1] - r; y <= me.at[1] + r; y++) {
        var t = [x, y];
        if (!b.on(t) || (x === me.at[0] && y === me.at[1])) continue;
        var sq = b.square(t, "ar-target" + (planner.hover && planner.hover[0] === x && planner.hover[1] === y ? " aimed" : ""), b.plan, b.cell * 0.06);
        sq.dataset.x = x; sq.dataset.y = y;
      }
    }
  }
  /* A click sends a step only when that step is chosen and the cell is lit for it;
     any other click says what the seat knows of the cell. */
  function clickCell(b, c) {
    var known = b.describe(c);
    setText($("#cell-info"), known);
    if (!planner.on || planner.phase !== "play" || planner.sending) return;
    var me = myRobot(b, planner.seat); if (!me.at) return;
    var m = planner.mode;
    if (m === "move") {
      var path = b.reach(me.at, me.steps_left)[key(c[0], c[1])];
      if (!path) { help(known + " Not lit: a walk of " + me.steps_left + " step" + (me.steps_left === 1 ? "" : "s") + " does not reach it."); return; }
      help("Moving " + path.join(", ") + "…");
      submitJson({step: {type: "move", path: path}}, sentStep({type: "move", path: path}));
    } else if (m === "shoot") {
      var d = cheb(me.at, c);
      if (d < 1 || d > shotRange(me)) { help(known + " Not lit: the lit cells are within " + shotRange(me) + "."); return; }
      help("Firing at (" + c[0] + ", " + c[1] + ")…");
      submitJson({step: {type: "shoot", target: [c[0], c[1]]}}, sentStep({type: "shoot", target: [c[0], c[1]]}));
    } else help(known + " Choose Move or Shoot to act on a cell.");
  }
  function cellOf(e) {
    var svg = e.target && e.target.closest ? e.target.closest("svg.board") : null, ctm = svg && svg.getScreenCTM();
    if (!ctm || !svg.dataset.width) return null;
    var pt = svg.createSVGPoint(); pt.x = e.clientX; pt.y = e.clientY;
    var p = pt.matrixTransform(ctm.inverse()), m = +svg.dataset.margin || 0, u = +svg.dataset.cell || 40;
    var c = [Math.floor((p.x - m) / u), Math.floor((p.y - m) / u)];
    return c[0] >= 0 && c[1] >= 0 && c[0] < +svg.dataset.width && c[1] < +svg.dataset.height ? c : null;
  }
  function initBoardInput() {
    var wrap = $("#board-wrap");
    wrap.addEventListener("click", function (e) {
      var c = cellOf(e); if (!c) return;
      if (mp.playing()) { mp.skip(); return; }
      var b = matchBoard(); if (b) clickCell(b, c);
    });
    wrap.addEventListener("pointermove", function (e) {
      if (mp.playing() || !planner.on || !planner.mode) return;
      var c = cellOf(e), was = planner.hover;
      planner.hover = c;
      if (String(was) !== String(c)) draw();
    });
    wrap.addEventListener("pointerleave", function () { if (planner.hover) { planner.hover = null; draw(); } });
    document.addEventListener("keydown", function (e) {
      if (e.key !== "Escape") return;
      if (mp.playing()) { mp.skip(); return; }
      if (planner.on && planner.mode) { planner.mode = null; render(); help("Choose a step."); }
    });
  }
  function phaseOf() {
    var v = pageView(), svg = $("#board-wrap svg.board");
    if (v && v.phase) return v.phase;
    if (svg && svg.dataset.phase) return svg.dataset.phase;
    var f = ordersForm(), t = f && f.elements.turn;
    return t && t.value === "0" ? "build" : "play";
  }
  function initPlanner() {
    var box = jsonBox(), svg = $("#board-wrap svg.board"), bar = $("#planner");
    planner.seat = page && page.dataset.viewer ? +page.dataset.viewer : null;
    var was = planner.on, f = ordersForm(), turn = f && f.elements.turn ? f.elements.turn.value : null;
    var stepNo = f && f.elements.step_no ? f.elements.step_no.value : null;
    planner.on = !!(box && svg && planner.seat !== null);
    if (bar) bar.hidden = !planner.on;
    var own = f && $(".send", f);
    if (own) own.hidden = planner.on;
    if (svg) svg.classList.toggle("ar-planning", planner.on);
    if (!planner.on) return;
    if (!was || planner.turn !== turn || planner.stepNo !== stepNo || !$("#ar-help", bar)) {
      planner.turn = turn; planner.stepNo = stepNo; planner.phase = phaseOf();
      planner.mode = null; planner.hover = null; planner.preview = null; planner.sending = false; planner.chosen = {};
      if (planner.phase === "build") {
        takeEngineTable(pageView());
        try {
          var o = JSON.parse(box.value || "{}");
          (o.build || []).forEach(function (p) { if (PARTS[p]) planner.chosen[PARTS[p].kind] = p; });
        } catch (err) { /* the player's own text */ }
        // A build already sent shows as the plain form's ticked parts (unless the JSON
        // box holds the build just sent: the cards then show it, with its refusal).
        if (!chosenParts().length) f.querySelectorAll('input[name="parts"]:checked').forEach(function (b) { if (PARTS[b.value] && !planner.chosen[PARTS[b.value].kind]) planner.chosen[PARTS[b.value].kind] = b.value; });
        buildBuild(bar);
      } else buildPlay(bar);
    }
    render();
  }

  /* ---- The step just sent, played on the board the server drew after it ---- */
  function playSent() {
    var raw = null;
    try { raw = sessionStorage.getItem("ar-sent-" + page.dataset.match); sessionStorage.removeItem("ar-sent-" + page.dataset.match); } catch (e) { return; }
    if (!raw) return;
    var sent; try { sent = JSON.parse(raw); } catch (e) { return; }
    var b = matchBoard(); if (!b || !sent.from || !$(".messages")) return;
    var stage = new Stage(b), step = sent.step || {}, me = b.own || planner.seat, at = b.at(me);
    if (step.type === "move" && at) {
      var c = sent.from.slice(), cells = [c.slice()];
      (step.path || []).forEach(function (d) { c = [c[0] + DIRS[d][0], c[1] + DIRS[d][1]]; cells.push(c.slice()); });
      if (cells[cells.length - 1][0] !== at[0] || cells[cells.length - 1][1] !== at[1]) return;
      var g = b.robots[me], h = b.centre(at);
      stage.walk(me, cells.map(function (q) { return q; }), 120 * cells.length);
      // The walk ends where the server drew the robot: leave no offset behind.
      setTimeout(function () { if (g) { g.style.transform = ""; g.getAnimations && g.getAnimations().forEach(function (a) { a.cancel(); }); } }, 120 * cells.length + 30);
      void h;
    } else if (step.type === "scan" && at) {
      var fresh = [];
      for (var k in b.cells) if (b.cells[k].age === "0" && cheb(k.split(",").map(Number), at) <= sent.radius) fresh.push(k.split(",").map(Number));
      stage.sweep(at, sent.radius || 1, fresh, 600);
    } else if (step.type === "shoot" && at) {
      stage.shot({seat: me, from: at, target: step.target, weapon: "gun", hit: true}, 400);
    }
  }

  /* ---- The match page and the replay page: the platform's (games/page.js) ---- */
  function who(t) { return t.seat ? "seat " + t.seat + "'s turn" : "the builds"; }
  // The effects' tails (numbers floating away) get a moment after a turn's last event.
  var TAIL = 400;

  var page = $("#match");
  if (page && $("#board-wrap svg.board")) initBoardInput();
  var started = mp.init({
    stage: function (svg) { return new Stage(new Board(svg)); },
    tail: TAIL,
    who: who,
    // A turn of steps changes the board within its number.
    unseenOnly: true,
    refresh: function () {
      document.querySelectorAll('svg.key use[href^="#g-s"]').forEach(function (u) {
        var svg = u.closest("svg"); el("circle", {cx: 0, cy: 0, r: 10}, svg); u.remove(); svg.classList.add("ar-key");
      });
      initPlanner();
    },
    ordersBox: jsonBox,
    // A step sent comes back as a new board (no movie): that board is seen, and the
    // step plays on it.
    onSettled: mp.markSeen,
    afterSent: playSent,
    // Refused: the planner starts again from the orders sent back (the cards show the
    // build refused, with the reason), as after a plain post.
    sendRefused: function () { planner.sending = false; planner.on = false; initPlanner(); }
  });
  if (started) {
    playSent();
    // The planner as the board holds it: for the browser tests and the console.
    window.arenaPlan = function () {
      var b = matchBoard(), me = b ? myRobot(b, planner.seat) : null;
      return {phase: planner.phase, mode: planner.mode, build: chosenParts(), robot: me, playing: mp.playing()};
    };
  }
  var replay = $("#replay-turns");
  if (replay) mp.replay(replay, {stage: function (svg) { return new Stage(new Board(svg)); }, tail: TAIL, who: who});
})();
