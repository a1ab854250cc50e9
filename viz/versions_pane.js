// minigrad web stepper, Versions pane: draws D.versions (viz/versions_pane.py, from replay.versions).
//
// It follows the stepper through the root's data-event attribute (the event shown) and shows what
// happened up to that event; it folds nothing itself. DOM: #versions > .body holds p.vv-intro,
// div.vv-timelines (one div.vv-tensor per changed base: .vv-line "t3 (2x3)  v0 \u2500mul_\u2500\u25b6 v1", then one
// li.vv-bump per change), ul.vv-stale (one li.vv-stale-item per stale saved tensor, its words in
// .alarm; li.vv-stale-ran, dim, once its node ran) and ul.vv-rewrites (one li.vv-rewrite per rewritten history, its replaced edges in .replaced).
(function () {
  "use strict";
  var root = document.getElementById("minigrad-stepper");
  var D = JSON.parse(document.getElementById("minigrad-data").textContent);
  var V = D.versions;
  var pane = root && root.querySelector("#versions > .body");
  if (!V || !pane) return;
  var esc = function (s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  };
  var where = function (source, code) {
    return source ? '<span class="dim">' + esc(source) + "</span>" + (code ? '  <span class="code">' + esc(code) + "</span>" : "")
                  : '<span class="dim">(no source line recorded)</span>';
  };

  function timelines(ev) {
    var bases = [], by = {};
    V.bumps.forEach(function (b) {
      if (b.at > ev) return;
      if (!by[b.base]) { by[b.base] = []; bases.push(b.base); }
      by[b.base].push(b);
    });
    if (!bases.length) return '<p class="dim">no in-place change so far</p>';
    return bases.map(function (base) {
      var bs = by[base], first = bs[0];
      var line = '<div class="vv-line"><b>' + esc(first.name) + "</b>" + (first.shape ? " (" + esc(first.shape) + ")" : "") +
                 '  <span class="v">v' + Math.max(0, first.version - 1) + "</span>" +
                 bs.map(function (b) { return ' \u2500<b class="op">' + esc(b.op) + '</b>\u2500\u25b6 <span class="v">v' + b.version + "</span>"; }).join("") + "</div>";
      var items = bs.map(function (b) {
        return '<li class="vv-bump" data-event="' + b.at + '"><b>v' + b.version + "</b>  event " + b.at + '  <b class="op">' + esc(b.op) + "</b>" +
          (b.via ? " through the view " + esc(b.via) : " on the tensor itself") +
          (b.view ? '<br><span class="dim">the view\'s elements in ' + esc(b.name) + ": " + esc(b.view) + "</span>" : "") +
          "<br>" + where(b.source, b.code) +
          (b.aliases.length ? '<br><span class="dim">the same counter moved for: ' + esc(b.aliases.join(", ")) + "</span>" : "") + "</li>";
      }).join("");
      return '<div class="vv-tensor">' + line + "<ul>" + items + "</ul></div>";
    }).join("");
  }

  function stale(ev) {
    var now = V.stale.filter(function (s) { return s.since <= ev && (s.until === null || ev < s.until); });
    if (!now.length) return '<li class="dim">none: every saved tensor is at the version its node saved</li>';
    var ran = function (s) { return s.released !== null && s.released <= ev; };
    now.sort(function (a, b) { return ran(a) - ran(b); });  // the ones that will refuse first
    return now.map(function (s) {
      if (ran(s)) {
        return '<li class="vv-stale-ran dim" data-node="' + s.node_id + '">&middot; ' + esc(s.node) + " saved " + esc(s.tensor) + " at v" + s.saved +
          ", now v" + s.now + " &mdash; it already ran (event " + s.released + "): nothing will refuse</li>";
      }
      return '<li class="vv-stale-item" data-node="' + s.node_id + '">&#10008; <span class="alarm">' + esc(s.node) + " saved " + esc(s.tensor) +
        " at v" + s.saved + ", now v" + s.now + "</span> &mdash; " +
        (s.refused !== null && s.refused <= ev ? "refused at event " + s.refused : "backward will refuse") +
        (s.source ? '<br><span class="dim">' + esc(s.node) + " was made at </span>" + where(s.source, s.code) : "") + "</li>";
    }).join("");
  }

  function rewrites(ev) {
    var now = V.rewrites.filter(function (r) { return r.at <= ev; });
    if (!now.length) return '<li class="dim">none so far</li>';
    var meaning = ["old history: gradient outside the view", "the change: gradient inside the view"];
    return now.map(function (r) {
      var h = '<li class="vv-rewrite" data-node="' + r.to_id + '">event ' + r.at + "  <b>" + esc(r.name) + "</b>'s grad node: " +
              '<span class="from">' + esc(r.from) + '</span> &rarr; <span class="to">' + esc(r.to) + "</span>" +
              '<br><span class="dim">the view\'s place in ' + esc(r.name) + ": " + esc(r.view) + "</span>";
      r.edges.forEach(function (e) { h += "<br>" + esc(r.to) + " \u2500s" + e[0] + "\u2500\u25b6 " + esc(e[1]) + "   " + esc(meaning[e[0]] || ""); });
      r.consumers.forEach(function (c) {
        if (c[1] <= ev) h += '<br><span class="replaced">replaced edge: ' + esc(c[0]) + " \u254c\u254c\u25b6 " + esc(r.from) + "</span> (now \u2500\u25b6 " + esc(r.to) + ")";
      });
      r.regenerated.forEach(function (g) {
        if (g[2] <= ev) h += '<br><span class="dim">regenerated view: ' + esc(g[0]) + " \u2192 " + esc(g[1]) + " \u2500\u25b6 " + esc(r.to) + "</span>";
      });
      return h + "</li>";
    }).join("");
  }

  var shown = null;
  function draw() {
    var ev = +root.getAttribute("data-event");
    if (ev === shown) return;
    shown = ev;
    pane.innerHTML = '<p class="vv-intro">' + esc(V.intro) + "</p>" +
      "<h3>Version timelines (in-place changes up to event " + ev + ')</h3><div class="vv-timelines">' + timelines(ev) + "</div>" +
      '<h3>Stale saved tensors (backward through these nodes will raise)</h3><ul class="vv-stale">' + stale(ev) + "</ul>" +
      '<h3>Rewritten history (a change through a view gives the base a CopySlices node)</h3><ul class="vv-rewrites">' + rewrites(ev) + "</ul>";
  }
  new MutationObserver(draw).observe(root, { attributes: true, attributeFilter: ["data-event"] });
  draw();
})();
