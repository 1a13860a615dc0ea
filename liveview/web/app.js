// btrun live view: plain JavaScript, no build step, no network beyond this
// page's own server. The page draws what /api/events sends (the status,
// every agent's summary, the chosen agent's state) and sends commands with
// fetch. docs/debug.md documents the API.
'use strict';

const $ = (sel, el = document) => el.querySelector(sel);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

const ui = {
  status: null,        // the last status
  agents: [],          // agent summaries
  selected: null,      // the chosen agent's id
  agent: null,         // its full view
  trees: new Map(),    // tree name or composite key -> {tree, view} (the drawing, built once)
  fetching: new Map(), // tree name or key -> its fetch under way
  shown: null,         // the tree drawing on screen
  filter: '',
  treeOnly: null,      // the tree shown without an agent (#tree=NAME)
  open: new Set(['agent', 'memory', 'state']), // expanded value paths
  zoom: 1,
  es: null,
  lastReason: '',
  lastCursor: null,
  travelTimer: 0,
  dragging: false,
  pending: null,       // a command waiting for the user to confirm discarding steps
  ended: false,
};

// --- talking to the server ---

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  // Relative to the page, so that the view works where a program mounts
  // it (http.StripPrefix on its own server), not only at the root.
  const resp = await fetch(path.startsWith('/') ? '.' + path : path, opts);
  let data = null;
  try { data = await resp.json(); } catch (e) { /* an empty answer */ }
  if (!resp.ok) throw new Error((data && data.error) || `${method} ${path}: ${resp.status}`);
  if (data && data.warning) toast(data.warning, true);
  return data;
}

// act runs a command and reports its error.
async function act(method, path, body) {
  try {
    return await api(method, path, body);
  } catch (e) {
    toast(e.message, true);
    return null;
  }
}

function toast(msg, bad) {
  const t = el('div', 'toast' + (bad ? ' bad' : ''), msg);
  $('#toasts').append(t);
  setTimeout(() => t.remove(), bad ? 7000 : 3500);
}

function connect() {
  if (ui.es) ui.es.close();
  if (ui.ended) return;
  const q = ui.selected ? '?agent=' + encodeURIComponent(ui.selected) : '';
  const es = new EventSource('./api/events' + q);
  ui.es = es;
  es.addEventListener('update', (e) => onUpdate(JSON.parse(e.data)));
  es.addEventListener('end', () => { es.close(); onEnd(); });
  es.onerror = () => {
    if (!ui.ended) setRunState('reconnecting…', '');
  };
}

function onEnd() {
  ui.ended = true;
  setRunState('ended: btrun has exited', 'ended');
  for (const b of document.querySelectorAll('#bar button, #travel button, #right button, #slider')) b.disabled = true;
}

function onUpdate(u) {
  if (ui.status && u.status.reloads !== ui.status.reloads) { // the trees may have changed
    ui.trees.clear();
    ui.shown = null;
  }
  ui.status = u.status;
  if (!u.status.paused || u.status.step === ui.nudgeTo) ui.nudgeTo = null;
  ui.agents = u.agents || [];
  if (!ui.selected && !ui.treeOnly && ui.agents.length) {
    const tree = hashParam('tree');
    if (!tree || !ui.status.trees.includes(tree)) {
      select(pickFromHash() || ui.agents[0].id);
      return;
    }
    showTreeOnly(tree);
  }
  if (u.agent && u.agent.id === ui.selected) ui.agent = u.agent;
  renderStatus();
  renderAgents();
  renderAgent();
  followBreakpoint();
  if (typeof edHook === 'function') edHook('update'); // the editor's drawing shows the agents (graphedit.js)
}

// hashParam reads a link's #agent=ID or #tree=NAME (several join with &).
function hashParam(key) {
  for (const part of location.hash.slice(1).split('&')) {
    const k = part.indexOf('=');
    if (k > 0 && part.slice(0, k) === key) return decodeURIComponent(part.slice(k + 1));
  }
  return null;
}

function pickFromHash() {
  const id = hashParam('agent');
  return id !== null && ui.agents.some((a) => a.id === id) ? id : null;
}

// showTreeOnly shows a tree without an agent (a #tree=NAME link): its rules,
// no state; picking an agent shows that agent.
async function showTreeOnly(name) {
  ui.treeOnly = name;
  ui.selected = null;
  ui.agent = null;
  const entry = await ensureTree(name);
  if (ui.treeOnly !== name) return;
  show(entry.view);
  for (const n of entry.view.nodes) n.classList.remove('path', 'cursor', 'lanecur', 'isrunning');
  $('#treetitle').innerHTML = `<b>${esc(name)}</b> <span class="muted">${esc(entry.tree.file)} · ${entry.tree.rules.length} rules · ${entry.tree.agents.length} agents: pick one to see its state</span>`;
  renderAgents();
  if (typeof projects !== 'undefined') projects.shown(); // projects.js: the list and tabs mark the shown tree
}

async function select(id) {
  if (ui.selected === id && ui.agent) return;
  ui.treeOnly = null;
  ui.selected = id;
  ui.agent = null;
  history.replaceState(null, '', '#agent=' + encodeURIComponent(id));
  const summary = ui.agents.find((a) => a.id === id);
  if (summary) await ensureTree(summary.tree);
  ui.lastCursor = null;
  connect();
  renderAgents();
  if (typeof projects !== 'undefined') projects.shown();
}

// --- status bar and time travel ---

function setRunState(text, cls) {
  const p = $('#runstate');
  p.textContent = text;
  p.className = 'pill ' + cls;
}

function fmtTime(t) { return (Math.round(t * 100) / 100).toFixed(2) + ' s'; }

function renderStatus() {
  const s = ui.status;
  if (!s || ui.ended) return;
  $('#stepno').textContent = `step ${s.step}` + (s.end ? ` / ${s.end}` : '');
  $('#gametime').textContent = 't = ' + fmtTime(s.time);
  const pause = $('#pause');
  pause.textContent = s.paused ? 'Resume' : 'Pause';
  pause.classList.toggle('paused', s.paused);
  pause.disabled = s.paused && s.atEnd;
  $('#step').disabled = s.atEnd;
  const sp = String(s.speed);
  const sel = $('#speed');
  if (![...sel.options].some((o) => o.value === sp)) sel.append(new Option(`${sp}× real time`, sp));
  if (document.activeElement !== sel) sel.value = sp;
  $('#reload').hidden = !s.reload;

  let text = 'running', cls = 'running';
  if (s.paused) {
    const r = s.reason || {};
    cls = 'paused';
    text = {
      start: 'paused before the first step', pause: 'paused', step: 'paused after a step', travel: 'paused',
      end: 'at the last step', reload: 'paused after a reload',
    }[r.kind] || 'paused';
    if (r.kind === 'breakpoint' && r.hits && r.hits.length) {
      const h = r.hits[0];
      cls = 'breakpoint';
      text = `breakpoint: ${h.agent} arrived at ${h.label}` + (r.hits.length > 1 ? ` (+${r.hits.length - 1} more)` : '');
    }
    if (r.kind === 'end') cls = 'ended';
    if (!s.live) { cls = 'past'; text = `showing step ${s.step}, ${s.head - s.step} behind the latest`; }
  } else {
    text = s.speed === 'fast' ? 'running as fast as it can' : `running at ${s.speed}× real time`;
  }
  setRunState(text, cls);
  document.body.classList.toggle('past', !s.live);
  renderTravel();
  if (typeof replay !== 'undefined') replay.render(); // replay.js: the editor's saves on the slider
  renderBreakpoints();
  renderGates();
  renderWorld();
}

