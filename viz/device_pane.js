// minigrad web stepper, Device pane: draws D.device (viz/device_pane.py, from replay's State.device, the
// words the TUI's Device tab shows too).
//
// It follows the stepper through the root's data-event attribute (the event shown) and folds nothing
// itself. DOM: #device > .body holds p.dv-intro, then either p.dv-empty (a recording made on the CPU) or
// ul.dv-lines (one li.dv-line per source line: .src, .code, .counts) and ul.dv-spans (one li.dv-span per
// stretch begun by the event shown, li.dv-span.here the one holding it, with its own li.dv-line rows).
(function () {
  "use strict";
  var root = document.getElementById("minigrad-stepper");
  var D = JSON.parse(document.getElementById("minigrad-data").textContent);
  var V = D.device;
  var pane = root && root.querySelector("#device > .body");
  if (!V || !pane) return;
  var esc = function (s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  };

  function counts(r) {
    return '<span class="counts">' + esc(r.launches_text) + " &middot; " +
      '<span class="' + (r.copies ? "copy" : "dim") + '">' + esc(r.copies_text) + "</span> &middot; " +
      '<span class="' + (r.syncs ? "sync" : "dim") + '">' + esc(r.syncs_text) + "</span>" +
      (r.stretches ? " &middot; <b>" + esc(r.stretches_text) + "</b>" : "") + "</span>";
  }
  function line(r) {
    return '<li class="dv-line"><span class="src">' + esc(r.source) + '</span>  <span class="code">' + esc(r.code || "") +
      "</span>" + counts(r) + "</li>";
  }

  var shown = null;
  function draw() {
    var ev = +root.getAttribute("data-event");
    if (ev === shown) return;
    shown = ev;
    var h = '<p class="dv-intro">' + esc(V.intro) + "</p>";
    if (V.empty) { pane.innerHTML = h + '<p class="dv-empty">' + esc(V.empty) + "</p>"; return; }
    var t = V.total;
    h += "<h3>By source line (the whole recording: " + esc(t.launches_text + ", " + t.copies_text + ", " + t.syncs_text) +
         ')</h3><ul class="dv-lines">' + V.lines.map(line).join("") + "</ul>";
    h += "<h3>Per stretch (the forward before each backward pass, and the pass) up to event " + ev + '</h3><ul class="dv-spans">';
    V.spans.forEach(function (s) {
      if (s.begin > ev) return;
      var here = s.end === null || ev <= s.end;
      h += '<li class="dv-span' + (here ? " here" : "") + '" data-begin="' + s.begin + '"><span class="label">' + (here ? "&#9654; " : "") +
           esc(s.label) + '</span> <span class="dim">(events ' + s.begin + "&ndash;" + (s.end === null ? "&hellip;" : s.end) + ")</span>" +
           counts(s) + (s.lines.length ? "<ul>" + s.lines.map(line).join("") + "</ul>" : "") + "</li>";
    });
    pane.innerHTML = h + "</ul>";
  }
  new MutationObserver(draw).observe(root, { attributes: true, attributeFilter: ["data-event"] });
  draw();
})();
