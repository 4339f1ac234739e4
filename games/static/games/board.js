/* Helium 3's board script (the remake's too): draws each event of the engine's
   timeline on the server's SVG, plans orders by pointing at the board, and gives the
   platform's games/page.js (loaded before it) the hooks it plays the match page and
   the replay page through.

   The server draws every board; this script moves what is drawn and toggles its
   classes, and draws only in the board's own layers: shots and blasts (fx), the
   planned orders (plan), the cells a click may choose (hl) and wrecks. Timing is
   the engine's: each event runs from its t_ms for its duration_ms, a turn lasts
   its turn_ms, and the script never decides how long anything takes (a laser's
   afterglow is drawn only while its turn still runs).

   page.js polls, sends the orders without a reload, queues the movies and plays
   each once at its pace (a long turn faster), with Pause and Skip, tells each event
   in the caption as it plays and the match's end after the last, holds the panel,
   the heading and the badge until the board gets there, and plays the replay over
   the battle clock. This script's stage (Stage) is what it plays on: each event
   page.js fires starts its effect, and each frame draws the moment, the panel
   following it (money, robots, the destroyed). */
(function () {
  "use strict";
  var DIRS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];
  var DELTA = {N: [0, -1], NE: [1, -1], E: [1, 0], SE: [1, 1], S: [0, 1], SW: [-1, 1], W: [-1, 0], NW: [-1, -1]};
  var WORD = {N: "north", NE: "north-east", E: "east", SE: "south-east", S: "south", SW: "south-west", W: "west", NW: "north-west"};
  var KIND = {move: "Move", mine: "Mine", arm_missile: "Arm missile", arm_laser: "Arm laser", shield: "Shield",
    fire_missile: "Fire missile", fire_laser: "Fire laser", kamikaze: "Kamikaze", deflect: "Deflect"};
  var mp = window.matchPage;
  var $ = mp.dom.$, el = mp.dom.el, setText = mp.dom.setText;
  function clamp(v) { return v < 0 ? 0 : v > 1 ? 1 : v; }
  function cheb(a, b) { return Math.max(Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1])); }
  function mmss(ms) { var s = Math.floor(Math.max(0, ms) / 1000); return Math.floor(s / 60) + ":" + ("0" + (s % 60)).slice(-2); }
  /* The battle clock against its length; a last turn that ran past the end says so (games.records.battle_clock_text). */
  function clockOf(ms, len) { return ms - len < 1000 ? mmss(Math.min(ms, len)) + " of " + mmss(len) : mmss(len) + " of " + mmss(len) + " · the last turn ran " + mmss(ms - len) + " past the end"; }
  function copy(o) { return JSON.parse(JSON.stringify(o)); }

  /* ---- The board: geometry and the model read from the server's SVG. ---- */
  function Board(svg) {
    var d = svg.dataset;
    this.svg = svg; this.w = +d.w; this.h = +d.h; this.cell = +d.cell; this.m = +d.margin;
    this.levels = d.levels.split(",").map(Number);
    this.hl = $(".hl", svg); this.fx = $(".fx", svg); this.plan = $(".plan", svg);
    this.els = {};
    svg.querySelectorAll(".rb").forEach(function (g) { this.els[g.dataset.id] = g; }, this);
    // What the server drew, read once per SVG and kept on it: drawing a plan or a frame
    // toggles the robots' classes, so a later reading of them would not be the truth.
    // The helium shown and the wrecks left are kept there too, for the same reason.
    if (!svg.h3) {
      var model = {helium: d.helium.split(",").map(Number), robots: {}, money: {}};
      svg.querySelectorAll(".rb").forEach(function (g) {
        var c = g.classList, r = g.dataset;
        model.robots[r.id] = {id: r.id, seat: +r.seat, x: +r.x, y: +r.y, ang: DIRS.indexOf(r.f) * 45,
          alive: true, active: !c.contains("idle"), armed: c.contains("am") ? "missile" : c.contains("al") ? "laser" : null,
          shield: c.contains("sd"), deflect: r.d || null, mined: +r.mined, fade: 1};
      });
      svg.h3 = {model: model, shown: model.helium.slice(), rects: null, left: {}};
    }
    this.model = svg.h3.model; this.kept = svg.h3;
  }
  Board.prototype.centre = function (x, y) { return [this.m + x * this.cell + this.cell / 2, this.m + y * this.cell + this.cell / 2]; };
  Board.prototype.cellAt = function (evt) {
    var pt = this.svg.createSVGPoint(); pt.x = evt.clientX; pt.y = evt.clientY;
    var p = pt.matrixTransform(this.svg.getScreenCTM().inverse());
    var x = Math.floor((p.x - this.m) / this.cell), y = Math.floor((p.y - this.m) / this.cell);
    return x >= 0 && y >= 0 && x < this.w && y < this.h ? [x, y] : null;
  };
  Board.prototype.level = function (a) {
    for (var i = 0; i < this.levels.length; i++) if (a < this.levels[i]) return "h" + (i + 1);
    return "h" + (this.levels.length + 1);
  };
  /* Draw a model: robots' places, facings and marks, helium, and a frame's effects. */
  Board.prototype.draw = function (m, effects) {
    var wrecks = $(".wrecks", this.svg), left = this.kept.left;
    for (var id in m.robots) {
      var r = m.robots[id], g = this.els[id];
      if (!g) continue;
      var c = this.centre(r.x, r.y);
      // A robot destroyed in this movie leaves its wreck, gone again if the clock goes back.
      if (!r.alive && !left[id] && wrecks) left[id] = el("use", {href: "#g-wreck", transform: "translate(" + c[0] + " " + c[1] + ")"}, wrecks);
      else if (r.alive && left[id]) { left[id].remove(); delete left[id]; }
      g.setAttribute("transform", "translate(" + c[0] + " " + c[1] + ")");
      $(".nose", g).setAttribute("transform", "rotate(" + r.ang + ")");
      if (r.deflect) $(".dfl", g).setAttribute("transform", "rotate(" + DIRS.indexOf(r.deflect) * 45 + ")");
      g.classList.toggle("idle", !r.active); g.classList.toggle("am", r.armed === "missile");
      g.classList.toggle("al", r.armed === "laser"); g.classList.toggle("sd", !!r.shield);
      g.classList.toggle("dd", !!(r.shield && r.deflect)); g.classList.toggle("act", !!r.acting);
      g.classList.toggle("doomed", !!r.doomed);
      g.style.display = r.alive ? "" : "none"; g.style.opacity = r.fade < 1 ? r.fade : "";
    }
    var he = $(".he", this.svg), shown = this.kept.shown, rects = this.kept.rects;
    if (!rects) { rects = this.kept.rects = {}; he.querySelectorAll("rect").forEach(function (x) { rects[x.id.slice(1)] = x; }); }
    for (var i = 0; i < m.helium.length; i++) {
      var a = m.helium[i], rect = rects[i];
      if (a === shown[i]) continue;
      shown[i] = a;
      if (a <= 0) { if (rect) { rect.remove(); delete rects[i]; } continue; }
      var x = i % this.w, y = Math.floor(i / this.w);
      if (!rect) {
        rect = rects[i] = el("rect", {id: "c" + i, x: this.m + x * this.cell, y: this.m + y * this.cell, width: this.cell, height: this.cell}, he);
        el("title", {}, rect);
      }
      rect.setAttribute("class", this.level(a));
      rect.firstChild.textContent = "(" + x + ", " + y + ") helium " + a;
    }
    this.fx.textContent = "";
    (effects || []).forEach(function (f) { f(this); }, this);
  };

  /* ---- Drawings: a frame's shots and blasts, and the marks of planned orders. ---- */
  var GLOW_MS = 350;  // a laser's afterglow: drawn only while its turn still runs
  function ease(u) { return 1 - (1 - u) * (1 - u); }
  function pt(b, c) { return b.centre(c[0], c[1]); }
  /* A blast: a white flash, a fireball that swells and fades, and a shock ring. */
  function blast(b, c, u, size, parent) {
    var e = ease(clamp(u));
    if (u < 0.18) el("circle", {"class": "flash-core", r: b.cell * size * (0.4 + u * 2), cx: c[0], cy: c[1], opacity: 1 - u / 0.18}, parent);
    el("circle", {"class": "fireball", r: b.cell * size * (0.35 + 0.65 * e), cx: c[0], cy: c[1], opacity: 1 - u * u}, parent);
    el("circle", {"class": "shock", r: b.cell * size * (0.4 + 1.1 * e), cx: c[0], cy: c[1], opacity: 1 - u, "stroke-width": 4 * (1 - u) + 0.5}, parent);
  }
  /* The cells around (x, y) on the board, as one rectangle: a blast's or a mine's reach. */
  function area(b, x, y, cls, parent) {
    var x0 = Math.max(0, x - 1), y0 = Math.max(0, y - 1), x1 = Math.min(b.w - 1, x + 1), y1 = Math.min(b.h - 1, y + 1);
    return el("rect", {"class": cls, x: b.m + x0 * b.cell + 1.5, y: b.m + y0 * b.cell + 1.5, width: (x1 - x0 + 1) * b.cell - 3, height: (y1 - y0 + 1) * b.cell - 3, rx: 5}, parent);
  }
  function missileFx(b, s, g, t, flight, blastMs) {
    if (t < flight) {
      var q = t / flight, hx = s[0] + (g[0] - s[0]) * q, hy = s[1] + (g[1] - s[1]) * q;
      var ang = Math.atan2(g[1] - s[1], g[0] - s[0]) * 180 / Math.PI + 90;
      aim(b, g, b.fx);
      el("line", {"class": "trail", x1: s[0], y1: s[1], x2: hx, y2: hy}, b.fx);
      var dist = Math.hypot(g[0] - s[0], g[1] - s[1]) || 1;
      for (var k = 1; k <= 6; k++) {  // smoke puffs every 9 units behind the head, older ones wider and fainter
        var back = q - k * 9 / dist;
        if (back < 0) break;
        el("circle", {"class": "smoke", r: 2.5 + k * 1.2, cx: s[0] + (g[0] - s[0]) * back, cy: s[1] + (g[1] - s[1]) * back, opacity: 0.6 - k * 0.08}, b.fx);
      }
      var head = el("g", {"class": "msl", transform: "translate(" + hx + " " + hy + ") rotate(" + ang + ")"}, b.fx);
      el("path", {"class": "flame", d: "M-3.2 6L0 " + (17 + 4 * Math.sin(t / 25)) + "L3.2 6Z"}, head);
      el("path", {"class": "flame-core", d: "M-1.6 6L0 " + (11 + 2 * Math.sin(t / 25)) + "L1.6 6Z"}, head);
      el("path", {"class": "body", d: "M0 -12L3.5 -6V6H-3.5V-6ZM-3.5 2L-7 8H-3.5ZM3.5 2L7 8H3.5Z"}, head);
    } else blast(b, g, (t - flight) / blastMs, 1, b.fx);
  }
  function beamFx(b, segments, front, opacity, parent, cls) {
    var tip = null;
    segments.forEach(function (sg) {
      if (front <= 0) return;
      var len = cheb(sg[0], sg[1]), q = len ? Math.min(1, front / len) : 1, a = pt(b, sg[0]), z = pt(b, sg[1]);
      var x2 = a[0] + (z[0] - a[0]) * q, y2 = a[1] + (z[1] - a[1]) * q;
      ["beam-glow", "beam"].forEach(function (c) {
        el("line", {"class": c + (cls ? " " + cls : ""), x1: a[0], y1: a[1], x2: x2, y2: y2, opacity: opacity}, parent);
      });
      tip = [x2, y2]; front -= len;
    });
    return tip;
  }
  /* A target mark: a ring with four ticks, on the cell a missile is aimed at. */
  function aim(b, g, parent) {
    var r = b.cell * 0.36, t = b.cell * 0.16;
    el("circle", {"class": "aim", r: r, cx: g[0], cy: g[1]}, parent);
    el("path", {"class": "aim", d: "M" + (g[0] - r - t) + " " + g[1] + "h" + 2 * t + "M" + (g[0] + r - t) + " " + g[1] + "h" + 2 * t +
      "M" + g[0] + " " + (g[1] - r - t) + "v" + 2 * t + "M" + g[0] + " " + (g[1] + r - t) + "v" + 2 * t}, parent);
  }

  /* ---- The timeline: a model at any time of a list of turns. ---- */
  function hitCells(e) { return e.cells || []; }
  var ACTS = ["turned", "moved", "mined", "armed", "shielded", "missile", "laser", "kamikaze"];
  /* Apply one event at progress p (0..1) of its duration; returns its drawing, if any. */
  function applyEvent(m, e, t, T) {
    var r = m.robots[e.robot], p = e.duration_ms > 0 ? clamp(t / e.duration_ms) : 1, fx = null;
    // Active once its action has begun: at the action's first instant (p = 0) it has not acted yet.
    if (r && ACTS.indexOf(e.type) >= 0) { if (e.type !== "turned" && p > 0) r.active = true; r.acting = t < e.duration_ms; }
    switch (e.type) {
      case "turned": {
        var a0 = DIRS.indexOf(e.from) * 45, d = ((DIRS.indexOf(e.to) * 45 - a0 + 540) % 360) - 180;
        r.ang = a0 + d * p; break;
      }
      case "moved": {
        r.armed = null; r.shield = false; r.deflect = null;
        var path = e.path, k = p * path.length, i = Math.min(Math.floor(k), path.length - 1);
        var from = i === 0 ? [r.x, r.y] : path[i - 1], f = p >= 1 ? 1 : k - i;
        r.x = from[0] + (path[i][0] - from[0]) * f; r.y = from[1] + (path[i][1] - from[1]) * f;
        break;
      }
      case "mined":
        r.armed = null; r.shield = false;
        if (p >= 1) { hitCells(e).forEach(function (c) { m.helium[c[1] * T.w + c[0]] -= c[2]; }); m.money[r.seat] = (m.money[r.seat] || 0) + e.amount; r.mined += e.amount; }
        else fx = function (b) {
          var o = b.centre(r.x, r.y);
          area(b, r.x, r.y, "dig", b.fx).setAttribute("opacity", 0.5 + 0.5 * Math.sin(p * Math.PI * 4));
          hitCells(e).forEach(function (c, j) {
            var q = (p * 3 + j / 9) % 1, s = pt(b, c);
            el("circle", {"class": "ore", r: 2.5 * (1 - q) + 1, cx: s[0] + (o[0] - s[0]) * q, cy: s[1] + (o[1] - s[1]) * q}, b.fx);
          });
          el("text", {"class": "gain", x: o[0], y: o[1] - 18 - 12 * p}, b.fx).textContent = "+" + e.amount;
        };
        break;
      case "armed": r.shield = false; r.armed = p > 0 ? e.weapon : null; break;
      case "shielded": r.armed = null; r.shield = true; r.deflect = e.deflect || null; break;
      case "missile": {
        r.armed = null;
        var flight = cheb([r.x, r.y], e.target) * T.timing.MISSILE_CELL_MS;
        if (t < e.duration_ms) fx = function (b) { missileFx(b, b.centre(r.x, r.y), pt(b, e.target), t, flight, T.timing.BLAST_MS); };
        break;
      }
      case "laser": {
        r.armed = null;
        if (t < e.duration_ms + GLOW_MS) fx = function (b) {
          var over = t - e.duration_ms, tip = beamFx(b, e.segments, t / T.timing.LASER_CELL_MS, over > 0 ? 1 - over / GLOW_MS : 1, b.fx);
          var s = pt(b, e.segments[0][0]);
          if (over < 0) {
            el("circle", {"class": "flash-core", r: 5 + 2 * Math.sin(t / 30), cx: s[0], cy: s[1]}, b.fx);
            if (tip) el("circle", {"class": "flash-core", r: 4, cx: tip[0], cy: tip[1]}, b.fx);
          }
        };
        break;
      }
      case "kamikaze": {
        var half = T.timing.KAMIKAZE_MS / 2;
        if (t < e.duration_ms) fx = function (b) {
          var c = b.centre(r.x, r.y);
          if (t < half) { el("circle", {"class": "charge", r: 13 + 4 * Math.sin(t / 45), cx: c[0], cy: c[1]}, b.fx); return; }
          var u = (t - half) / half;
          area(b, Math.round(r.x), Math.round(r.y), "blast-area", b.fx).setAttribute("opacity", 1 - u);
          blast(b, c, u, 1.5, b.fx);
        };
        break;
      }
      case "destroyed":
        r.armed = null; r.shield = false; r.fade = 1 - p;
        if (p < 0.6) fx = function (b) { blast(b, b.centre(r.x, r.y), p / 0.6, 0.55, b.fx); };
        if (p >= 1) {
          r.alive = false;
          hitCells(e).forEach(function (c) { m.helium[c[1] * T.w + c[0]] += c[2]; });
          m.money[r.seat] = Math.max(0, (m.money[r.seat] || 0) - (e.dropped || 0));
        }
        break;
      case "absorbed": case "deflected":
        r.shield = false; r.deflect = null;
        if (p < 1) fx = function (b) { var c = b.centre(r.x, r.y); el("circle", {"class": "flash", r: 13 + 12 * p, cx: c[0], cy: c[1], opacity: 1 - p}, b.fx); };
        break;
    }
    return fx;
  }
  /* A movie: the model at the start of each turn (`snaps`), turn by turn from the
     board's model (the money `data.money`), and the model it ends on. */
  function Movie(board, data) {
    this.turns = data.turns; this.timing = data.timing; this.clock0 = data.clock_ms || 0;
    this.w = board.w; this.offsets = []; this.snaps = [];
    var m = copy(board.model), at = 0;
    if (data.money) m.money = copy(data.money);
    this.turns.forEach(function (turn) {
      this.offsets.push(at); this.snaps.push(copy(m));
      var self = this;
      turn.events.forEach(function (e) { applyEvent(m, e, e.duration_ms + 1, self); });
      at += turn.turn_ms;
    }, this);
    this.endModel = m;
  }

  /* ---- The stage the platform's page.js plays a movie on ---- */
  /* page.js fires each event at its t_ms (fire) and asks for every frame's moment
     (moment(k, T), T ms into turn k): the model at the turn's start with the events fired so far,
     each at its moment, drawn with its effects. `opts.frame(model, clock)` follows
     each frame (the battle clock, the panel). */
  function Stage(board, movie, opts) {
    this.board = board; this.movie = movie; this.opts = opts || {}; this.k = -1; this.live = []; this.model = null; this.turn = null;
  }
  Stage.prototype.beginTurn = function (k) { this.k = k; this.live = []; };
  Stage.prototype.fire = function (e) { this.live.push(e); };
  Stage.prototype.moment = function (k, T) {
    if (k !== this.k) this.beginTurn(k);
    var mv = this.movie, m = copy(mv.snaps[k]), effects = [];
    this.live.forEach(function (e) { var f = applyEvent(m, e, T - e.t_ms, mv); if (f) effects.push(f); });
    this.board.draw(m, effects);
    this.model = m; this.turn = mv.turns[k].number;
    if (this.opts.frame) this.opts.frame(m, mv.clock0 + mv.offsets[k] + Math.min(T, mv.turns[k].turn_ms));
    return m.money;
  };
  /* An event's effect shows for its duration; a laser's afterglow a moment more (the pace). */
  function lasts(e) { return (e.duration_ms || 0) + (e.type === "laser" ? GLOW_MS : 0); }

  /* ---- The match page: the panel following the board ---- */
  var page = $("#match");
  function matchBoard() { return new Board($("#board-wrap svg.board")); }
  /* The panel's money per seat, and the robots it lists as destroyed. */
  function moneyOf(panel) {
    var out = {};
    if (!panel) return out;
    panel.querySelectorAll("tr[data-seat]").forEach(function (tr) { var c = $(".money", tr); if (c) out[tr.dataset.seat] = +c.textContent.replace(/,/g, ""); });
    return out;
  }
  function deadOf(panel) { var p = panel && $(".destroyed", panel); return p && p.dataset.ids ? p.dataset.ids.split(" ") : []; }
  /* The money at a movie's start: the money at its end less what its turns mined and dropped. */
  function startMoney(board, data, end) {
    var BIG = 1e9, probe = {}, out = {};
    for (var s in end) probe[s] = BIG;
    var moved = new Movie(board, {turns: data.turns, timing: data.timing, money: probe}).endModel.money;
    for (s in end) out[s] = Math.max(0, end[s] - ((moved[s] || BIG) - BIG));
    return out;
  }
  // The stage playing now (window.helium3Now), and the money the last movie left for
  // the next one queued (until the page shows what the polls brought).
  var live = null, carried = null;
  function matchStage(svg, following, mv) {
    var b = new Board(svg), data = {turns: mv.turns, timing: mv.data.timing, clock_ms: mv.data.clock_ms};
    // The panel the movies end on (held by page.js until the board gets there).
    var ending = following ? mp.ending("panel") : null, dead = deadOf(ending);
    if (following) data.money = carried || startMoney(b, data, moneyOf(ending));
    var movie = new Movie(b, data), bar = $("#clock-bar"), text = $("#clock-text");
    if (following) carried = movie.endModel.money;
    live = new Stage(b, movie, {frame: function (m, clock) {
      if (bar) bar.value = clock;
      if (text) text.textContent = clockOf(clock, +text.dataset.length);
      if (following) followFrame(m, dead);
    }});
    return live;
  }
  /* The panel at a frame of the movie: money, robots left, the player's own robots, the destroyed. */
  function followFrame(m, destroyed) {
    var panel = $("#panel"), alive = {};
    if (!panel) return;
    for (var id in m.robots) { var r = m.robots[id]; if (r.alive) alive[r.seat] = (alive[r.seat] || 0) + 1; }
    panel.querySelectorAll("tr[data-seat]").forEach(function (tr) {
      var s = tr.dataset.seat;
      if (m.money[s] !== undefined) setText($(".money", tr), commas(m.money[s]));
      setText($(".robots", tr), alive[s] || 0);
    });
    followRobots(panel, m);
    var dead = destroyed.filter(function (i) { return !m.robots[i] || !m.robots[i].alive; }), p = $(".destroyed", panel);
    if (!p && dead.length) { p = document.createElement("p"); p.className = "destroyed"; panel.appendChild(p); }
    if (p) { p.hidden = !dead.length; setText(p, "Destroyed: " + dead.join(", ") + "."); }
  }
  /* The table of the viewer's robots at a frame: those alive on the board then, as
     the server lists them (by id), so a robot the movie has not destroyed yet is
     still there and one it has is gone. */
  function followRobots(panel, m) {
    var table = $("table.mine", panel), viewer = +page.dataset.viewer, ids = [];
    if (!viewer) return;
    for (var id in m.robots) if (m.robots[id].seat === viewer && m.robots[id].alive) ids.push(id);
    ids.sort(function (a, b) { return a.localeCompare(b, "en", {numeric: true}); });
    if (!table) {
      // The server leaves the table out once none is left; the movie may show some still.
      var seats = $("table.seats", panel);
      if (!ids.length || !seats) return;
      table = document.createElement("table"); table.className = "mine";
      table.innerHTML = '<caption>Your ' + piece() + 's</caption><thead><tr><th scope="col">' + capital(piece()) + '</th><th scope="col">Cell</th>' +
        '<th scope="col">State</th><th scope="col">Mined</th></tr></thead><tbody></tbody>';
      seats.after(table);
    }
    var body = $("tbody", table), rows = {};
    body.querySelectorAll("tr[data-robot]").forEach(function (tr) { rows[tr.dataset.robot] = tr; });
    ids.forEach(function (id, i) {
      var r = m.robots[id], tr = rows[id];
      if (!tr) {
        tr = document.createElement("tr"); tr.dataset.robot = id;
        for (var k = 0; k < 4; k++) tr.appendChild(document.createElement("td"));
        tr.lastChild.className = "num";
      }
      if (body.children[i] !== tr) body.insertBefore(tr, body.children[i] || null);
      var td = tr.children;
      setText(td[0], id);
      setText(td[1], "(" + Math.round(r.x) + ", " + Math.round(r.y) + ")");
      setText(td[2], (r.active ? "active" : "inactive") + (r.armed ? ", " + r.armed + " armed" : "") + (r.shield ? ", shield" + (r.deflect ? " " + r.deflect : "") : ""));
      setText(td[3], commas(r.mined));
      delete rows[id];
    });
    for (var gone in rows) rows[gone].remove();
    table.hidden = !ids.length;
  }
  /* ---- Planning orders by pointing at the board ---- */
  /* `answers[k]` is the hints endpoint's answer for the first k planned actions (the
     board they leave, the hints of the robots not yet given one); `asked` counts the
     questions so an answer to a plan since changed is dropped. */
  var planner = {hints: null, first: null, plan: [], robot: null, kind: null, answers: [], asked: 0, wanted: null, wide: false,
    redraw: function () { if (this.hints) this.show(); }};
  function form() { return $("#orders-form"); }
  function field(i, name) { return form().elements[name + "_" + i]; }
  function actionFromRow(i) {
    var robot = field(i, "robot").value, kind = field(i, "type").value;
    if (!robot || !kind) return null;
    var x = field(i, "x").value, y = field(i, "y").value, dir = field(i, "direction").value;
    var cell = x !== "" && y !== "" ? [+x, +y] : null, a = {robot: robot, type: kind};
    if (kind === "fire_missile") a.target = cell;
    else if (kind === "fire_laser" || kind === "deflect") a.direction = dir;
    else if (kind !== "kamikaze") { if (cell) a.to = cell; if (kind === "shield" && dir) a.deflect = dir; }
    return a;
  }
  /* How many actions a turn takes (the hints say; Helium 3's two when they do not),
     what the game calls a robot (the form's label), and whether a shield takes its
     deflect direction (not when the game has a deflect action of its own). */
  function maxActions() { return Math.min((planner.hints && planner.hints.max_actions) || 2, form().querySelectorAll("fieldset.action").length); }
  /* What the game calls a piece ("robot"; the remake's "vehicle"), from its presentation. */
  function piece() { return (page && page.dataset.piece) || "robot"; }
  function capital(word) { return word.charAt(0).toUpperCase() + word.slice(1); }
  function noun() { var l = form().querySelector('label[for="' + field(0, "robot").id + '"]'); return l ? l.textContent.replace(/:\s*$/, "") : "Robot"; }
  function shieldDeflects() { return !field(0, "type").querySelector('option[value="deflect"]'); }
  function describe(a) {
    var s = noun() + " " + a.robot + ": " + KIND[a.type].toLowerCase();
    if (a.to) s += " to (" + a.to[0] + ", " + a.to[1] + ")";
    if (a.target) s += " at (" + a.target[0] + ", " + a.target[1] + ")";
    if (a.direction) s += " " + WORD[a.direction];
    if (a.deflect) s += ", deflecting " + WORD[a.deflect];
    return s + ".";
  }
  function writeRow(i, a) {
    field(i, "robot").value = a ? a.robot : ""; field(i, "type").value = a ? a.type : "";
    var cell = a ? (a.to || a.target) : null;
    field(i, "x").value = cell ? cell[0] : ""; field(i, "y").value = cell ? cell[1] : "";
    field(i, "direction").value = a ? (a.direction || a.deflect || "") : "";
    var fs = form().querySelectorAll("fieldset.action")[i];
    $(".summary", fs).textContent = a ? describe(a) : "";
    $(".undo", fs).hidden = !a;
  }
  function help(text) { var h = $("#plan-help"); if (h) h.textContent = text; }
  /* A finger taps; a mouse clicks, and a keyboard Tabs. The planner's help says which. */
  function touch() { return !!(window.matchMedia && window.matchMedia("(pointer: coarse)").matches); }
  function pickHow(n) {
    return touch() ? n + " cells are highlighted: tap one. Step back goes back." :
      n + " cells are highlighted: click one, or Tab to it and press Enter. Escape goes back.";
  }

  /* ---- By the cells: a cell's helium, a mine's yields ---- */
  /* The planner's layer over all the board draws (ring, yields, tip); it takes no click. */
  function topLayer(b, cls) {
    var g = $("g." + cls, b.svg);
    if (!g) g = el("g", {"class": cls, "aria-hidden": "true", "pointer-events": "none"}, b.svg);
    else b.svg.appendChild(g);  // kept last, over what was drawn since
    return g;
  }
  /* What a mine at (x, y) takes from `helium` by the game's rule (the hints' `mining`):
     up to `centre` from the cell and `around` from each neighbour, or (`whole`) that
     much from each cell holding as much, else nothing from it. */
  function yieldAt(helium, x, y) {
    var H = planner.hints, r = H && H.mining, total = 0;
    if (!r || !helium) return undefined;
    for (var cy = Math.max(0, y - 1); cy <= Math.min(H.h - 1, y + 1); cy++)
      for (var cx = Math.max(0, x - 1); cx <= Math.min(H.w - 1, x + 1); cx++) {
        var cap = cx === x && cy === y ? r.centre : r.around, a = helium[cy * H.w + cx];
        total += r.whole ? (a >= cap ? cap : 0) : Math.min(cap, a);
      }
    return total;
  }
  /* A number as the site writes it everywhere (games/words.py): 10198 -> "10,198". */
  function commas(n) { return Number(n).toLocaleString("en"); }
  function yieldWords(n) { return n > 0 ? "mining here yields +" + commas(n) : "mining here yields nothing: no helium here or around"; }
  /* Cell (x, y) in words: its helium as shown, who stands there, a mine target's yield. */
  function cellWords(b, x, y) {
    var s = "(" + x + ", " + y + ") helium " + commas(b.kept.shown[y * b.w + x] || 0);
    var rb = b.svg.querySelector('.rb[data-x="' + x + '"][data-y="' + y + '"]');
    if (rb && rb.style.display !== "none") s += " · " + (rb.getAttribute("aria-label") || "").replace(/\.$/, "");
    if (planner.kind === "mine" && planner.model && $('rect[data-x="' + x + '"][data-y="' + y + '"]', b.hl)) s += " · " + yieldWords(yieldAt(planner.model.helium, x, y));
    return s;
  }
  /* A tip by cell c (above it; below on the top rows) inside the part shown; null: none. */
  function tip(b, c, text) {
    var layer = topLayer(b, "cell-tips");
    layer.textContent = "";
    if (!c) return;
    var g = el("g", {"class": "cell-tip", "data-x": c[0], "data-y": c[1]}, layer);
    var bg = el("rect", {rx: 5, fill: "#16191e", "fill-opacity": 0.93, stroke: "#ffd23f", "stroke-width": 1.5}, g);
    var t = el("text", {fill: "#ffffff", "font-size": 13, "font-weight": 700, "font-family": "system-ui, sans-serif"}, g);
    t.textContent = text;
    var vb = b.svg.viewBox.baseVal, box = t.getBBox(), pad = 6, w = box.width + 2 * pad, h = box.height + 2 * pad;
    var cx = b.m + c[0] * b.cell + b.cell / 2, top = b.m + c[1] * b.cell;
    var x = Math.max(vb.x + 2, Math.min(vb.x + vb.width - w - 2, cx - w / 2));
    var y = top - h - 4;
    if (y < vb.y + 2) y = top + b.cell + 4;
    bg.setAttribute("x", x); bg.setAttribute("y", y); bg.setAttribute("width", w); bg.setAttribute("height", h);
    t.setAttribute("x", x + pad); t.setAttribute("y", y + pad - box.y);
  }
  /* The tip follows the pointer; a click or tap leaves it on its cell (`pinned`). */
  var tipAt = {shown: null, pinned: null};
  function tipOn(b, c) {
    if (c && tipAt.shown && c[0] === tipAt.shown[0] && c[1] === tipAt.shown[1] && b.svg === tipAt.svg) return;
    tipAt.shown = c; tipAt.svg = b.svg;
    tip(b, c, c ? cellWords(b, c[0], c[1]) : null);
  }
  function board() { return matchBoard(); }
  /* The newest answer for the plan so far: k of its actions, the board they leave. */
  function answered() {
    for (var k = Math.min(planner.plan.length, planner.answers.length - 1); k > 0; k--) if (planner.answers[k]) return k;
    return 0;
  }
  function hintsNow() { var k = answered(); return k ? planner.answers[k] : planner.hints; }

  /* ---- Drawing planned orders: each action as the board will show it done ---- */
  /* The direction of `opts` at the smallest angle to (dx, dy); ties to the first in
     N NE E SE S SW W NW (engine/helium3/board.py closest_direction). */
  function closest(dx, dy, opts) {
    var best = opts[0], key = -Infinity;
    DIRS.forEach(function (k) {
      if (opts.indexOf(k) < 0) return;
      var e = DELTA[k], dot = e[0] * dx + e[1] * dy, v = e[0] && e[1] ? dot / Math.SQRT2 : dot;
      if (v > key) { best = k; key = v; }
    });
    return best;
  }
  /* The path the engine picks for robot `id` from `from` to `to` on the model's board
     (engine/helium3/board.py shortest_path): each step stays on a shortest path free of
     living robots, keeps the robot's facing if it can, else turns the least from the
     straight line to the cell. A straight line when no free path is found. */
  function enginePath(b, m, id, from, to) {
    var W = b.w, H = b.h, blocked = {}, dist = {}, start = from[1] * W + from[0], dest = to[1] * W + to[0];
    for (var k in m.robots) { var v = m.robots[k]; if (k !== id && v.alive && !v.doomed) blocked[Math.round(v.y) * W + Math.round(v.x)] = true; }
    if (blocked[dest]) return [from, to];
    dist[dest] = 0;
    for (var q = [dest], qi = 0; qi < q.length && dist[start] === undefined; qi++) {
      var c = q[qi], cx = c % W, cy = (c - cx) / W;
      for (var j = 0; j < 8; j++) {
        var nx = cx + DELTA[DIRS[j]][0], ny = cy + DELTA[DIRS[j]][1], n = ny * W + nx;
        if (nx < 0 || ny < 0 || nx >= W || ny >= H || dist[n] !== undefined || (n !== start && blocked[n])) continue;
        dist[n] = dist[c] + 1; q.push(n);
      }
    }
    if (dist[start] === undefined) return [from, to];
    var r = m.robots[id], face = DIRS[((Math.round(r.ang / 45) % 8) + 8) % 8], cur = from, here = dist[start], path = [from];
    while (here > 0) {
      var opts = DIRS.filter(function (d) {
        var x = cur[0] + DELTA[d][0], y = cur[1] + DELTA[d][1];
        return x >= 0 && y >= 0 && x < W && y < H && dist[y * W + x] === here - 1;
      });
      var step = opts.indexOf(face) >= 0 ? face : closest(to[0] - cur[0], to[1] - cur[1], opts);
      cur = [cur[0] + DELTA[step][0], cur[1] + DELTA[step][1]]; face = step; here -= 1;
      path.push(cur);
    }
    return path;
  }
  function facingTo(dx, dy) {
    if (!dx && !dy) return null;
    var a = (Math.atan2(dx, -dy) * 180 / Math.PI + 360) % 360;
    return Math.round(a / 45) % 8 * 45;
  }
  /* A missile's target: one cell, marked inside its edges. */
  function hitBox(b, x, y, parent) {
    return el("rect", {"class": "hit-cell", x: b.m + x * b.cell + 2, y: b.m + y * b.cell + 2, width: b.cell - 4, height: b.cell - 4, rx: 4}, parent);
  }
  var marks = {
    missile: function (b, from, target, parent) {
      var s = pt(b, from), g = pt(b, target), mx = (s[0] + g[0]) / 2, my = (s[1] + g[1]) / 2;
      var dx = g[0] - s[0], dy = g[1] - s[1], bend = 0.18;
      el("path", {"class": "traj", d: "M" + s.join(" ") + "Q" + (mx - dy * bend) + " " + (my + dx * bend) + " " + g.join(" ")}, parent);
      hitBox(b, target[0], target[1], parent);
      aim(b, g, parent);
    },
    path: function (b, pts, parent) {
      if (pts.length < 2) return;
      var c = pts.map(function (p) { return pt(b, p); });
      el("polyline", {"class": "path", points: c.map(function (p) { return p.join(","); }).join(" ")}, parent);
      c.slice(1, -1).forEach(function (p) { el("circle", {"class": "step", r: 2.6, cx: p[0], cy: p[1]}, parent); });
      var z = c[c.length - 1];
      el("circle", {"class": "origin", r: b.cell * 0.36, cx: c[0][0], cy: c[0][1]}, parent);
      el("circle", {"class": "dest", r: b.cell * 0.42, cx: z[0], cy: z[1]}, parent);
    },
    laser: function (b, segments, parent) { beamFx(b, segments, Infinity, 1, parent, "plan-beam"); },
    blast: function (b, x, y, parent) { area(b, x, y, "blast-area", parent); },
    /* A mine: the cells it digs, and what it takes from them when that is known. */
    mine: function (b, x, y, parent, amount) {
      var box = area(b, x, y, "mine-area", parent);
      if (amount === undefined) return;
      // Over the dug cells (inside them on the top row), kept inside the board at its sides.
      var top = +box.getAttribute("y"), left = +box.getAttribute("x"), right = left + +box.getAttribute("width");
      var side = x < 3 ? "start" : x > b.w - 4 ? "end" : "middle", above = top - 5 > b.m;
      // Over the robots (the planner's top layer), a preview's with the preview.
      var over = topLayer(b, "plan-top");
      if (parent.classList.contains("pv")) over = el("g", {"class": "pv"}, over);
      el("text", {"class": "mine-yield", x: side === "start" ? left + 2 : side === "end" ? right - 2 : (left + right) / 2, y: above ? top - 5 : top + 15,
        "text-anchor": side, "font-size": 13, "font-weight": 800,
        "font-family": "system-ui, sans-serif", fill: amount > 0 ? "#ffe27a" : "#d7dbe0", stroke: "#16191e", "stroke-width": 3, "paint-order": "stroke"},
        over).textContent = amount > 0 ? "+" + commas(amount) : "nothing to mine";
    },
    /* A deflect: an arrow from the shielded robot's centre out in its direction. */
    deflect: function (b, x, y, dir, parent) {
      var c = b.centre(x, y), d = DELTA[dir], n = Math.sqrt(d[0] * d[0] + d[1] * d[1]), ux = d[0] / n, uy = d[1] / n;
      var tip = [c[0] + ux * b.cell * 0.95, c[1] + uy * b.cell * 0.95], k = b.cell * 0.22;
      el("path", {"class": "deflect-mark", fill: "none", stroke: "#5ad1ff", "stroke-width": 3, "stroke-linecap": "round", "stroke-linejoin": "round", d: "M" + c.join(" ") + "L" + tip.join(" ") +
        "M" + (tip[0] - ux * k - uy * k * 0.7) + " " + (tip[1] - uy * k + ux * k * 0.7) + "L" + tip.join(" ") +
        "L" + (tip[0] - ux * k + uy * k * 0.7) + " " + (tip[1] - uy * k - ux * k * 0.7)}, parent);
    },
    doomed: function (b, x, y, parent) {
      var c = b.centre(x, y), k = b.cell * 0.3;
      el("path", {"class": "doom", d: "M" + (c[0] - k) + " " + (c[1] - k) + "l" + 2 * k + " " + 2 * k + "m0 " + -2 * k + "l" + -2 * k + " " + 2 * k}, parent);
    }
  };
  /* Draw actions from the engine's own events (the first ones planned, resolved on the
     board the seat believes in): paths, shots, blasts and deflects; the model ends as
     they leave it. */
  function planFromEvents(b, m, events, parent) {
    var paths = {}, T = {w: b.w, timing: {}};
    events.forEach(function (e) {
      var er = m.robots[e.robot];
      if (e.type === "moved" && er) paths[e.robot] = (paths[e.robot] || [[er.x, er.y]]).concat(e.path);
      else if (e.type === "shielded" && e.deflect && er) marks.deflect(b, er.x, er.y, e.deflect, parent);
      else if (e.type === "missile" && er) marks.missile(b, [er.x, er.y], e.target, parent);
      else if (e.type === "laser") marks.laser(b, e.segments, parent);
      else if (e.type === "kamikaze" && er) marks.blast(b, er.x, er.y, parent);
      else if (e.type === "mined" && er) marks.mine(b, er.x, er.y, parent, e.amount);
      if (e.type === "destroyed" && er) { applyEvent(m, e, e.duration_ms + 1, T); er.alive = true; er.fade = 1; er.doomed = true; return; }
      applyEvent(m, e, e.duration_ms + 1, T);
    });
    for (var id in paths) marks.path(b, paths[id], parent);
  }
  /* Draw an action from itself and its robot's hints (a second action, or a first one
     whose engine answer has not come yet): the same marks, the model moved the same way. */
  function planFromAction(b, m, a, h, parent) {
    var r = m.robots[a.robot]; if (!r) return;
    var from = [r.x, r.y];
    r.active = true;
    if (a.to) {
      var pts = enginePath(b, m, a.robot, from, a.to), last = pts[pts.length - 2] || from;
      marks.path(b, pts, parent);
      var f = facingTo(a.to[0] - last[0], a.to[1] - last[1]);
      if (f !== null) r.ang = f;
      r.x = a.to[0]; r.y = a.to[1];
    }
    r.armed = null; r.shield = false; r.deflect = null;
    if (a.type === "mine") marks.mine(b, r.x, r.y, parent, yieldAt(m.helium, r.x, r.y));
    else if (a.type === "arm_missile") r.armed = "missile";
    else if (a.type === "arm_laser") r.armed = "laser";
    else if (a.type === "shield") { r.shield = true; r.deflect = a.deflect || null; if (a.deflect) marks.deflect(b, r.x, r.y, a.deflect, parent); }
    else if (a.type === "deflect" && a.direction) { r.shield = true; r.deflect = a.direction; marks.deflect(b, r.x, r.y, a.direction, parent); }
    else if (a.type === "fire_missile" && a.target) {
      marks.missile(b, [r.x, r.y], a.target, parent);
      hitAt(m, [a.target], null);
      var fm = facingTo(a.target[0] - r.x, a.target[1] - r.y); if (fm !== null) r.ang = fm;
    } else if (a.type === "fire_laser" && a.direction) {
      var beam = h && h.laser && h.laser[a.direction], d = DELTA[a.direction], end = [r.x, r.y];
      while (end[0] + d[0] >= 0 && end[1] + d[1] >= 0 && end[0] + d[0] < b.w && end[1] + d[1] < b.h) end = [end[0] + d[0], end[1] + d[1]];
      marks.laser(b, beam ? beam.segments : [[[r.x, r.y], end]], parent);
      r.ang = DIRS.indexOf(a.direction) * 45;
      (beam ? beam.destroys : []).forEach(function (id) { var v = m.robots[id]; if (v) v.doomed = true; });
    } else if (a.type === "kamikaze") { marks.blast(b, r.x, r.y, parent); hitAt(m, around(r.x, r.y), a.robot); r.doomed = true; }
  }
  /* Robots a blast on `cells` destroys, as far as the seat knows: active, no shield it can see. */
  function hitAt(m, cells, except) {
    for (var id in m.robots) {
      var v = m.robots[id];
      if (id === except || !v.alive || !v.active || v.shield) continue;
      if (cells.some(function (c) { return c[0] === v.x && c[1] === v.y; })) v.doomed = true;
    }
  }
  function around(x, y) { var out = []; for (var dy = -1; dy <= 1; dy++) for (var dx = -1; dx <= 1; dx++) if (dx || dy) out.push([x + dx, y + dy]); return out; }
  function robotHints(id) {
    var k = answered(), after = k && planner.answers[k].robots[id];
    return after || (planner.hints && planner.hints.robots[id]) || null;
  }
  /* While a cell is pointed at or focused, the action it would make is drawn. */
  function preview(rect) {
    var b = board(), old = $(".pv", b.plan); if (old) old.remove();
    topLayer(b, "plan-top").querySelectorAll(".pv").forEach(function (g) { g.remove(); });
    if (!rect || !planner.robot || !planner.kind || !planner.model) return;
    var c = [+rect.dataset.x, +rect.dataset.y], a = {robot: planner.robot, type: planner.kind};
    var r = planner.model.robots[a.robot];
    if (planner.kind === "fire_missile") a.target = c; else if (r && (c[0] !== r.x || c[1] !== r.y)) a.to = c;
    planFromAction(b, copy(planner.model), a, robotHints(a.robot), el("g", {"class": "pv"}, b.plan));
  }

  planner.show = function () {
    var b = board(), hl = b.hl, hints = hintsNow();
    hl.textContent = ""; if (b.plan) b.plan.textContent = "";
    var top = topLayer(b, "plan-top"), chosen = planner.robot;
    top.textContent = "";
    var m = copy(b.model), layer = b.plan || hl;
    // The actions the engine has answered for are drawn from its events, the rest from themselves.
    var done = answered();
    planner.plan.forEach(function (a, i) {
      var first = i === 0 && done && planner.answers[done].first;
      if (first) planFromEvents(b, m, first.events, layer);
      else if (i >= done) planFromAction(b, m, a, robotHints(a.robot), layer);
      if (first) first.robots.forEach(function (r) { var mr = m.robots[r.id]; if (mr && !mr.doomed) { mr.x = r.x; mr.y = r.y; mr.alive = r.alive; mr.ang = DIRS.indexOf(r.facing) * 45; } });
      if (b.els[a.robot]) b.els[a.robot].classList.add("planned");
    });
    planner.model = m;
    // A robot the plan destroys is crossed out, over the robots (the effects' layer).
    b.draw(m, [function (bd) { for (var id in m.robots) { var v = m.robots[id]; if (v.doomed && v.alive) marks.doomed(bd, v.x, v.y, bd.fx); } }]);
    Object.keys(b.els).forEach(function (id) {
      var g = b.els[id];
      g.classList.toggle("sel", id === planner.robot);
      g.classList.toggle("planned", planner.plan.some(function (a) { return a.robot === id; }));
      if (g.classList.contains("own")) g.setAttribute("aria-pressed", id === planner.robot ? "true" : "false");
    });
    b.svg.classList.toggle("picking", !!(planner.kind && hints));
    top = topLayer(b, "plan-top"); chosen = chosen && m.robots[chosen];
    if (chosen) {
      // The chosen robot: a gold ring around it, over the cells lit for it.
      var cc = b.centre(chosen.x, chosen.y);
      el("circle", {"class": "sel-ring", cx: cc[0], cy: cc[1], r: b.cell * 0.62, fill: "none", stroke: "#ffd23f", "stroke-width": 3}, top);
      el("circle", {"class": "sel-ring-edge", cx: cc[0], cy: cc[1], r: b.cell * 0.62 + 2.5, fill: "none", stroke: "#16191e", "stroke-width": 1.5, "stroke-opacity": 0.8}, top);
    }
    var h = planner.robot && planner.kind && hints ? hints.robots[planner.robot] : null, kind = planner.kind, cells = [];
    if (!h) kind = null;
    if (kind === "fire_missile") {
      for (var i = 0; i < h.missile.length; i++) if (h.missile[i] === "1") cells.push([i % b.w, Math.floor(i / b.w), "tg", "Fire the missile at"]);
    } else if (kind && hints.ranges[kind] > 0) {
      for (var j = 0; j < h.reach.length; j++) {
        var d = h.reach[j];
        if (d === "." || +d > hints.ranges[kind] || (kind === "move" && d === "0")) continue;
        cells.push([j % b.w, Math.floor(j / b.w), "", (d === "0" ? KIND[kind] + " here at" : KIND[kind] + " to")]);
      }
    }
    cells.forEach(function (c) {
      var label = c[3] + " (" + c[0] + ", " + c[1] + "), helium " + b.model.helium[c[1] * b.w + c[0]];
      // A mine's targets each say what mining there yields, before one is chosen.
      var gain = kind === "mine" ? yieldAt(m.helium, c[0], c[1]) : undefined;
      if (gain !== undefined) label += ": " + yieldWords(gain);
      var r = el("rect", {x: b.m + c[0] * b.cell + 1, y: b.m + c[1] * b.cell + 1, width: b.cell - 2, height: b.cell - 2,
        "class": c[2], tabindex: "0", role: "button", "data-x": c[0], "data-y": c[1], "aria-label": label}, hl);
      el("title", {}, r).textContent = c[3] + " (" + c[0] + ", " + c[1] + ")" + (gain !== undefined ? ": " + (gain > 0 ? "+" + commas(gain) : "nothing to mine") : "");
      r.addEventListener("mouseenter", function () { preview(r); }); r.addEventListener("focus", function () { preview(r); });
      if (gain !== undefined) {
        var yt = el("text", {"class": "yield" + (gain > 0 ? "" : " none"), "data-x": c[0], "data-y": c[1], x: b.m + c[0] * b.cell + b.cell / 2, y: b.m + c[1] * b.cell + b.cell - 4,
          "text-anchor": "middle", "font-size": 10.5, "font-weight": 800, "font-family": "system-ui, sans-serif",
          fill: gain > 0 ? "#ffe27a" : "#d7dbe0", stroke: "#16191e", "stroke-width": 2.6, "paint-order": "stroke"}, top);
        yt.textContent = gain > 0 ? "+" + commas(gain) : "0";
        // "+2,500" is wider than a cell at a readable size: squeezed to fit its own cell.
        if (yt.getComputedTextLength() > b.cell - 3) { yt.setAttribute("textLength", b.cell - 3); yt.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
      }
    });
    if (cells.length) help(pickHow(cells.length) + (kind === "mine" ? " Each says what mining there yields." : ""));
    if (tipAt.shown && tipAt.svg === b.svg) { var again = tipAt.shown; tipAt.shown = null; tipOn(b, again); }
    var r = planner.robot && m.robots[planner.robot], stepBack = $("#step-back");
    // What Escape does, for a thumb: the last choice undone.
    if (stepBack) stepBack.hidden = !(planner.robot || planner.plan.length);
    zoomTo(!r ? null : kind === "fire_laser" ? [0, 0, b.w - 1, b.h - 1] : cells.reduce(function (z, c) {
      return [Math.min(z[0], c[0]), Math.min(z[1], c[1]), Math.max(z[2], c[0]), Math.max(z[3], c[1])];
    }, [r.x, r.y, r.x, r.y]));
  };
  /* On a phone the board zooms to the chosen robot's area (ZOOM_CELLS a side, or as
     many as its highlighted cells need), so a finger can pick a cell; the zoom button
     shows the whole board again. `box` is [x0, y0, x1, y1] in cells, or null. */
  var ZOOM_CELLS = 9, PHONE = "(max-width: 600px)";
  function zoomTo(box) {
    var svg = $("#board-wrap svg.board"), btn = $("#zoom");
    if (!svg) return;
    if (!svg.dataset.vb) svg.dataset.vb = svg.getAttribute("viewBox");
    var phone = !!(window.matchMedia && window.matchMedia(PHONE).matches);
    if (btn) { btn.hidden = !(phone && box); btn.textContent = planner.wide ? "Zoom to the " + piece() : "Whole board"; }
    if (!phone || !box || planner.wide) { svg.setAttribute("viewBox", svg.dataset.vb); svg.classList.remove("zoomed"); return; }
    var b = board(), n = Math.min(Math.max(ZOOM_CELLS, box[2] - box[0] + 1, box[3] - box[1] + 1), b.w, b.h);
    var x0 = Math.max(0, Math.min(b.w - n, Math.round((box[0] + box[2] + 1 - n) / 2)));
    var y0 = Math.max(0, Math.min(b.h - n, Math.round((box[1] + box[3] + 1 - n) / 2)));
    // The whole board keeps its margins (the coordinates); a zoomed one shows cells only.
    svg.setAttribute("viewBox", n >= b.w && n >= b.h ? svg.dataset.vb : [b.m + x0 * b.cell, b.m + y0 * b.cell, n * b.cell, n * b.cell].join(" "));
    svg.classList.toggle("zoomed", n < b.w || n < b.h);
  }
  function dirButtons(kind, h) {
    var box = $("#dirs"); box.replaceChildren(); box.hidden = false;
    var list = kind === "shield" ? [""].concat(DIRS) : DIRS;
    list.forEach(function (d) {
      var btn = document.createElement("button");
      btn.type = "button"; btn.dataset.dir = d;
      btn.textContent = d ? (kind === "fire_laser" ? "Fire " : "Deflect ") + WORD[d] : "No deflect";
      if (kind === "deflect" && h.deflect === d) btn.textContent += " (as now)";
      if (kind === "fire_laser" && h.laser) {
        var beam = h.laser[d], hit = beam.destroys.filter(function (id) { return id !== planner.robot; });
        if (hit.length) btn.textContent += " (destroys " + hit.join(", ") + ")";
        var preview = function () {
          var b = board(); b.hl.querySelectorAll(".beam, .beam-glow").forEach(function (x) { x.remove(); });
          beamFx(b, beam.segments, Infinity, 1, b.hl, "plan-beam");
        };
        btn.addEventListener("mouseenter", preview); btn.addEventListener("focus", preview);
      }
      if (kind === "shield" || kind === "deflect") {
        // The shield as it will stand: at its cell, with this deflect's arrow.
        var shieldPreview = function () {
          var b = board(), old = $(".pv", b.plan), m = copy(planner.model), a = {robot: planner.robot, type: kind};
          if (kind === "deflect") a.direction = d; else a.deflect = d || null;
          if (old) old.remove();
          var r = m.robots[a.robot], c = planner.cell;
          if (c && r && (c[0] !== r.x || c[1] !== r.y)) a.to = c;
          planFromAction(b, m, a, robotHints(a.robot), el("g", {"class": "pv"}, b.plan));
          b.draw(m, []);
        };
        btn.addEventListener("mouseenter", shieldPreview); btn.addEventListener("focus", shieldPreview);
      }
      btn.addEventListener("click", function () { finish(d); });
      box.appendChild(btn);
    });
    help(kind === "fire_laser" ? "Choose the laser's direction. The beam is drawn as far as you can know: a hidden shield may still stop or turn it." :
      kind === "deflect" ? "Choose where the shield turns a laser that meets it." : "Choose the shield's deflect direction.");
    box.firstChild.focus({preventScroll: true});
  }
  function chooseRobot(id) {
    // While the engine is asked about the plan so far, the choice waits for its answer.
    if (planner.waiting) { planner.wanted = id; return; }
    var hints = hintsNow();
    if (!hints || !hints.robots[id] || planner.plan.length >= maxActions()) return;
    if (planner.plan.some(function (a) { return a.robot === id; })) return;
    planner.robot = id; planner.kind = null; planner.cell = null;
    var box = $("#kinds"); box.replaceChildren(); $("#dirs").hidden = true;
    hints.robots[id].kinds.forEach(function (k) {
      var btn = document.createElement("button");
      btn.type = "button"; btn.dataset.kind = k; btn.setAttribute("aria-pressed", "false");
      btn.textContent = KIND[k] + (hints.ranges[k] ? " (" + hints.ranges[k] + ")" : "");
      btn.addEventListener("click", function (e) { chooseKind(k, e.detail === 0); });
      box.appendChild(btn);
    });
    help(noun() + " " + id + " chosen. Pick its action.");
    planner.wide = false;
    planner.show();
    box.firstChild.focus({preventScroll: true});
  }
  function chooseKind(k, byKey) {
    planner.kind = k;
    $("#kinds").querySelectorAll("button").forEach(function (b) { b.setAttribute("aria-pressed", b.dataset.kind === k ? "true" : "false"); });
    $("#dirs").hidden = true;
    if (k === "kamikaze") return finish(null);
    if (k === "fire_laser" || k === "deflect") { planner.show(); return dirButtons(k, hintsNow().robots[planner.robot]); }
    planner.show();
    // A key's choice focuses the first lit cell (a keyboard points by focus); a click or
    // tap chooses none: the lit cells' group takes the focus, Tab goes on to the first.
    var hl = board().hl, first = $("rect", hl);
    if (!first) return;
    if (byKey) { first.focus({preventScroll: true}); return; }
    hl.setAttribute("tabindex", "-1"); hl.style.outline = "none";
    hl.focus({preventScroll: true});
  }
  function chooseCell(x, y) {
    planner.cell = [x, y];
    if (planner.kind === "shield" && shieldDeflects()) return dirButtons("shield", {});
    finish(null);
  }
  function finish(dir) {
    var k = planner.kind, h = hintsNow().robots[planner.robot], a = {robot: planner.robot, type: k};
    var cell = planner.cell;
    if (k === "fire_missile") a.target = cell;
    else if (k === "fire_laser" || k === "deflect") a.direction = dir;
    else if (k !== "kamikaze") { if (cell && (cell[0] !== h.x || cell[1] !== h.y || k === "move")) a.to = cell; if (k === "shield" && dir) a.deflect = dir; }
    var i = planner.plan.length;
    planner.plan.push(a); writeRow(i, a);
    if (k === "mine") {
      var at = a.to || [h.x, h.y], gain = yieldAt(planner.model && planner.model.helium, at[0], at[1]);
      if (gain !== undefined) {
        var summary = $(".summary", form().querySelectorAll("fieldset.action")[i]);
        summary.textContent += gain > 0 ? " It yields +" + commas(gain) + " helium." : " It would mine nothing: no helium there or around.";
      }
    }
    planner.robot = null; planner.kind = null; planner.cell = null;
    $("#kinds").replaceChildren(); $("#dirs").hidden = true;
    if (i + 1 < maxActions()) fetchAfter(i + 1);
    else { planner.show(); help(count(i + 1) + " actions planned (listed under Your orders): send them, or step back."); $("#bar-send").focus({preventScroll: true}); }
  }
  var NUMBER = ["No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"];
  function count(n) { return NUMBER[n] || String(n); }
  /* Ask the engine about the first n planned actions: the board they leave and the
     hints there, or its refusal, shown next to the action it names. */
  function fetchAfter(n) {
    var asked = ++planner.asked, planned = planner.plan.slice(0, n);
    var url = page.dataset.hintsUrl + "?first=" + encodeURIComponent(JSON.stringify(planned));
    planner.waiting = asked;
    fetch(url, {credentials: "same-origin"}).then(function (r) { return r.json(); }).then(function (data) {
      if (asked !== planner.asked) return;  // the plan changed since it was asked about
      var sets = form().querySelectorAll("fieldset.action");
      sets.forEach(function (fs) { var old = fs.querySelector(".action-error"); if (old) old.remove(); });
      if (data.error) {
        var at = typeof data.error.action === "number" && data.error.action < n ? data.error.action : n - 1, fs = sets[at];
        var box = document.createElement("div"); box.className = "action-error"; box.setAttribute("role", "alert"); fs.insertBefore(box, $(".undo", fs));
        box.textContent = data.error.message;
        help("The engine refuses this action: " + data.error.message + " Undo it or send to see the full answer.");
      } else {
        planner.answers[n] = data;
        help(n === 1 ? "Action 1 planned. The board shows it done: choose a second " + piece() + ", or send your orders." :
          "Action " + n + " planned. The board shows all " + n + " done: choose another of your " + noun().toLowerCase() + "s (up to " + maxActions() + " actions), or send your orders.");
      }
    }).catch(function () {
      if (asked === planner.asked) help("The board could not ask the server about this plan; it is drawn as planned. Send it to see the full answer.");
    }).then(function () {
      if (asked !== planner.asked) return;
      planner.waiting = 0;
      planner.show();
      var wanted = planner.wanted; planner.wanted = null;
      if (wanted) chooseRobot(wanted);
    });
  }
  function undo(i) {
    var keep = planner.plan.slice(0, i), sets = form().querySelectorAll("fieldset.action");
    for (var j = i; j < sets.length; j++) { writeRow(j, null); var old = sets[j].querySelector(".action-error"); if (old) old.remove(); }
    planner.plan = keep; planner.robot = null; planner.kind = null;
    // Answers about longer plans go; a question still on its way is dropped.
    planner.answers.length = Math.min(planner.answers.length, i + 1);
    planner.asked++; planner.waiting = 0; planner.wanted = null;
    $("#kinds").replaceChildren(); $("#dirs").hidden = true;
    help(keep.length === 1 ? "Back to one planned action." : keep.length ? "Back to " + count(keep.length).toLowerCase() + " planned actions." : "Nothing planned. Choose one of your " + noun().toLowerCase() + "s.");
    if (keep.length && !planner.answers[keep.length]) fetchAfter(keep.length); else planner.show();
  }
  function back() {
    if (!$("#dirs").hidden) { $("#dirs").hidden = true; planner.cell = null; planner.show(); return; }
    if (planner.kind) {
      planner.kind = null; planner.show(); help("Pick the " + piece() + "'s action.");
      $("#kinds").querySelectorAll("button").forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
      return;
    }
    if (planner.robot) { planner.robot = null; $("#kinds").replaceChildren(); planner.show(); help("Choose one of your " + noun().toLowerCase() + "s."); return; }
    if (planner.plan.length) undo(planner.plan.length - 1);
  }
  function initPlanner() {
    var hs = $("#hints"), f = form();
    tipAt.pinned = null; tipAt.shown = null;
    planner.hints = null; planner.plan = []; planner.answers = []; planner.robot = null; planner.kind = null; planner.wide = false;
    planner.asked++; planner.waiting = 0; planner.wanted = null;
    if (hs && f) { hs.dataset.used = "1"; planner.hints = JSON.parse(hs.textContent); }
    // The planner's bar under the board sends the orders; the form's own button is for pages without the script.
    var bar = $("#planner"), own = f && $(".send", f);
    if (bar) bar.hidden = !planner.hints;
    if (own) own.hidden = !!(planner.hints && bar);
    if (!planner.hints) { if (bar) { $("#kinds").replaceChildren(); $("#dirs").hidden = true; } zoomTo(null); return; }
    f.querySelectorAll(".undo").forEach(function (b, i) { b.addEventListener("click", function () { undo(i); }); });
    // Orders the server sent back (an engine error) stay planned on the board.
    for (var i = 0; i < maxActions(); i++) { var a = actionFromRow(i); if (a) { planner.plan.push(a); writeRow(i, a); } }
    var ask = Math.min(planner.plan.length, maxActions() - 1);
    if (!planner.plan.length && touch()) help("Choose one of your " + piece() + "s on the board: tap it. Step back undoes.");
    if (ask) fetchAfter(ask); else planner.show();
  }

  function onBoardActivate(target, evt) {
    if (mp.playing()) { mp.skip(); return; }
    var hlCell = target.closest(".hl rect"), rb = target.closest(".rb");
    if (!hlCell && planner.kind) {
      // A target cell with a robot on it: the click meant the cell.
      var at = rb ? [rb.dataset.x, rb.dataset.y] : evt && evt.clientX !== undefined ? board().cellAt(evt) : null;
      if (at) hlCell = $('#board-wrap .hl rect[data-x="' + at[0] + '"][data-y="' + at[1] + '"]');
    }
    if (hlCell) return chooseCell(+hlCell.dataset.x, +hlCell.dataset.y);
    if (rb && rb.classList.contains("own") && planner.hints) return chooseRobot(rb.dataset.id);
    var b = board(), c = rb ? [+rb.dataset.x, +rb.dataset.y] : evt && evt.clientX !== undefined ? b.cellAt(evt) : null;
    if (c) {
      var info = "(" + c[0] + ", " + c[1] + "): helium " + b.model.helium[c[1] * b.w + c[0]];
      if (rb) info += ". " + rb.getAttribute("aria-label");
      $("#cell-info").textContent = info;
      // ...and by the cell, where the eye is.
      tipAt.pinned = c; tipAt.shown = null; tipOn(b, c);
    }
  }

  /* The board's own listeners: they stay on the board's box (#board-wrap), which keeps
     its place whatever board is put in it. */
  function listen() {
    var wrap = $("#board-wrap");
    wrap.addEventListener("click", function (e) { onBoardActivate(e.target, e); });
    // The pointer's cell tells its helium; off the board, the cell last clicked.
    wrap.addEventListener("mousemove", function (e) {
      var svg = $("svg.board", wrap); if (!svg || !svg.h3) return;
      var b = board(); tipOn(b, b.cellAt(e) || tipAt.pinned);
    });
    wrap.addEventListener("mouseleave", function () { var svg = $("svg.board", wrap); if (svg && svg.h3) tipOn(board(), tipAt.pinned); });
    wrap.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onBoardActivate(e.target, null); }
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { if (mp.playing()) mp.skip(); else if (planner.hints) back(); }
    });
    var zoom = $("#zoom");
    if (zoom) zoom.addEventListener("click", function () { planner.wide = !planner.wide; planner.show(); });
    var stepBack = $("#step-back");
    if (stepBack) stepBack.addEventListener("click", function () { if (planner.hints) back(); });
    // Orders sent and accepted: their plan is not drawn again (the next turn's
    // board may have lost its robots); the next orders box brings a new one.
    document.addEventListener("matchpage:accepted", function () { planner.hints = null; });
  }
  /* New parts of the page (at load, after a poll, after the movies): the planner for
     new orders; the money a movie left is the panel's own again. */
  function refresh() {
    var hs = $("#hints");
    if (!hs || !hs.dataset.used) initPlanner();
    carried = null;
    var status = $("#match-status"); if (status) status.hidden = false;
  }
  /* A board swapped in or left by a movie: the plan on it, the battle clock at it. */
  function settled() {
    planner.redraw();
    var svg = $("#board-wrap svg.board"), bar = $("#clock-bar"), text = $("#clock-text");
    if (bar && svg && svg.dataset.clock !== undefined) { bar.value = +svg.dataset.clock; if (text) text.textContent = clockOf(+svg.dataset.clock, +text.dataset.length); }
  }

  /* ---- The match page and the replay page: the platform's (games/page.js) ---- */
  function who(t) { return t.seat ? "seat " + t.seat : ""; }
  if (page && $("#board-wrap svg.board")) {
    // From here the page's catching up is page.js's; the template's fallback (for a
    // page whose script never loads) is not needed.
    if (window.h3CatchUpTimer) clearTimeout(window.h3CatchUpTimer);
    listen();
  }
  var started = mp.init({
    stage: matchStage,
    tail: 0,
    // A long turn plays faster (its events in a few seconds); a turn of quiet events still shows.
    pace: true,
    lasts: lasts,
    who: who,
    follow: true,
    // The planner waits for the board to reach the turn to play.
    watch: true,
    // Whose turn it is, on the panel.
    followTurn: function (t) {
      document.querySelectorAll("#panel tr[data-seat]").forEach(function (tr) { tr.classList.toggle("to-move", +tr.dataset.seat === t.seat); });
      // The heading's "Finished" (a page opened after the end) waits for the last turn too.
      var status = $("#match-status"); if (status) status.hidden = true;
    },
    refresh: refresh,
    // The hints come with the viewer's move: without them its orders are in (or it is another's move).
    ordersBox: function () { return $("#hints"); },
    drawPlan: settled,
    // Refused: the planner starts again from the orders sent back, as after a plain post.
    sendRefused: refresh
  });
  if (started) {
    // The path the board draws for a planned move of `id` to `to`, on the board shown:
    // for the browser tests (and the console), which check it against the engine's.
    window.helium3Path = function (id, to) {
      var b = board(), m = copy(b.model), r = m.robots[id];
      return r ? enginePath(b, m, id, [r.x, r.y], to) : null;
    };
    // The moment the board shows while it plays (the movie's turn, money and robots), or null.
    window.helium3Now = function () {
      if (!mp.playing() || !live || !live.model) return null;
      var robots = {}, m = live.model;
      for (var id in m.robots) robots[id] = {seat: m.robots[id].seat, alive: m.robots[id].alive, x: m.robots[id].x, y: m.robots[id].y};
      return {turn: live.turn, money: copy(m.money || {}), robots: robots, skipping: mp.skipping(), paused: mp.paused()};
    };
  }
  /* The replay page: the whole finished match from its record, over the battle clock;
     its money at every moment. */
  var replay = $("#replay") || $("#replay-turns");
  if (replay) mp.replay(replay, {stage: function (svg, following, mv) {
    var b = new Board(svg), money = {}, record = mv.data.record;
    if (record) record.initial.players.forEach(function (p) { money[p.seat] = p.money; });
    return new Stage(b, new Movie(b, {turns: mv.turns, timing: mv.data.timing, money: money}));
  }, tail: 0, who: who});
})();