// renderGates draws the game's gates: capacity, holders in the order they
// took the gate (their slot), and the agents waiting at a bt.gate.wait.
function renderGates() {
  const gates = ui.status.gates || [];
  const list = $('#gates');
  $('#gates-title').hidden = list.hidden = !gates.length;
  const key = JSON.stringify(gates) + ui.selected;
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(...gates.map((g) => {
    const li = el('li');
    const state = g.holders.length >= g.users ? 'full' : g.coolingLeft > 0 ? 'cooling' : 'open';
    const cap = el('span', 'cap ' + state, `${g.holders.length}/${g.users}` +
      (g.coolingLeft > 0 ? ` · cooling ${g.coolingLeft.toFixed(2)}s` : state === 'full' ? ' · full' : ' · open'));
    li.append(el('span', 'gname', g.name), cap);
    li.title = `gate ${g.name}: ${g.users} ${g.users === 1 ? 'user' : 'users'}, cooldown ${g.cooldown}s; ` +
      `${g.takes} takes, ${g.refusals} refusals, longest hold ${g.longestSteps} steps (${g.longestSeconds}s)`;
    const who = el('div', 'who');
    for (const h of g.holders) {
      const s = el('span', 'holder', `#${h.slot} ${h.agent}`);
      s.title = `${h.agent} holds ${g.name} (slot ${h.slot})`;
      s.onclick = () => select(h.agent);
      who.append(s);
    }
    for (const w of g.waiters) {
      const s = el('span', 'waiter', `⌛ ${w}`);
      s.title = `${w} waits at bt.gate.wait for ${g.name}'s holders`;
      s.onclick = () => select(w);
      who.append(s);
    }
    if (who.childNodes.length) li.append(who);
    return li;
  }));
}

function renderTravel() {
  const s = ui.status;
  const tt = s.timeTravel;
  const slider = $('#slider');
  const oldest = tt.oldest === null ? s.head : tt.oldest;
  slider.min = oldest;
  slider.max = s.head;
  if (!ui.dragging) slider.value = s.step;
  slider.disabled = !s.paused || s.head === oldest;
  $('#travelfrom').textContent = oldest;
  $('#travelto').textContent = s.head;
  $('#live').hidden = s.live;
  const info = $('#travelinfo');
  if (!s.paused) {
    info.textContent = 'pause to go back in time';
  } else if (!s.live) {
    info.innerHTML = `showing step <b>${s.step}</b>; resuming from here discards steps ${s.step + 1}–${s.head}`;
  } else if (tt.oldest === null) {
    info.textContent = 'not available: ' + (tt.error || 'no snapshot');
  } else if (tt.oldest > s.first) {
    info.textContent = `steps before ${tt.oldest} are no longer kept (${mb(tt.bytes)} of ${mb(tt.budget)} used)`;
  } else {
    info.textContent = `drag to show an earlier step (${tt.snapshots} snapshots, ${mb(tt.bytes)})`;
  }
  if (s.paused && tt.btrunOnly) info.append('; travel replays btrun\'s part only (the game gave no BeforeStep or AfterStep: its own between-step code is not replayed)');
  if (tt.error) info.title = 'a snapshot failed: ' + tt.error;
}

function mb(n) { return n < 1 << 20 ? Math.max(1, Math.round(n / 1024)) + ' kB' : (n / (1 << 20)).toFixed(1) + ' MB'; }

function travelTo(step) {
  clearTimeout(ui.travelTimer);
  ui.travelTimer = setTimeout(async () => {
    if (!ui.status || step === ui.status.step) return;
    await act('POST', '/api/travel', { step });
  }, 60);
}

// confirmDiscard runs fn at once when the game shows its latest step, else
// after the user agreed to discard the later steps.
function confirmDiscard(what, fn) {
  const s = ui.status;
  if (!s || s.live) { fn(); return; }
  const trace = s.trace === 'file' ? ' The trace file is cut back to this step.' :
    s.trace === 'stdout' ? ' The trace on standard output keeps their lines.' : '';
  $('#confirmtext').textContent = `${what} from step ${s.step} discards steps ${s.step + 1}–${s.head}.${trace}`;
  $('#confirmyes').textContent = `Discard and ${what.toLowerCase()}`;
  ui.pending = fn;
  $('#confirm').hidden = false;
}

// --- agents ---

// renderAgents updates the agent list in place (rows are kept by id, so
// that ten updates a second do not rebuild it).
function renderAgents() {
  const list = $('#agents');
  const f = ui.filter;
  ui.rows = ui.rows || new Map();
  let shown = 0;
  let prev = null;
  for (const a of ui.agents) {
    let li = ui.rows.get(a.id);
    if (!li) {
      li = el('li');
      li.dataset.id = a.id;
      li.setAttribute('role', 'option');
      li.append(el('span', 'dot'), el('span', 'id', a.id), el('span', 'tree', a.tree), el('span', 'rule'));
      ui.rows.set(a.id, li);
    }
    const shard = a.shard === undefined ? '' : ` shard ${a.shard}`; // a cluster's agent
    const match = !f || (a.id + ' ' + a.tree + ' ' + a.rule + ' ' + a.state + shard).toLowerCase().includes(f);
    li.hidden = !match;
    if (match) shown++;
    const cls = 's-' + a.state + (a.id === ui.selected ? ' selected' : '');
    if (li.className !== cls) li.className = cls;
    const rule = li.lastChild;
    if (rule.textContent !== a.rule) rule.textContent = a.rule;
    const title = `${a.id}${shard}: ${a.state}` + (a.failures ? `, ${a.failures} failures` : '') + (a.errors ? `, ${a.errors} errors` : '');
    if (li.title !== title) li.title = title;
    if ((prev ? prev.nextSibling : list.firstChild) !== li) list.insertBefore(li, prev ? prev.nextSibling : list.firstChild);
    prev = li;
  }
  let empty = $('#agents .empty');
  if (!shown) {
    if (!empty) { empty = el('li', 'empty'); list.append(empty); }
    empty.textContent = ui.agents.length ? 'No agent matches.' : 'No agents.';
  } else if (empty) {
    empty.remove();
  }
}

function renderBreakpoints() {
  const s = ui.status;
  const list = $('#bps');
  const hits = new Set(((s.paused && s.reason && s.reason.hits) || []).map((h) => h.breakpoint));
  if (!s.breakpoints.length) {
    list.replaceChildren(el('li', 'empty', "Click the dot at a rule's right to stop when any agent arrives there; right-click a rule for more."));
  } else {
    list.replaceChildren(...s.breakpoints.map((bp) => {
      const li = el('li', hits.has(bp.id) ? 'hit' : '');
      li.append(el('span', 'bpdot' + (bp.agent ? ' one' : '')), el('span', 'lbl', bp.label),
        el('span', 'who', bp.agent || 'any ' + bp.tree));
      const del = el('button', '', '×');
      del.title = 'Remove this breakpoint';
      del.onclick = () => act('DELETE', '/api/breakpoints/' + bp.id);
      li.append(del);
      li.title = `${bp.label} in ${bp.tree}, ${bp.agent ? 'agent ' + bp.agent : 'any agent'}`;
      return li;
    }));
  }
  if (ui.shown) paintBreakpoints(ui.shown);
}

