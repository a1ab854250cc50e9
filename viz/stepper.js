// minigrad web stepper: shows what mg.trace.replay computed; it folds no event itself.
//
// The page's data (see viz/stepper.py, NOTE [ What the page ships ]) holds, per backward pass,
// one effect per event: the values that event changed (queue after it, new in-degrees, new
// statuses, new buffers, current and focused node). Going to an event = restoring the nearest
// checkpoint taken while reading the effects once, then assigning the effects after it.
//
// DOM contract (docs/web.md): #minigrad-stepper[data-event] is the event shown; panes #graph
// #queue #in-degree #buffers #log #node; #event=N in the address opens event N.
(function () {
  "use strict";
  var root = document.getElementById("minigrad-stepper");
  var D = JSON.parse(document.getElementById("minigrad-data").textContent);
  var STATUS = D.statuses;
  var SPEEDS = [1, 2, 4, 8, 16, 32, 64];
  var EVERY = 64; // events between checkpoints
  var $ = function (id) { return root.querySelector("#" + id); };
  var body = function (id) { return root.querySelector("#" + id + " > .body"); };
  var esc = function (s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  };

  var P = null;          // the pass shown
  var pos = 0;           // index of the shown event inside P.events
  var S = null;          // state after P.events[pos]
  var checkpoints = [];  // checkpoints[j]: state before event j*EVERY
  var drawn = null;      // what the graph and in-degree panes show now
  var selected = -1;     // a node pinned by a click (-1: follow the focus)
  var playing = null, speed = 2, quizOn = false, answered = {}, score = [0, 0, 0, 0];
  var nodeEls = [], inEls = [], qEls = [], rowEls = [], hashTimer = null, quizKey = null;

  // -- state: initial values, effects, checkpoints -------------------------------------------

  function initial(p) {
    var b = new Map();
    Object.keys(p.init.buffers).forEach(function (k) { b.set(+k, p.init.buffers[k]); });
    return { status: Int8Array.from(p.init.status), degree: Int32Array.from(p.init.degree), queue: p.init.queue,
             current: p.init.current, changed: p.init.changed, focus: p.init.focus, buffers: b, general: null };
  }
  function clone(s) {
    return { status: s.status.slice(), degree: s.degree.slice(), queue: s.queue, current: s.current,
             changed: s.changed, focus: s.focus, buffers: new Map(s.buffers), general: s.general };
  }
  function apply(s, ev) {
    var e = ev[3];
    if (!e) return;
    var i;
    if (e.q !== undefined) s.queue = e.q;
    if (e.c !== undefined) s.current = e.c;
    if (e.lc !== undefined) s.changed = e.lc;
    if (e.f !== undefined) s.focus = e.f;
    if (e.g !== undefined) s.general = e.g;
    if (e.d) for (i = 0; i < e.d.length; i++) s.degree[e.d[i][0]] = e.d[i][1];
    if (e.s) for (i = 0; i < e.s.length; i++) s.status[e.s[i][0]] = e.s[i][1];
    if (e.b) for (i = 0; i < e.b.length; i++) {
      if (e.b[i][1] === null) s.buffers.delete(e.b[i][0]); else s.buffers.set(e.b[i][0], e.b[i][1]);
    }
  }
  function buildCheckpoints(p) {
    checkpoints = [];
    var s = initial(p);
    for (var i = 0; i < p.events.length; i++) {
      if (i % EVERY === 0) checkpoints.push(clone(s));
      apply(s, p.events[i]);
    }
  }
  function stateAt(k) {
    // Forward from the state on screen when it is close; else from the checkpoint before k.
    var s, from;
    if (S !== null && k >= pos && k - pos <= EVERY) { s = S; from = pos + 1; }
    else { var j = Math.floor(k / EVERY); s = clone(checkpoints[j]); from = j * EVERY; }
    for (var i = from; i <= k; i++) apply(s, P.events[i]);
    return s;
  }

  // -- drawing --------------------------------------------------------------------------------

  function name(k) { return k >= 0 ? P.names[k] : "-"; }

  function setupPass() {
    var g = body("graph");
    nodeEls = []; inEls = []; qEls = [];
    if (P.svg) {
      g.innerHTML = P.svg;
      g.classList.remove("list");
    } else {
      g.classList.add("list");
      var items = P.order.map(function (k) {
        return '<li id="n' + P.ids[k] + '" class="node"><span class="sw shape"></span>' + esc(P.names[k]) +
               ' <span id="n' + P.ids[k] + '-in" class="badge in"><text></text></span>' +
               ' <span id="n' + P.ids[k] + '-q" class="badge q"><text></text></span></li>';
      });
      g.innerHTML = '<p class="note">This pass is too large to draw here; its nodes are listed in order.</p><ul>' + items.join("") + "</ul>";
    }
    for (var k = 0; k < P.ids.length; k++) {
      var el = g.querySelector("#n" + P.ids[k]);
      nodeEls.push(el);
      inEls.push(el ? g.querySelector("#n" + P.ids[k] + "-in") : null);
      qEls.push(el ? g.querySelector("#n" + P.ids[k] + "-q") : null);
      if (el) { el.setAttribute("data-k", k); el.setAttribute("data-node", P.ids[k]); }
    }
    var rows = P.order.map(function (k) {
      return '<tr data-node="' + P.ids[k] + '"><td class="nm">' + esc(P.names[k]) + '</td><td class="init"></td>' +
             '<td class="now"></td><td class="mark"></td></tr>';
    });
    body("in-degree").innerHTML = '<div class="sub"></div><table>' + rows.join("") + "</table>";
    rowEls = [];
    var trs = body("in-degree").querySelectorAll("tr");
    for (var r = 0; r < trs.length; r++) rowEls[P.order[r]] = trs[r];
    var calls = P.calls.map(function (c, n) {
      return '<div class="call" data-event="' + c[0] + '">' + esc(c[1]) + "</div>";
    });
    var more = P.n_calls > P.calls.length ? '<p class="note">… ' + (P.n_calls - P.calls.length) + " more op calls not on this page</p>" : "";
    body("forward").innerHTML = (calls.length ? calls.join("") : '<p class="note">(no op calls before this pass)</p>') + more;
    drawn = { status: new Int8Array(P.ids.length).fill(-1), degree: new Int32Array(P.ids.length).fill(-2),
              queue: [], changed: -2, focus: -1, general: undefined, init: false };
    $("slider").max = P.events.length - 1;
  }

  function setClass(el, cls, on) { if (el) el.classList.toggle(cls, on); }

  function drawGraphAndDegrees() {
    var k, i;
    for (k = 0; k < P.ids.length; k++) {
      var st = S.status[k];
      if (st !== drawn.status[k]) {
        var el = nodeEls[k];
        if (el) {
          if (drawn.status[k] >= 0) el.classList.remove("st-" + STATUS[drawn.status[k]]);
          el.classList.add("st-" + STATUS[st]);
          el.setAttribute("data-status", STATUS[st]);
        }
        drawn.status[k] = st;
      }
      var d = S.degree[k];
      var ch = k === S.changed;
      if (d !== drawn.degree[k] || ch !== (k === drawn.changed)) {
        var b = inEls[k];
        if (b) {
          b.lastElementChild.textContent = d >= 0 ? "in " + d : "";
          setClass(b, "off", d < 0); setClass(b, "zero", d === 0 && !ch); setClass(b, "changed", ch);
        }
        var row = rowEls[k];
        if (row) {
          var init = P.initial[k];
          if (init < 0) {
            row.cells[1].textContent = P.start.indexOf(k) >= 0 ? "start" : "-";
            row.cells[2].textContent = "";
            row.removeAttribute("data-in-degree");
          } else {
            row.cells[1].textContent = init + " →";
            row.cells[2].textContent = d >= 0 ? d : "";
            if (d >= 0) row.setAttribute("data-in-degree", d); else row.removeAttribute("data-in-degree");
          }
          setClass(row, "zero", d === 0);
          setClass(row, "changed", ch);
          row.cells[3].textContent = ch ? "◀ changed" : "";
        }
        drawn.degree[k] = d;
      }
    }
    // Queue badges: clear the old positions, number the new ones.
    for (i = 0; i < drawn.queue.length; i++) if (S.queue.indexOf(drawn.queue[i]) < 0) setClass(qEls[drawn.queue[i]], "off", true);
    for (i = 0; i < S.queue.length; i++) {
      var q = qEls[S.queue[i]];
      if (q) { q.lastElementChild.textContent = "Q" + (i + 1); q.classList.remove("off"); }
    }
    if (!drawn.init) { for (k = 0; k < qEls.length; k++) if (S.queue.indexOf(k) < 0) setClass(qEls[k], "off", true); drawn.init = true; }
    drawn.queue = S.queue;
    if (S.changed !== drawn.changed && S.changed >= 0 && rowEls[S.changed]) scrollInto(body("in-degree"), rowEls[S.changed]);
    drawn.changed = S.changed;
    var sub = body("in-degree").firstChild;
    sub.textContent = S.changed >= 0 ? "last change: " + name(S.changed) + " → " + S.degree[S.changed] : "";
    // The focused node gets an outline in the graph.
    var f = selected >= 0 ? selected : S.focus;
    if (f !== drawn.focus) {
      if (drawn.focus >= 0 && nodeEls[drawn.focus]) nodeEls[drawn.focus].classList.remove("focus");
      if (f >= 0 && nodeEls[f]) { nodeEls[f].classList.add("focus"); scrollToNode(nodeEls[f]); }
      drawn.focus = f;
    }
  }

  function scrollToNode(el) { scrollInto(body("graph"), el); }

  function scrollInto(box, el) {
    // Keep an element in view inside its pane (the page itself does not move).
    var r = el.getBoundingClientRect(), b = box.getBoundingClientRect();
    if (r.top < b.top || r.bottom > b.bottom) box.scrollTop += r.top - b.top - (box.clientHeight - r.height) / 2;
    if (r.left < b.left || r.right > b.right) box.scrollLeft += r.left - b.left - (box.clientWidth - r.width) / 2;
  }

  function zoom() {
    // Fit (the default): the whole graph in the pane. Full size: the graph's own size, scrolled to the focus.
    var full = root.classList.toggle("zoom");
    $("zoom").textContent = full ? "fit" : "full size";
    var f = selected >= 0 ? selected : S.focus;
    if (full && f >= 0 && nodeEls[f]) scrollToNode(nodeEls[f]);
  }

  function drawQueue() {
    var h = "";
    if (S.current >= 0) h += '<div class="popped">popped: <b class="st-running" data-node="' + P.ids[S.current] + '">' + esc(name(S.current)) + "</b></div>";
    var items = S.queue.slice(0, 200).map(function (k, i) {
      return '<li data-node="' + P.ids[k] + '"><span class="pos">' + i + ":</span>" + esc(name(k)) + "</li>";
    });
    h += '<div class="q">front → <ol start="0">' + (items.join("") || '<li class="empty">(empty)</li>') + "</ol> ← back</div>";
    if (S.queue.length > 200) h += '<div class="note">… ' + (S.queue.length - 200) + " more</div>";
    body("queue").innerHTML = h;
  }

  function ran(k) { var st = STATUS[S.status[k]]; return st === "running" || st === "done" || st === "released"; }

  function drawBuffers(f) {
    var h = "", title = "Gradient buffers";
    if (f < 0) h = '<p class="note">(no current node)</p>';
    else {
      title += " · " + name(f);
      var buf = S.buffers.get(f), e = P.events[pos][3], just = e && e.b && e.b.some(function (x) { return x[0] === f; });
      var det = P.detail[f];
      if (buf && buf.length) {
        h = '<p class="note">GradTensorHolder (slot, rank):</p>' + buf.map(function (x) {
          return '<div class="buf' + (just ? " just" : "") + '">[' + x[0] + "," + x[1] + "] " + esc(x[2]) + (just ? " ◀ just added" : "") + "</div>";
        }).join("");
      } else if (ran(f) && det.gin) {
        var done = det.run_at !== undefined && P.begin + pos >= det.run_at;  // its node.run: the formula finished
        h = '<p class="note">' + (done ? "buffer consumed by the run; grads in:" : "buffer taken: the node runs on grads in:") + "</p>" +
            det.gin.map(function (x) { return "<div>" + esc(x) + "</div>"; }).join("");
        if (done && det.gout && det.gout.length) h += '<p class="note">grads out:</p>' + det.gout.map(function (x) { return "<div>" + esc(x) + "</div>"; }).join("");
      } else h = '<p class="note">empty (no gradient has arrived yet)</p>';
    }
    root.querySelector("#buffers > h2").textContent = title;
    body("buffers").innerHTML = h;
  }

  // Each saved tensor: [text, version saved, [[from, until (-1: on), version now], ...]]; stale while an
  // in-place change has moved its version since the node saved it (backward refuses it).
  function savedText(saved, ev) {
    if (!saved || !saved.length) return "-";
    return saved.map(function (x) {
      var now = (x[2] || []).filter(function (m) { return m[0] <= ev && (m[1] < 0 || ev < m[1]); })[0];
      if (now) return esc(x[0]) + ' <span class="alarm stale-saved">&#10008; stale: saved at v' + x[1] + ", now v" + now[2] + "</span>";
      return esc(x[0] + " v" + x[1]);
    }).join(", ");
  }

  // The error that ended the pass, once the page is at it: where the node's next step would have been.
  function errorText(ev) {
    var e = P.error;
    if (!e || ev < e.at) return "";
    return '<div class="pass-error alarm">&#10008; ' + esc(e.error) + ": " + esc(e.message) + "</div>";
  }

  function drawNode(f) {
    var h2 = root.querySelector("#node > h2");
    if (f < 0) { h2.textContent = "Node detail"; body("node").innerHTML = errorText(P.begin + pos) + '<p class="note">(no node; click one in the graph)</p>'; return; }
    var d = P.detail[f], st = STATUS[S.status[f]], ev = P.begin + pos;
    h2.textContent = "Node detail · " + d.name + (selected >= 0 ? " (pinned; Esc unpins)" : "");
    var h = errorText(ev) + '<div><b>' + esc(d.name) + "</b> " + esc(d.head || "") + ' <span class="tag st-' + st + '">' + st + "</span>" +
            (d.acc ? ' <span class="acc">' + esc(d.acc) + "</span>" : "") + (d.copy ? ' <span class="copy">' + esc(d.copy) + "</span>" : "") + "</div>";
    if (d.source || d.module) h += '<div class="prov">made at <b>' + esc(d.source || "?") + "</b>" + (d.module ? " in module <b>" + esc(d.module) + "</b>" : "") + "</div>";
    h += '<div><span class="k">attrs</span> ' + esc(d.attrs || "-") + "</div>";
    h += '<div><span class="k">saved</span> ' + savedText(d.saved, ev) + (st === "released" ? ' <span class="rel">(TensorWrappers released)</span>' : "") + "</div>";
    h += '<div class="k">edges (output slot, rank → next node, its input slot, rank)</div>' + (d.edges || []).map(function (x) { return '<div class="edge">' + esc(x) + "</div>"; }).join("");
    var hooks = P.hooks.filter(function (x) { return x.at <= ev && x.nodes.indexOf(f) >= 0; });
    h += '<div><span class="k">hooks</span> ' + (hooks.map(function (x) { return esc(x.kind + " on " + x.target + " @ event " + x.at); }).join(", ") || "-") + "</div>";
    if (d.history) {
      var hist = d.history.filter(function (x) { return x[2] <= ev; }).map(function (x) { return esc(x[1]); });
      h += '<div class="grads"><span class="k">' + esc(d.grad_of || "") + '.grad by pass</span> ' + (hist.join(" · ") || "- (not written yet)") + "</div>";
    }
    body("node").innerHTML = h;
  }

  function drawLog() {
    var lo = Math.max(0, pos - 12), hi = Math.min(P.events.length - 1, pos + 12), h = [];
    for (var i = lo; i <= hi; i++) {
      var e = P.events[i];
      var why = D.whys[e[2]];
      h.push('<div class="ev' + (i === pos ? " cur" : "") + (P.inside[i] ? " in" : "") + '" data-event="' + (P.begin + i) + '"' + (why ? ' title="why: ' + esc(why) + '"' : "") +
             '><span class="n">' + (P.begin + i) +
             '</span> <span class="kind k-' + D.kinds[e[0]].replace(/[._]/g, "-") + '">' + esc(D.kinds[e[0]]) + "</span> " + esc(e[1]) + "</div>");
    }
    body("log").innerHTML = h.join("");
    root.querySelector("#log > h2").textContent = "Event log · event " + (P.begin + pos) + " of 0–" + (D.n_events - 1);
  }

  function drawStatus() {
    var e = P.events[pos], ev = P.begin + pos;
    $("what").innerHTML = '<span class="kind">' + esc(D.kinds[e[0]]) + "</span> " + esc(e[1]);
    var why = D.whys[e[2]];
    $("why").innerHTML = why ? '<b>why:</b> ' + esc(why) : "";
    $("counter").textContent = "event " + ev + " · " + (pos + 1) + "/" + P.events.length + " of pass " + P.number +
      ": " + P.call + (playing ? " · ▶ " + SPEEDS[speed] + " ev/s" : "") + (quizOn ? " · quiz node " + score[0] + "/" + score[1] + " in-degree " + score[2] + "/" + score[3] : "");
    $("ending").textContent = P.ending || "";
    $("ending").hidden = !P.ending;
    $("slider").value = pos;
    var calls = root.querySelectorAll("#forward .call.cur");
    calls.forEach(function (c) { c.classList.remove("cur"); });
  }

  function drawGeneral() {
    if (S.general === drawn.general) return;
    drawn.general = S.general;
    var h;
    if (S.general) {
      h = "<table>" + S.general.map(function (r) { return "<tr><th>" + esc(r[0]) + "</th><td>" + esc(r[1]) + "</td></tr>"; }).join("") + "</table>";
    } else if (P.mode === "grad") {
      h = '<p class="note">GeneralGrad has not decided anything yet at this event; step on.</p>';
    } else {
      h = '<p class="note">Pass ' + P.number + " is a plain " + P.mode + "(): GeneralGrad does not take part. " +
          "Choose a grad() pass to see startup, ending, needed and pruned nodes.</p>";
    }
    body("general").innerHTML = h;
  }

  function drawForward() {
    if ($("tab-forward").hidden) return;
    var ev = P.begin + pos, best = null;
    root.querySelectorAll("#forward .call").forEach(function (c) { if (+c.getAttribute("data-event") <= ev) best = c; });
    if (best) { best.classList.add("cur"); best.scrollIntoView({ block: "nearest" }); }
  }

  function draw() {
    var f = selected >= 0 ? selected : S.focus;
    drawGraphAndDegrees();
    drawQueue();
    drawBuffers(f);
    drawNode(f);
    drawLog();
    drawStatus();
    drawForward();
    drawGeneral();
    root.setAttribute("data-event", P.begin + pos);
    root.setAttribute("data-pass", P.number);
    root.setAttribute("data-node", f >= 0 ? P.ids[f] : "");  // the memory pane follows it (memory_pane.js)
    // The address follows the event shown (#event=N), once stepping pauses: browsers limit how often it may change.
    clearTimeout(hashTimer);
    hashTimer = setTimeout(function () {
      try { history.replaceState(null, "", "#event=" + (P.begin + pos)); } catch (err) { /* about:srcdoc in a notebook */ }
    }, 150);
  }

  // -- moving ---------------------------------------------------------------------------------

  function show(k) {
    k = Math.max(0, Math.min(P.events.length - 1, k));
    S = stateAt(k);
    pos = k;
    draw();
  }

  function goto(k, keepSelection) {
    k = Math.max(0, Math.min(P.events.length - 1, k));
    if (!keepSelection) selected = -1;
    if (quizOn && k > pos) {
      var q = dueQuestion(pos, k);
      if (q) { stop(); show(q.ask - P.begin - 1); ask(q, k); return; }
    }
    show(k);
  }

  function selectPass(n, at) {
    P = D.passes[n];
    S = null; selected = -1;
    buildCheckpoints(P);
    setupPass();
    $("pass").value = n;
    S = null;
    show(at === undefined ? 0 : at);
  }

  function runs() { return P.runs; }
  function nextRun(delta) {
    var r = runs(), i;
    if (delta > 0) { for (i = 0; i < r.length; i++) if (r[i] > pos) return goto(r[i]); return goto(P.events.length - 1); }
    for (i = r.length - 1; i >= 0; i--) if (r[i] < pos) return goto(r[i]);
    goto(0);
  }

  function stop() { if (playing) { clearInterval(playing); playing = null; $("play").innerHTML = "&#9654; play"; } }
  function play() {
    if (playing) { stop(); drawStatus(); return; }
    if (pos >= P.events.length - 1) goto(0);
    $("play").innerHTML = "&#10074;&#10074; pause";
    playing = setInterval(function () { if (pos >= P.events.length - 1) { stop(); drawStatus(); } else goto(pos + 1); }, 1000 / SPEEDS[speed]);
    drawStatus();
  }
  function setSpeed(d) { speed = Math.max(0, Math.min(SPEEDS.length - 1, speed + d)); if (playing) { stop(); play(); } else drawStatus(); }

  function fromHash() {
    var m = /event=(-?\d+)/.exec(location.hash || "");
    if (!m || !D.passes.length) return false;
    var n = +m[1];
    for (var p = 0; p < D.passes.length; p++) {
      var ps = D.passes[p];
      if (n <= ps.end || p === D.passes.length - 1) {
        if (P !== ps) selectPass(p, Math.max(0, Math.min(ps.events.length - 1, n - ps.begin)));
        else goto(n - ps.begin);
        if (n < ps.begin || n > ps.end) note("event " + n + " is not inside a backward pass on this page; showing event " + (P.begin + pos) + ".");
        return true;
      }
    }
    return false;
  }

  // -- quiz (questions and answers computed by replay; this only asks and compares) -----------

  function dueQuestion(from, to) {
    for (var i = 0; i < P.quiz.length; i++) {
      var q = P.quiz[i], a = q.ask - P.begin;
      if (a > to) break;
      if (from < a && a <= to && !answered[q.run]) return q;
    }
    return null;
  }

  function matches(answer, k, pool) {
    var a = answer.trim().toLowerCase();
    if (!a) return false;
    var nm = P.names[k].toLowerCase();
    if (a === nm || a.replace(/^#/, "") === String(P.ids[k])) return true;
    var hits = (pool.length ? pool : [k]).filter(function (j) { return P.names[j].toLowerCase().indexOf(a) >= 0; });
    return hits.length === 1 && hits[0] === k;
  }

  function guessed(answer, pool) {
    // The node an answer names: its id, its exact name, or a part of a name unique in the queue, then in the pass.
    var a = answer.trim().toLowerCase().replace(/^#/, ""), k;
    if (!a) return -1;
    if (/^\d+$/.test(a)) return P.ids.indexOf(+a);
    for (k = 0; k < P.names.length; k++) if (P.names[k].toLowerCase() === a) return k;
    var hits = pool.filter(function (j) { return P.names[j].toLowerCase().indexOf(a) >= 0; });
    if (hits.length === 1) return hits[0];
    for (k = 0; k < P.order.length; k++) if (P.names[P.order[k]].toLowerCase().indexOf(a) >= 0) return P.order[k];
    return -1;
  }

  function ask(q, target) {
    var box = $("quiz");
    box.hidden = false;
    delete box.dataset.degrees;
    box.innerHTML = '<div class="card"><b>Quiz:</b> which node does the engine run next?<div class="note">ready queue, front → back: ' +
      esc(q.cand.map(name).join(", ") || "(empty)") + '</div><input id="quiz-node" placeholder="node name, part of it, or #id">' +
      '<div id="quiz-feedback"></div><input id="quiz-degrees" hidden placeholder="in-degrees, e.g. 0 1">' +
      '<div class="note">enter answers · Esc skips</div></div>';
    var inNode = $("quiz-node"), inDeg = $("quiz-degrees"), fb = $("quiz-feedback"), stage = "node";
    var finish = function (skipped, nodeRight, degRight) {
      box.hidden = true; box.innerHTML = ""; answered[q.run] = true;
      if (!skipped) { score[1]++; if (nodeRight) score[0]++; if (degRight !== null) { score[3]++; if (degRight) score[2]++; } }
      goto(Math.min(target, q.after - P.begin));
    };
    var nodeRight = false;
    quizKey = function (ev) {
      if (ev.key === "Escape") { finish(stage !== "done", nodeRight, null); return; }
      if (ev.key !== "Enter") return;
      if (stage === "node") {
        nodeRight = matches(inNode.value, q.node, q.cand);
        inNode.disabled = true;
        var why = q.why, guess = nodeRight ? -1 : guessed(inNode.value, q.cand);
        if (guess >= 0 && guess !== q.node) {
          why += " " + name(guess) + (q.cand.indexOf(guess) >= 0 ? " was at position " + q.cand.indexOf(guess) + " of the queue; only the front runs."
            : " was not in the ready queue: its in-degree was not 0 yet, or it is not in this pass.");
        }
        var h = (nodeRight ? '<b class="ok">✔ right:</b> ' : '<b class="bad">✘ no:</b> ') + "the engine runs " + esc(name(q.node)) +
                '.<div class="why">why: ' + esc(why) + "</div>";
        if (q.succ.length) {
          h += "After " + esc(name(q.node)) + " runs, what are the in-degrees of: <b>" + esc(q.succ.map(name).join(", ")) + "</b>?";
          stage = "degrees"; inDeg.hidden = false; inDeg.focus();
        } else { h += esc(name(q.node)) + " has no next nodes. Press enter to continue."; stage = "done"; }
        fb.innerHTML = h;
      } else if (stage === "degrees") {
        var got = inDeg.value.replace(/,/g, " ").trim().split(/\s+/).map(Number);
        var right = got.length === q.deg.length && got.every(function (v, i) { return v === q.deg[i]; });
        inDeg.disabled = true;
        fb.innerHTML += "<div>" + (right ? '<b class="ok">✔ in-degrees right:</b> ' : '<b class="bad">✘ in-degrees:</b> ') +
          esc(q.succ.map(function (k, i) { return name(k) + " = " + q.deg[i]; }).join(", ")) +
          '<div class="why">why: each edge from ' + esc(name(q.node)) + " delivers one gradient and lowers its next node's in-degree by one; a node that reaches 0 enters the queue.</div>Press enter to continue.</div>";
        stage = "done"; box.dataset.degrees = right ? "1" : "0";
      } else finish(false, nodeRight, box.dataset.degrees === undefined ? null : box.dataset.degrees === "1");
      ev.preventDefault();
    };
    inNode.focus();
  }

  function jump(query) {
    // The TUI's j: a node by exact name, #id, or the first name containing the query; go to its run and pin it.
    var q = query.trim().toLowerCase().replace(/^#/, ""), k = -1, i;
    if (!q) return;
    if (/^\d+$/.test(q)) k = P.ids.indexOf(+q);
    for (i = 0; k < 0 && i < P.names.length; i++) if (P.names[i].toLowerCase() === q) k = i;
    for (i = 0; k < 0 && i < P.order.length; i++) if (P.names[P.order[i]].toLowerCase().indexOf(q) >= 0) k = P.order[i];
    if (k < 0) { note("No node matching '" + query + "' in this pass."); return; }
    var run = -1;  // the quiz's questions know every node run of the pass
    for (i = 0; i < P.quiz.length && run < 0; i++) if (P.quiz[i].node === k) run = P.quiz[i].run - P.begin;
    if (run >= 0) goto(run);
    selected = k;
    draw();
    note(name(k) + (run >= 0 ? " runs at event " + (P.begin + run) : " does not run in this pass"));
  }

  // -- wiring ---------------------------------------------------------------------------------

  function note(text) { $("notes").textContent = D.notes.concat([text]).join(" "); }
  function tab(name) {
    root.querySelectorAll(".tab").forEach(function (b) { b.classList.toggle("on", b.getAttribute("data-tab") === name); });
    ["backward", "forward", "general", "memory", "versions", "device"].forEach(function (t) { $("tab-" + t).hidden = t !== name; });
    drawForward();
  }

  function onKey(e) {
    if (!$("quiz").hidden) { if (quizKey) quizKey(e); return; }
    if (e.target.tagName === "INPUT" && e.target.type !== "range" && e.target.type !== "checkbox" || e.target.tagName === "SELECT") return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var k = e.key, done = true;
    if (k === "ArrowRight" || k === "l") goto(pos + 1);
    else if (k === "ArrowLeft" || k === "h") goto(pos - 1);
    else if (k === "n" || k === "]") nextRun(1);
    else if (k === "b" || k === "[") nextRun(-1);
    else if (k === "Home") goto(0);
    else if (k === "End" || k === "G") goto(P.events.length - 1);
    else if (k === " ") play();
    else if (k === "+" || k === "=") setSpeed(1);
    else if (k === "-") setSpeed(-1);
    else if (k === "c") { if (D.passes.length > 1) selectPass((P.number + 1) % D.passes.length); }
    else if (k === "m") root.classList.toggle("nomarks");
    else if (k === "z") zoom();
    else if (k === "j") $("jump").focus();
    else if (k === "t") { quizOn = !quizOn; $("quiz-on").checked = quizOn; drawStatus(); }
    else if (k === "1") tab("backward");
    else if (k === "2") tab("forward");
    else if (k === "3") tab("general");
    else if (k === "4") tab("memory");
    else if (k === "5") tab("versions");
    else if (k === "6") tab("device");
    else if (k === "?") $("help").hidden = !$("help").hidden;
    else if (k === "Escape") { $("help").hidden = true; if (selected >= 0) { selected = -1; draw(); } }
    else done = false;
    if (done) e.preventDefault();
  }

  function start() {
    var notes = D.notes.slice();
    $("notes").textContent = notes.join(" ");
    if (!D.passes.length) {
      root.setAttribute("data-event", -1);
      body("graph").innerHTML = '<p class="note">Nothing to step through on this page: see the note above.</p>';
      return;
    }
    $("pass").innerHTML = D.passes.map(function (p) {
      return '<option value="' + p.number + '">pass ' + p.number + ": " + esc(p.call + (p.mode === "grad" ? " (GeneralGrad)" : "")) +
             (p.flags ? " [" + p.flags + "]" : "") + " · events " + p.begin + "–" + p.end +
             (p.ending ? " [" + esc(p.ending) + "]" : p.complete ? "" : " [incomplete]") + "</option>";
    }).join("");
    $("pass").addEventListener("change", function () { selectPass(+$("pass").value); });
    $("first").addEventListener("click", function () { goto(0); });
    $("last").addEventListener("click", function () { goto(P.events.length - 1); });
    $("prev").addEventListener("click", function () { goto(pos - 1); });
    $("next").addEventListener("click", function () { goto(pos + 1); });
    $("prev-run").addEventListener("click", function () { nextRun(-1); });
    $("next-run").addEventListener("click", function () { nextRun(1); });
    $("play").addEventListener("click", play);
    $("zoom").addEventListener("click", zoom);
    $("jump").addEventListener("keydown", function (e) {
      if (e.key === "Enter") { jump($("jump").value); $("jump").blur(); }
      else if (e.key === "Escape") $("jump").blur();
    });
    $("slider").addEventListener("input", function () { goto(+$("slider").value); });
    $("quiz-on").addEventListener("change", function () { quizOn = $("quiz-on").checked; drawStatus(); });
    $("help-btn").addEventListener("click", function () { $("help").hidden = !$("help").hidden; });
    root.querySelector("#help .close").addEventListener("click", function () { $("help").hidden = true; });
    root.querySelectorAll(".tab").forEach(function (b) { b.addEventListener("click", function () { tab(b.getAttribute("data-tab")); }); });
    body("graph").addEventListener("click", function (e) {
      var el = e.target.closest ? e.target.closest(".node[data-k]") : null;
      if (!el) return;
      var k = +el.getAttribute("data-k");
      selected = selected === k ? -1 : k;
      draw();
    });
    // A click must not leave the focus on a button: the space key would press it again as well as play.
    root.querySelectorAll("header button, #zoom").forEach(function (b) {
      b.addEventListener("mousedown", function (e) { e.preventDefault(); });
    });
    document.addEventListener("keydown", onKey);
    window.addEventListener("hashchange", function () {
      var m = /event=(-?\d+)/.exec(location.hash || "");
      if (m && P && +m[1] !== P.begin + pos) fromHash();
    });
    if (!fromHash()) selectPass(0);
  }

  start();
})();
