/* Skyport's board script: the loadout chosen on weapon cards, a turn's three actions
   planned by pointing at the hex board, each turn's events played on the server's SVG,
   and a finished match played turn by turn.

   The server draws every board (games/play/skyport/board.py). This script reads only
   what the drawing promises: the SVG's data-size; one `polygon.sp-tile.t-X` per tile
   with data-j, data-k, data-cx and data-cy (X the tile's letter, cx and cy its centre
   in viewBox units); one `g.sp-player.seat-S` per living player with data-seat,
   data-j, data-k and data-health. It moves those groups and draws in layers of its
   own: the plan (reach, paths, aim) and the effects (shots, blasts, numbers). What a
   planned action may do is the rulebook's (docs/games/skyport*.md): the planner
   refuses what the engine would refuse, and the engine judges the orders anyway.

   A turn's timing is the engine's: each event starts at its t_ms and lasts its
   duration_ms, the turn lasts its turn_ms; the speed control only divides them. Once
   a turn has played, the server's board after it replaces the animated one. The
   match page's poll and movies (the panel held back while the board catches up) and
   the replay page's scrubber are the platform's (games/page.js), given this
   script's hooks. */
(function () {
  "use strict";
  // The platform's part of the page (games/page.js): polls, movies, the replay.
  var mp = window.matchPage;
  var DIRS = ["up", "right-up", "right-down", "down", "left-down", "left-up"];
  var STEP = {"up": [-1, -1], "down": [1, 1], "right-up": [-1, 0], "right-down": [0, 1], "left-up": [0, -1], "left-down": [1, 0]};
  var ARROW = {"up": "↑", "right-up": "↗", "right-down": "↘", "down": "↓", "left-down": "↙", "left-up": "↖"};
  var WEAPONS = ["laser", "mortar", "droid"];
  var RESOURCE_OF = {laser: "rubidium", mortar: "explosium", droid: "scrap"};
  var MINED = {R: "rubidium", E: "explosium", C: "scrap"};
  var COST = [0, 0, 4, 5];  // resources to reach level 2, then level 3
  var STATS = {
    laser: {range: [5, 6, 7], damage: [16, 18, 22], area: null, what: "A beam in one of six directions: it crosses void, spawns and players and stops at the first rock."},
    mortar: {range: [2, 3, 4], damage: [20, 20, 25], area: 18, what: "A shell on any tile within range: the tile and the six around it are hit. It flies over everything; on rock, void or a spawn it does nothing."},
    droid: {range: [3, 4, 5], damage: [22, 24, 26], area: 10, what: "Walks the steps you give it, through players, and explodes where it stops: that tile and the six around it."}
  };
  var RANGE_WORD = {laser: "tiles in a line", mortar: "tiles away", droid: "steps"};
  var BLOCKED = {V: true, O: true, S: true};
  var $ = mp.dom.$, el = mp.dom.el, html = mp.dom.html, setText = mp.dom.setText;
  function key(j, k) { return j + "," + k; }
  function cap1(s) { return s.charAt(0).toUpperCase() + s.slice(1); }
  function distance(a, b) {
    var dj = b[0] - a[0], dk = b[1] - a[1];
    return (dj >= 0) === (dk >= 0) || dj === 0 || dk === 0 ? Math.max(Math.abs(dj), Math.abs(dk)) : Math.abs(dj) + Math.abs(dk);
  }
  function step(c, d) { return [c[0] + STEP[d][0], c[1] + STEP[d][1]]; }
  function around(c) { return DIRS.map(function (d) { return step(c, d); }); }

  /* ---- The board: tiles and players, read from the server's SVG ---- */
  function Board(svg) {
    this.svg = svg; this.size = +svg.dataset.size; this.tiles = {}; this.players = {}; this.bodies = {};
    svg.querySelectorAll(".sp-tile").forEach(function (t) {
      var m = /(?:^|\s)t-([A-Z])(?:\s|$)/.exec(t.getAttribute("class") || "");
      this.tiles[key(+t.dataset.j, +t.dataset.k)] = {el: t, letter: m ? m[1] : "G", cx: +t.dataset.cx, cy: +t.dataset.cy};
    }, this);
    svg.querySelectorAll(".sp-player").forEach(function (p) { this.players[+p.dataset.seat] = p; }, this);
    // Bodies, should the drawing mark them, block moves as players do.
    svg.querySelectorAll(".sp-body[data-j]").forEach(function (p) { this.bodies[key(+p.dataset.j, +p.dataset.k)] = true; }, this);
    var a = this.tiles[key(0, 0)], b = this.tiles[key(0, 1)] || this.tiles[key(1, 0)];
    this.unit = a && b ? Math.hypot(a.cx - b.cx, a.cy - b.cy) : 20;
    this.fx = $("g.sp-fx", svg) || el("g", {"class": "sp-fx", "pointer-events": "none"}, svg);
    this.plan = $("g.sp-plan", svg) || el("g", {"class": "sp-plan", "pointer-events": "none"}, svg, this.fx);
  }
  Board.prototype.tile = function (c) { return this.tiles[key(c[0], c[1])] || null; };
  Board.prototype.letter = function (c) { var t = this.tile(c); return t ? t.letter : null; };
  Board.prototype.centre = function (c) { var t = this.tile(c); return t ? [t.cx, t.cy] : [0, 0]; };
  Board.prototype.playerAt = function (c) {
    for (var s in this.players) { var p = this.players[s]; if (+p.dataset.j === c[0] && +p.dataset.k === c[1]) return +s; }
    return 0;
  };
  Board.prototype.describe = function (c) {
    var t = this.tile(c); if (!t) return "";
    var names = {G: "grass", E: "explosium", R: "rubidium", C: "scrap", V: "void", S: "a spawn", O: "rock"};
    var s = this.playerAt(c), p = s ? this.players[s] : null;
    return "(" + c[0] + ", " + c[1] + "): " + (names[t.letter] || t.letter) + (p ? ", seat " + s + " with " + p.dataset.health + " health" : "") + ".";
  };

  /* ---- Animating one turn from its events ---- */
  function baseOf(p) {
    if (!p.spBase) {
      var list = p.transform && p.transform.baseVal, m = list && list.numberOfItems ? list.consolidate().matrix : null;
      p.spBase = m ? [m.a, m.b, m.c, m.d, m.e, m.f] : [1, 0, 0, 1, 0, 0];
      p.spOff = [0, 0];
    }
    return p.spBase;
  }
  function placed(p, ox, oy) {
    var b = baseOf(p);
    return "matrix(" + b[0] + "," + b[1] + "," + b[2] + "," + b[3] + "," + (b[4] + ox) + "," + (b[5] + oy) + ")";
  }
  function animate(node, frames, ms, easing) {
    if (ms > 0 && node.animate) return node.animate(frames, {duration: ms, easing: easing || "ease-in-out", fill: "forwards"});
    return null;
  }
  function gone(node, a) { if (a) a.onfinish = function () { node.remove(); }; else node.remove(); }
  function at(x, y) { return "translate(" + x + "px," + y + "px)"; }

  /* What one turn does to the board: `fire(e)` starts event e's effect. The stage keeps
     where each player stands, so a movie of several turns plays each on the board the
     one before left. `onScore(seat, delta)` follows the points. */
  function Stage(board, onScore) {
    this.b = board; this.onScore = onScore || function () {};
    this.pos = {};
    for (var s in board.players) { var p = board.players[s]; this.pos[s] = [+p.dataset.j, +p.dataset.k]; }
  }
  Stage.prototype.place = function (seat, c, ms) {
    var b = this.b, p = b.players[seat];
    if (!p) return;
    var home = [+p.dataset.j, +p.dataset.k], h = b.centre(home), t = b.centre(c);
    baseOf(p);
    var from = placed(p, p.spOff[0], p.spOff[1]);
    p.spOff = [t[0] - h[0], t[1] - h[1]];
    var to = placed(p, p.spOff[0], p.spOff[1]);
    p.style.transform = to;
    animate(p, [{transform: from}, {transform: to}], ms);
    this.pos[seat] = c;
  };
  Stage.prototype.flash = function (c, cls, ms) {
    var t = this.b.tile(c); if (!t) return;
    var f = el("polygon", {"class": "sp-flash " + cls, points: t.el.getAttribute("points") || ""}, this.b.fx);
    gone(f, animate(f, [{opacity: 1}, {opacity: 0}], Math.max(ms, 250), "ease-out"));
  };
  Stage.prototype.blast = function (c, ms) {
    var self = this;
    this.flash(c, "sp-blast-main", ms * 1.5);
    around(c).forEach(function (n) { self.flash(n, "sp-blast-area", ms * 1.5); });
  };
  /* A number floating up from a tile. Each float keeps the band it sweeps while it
     rises (its box from start to end) until it is removed; a new one takes the nearest place, above or
     below, whose band crosses no living float's, so two never overlap whatever
     their timing (a hit, a death and its penalty on one tile; a skip after them). */
  Stage.prototype.float = function (c, text, cls, ms) {
    var xy = this.b.centre(c), u = this.b.unit, rise = u * 0.6, life = Math.max(ms * 2.5, 700);
    var t = el("text", {"class": "sp-float " + (cls || ""), x: 0, y: 0, "font-size": u * 0.5, "text-anchor": "middle"}, this.b.fx);
    t.textContent = text;
    var box = t.getBBox ? t.getBBox() : {x: -u, y: -u * 0.4, width: 2 * u, height: u * 0.5};
    var pad = u * 0.08, live = (this.b.fx.spFloats || []).filter(function (f) { return f.node.isConnected; });
    var band = function (dy) {
      var y = xy[1] - u * 0.3 + dy;
      return {x1: xy[0] + box.x - pad, x2: xy[0] + box.x + box.width + pad, y1: y + box.y - rise - pad, y2: y + box.y + box.height + pad, y: y};
    };
    var step = box.height + rise + 2 * pad, spot = band(0);
    for (var i = 1; i < 40 && live.some(function (f) { return f.x1 < spot.x2 && spot.x1 < f.x2 && f.y1 < spot.y2 && spot.y1 < f.y2; }); i++) {
      spot = band((i % 2 ? -1 : 1) * Math.ceil(i / 2) * step);
    }
    spot.node = t;  // living until its animation ends and removes it
    live.push(spot); this.b.fx.spFloats = live;
    t.style.transform = at(xy[0], spot.y);
    gone(t, animate(t, [{transform: at(xy[0], spot.y), opacity: 1}, {transform: at(xy[0], spot.y - rise), opacity: 0}], life, "ease-out"));
  };
  Stage.prototype.fire = function (e, speed) {
    var b = this.b, ms = Math.max(0, (e.duration_ms || 0) / speed), u = b.unit, self = this, p, xy;
    switch (e.type) {
      case "move":
        this.place(e.seat, e.to, ms);
        break;
      case "mine":
        this.flash(e.at, "sp-mined", ms);
        this.float(e.at, "+1 " + e.resource, "sp-gain", ms);
        break;
      case "upgrade":
        this.float(this.pos[e.seat] || [0, 0], cap1(e.weapon) + " " + e.level, "sp-gain", ms);
        break;
      case "laser": {
        var tiles = e.tiles || [], a = b.centre(e.from), z = tiles.length ? b.centre(tiles[tiles.length - 1]) : a;
        var beam = el("line", {"class": "sp-beam seat-" + e.seat, x1: a[0], y1: a[1], x2: z[0], y2: z[1], "stroke-width": u * 0.18}, b.fx);
        gone(beam, animate(beam, [{opacity: 0}, {opacity: 1, offset: 0.2}, {opacity: 1, offset: 0.7}, {opacity: 0}], Math.max(ms, 250)));
        tiles.forEach(function (c) { self.flash(c, "sp-lit", ms); });
        break;
      }
      case "mortar": {
        var s0 = b.centre(e.from), s1 = b.centre(e.target), frames = [];
        for (var i = 0; i <= 8; i++) {
          var f = i / 8, lift = Math.sin(Math.PI * f) * Math.max(u, Math.hypot(s1[0] - s0[0], s1[1] - s0[1]) * 0.5);
          frames.push({transform: at(s0[0] + (s1[0] - s0[0]) * f, s0[1] + (s1[1] - s0[1]) * f - lift)});
        }
        var shell = el("circle", {"class": "sp-shell", r: u * 0.16, cx: 0, cy: 0}, b.fx);
        var fly = Math.max(ms * 0.7, 1), an = animate(shell, frames, fly, "linear");
        gone(shell, an);
        var land = function () { if (e.landed !== false) self.blast(e.target, ms); else self.float(e.target, "dud", "", ms); };
        if (an) setTimeout(land, fly); else land();
        break;
      }
      case "droid": {
        var path = [e.from].concat(e.path || []), pts = path.map(function (c) { return b.centre(c); });
        var droid = el("circle", {"class": "sp-droid seat-" + e.seat, r: u * 0.2, cx: 0, cy: 0}, b.fx);
        var walk = Math.max(ms * 0.75, 1), dn = animate(droid, pts.map(function (q) { return {transform: at(q[0], q[1])}; }), walk, "linear");
        if (!dn) droid.style.transform = at(pts[pts.length - 1][0], pts[pts.length - 1][1]);
        gone(droid, dn);
        var boom = function () { self.blast(e.at || path[path.length - 1], ms); };
        if (dn) setTimeout(boom, walk); else boom();
        break;
      }
      case "damage":
        this.flash(e.at, "sp-hit", ms);
        this.float(e.at, "−" + e.amount, "sp-dmg", ms);
        p = b.players[e.seat];
        if (p) { var hl = Math.max(0, +p.dataset.health - e.amount); p.dataset.health = hl; }
        if (e.by && e.by !== e.seat && e.points) this.onScore(e.by, e.points);
        break;
      case "death":
        p = b.players[e.seat];
        if (p) { p.classList.add("sp-dead"); animate(p, [{opacity: 1}, {opacity: 0.45}], ms); }
        this.float(e.at, "✝", "sp-dmg", ms);
        break;
      case "respawn":
        p = b.players[e.seat];
        if (!p) {
          // Dead when the movie began: its body is drawn, not a player. The body goes
          // to the spawn and stands for the player until the server's board is back.
          p = b.svg.querySelector('.sp-body[data-seat="' + e.seat + '"]');
          if (p) { b.players[e.seat] = p; p.classList.add("sp-risen"); }
        }
        if (p) { p.classList.remove("sp-dead"); this.place(e.seat, e.at, 0); animate(p, [{opacity: 0}, {opacity: 1}], ms); }
        this.flash(e.at, "sp-mined", ms);
        break;
      case "skip":
        xy = this.pos[e.seat];
        if (xy) this.float(xy, "skips", "", ms);
        break;
      case "penalty":
        xy = this.pos[e.seat];
        if (xy) this.float(xy, e.points + " pts", "sp-penalty", ms);
        this.onScore(e.seat, e.points);
        break;
    }
  };
  /* ---- What the planner knows: the viewer's player, from the page ---- */
  /* The view, where the page gives it: the orders' hints (the engine's view on the
     viewer's move) or a JSON the board carries; else what the SVG itself says. */
  function pageView() {
    var sources = [$("#hints"), $("#board-wrap script.sp-view"), $("#sp-view")];
    for (var i = 0; i < sources.length; i++) {
      if (!sources[i]) continue;
      try {
        var v = JSON.parse(sources[i].textContent);
        if (v && v.view) v = v.view;
        if (v && v.state) v = v.state;
        if (v && Array.isArray(v.players)) return v;
      } catch (err) { /* not a view */ }
    }
    return null;
  }
  function parseLevels(text) {
    var out = {};
    if (!text) return out;
    try { var o = JSON.parse(text); if (o && typeof o === "object") return o; } catch (err) { /* words */ }
    text.split(/[\s,;]+/).forEach(function (w) { var m = /^([a-z]+)[:=]?(\d*)$/.exec(w); if (m && m[1]) out[m[1]] = +(m[2] || 1); });
    return out;
  }
  /* The viewer's player: place, weapons with levels, resources; the tiles' resources left. */
  function myPlayer(b, seat) {
    var v = pageView(), me = null, left = {};
    if (v) {
      me = v.players.filter(function (p) { return +p.seat === seat; })[0] || null;
      left = v.resources || {};
    }
    var g = b.players[seat], out = {j: 0, k: 0, weapons: {}, resources: {rubidium: 0, explosium: 0, scrap: 0}, spawn: null, left: left, known: !!me};
    if (me) {
      out.j = me.j; out.k = me.k; out.weapons = me.weapons || {}; out.spawn = me.spawn || null;
      for (var r in me.resources || {}) out.resources[r] = +me.resources[r];
    }
    if (g) {
      out.j = +g.dataset.j; out.k = +g.dataset.k;
      if (!me) {
        out.weapons = parseLevels(g.dataset.weapons);
        var res = parseLevels(g.dataset.resources);
        for (var q in res) out.resources[q] = +res[q];
        out.known = !!g.dataset.weapons;
      }
    }
    if (!out.spawn && b.letter([out.j, out.k]) === "S") out.spawn = [out.j, out.k];
    return out;
  }

  /* ---- The planner: a turn's actions ---- */
  var planner = {on: false, seat: null, phase: null, actions: [], mode: null, droid: [], aim: null, chosen: []};
  function ordersForm() { return $("#orders-form"); }
  function jsonBox() { var f = ordersForm(); return f ? f.elements.actions_json : null; }
  function matchBoard() { var svg = $("#board-wrap svg.board"); return svg && svg.dataset.size ? new Board(svg) : null; }
  function help(text) { setText($("#sp-help"), text); }

  /* The board the planned actions leave: place, resources, levels, tiles mined. */
  function after(b, me, actions) {
    var s = {pos: [me.j, me.k], res: Object.assign({}, me.resources), lv: Object.assign({}, me.weapons), mined: {}, attacked: false};
    actions.forEach(function (a) {
      if (a.type === "move") s.pos = step(s.pos, a.direction);
      else if (a.type === "mine") { var l = b.letter(s.pos), kk = key(s.pos[0], s.pos[1]); s.mined[kk] = (s.mined[kk] || 0) + 1; if (MINED[l]) s.res[MINED[l]] = (s.res[MINED[l]] || 0) + 1; }
      else if (a.type === "upgrade") { var w = a.weapon, lv = +s.lv[w] || 1; s.res[RESOURCE_OF[w]] -= COST[lv + 1]; s.lv[w] = lv + 1; }
      else s.attacked = true;
    });
    return s;
  }
  function left(b, me, s, c) {
    var kk = key(c[0], c[1]), n = me.left[kk] !== undefined ? +me.left[kk] : 2;
    return MINED[b.letter(c)] ? n - (s.mined[kk] || 0) : 0;
  }
  function onMap(b, c) { return c[0] >= 0 && c[1] >= 0 && c[0] < b.size && c[1] < b.size; }
  /* Why a step from `from` to `to` is refused ("" when it is fine). */
  function moveRefusal(b, c) {
    if (!onMap(b, c) || !b.tile(c)) return "off the map";
    var l = b.letter(c);
    if (l === "O") return "rock"; if (l === "V") return "void"; if (l === "S") return "a spawn";
    var who = b.playerAt(c);
    if ((who && who !== planner.seat) || b.bodies[key(c[0], c[1])]) return "taken";
    return "";
  }
  function laserTiles(b, from, lv, d) {
    var out = [], c = from, range = STATS.laser.range[lv - 1];
    for (var i = 0; i < range; i++) {
      c = step(c, d);
      if (!onMap(b, c) || !b.tile(c) || b.letter(c) === "O") break;
      out.push(c);
    }
    return out;
  }
  function droidEnd(b, from, seq) {
    var c = from;
    for (var i = 0; i < seq.length; i++) {
      var n = step(c, seq[i]);
      if (!onMap(b, n) || !b.tile(n) || BLOCKED[b.letter(n)]) break;
      c = n;
    }
    return c;
  }
  function level(s, w) { return +s.lv[w] || 1; }
  function canUpgrade(s, w) { var lv = level(s, w); return lv < 3 && (s.res[RESOURCE_OF[w]] || 0) >= COST[lv + 1]; }
  function describe(a) {
    switch (a.type) {
      case "move": return "Move " + a.direction;
      case "mine": return "Mine";
      case "upgrade": return "Upgrade " + a.weapon;
      case "laser": return "Laser " + a.direction;
      case "mortar": return "Mortar at [" + a.target.join(", ") + "]";
      case "droid": return "Droid " + (a.sequence.length ? a.sequence.join(", ") : "(stays)");
    }
    return a.type;
  }
  function write() {
    var box = jsonBox(); if (!box) return;
    box.value = planner.phase === "loadout"
      ? (planner.chosen.length === 2 ? JSON.stringify({loadout: planner.chosen}) : "")
      : JSON.stringify({actions: planner.actions});
  }
  function add(a) {
    planner.actions.push(a); planner.mode = null; planner.droid = []; planner.aim = null;
    write(); render();
    var full = planner.actions.length >= 3 || a.type === "laser" || a.type === "mortar" || a.type === "droid";
    help(describe(a) + " planned." + (full ? " That ends the turn: send it, or undo." : " Plan another action, or send."));
  }

  /* ---- The bar: cards in the loadout phase; actions, weapons and the list in play ---- */
  function statsTable(w) {
    var t = html("table", {"class": "sp-stats"}), st = STATS[w];
    var head = html("tr"); head.append(html("th", {scope: "col"}, "Level"), html("th", {scope: "col"}, "1"), html("th", {scope: "col"}, "2"), html("th", {scope: "col"}, "3"));
    t.append(head);
    [["Range", st.range.map(function (r) { return r + ""; })], ["Damage", st.damage.map(String)], ["Area", st.area ? [st.area, st.area, st.area].map(String) : ["—", "—", "—"]]].forEach(function (row) {
      var tr = html("tr"); tr.append(html("th", {scope: "row"}, row[0]));
      row[1].forEach(function (v) { tr.append(html("td", {}, v)); });
      t.append(tr);
    });
    return t;
  }
  function buildLoadout(bar) {
    var cards = html("div", {id: "sp-cards", "class": "sp-cards", role: "group", "aria-label": "Weapons: choose two"});
    WEAPONS.forEach(function (w) {
      var id = "sp-card-" + w, card = html("label", {"class": "sp-card", "for": id, "data-weapon": w});
      var box = html("input", {type: "checkbox", id: id, value: w, name: "sp-weapon"});
      box.checked = planner.chosen.indexOf(w) >= 0;
      box.addEventListener("change", function () {
        if (box.checked) { planner.chosen.push(w); if (planner.chosen.length > 2) planner.chosen.shift(); }
        else planner.chosen = planner.chosen.filter(function (x) { return x !== w; });
        write(); render();
      });
      var title = html("span", {"class": "sp-card-title"}); title.append(box, " " + cap1(w));
      card.append(title, html("small", {"class": "sp-card-range"}, "Range in " + RANGE_WORD[w] + "; upgraded with " + RESOURCE_OF[w] + "."), statsTable(w), html("small", {}, STATS[w].what));
      cards.append(card);
    });
    var send = html("button", {type: "button", "class": "send", id: "bar-send"}, "Send loadout");
    send.addEventListener("click", submit);
    var tools = html("div", {"class": "plan-tools"}); tools.append(send);
    bar.replaceChildren(
      html("p", {id: "sp-help", "class": "plan-help", "aria-live": "polite"}, "Choose the two weapons your robot carries for the whole match, then send."),
      cards, tools);
  }
  function button(id, text, fn, title) {
    var b = html("button", {type: "button", id: id}, text);
    if (title) b.title = title;
    b.addEventListener("click", fn);
    return b;
  }
  function buildPlay(bar) {
    var acts = html("div", {id: "sp-acts", "class": "kinds sp-acts", role: "toolbar", "aria-label": "Actions"});
    acts.append(button("sp-mine", "Mine", function () { add({type: "mine"}); }));
    WEAPONS.forEach(function (w) {
      acts.append(button("sp-up-" + w, "Upgrade " + w, function () { add({type: "upgrade", weapon: w}); }));
    });
    var weapons = html("div", {id: "sp-weapons", "class": "kinds sp-weapons", role: "toolbar", "aria-label": "Attack"});
    WEAPONS.forEach(function (w) {
      var b = button("sp-w-" + w, cap1(w), function () { choose(w); });
      b.setAttribute("aria-pressed", "false"); b.dataset.weapon = w;
      weapons.append(b);
    });
    var dirs = html("div", {id: "sp-dirs", "class": "dirs sp-dirs", role: "toolbar", "aria-label": "Directions"});
    DIRS.forEach(function (d) {
      var b = button("sp-d-" + d, ARROW[d], function () { direction(d); }, d);
      b.setAttribute("aria-label", d); b.dataset.dir = d;
      dirs.append(b);
    });
    var fire = button("sp-fire", "Fire", fireAim);
    var tools = html("div", {"class": "plan-tools"});
    var send = html("button", {type: "button", "class": "send", id: "bar-send"}, "Send");
    send.addEventListener("click", submit);
    var zoom = button("sp-zoom", "Zoom in", function () {
      planner.zoom = !planner.zoom; zoomBoard();
      var me = $('#board-wrap .sp-player[data-seat="' + planner.seat + '"]');
      if (planner.zoom && me && me.scrollIntoView) me.scrollIntoView({block: "nearest", inline: "center"});
    });
    zoom.setAttribute("aria-pressed", "false");
    tools.append(fire, button("sp-undo", "Undo", undo, "Backspace"), button("sp-clear", "Clear", clearAll), zoom, send);
    var row = html("div", {"class": "plan-row"}); row.append(acts, weapons);
    var row2 = html("div", {"class": "plan-row"}); row2.append(dirs, tools);
    bar.replaceChildren(
      html("p", {id: "sp-help", "class": "plan-help", "aria-live": "polite"}, "Click a tile next to your robot to move, or choose an action. Up to three; an attack ends the turn."),
      row, row2, html("ol", {id: "sp-list", "class": "sp-list", "aria-label": "Planned actions"}));
  }
  /* The board drawn larger, scrolled within its place: small tiles on a phone. */
  function zoomBoard() {
    var wrap = $("#board-wrap"), z = $("#sp-zoom"), on = !!planner.zoom;
    if (wrap) wrap.classList.toggle("sp-zoomed", on);
    if (z) { z.textContent = on ? "Whole board" : "Zoom in"; z.setAttribute("aria-pressed", on ? "true" : "false"); }
  }
  function render() {
    var bar = $("#planner");
    zoomBoard();
    if (!bar || !planner.on) return;
    if (planner.phase === "loadout") {
      var n = planner.chosen.length;
      document.querySelectorAll("#sp-cards .sp-card").forEach(function (c) {
        var on = planner.chosen.indexOf(c.dataset.weapon) >= 0;
        c.classList.toggle("chosen", on); $("input", c).checked = on;
      });
      var send = $("#bar-send"); if (send) send.disabled = n !== 2;
      help(n === 2 ? "Loadout: " + planner.chosen.join(" and ") + ". Send it, or change your mind." : "Choose " + (2 - n) + " more weapon" + (n === 1 ? "" : "s") + ".");
      return;
    }
    var b = matchBoard(); if (!b) return;
    var me = myPlayer(b, planner.seat), s = after(b, me, planner.actions);
    var full = planner.actions.length >= 3 || s.attacked, onSpawn = me.spawn && s.pos[0] === me.spawn[0] && s.pos[1] === me.spawn[1];
    var mine = $("#sp-mine"); mine.disabled = full || left(b, me, s, s.pos) <= 0;
    mine.title = MINED[b.letter(s.pos)] ? left(b, me, s, s.pos) + " " + MINED[b.letter(s.pos)] + " left here" : "Stand on a resource tile to mine";
    var loadout = me.known ? Object.keys(me.weapons) : WEAPONS;
    WEAPONS.forEach(function (w) {
      var up = $("#sp-up-" + w), has = loadout.indexOf(w) >= 0, lv = level(s, w);
      up.hidden = !has; up.disabled = full || !canUpgrade(s, w);
      up.textContent = "Upgrade " + w + " " + lv + "→" + Math.min(3, lv + 1);
      up.title = lv >= 3 ? "Level 3 is the top" : "Needs " + COST[lv + 1] + " " + RESOURCE_OF[w] + " (you have " + (s.res[RESOURCE_OF[w]] || 0) + ")";
      var wb = $("#sp-w-" + w);
      wb.hidden = !has; wb.disabled = full || !!onSpawn;
      wb.title = onSpawn ? "Move off your spawn to attack" : cap1(w) + " level " + lv;
      wb.textContent = cap1(w) + " " + lv;
      wb.setAttribute("aria-pressed", planner.mode === w ? "true" : "false");
    });
    document.querySelectorAll("#sp-dirs button").forEach(function (btn) {
      var d = btn.dataset.dir;
      btn.disabled = full || (planner.mode === null && !!moveRefusal(b, step(s.pos, d)))
        || (planner.mode === "droid" && planner.droid.length >= STATS.droid.range[level(s, "droid") - 1]);
      btn.title = (planner.mode === "laser" ? "Fire the laser " : planner.mode === "droid" ? "The droid steps " : planner.mode === "mortar" ? "Move the aim " : "Move ") + d;
    });
    var fire = $("#sp-fire");
    fire.hidden = planner.mode !== "mortar" && planner.mode !== "droid";
    fire.textContent = planner.mode === "droid" ? "Launch droid (" + planner.droid.length + " steps)" : "Fire mortar here";
    $("#sp-undo").disabled = !planner.actions.length && !planner.mode;
    $("#sp-clear").disabled = !planner.actions.length && !planner.mode;
    var send = $("#bar-send"); send.textContent = planner.actions.length ? "Send " + planner.actions.length + " action" + (planner.actions.length === 1 ? "" : "s") : "Send (no action)";
    var list = $("#sp-list");
    list.replaceChildren.apply(list, planner.actions.map(function (a, i) { return html("li", {"data-index": String(i)}, describe(a)); }));
    draw(b, me, s);
  }
  /* The plan on the board: the walk so far, where a click goes, the aim. */
  function draw(b, me, s) {
    var layer = b.plan, u = b.unit;
    layer.textContent = "";
    function poly(c, cls) { var t = b.tile(c); if (t) el("polygon", {"class": cls, points: t.el.getAttribute("points") || ""}, layer); }
    function line(cs, cls) {
      if (cs.length < 2) return;
      el("polyline", {"class": cls, points: cs.map(function (c) { return b.centre(c).join(","); }).join(" "), "stroke-width": u * 0.12}, layer);
    }
    // The walk planned: from the robot through each move.
    var walk = [[me.j, me.k]], c = [me.j, me.k];
    planner.actions.forEach(function (a) { if (a.type === "move") { c = step(c, a.direction); walk.push(c); } });
    line(walk, "sp-walk");
    if (walk.length > 1) { var end = b.centre(c); el("circle", {"class": "sp-walk-end", cx: end[0], cy: end[1], r: u * 0.22}, layer); }
    planner.actions.forEach(function (a) {
      if (a.type === "laser") laserTiles(b, s.pos, level(s, "laser"), a.direction).forEach(function (t) { poly(t, "sp-aim"); });
      if (a.type === "mortar") { var t = [s.pos[0] + a.target[0], s.pos[1] + a.target[1]]; poly(t, "sp-aim"); around(t).forEach(function (n) { poly(n, "sp-aim-area"); }); }
      if (a.type === "droid") { var p = droidPath(b, s.pos, a.sequence); line(p, "sp-droid-path"); var e = p[p.length - 1]; poly(e, "sp-aim"); around(e).forEach(function (n) { poly(n, "sp-aim-area"); }); }
    });
    var full = planner.actions.length >= 3 || s.attacked;
    if (full) return;
    if (planner.mode === null) {
      DIRS.forEach(function (d) { var n = step(s.pos, d); if (!moveRefusal(b, n)) poly(n, "sp-reach"); });
      if (left(b, me, s, s.pos) > 0) poly(s.pos, "sp-minable");
    } else if (planner.mode === "laser") {
      DIRS.forEach(function (d) {
        var ray = laserTiles(b, s.pos, level(s, "laser"), d);
        ray.forEach(function (t) { poly(t, planner.hover === d ? "sp-aim" : "sp-ray"); });
      });
    } else if (planner.mode === "mortar") {
      var r = STATS.mortar.range[level(s, "mortar") - 1];
      for (var kk in b.tiles) { var t = kk.split(",").map(Number); if (distance(s.pos, t) <= r) poly(t, "sp-ray"); }
      var aim = planner.hover || planner.aim;
      if (aim) { poly(aim, "sp-aim"); around(aim).forEach(function (n) { poly(n, "sp-aim-area"); }); }
    } else if (planner.mode === "droid") {
      var path = droidPath(b, s.pos, planner.droid), last = path[path.length - 1];
      line(path, "sp-droid-path");
      if (planner.droid.length < STATS.droid.range[level(s, "droid") - 1]) {
        DIRS.forEach(function (d) { var n = step(last, d); if (onMap(b, n) && b.tile(n) && !BLOCKED[b.letter(n)]) poly(n, "sp-reach"); });
      }
      poly(last, "sp-aim"); around(last).forEach(function (n) { poly(n, "sp-aim-area"); });
    }
  }
  function droidPath(b, from, seq) {
    var out = [from], c = from;
    for (var i = 0; i < seq.length; i++) { var n = step(c, seq[i]); if (!onMap(b, n) || !b.tile(n) || BLOCKED[b.letter(n)]) break; c = n; out.push(c); }
    return out;
  }
  function choose(w) {
    if (planner.mode === w) { planner.mode = null; render(); help("Put away. Click a tile to move, or choose an action."); return; }
    planner.mode = w; planner.droid = []; planner.aim = null; planner.hover = null;
    render();
    var b = matchBoard(), s = after(b, myPlayer(b, planner.seat), planner.actions);
    if (w === "laser") help("Laser: click a lit tile (or a direction) to fire along that line.");
    if (w === "mortar") { planner.aim = s.pos.slice(); render(); help("Mortar: click a tile in range (hover shows the blast), or move the aim with the directions and Fire."); }
    if (w === "droid") help("Droid: click the tiles of its walk one by one (or the directions), then Launch; click its last tile again to launch.");
  }
  function direction(d) {
    var b = matchBoard(); if (!b) return;
    var s = after(b, myPlayer(b, planner.seat), planner.actions);
    if (planner.mode === null) {
      var why = moveRefusal(b, step(s.pos, d));
      if (why) { help("Cannot move " + d + ": " + why + "."); return; }
      add({type: "move", direction: d});
    } else if (planner.mode === "laser") add({type: "laser", direction: d});
    else if (planner.mode === "droid") {
      planner.droid.push(d); render();
      help("Droid walk: " + planner.droid.join(", ") + ". Add a step or Launch.");
    } else if (planner.mode === "mortar") {
      var n = step(planner.aim || s.pos, d), r = STATS.mortar.range[level(s, "mortar") - 1];
      if (onMap(b, n) && distance(s.pos, n) <= r) planner.aim = n;
      render(); help("Mortar aimed at (" + planner.aim[0] + ", " + planner.aim[1] + "). Fire, or move the aim.");
    }
  }
  function fireAim() {
    var b = matchBoard(); if (!b) return;
    var s = after(b, myPlayer(b, planner.seat), planner.actions);
    if (planner.mode === "mortar" && planner.aim) add({type: "mortar", target: [planner.aim[0] - s.pos[0], planner.aim[1] - s.pos[1]]});
    else if (planner.mode === "droid") add({type: "droid", sequence: planner.droid.slice()});
  }
  function undo() {
    if (planner.mode === "droid" && planner.droid.length) { planner.droid.pop(); render(); help("Droid step taken back."); return; }
    if (planner.mode) { planner.mode = null; render(); help("Weapon put away."); return; }
    var a = planner.actions.pop();
    write(); render();
    help(a ? describe(a) + " taken back." : "Nothing to undo.");
  }
  function clearAll() { planner.actions = []; planner.mode = null; planner.droid = []; write(); render(); help("Plan cleared."); }
  function submit() {
    var f = ordersForm(); if (!f) return;
    write();
    if (f.requestSubmit) f.requestSubmit(); else f.submit();
  }
  /* A click (or Enter) on tile c. */
  function clickTile(b, c) {
    setText($("#cell-info"), b.describe(c));
    if (!planner.on || planner.phase !== "play") return;
    var me = myPlayer(b, planner.seat), s = after(b, me, planner.actions);
    if (planner.actions.length >= 3 || s.attacked) { help("The turn is full: send it, or undo."); return; }
    var i, d;
    if (planner.mode === null) {
      for (i = 0; i < 6; i++) {
        d = DIRS[i];
        var n = step(s.pos, d);
        if (n[0] === c[0] && n[1] === c[1]) {
          var why = moveRefusal(b, n);
          if (why) { help("Cannot move there: " + why + "."); return; }
          return add({type: "move", direction: d});
        }
      }
      if (c[0] === s.pos[0] && c[1] === s.pos[1] && left(b, me, s, c) > 0) return add({type: "mine"});
      help("Click a tile next to your robot to move there.");
    } else if (planner.mode === "laser") {
      for (i = 0; i < 6; i++) {
        var ray = laserTiles(b, s.pos, level(s, "laser"), DIRS[i]);
        if (ray.some(function (t) { return t[0] === c[0] && t[1] === c[1]; })) return add({type: "laser", direction: DIRS[i]});
      }
      help("Click a lit tile: the laser fires along that line.");
    } else if (planner.mode === "mortar") {
      if (distance(s.pos, c) > STATS.mortar.range[level(s, "mortar") - 1]) { help("Out of the mortar's range."); return; }
      add({type: "mortar", target: [c[0] - s.pos[0], c[1] - s.pos[1]]});
    } else if (planner.mode === "droid") {
      var path = droidPath(b, s.pos, planner.droid), last = path[path.length - 1];
      if (c[0] === last[0] && c[1] === last[1]) return fireAim();
      for (i = 0; i < 6; i++) {
        var m = step(last, DIRS[i]);
        if (m[0] === c[0] && m[1] === c[1]) {
          if (BLOCKED[b.letter(m)]) { help("The droid cannot enter that tile."); return; }
          return direction(DIRS[i]);
        }
      }
      help("Click a tile next to the droid's last step, or its last tile to launch.");
    }
  }
  function hoverTile(c) {
    if (!planner.on || planner.phase !== "play") return;
    var b = matchBoard(); if (!b) return;
    var s = after(b, myPlayer(b, planner.seat), planner.actions), was = planner.hover;
    if (planner.mode === "mortar") planner.hover = c && distance(s.pos, c) <= STATS.mortar.range[level(s, "mortar") - 1] ? c : null;
    else if (planner.mode === "laser") {
      planner.hover = null;
      if (c) for (var i = 0; i < 6; i++) if (laserTiles(b, s.pos, level(s, "laser"), DIRS[i]).some(function (t) { return t[0] === c[0] && t[1] === c[1]; })) planner.hover = DIRS[i];
    } else return;
    if (String(was) !== String(planner.hover)) render();
  }
  function phaseOf() {
    var svg = $("#board-wrap svg.board"), v = pageView();
    if (svg && svg.dataset.phase) return svg.dataset.phase;
    if (v && v.phase) return v.phase;
    var f = ordersForm(), t = f && f.elements.turn;
    return t && t.value === "0" ? "loadout" : "play";
  }
  function restore() {
    var box = jsonBox(), f = ordersForm();
    if (planner.phase === "loadout" && f) {
      // A loadout already sent shows in the plain form's two choices.
      [f.elements.loadout_1, f.elements.loadout_2].forEach(function (sel) {
        if (sel && WEAPONS.indexOf(sel.value) >= 0 && planner.chosen.indexOf(sel.value) < 0) planner.chosen.push(sel.value);
      });
    }
    if (!box || !box.value.trim()) return;
    try {
      var o = JSON.parse(box.value);
      if (planner.phase === "loadout" && Array.isArray(o.loadout)) planner.chosen = o.loadout.filter(function (w, i) { return WEAPONS.indexOf(w) >= 0 && o.loadout.indexOf(w) === i; }).slice(0, 2);
      if (planner.phase === "play" && Array.isArray(o.actions)) planner.actions = o.actions.slice(0, 3);
    } catch (err) { /* the text is the player's own: left as it is */ }
  }
  function initPlanner() {
    var page = $("#match"), box = jsonBox(), svg = $("#board-wrap svg.board"), bar = $("#planner");
    planner.seat = page && page.dataset.viewer ? +page.dataset.viewer : null;
    var was = planner.on, wasTurn = planner.turn;
    planner.on = !!(box && svg && planner.seat !== null);
    var f = ordersForm(), turn = f && f.elements.turn ? f.elements.turn.value : null;
    if (bar) bar.hidden = !planner.on;
    var own = f && $(".send", f);
    if (own && own !== $("#bar-send")) own.hidden = planner.on;
    // One set of controls decides what is sent: while the planner runs, the plain
    // form's fields are hidden (board.css) and its JSON only shows a refusal.
    document.documentElement.classList.toggle("sp-planning", planner.on);
    if (box) box.readOnly = planner.on;
    if (svg) svg.classList.toggle("sp-planning", planner.on);
    zoomBoard();
    if (!planner.on) return;
    if (!was || wasTurn !== turn || !$("#sp-help", bar)) {
      planner.turn = turn; planner.phase = phaseOf();
      planner.actions = []; planner.chosen = []; planner.mode = null; planner.droid = []; planner.aim = null; planner.hover = null;
      restore();
      if (planner.phase === "loadout") buildLoadout(bar); else buildPlay(bar);
      write();
    }
    render();
  }
  /* The tile under a pointer event: the element's own, else (a count, a mark drawn over
     the tiles) the tile whose centre is nearest, within a hex. */
  function tileOf(e) {
    var target = e.target, t = target && target.closest ? target.closest("[data-j][data-k]") : null;
    if (t && t.closest("svg.board")) return [+t.dataset.j, +t.dataset.k];
    var svg = target && target.closest ? target.closest("svg.board") : null, ctm = svg && svg.getScreenCTM();
    if (!ctm || !svg.dataset.size) return null;
    var pt = svg.createSVGPoint(); pt.x = e.clientX; pt.y = e.clientY;
    var p = pt.matrixTransform(ctm.inverse()), b = new Board(svg), best = null, bd = b.unit * 0.6;
    for (var k in b.tiles) {
      var d = Math.hypot(b.tiles[k].cx - p.x, b.tiles[k].cy - p.y);
      if (d < bd) { bd = d; best = k.split(",").map(Number); }
    }
    return best;
  }
  function initBoardInput() {
    var wrap = $("#board-wrap");
    wrap.addEventListener("click", function (e) {
      var c = tileOf(e); if (!c) return;
      if (mp.playing()) { mp.skip(); return; }
      var b = matchBoard(); if (b) clickTile(b, c);
    });
    wrap.addEventListener("pointerover", function (e) { if (!mp.playing()) hoverTile(tileOf(e)); });
    wrap.addEventListener("pointerleave", function () { if (!mp.playing()) hoverTile(null); });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape") {
        if (mp.playing()) { mp.skip(); return; }
        if (planner.on && planner.mode) { planner.mode = null; render(); help("Weapon put away."); }
        return;
      }
      if (!planner.on || planner.phase !== "play" || mp.playing()) return;
      if (e.target.closest && e.target.closest("input, textarea, select")) return;
      if (e.key === "Backspace") { e.preventDefault(); undo(); }
    });
  }

  /* ---- The match page and the replay page: the platform's (games/page.js) ---- */
  /* The panel's scores while a turn plays: the points each event gives. */
  function addScore(cell, delta) {
    // Written as the site writes numbers ("1,250"): read without, write with the separators.
    var was = cell ? cell.textContent.trim().replace(/,/g, "") : "";
    if (/^-?\d+$/.test(was)) setText(cell, (+was + delta).toLocaleString("en"));
  }
  function followScore(seat, delta) { addScore($('#panel tr[data-seat="' + seat + '"] .money'), delta); }
  /* The page's seat keys point at Helium 3's robots; here each is the seat's disc. */
  function seatKeys() {
    document.querySelectorAll('svg.key use[href^="#g-s"]').forEach(function (u) {
      var svg = u.closest("svg");
      el("circle", {cx: 0, cy: 0, r: 10}, svg);
      u.remove(); svg.classList.add("sp-key");
    });
  }
  function who(t) { return t.seat ? "seat " + t.seat + "'s turn" : "the loadouts"; }
  // The effects' tails (numbers floating away) get a moment after a turn's last event.
  var TAIL = 450;

  /* ---- The coordinates: off unless asked, remembered in this browser ---- */
  /* The server crops each board to its ground (data-box); the coordinates lie along the
     whole diamond's edges (data-whole), so showing them shows the whole viewBox. */
  var COORDS = "sp-coords";
  function coordsOn() { try { return localStorage.getItem(COORDS) === "1"; } catch (err) { return false; } }
  function frame(svg) {
    var on = document.documentElement.classList.contains(COORDS), box = on ? svg.dataset.whole : svg.dataset.box;
    if (!box || svg.getAttribute("viewBox") === box) return;
    var v = box.split(" ").map(Number);
    svg.setAttribute("viewBox", box);
    if (v[3] > 0) svg.style.setProperty("--sp-ratio", (v[2] / v[3]).toFixed(3));
  }
  function frameAll() { document.querySelectorAll("svg.skyport-board[data-box]").forEach(frame); }
  function initCoords() {
    var box = $("#sp-coords"), wrap = $("#sp-coords-switch");
    document.documentElement.classList.toggle(COORDS, coordsOn());
    frameAll();
    if (!box) return;
    box.checked = coordsOn(); wrap.hidden = false;
    box.addEventListener("change", function () {
      try { localStorage.setItem(COORDS, box.checked ? "1" : "0"); } catch (err) { /* kept for this page only */ }
      document.documentElement.classList.toggle(COORDS, box.checked);
      frameAll();
    });
    // Boards the page brings later (a poll's, a movie's, the replay's) are framed alike.
    new MutationObserver(function (changes) {
      changes.forEach(function (c) {
        c.addedNodes.forEach(function (n) {
          // A shape drawn inside a board (the plan, an effect) holds no board.
          if (n.nodeType !== 1 || (n instanceof SVGElement && n.tagName !== "svg")) return;
          if (n.matches("svg.skyport-board[data-box]")) frame(n);
          else n.querySelectorAll("svg.skyport-board[data-box]").forEach(frame);
        });
      });
    }).observe(document.body, {childList: true, subtree: true});
  }
  initCoords();

  if ($("#match") && $("#board-wrap svg.board")) initBoardInput();
  var started = mp.init({
    stage: function (svg, following) { return new Stage(new Board(svg), following ? followScore : null); },
    tail: TAIL,
    who: who,
    follow: true,
    followTurn: function (t) {
      document.querySelectorAll("#panel tr[data-seat]").forEach(function (tr) { tr.classList.toggle("to-move", !!t.seat && +tr.dataset.seat === +t.seat); });
    },
    refresh: function () { seatKeys(); initPlanner(); },
    ordersBox: jsonBox,
    drawPlan: render
  });
  if (started) {
    // The plan as the board holds it: for the browser tests and the console.
    window.skyportPlan = function () {
      return {phase: planner.phase, actions: JSON.parse(JSON.stringify(planner.actions)), loadout: planner.chosen.slice(), mode: planner.mode, droid: planner.droid.slice(), playing: mp.playing()};
    };
  }
  var replay = $("#replay-turns");
  if (replay) {
    document.querySelectorAll('svg.key use[href^="#g-s"]').forEach(function (u) { el("circle", {cx: 0, cy: 0, r: 10}, u.closest("svg")); u.remove(); });
    mp.replay(replay, {
      stage: function (svg) {
        return new Stage(new Board(svg), function (seat, delta) { addScore(replay.querySelector('tr[data-seat="' + seat + '"] .score'), delta); });
      },
      tail: TAIL,
      who: who,
      /* The scores a board says: its description names each seat's points ("seat 2
         (...): at (3, 4), health 80, 12 points"); the final ones at the end. */
      scores: function (svg, atEnd) {
        var desc = svg ? $("desc", svg) : null, said = {}, m;
        var re = /seat (\d+) \([^)]*\): [^;]*?(-?\d+) points/g;
        while (desc && (m = re.exec(desc.textContent))) said[m[1]] = m[2];
        replay.querySelectorAll("tr[data-seat]").forEach(function (tr) {
          var cell = $(".score", tr), s = tr.dataset.seat;
          setText(cell, atEnd ? cell.dataset.final : said[s] !== undefined ? said[s] : "—");
        });
      }
    });
  }
})();