function renderWorld() {
  const w = ui.status.world || [];
  const list = $('#world');
  if (!w.length) { list.replaceChildren(el('li', 'empty', 'No world log lines yet.')); return; }
  list.replaceChildren(...w.slice(-30).reverse().map((e) => {
    const li = el('li', 'ev-log');
    li.append(el('span', 'when', 't=' + e.time), el('span', 'text', e.text));
    li.title = `step ${e.step}`;
    return li;
  }));
}

// followBreakpoint shows the agent a breakpoint stopped, once per stop.
function followBreakpoint() {
  const s = ui.status;
  const r = s && s.paused && s.reason;
  const key = r && r.kind === 'breakpoint' && r.hits ? JSON.stringify(r.hits) + s.step : '';
  if (!key || key === ui.lastReason) { if (!key) ui.lastReason = ''; return; }
  ui.lastReason = key;
  const h = r.hits[0];
  const flash = () => {
    const v = ui.shown;
    const node = v && v.nodes[h.rule];
    if (!node) return;
    node.classList.remove('flash');
    void node.offsetWidth;
    node.classList.add('flash');
    scrollToNode(h.rule);
  };
  if (h.agent !== ui.selected) {
    select(h.agent).then(() => setTimeout(flash, 300));
  } else {
    flash();
  }
}

// --- the tree drawing ---

const W = 216, H = 72, GX = 40, GY = 14;

// ensureTree fetches and draws a tree once: a tree of the game by its name,
// or the tree an agent runs by its key (an agent whose slots hold trees
// runs a composite, "grunt[use=gun]": its tree with those trees grafted).
async function ensureTree(name) {
  if (ui.trees.has(name)) return ui.trees.get(name);
  if (!ui.fetching.has(name)) {
    ui.fetching.set(name, api('GET', '/api/trees/' + encodeURIComponent(name)).then((tree) => {
      ui.trees.set(name, { tree, view: drawTree(tree) });
    }).finally(() => ui.fetching.delete(name)));
  }
  await ui.fetching.get(name);
  return ui.trees.get(name);
}

function layout(tree) {
  const pos = new Array(tree.rules.length);
  let row = 0, depth = 0;
  const place = (i) => {
    const r = tree.rules[i];
    depth = Math.max(depth, r.depth);
    let y;
    if (!r.children.length) {
      y = row * (H + GY);
      row++;
    } else {
      const ys = r.children.map(place);
      y = (ys[0] + ys[ys.length - 1]) / 2;
    }
    pos[i] = { x: r.depth * (W + GX), y };
    return y;
  };
  place(0);
  return { pos, width: (depth + 1) * (W + GX) - GX, height: row * (H + GY) - GY };
}

const KIND = { sequence: 'SEQ', choice: 'CHOICE', action: 'ACTION', success: 'SUCCESS', failure: 'FAILURE', running: 'RUNNING', yield: 'YIELD', parallel: 'PARALLEL', slot: 'SLOT' };

// titleOf writes a rule's name: its id, shown relative to its parent's
// (".chase" under grunt.attack, as a tree file writes it), or its tag and
// position when it has none.
function titleOf(r, parent, out) {
  if (r.id) {
    if (parent && parent.id && r.id.startsWith(parent.id + '.')) {
      out.append(el('span', 'pre', '.'), el('b', '', r.id.slice(parent.id.length + 1)));
      return;
    }
    const k = r.id.lastIndexOf('.');
    if (k > 0) out.append(el('span', 'pre', r.id.slice(0, k + 1)));
    out.append(el('b', '', r.id.slice(k + 1)));
  } else {
    out.append(el('b', '', r.action || r.tag), el('span', 'pre', ' @' + r.pos.split('/').pop()));
  }
}

function subtitle(r) {
  const parts = [];
  if (r.kind === 'action') parts.push(`<code>${esc(r.action)}</code>`);
  else if (r.kind === 'custom') parts.push(esc(r.tag)); // a rule registered from Go: its tag says which
  else parts.push(r.kind);
  if (r.attrs.loop) parts.push('loop');
  if (r.subtree) parts.push('subtree ' + esc(r.subtree));
  if (r.conditions.length) {
    const mode = { allTrue: ' and ', anyTrue: ' or ', anyFalse: ' or ', allFalse: ' and ' }[r.conditionMode] || ' and ';
    const neg = r.conditionMode === 'anyFalse' || r.conditionMode === 'allFalse';
    const cs = r.conditions.map((c) => ((c.negate !== neg) ? '!' : '') + c.name);
    parts.push('if ' + esc(cs.join(mode)));
  }
  return parts.join(' · ');
}

function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c])); }

function drawTree(tree) {
  const L = layout(tree);
  const root = el('div');
  root.style.width = L.width + 'px';
  root.style.height = L.height + 'px';
  root.style.position = 'relative';
  const svgNS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(svgNS, 'svg');
  svg.setAttribute('width', L.width);
  svg.setAttribute('height', L.height);
  root.append(svg);
  const nodes = [], edges = [], bps = [], res = [], chips = [], ords = [];
  drawGraftBands(tree, L, root);
  tree.rules.forEach((r, i) => {
    const p = L.pos[i];
    if (!p) return; // a tree a slot gave up during the step: nothing reaches it
    if (r.parent >= 0) {
      const q = L.pos[r.parent];
      const x1 = q.x + W, y1 = q.y + H / 2, x2 = p.x, y2 = p.y + H / 2;
      const path = document.createElementNS(svgNS, 'path');
      path.setAttribute('d', `M${x1} ${y1} C${x1 + GX / 2} ${y1}, ${x2 - GX / 2} ${y2}, ${x2} ${y2}`);
      path.setAttribute('class', 'edge');
      svg.append(path);
      edges[i] = path;
    }
    const n = el('div', 'node k-' + r.kind + (r.graft ? ' grafted' : ''));
    n.style.left = p.x + 'px';
    n.style.top = p.y + 'px';
    n.dataset.rule = i;
    n.title = `${r.label}\n${r.pos}` + (r.params.length ? '\n' + r.params.map(([k, v]) => `${k} = ${v}`).join('\n') : '');
    n.append(el('span', 'kind', KIND[r.kind] || r.kind.toUpperCase()));
    const l1 = el('div', 'l1');
    const title = el('span', 'title');
    titleOf(r, tree.rules[r.parent], title);
    const ord = el('span', 'ord');
    const result = el('span', 'res', '–');
    l1.append(ord, title, result);
    const l2 = el('div', 'l2');
    l2.innerHTML = subtitle(r);
    const l3 = el('div', 'l3');
    const bp = el('span', 'bp');
    bp.title = 'Breakpoint: stop when any agent arrives here (right-click the rule for one agent)';
    n.append(l1, l2, l3, bp);
    root.append(n);
    nodes[i] = n; bps[i] = bp; res[i] = result; chips[i] = l3; ords[i] = ord;
  });
  return { tree, root, nodes, edges, bps, res, chips, ords, layout: L };
}

