// cozmo-brain dashboard: drawing. The tree with its statuses, the face, the camera, the timeline
// and the mood chart, from the state in common.js.

import { $, COLORS, LANES, S, el, num, wall } from "./common.js";

export function keyOf(nodes, i) {
  const parts = [];
  for (let n = nodes[i]; n; n = n.parent === null ? null : nodes[n.parent]) parts.push(n.name);
  return parts.reverse().join("/");
}

export function showTree(structure, statuses) {
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
    const folded = node.dataset.kind === "reaction" || node.dataset.kind === "reactions";  // opened when they run
    if (has && (user === true || (user === undefined && folded))) {
      node.classList.add("collapsed");
    }
  }
  applyStatuses(statuses || "");
}

export function applyStatuses(statuses) {
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

export function drawFace(b64) {
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

export function drawCamera(cam) {
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
      ctx.fillText("face " + f.id, Math.max(2, x + 2), Math.max(12, y - 3));
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

export function renderLegend(values) {
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

export function drawMood(start, end) {
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

export function oldest() {
  let t = S.now;
  if (S.mood.t.length) t = Math.min(t, S.mood.t[0]);
  for (const s of S.spans.values()) t = Math.min(t, s.start);
  return Math.max(t, S.now - S.historyS);
}

export function viewEnd() { return S.viewEnd === null ? S.now : S.viewEnd; }

export function renderTimeline() {
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

export function queueRender() {
  if (S.renderQueued) return;
  S.renderQueued = true;
  const wait = Math.max(0, 250 - (performance.now() - S.lastDraw));
  setTimeout(() => requestAnimationFrame(() => {
    S.renderQueued = false;
    S.lastDraw = performance.now();
    renderTimeline();
  }), wait);
}
