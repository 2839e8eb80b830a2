// cozmo-brain dashboard: one WebSocket in, the page out. No framework, no build step.
// Protocol (README, "Dashboard"): a "hello" with the history, then "update" messages (at most ten
// a second) and "reload" messages. Times are the daemon's monotonic clock in seconds; hello.wall
// minus hello.t turns them into wall-clock time.
"use strict";
(() => {
  const $ = (sel) => document.querySelector(sel);
  const token = new URLSearchParams(location.search).get("token");
  const LANES = ["behavior", "reaction", "clip"];
  const CATS = ["robot", "behavior", "reaction", "mood", "safety", "control", "reload", "log"];
  const COLORS = ["#3ddbd9", "#f2a65a", "#8fd16a", "#e06c9f", "#b48cff", "#f2d45c", "#5fa8ff", "#ff7a66",
                  "#9ad0c2", "#c8c8c8"];
  const MOOD_STEP_S = 0.25;   // the chart keeps a point every this many seconds
  const LOG_ROWS = 300;

  const S = {
    offset: 0, now: 0, helloN: 0, historyS: 600, control: {},
    view: null, viewEls: [], statuses: "", live: { tree: null, statuses: "", decision: null, branch: "" },
    spans: new Map(), decisions: [], marks: [], events: [], emotions: [],
    mood: { t: [], v: {} }, moodNow: {},
    paused: false, viewEnd: null, windowS: 60, rewindT: null, userToggled: new Map(),
    renderQueued: false, lastDraw: 0, socket: null, retry: 500,
  };

  // ------------------------------------------------------------------ helpers

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function wall(t) {
    const d = new Date((t + S.offset) * 1000);
    return d.toTimeString().slice(0, 8);
  }
  function num(v, digits = 2) { return v === null || v === undefined ? "–" : Number(v).toFixed(digits); }
  function api(path) {
    const headers = token ? { Authorization: "Bearer " + token } : {};
    return fetch(path, { headers, cache: "no-store" }).then((r) => r.json());
  }

  // ------------------------------------------------------------------ connection

  function connect() {
    const base = location.pathname.replace(/[^/]*$/, "");
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + base + "ws"
      + (token ? "?token=" + encodeURIComponent(token) : "");
    const ws = new WebSocket(url);
    S.socket = ws;
    ws.onopen = () => { S.retry = 500; };
    ws.onmessage = (msg) => {
      let data;
      try { data = JSON.parse(msg.data); } catch (e) { console.error(e); return; }
      try {
        if (data.type === "hello") hello(data);
        else if (data.type === "update") update(data);
        else if (data.type === "reload") reloaded(data);
      } catch (e) { console.error(e); }
    };
    ws.onclose = () => {
      setPill("#conn", "dashboard disconnected", "bad");
      setTimeout(connect, S.retry);
      S.retry = Math.min(5000, S.retry * 2);
    };
  }

  function setPill(sel, text, cls) {
    const p = $(sel);
    p.textContent = text;
    p.className = "pill " + (cls || "");
  }

  // ------------------------------------------------------------------ messages

  function hello(h) {
    S.offset = h.wall - h.t;
    S.now = h.t;
    S.helloN = h.n;
    S.historyS = h.history_s;
    S.control = h.control || {};
    S.emotions = h.emotions || [];
    S.spans = new Map((h.spans || []).map((s) => [s.id, s]));
    S.decisions = h.decisions || [];
    S.marks = h.marks || [];
    S.events = h.events || [];
    S.mood = { t: (h.mood_history && h.mood_history.t) || [], v: {} };
    for (const e of S.emotions) S.mood.v[e] = (h.mood_history && h.mood_history[e]) || [];
    S.live.tree = h.tree;
    S.live.statuses = h.statuses || "";
    S.live.decision = S.decisions.length ? S.decisions[S.decisions.length - 1] : null;
    $("#personality").textContent = h.personality ? "personality: " + h.personality : "";
    if (h.tree) showTree(h.tree, S.live.statuses);
    else $("#tree").textContent = h.status || "";
    setupActions();
    setupEmotions();
    renderDecisions();
    showNow(h);
    showRobot(h.robot, h.status);
    renderLog(true);
    queueRender();
  }

  function update(u) {
    S.now = u.t;
    for (const s of u.spans || []) S.spans.set(s.id, s);
    for (const d of u.decisions || []) if (d.n > S.helloN) { S.decisions.push(d); S.live.decision = d; }
    for (const m of u.marks || []) if (m.n > S.helloN) S.marks.push(m);
    const fresh = (u.events || []).filter((e) => e.n > S.helloN);
    S.events.push(...fresh);
    if (S.events.length > 3000) S.events.splice(0, S.events.length - 3000);
    if (S.decisions.length > 400) S.decisions.splice(0, S.decisions.length - 400);
    if (u.mood) addMood(u.t, u.mood);
    if (u.face) drawFace(u.face);
    if (u.camera) drawCamera(u.camera);
    S.live.statuses = u.statuses || S.live.statuses;
    S.live.branch = u.branch;
    if (S.rewindT === null) {
      if (S.live.tree && S.view !== S.live.tree) showTree(S.live.tree, S.live.statuses);
      else if (u.tree_version && S.live.tree && u.tree_version !== S.live.tree.version) refreshTree();
      else applyStatuses(S.live.statuses);
      showNow(u);
      if ((u.decisions || []).length) renderDecisions();
    }
    if (fresh.length) appendLog(fresh);
    showRobot(u.robot, u.status);
    $("#simple-mood").textContent = u.simple_mood ? "mood: " + u.simple_mood : "";
    queueRender();
  }

  function refreshTree() {
    api("api/state").then((st) => {
      if (!st.tree) return;
      S.live.tree = st.tree;
      S.live.statuses = st.statuses;
      if (S.rewindT === null) showTree(st.tree, st.statuses);
    });
  }

  function reloaded(r) {
    const box = $("#reload-error");
    if (r.ok) {
      box.hidden = true;
      box.textContent = "";
      $("#act-result").textContent = "personality reloaded at " + wall(r.t);
      refreshTree();
    } else {
      box.hidden = false;
      box.textContent = "reload failed; the running personality stays:\n" + r.error;
    }
  }

  // ------------------------------------------------------------------ now / why

  function showNow(u) {
    $("#branch").textContent = u.branch || (u.status && u.status !== "running" ? u.status : "");
    if (S.rewindT === null) {
      $("#now-when").textContent = "";
      showDecision(S.live.decision);
    }
    for (const e of S.emotions) if (u.mood && e in u.mood) S.moodNow[e] = u.mood[e];
    renderLegend(S.moodNow);
  }

  function showDecision(d) {
    const box = $("#why");
    box.textContent = "";
    if (!d) return;
    const title = el("div", "title");
    title.append(el("span", "kind", d.kind), document.createTextNode(d.title + "  "), el("small", "muted", wall(d.t)));
    const list = el("ul");
    for (const line of d.lines) list.append(el("li", null, line));
    box.append(title, list);
  }

  function renderDecisions() {
    const list = $("#decisions");
    list.textContent = "";
    for (const d of S.decisions.slice(-40).reverse()) {
      const li = el("li");
      li.append(el("span", "kind", wall(d.t) + " " + d.kind), document.createTextNode(d.title));
      const ul = el("ul");
      for (const line of d.lines) ul.append(el("li", null, line));
      li.append(ul);
      li.addEventListener("click", () => rewind(d.t + 0.01));
      list.append(li);
    }
  }

  // ------------------------------------------------------------------ tree

  function keyOf(nodes, i) {
    const parts = [];
    for (let n = nodes[i]; n; n = n.parent === null ? null : nodes[n.parent]) parts.push(n.name);
    return parts.reverse().join("/");
  }

  function showTree(structure, statuses) {
    const box = $("#tree");
    box.textContent = "";
    S.view = structure;
    S.viewEls = [];
    S.statuses = "";
    const nodes = structure.nodes;
    nodes.forEach((n, i) => {
      const node = el("div", "node");
      node.dataset.kind = n.kind;
      node.dataset.id = String(i);
      const row = el("div", "row");
      const toggle = el("span", "toggle");
      row.append(toggle, el("span", "dot"), el("span", "name", n.name));
      const detail = [n.detail, n.where].filter(Boolean).join(" · ");
      if (detail) row.append(el("span", "detail", detail));
      row.title = n.type + (n.where ? " (" + n.where + ")" : "");
      const kids = el("div", "kids");
      node.append(row, kids);
      node._kids = kids;
      node._parent = n.parent;
      node._key = keyOf(nodes, i);
      node._auto = false;
      toggle.addEventListener("click", () => {
        node.classList.toggle("collapsed");
        node._auto = false;
        S.userToggled.set(node._key, node.classList.contains("collapsed"));
      });
      S.viewEls.push(node);
      if (n.parent === null) box.append(node);
      else S.viewEls[n.parent]._kids.append(node);
    });
    for (const node of S.viewEls) {
      const has = node._kids.childElementCount > 0;
      node.querySelector(".toggle").textContent = has ? "▾" : "";
      const user = S.userToggled.get(node._key);
      if (has && (user === true || (user === undefined && node.dataset.kind === "reaction"))) {
        node.classList.add("collapsed");
      }
    }
    applyStatuses(statuses || "");
  }

  function applyStatuses(statuses) {
    const els = S.viewEls;
    if (!els.length) return;
    const old = S.statuses;
    for (let i = 0; i < els.length; i++) {
      const ch = statuses[i] || "-";
      if (old[i] === ch) continue;
      const c = els[i].classList;
      c.remove("s-R", "s-S", "s-F");
      if (ch !== "-") c.add("s-" + ch);
    }
    S.statuses = statuses;
    // the tip of the running branch, and the closed subtrees that hide running nodes
    const running = new Set();
    for (let i = 0; i < els.length; i++) if (statuses[i] === "R") running.add(i);
    const hasRunningChild = new Set();
    for (const i of running) if (els[i]._parent !== null) hasRunningChild.add(els[i]._parent);
    const follow = $("#follow").checked;
    for (let i = 0; i < els.length; i++) {
      const node = els[i];
      node.classList.toggle("tip", running.has(i) && !hasRunningChild.has(i));
      const holds = hasRunningChild.has(i);
      if (follow && holds && node.classList.contains("collapsed") && S.userToggled.get(node._key) !== true) {
        node.classList.remove("collapsed");
        node._auto = true;
      } else if (follow && !holds && node._auto) {
        node.classList.add("collapsed");
        node._auto = false;
      }
      node.classList.toggle("hidden-running", holds && node.classList.contains("collapsed"));
    }
  }

  // ------------------------------------------------------------------ face and camera

  function drawFace(b64) {
    const canvas = $("#face");
    const ctx = canvas.getContext("2d");
    const bits = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const img = ctx.createImageData(128, 32);
    for (let y = 0; y < 32; y++) {
      for (let x = 0; x < 128; x++) {
        const on = (bits[y * 16 + (x >> 3)] >> (7 - (x & 7))) & 1;
        const o = (y * 128 + x) * 4;
        img.data[o] = on ? 110 : 0; img.data[o + 1] = on ? 236 : 4; img.data[o + 2] = on ? 255 : 8;
        img.data[o + 3] = 255;
      }
    }
    ctx.putImageData(img, 0, 0);
    canvas.dataset.changes = String(Number(canvas.dataset.changes || 0) + 1);
  }

  function drawCamera(cam) {
    if (!cam.jpeg) return;
    const canvas = $("#camera");
    const image = new Image();
    image.onload = () => {
      canvas.width = cam.width;
      canvas.height = cam.height;
      const ctx = canvas.getContext("2d");
      ctx.drawImage(image, 0, 0, cam.width, cam.height);
      ctx.lineWidth = 2;
      ctx.font = "12px system-ui";
      for (const f of cam.faces || []) {
        if (!f.box) continue;
        const [x, y, w, h] = f.box;
        ctx.strokeStyle = "#3ddbd9";
        ctx.strokeRect(x, y, w, h);
        ctx.fillStyle = "#3ddbd9";
        ctx.fillText("face " + f.id, x + 2, Math.max(12, y - 3));
      }
      if (cam.motion) {
        ctx.strokeStyle = "#f2d45c";
        ctx.beginPath();
        ctx.arc(cam.motion.x, cam.motion.y, 14, 0, Math.PI * 2);
        ctx.stroke();
        ctx.fillStyle = "#f2d45c";
        ctx.fillText("motion " + cam.motion.where, cam.motion.x + 16, cam.motion.y);
      }
      $("#no-camera").hidden = true;
    };
    image.src = "data:image/jpeg;base64," + cam.jpeg;
  }

  // ------------------------------------------------------------------ robot

  function showRobot(r, status) {
    if (!r) {
      setPill("#conn", status || "waiting", "warn");
      return;
    }
    if (r.suspended) setPill("#conn", "robot lost", "bad");
    else if (r.connected) setPill("#conn", "robot connected", "ok");
    else setPill("#conn", "robot away", "bad");
    const rows = [];
    const link = r.link || {};
    rows.push(["robot", (r.connected ? "connected" : "away") + " · " + r.address, r.connected ? "ok" : "bad"]);
    if (r.suspended) rows.push(["personality", "suspended: " + r.suspended, "bad"]);
    rows.push(["link", (link.state || "–") + " · RTT " + num(link.rtt_ms, 1) + " ms (timeout " + num(link.rto_ms, 0) + " ms)"]);
    rows.push(["packets", "sent " + (link.sent ?? "–") + " · resent " + (link.resent ?? "–") + " · received "
      + (link.received ?? "–")]);
    rows.push(["loss", "≈ " + num(link.loss_pct, 1) + " % (resends) · dropped " + (link.dropped ?? "–")
      + " · duplicates " + (link.duplicates ?? "–")]);
    rows.push(["battery", r.battery_v === undefined ? "–" : num(r.battery_v, 2) + " V"
      + (r.on_charger ? " · on charger" : "") + (r.charging ? " · charging" : "")]);
    rows.push(["head", r.head_deg === undefined ? "–" : num(r.head_deg, 1) + "°"]);
    rows.push(["lift", r.lift_mm === undefined ? "–" : num(r.lift_mm, 1) + " mm (" + num(r.lift_deg, 1) + "°)"]);
    rows.push(["pose", r.pose ? "x " + num(r.pose.x_mm, 0) + " · y " + num(r.pose.y_mm, 0) + " mm · "
      + num(r.pose.angle_deg, 0) + "°" : "–"]);
    rows.push(["wheels", r.wheels_mmps ? r.wheels_mmps.map((v) => num(v, 0)).join(" / ") + " mm/s" : "–"]);
    rows.push(["lying", (r.orientation || "–").replace(/_/g, " ")]);
    rows.push(["flags", (r.flags || []).join(", ") || "none"]);
    rows.push(["safety", (r.hazard ? "holding: " + r.hazard.replace(/_/g, " ") + " · " : "") + r.safety_stops
      + " stop" + (r.safety_stops === 1 ? "" : "s"), r.hazard ? "bad" : ""]);
    rows.push(["firmware", r.firmware + " · serial " + r.serial]);
    const dl = $("#robot");
    dl.textContent = "";
    for (const [k, v, cls] of rows) dl.append(el("dt", null, k), el("dd", cls || null, v));
  }

  // ------------------------------------------------------------------ mood

  function addMood(t, values) {
    const m = S.mood;
    if (m.t.length && t - m.t[m.t.length - 1] < MOOD_STEP_S) return;
    m.t.push(t);
    for (const e of S.emotions) {
      if (!m.v[e]) m.v[e] = new Array(m.t.length - 1).fill(null);
      m.v[e].push(e in values ? values[e] : null);
    }
    const cut = m.t.findIndex((x) => x >= t - S.historyS);
    if (cut > 200) {
      m.t.splice(0, cut);
      for (const e of S.emotions) m.v[e].splice(0, cut);
    }
  }

  function renderLegend(values) {
    const box = $("#mood-legend");
    box.textContent = "";
    S.emotions.forEach((e, i) => {
      const item = el("span");
      const sw = el("span", "sw");
      sw.style.background = COLORS[i % COLORS.length];
      item.append(sw, document.createTextNode(e + " " + num(values[e], 2)));
      box.append(item);
    });
  }

  function drawMood(start, end) {
    const canvas = $("#mood-chart");
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (!w) return;
    if (canvas.width !== Math.round(w * dpr)) canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const x = (t) => ((t - start) / (end - start)) * w;
    const y = (v) => h / 2 - v * (h / 2 - 8);
    ctx.strokeStyle = "#2a313c";
    ctx.fillStyle = "#8b96a5";
    ctx.font = "10px system-ui";
    for (const v of [-1, -0.5, 0, 0.5, 1]) {
      ctx.beginPath(); ctx.moveTo(0, y(v)); ctx.lineTo(w, y(v)); ctx.stroke();
      ctx.fillText(String(v), 2, Math.min(h - 2, Math.max(9, y(v) - 2)));
    }
    const ts = S.mood.t;
    let i0 = 0;
    while (i0 < ts.length && ts[i0] < start) i0++;
    i0 = Math.max(0, i0 - 1);
    S.emotions.forEach((e, k) => {
      const vs = S.mood.v[e] || [];
      ctx.strokeStyle = COLORS[k % COLORS.length];
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      let pen = false;
      for (let i = i0; i < ts.length && ts[i - 1 >= 0 ? i - 1 : 0] <= end; i++) {
        if (vs[i] === null || vs[i] === undefined) { pen = false; continue; }
        if (pen) ctx.lineTo(x(ts[i]), y(vs[i])); else ctx.moveTo(x(ts[i]), y(vs[i]));
        pen = true;
      }
      ctx.stroke();
    });
    ctx.setLineDash([3, 3]);
    ctx.lineWidth = 1;
    const labelEnds = [-1e9, -1e9, -1e9];  // three rows of marker labels, each written left to right
    for (const m of S.marks) {
      if (m.t < start || m.t > end) continue;
      const mx = x(m.t);
      ctx.strokeStyle = "#e3b34188";
      ctx.beginPath(); ctx.moveTo(mx, 0); ctx.lineTo(mx, h); ctx.stroke();
      const row = labelEnds.findIndex((e) => e < mx);
      if (row < 0) continue;  // no room: the line stays, the name is in the event log
      ctx.fillStyle = "#e3b341";
      ctx.fillText(m.name, mx + 3, 10 + row * 11);
      labelEnds[row] = mx + 6 + ctx.measureText(m.name).width;
    }
    ctx.setLineDash([]);
    if (S.rewindT !== null && S.rewindT >= start && S.rewindT <= end) {
      ctx.strokeStyle = "#e3b341"; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.moveTo(x(S.rewindT), 0); ctx.lineTo(x(S.rewindT), h); ctx.stroke();
    }
  }

  // ------------------------------------------------------------------ timeline

  function oldest() {
    let t = S.now;
    if (S.mood.t.length) t = Math.min(t, S.mood.t[0]);
    for (const s of S.spans.values()) t = Math.min(t, s.start);
    return Math.max(t, S.now - S.historyS);
  }
  function viewEnd() { return S.viewEnd === null ? S.now : S.viewEnd; }

  function renderTimeline() {
    const end = viewEnd(), start = end - S.windowS;
    for (const lane of LANES) {
      const box = document.querySelector('.lane[data-lane="' + lane + '"]');
      let bars = box.querySelector(".bars");
      if (!bars) { bars = el("div", "bars"); box.append(bars); }
      bars.textContent = "";
      for (const s of S.spans.values()) {
        if (s.lane !== lane) continue;
        const stop = s.end === null ? S.now : s.end;
        if (stop < start || s.start > end) continue;
        const left = Math.max(0, (s.start - start) / S.windowS) * 100;
        const right = Math.min(1, (stop - start) / S.windowS) * 100;
        const bar = el("div", "bar" + (s.label === "suspended" ? " suspended" : ""), s.label);
        bar.style.left = left + "%";
        bar.style.width = Math.max(0.3, right - left) + "%";
        bar.title = s.title + "\n" + wall(s.start) + " – " + (s.end === null ? "now" : wall(s.end));
        bar.dataset.label = s.label;
        bars.append(bar);
      }
    }
    const axis = $("#axis");
    axis.textContent = "";
    const most = Math.max(2, Math.floor(axis.clientWidth / 80));
    const step = [5, 10, 15, 30, 60, 120, 300].find((s) => S.windowS / s <= most) || 600;
    for (let t = Math.ceil(start / step) * step; t <= end; t += step) {
      const tick = el("span", null, wall(t));
      tick.style.left = ((t - start) / S.windowS) * 100 + "%";
      axis.append(tick);
    }
    const cursor = $("#cursor");
    if (S.rewindT !== null && S.rewindT >= start && S.rewindT <= end) {
      cursor.hidden = false;
      cursor.style.left = axis.offsetLeft + ((S.rewindT - start) / S.windowS) * axis.clientWidth + "px";
    } else cursor.hidden = true;
    const first = oldest();
    const span = Math.max(1, S.now - first);
    $("#scroll").value = String(Math.round(((end - first) / span) * 1000));
    drawMood(start, end);
  }

  function queueRender() {
    if (S.renderQueued) return;
    S.renderQueued = true;
    const wait = Math.max(0, 250 - (performance.now() - S.lastDraw));
    setTimeout(() => requestAnimationFrame(() => {
      S.renderQueued = false;
      S.lastDraw = performance.now();
      renderTimeline();
    }), wait);
  }

  function timeAt(event, box) {
    const r = box.getBoundingClientRect();
    const frac = Math.min(1, Math.max(0, (event.clientX - r.left) / r.width));
    return viewEnd() - S.windowS + frac * S.windowS;
  }

  function setMode() {
    const live = S.viewEnd === null && S.rewindT === null && !S.paused;
    $("#live").hidden = live;
    $("#pause").hidden = !live;
    if (S.rewindT !== null) setPill("#mode", "rewound to " + wall(S.rewindT), "paused");
    else if (!live) setPill("#mode", "paused", "paused");
    else setPill("#mode", "live", "live");
  }

  function rewind(t) {
    S.rewindT = t;
    if (S.viewEnd === null) S.viewEnd = S.now;
    S.paused = true;
    setMode();
    const have = S.view ? S.view.version : "";
    api("api/at?t=" + encodeURIComponent(t) + "&have=" + have).then((at) => {
      if (S.rewindT !== t) return;
      if (at.tree) showTree(at.tree, at.statuses);
      else if (at.statuses) applyStatuses(at.statuses);
      $("#branch").textContent = at.behavior || "";
      $("#now-when").textContent = "at " + wall(t);
      showDecision(at.decision);
      if (at.mood) renderLegend(at.mood);
      queueRender();
    });
  }

  function goLive() {
    S.rewindT = null;
    S.viewEnd = null;
    S.paused = false;
    setMode();
    if (S.live.tree) showTree(S.live.tree, S.live.statuses);
    $("#now-when").textContent = "";
    $("#branch").textContent = S.live.branch || "";
    showDecision(S.live.decision);
    renderLegend(S.moodNow);
    queueRender();
  }

  // ------------------------------------------------------------------ acting

  function post(body) {
    const headers = { "Content-Type": "application/json" };
    if (token) headers.Authorization = "Bearer " + token;
    const result = $("#act-result");
    result.textContent = "…";
    return fetch("api/act", { method: "POST", headers, body: JSON.stringify(body) })
      .then((r) => r.json().then((data) => ({ status: r.status, data })))
      .then(({ status, data }) => {
        result.textContent = status === 200 ? (data.message || "done") : "refused (" + status + "): " + data.error;
        if (body.action === "reload") reloaded({ ok: data.ok, error: data.error, t: S.now });
        return data;
      })
      .catch((e) => { result.textContent = "failed: " + e; });
  }

  function setupActions() {
    const c = S.control;
    const box = $("#sim-buttons");
    box.textContent = "";
    if (c.sim) {
      for (const b of c.sim_buttons || []) {
        const button = el("button", null, b.label);
        button.type = "button";
        button.dataset.event = b.step.event;
        button.addEventListener("click", () => post(Object.assign({ action: "sim" }, b.step)));
        box.append(button);
      }
    } else box.append(el("span", "muted", "world events need the simulator (run --sim)"));
    const fill = (sel, names) => {
      const list = $(sel);
      list.textContent = "";
      for (const n of names || []) { const o = el("option"); o.value = n; list.append(o); }
    };
    fill("#behavior-names", c.behaviors);
    fill("#clip-names", [...(c.clips || []), ...(c.triggers || [])]);
    const refused = $("#act-refused");
    refused.hidden = !!c.allowed;
    refused.textContent = c.allowed ? "" : c.refusal;
    for (const e of document.querySelectorAll("#act-panel button, #act-panel input, #act-panel select")) {
      e.disabled = !c.allowed;
    }
  }

  function setupEmotions() {
    const select = $("#emotion-name");
    const emotions = S.control.emotions || {};
    const keep = select.value;
    select.textContent = "";
    for (const e of Object.keys(emotions)) { const o = el("option", null, e); o.value = e; select.append(o); }
    if (keep in emotions) select.value = keep;
    const sync = () => {
      const range = emotions[select.value] || [-1, 1];
      const slider = $("#emotion-value");
      slider.min = range[0]; slider.max = range[1];
      if (select.value in S.moodNow) slider.value = S.moodNow[select.value];
      $("#emotion-shown").textContent = num(slider.value, 2);
    };
    select.onchange = sync;
    sync();
  }

  // ------------------------------------------------------------------ event log

  function logFilter() {
    const cats = new Set([...document.querySelectorAll("#log-filters input[data-cat]")]
      .filter((i) => i.checked).map((i) => i.dataset.cat));
    const noisy = $("#log-noisy").checked;
    const text = $("#log-search").value.trim().toLowerCase();
    return (e) => cats.has(e.cat) && (noisy || !e.noisy) && (!text || (e.text + " " + e.kind).toLowerCase().includes(text));
  }

  function logRow(e) {
    const row = el("div", "entry c-" + e.cat + " l-" + e.kind);
    row.append(el("span", "when", wall(e.t)), el("span", "cat", e.cat), el("span", "text", e.text));
    row.addEventListener("click", () => rewind(e.t + 0.01));
    return row;
  }

  function renderLog() {
    const box = $("#log");
    box.textContent = "";
    const ok = logFilter();
    const shown = S.events.filter(ok).slice(-LOG_ROWS).reverse();
    for (const e of shown) box.append(logRow(e));
  }

  function appendLog(fresh) {
    const box = $("#log");
    const ok = logFilter();
    for (const e of fresh) if (ok(e)) box.prepend(logRow(e));
    while (box.childElementCount > LOG_ROWS) box.lastElementChild.remove();
  }

  function setupLogFilters() {
    const box = $("#log-filters");
    for (const cat of CATS) {
      const label = el("label");
      const input = el("input");
      input.type = "checkbox";
      input.checked = true;
      input.dataset.cat = cat;
      input.addEventListener("change", renderLog);
      label.append(input, document.createTextNode(" " + cat));
      box.append(label);
    }
    const label = el("label");
    const noisy = el("input");
    noisy.type = "checkbox";
    noisy.id = "log-noisy";
    noisy.addEventListener("change", renderLog);
    label.append(noisy, document.createTextNode(" frequent"));
    label.title = "animation starts and ends, motors moving, head and lift in position";
    box.append(label);
    $("#log-search").addEventListener("input", renderLog);
  }

  // ------------------------------------------------------------------ wiring

  function wire() {
    setupLogFilters();
    $("#pause").addEventListener("click", () => { S.paused = true; S.viewEnd = S.now; setMode(); queueRender(); });
    $("#live").addEventListener("click", goLive);
    $("#window").addEventListener("change", (e) => { S.windowS = Number(e.target.value); queueRender(); });
    $("#scroll").addEventListener("input", (e) => {
      const first = oldest();
      const v = Number(e.target.value) / 1000;
      if (v >= 0.999 && S.rewindT === null) { goLive(); return; }
      S.paused = true;
      S.viewEnd = Math.max(first + S.windowS * 0.5, first + v * (S.now - first));
      setMode();
      queueRender();
    });
    const onWheel = (e) => {
      e.preventDefault();
      S.paused = true;
      S.viewEnd = Math.min(S.now, Math.max(oldest() + 5, viewEnd() + (e.deltaY + e.deltaX) * S.windowS / 2000));
      setMode();
      queueRender();
    };
    $("#timeline").addEventListener("wheel", onWheel, { passive: false });
    $("#timeline").addEventListener("click", (e) => rewind(timeAt(e, $("#axis"))));
    $("#mood-chart").addEventListener("click", (e) => rewind(timeAt(e, $("#mood-chart"))));
    $("#follow").addEventListener("change", () => { S.statuses = ""; applyStatuses(S.live.statuses); });
    $("#run-form").addEventListener("submit", (e) => {
      e.preventDefault();
      post({ action: "behavior", name: $("#run-name").value });
    });
    $("#clip-form").addEventListener("submit", (e) => {
      e.preventDefault();
      post({ action: "clip", name: $("#clip-name").value });
    });
    $("#emotion-value").addEventListener("input", (e) => { $("#emotion-shown").textContent = num(e.target.value, 2); });
    $("#emotion-form").addEventListener("submit", (e) => {
      e.preventDefault();
      post({ action: "emotion", emotion: $("#emotion-name").value, value: Number($("#emotion-value").value) });
    });
    $("#reload").addEventListener("click", () => post({ action: "reload" }));
    window.addEventListener("resize", queueRender);
    setInterval(() => { if (S.viewEnd === null) queueRender(); }, 1000);
    setMode();
    connect();
  }

  wire();
})();