// drawGraftBands draws, behind the rules of each tree grafted into a slot,
// a dashed band naming the slot and the tree.
function drawGraftBands(tree, L, root) {
  const blocks = new Map(); // slot -> {tree, x0, y0, x1, y1}
  tree.rules.forEach((r, i) => {
    const p = L.pos[i];
    if (!r.graft || !p) return;
    const b = blocks.get(r.graft.slot) || { tree: r.graft.tree, x0: p.x, y0: p.y, x1: p.x, y1: p.y };
    b.x0 = Math.min(b.x0, p.x); b.y0 = Math.min(b.y0, p.y);
    b.x1 = Math.max(b.x1, p.x + W); b.y1 = Math.max(b.y1, p.y + H);
    blocks.set(r.graft.slot, b);
  });
  for (const [slot, b] of blocks) {
    const band = el('div', 'graftband');
    band.dataset.slot = slot;
    Object.assign(band.style, { left: b.x0 - 26 + 'px', top: b.y0 - 6 + 'px', width: b.x1 - b.x0 + 32 + 'px', height: b.y1 - b.y0 + 12 + 'px' });
    band.title = `the tree ${b.tree}, grafted into slot ${slot} for this agent`;
    band.append(el('span', 'tag', `grafted: ${b.tree}`));
    root.append(band);
  }
}

// slotChip says what a slot runs: the tree grafted into it for the agent
// (its default, or another), else its default (taken when it is entered).
function slotChip(r) {
  if (r.kind !== 'slot') return null;
  if (r.attrs.holds) return [`grafted ${r.attrs.holds}` + (r.attrs.holds === r.attrs.default ? ' (default)' : ''), 'graft'];
  return [r.attrs.default ? `default ${r.attrs.default}` : 'empty: fails', ''];
}
function staticChips(r) {
  const out = [];
  if (r.attrs.gate) out.push(['gate ' + r.attrs.gate, 'gate']);
  if (r.kind === 'parallel') out.push([`success ${r.attrs.success} · failure ${r.attrs.failure}`, '']);
  if (r.attrs.abort) out.push(['abort ' + r.attrs.abort, '']);
  if (r.attrs.timeout) out.push(['timeout ' + r.attrs.timeout + 's', '']);
  if (r.attrs.cooldown) out.push(['cooldown ' + r.attrs.cooldown + 's', '']);
  if (r.attrs.order) out.push(['order ' + r.attrs.order, '']);
  if (r.attrs.doNotFail) out.push(['doNotFail', '']);
  if (r.state) out.push([`state ${r.state.name}` + (r.state.transitions.length ? ': ' + r.state.transitions.join(', ') : ''), 'state']);
  const slot = slotChip(r);
  if (slot) out.push(slot);
  for (const [k, v] of Object.entries(r.attrs)) {
    if (!['abort', 'timeout', 'cooldown', 'order', 'doNotFail', 'loop', 'gate', 'success', 'failure', 'default', 'holds'].includes(k)) out.push([`${k} ${v}`, '']);
  }
  return out;
}

function show(view) {
  if (ui.shown === view) return;
  ui.shown = view;
  $('#canvas').replaceChildren(view.root);
  ui.zoom = view.zoom || 1;
  applyZoom();
  fitPending();
  paintBreakpoints(view);
}

// fitPending fits the shown tree to the view the first time the view has
// a size: a tree drawn while the editor hides the view (a save applies
// the new tree) is fitted when the editor closes, not shrunk to nothing.
function fitPending() {
  const v = ui.shown;
  if (!v || v.fitted || !$('#canvaswrap').clientWidth) return;
  v.fitted = true;
  v.zoom = ui.zoom = fitZoom(v);
  applyZoom();
}

// ruleOfBreakpoint is the rule of the drawing a breakpoint is on: by index
// for its tree's own rules, by slot and label for a grafted tree's (their
// indices are the composite's); -1 none.
function ruleOfBreakpoint(view, bp) {
  if (bp.tree !== view.tree.template) return -1;
  if (bp.rule >= 0) return bp.rule;
  return view.tree.rules.findIndex((r) => r.graft && r.graft.slot === bp.slot && r.label === bp.label);
}

// breakpointRule is what a breakpoint request names a rule of the drawing
// by: its index, or a grafted tree's rule by its label.
function breakpointRule(view, i) {
  const r = view.tree.rules[i];
  return r.graft ? r.label : i;
}

function paintBreakpoints(view) {
  const s = ui.status;
  if (!s) return;
  view.bps.forEach((b) => { b.className = 'bp'; });
  for (const bp of s.breakpoints) {
    const b = view.bps[ruleOfBreakpoint(view, bp)];
    if (!b) continue;
    if (!bp.agent) b.className = 'bp on';
    else if (bp.agent === ui.selected && !b.classList.contains('on')) b.className = 'bp one';
  }
}

function paintTree(view, a) {
  const rules = view.tree.rules;
  const path = new Set();
  for (const c of a.cursors) for (const r of c.path) path.add(r);
  const cursors = new Set(a.cursors.map((c) => c.rule));
  const laneCursors = new Set(a.cursors.filter((c) => c.lane).map((c) => c.rule));
  const lanes = new Map(); // lane child -> its lane's state
  const pars = new Map();  // parallel -> its view
  for (const p of a.parallels || []) {
    pars.set(p.rule, p);
    for (const l of p.lanes) lanes.set(l.child, l);
  }
  const held = new Map(); // rule label -> [gate, slot]
  for (const g of a.gates || []) for (const label of g.rules) held.set(label, [g.name, g.slot]);
  const results = new Map(a.results.map((r) => [r.rule, r]));
  const clocks = new Map(a.clocks.map((c) => [c.rule, c]));
  const cools = new Map(a.cooldowns.map((c) => [c.rule, c]));
  const counts = new Map((a.counts || []).map((c) => [c.rule, c]));
  const machines = new Map(); // a machine, and its current state's rule -> the state
  for (const m of a.machines || []) { machines.set(m.rule, m); machines.set(m.stateRule, m); }
  const order = new Map();
  for (const o of a.orders) o.order.forEach((r, k) => order.set(r, k + 1));
  const q = ui.filter;
  rules.forEach((r, i) => {
    const n = view.nodes[i];
    if (!n) return; // not drawn: nothing reaches it
    n.classList.toggle('path', path.has(i) && !cursors.has(i));
    n.classList.toggle('cursor', cursors.has(i));
    n.classList.toggle('lanecur', laneCursors.has(i));
    n.classList.toggle('isrunning', cursors.has(i) && a.state === 'running');
    n.classList.toggle('match', !!q && (r.label.toLowerCase().includes(q) || (r.action || '').toLowerCase().includes(q)));
    if (view.edges[i]) view.edges[i].setAttribute('class', path.has(i) ? 'edge path' : 'edge');
    const res = results.get(i);
    const rs = view.res[i];
    if (res) {
      rs.textContent = `${res.result} · ${res.step}`;
      rs.className = 'res r-' + res.result + (res.step < a.step - 1 ? ' old' : '');
      rs.title = `last result: ${res.result} at step ${res.step} (t = ${fmtTime(res.time)})`;
    } else {
      rs.textContent = '–';
      rs.className = 'res';
      rs.title = 'has not run yet';
    }
    view.ords[i].textContent = order.has(i) ? '#' + order.get(i) : '';
    view.ords[i].title = order.has(i) ? `tried ${order.get(i)}${['st', 'nd', 'rd'][order.get(i) - 1] || 'th'} in its choice's current order` : '';
    const chips = staticChips(r);
    const clock = clocks.get(i);
    if (clock) chips.unshift([`⏱ ${clock.left.toFixed(2)}s left`, 'live']);
    const mach = machines.get(i);
    if (mach) chips.unshift([mach.rule === i ? `in state ${mach.state}` : `● current state`, 'live']);
    n.classList.toggle('curstate', !!mach && mach.stateRule === i);
    const cnt = counts.get(i);
    if (cnt && cnt.repeat) chips.unshift([`pass ${cnt.passes + 1}/${cnt.repeat}`, 'live']);
    if (cnt && cnt.attempts) chips.unshift([`attempt ${cnt.failures + 1}/${cnt.attempts}`, 'live']);
    const cool = cools.get(i);
    if (cool && cool.remaining > 0) chips.unshift([`cooling ${cool.remaining.toFixed(2)}s`, 'cool']);
    if (a.interrupt && a.interrupt.rule === i && a.interrupt.step === a.step) chips.unshift([`⚡ ${a.interrupt.kind}`, 'intr']);
    const lane = lanes.get(i);
    if (lane) chips.unshift([`lane ${lane.status}`, 'lane-' + lane.status]);
    const par = pars.get(i);
    if (par) chips.unshift([`✓ ${par.succeeded}/${par.success} · ✗ ${par.failed}/${par.failure}`, par.active ? 'live' : '']);
    const h = held.get(r.label);
    if (h) chips.unshift([`holds ${h[0]} #${h[1]}`, 'held']);
    const key = JSON.stringify(chips);
    if (view.chips[i].dataset.key !== key) {
      view.chips[i].dataset.key = key;
      view.chips[i].replaceChildren(...chips.map(([t, c]) => el('span', 'chip ' + c, t)));
    }
  });
  paintBreakpoints(view);
  const cur = a.cursors[0] && a.cursors[0].rule;
  if ($('#follow').checked && cur !== ui.lastCursor) {
    ui.lastCursor = cur;
    scrollToNode(cur);
  }
}

