/* gym view: the tasks table (filter, search, sort, pages) and live updates. Plain JS, no dependencies.
   Served pages ask the server (api/...); exported pages filter the rows tasks-data.js holds. */
"use strict";

function gymLive(root, onChange) {
  // Poll the server's version of the rows; call onChange when rows landed.
  if (!document.body.dataset.live) return;
  let seen = Number(document.body.dataset.live);  // the version the page was made from
  setInterval(function () {
    fetch(root + "api/version").then(r => r.json()).then(function (v) {
      if (v.version !== seen) onChange();
      seen = v.version;
    }).catch(function () {});
  }, 1500);
}

function gymEscape(text) {
  return String(text === null || text === undefined ? "" : text)
    .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

const GYM_FACETS = ["status", "reward_band", "benchmark", "subset", "bucket", "termination", "error_type"];

function gymLocalPage(data, query) {
  // The static export: the same filtering, search and sorting as the server, over every row.
  let rows = data.rows.filter(function (r) {
    for (const f of GYM_FACETS) if (query[f] && String(r[f]) !== query[f]) return false;
    return !query.q || r.text.indexOf(query.q.toLowerCase()) >= 0;
  });
  const key = query.sort || "task";
  const value = r => key === "reward" ? (r.reward === null ? -1 : r.reward) : (key === "task" ? r.task : String(r[key]));
  rows.sort(function (a, b) {
    const x = value(a), y = value(b);
    return x < y ? -1 : x > y ? 1 : (a.task - b.task) || (a.rollout - b.rollout);
  });
  if (query.desc === "1") rows.reverse();
  const facets = {};
  for (const f of GYM_FACETS) {
    facets[f] = {};
    for (const r of data.rows) if (r[f] !== "" && r[f] !== null) facets[f][r[f]] = (facets[f][r[f]] || 0) + 1;
  }
  const offset = Number(query.offset || 0), limit = 50;
  return {total: rows.length, rows_in_run: data.rows.length, offset: offset, limit: limit,
          rows: rows.slice(offset, offset + limit), facets: facets, status: data.status};
}

function gymTasks(run, root) {
  const params = new URLSearchParams(location.search);
  const query = {};
  for (const [k, v] of params) query[k] = v;
  const body = document.querySelector("#tasks tbody");
  const search = document.getElementById("q");
  search.value = query.q || "";

  function show(page) {
    for (const f of GYM_FACETS) {
      const select = document.getElementById("f-" + f);
      const want = query[f] || "";
      const counts = page.facets[f] || {};
      select.innerHTML = '<option value="">all</option>' + Object.keys(counts).sort().map(
        v => '<option value="' + gymEscape(v) + '"' + (v === want ? " selected" : "") + ">" + gymEscape(v) +
             " (" + counts[v] + ")</option>").join("");
      if (want && !(want in counts)) select.innerHTML += '<option selected value="' + gymEscape(want) + '">' + gymEscape(want) + " (0)</option>";
      select.parentElement.style.display = Object.keys(counts).length || want ? "" : "none";
    }
    body.innerHTML = page.rows.map(function (r) {
      const cls = r.reward === 1 ? "pass" : (r.reward === null ? "unscored" : "fail");
      return '<tr class="' + cls + '"><td><a href="' + gymEscape(r.href) + '">' + r.task + "</a></td><td>" + r.rollout +
        "</td><td>" + gymEscape(r.benchmark) + '</td><td class="st">' + gymEscape(r.status) + '</td><td class="num">' +
        (r.reward === null ? "–" : r.reward) + "</td><td>" + gymEscape(r.subset) + "</td><td>" + gymEscape(r.bucket) +
        "</td><td>" + gymEscape(r.termination) + "</td><td>" + gymEscape(r.error_type) + "</td><td>" + gymEscape(r.extracted) +
        "</td><td>" + gymEscape(r.expected) + "</td></tr>";
    }).join("");
    const last = Math.min(page.offset + page.rows.length, page.total);
    document.getElementById("count").textContent = page.total + " of " + page.rows_in_run + " rollouts" +
      (page.total ? " (showing " + (page.offset + 1) + "–" + last + ")" : "") + " · run " + page.status;
    document.getElementById("prev").disabled = page.offset <= 0;
    document.getElementById("next").disabled = last >= page.total;
    document.getElementById("tasks").dataset.total = page.total;
    document.getElementById("tasks").dataset.loaded = String(Date.now());
  }

  function load() {
    const clean = {};
    for (const k in query) if (query[k] !== "" && query[k] !== undefined) clean[k] = query[k];
    const qs = new URLSearchParams(clean).toString();
    try { history.replaceState(null, "", qs ? "?" + qs : location.pathname); } catch (e) { /* file:// */ }
    if (window.GYM_TASKS) { show(gymLocalPage(window.GYM_TASKS, clean)); return; }
    fetch(root + "api/run/" + run + "/tasks?" + qs).then(r => r.json()).then(show);
  }

  for (const f of GYM_FACETS) {
    document.getElementById("f-" + f).addEventListener("change", function (e) {
      query[f] = e.target.value; query.offset = 0; load();
    });
  }
  let timer = null;
  search.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { query.q = search.value.trim(); query.offset = 0; load(); }, 250);
  });
  for (const th of document.querySelectorAll("#tasks th[data-sort]")) {
    th.addEventListener("click", function () {
      const key = th.dataset.sort;
      query.desc = query.sort === key && query.desc !== "1" ? "1" : "";
      query.sort = key; query.offset = 0; load();
    });
  }
  document.getElementById("prev").addEventListener("click", function () { query.offset = Math.max(0, Number(query.offset || 0) - 50); load(); });
  document.getElementById("next").addEventListener("click", function () { query.offset = Number(query.offset || 0) + 50; load(); });
  load();
  gymLive(root, load);
}

document.addEventListener("DOMContentLoaded", function () {
  if (document.body.dataset.live && !document.getElementById("tasks")) {
    const root = (document.querySelector("link[rel=stylesheet]").getAttribute("href") || "").replace(/static\/view\.css$/, "");
    gymLive(root, function () { location.reload(); });
  }
});
