// cozmo-brain dashboard: one WebSocket in, the page out. No framework, no build step.
// Protocol (README, "Dashboard"): a "hello" with the history, then "update" messages (at most ten
// a second) and "reload" messages. Times are the daemon's monotonic clock in seconds; hello.wall
// minus hello.t turns them into wall-clock time.
// The page's modules: common.js (state, helpers), draw.js (tree, face, camera, timeline, mood),
// this one (the connection, the messages, now and why, the robot, acting, the event log).

import { $, CATS, LOG_ROWS, MOOD_STEP_S, S, api, el, num, setPill, token, wall } from "./common.js";
import {
  applyStatuses, drawCamera, drawFace, oldest, queueRender, renderLegend, showTree, viewEnd,
} from "./draw.js";

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
  showWorld(u.world, u.arousal, u.t, u.robot, u.needs);
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
  if (r.losses) rows.push(["lost", r.losses + "× · back " + r.reconnects + "×"]);
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
  if (S.cameraOn && !r.camera) {  // switched off: the last picture goes too
    const canvas = $("#camera");
    canvas.getContext("2d").clearRect(0, 0, canvas.width, canvas.height);
    $("#no-camera").hidden = false;
  }
  S.cameraOn = !!r.camera;
  $("#camera-toggle").textContent = S.cameraOn ? "switch off" : "switch on";
  const dl = $("#robot");
  dl.textContent = "";
  for (const [k, v, cls] of rows) dl.append(el("dt", null, k), el("dd", cls || null, v));
}

// What the brain's world model holds: how awake it is, the faces (where from its heading now), motion, cubes.
function showWorld(w, arousal, t, robot, needs) {
  const dl = $("#world");
  if (!w) return;
  const heading = robot && robot.pose ? robot.pose.angle_deg : 0;
  const side = (bearing) => {
    const d = ((bearing - heading + 540) % 360) - 180;
    return Math.abs(d) < 3 ? "ahead" : num(Math.abs(d), 0) + "° " + (d > 0 ? "left" : "right");
  };
  const ago = (at) => num(Math.max(0, t - at), 0) + " s ago";
  const rows = [];
  if (arousal) rows.push(["arousal", arousal.state + (arousal.why ? " · " + arousal.why : "")]);
  if (needs) {
    const low = Object.values(needs).some((n) => n.bracket === "Warning" || n.bracket === "Critical");
    rows.push(["needs", Object.entries(needs).map(([k, n]) => k + " " + num(n.level, 2) + " (" + n.bracket + ")")
      .join(" · "), low ? "warn" : ""]);
  }
  for (const f of w.faces) {
    rows.push(["face " + f.id, (f.in_view ? "in view" : "seen " + ago(f.last_seen)) + " · " + side(f.bearing_deg)
      + " · " + num(f.distance_mm / 1000, 2) + " m", f.in_view ? "ok" : ""]);
  }
  if (!w.faces.length) rows.push(["faces", "none"]);
  rows.push(["motion", w.motion ? w.motion.where + " · " + ago(w.motion.at) + " · " + side(w.motion.bearing_deg)
    : "none"]);
  for (const c of w.cubes) {
    rows.push(["cube " + c.id, (c.connected ? "connected" : "not connected")
      + (c.moving ? " · moving" : "") + (c.up_axis && c.up_axis !== "Z_POSITIVE" ? " · " + c.up_axis : "")
      + (c.lights ? " · lights " + c.lights : "")
      + (c.last_tapped !== null ? " · tapped " + ago(c.last_tapped) : "")]);
  }
  dl.textContent = "";
  for (const [k, v, cls] of rows) dl.append(el("dt", null, k), el("dd", cls || null, v));
}

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
  }).catch((err) => {
    // say so rather than leave the page rewound with nothing to show
    if (S.rewindT === t) $("#now-when").textContent = "could not load " + wall(t) + ": " + err;
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
  for (const e of document.querySelectorAll("#act-panel button, #act-panel input, #act-panel select, "
    + "#camera-toggle")) {
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
  // on the press, not the click: live, the bars are drawn anew ten times a second, and a click
  // whose press and release land on two generations of a bar reaches nobody
  $("#timeline").addEventListener("pointerdown", (e) => { if (e.button === 0) rewind(timeAt(e, $("#axis"))); });
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
  $("#camera-toggle").addEventListener("click", () => post({ action: "camera", on: !S.cameraOn }));
  window.addEventListener("resize", queueRender);
  setInterval(() => { if (S.viewEnd === null) queueRender(); }, 1000);
  setMode();
  connect();
}

wire();