function scrollToNode(i) {
  const v = ui.shown;
  if (!v || i === undefined || !v.layout.pos[i]) return;
  const wrap = $('#canvaswrap');
  const p = v.layout.pos[i];
  const x = (p.x + W / 2) * ui.zoom + 24, y = (p.y + H / 2) * ui.zoom + 24;
  const inView = x > wrap.scrollLeft + 40 && x < wrap.scrollLeft + wrap.clientWidth - 40 &&
    y > wrap.scrollTop + 40 && y < wrap.scrollTop + wrap.clientHeight - 40;
  if (!inView) wrap.scrollTo({ left: x - wrap.clientWidth / 2, top: y - wrap.clientHeight / 2, behavior: 'smooth' });
}

function applyZoom() {
  if (ui.shown) ui.shown.zoom = ui.zoom;
  const c = $('#canvas');
  c.style.transform = `scale(${ui.zoom})`;
  const v = ui.shown;
  if (v) {
    c.style.width = v.layout.width + 'px';
    c.style.height = v.layout.height + 'px';
    c.style.marginRight = (24 + v.layout.width * (ui.zoom - 1)) + 'px';
    c.style.marginBottom = (24 + v.layout.height * (ui.zoom - 1)) + 'px';
  }
}

// fitZoom is the zoom at which a tree fits the view: always its whole
// width (a deep tree, a parallel's lanes), and its whole height unless that
// would shrink it below a third (a tall tree then scrolls down); never
// bigger than full size.
function fitZoom(v) {
  const wrap = $('#canvaswrap');
  const w = (wrap.clientWidth - 48) / v.layout.width, h = (wrap.clientHeight - 48) / v.layout.height;
  return Math.max(0.05, Math.min(1, w, Math.max(h, 1 / 3)));
}

function zoomFit() {
  const v = ui.shown;
  if (!v) return;
  ui.zoom = fitZoom(v);
  applyZoom();
}

// --- the chosen agent ---

function renderAgent() {
  const a = ui.agent;
  if (!a) return;
  const key = a.treeKey || a.tree;
  const entry = ui.trees.get(key);
  if (!entry) { ensureTree(key).then(renderAgent, (e) => toast(e.message, true)); return; }
  show(entry.view);
  paintTree(entry.view, a);
  const grafts = (a.slots || []).filter((s) => s.holds).map((s) => `slot ${esc(s.slot)} ← ${esc(s.holds)}`);
  const drawn = entry.tree.rules.filter((r) => !r.dead).length;
  $('#treetitle').innerHTML = `<b>${esc(a.tree)}</b> <span class="muted">${esc(entry.tree.file)} · ${drawn} rules` +
    (grafts.length ? ' · <span class="grafts">' + grafts.join(', ') + '</span>' : '') + ` · agent</span> <b>${esc(a.id)}</b>`;

  const card = $('#agentcard');
  card.replaceChildren();
  const h = el('h2');
  h.append(el('span', 'dot s-' + a.state), el('span', '', a.id), el('span', 'statebadge s-' + a.state, a.state));
  h.firstChild.style.cssText = 'width:10px;height:10px;border-radius:50%;display:inline-block';
  card.append(h, el('div', 'sub', `tree ${a.tree}` + (a.shard === undefined ? '' : ` · shard ${a.shard}`) + ` · step ${a.step} · t = ${fmtTime(a.time)}` + (a.firstRun ? ' · first run next' : '')));
  const rule = el('div', 'rule');
  rule.textContent = a.cursors.map((c) => c.label).join(', ');
  rule.title = 'current rule' + (a.cursors.length > 1 ? 's (one per lane)' : '');
  card.append(rule);
  const counts = el('div', 'counts');
  counts.append(el('span', '', `${a.failures} ${a.failures === 1 ? 'failure' : 'failures'}`), el('span', '', `${a.errors} ${a.errors === 1 ? 'error' : 'errors'}`));
  card.append(counts);
  if (a.interrupt) card.append(el('div', 'intr', `⚡ last interrupt: ${a.interrupt.kind} of ${a.interrupt.label} at step ${a.interrupt.step}`));
  if (a.error) card.append(el('div', 'err', a.error));
  for (const s of a.slots || []) card.append(el('div', 'slotline', slotText(s)));

  renderKV($('#vars'), a.vars.map((v) => [v.name, varCell(a.id, v)]), 'No variables declared.');
  renderKV($('#stamps'), a.stamps.map((s) => [s.name, s.set ? `set at ${fmtTime(s.time)} (${fmtTime(s.since)} ago)` : 'unset']), 'No timestamps declared.');
  renderStimuli(a);
  renderWhy(a);
  const rules = entry.tree.rules;
  const timers = [];
  for (const c of a.clocks) timers.push([c.label, `timeout ${c.timeout}s: active since ${fmtTime(c.since)}, ${c.left.toFixed(2)} s left`]);
  for (const c of a.cooldowns) timers.push([c.label, c.remaining > 0 ? `cooling down: ${c.remaining.toFixed(2)} s left` : `left at ${fmtTime(c.leftAt)}, ready`]);
  for (const o of a.orders) timers.push([o.label, 'order: ' + o.order.map((r) => shortName(rules[r])).join(' → ')]);
  for (const c of a.counts || []) {
    const parts = [];
    if (c.repeat) parts.push(`pass ${c.passes + 1} of ${c.repeat} (${c.passes} succeeded)`);
    if (c.attempts) parts.push(`attempt ${c.failures + 1} of ${c.attempts} (${c.failures} failed)`);
    if (c.started) parts.push(c.exit ? `started: its exit hook ${c.exit} will run when it is left` : 'started (its enter hook ran; it has no exit hook)');
    timers.push([c.label, parts.join('; ')]);
  }
  renderKV($('#timers'), timers, 'No timeouts running, cooldowns, choice orders or counts.');
  renderLanes(a);
  renderHeld(a);
  renderSignalsAndJumps(a, entry.tree);
  renderCtx(a);
  renderExtra(a);
  renderEvents(a);
}

