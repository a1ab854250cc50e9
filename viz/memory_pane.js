// minigrad web stepper, memory pane: draws D.memory (viz/memory_pane.py, from mg.trace.memory).
//
// It follows the stepper through the root's attributes: data-event (the event shown) and
// data-node (the grad node in focus); it folds nothing itself. DOM: #memory > .body holds
// .mem-head (bytes alive now), .mem-plot (svg.mem-chart: one bar per point, saved bytes in their
// own colour, line.mem-marker at the event shown; .mem-y and .mem-x: its axes), p.mem-explain (what
// the figures are), label.mem-whole (the whole recording instead of the span of the event shown),
// and table.mem-saved (what the node saved). The chart shows the span of M.windows holding the event.
(function () {
  "use strict";
  var root = document.getElementById("minigrad-stepper");
  var D = JSON.parse(document.getElementById("minigrad-data").textContent);
  var M = D.memory;
  var pane = root && root.querySelector("#memory > .body");
  if (!M || !pane) return;
  var W = 900, H = 160, NS = "http://www.w3.org/2000/svg";
  var esc = function (s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  };
  function fmt(n) {
    var units = ["B", "KiB", "MiB", "GiB"], u = 0;
    while (Math.abs(n) >= 1024 && u < units.length - 1) { n /= 1024; u++; }
    return u ? n.toFixed(1) + " " + units[u] : Math.round(n) + " B";
  }
  function sum(p) { return p[0] + p[1] + p[2] + p[3] + p[4]; }

  var head = document.createElement("div"); head.className = "mem-head";
  var plot = document.createElement("div"); plot.className = "mem-plot";
  var yaxis = document.createElement("div"); yaxis.className = "mem-y";
  yaxis.innerHTML = '<span class="top"></span><span class="mid"></span><span class="bot">0 B</span>';
  var ytitle = document.createElement("div"); ytitle.className = "mem-ytitle"; ytitle.textContent = "bytes alive";
  var svg = document.createElementNS(NS, "svg");
  svg.setAttribute("class", "mem-chart"); svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  svg.setAttribute("preserveAspectRatio", "none"); svg.setAttribute("role", "img");
  var xaxis = document.createElement("div"); xaxis.className = "mem-x";
  xaxis.innerHTML = '<span class="lo"></span><span class="title"></span><span class="hi"></span>';
  plot.appendChild(ytitle); plot.appendChild(yaxis); plot.appendChild(svg); plot.appendChild(document.createElement("div"));
  plot.appendChild(document.createElement("div")); plot.appendChild(xaxis);
  var explain = document.createElement("p"); explain.className = "mem-explain";
  var whole = document.createElement("label"); whole.className = "mem-whole";
  whole.innerHTML = '<input type="checkbox"> show the whole recording (' + M.n_events + " events) instead of the pass in focus";
  var wholeBox = whole.querySelector("input");
  var legend = document.createElement("div"); legend.className = "mem-legend";
  legend.innerHTML = '<span class="sw mem-saved"></span> saved for backward <span class="sw mem-other"></span> params, grads, buffers, outputs · ' +
                     "whole recording: " + esc(M.peak_text) + " · saved for backward in all: " + esc(M.saved_total);
  var table = document.createElement("div"); table.className = "mem-node";
  [head, plot, explain, whole, legend, table].forEach(function (e) { pane.appendChild(e); });

  // The bars of one span (a window of M.windows, or the whole recording), scaled to its largest total.
  var paths = [["mem-other"], ["mem-saved"]].map(function (a) {
    var path = document.createElementNS(NS, "path"); path.setAttribute("class", a[0]); svg.appendChild(path); return path;
  });
  var marker = document.createElementNS(NS, "line");
  marker.setAttribute("class", "mem-marker"); marker.setAttribute("y1", 0); marker.setAttribute("y2", H);
  svg.appendChild(marker);
  var WHOLE = { from: 0, to: M.n_events - 1, step: M.step, points: M.points, what: "the whole recording" };
  var span = null, bw = 1;
  function drawSpan(w) {
    span = w;
    var n = w.points.length, top = 1, d1 = "", d2 = "";
    w.points.forEach(function (p) { top = Math.max(top, sum(p)); });
    bw = W / Math.max(n, 1);
    w.points.forEach(function (p, i) {
      var t = sum(p) / top * H, s = p[2] / top * H, x = (i * bw).toFixed(2), wd = Math.max(bw, 0.6).toFixed(2);
      if (t > 0) d1 += "M" + x + " " + (H - t).toFixed(2) + "h" + wd + "V" + H + "h-" + wd + "Z";
      if (s > 0) d2 += "M" + x + " " + (H - s).toFixed(2) + "h" + wd + "V" + H + "h-" + wd + "Z";
    });
    paths[0].setAttribute("d", d1 || "M0 0"); paths[1].setAttribute("d", d2 || "M0 0");
    yaxis.querySelector(".top").textContent = fmt(top);
    yaxis.querySelector(".mid").textContent = fmt(top / 2);
    xaxis.querySelector(".lo").textContent = "event " + w.from;
    xaxis.querySelector(".hi").textContent = "event " + w.to;
    xaxis.querySelector(".title").textContent = "events →";
    svg.setAttribute("aria-label", "bytes alive over events " + w.from + " to " + w.to);
    var count = w.to - w.from + 1;
    explain.textContent = "Shown: events " + w.from + "–" + w.to + ", " + w.what + ". The height is the bytes alive after " +
      "each event, from 0 to the largest of this span (" + fmt(top) + "). " + (w.step > 1
        ? "Each of the " + n + " bars stands for " + w.step + " events (" + count + " in all) and shows the largest total among them, " +
          "so a short rise is never hidden; the figures above the chart are that bar's."
        : "Each bar is one event.") + " The line marks the event shown.";
  }
  function spanOf(ev) {
    if (wholeBox.checked || !M.windows || !M.windows.length) return WHOLE;
    for (var i = 0; i < M.windows.length; i++) if (M.windows[i].from <= ev && ev <= M.windows[i].to) return M.windows[i];
    return M.windows[0];
  }

  var shown = null;
  function draw(force) {
    var ev = +root.getAttribute("data-event"), node = root.getAttribute("data-node") || "";
    var key = ev + "/" + node;
    if (key === shown && force !== true) return;
    shown = key;
    var w = spanOf(ev);
    if (w !== span) drawSpan(w);
    var k = Math.max(0, Math.min(w.points.length - 1, Math.floor((ev - w.from) / w.step))), p = w.points[k] || [0, 0, 0, 0, 0];
    var x = ((k + 0.5) * bw).toFixed(2);
    marker.setAttribute("x1", x); marker.setAttribute("x2", x);
    head.innerHTML = "<b>alive after event " + ev + ": " + (w.step > 1 ? "up to " : "") + fmt(sum(p)) + "</b>" +
      (w.step > 1 ? " (the largest of the " + w.step + " events its bar stands for)" : "") + " · " +
      M.categories.map(function (c, i) { return esc(c) + " " + fmt(p[i]); }).join(" · ");
    var info = node !== "" ? M.nodes[node] : null;
    if (!info) {
      table.innerHTML = '<p class="note">no grad node in focus: step into the pass (or click a node) to see what it saved</p>';
      return;
    }
    var released = info.freed !== null && info.freed <= ev;
    var h = "<div><b>" + esc(info.name) + "</b> saved " + info.saved.length + " tensor" + (info.saved.length === 1 ? "" : "s") +
            (info.module ? " · module <b>" + esc(info.module) + "</b>" : "") + (info.source ? " · " + esc(info.source) : "") +
            (info.recompute !== null ? ' · <span class="mem-recompute">recomputed for node ' + info.recompute + "</span>" : "") + "</div>";
    if (info.saved.length) {
      h += "<table><tr><th>tensor</th><th>shape</th><th>dtype</th><th>bytes</th><th></th></tr>" + info.saved.map(function (r) {
        var how = r[5] === "packed" ? "packed by a hook" : released ? "freed at event " + info.freed : r[5] === "param" ? "parameter" : "held";
        return "<tr><td>" + esc(r[0]) + "</td><td>" + esc(r[1]) + "</td><td>" + esc(r[2]) + '</td><td class="num">' + esc(r[4]) +
               '</td><td class="how">' + esc(how) + "</td></tr>";
      }).join("") + "</table>";
    } else h += '<p class="note">nothing: its formula needs no saved tensor</p>';
    table.innerHTML = h;
  }
  new MutationObserver(draw).observe(root, { attributes: true, attributeFilter: ["data-event", "data-node"] });
  wholeBox.addEventListener("change", function () { draw(true); });
  draw();
})();
