// minigrad web stepper, memory pane: draws D.memory (viz/memory_pane.py, from mg.trace.memory).
//
// It follows the stepper through the root's attributes: data-event (the event shown) and
// data-node (the grad node in focus); it folds nothing itself. DOM: #memory > .body holds
// .mem-head (bytes alive now), svg.mem-chart (one bar per point, saved bytes in their own
// colour, line.mem-marker at the event shown) and table.mem-saved (what the node saved).
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
  var svg = document.createElementNS(NS, "svg");
  svg.setAttribute("class", "mem-chart"); svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  svg.setAttribute("preserveAspectRatio", "none"); svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "bytes alive over the events");
  var legend = document.createElement("div"); legend.className = "mem-legend";
  legend.innerHTML = '<span class="sw mem-saved"></span> saved for backward <span class="sw mem-other"></span> params, grads, buffers, outputs · ' +
                     esc(M.peak_text) + " · saved in all: " + esc(M.saved_total);
  var table = document.createElement("div"); table.className = "mem-node";
  pane.appendChild(head); pane.appendChild(svg); pane.appendChild(legend); pane.appendChild(table);

  // The chart: one column per point, drawn once; the marker moves.
  var n = M.points.length, peak = M.peak || 1, bw = W / Math.max(n, 1), d1 = "", d2 = "";
  M.points.forEach(function (p, i) {
    var t = sum(p) / peak * (H - 4), s = p[2] / peak * (H - 4), x = (i * bw).toFixed(2), w = Math.max(bw, 0.6).toFixed(2);
    if (t > 0) d1 += "M" + x + " " + (H - t).toFixed(2) + "h" + w + "V" + H + "h-" + w + "Z";
    if (s > 0) d2 += "M" + x + " " + (H - s).toFixed(2) + "h" + w + "V" + H + "h-" + w + "Z";
  });
  [["mem-other", d1], ["mem-saved", d2]].forEach(function (a) {
    var path = document.createElementNS(NS, "path"); path.setAttribute("class", a[0]); path.setAttribute("d", a[1] || "M0 0");
    svg.appendChild(path);
  });
  var marker = document.createElementNS(NS, "line");
  marker.setAttribute("class", "mem-marker"); marker.setAttribute("y1", 0); marker.setAttribute("y2", H);
  svg.appendChild(marker);
  var peakLine = document.createElementNS(NS, "line");
  peakLine.setAttribute("class", "mem-peak"); peakLine.setAttribute("x1", 0); peakLine.setAttribute("x2", W);
  peakLine.setAttribute("y1", 4); peakLine.setAttribute("y2", 4);
  svg.appendChild(peakLine);

  var shown = null;
  function draw() {
    var ev = +root.getAttribute("data-event"), node = root.getAttribute("data-node") || "";
    var key = ev + "/" + node;
    if (key === shown) return;
    shown = key;
    var k = Math.max(0, Math.min(n - 1, Math.floor(ev / M.step))), p = M.points[k] || [0, 0, 0, 0, 0];
    var x = ((k + 0.5) * bw).toFixed(2);
    marker.setAttribute("x1", x); marker.setAttribute("x2", x);
    head.innerHTML = "<b>alive after event " + ev + (M.step > 1 ? " (largest of its " + M.step + " events)" : "") + ": " + fmt(sum(p)) + "</b> · " +
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
  draw();
})();