// slotText says what a slot of the agent runs, and what a graft wants it to
// take at its next entry.
function slotText(s) {
  let t = `slot ${s.slot}: ` + (!s.holds ? 'holds no tree' : s.holds === s.default ? `runs its default, ${s.holds}` : `grafted ${s.holds}`);
  if (s.next !== s.holds) t += ` · takes ${!s.next ? 'no tree' : s.next === s.default ? 'its default, ' + s.next : s.next} at its next entry`;
  return t;
}

// renderLanes draws the parallels the agent entered: active or how their
// last run ended, their thresholds, and each lane (its cursor while it
// runs; success, failure, or cancelled when its parallel ended first).
function renderLanes(a) {
  const box = $('#lanes');
  const ps = a.parallels || [];
  $('#lanes-card').hidden = !ps.length;
  const key = JSON.stringify(ps);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren(...ps.map((p) => {
    const d = el('div', 'par');
    const head = el('div', 'head');
    const state = p.active ? 'active' : p.result ? `${p.result.result} at step ${p.result.step}` : 'not active';
    head.append(el('b', '', p.label), el('span', 'lanest ' + (p.active ? 'running' : p.result ? p.result.result : ''), state),
      el('span', 'muted', `success ${p.succeeded}/${p.success} (${p.successAt}) · failure ${p.failed}/${p.failure} (${p.failureAt})`));
    d.append(head);
    for (const l of p.lanes) {
      const row = el('div', 'lanerow');
      const at = el('span', 'at', l.status === 'running' && l.cursor !== l.child ? `${l.label} → ${l.cursorLabel}` : l.label);
      at.title = l.status === 'running' ? `lane of ${l.label}, at ${l.cursorLabel}` : `lane of ${l.label}: ${l.status}`;
      row.append(at, el('span', 'lanest ' + l.status, l.status));
      d.append(row);
    }
    return d;
  }));
}

// renderHeld lists the gates the agent holds, its slot among each gate's
// holders, and the rules that hold it.
function renderHeld(a) {
  const gs = a.gates || [];
  $('#held-card').hidden = !gs.length && !(ui.status && ui.status.gates && ui.status.gates.length);
  renderKV($('#held'), gs.map((g) => [g.name, `#${g.slot} · ` + g.rules.map((l) => l.slice(l.lastIndexOf('.') + 1)).join(', ')]), 'Holds no gate.');
}

// renderWhy lists, for each rule of the agent that has one, why it last
// passed, failed or was refused, or how its choice ordered its children,
// with the step ("grunt-1 · fight at step 31: Alarm was false").
function renderWhy(a) {
  const box = $('#why');
  const ws = a.why || [];
  const key = JSON.stringify(ws);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  if (!ws.length) { box.replaceChildren(el('div', 'empty', 'Nothing decided yet.')); return; }
  box.replaceChildren(...ws.map((w) => {
    const d = el('div', 'why');
    d.append(el('b', '', `${a.id} · ${w.label}`), el('span', 'muted', ` at step ${w.step}: `), el('span', '', w.text));
    return d;
  }));
}

// renderStimuli lists the stimuli the agent holds: each signal with its
// age (and, for a signal declared with expires, how long it is still
// held), and below it the data it carried, on one line (dataText).
function renderStimuli(a) {
  const box = $('#stimuli');
  const ss = a.stimuli || [];
  const key = JSON.stringify(ss);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  if (!ss.length) { box.replaceChildren(el('div', 'empty', 'Holds no stimulus: no signal received, or all forgotten or expired.')); return; }
  box.replaceChildren(...ss.map((s) => {
    const d = el('div', 'stim');
    const head = el('div', 'head');
    let when = `${fmtTime(s.age)} ago`;
    if (s.left !== undefined) when += ` · expires in ${fmtTime(s.left)}`;
    head.append(el('b', '', s.signal), el('span', 'muted', when));
    let data = s.data === null ? '(no data)' : dataText(s.data);
    if (data.length > 300) data = data.slice(0, 300) + '…';
    d.append(head, el('div', 'data', data));
    return d;
  }));
}

// dataText writes stimulus data (luabind.Inspect's shapes, cut by the
// server) on one line as the trace writes data: a table whose keys are 1
// to n a list, any other an object; what was cut says so.
function dataText(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (v.string !== undefined) return JSON.stringify(v.string) + ` … (${v.length} bytes)`;
  if (!v.table) return JSON.stringify(v);
  const list = v.table.every(([k], i) => k === i + 1);
  const parts = v.table.map(([k, x]) => (list ? '' : JSON.stringify(String(k)) + ':') + dataText(x));
  if (v.more) parts.push(`… ${v.more} more`);
  return list ? '[' + parts.join(',') + ']' : '{' + parts.join(',') + '}';
}

function shortName(r) {
  if (!r) return '?';
  if (r.id) return r.id.slice(r.id.lastIndexOf('.') + 1);
  return r.label;
}

// varCell shows a variable's value (its type in the tooltip) with a button
// that sets it between steps: a boolean flips, other types ask for a value
// (a vector as x,y,z).
function varCell(id, v) {
  const type = v.type || 'boolean';
  const box = el('span', 'varcell');
  let shown;
  if (type === 'boolean') shown = boolPill(v.value);
  else if (type === 'vector') shown = el('span', 'num', `${v.value.x}, ${v.value.y}, ${v.value.z}`);
  else if (type === 'string') shown = el('span', 'str', JSON.stringify(v.value));
  else shown = el('span', 'num', String(v.value));
  shown.title = `${v.name}: ${type}`;
  const edit = el('button', 'edit', '✎');
  edit.title = `set ${v.name} (${type}) now`;
  edit.onclick = () => {
    let value;
    if (type === 'boolean') value = !v.value;
    else {
      const was = type === 'vector' ? `${v.value.x},${v.value.y},${v.value.z}` : String(v.value);
      const text = prompt(`New value of ${v.name} (${type}${type === 'vector' ? ': x,y,z' : ''})`, was);
      if (text === null) return;
      if (type === 'string') value = text;
      else if (type === 'number') value = Number(text.trim());
      else {
        const p = text.split(',').map((x) => Number(x.trim()));
        if (p.length !== 3) { toast('A vector is x,y,z', true); return; }
        value = { x: p[0], y: p[1], z: p[2] };
      }
      if (type !== 'string' && [].concat(type === 'vector' ? [value.x, value.y, value.z] : [value]).some((x) => !Number.isFinite(x))) {
        toast(`${text} is not a finite number`, true); return;
      }
    }
    confirmDiscard('Set the variable', async () => {
      if (await act('POST', `/api/agents/${encodeURIComponent(id)}/var`, { name: v.name, value })) toast(`${v.name} set on ${id}`);
    });
  };
  box.append(shown, ' ', edit);
  return box;
}

