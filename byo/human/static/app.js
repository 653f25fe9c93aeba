// byo human: asks one question at a time and sends each answer to the server, which writes it to
// disk before it answers with the next question. Plain JavaScript, no build step. Every text from
// the server is set with textContent (never as HTML).
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;
  const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const RED = new Set(["H", "D"]);
  const RANK_KEYS = { a: "A", t: "10", j: "J", q: "Q", k: "K" };

  const s = {
    annotator: null, study: null, question: null, paused: false, busy: false,
    nonce: null, spentMs: 0, shownAt: null, picked: [], cardKey: "",
    zoom: null, // null: fit to the box; otherwise screen pixels per image pixel
    totalSeconds: 0,
  };

  // --- talking to the server -----------------------------------------------------------------
  async function api(method, path, body) {
    const options = { method, headers: {}, credentials: "same-origin", cache: "no-store" };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, options);
    } catch (err) {
      return { status: 0, data: { error: "The server cannot be reached. Every answer sent so far is saved; " +
        "try again when it is back." } };
    }
    let data = {};
    try { data = await response.json(); } catch (err) { data = { error: `unexpected reply (${response.status})` }; }
    return { status: response.status, data };
  }

  function notice(text, isError) {
    const el = $("notice");
    el.textContent = text || "";
    el.classList.toggle("error", Boolean(isError));
  }

  function fatal(text) {
    $("fatal-text").textContent = text;
    $("fatal").hidden = false;
  }

  // --- the clock: time with the question on screen, kept across reloads -------------------------
  const timeKey = (id) => `byo-human:${s.study}:${s.annotator}:${id}`;
  function clockRunning() { return s.question && !s.paused && document.visibilityState === "visible"; }
  function spent() { return s.spentMs + (s.shownAt === null ? 0 : performance.now() - s.shownAt); }
  function stopClock() {
    if (s.shownAt !== null) { s.spentMs += performance.now() - s.shownAt; s.shownAt = null; }
    saveClock();
  }
  function startClock() { if (s.shownAt === null && clockRunning()) s.shownAt = performance.now(); }
  function saveClock() {
    if (!s.question) return;
    try { localStorage.setItem(timeKey(s.question.id), String(Math.round(spent()))); } catch (err) { /* private mode */ }
  }
  function fmt(ms) {
    const t = Math.floor(ms / 1000);
    const h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), sec = t % 60;
    return (h ? `${h}:${String(m).padStart(2, "0")}` : `${m}`) + `:${String(sec).padStart(2, "0")}`;
  }
  function tick() {
    $("clock-question").textContent = fmt(s.question ? spent() : 0);
    $("clock-total").textContent = fmt(s.totalSeconds * 1000 + (s.question ? spent() : 0));
  }
  setInterval(() => { tick(); if (s.shownAt !== null) saveClock(); }, 1000);
  document.addEventListener("visibilitychange", () => (document.visibilityState === "visible" ? startClock() : stopClock()));
  window.addEventListener("pagehide", stopClock);

  // --- state from the server ------------------------------------------------------------------
  function show(state) {
    s.study = state.study;
    s.paused = state.paused;
    s.totalSeconds = state.seconds;
    $("progress").hidden = false;
    $("who").hidden = false;
    $("annotator-name").textContent = state.annotator;
    $("progress-text").textContent = `${state.answered} of ${state.total} answered` +
      (state.cannot_tell ? ` (${state.cannot_tell} cannot tell)` : "");
    $("progress-bar").style.width = `${state.total ? (100 * state.answered) / state.total : 100}%`;
    $("paused").hidden = !state.paused;
    $("pause").disabled = !state.question && !state.paused;
    const q = state.question;
    if (!q) {
      if (s.question) stopClock();
      s.question = null;
      $("work").hidden = true;
      if (!state.paused) {
        $("done").hidden = false;
        $("done-text").textContent = `${state.answered} of ${state.total} questions answered, in ${fmt(state.seconds * 1000)}.`;
      }
      tick();
      return;
    }
    $("done").hidden = true;
    $("work").hidden = false;
    if (!s.question || s.question.id !== q.id) ask(q, state);
    startClock();
    tick();
  }

  function ask(q, state) {
    if (s.question) stopClock();
    s.question = q;
    s.nonce = crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`.replace(".", "");
    s.picked = [];
    s.cardKey = "";
    let stored = 0;
    try { stored = Number(localStorage.getItem(timeKey(q.id))) || 0; } catch (err) { stored = 0; }
    s.spentMs = stored;
    s.shownAt = null;
    $("qnum").textContent = `Question ${state.position} of ${state.total}`;
    $("prompt").textContent = q.prompt;
    const img = $("image");
    img.removeAttribute("src");
    img.onload = () => { layoutImage(); };
    img.src = "/images/" + q.image.split("/").map(encodeURIComponent).join("/");
    drawInput(q);
  }

  async function load() {
    const r = await api("GET", `/api/state?annotator=${encodeURIComponent(s.annotator)}`);
    if (r.status === 200) { $("fatal").hidden = true; show(r.data); return; }
    if (r.status === 400) { signOut(r.data.error); return; }
    fatal(r.data.error || `the server answered ${r.status}`);
  }

  // --- inputs fitted to the answer type --------------------------------------------------------
  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") node.textContent = v;
      else if (k === "class") node.className = v;
      else node.setAttribute(k, v);
    }
    for (const child of children || []) node.append(child);
    return node;
  }
  const kbd = (text) => el("kbd", { text });
  const cap = (text) => text.charAt(0).toUpperCase() + text.slice(1);

  function optionButton(value, label, key) {
    const b = el("button", { type: "button", class: "option", "data-value": value, "aria-pressed": "false" },
      key ? [kbd(key), el("span", { text: label })] : [el("span", { text: label })]);
    b.addEventListener("click", () => pick(value));
    return b;
  }

  function drawInput(q) {
    const box = $("input");
    box.replaceChildren();
    const spec = q.input;
    if (spec.kind === "number") {
      box.append(el("input", { type: "number", id: "answer-number", min: String(spec.min), step: "1",
        inputmode: "numeric", "aria-label": "your answer (a whole number)", autocomplete: "off" }));
    } else if (spec.kind === "cell") {
      box.append(el("label", {}, ["row", el("input", { type: "number", id: "answer-row", min: "0", step: "1" })]),
        el("label", {}, ["column", el("input", { type: "number", id: "answer-column", min: "0", step: "1" })]));
    } else if (spec.kind === "choice" || spec.kind === "multi") {
      const yesNo = spec.options.length === 2 && spec.options[0] === "yes" && spec.options[1] === "no";
      box.append(el("div", { class: "options", role: spec.kind === "multi" ? "group" : "radiogroup" },
        spec.options.map((o, i) => optionButton(o, cap(o), yesNo ? o[0].toUpperCase() : i < 9 ? String(i + 1) : ""))));
      if (spec.kind === "multi") box.append(el("p", { class: "small", text: "Pick every one that applies." }));
    } else if (spec.kind === "grid3") {
      box.append(el("div", { class: "grid3", role: "radiogroup" },
        spec.options.map((o, i) => optionButton(o, cap(o), String(i + 1)))));
    } else if (spec.kind === "letter") {
      box.append(el("div", { class: "options column", role: "radiogroup" },
        spec.options.map((letter, i) => optionButton(letter, spec.texts[i], letter))));
    } else if (spec.kind === "card" || spec.kind === "cards") {
      const grid = el("div", { class: "cards", role: spec.kind === "cards" ? "group" : "radiogroup" });
      for (const suit of spec.suits) {
        for (const rank of spec.ranks) {
          const b = optionButton(rank + suit, `${rank}${SUIT_SYMBOLS[suit] || suit}`, "");
          b.classList.toggle("red", RED.has(suit));
          b.title = `${rank}${suit}`;
          grid.append(b);
        }
      }
      box.append(grid, el("p", { class: "picked", id: "picked" }));
      if (spec.kind === "cards") box.append(el("p", { class: "small", text: "Pick every card that applies." }));
    } else {
      box.append(el("textarea", { id: "answer-text", maxlength: String(spec.max_length || 2000), rows: "3",
        "aria-label": "your answer", autocomplete: "off", spellcheck: "false" }));
    }
    const first = box.querySelector("input, textarea");
    if (first) first.focus({ preventScroll: true });
    else if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
  }

  function pick(value) {
    const kind = s.question.input.kind;
    const many = kind === "multi" || kind === "cards";
    if (many) s.picked = s.picked.includes(value) ? s.picked.filter((v) => v !== value) : [...s.picked, value];
    else s.picked = [value];
    for (const b of $("input").querySelectorAll(".option")) {
      b.setAttribute("aria-pressed", String(s.picked.includes(b.dataset.value)));
    }
    const shown = $("picked");
    if (shown) shown.textContent = s.picked.length ? `picked: ${s.picked.join(", ")}` : "";
    notice("");
  }

  function value() {
    const spec = s.question.input;
    const whole = (input, what) => {
      const text = input.value.trim();
      if (!/^\d+$/.test(text)) throw new Error(`Type ${what} as a whole number (0 or more).`);
      return Number.parseInt(text, 10);
    };
    if (spec.kind === "number") return whole($("answer-number"), "your answer");
    if (spec.kind === "cell") return [whole($("answer-row"), "the row"), whole($("answer-column"), "the column")];
    if (spec.kind === "text") {
      const text = $("answer-text").value.trim();
      if (!text) throw new Error("Type your answer, or choose Cannot tell.");
      return text;
    }
    if (!s.picked.length) throw new Error("Pick an answer first, or choose Cannot tell.");
    return spec.kind === "multi" || spec.kind === "cards" ? s.picked : s.picked[0];
  }

  // --- answering ------------------------------------------------------------------------------
  async function submit(cannotTell) {
    if (!s.question || s.busy || s.paused) return;
    let answer = null;
    if (!cannotTell) {
      try { answer = value(); } catch (err) { notice(err.message, true); return; }
    }
    s.busy = true;
    setBusy(true);
    const q = s.question;
    const r = await api("POST", "/api/answer", { annotator: s.annotator, id: q.id, answer,
      cannot_tell: Boolean(cannotTell), seconds: Math.round(spent()) / 1000, nonce: s.nonce });
    s.busy = false;
    setBusy(false);
    if (r.status === 200 || (r.status === 409 && r.data.state)) {
      try { localStorage.removeItem(timeKey(q.id)); } catch (err) { /* private mode */ }
      notice(r.status === 409 ? r.data.error : "");
      show(r.data.state);
      return;
    }
    notice(r.data.error || `the server answered ${r.status}`, true);
  }

  function setBusy(busy) {
    for (const id of ["submit", "cannot"]) $(id).disabled = busy;
  }

  async function setPaused(paused) {
    if (s.busy) return;
    if (paused) stopClock();
    const r = await api("POST", "/api/pause", { annotator: s.annotator, paused });
    if (r.status === 200) { show(r.data); return; }
    notice(r.data.error || `the server answered ${r.status}`, true);
  }

  // --- the image: real pixels, zoom and pan ----------------------------------------------------
  function fitZoom() {
    const img = $("image"), stage = $("stage");
    if (!img.naturalWidth) return 1;
    return Math.min((stage.clientWidth - 16) / img.naturalWidth, (stage.clientHeight - 16) / img.naturalHeight);
  }
  function layoutImage() {
    const img = $("image");
    if (!img.naturalWidth) return;
    const zoom = s.zoom === null ? fitZoom() : s.zoom;
    img.style.width = `${Math.round(img.naturalWidth * zoom)}px`;
    img.style.height = `${Math.round(img.naturalHeight * zoom)}px`;
    img.classList.toggle("smooth", zoom < 2); // whole pixels shown as blocks only when magnified
    $("image-size").textContent = `${img.naturalWidth} × ${img.naturalHeight} px · ${Math.round(zoom * 100)}%` +
      (s.zoom === null ? " (fit)" : "");
  }
  function zoomBy(factor, cx, cy) {
    const stage = $("stage");
    const before = s.zoom === null ? fitZoom() : s.zoom;
    const after = Math.min(64, Math.max(0.05, before * factor));
    const px = cx === undefined ? stage.clientWidth / 2 : cx, py = cy === undefined ? stage.clientHeight / 2 : cy;
    const ix = (stage.scrollLeft + px) / before, iy = (stage.scrollTop + py) / before;
    s.zoom = after;
    layoutImage();
    stage.scrollLeft = ix * after - px;
    stage.scrollTop = iy * after - py;
  }
  function setZoom(zoom) { s.zoom = zoom; layoutImage(); }
  window.addEventListener("resize", layoutImage);
  $("zoom-in").addEventListener("click", () => zoomBy(1.5));
  $("zoom-out").addEventListener("click", () => zoomBy(1 / 1.5));
  $("zoom-real").addEventListener("click", () => setZoom(1));
  $("zoom-fit").addEventListener("click", () => setZoom(null));
  $("stage").addEventListener("wheel", (e) => {
    e.preventDefault();
    const rect = $("stage").getBoundingClientRect();
    zoomBy(e.deltaY < 0 ? 1.25 : 0.8, e.clientX - rect.left, e.clientY - rect.top);
  }, { passive: false });
  let drag = null;
  $("stage").addEventListener("pointerdown", (e) => {
    drag = { x: e.clientX, y: e.clientY, left: $("stage").scrollLeft, top: $("stage").scrollTop };
    $("stage").classList.add("dragging");
  });
  window.addEventListener("pointermove", (e) => {
    if (!drag) return;
    $("stage").scrollLeft = drag.left - (e.clientX - drag.x);
    $("stage").scrollTop = drag.top - (e.clientY - drag.y);
  });
  window.addEventListener("pointerup", () => { drag = null; $("stage").classList.remove("dragging"); });

  // --- keyboard -------------------------------------------------------------------------------
  function typing(target) {
    return target && (target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && target.type !== "number"));
  }
  document.addEventListener("keydown", (e) => {
    if (!$("signin").hidden || e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key;
    const inField = typing(e.target);
    const inNumber = e.target && e.target.tagName === "INPUT" && e.target.type === "number";
    if (s.paused) {
      if (key === "p" || key === "P" || key === "Enter") { e.preventDefault(); setPaused(false); }
      return;
    }
    if (!s.question) return;
    if (key === "Enter" && !e.shiftKey) { e.preventDefault(); submit(false); return; }
    if (inField) { if (key === "Escape") e.target.blur(); return; }
    if (key === "?") { e.preventDefault(); submit(true); return; }
    if (key === "p" || key === "P") { e.preventDefault(); setPaused(true); return; }
    if (inNumber) return; // digits go into the field
    const kind = s.question.input.kind;
    if (key === "+" || key === "=") { zoomBy(1.5); return; }
    if (key === "-") { zoomBy(1 / 1.5); return; }
    if (key === "0" && kind !== "card" && kind !== "cards") { setZoom(s.zoom === null ? 1 : null); return; }
    if (kind === "choice" || kind === "multi" || kind === "grid3") {
      const options = s.question.input.options;
      const yesNo = options.length === 2 && options[0] === "yes";
      if (yesNo && (key === "y" || key === "Y" || key === "n" || key === "N")) { pick(key.toLowerCase() === "y" ? "yes" : "no"); return; }
      const n = Number.parseInt(key, 10);
      if (n >= 1 && n <= options.length) pick(options[n - 1]);
      return;
    }
    if (kind === "letter") {
      const options = s.question.input.options;
      const upper = key.toUpperCase();
      const n = Number.parseInt(key, 10);
      if (options.includes(upper)) pick(upper);
      else if (n >= 1 && n <= options.length) pick(options[n - 1]);
      return;
    }
    if (kind === "card" || kind === "cards") {
      const lower = key.toLowerCase();
      const rank = RANK_KEYS[lower] || (/^[2-9]$/.test(key) ? key : null);
      if (s.cardKey && ["s", "h", "d", "c"].includes(lower)) {
        const code = s.cardKey + lower.toUpperCase();
        s.cardKey = "";
        if (s.question.input.ranks.includes(code.slice(0, -1))) pick(code);
        return;
      }
      if (rank) { s.cardKey = rank; notice(`rank ${rank}: now a suit (S H D C)`); }
    }
  });

  // --- annotator ------------------------------------------------------------------------------
  function signIn(name) {
    s.annotator = name;
    try { localStorage.setItem("byo-human-annotator", name); } catch (err) { /* private mode */ }
    const url = new URL(location.href);
    url.searchParams.delete("token"); // the cookie holds it now: not left on screen or in the history
    url.searchParams.set("annotator", name);
    history.replaceState(null, "", url);
    $("signin").hidden = true;
    load();
  }
  function signOut(message) {
    if (s.question) stopClock();
    s.annotator = null;
    s.question = null;
    try { localStorage.removeItem("byo-human-annotator"); } catch (err) { /* private mode */ }
    const url = new URL(location.href);
    url.searchParams.delete("annotator");
    url.searchParams.delete("token");
    history.replaceState(null, "", url);
    $("work").hidden = true;
    $("done").hidden = true;
    $("paused").hidden = true;
    $("signin").hidden = false;
    $("signin-error").textContent = message || "";
    $("signin-name").focus();
  }
  $("signin-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const name = $("signin-name").value.trim();
    if (!NAME.test(name)) {
      $("signin-error").textContent = "Use 1 to 40 letters, digits, dot, underscore or dash, starting with a letter or digit.";
      return;
    }
    signIn(name);
  });
  $("switch").addEventListener("click", () => signOut(""));
  $("submit").addEventListener("click", () => submit(false));
  $("cannot").addEventListener("click", () => submit(true));
  $("pause").addEventListener("click", () => setPaused(!s.paused));
  $("resume").addEventListener("click", () => setPaused(false));
  $("retry").addEventListener("click", () => load());

  const fromUrl = new URLSearchParams(location.search).get("annotator");
  let remembered = null;
  try { remembered = localStorage.getItem("byo-human-annotator"); } catch (err) { remembered = null; }
  const name = fromUrl || remembered;
  if (name && NAME.test(name)) signIn(name);
  else signOut(fromUrl ? "That name cannot be used: letters, digits, dot, underscore or dash." : "");
})();
