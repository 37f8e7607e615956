"use strict";
// The run's page: reads the JSON in #run-data (columns, see view.go) and
// draws the header, a canvas timeline, a virtualised table of calls, the
// selected call's details, per-function statistics and the LM requests.
// Nothing here fetches anything: the page must work from a file, offline.
(function () {
  const marks = { start: performance.now() };
  const data = JSON.parse(document.getElementById("run-data").textContent);
  marks.parsed = performance.now();
  const C = data.calls;
  const n = C.id.length;
  const SIDES = ["solution", "evaluator"];
  const ROW_H = 22;
  const COLORS = {};
  const css = getComputedStyle(document.documentElement);
  for (const o of data.outcomes) COLORS[o] = css.getPropertyValue("--" + o).trim() || "#888";

  // ---- helpers ------------------------------------------------------------
  const $ = (id) => document.getElementById(id);
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // fmtAt is a time since the run's start, before it when negative.
  function fmtAt(us) { return us < 0 ? "−" + fmtUs(-us) : fmtUs(us); }
  function fmtUs(us) {
    if (us < 0) return "—";
    if (us < 1000) return us + " µs";
    if (us < 1e6) return (us / 1000).toFixed(us < 1e4 ? 2 : 1) + " ms";
    return (us / 1e6).toFixed(2) + " s";
  }
  function duration(i) { return C.t1[i] >= C.t0[i] ? C.t1[i] - C.t0[i] : -1; }
  function outcome(i) { return data.outcomes[C.out[i]]; }
  function pretty(text) {
    if (text === "" || text === undefined || text === null) return "(none)";
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
  }
  function percentile(sorted, p) {
    if (!sorted.length) return -1;
    const k = Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
    return sorted[Math.max(0, k)];
  }

  // renderWindow fills win with the rows of the list scrolled in box that
  // are in view, and a few either side: count rows of rowH pixels each,
  // row r made by makeRow(r). Only those are in the document, so a long
  // list costs the page no layout.
  function renderWindow(box, win, count, rowH, makeRow) {
    const first = Math.max(0, Math.floor(box.scrollTop / rowH) - 5);
    const last = Math.min(count, first + Math.ceil(box.clientHeight / rowH) + 10);
    win.style.transform = "translateY(" + first * rowH + "px)";
    const frag = document.createDocumentFragment();
    for (let r = first; r < last; r++) frag.append(makeRow(r));
    win.replaceChildren(frag);
  }

  // sortIndices sorts idx by cmp, in place; a trace is written in time
  // order, so the common case is a check that finds it sorted already.
  function sortIndices(idx, cmp) {
    for (let k = 1; k < idx.length; k++) {
      if (cmp(idx[k - 1], idx[k]) > 0) return idx.sort(cmp);
    }
    return idx;
  }

  // ---- header ---------------------------------------------------------------
  const h = data.header;
  $("verdict").textContent = h.verdict || "(no verdict)";
  $("verdict").classList.add(h.verdict || "none");
  if (h.score !== null && h.score !== undefined) $("score").textContent = "score " + (h.score / 100).toFixed(2);
  // The two times are labelled: the run's wall time is the result's
  // time_ms; the calls' total adds up their durations, so calls in flight
  // together count once each and it can exceed the wall time.
  {
    let callSum = 0, callN = 0;
    for (let i = 0; i < n; i++) {
      const d = duration(i);
      if (C.side[i] === 0 && d >= 0) { callSum += d; callN++; }
    }
    const items = [];
    if (h.time_ms) items.push(["run time", h.time_ms + " ms", "the run's wall time (the result's time_ms): from the evaluator's first output to the end of the run"]);
    items.push(["calls' total", fmtUs(callSum), "the sum of the durations of the " + callN + " calls the solution answered; calls in flight together each count, so it can exceed the run time"]);
    if (h.memory_kb) items.push(["peak memory", Math.round(h.memory_kb / 1024) + " MiB", "the solution's peak memory (the result's memory_kb)"]);
    if (data.compile) items.push(["compile", fmtUs(data.compile.t1 - data.compile.t0), "the compile step, before the run's clock"]);
    for (const [label, value, title] of items) {
      const s = el("span", "summary-item");
      s.title = title;
      s.dataset.label = label;
      s.append(el("span", "label", label), el("b", "", value));
      $("summary").append(s);
    }
  }
  const facts = [["problem", h.problem], ["submission", h.submission_id], ["language", h.language], ["started", h.started], ["sandbox", h.sandbox], ["tether", h.tether]];
  for (const l of h.limits) facts.push([l.name, l.value]);
  for (const [k, v] of facts) {
    if (!v) continue;
    const s = el("span");
    s.append(k + " ", el("b", "", String(v)));
    $("facts").append(s);
  }
  if (h.message) $("notes").append(el("li", "", h.message));
  for (const note of data.notes) $("notes").append(el("li", "", note));
  for (const o of data.outcomes) {
    const s = el("span");
    const sw = el("i");
    sw.style.background = COLORS[o];
    s.append(sw, o);
    $("legend").append(s);
  }

  // ---- timeline ------------------------------------------------------------
  // Calls in flight together get rows of their own within their lane
  // (greedy interval packing, at most MAX_SLOTS rows; past that they overlap).
  const MAX_SLOTS = 6;
  // Where calls share a pixel, the one drawn is the most telling: a failure
  // over a restart over a pending call over a success. PRIORITY is indexed
  // by outcome (data.outcomes), 0 meaning nothing drawn.
  const RANK = ["ok", "pending", "restart", "rejected", "error", "timeout"];
  const PRIORITY = data.outcomes.map((o) => RANK.indexOf(o) + 1);
  const BY_PRIORITY = [];
  PRIORITY.forEach((p, k) => { BY_PRIORITY[p] = k; });
  let tMin = Infinity, tMax = -Infinity;
  const slot = new Int8Array(n);
  {
    const order = sortIndices(Array.from({ length: n }, (_, i) => i), (a, b) => C.t0[a] - C.t0[b]);
    const ends = [new Array(MAX_SLOTS).fill(-Infinity), new Array(MAX_SLOTS).fill(-Infinity)];
    for (const i of order) {
      const end = C.t1[i] >= C.t0[i] ? C.t1[i] : C.t0[i];
      tMin = Math.min(tMin, C.t0[i]);
      tMax = Math.max(tMax, end);
      const lane = ends[C.side[i]];
      let s = lane.findIndex((e) => e <= C.t0[i]);
      if (s < 0) s = lane.indexOf(Math.min(...lane));
      lane[s] = end;
      slot[i] = s;
    }
  }
  for (const r of data.lm) { tMin = Math.min(tMin, r.t0); tMax = Math.max(tMax, r.t1); }
  for (const l of data.logs) { tMin = Math.min(tMin, l[0]); tMax = Math.max(tMax, l[0]); }
  for (const t of data.restarts) { tMin = Math.min(tMin, t); tMax = Math.max(tMax, t); }
  for (const p of data.processes) {
    for (const t of [p.t0, p.t1]) if (t >= 0) { tMin = Math.min(tMin, t); tMax = Math.max(tMax, t); }
  }
  // Times count from the run's first event. The compile step comes before
  // it: at negative times, left of the view that Fit shows (the wheel zooms
  // out to it), so that a long compile does not squeeze the run; a run
  // that only compiled shows the compile step.
  if (!isFinite(tMin) && data.compile) { tMin = data.compile.t0; tMax = data.compile.t1; }
  if (!isFinite(tMin)) { tMin = 0; tMax = 1; }
  if (tMax <= tMin) tMax = tMin + 1;
  // Calls with no answer (pending) are drawn to the end of the run.
  const drawEnd = (i) => (C.t1[i] >= C.t0[i] ? C.t1[i] : tMax);

  const canvas = $("timeline");
  const ctx = canvas.getContext("2d");
  const AXIS = 18, LANE_H = 52, LANE_GAP = 6, LABEL_W = 74;
  const lanes = [
    { name: "solution", y: AXIS + 4 },
    { name: "evaluator", y: AXIS + 4 + LANE_H + LANE_GAP },
    { name: "LM", y: AXIS + 4 + 2 * (LANE_H + LANE_GAP) },
  ];
  const pad = (tMax - tMin) * 0.01;
  let v0 = tMin - pad, v1 = tMax + pad;
  let selected = -1;

  function resize() {
    const dpr = window.devicePixelRatio || 1;
    const w = (width = Math.max(LABEL_W + 1, canvas.clientWidth));
    const hgt = lanes[2].y + LANE_H / 2 + 10;
    canvas.style.height = hgt + "px";
    canvas.width = Math.max(1, Math.floor(w * dpr));
    canvas.height = Math.floor(hgt * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    draw();
  }
  // The canvas's width in CSS pixels, read once per resize: reading
  // clientWidth in the drawing loop costs a style check per call.
  let width = 1;
  function xOf(t) { return LABEL_W + ((t - v0) / (v1 - v0)) * (width - LABEL_W); }
  function tOf(x) { return v0 + ((x - LABEL_W) / (width - LABEL_W)) * (v1 - v0); }
  function slotBox(lane, s) {
    const hgt = (LANE_H - 2) / MAX_SLOTS;
    return [lanes[lane].y + 1 + s * hgt, Math.max(2, hgt - 1)];
  }

  let drawQueued = false;
  function draw() {
    drawQueued = false;
    const W = width, H = canvas.height / (window.devicePixelRatio || 1);
    ctx.clearRect(0, 0, W, H);
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    // lanes
    for (const lane of lanes) {
      ctx.fillStyle = "#f4f5f7";
      ctx.fillRect(LABEL_W, lane.y, W - LABEL_W, lane === lanes[2] ? LANE_H / 2 : LANE_H);
      ctx.fillStyle = "#6b6f75";
      ctx.fillText(lane.name, 6, lane.y + 12);
    }
    // axis
    ctx.fillStyle = "#6b6f75";
    const span = v1 - v0;
    const step = Math.pow(10, Math.floor(Math.log10(span / 6)));
    const tick = [1, 2, 5, 10].map((m) => m * step).find((s) => span / s <= 10) || step * 10;
    ctx.beginPath();
    for (let t = Math.ceil(v0 / tick) * tick; t <= v1; t += tick) {
      const x = xOf(t);
      if (x < LABEL_W) continue;
      ctx.moveTo(x + 0.5, AXIS - 4);
      ctx.lineTo(x + 0.5, AXIS);
      ctx.fillText(fmtAt(Math.round(t - tMin)), x + 3, 8);
    }
    ctx.strokeStyle = "#b0b3b8";
    ctx.stroke();
    // Calls: each row of a lane is a strip of pixel columns holding the most
    // telling outcome drawn there, then drawn as runs. Zoomed out, 100,000
    // calls become a few thousand rectangles.
    const cols = W - LABEL_W;
    const strips = new Uint8Array(2 * MAX_SLOTS * cols);
    for (let i = 0; i < n; i++) {
      const a = C.t0[i], b = drawEnd(i);
      if (b < v0 || a > v1) continue;
      const x0 = Math.max(0, Math.floor(xOf(a) - LABEL_W));
      const x1 = Math.min(cols, Math.max(x0 + 1, Math.ceil(xOf(b) - LABEL_W)));
      const base = (C.side[i] * MAX_SLOTS + slot[i]) * cols;
      const p = PRIORITY[C.out[i]];
      for (let x = x0; x < x1; x++) if (strips[base + x] < p) strips[base + x] = p;
    }
    for (let strip = 0; strip < 2 * MAX_SLOTS; strip++) {
      const [y, hgt] = slotBox(Math.floor(strip / MAX_SLOTS), strip % MAX_SLOTS);
      const base = strip * cols;
      for (let x = 0; x < cols; ) {
        const p = strips[base + x];
        let end = x + 1;
        while (end < cols && strips[base + end] === p) end++;
        if (p) {
          ctx.fillStyle = COLORS[data.outcomes[BY_PRIORITY[p]]];
          ctx.fillRect(LABEL_W + x, y, end - x, hgt);
        }
        x = end;
      }
    }
    // logs as ticks at the bottom of their side's lane
    ctx.beginPath();
    for (const l of data.logs) {
      if (l[0] < v0 || l[0] > v1) continue;
      const x = xOf(l[0]) + 0.5, yb = lanes[l[1]].y + LANE_H;
      ctx.moveTo(x, yb - 5);
      ctx.lineTo(x, yb);
    }
    ctx.strokeStyle = "#555";
    ctx.stroke();
    // LM requests
    ctx.fillStyle = "#2874a6";
    for (const r of data.lm) {
      if (r.t1 < v0 || r.t0 > v1) continue;
      const x0 = Math.max(LABEL_W, xOf(r.t0));
      ctx.fillStyle = r.error ? COLORS.error : "#2874a6";
      ctx.fillRect(x0, lanes[2].y + 3, Math.max(1, Math.min(W, xOf(r.t1)) - x0), LANE_H / 2 - 6);
    }
    // Each process as a line above its side's lane, from its start (or the
    // left edge, when the trace did not record it) to its exit, marked in
    // red when it failed; the compile step as a bar above the solution's.
    for (const p of data.processes) {
      const lane = lanes[p.side === "evaluator" ? 1 : 0];
      const a = p.t0 >= 0 ? p.t0 : v0, b = p.t1 >= 0 ? p.t1 : tMax;
      if (b < v0 || a > v1) continue;
      const x0 = Math.max(LABEL_W, xOf(a)), x1 = Math.min(W, xOf(b));
      ctx.fillStyle = "#8a9099";
      ctx.fillRect(x0, lane.y - 3, Math.max(1, x1 - x0), 2);
      if (p.t0 >= 0) ctx.fillRect(x0, lane.y - 5, 2, 5);
      if (p.t1 >= 0) {
        ctx.fillStyle = p.failed ? COLORS.error : "#4a4f57";
        ctx.fillRect(x1 - 2, lane.y - 6, 3, 6);
      }
    }
    if (data.compile && data.compile.t1 >= v0 && data.compile.t0 <= v1) {
      const c = data.compile, x0 = Math.max(LABEL_W, xOf(c.t0)), x1 = Math.min(W, xOf(c.t1));
      ctx.fillStyle = c.outcome === "ok" ? "#7f8c8d" : COLORS.error;
      ctx.fillRect(x0, lanes[0].y - 5, Math.max(2, x1 - x0), 5);
    }
    // restarts
    ctx.strokeStyle = COLORS.restart;
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    for (const t of data.restarts) {
      if (t < v0 || t > v1) continue;
      ctx.moveTo(xOf(t) + 0.5, AXIS);
      ctx.lineTo(xOf(t) + 0.5, H);
    }
    ctx.stroke();
    ctx.setLineDash([]);
    // the selection and, for a capability, the call it ran in
    for (const i of [selected, selected >= 0 ? C.parent[selected] : -1]) {
      if (i < 0) continue;
      const [y, hgt] = slotBox(C.side[i], slot[i]);
      const x0 = xOf(C.t0[i]), x1 = xOf(drawEnd(i));
      ctx.strokeStyle = "#1f6feb";
      ctx.lineWidth = 2;
      ctx.strokeRect(x0 - 1, y - 1, Math.max(3, x1 - x0 + 2), hgt + 2);
      ctx.lineWidth = 1;
    }
  }
  function redraw() { if (!drawQueued) { drawQueued = true; requestAnimationFrame(draw); } }

  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const t = tOf(e.offsetX);
    const f = Math.exp(e.deltaY * 0.0015);
    const minSpan = 2;
    let a = t - (t - v0) * f, b = t + (v1 - t) * f;
    if (b - a < minSpan) { a = t - minSpan / 2; b = t + minSpan / 2; }
    v0 = a; v1 = b;
    redraw();
  }, { passive: false });
  let drag = null;
  canvas.addEventListener("mousedown", (e) => { drag = { x: e.clientX, v0, v1, moved: false }; canvas.style.cursor = "grabbing"; });
  window.addEventListener("mousemove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x;
    if (Math.abs(dx) > 2) drag.moved = true;
    const dt = (dx / (width - LABEL_W)) * (drag.v1 - drag.v0);
    v0 = drag.v0 - dt; v1 = drag.v1 - dt;
    redraw();
  });
  window.addEventListener("mouseup", (e) => {
    if (!drag) return;
    const wasClick = !drag.moved;
    drag = null;
    canvas.style.cursor = "grab";
    if (wasClick && e.target === canvas) pickAt(e.offsetX, e.offsetY);
  });
  $("zoom-reset").addEventListener("click", () => { v0 = tMin - pad; v1 = tMax + pad; redraw(); });

  function pickAt(x, y) {
    let lane = -1;
    for (let k = 0; k < 2; k++) if (y >= lanes[k].y && y < lanes[k].y + LANE_H) lane = k;
    if (lane < 0) return;
    const t = tOf(x), tol = (4 / (width - LABEL_W)) * (v1 - v0);
    let best = -1, bestGap = Infinity;
    for (let i = 0; i < n; i++) {
      if (C.side[i] !== lane) continue;
      const [sy, sh] = slotBox(lane, slot[i]);
      if (y < sy - 1 || y > sy + sh + 1) continue;
      const a = C.t0[i], b = drawEnd(i);
      const gap = t < a ? a - t : t > b ? t - b : 0;
      if (gap <= tol && gap < bestGap) { best = i; bestGap = gap; }
    }
    if (best >= 0) select(best, true);
  }

  // ---- table ---------------------------------------------------------------
  const columns = [
    { key: "id", label: "id", get: (i) => C.id[i], cmp: (a, b) => C.id[a].localeCompare(C.id[b], undefined, { numeric: true }) },
    { key: "fn", label: "function", get: (i) => data.fns[C.fn[i]], cmp: (a, b) => data.fns[C.fn[a]].localeCompare(data.fns[C.fn[b]]) },
    { key: "side", label: "answered by", get: (i) => SIDES[C.side[i]], cmp: (a, b) => C.side[a] - C.side[b] },
    { key: "out", label: "outcome", get: (i) => outcome(i), cmp: (a, b) => C.out[a] - C.out[b] },
    { key: "t0", label: "start", get: (i) => fmtUs(C.t0[i] - tMin), cmp: (a, b) => C.t0[a] - C.t0[b] },
    { key: "dur", label: "duration", get: (i) => fmtUs(duration(i)), cmp: (a, b) => duration(a) - duration(b) },
    { key: "args", label: "arguments", get: (i) => C.args[i], cmp: (a, b) => C.args[a].localeCompare(C.args[b]) },
  ];
  let sortCol = 4, sortDesc = false;
  let view = []; // indices of the calls shown, in order
  const head = $("table-head");
  columns.forEach((col, k) => {
    const s = el("span", "", col.label);
    s.dataset.col = col.key;
    s.addEventListener("click", () => {
      if (sortCol === k) sortDesc = !sortDesc; else { sortCol = k; sortDesc = false; }
      applyFilter();
    });
    head.append(s);
  });
  data.fns.map((f, k) => [f, k]).sort().forEach(([f, k]) => { const o = el("option", "", f); o.value = String(k); $("filter-fn").append(o); });
  data.outcomes.forEach((o, k) => { const opt = el("option", "", o); opt.value = String(k); $("filter-outcome").append(opt); });

  const rows = $("rows"), spacer = $("rows-spacer"), win = $("rows-window");
  function applyFilter() {
    const fn = $("filter-fn").value, out = $("filter-outcome").value;
    const q = $("search").value.trim().toLowerCase();
    const fnK = fn === "" ? -1 : +fn, outK = out === "" ? -1 : +out;
    view = [];
    for (let i = 0; i < n; i++) {
      if (fnK >= 0 && C.fn[i] !== fnK) continue;
      if (outK >= 0 && C.out[i] !== outK) continue;
      if (q && !(C.id[i].toLowerCase().includes(q) || data.fns[C.fn[i]].toLowerCase().includes(q) || C.args[i].toLowerCase().includes(q))) continue;
      view.push(i);
    }
    const cmp = columns[sortCol].cmp;
    sortIndices(view, sortDesc ? (a, b) => cmp(b, a) || b - a : (a, b) => cmp(a, b) || a - b);
    view = nest(view);
    head.querySelectorAll("span").forEach((s, k) => {
      s.classList.toggle("sorted", k === sortCol);
      s.classList.toggle("desc", k === sortCol && sortDesc);
    });
    $("call-count").textContent = view.length + " of " + n + " calls";
    $("call-count").dataset.shown = String(view.length);
    spacer.style.height = view.length * ROW_H + "px";
    renderRows();
  }
  // nest puts each capability shown right after the call it ran in, when
  // that call is shown too (indented: see renderRows); the rest keep the
  // sorted order.
  const inView = new Uint8Array(n);
  const kidHead = new Int32Array(n), kidNext = new Int32Array(n); // each call's capabilities in view, as linked lists
  const anyCapability = C.parent.some((p) => p >= 0);
  function nest(view) {
    if (!anyCapability) return view;
    inView.fill(0);
    for (const i of view) inView[i] = 1;
    kidHead.fill(-1);
    let any = false;
    for (let r = view.length - 1; r >= 0; r--) {
      const i = view[r], p = C.parent[i];
      if (p >= 0 && inView[p]) { kidNext[i] = kidHead[p]; kidHead[p] = i; any = true; }
    }
    if (!any) return view;
    const out = new Array(view.length);
    let k = 0;
    for (const i of view) {
      const p = C.parent[i];
      if (p >= 0 && inView[p]) continue;
      out[k++] = i;
      for (let j = kidHead[i]; j >= 0; j = kidNext[j]) out[k++] = j;
    }
    return out;
  }
  const nested = (i) => C.parent[i] >= 0 && inView[C.parent[i]] === 1;
  function renderRows() {
    renderWindow(rows, win, view.length, ROW_H, (r) => {
      const i = view[r];
      const inside = nested(i);
      const row = el("div", "row" + (i === selected ? " selected" : "") + (inside ? " nested" : ""));
      row.dataset.call = String(i);
      if (inside) row.title = "a capability made inside call " + C.id[C.parent[i]];
      columns.forEach((col, k) => {
        const s = el("span", col.key === "out" ? "out " + outcome(i) : "", (k === 0 && inside ? "↳ " : "") + col.get(i));
        row.append(s);
      });
      return row;
    });
  }
  rows.addEventListener("scroll", renderRows);
  win.addEventListener("click", (e) => {
    const row = e.target.closest(".row");
    if (row) select(+row.dataset.call, false);
  });
  let searchTimer = 0;
  $("search").addEventListener("input", () => { clearTimeout(searchTimer); searchTimer = setTimeout(applyFilter, 120); });
  $("filter-fn").addEventListener("change", applyFilter);
  $("filter-outcome").addEventListener("change", applyFilter);

  // ---- selection -------------------------------------------------------------
  function select(i, scroll) {
    selected = i;
    const d = $("detail");
    d.replaceChildren();
    const lines = [
      ["call", C.id[i]], ["function", data.fns[C.fn[i]]], ["answered by", SIDES[C.side[i]]],
      ["outcome", outcome(i)], ["start", fmtUs(C.t0[i] - tMin)], ["duration", fmtUs(duration(i))],
    ];
    if (C.parent[i] >= 0) lines.push(["inside call", C.id[C.parent[i]] + " (" + data.fns[C.fn[C.parent[i]]] + ")"]);
    const caps = [];
    for (let j = 0; j < n; j++) if (C.parent[j] === i) caps.push(j);
    if (caps.length) lines.push(["capabilities inside it", caps.map((j) => C.id[j] + " (" + data.fns[C.fn[j]] + ", " + outcome(j) + ", " + fmtUs(duration(j)) + ")").join(", ")]);
    d.append(el("div", "", lines.map(([k, v]) => k + ": " + v).join("\n")));
    d.append(el("h4", "", "arguments"), el("div", "args", pretty(C.args[i])));
    d.append(el("h4", "", "answer"), el("div", "answer", pretty(C.ans[i])));
    if (scroll) {
      const r = view.indexOf(i);
      if (r >= 0) rows.scrollTop = Math.max(0, r * ROW_H - rows.clientHeight / 2);
    }
    renderRows();
    redraw();
  }

  // ---- processes and the compile step ---------------------------------------
  {
    const t = $("processes");
    const hr = el("tr");
    for (const c of ["process", "started", "ended", "how"]) hr.append(el("th", "", c));
    t.append(hr);
    const c = data.compile;
    if (c) {
      const tr = el("tr");
      tr.className = "compile";
      tr.title = "the compile step, before the run: on the timeline left of the run (zoom out)";
      const how = c.outcome + " · " + (c.cached ? "cached" : "compiler " + c.time_ms + " ms, " + Math.round(c.memory_kb / 1024) + " MiB") + (c.reason ? " · " + c.reason : "");
      tr.append(el("td", "", "compile " + (c.language || "")), el("td", "", fmtAt(c.t0 - tMin)), el("td", "", fmtAt(c.t1 - tMin)),
        el("td", c.outcome === "ok" ? "" : "failed", how));
      t.append(tr);
    }
    for (const p of data.processes) {
      const tr = el("tr");
      tr.className = "process " + p.side;
      const name = p.side + (p.side === "solution" ? " #" + p.n : "");
      tr.append(el("td", "", name), el("td", "", p.t0 >= 0 ? fmtUs(p.t0 - tMin) : "—"), el("td", "", p.t1 >= 0 ? fmtUs(p.t1 - tMin) : "—"),
        el("td", p.failed ? "failed" : "", p.t1 >= 0 ? p.exit : "running at the end of the trace"));
      t.append(tr);
    }
    $("proc-count").textContent = data.processes.length ? data.processes.length + " started" : "none recorded";
    if (c && c.message) $("run-box").append(el("div", "compile-message", c.message));
  }

  // ---- the evaluator's output and the solution's logs ------------------------
  // One line each, rendered only while in view (a run may print thousands:
  // laying them all out would cost the first render more than the calls);
  // a click shows a line whole in the detail pane.
  const OUT_H = 18;
  const outLines = [];
  let untold = 0;
  for (let k = 0; k < data.logs.length; k++) {
    if (data.logs[k][4] === "") untold++;
    else outLines.push(k);
  }
  const outBox = $("output"), outWin = $("output-window");
  $("output-spacer").style.height = outLines.length * OUT_H + "px";
  $("output-count").textContent = (outLines.length ? outLines.length + " lines" : "none") +
    (untold ? " (" + untold + " more whose text the page does not keep)" : "");
  const whoOf = (l) => (l[1] === 1 ? "evaluator" : "solution " + l[2]);
  function renderOutput() {
    renderWindow(outBox, outWin, outLines.length, OUT_H, (r) => {
      const l = data.logs[outLines[r]];
      const line = el("div", "out-line " + (l[1] === 1 ? "evaluator" : "solution"));
      line.dataset.line = String(r);
      line.append(el("span", "when", fmtUs(l[0] - tMin)), el("span", "who", whoOf(l)), el("span", "text", l[4]));
      return line;
    });
  }
  outBox.addEventListener("scroll", renderOutput);
  outWin.addEventListener("click", (e) => {
    const line = e.target.closest(".out-line");
    if (!line) return;
    const l = data.logs[outLines[+line.dataset.line]];
    const d = $("detail");
    d.replaceChildren(el("div", "", "line from the " + whoOf(l) + " at " + fmtUs(l[0] - tMin) + " (" + l[3] + " bytes)"),
      el("h4", "", "text"), el("div", "line-text", l[4]));
  });

  // ---- per-function statistics ---------------------------------------------
  {
    const byFn = data.fns.map(() => ({ durs: [], count: 0, errors: 0 }));
    for (let i = 0; i < n; i++) {
      const s = byFn[C.fn[i]];
      s.count++;
      if (C.out[i] !== 0) s.errors++;
      const dd = duration(i);
      if (dd >= 0) s.durs.push(dd);
    }
    const t = $("stats");
    const hr = el("tr");
    for (const c of ["function", "calls", "p50", "p90", "p99", "max", "errors"]) hr.append(el("th", "", c));
    t.append(hr);
    data.fns.map((f, k) => [f, byFn[k]]).sort((a, b) => b[1].count - a[1].count).forEach(([f, s]) => {
      s.durs.sort((a, b) => a - b);
      const tr = el("tr");
      for (const v of [f, s.count, fmtUs(percentile(s.durs, 0.5)), fmtUs(percentile(s.durs, 0.9)), fmtUs(percentile(s.durs, 0.99)), fmtUs(s.durs.length ? s.durs[s.durs.length - 1] : -1), s.errors]) tr.append(el("td", "", String(v)));
      t.append(tr);
    });
  }

  // ---- LM requests -------------------------------------------------------------
  {
    $("lm-count").textContent = data.lm.length ? String(data.lm.length) : "none";
    const t = $("lm");
    if (data.lm.length) {
      const hr = el("tr");
      for (const c of ["model", "depth", "tokens in/out", "latency", "error"]) hr.append(el("th", "", c));
      t.append(hr);
    }
    for (const r of data.lm) {
      const tr = el("tr");
      for (const v of [r.model, r.depth, r.prompt_tokens + " / " + r.completion_tokens, fmtUs(r.t1 - r.t0), r.error || ""]) tr.append(el("td", "", String(v)));
      t.append(tr);
    }
  }

  marks.prepared = performance.now();
  window.addEventListener("resize", resize);
  applyFilter();
  renderOutput();
  marks.table = performance.now();
  resize();
  marks.drawn = performance.now();
  // How long each step took, for the browser test's report.
  document.body.dataset.timing = JSON.stringify(marks);
  document.body.dataset.ready = "1";
})();