function boolPill(v) {
  const s = el('span', 'bool ' + (v ? 't' : 'f'), v ? 'true' : 'false');
  return s;
}

function renderKV(box, rows, empty) {
  const key = JSON.stringify(rows.map(([k, v]) => [k, typeof v === 'string' ? v : v.textContent]));
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  if (!rows.length) { box.replaceChildren(el('div', 'empty', empty)); return; }
  const g = el('div', 'kv');
  for (const [k, v] of rows) {
    const kk = el('span', 'k', k);
    kk.title = k;
    const vv = el('span', 'v');
    if (typeof v === 'string') vv.textContent = v; else vv.append(v);
    g.append(kk, vv);
  }
  box.replaceChildren(g);
}

function renderSignalsAndJumps(a, tree) {
  const dl = $('#signallist');
  const names = tree.signals.map((s) => s.name);
  if (dl.dataset.tree !== tree.name) {
    dl.dataset.tree = tree.name;
    dl.replaceChildren(...names.map((n) => new Option(n)));
    const sel = $('#jumpto');
    sel.replaceChildren(...tree.rules.filter((r) => r.id && !r.dead).map((r) => new Option(r.id, r.id)));
  }
  const stopped = a.state === 'stopped';
  $('#signalform button').disabled = stopped;
  $('#jumpform button').disabled = stopped;
}

// renderValue draws a value of luabind.Inspect's shapes; tables are
// expandable and remember whether they are open.
function renderValue(v, path) {
  if (v === null) return el('span', 'nil', 'nil');
  switch (typeof v) {
    case 'boolean': return el('span', 'boolv', String(v));
    case 'number': return el('span', 'num', String(+v.toPrecision(12)));
    case 'string': return el('span', 'str', v);
  }
  if (v.number) return el('span', 'num', v.number);
  if (v.string !== undefined) {
    const s = el('span');
    s.append(el('span', 'str', v.string), el('span', 'count', ` … (${v.length} bytes)`));
    return s;
  }
  if (v.cycle) return el('span', 'other', '(the table itself, again)');
  if (v.lua) return el('span', 'other', v.lua);
  if (!v.table) return el('span', 'other', JSON.stringify(v));
  const n = v.table.length + (v.more || 0);
  if (!n) return el('span', 'count', '{}');
  const d = el('details');
  d.open = ui.open.has(path);
  d.ontoggle = () => { if (d.open) ui.open.add(path); else ui.open.delete(path); };
  const sum = el('summary');
  sum.append(el('span', 'count', `{${n} ${n === 1 ? 'entry' : 'entries'}}`));
  d.append(sum);
  for (const [k, val] of v.table) {
    const row = el('div', 'ent');
    const ks = typeof k === 'string' ? k : `[${typeof k === 'object' ? JSON.stringify(k) : k}]`;
    row.append(el('span', 'key', ks), document.createTextNode(' = '));
    const child = renderValue(val, path + '.' + ks);
    if (child.tagName === 'DETAILS') {
      const holder = el('div');
      child.querySelector('summary').prepend(el('span', 'key', ks), document.createTextNode(' = '));
      holder.append(child);
      d.append(holder);
      continue;
    }
    row.append(child);
    d.append(row);
  }
  if (v.more) d.append(el('div', 'ent count', `… ${v.more} more not shown`));
  return d;
}

function renderCtx(a) {
  const box = $('#ctx');
  const key = JSON.stringify(a.ctx);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const parts = [];
  if (a.ctx.agent === null && a.ctx.memory === null) {
    box.replaceChildren(el('div', 'empty', 'This game has no Lua scripts.'));
    return;
  }
  for (const name of ['agent', 'memory', 'state']) {
    const v = a.ctx[name];
    const wrap = el('div', 'val valroot');
    if (v === null && name === 'state') {
      wrap.append(el('span', 'key', 'ctx.state'), el('span', 'other', ' (no Lua call at this rule yet)'));
    } else if (v && v.table) {
      const d = renderValue(v, name);
      if (d.tagName === 'DETAILS') d.querySelector('summary').prepend(el('span', 'key', 'ctx.' + name + ' '));
      else wrap.append(el('span', 'key', 'ctx.' + name + ' '));
      wrap.append(d);
    } else {
      wrap.append(el('span', 'key', 'ctx.' + name + ' = '), renderValue(v, name));
    }
    parts.push(wrap);
  }
  box.replaceChildren(...parts);
}

function renderExtra(a) {
  const card = $('#extra-card');
  const entries = Object.entries(a.extra || {});
  card.hidden = !entries.length;
  const box = $('#extra');
  const key = JSON.stringify(a.extra);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren(...entries.map(([k, v]) => {
    const wrap = el('div', 'val valroot');
    wrap.append(el('span', 'key', k + ' = '), renderPlain(v, 'extra.' + k));
    return wrap;
  }));
}

// renderPlain draws plain JSON (the "extra" section's values).
function renderPlain(v, path) {
  if (v === null || typeof v !== 'object') return renderValue(v, path);
  if (v.table || v.lua || v.cycle || v.number || v.string !== undefined) return renderValue(v, path);
  const entries = Array.isArray(v) ? v.map((x, i) => [i + 1, x]) : Object.entries(v);
  return renderValue({ table: entries }, path);
}

function renderEvents(a) {
  const list = $('#events');
  const key = a.step + ':' + a.events.length + ':' + (a.events.length ? a.events[a.events.length - 1].text : '');
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  const rows = a.events.slice().reverse().map((e) => {
    const li = el('li', 'ev-' + e.kind);
    const text = e.kind === 'finished' ? (e.text === 'success' ? 'the tree succeeded' : 'the tree failed') : e.text;
    li.append(el('span', 'when', 't=' + e.time), el('span', 'kindtag', e.kind), el('span', 'text', text));
    li.title = `step ${e.step}` + (e.label ? ` · ${e.label}` : '');
    return li;
  });
  if (!rows.length) rows.push(el('li', 'empty', 'Nothing yet.'));
  if (a.eventsCut) rows.push(el('li', 'note', 'older events are no longer kept'));
  list.replaceChildren(...rows);
}

// --- the context menu on rules ---

