// cozmo-brain dashboard: what every part of the page shares (the state and small helpers).

export const $ = (sel) => document.querySelector(sel);

export const token = new URLSearchParams(location.search).get("token");

export const LANES = ["behavior", "reaction", "clip"];

export const CATS = ["robot", "behavior", "reaction", "mood", "safety", "control", "reload", "log"];

export const COLORS = ["#3ddbd9", "#f2a65a", "#8fd16a", "#e06c9f", "#b48cff", "#f2d45c", "#5fa8ff", "#ff7a66",
                "#9ad0c2", "#c8c8c8"];

export const MOOD_STEP_S = 0.25;   // the chart keeps a point every this many seconds

export const LOG_ROWS = 300;

export const S = {
  offset: 0, now: 0, helloN: 0, historyS: 600, control: {},
  view: null, viewEls: [], statuses: "", live: { tree: null, statuses: "", decision: null, branch: "" },
  spans: new Map(), decisions: [], marks: [], events: [], emotions: [],
  mood: { t: [], v: {} }, moodNow: {},
  paused: false, viewEnd: null, windowS: 60, rewindT: null, userToggled: new Map(),
  renderQueued: false, lastDraw: 0, socket: null, retry: 500,
};

export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

export function wall(t) {
  const d = new Date((t + S.offset) * 1000);
  return d.toTimeString().slice(0, 8);
}

export function num(v, digits = 2) { return v === null || v === undefined ? "–" : Number(v).toFixed(digits); }

export function api(path) {
  const headers = token ? { Authorization: "Bearer " + token } : {};
  return fetch(path, { headers, cache: "no-store" }).then((r) => r.json());
}

export function setPill(sel, text, cls) {
  const p = $(sel);
  p.textContent = text;
  p.className = "pill " + (cls || "");
}