function openMenu(x, y, ruleIndex) {
  const a = ui.agent;
  const v = ui.shown;
  if (!a || !v) return;
  const r = v.tree.rules[ruleIndex];
  const m = $('#menu');
  m.replaceChildren(el('div', 'head', r.label));
  const on = (b) => ruleOfBreakpoint(v, b) === ruleIndex;
  const bpAny = ui.status.breakpoints.find((b) => on(b) && !b.agent);
  const bpOne = ui.status.breakpoints.find((b) => on(b) && b.agent === a.id);
  const rule = breakpointRule(v, ruleIndex);
  const item = (text, fn, disabled) => {
    const b = el('button', '', text);
    b.disabled = !!disabled;
    b.onclick = () => { closeMenu(); fn(); };
    m.append(b);
  };
  item(bpAny ? 'Remove the breakpoint for any agent' : 'Stop when any agent arrives here',
    () => bpAny ? act('DELETE', '/api/breakpoints/' + bpAny.id) : act('POST', '/api/breakpoints', { tree: v.tree.template, rule }));
  item(bpOne ? `Remove the breakpoint for ${a.id}` : `Stop when ${a.id} arrives here`,
    () => bpOne ? act('DELETE', '/api/breakpoints/' + bpOne.id) : act('POST', '/api/breakpoints', { agent: a.id, rule }));
  item(r.id ? `Jump ${a.id} here` : `Jump ${a.id} here (needs an id)`,
    () => confirmDiscard('Jump', () => act('POST', `/api/agents/${encodeURIComponent(a.id)}/jump`, { rule: r.id })), !r.id || a.state === 'stopped');
  if (r.id && navigator.clipboard) item('Copy the id', () => navigator.clipboard.writeText(r.id));
  m.hidden = false;
  const rect = m.getBoundingClientRect();
  m.style.left = Math.min(x, innerWidth - rect.width - 8) + 'px';
  m.style.top = Math.min(y, innerHeight - rect.height - 8) + 'px';
}

function closeMenu() { $('#menu').hidden = true; }

// --- wiring ---

function togglePause() {
  const s = ui.status;
  if (!s) return;
  if (!s.paused) { act('POST', '/api/pause'); return; }
  confirmDiscard('Resume', () => act('POST', '/api/resume'));
}

function stepOnce() {
  confirmDiscard('Step', () => act('POST', '/api/step', { steps: 1 }));
}

// A second key before the page heard of the first's step counts from the
// step the first asked for (ui.nudgeTo, until an update shows it), and the
// requests go one after the other: quick presses are not dropped.
function nudgeTime(d) {
  const s = ui.status;
  if (!s || !s.paused) return;
  const from = ui.nudgeTo === null || ui.nudgeTo === undefined ? s.step : ui.nudgeTo;
  const oldest = s.timeTravel.oldest === null ? s.head : s.timeTravel.oldest;
  const to = Math.max(oldest, Math.min(s.head, from + d));
  if (to === from) return;
  ui.nudgeTo = to;
  ui.nudges = (ui.nudges || Promise.resolve()).then(() => act('POST', '/api/travel', { step: to })).then((r) => { if (!r && ui.nudgeTo === to) ui.nudgeTo = null; });
}

function wire() {
  $('#pause').onclick = togglePause;
  $('#step').onclick = stepOnce;
  $('#speed').onchange = (e) => {
    const v = e.target.value;
    act('POST', '/api/speed', { speed: v === 'fast' ? 'fast' : Number(v) });
  };
  $('#reload').onclick = async () => {
    const r = await act('POST', '/api/reload');
    if (r) { ui.trees.clear(); ui.rows = null; $('#agents').replaceChildren(); ui.shown = null; ui.agent = null; toast(r.summary || 'reloaded'); connect(); }
  };
  $('#quit').onclick = () => {
    $('#confirmtext').textContent = 'End the run? btrun writes its save, trace and summary and exits.';
    $('#confirmyes').textContent = 'Quit';
    ui.pending = () => act('POST', '/api/quit');
    $('#confirm').hidden = false;
  };
  $('#confirmyes').onclick = () => { $('#confirm').hidden = true; const f = ui.pending; ui.pending = null; if (f) f(); };
  $('#confirmno').onclick = () => { $('#confirm').hidden = true; ui.pending = null; };
  const slider = $('#slider');
  slider.oninput = () => {
    ui.dragging = true;
    $('#travelinfo').innerHTML = `showing step <b>${slider.value}</b>…`;
    travelTo(Number(slider.value));
  };
  slider.onchange = () => { ui.dragging = false; travelTo(Number(slider.value)); };
  $('#live').onclick = () => ui.status && act('POST', '/api/travel', { step: ui.status.head });
  $('#search').oninput = (e) => {
    ui.filter = e.target.value.trim().toLowerCase();
    renderAgents();
    if (ui.shown && ui.agent) paintTree(ui.shown, ui.agent);
  };
  $('#agents').onclick = (e) => {
    const li = e.target.closest('li[data-id]');
    if (li) select(li.dataset.id);
  };
  const canvas = $('#canvas');
  canvas.onclick = (e) => {
    const bp = e.target.closest('.bp');
    const node = e.target.closest('.node');
    if (!bp || !node || !ui.shown) return;
    const v = ui.shown;
    const rule = Number(node.dataset.rule);
    const existing = ui.status.breakpoints.find((b) => ruleOfBreakpoint(v, b) === rule && !b.agent);
    if (existing) act('DELETE', '/api/breakpoints/' + existing.id);
    else act('POST', '/api/breakpoints', { tree: v.tree.template, rule: breakpointRule(v, rule) });
  };
  canvas.oncontextmenu = (e) => {
    const node = e.target.closest('.node');
    if (!node) return;
    e.preventDefault();
    openMenu(e.clientX, e.clientY, Number(node.dataset.rule));
  };
  document.addEventListener('click', (e) => { if (!e.target.closest('#menu')) closeMenu(); });
  $('#signalform').onsubmit = (e) => {
    e.preventDefault();
    const name = $('#signalname').value.trim();
    if (!name || !ui.selected) return;
    const id = ui.selected;
    const text = $('#signaldata').value.trim();
    const body = { signal: name };
    if (text) {
      try { body.data = JSON.parse(text); } catch (err) { toast(`The data is not JSON: ${err.message}`, true); return; }
    }
    confirmDiscard('Send the signal', async () => {
      if (await act('POST', `/api/agents/${encodeURIComponent(id)}/signal`, body)) toast(`${name} sent to ${id}` + (text ? ' with data' : ''));
    });
  };
  $('#jumpform').onsubmit = (e) => {
    e.preventDefault();
    const rule = $('#jumpto').value;
    if (!rule || !ui.selected) return;
    const id = ui.selected;
    confirmDiscard('Jump', () => act('POST', `/api/agents/${encodeURIComponent(id)}/jump`, { rule }));
  };
  $('#zoomin').onclick = () => { ui.zoom = Math.min(2, ui.zoom * 1.2); applyZoom(); };
  $('#zoomout').onclick = () => { ui.zoom = Math.max(0.05, ui.zoom / 1.2); applyZoom(); };
  $('#zoomfit').onclick = zoomFit;
  document.addEventListener('keydown', (e) => {
    if (e.target.closest('input, select, textarea') || e.ctrlKey || e.metaKey || e.altKey) return;
    switch (e.key) {
      case ' ': e.preventDefault(); togglePause(); break;
      case '.': stepOnce(); break;
      case '[': nudgeTime(-1); break;
      case ']': nudgeTime(+1); break;
      case '+': case '=': $('#zoomin').click(); break;
      case '-': $('#zoomout').click(); break;
      case '0': zoomFit(); break;
      case 'Escape': closeMenu(); $('#confirmno').click(); break;
    }
  });
  window.addEventListener('hashchange', () => {
    const tree = hashParam('tree'), agent = pickFromHash();
    if (agent && agent !== ui.selected) select(agent);
    else if (!agent && tree && tree !== ui.treeOnly && ui.status && ui.status.trees.includes(tree)) showTreeOnly(tree);
  });
}

wire();
connect();
