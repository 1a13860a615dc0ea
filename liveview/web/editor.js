// btrun live view: the tree editor (`btrun run -debug ADDR -edit`). Plain
// JavaScript, no build step; it uses the page's helpers (app.js: $, el,
// api, toast, ui) and the editor's own API (docs/debug.md, "Editing").
// The server does every edit: the page sends operations on the source
// text and draws the outline it gets back, so a save changes only what was
// edited. What the page offers (tags, attributes, actions, conditions and
// their parameters) comes from GET /api/palette, so new tags and
// attributes of the format show here with no change to this file.
'use strict';

const ed = {
  palette: null,   // GET /api/palette; null: this run does not edit
  tree: null,      // the tree being edited
  info: null,      // GET /api/trees/NAME: its declarations, for completion
  tabs: [],        // open files
  cur: null,       // the tab shown
  view: 'tree',    // 'tree' or 'source'
  sel: null,       // the selected rule's label
  checkTimer: 0,
  checkSeq: 0,
  sourceTimer: 0,
  drag: null,      // a drag in progress (pointer events)
  dragged: false,  // the last pointer press became a drag: no click
};

// Hooks for the editor's other files (graphedit.js: the drawing;
// structure.js: wrap, clipboard, search): each a list of functions called
// at that moment. guard functions are asked before an edit is sent (a
// promise of true to send it).
const edHooks = { build: [], render: [], select: [], update: [], dragmove: [], marks: [], guard: [] };
const edHook = (name, ...args) => edHooks[name].forEach((f) => f(...args));

// --- what the palette says ---

const tagSpec = (tag) => ed.palette.tags.find((t) => t.tag === tag);
const ruleTags = () => ed.palette.tags.filter((t) => t.kind === 'rule').map((t) => t.tag);
const holdsRules = (tag) => { const s = tagSpec(tag); return !!s && s.inside.some((t) => ruleTags().includes(t)); };
const KINDS = { sequence: 'SEQ', choice: 'CHOICE', action: 'ACTION', parallel: 'PARALLEL', subtree: 'SUBTREE', subTree: 'SUBTREE', stateMachine: 'STATES' };

// names gives the names completion offers for a kind of value.
function names(kind, rule) {
  const t = ed.info || { vars: [], stamps: [], signals: [], gates: [] };
  const o = ed.cur && ed.cur.outline;
  const decl = (tag) => o ? o.decls.filter((d) => d.tag === tag).map((d) => attrOf(d.attrs, 'name')) : [];
  const uniq = (xs) => [...new Set(xs.filter(Boolean))].map((n) => (typeof n === 'string' ? { name: n } : n));
  const vars = () => [...t.vars.map((v) => v.name), ...decl('variable')];
  // typedVars: each variable once with its type (the tree's, else the
  // declaration being edited says it), for completion in conditions.
  const typedVars = () => {
    const seen = new Map();
    for (const v of t.vars) seen.set(v.name, v.type || 'boolean');
    for (const d of o ? o.decls.filter((x) => x.tag === 'variable') : []) {
      const n = attrOf(d.attrs, 'name');
      if (n && !seen.has(n)) seen.set(n, attrOf(d.attrs, 'type') || 'boolean');
    }
    return [...seen].map(([name, type]) => ({ name, type }));
  };
  const compares = { boolean: 'true when it is true; == and != compare it with another boolean variable',
    number: 'alone: > 0; compare with <, <=, >, >=, ==, != and a number or a number variable (Ammo < 3)',
    string: 'compare with == or != and a double-quoted string (Target == "grunt-2"); not a condition alone',
    vector: 'compare with == or != and another vector variable; not a condition alone' };
  const stamps = () => [...t.stamps.map((s) => s.name), ...decl('timestamp')];
  const gates = () => [...(t.gates || []).map((g) => g.name), ...decl('gate')];
  const signals = () => [...t.signals.map((s) => s.name), ...decl('signal')];
  switch (kind) {
    case 'actions': return ed.palette.actions.map(asItem);
    case 'scorers': return ed.palette.scorers.map(asItem);
    case 'hooks': return ed.palette.hooks.map(asItem);
    case 'trees': return uniq(ed.palette.trees);
    case 'variables': return typedVars().map((v) => ({ name: v.name, doc: compares[v.type] || '', detail: v.type + ' variable' }));
    case 'timestamps': return uniq(stamps());
    case 'gates': return uniq(gates());
    case 'signals': return uniq(signals());
    case 'boolean': return uniq(['true', 'false']);
    case 'conditions': {
      const out = [];
      for (const f of ed.palette.declared) {
        const dot = f.name.indexOf('.');
        if (f.name === 'A OP B') continue; // comparisons: completed through the variables' items
        if (f.name === 'VARIABLE') {
          for (const v of typedVars()) out.push({ name: v.name, doc: compares[v.type] || f.doc, detail: v.type + ' variable' });
          continue;
        }
        const each = f.name.startsWith('T.') ? stamps() : f.name.startsWith('G.') ? gates() : f.name.startsWith('S.') ? signals() : null;
        if (!each) { out.push(asItem(f)); continue; }
        for (const n of new Set(each)) out.push({ name: dot < 0 ? n : n + f.name.slice(dot), doc: f.doc, detail: f.origin });
      }
      return out.concat(ed.palette.conditions.map(asItem));
    }
    case 'params': return paramsOf(rule);
  }
  return [];
}

function asItem(n) {
  const ps = (n.params || []).map((p) => p.name + (p.required ? '' : '?')).join(', ');
  return { name: n.name, doc: n.doc || '', detail: [n.origin, ps && 'reads ' + ps].filter(Boolean).join(' · ') };
}

// paramsOf lists the parameters a rule's readers declare: its action, its
// conditions, and the runtime's own (log.*, choice.*).
function paramsOf(r) {
  const out = [];
  const add = (p, who) => out.push({ name: p.name, doc: p.doc || '', detail: [p.type, p.required ? 'required' : p.default && 'default ' + p.default, who].filter(Boolean).join(' · '), type: p.type });
  if (r && r.tag === 'action') {
    const a = ed.palette.actions.find((x) => x.name === attrOf(r.attrs, 'name'));
    if (a) a.params.forEach((p) => add(p, a.name));
  }
  for (const c of (r ? r.conditions : [])) {
    const name = c.replace(/^!/, '');
    const reg = ed.palette.conditions.find((x) => x.name === name);
    if (reg) reg.params.forEach((p) => add(p, name));
    const dot = name.lastIndexOf('.');
    const form = dot > 0 && ed.palette.declared.find((f) => f.name === 'T' + name.slice(dot));
    if (form) form.params.forEach((p) => add({ ...p, name: name.slice(0, dot) + p.name.slice(1) }, name));
  }
  for (const attr of ['enter', 'exit']) { // a hook reads the rule's parameters too (bt.log, bt.lua)
    const h = r && ed.palette.hooks.find((x) => x.name === attrOf(r.attrs, attr));
    if (h) h.params.forEach((p) => add(p, attr + ' hook ' + h.name));
  }
  ed.palette.ruleParams.forEach((p) => add(p, 'every rule'));
  const seen = new Set();
  return out.filter((p) => !seen.has(p.name) && seen.add(p.name));
}

// valueKind says what completes a parameter's value, from its declared type.
function valueKind(type) {
  return { 'signal name': 'signals', 'timestamp name': 'timestamps', 'variable name': 'variables', 'gate name': 'gates',
    boolean: 'boolean', 'number or scorer name': 'scorers' }[type] || '';
}

const attrOf = (attrs, name) => { const a = attrs.find((x) => x[0] === name); return a ? a[1] : undefined; };

// --- talking to the server ---

async function edApi(method, path, body) {
  // Relative to the page, as app.js's api(): the view may be mounted under a
  // prefix of a program's own server.
  const resp = await fetch(path.startsWith('/') ? '.' + path : path, { method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await resp.json(); } catch (e) { /* empty */ }
  return { status: resp.status, data: data || {} };
}

// --- opening and closing ---

async function edInit() {
  const r = await edApi('GET', '/api/palette');
  if (r.status !== 200) return; // a run without -edit: the page stays a view
  ed.palette = r.data;
  buildEditor();
  const b = el('button', '', 'Edit tree');
  b.id = 'editopen';
  b.title = 'Edit the shown tree: changes are saved to its file and applied to the running game';
  b.onclick = () => { const n = shownTree(); if (n) openEditor(n); };
  $('#treehead').insertBefore(b, $('#zoomout'));
  const tryHash = () => {
    if (location.hash.includes('edit') && hashParam('tree') && !ed.tree && ui.status) openEditor(hashParam('tree'));
  };
  window.addEventListener('hashchange', tryHash);
  const wait = setInterval(() => { if (ui.status) { clearInterval(wait); tryHash(); } }, 100);
}

function shownTree() {
  return ui.treeOnly || (ui.agent && ui.agent.tree) || (ui.shown && ui.shown.tree.name);
}

async function openEditor(name) {
  if (ed.tree && ed.tree !== name) { closeEditor(() => openEditor(name)); return; }
  const info = await edApi('GET', '/api/trees/' + encodeURIComponent(name));
  if (info.status !== 200) { toast(info.data.error || 'no tree ' + name, true); return; }
  ed.tree = name;
  ed.info = info.data;
  ed.tabs = [];
  ed.sel = null;
  ed.view = 'tree';
  $('#edresult').hidden = true;
  $('#ednew').hidden = true;
  document.body.classList.add('editing');
  $('#editor').hidden = false;
  await openFile(info.data.file);
}

// closeEditor goes back to the live view (after asking, when there are
// unsaved changes), then calls then.
function closeEditor(then) {
  const close = () => {
    ed.tree = null;
    ed.tabs = [];
    ed.cur = null;
    document.body.classList.remove('editing');
    $('#editor').hidden = true;
    fitPending();
    if (location.hash.includes('edit')) history.replaceState(null, '', location.hash.replace(/&?edit(=[^&]*)?/, ''));
    if (typeof then === 'function') then();
  };
  const dirty = ed.tabs.filter(isDirty);
  if (!dirty.length) { close(); return; }
  $('#confirmtext').textContent = `Close the editor? The changes to ${dirty.map((t) => t.file).join(', ')} are not saved.`;
  $('#confirmyes').textContent = 'Close and lose them';
  ui.pending = close;
  $('#confirm').hidden = false;
}

// openFile opens a file of the tree in its own tab (or shows its tab).
async function openFile(file) {
  const open = ed.tabs.find((t) => t.file === file);
  if (open) { showTab(open); return; }
  const r = await edApi('GET', `/api/trees/${encodeURIComponent(ed.tree)}/source?file=${encodeURIComponent(file)}`);
  if (r.status !== 200) { toast(r.data.error || `cannot open ${file}`, true); return; }
  const d = r.data;
  const tab = { file: d.file, source: d.source, saved: d.source, version: d.version, base: d.source, outline: d.outline, outlineError: d.outlineError || '',
    encoding: d.encoding, files: d.files, undo: [], redo: [], problems: [], isNew: false };
  ed.tabs.push(tab);
  showTab(tab);
}

function showTab(tab) {
  ed.cur = tab;
  ed.sel = null;
  renderEditor();
  scheduleCheck();
}

const isDirty = (t) => t.isNew || t.source !== t.saved;

// --- changing the source ---

// edit sends operations on the current tab's source; the server's text
// and outline become the tab's new state (undo goes back to the old one).
// select is the label of the rule to select then (null: none), or a
// function of the new outline that returns it.
async function edit(ops, select) {
  const tab = ed.cur;
  for (const g of edHooks.guard) if (!await g(ops)) return false;
  const r = await edApi('POST', `/api/trees/${encodeURIComponent(ed.tree)}/edit`, { file: tab.file, source: tab.source, ops, new: newTabs() });
  if (r.status !== 200) { toast(r.data.error || 'the edit failed', true); return false; }
  if (!r.data.changed) return true;
  setSource(tab, r.data.source, r.data.outline, r.data.outlineError);
  if (typeof select === 'function') select = r.data.outline ? select(r.data.outline) : null;
  if (select !== undefined) ed.sel = select;
  renderEditor();
  return true;
}

// Each state keeps the version of the file it was made from (and that
// version's text, base): a state from before a Load from disk saves only
// after the page showed the disk's change.
function setSource(tab, source, outline, outlineError) {
  tab.undo.push({ source: tab.source, outline: tab.outline, outlineError: tab.outlineError, version: tab.version, base: tab.base });
  if (tab.undo.length > 200) tab.undo.shift();
  tab.redo = [];
  Object.assign(tab, { source, outline, outlineError: outlineError || '' });
  scheduleCheck();
}

function undoRedo(from, to) {
  const tab = ed.cur;
  if (!tab || !tab[from].length) return;
  tab[to].push({ source: tab.source, outline: tab.outline, outlineError: tab.outlineError, version: tab.version, base: tab.base });
  Object.assign(tab, tab[from].pop());
  if (ed.sel && !(tab.outline && tab.outline.rules.some((r) => r.label === ed.sel))) ed.sel = null;
  renderEditor();
  scheduleCheck();
}

// sourceTyped takes the source tab's text after a pause in typing.
function sourceTyped() {
  clearTimeout(ed.sourceTimer);
  ed.sourceTimer = setTimeout(async () => {
    const tab = ed.cur;
    let text = $('#edsource').value;
    if (tab.saved.includes('\r\n')) text = text.replace(/\r?\n/g, '\r\n'); // a text area reads line ends as \n
    if (text === tab.source) return;
    const r = await edApi('POST', `/api/trees/${encodeURIComponent(ed.tree)}/edit`, { file: tab.file, source: text, ops: [] });
    if (r.status !== 200) { toast(r.data.error || 'cannot read the source', true); return; }
    setSource(tab, text, r.data.outline, r.data.outlineError);
    renderChrome();
  }, 400);
}

// --- problems ---

function scheduleCheck() {
  clearTimeout(ed.checkTimer);
  ed.checkTimer = setTimeout(check, 300);
}

async function check() {
  const tab = ed.cur;
  if (!tab) return;
  const seq = ++ed.checkSeq;
  const main = tab.isNew ? includer(tab) : tab;
  if (!main) return;
  const body = { tree: ed.tree, file: main.file, source: main.source, new: newTabs() };
  const r = await edApi('POST', '/api/check', body);
  if (seq !== ed.checkSeq || r.status !== 200) return;
  for (const t of ed.tabs) t.problems = r.data.problems.filter((p) => p.file === t.file);
  ed.others = r.data.problems.filter((p) => !ed.tabs.some((t) => t.file === p.file));
  renderProblems();
  markProblems();
  // A save refused for errors: its banner goes once they are fixed.
  const box = $('#edresult');
  if (box.className === 'failed' && !r.data.problems.some((p) => p.severity === 'error')) box.hidden = true;
}

const newTabs = () => ed.tabs.filter((t) => t.isNew).map((t) => ({ file: t.file, source: t.source }));

// includer is the open tab whose source includes a new file.
function includer(tab) {
  return ed.tabs.find((t) => !t.isNew && t.outline && t.outline.rules.some((r) => r.text && resolvePath(t.file, r.text) === tab.file));
}

function resolvePath(from, rel) {
  const parts = from.split('/').slice(0, -1);
  for (const p of rel.replace(/\\/g, '/').split('/')) {
    if (p === '..') parts.pop(); else if (p && p !== '.') parts.push(p);
  }
  return parts.join('/');
}

function problemsAt(label) {
  return ed.cur ? ed.cur.problems.filter((p) => p.rule === label || ruleAtPos(p) === label) : [];
}

function ruleAtPos(p) {
  const o = ed.cur && ed.cur.outline;
  const r = o && o.rules.find((x) => x.line === p.line && x.col === p.col);
  return r ? r.label : null;
}

function markProblems() {
  for (const b of document.querySelectorAll('#edtree .erule')) {
    const ps = problemsAt(b.dataset.label);
    const err = ps.some((p) => p.severity === 'error');
    b.classList.toggle('has-error', err);
    b.classList.toggle('has-warning', !err && ps.length > 0);
    const badge = b.querySelector(':scope > .ehead .eprob');
    badge.textContent = ps.length ? (err ? '✖ ' : '⚠ ') + ps.length : '';
    badge.title = ps.map((p) => p.message).join('\n');
  }
  const box = $('#edinspprobs');
  if (box) box.replaceChildren(...(ed.sel ? problemsAt(ed.sel) : []).map((p) => el('div', 'iprob p-' + p.severity, p.message)));
  edHook('marks');
}

function renderProblems() {
  const box = $('#edproblems');
  const tab = ed.cur;
  const all = (tab ? tab.problems : []).concat(ed.others || []);
  const errors = all.filter((p) => p.severity === 'error').length;
  $('#edcount').textContent = all.length ? `${errors} ${errors === 1 ? 'error' : 'errors'}, ${all.length - errors} ${all.length - errors === 1 ? 'warning' : 'warnings'}` : 'no problems';
  $('#edcount').className = 'edcount ' + (errors ? 'bad' : all.length ? 'warn' : 'good');
  box.replaceChildren(...all.map((p) => {
    const li = el('li', 'p-' + p.severity);
    li.append(el('span', 'where', `${p.file}:${p.line}:${p.col}`), el('span', 'msg', (p.rule ? p.rule + ': ' : '') + p.message));
    li.onclick = () => { if (p.file === tab.file) selectRule(p.rule && tab.outline && tab.outline.rules.some((r) => r.label === p.rule) ? p.rule : ruleAtPos(p)); };
    return li;
  }));
}

// --- saving ---

// save writes the current file (or the file including a new one) and
// applies it; at an earlier step of time travel, after the page asked.
function save() {
  confirmDiscard('Save', saveNow);
}

async function saveNow() {
  const tab = ed.cur.isNew ? includer(ed.cur) : ed.cur;
  if (!tab) { toast(`${ed.cur.file} is new: save the file whose <subtree> includes it`, true); return; }
  const news = newTabs();
  $('#edsave').disabled = true;
  const r = await edApi('PUT', `/api/trees/${encodeURIComponent(ed.tree)}/source`, { file: tab.file, source: tab.source, version: tab.version, new: news });
  $('#edsave').disabled = false;
  const box = $('#edresult');
  box.hidden = false;
  box.className = '';
  if (r.status === 409) {
    const disk = await edApi('GET', `/api/trees/${encodeURIComponent(ed.tree)}/source?file=${encodeURIComponent(tab.file)}`);
    if (disk.status !== 200) { box.className = 'failed'; box.replaceChildren(el('b', '', r.data.error)); return; }
    showConflict(tab, disk.data, r.data.error);
    return;
  }
  if (r.status !== 200) {
    box.className = 'failed';
    box.replaceChildren(el('b', '', r.data.error || `saving failed (${r.status})`));
    if (r.data.problems) { tab.problems = r.data.problems.filter((p) => p.file === tab.file); renderProblems(); markProblems(); }
    return;
  }
  if (r.data.unchanged) { box.replaceChildren(el('span', '', `${tab.file} is unchanged: nothing to save`)); return; }
  tab.saved = tab.source;
  newVersion(tab, r.data.version, tab.source);
  for (const t of ed.tabs) if (t.isNew && news.some((n) => n.file === t.file)) { t.isNew = false; t.saved = t.source; }
  renderSaved(r.data);
  refreshView();
  renderChrome();
  const info = await edApi('GET', '/api/trees/' + encodeURIComponent(ed.tree));
  if (info.status === 200) ed.info = info.data;
  for (const t of ed.tabs) if (t !== tab && !t.isNew) refreshVersion(t);
}

async function refreshVersion(t) {
  const r = await edApi('GET', `/api/trees/${encodeURIComponent(ed.tree)}/source?file=${encodeURIComponent(t.file)}`);
  if (r.status === 200 && r.data.source === t.saved) newVersion(t, r.data.version, r.data.source);
}

// newVersion: the file on disk is the page's own write of the tab's
// version; the states made from that version may overwrite it.
function newVersion(tab, v, text) {
  for (const s of [...tab.undo, ...tab.redo]) if (s.version === tab.version) Object.assign(s, { version: v, base: text });
  Object.assign(tab, { version: v, base: text });
}

// renderSaved says what the save did: who kept their place, who restarted.
function renderSaved(d) {
  const box = $('#edresult');
  const rl = d.reload;
  box.className = 'saved';
  const head = el('div', '');
  head.append(el('b', '', `Saved ${d.written.join(', ')} and applied at step ${rl.step}: `),
    el('span', 'kept', `${rl.kept.length} ${rl.kept.length === 1 ? 'agent kept its' : 'agents kept their'} place`),
    el('span', '', ', '), el('span', rl.restarted.length ? 'restarted' : '', `${rl.restarted.length} restarted`));
  const kept = el('div', 'who');
  kept.append(el('span', 'muted', 'kept: '), document.createTextNode(rl.kept.join(', ') || 'none'));
  box.replaceChildren(head, kept);
  if (rl.restarted.length) {
    const ul = el('ul', 'restarts');
    for (const x of rl.restarted) ul.append(el('li', '', `${x.agent}: ${x.why}`));
    box.append(el('div', 'muted', 'restarted at the root:'), ul);
  }
  for (const w of rl.warnings) box.append(el('div', 'warnline', '⚠ ' + w));
  if (d.discarded) box.append(el('div', 'muted', `steps ${d.discarded[0]}–${d.discarded[1]} were discarded (the game was shown at an earlier step)`));
}

// refreshView makes the live view draw the trees again (the game runs the
// new version).
function refreshView() {
  ui.trees.clear();
  ui.shown = null;
  ui.agent = null;
  if (ui.treeOnly) showTreeOnly(ui.treeOnly);
  connect();
}

async function reloadFromDisk(tab) {
  const r = await edApi('GET', `/api/trees/${encodeURIComponent(ed.tree)}/source?file=${encodeURIComponent(tab.file)}`);
  if (r.status !== 200) { toast(r.data.error, true); return; }
  ed.cur = tab;
  setSource(tab, r.data.source, r.data.outline, r.data.outlineError);
  tab.saved = r.data.source;
  tab.version = r.data.version;
  tab.base = r.data.source;
  $('#edresult').hidden = true;
  renderEditor();
}

// --- new subtree files ---

const TEMPLATES = {
  sequence: (id) => `<sequence id="${id}">\n  <action name="bt.log"><parameter name="log.message">${id} starts</parameter></action>\n</sequence>`,
  choice: (id) => `<choice id="${id}"/>`,
  parallel: (id) => `<parallel id="${id}" success="any">\n  <running/>\n  <running/>\n</parallel>`,
  stateMachine: (id) => `<stateMachine id="${id}">\n  <state name="Idle">\n    <running id=".idle"/>\n  </state>\n</stateMachine>`,
};

function newSubtreeForm() {
  const box = $('#ednew');
  box.hidden = !box.hidden;
  if (box.hidden) return;
  const dir = ed.cur.file.split('/').slice(0, -1).join('/');
  $('#ednewfile').value = (dir ? dir + '/' : '') + 'newtree.xml';
  $('#ednewfile').focus();
}

async function createSubtree() {
  const file = $('#ednewfile').value.trim();
  const tpl = $('#ednewtpl').value;
  // The id is the subtree's own name: the include adds the dot that joins
  // it to its parent's id, so a typed ".stretch" is "stretch".
  const id = ($('#ednewid').value.trim() || file.split('/').pop().replace(/\.xml$/, '')).replace(/^\.+/, '');
  const main = ed.cur.isNew ? includer(ed.cur) : ed.cur;
  if (!file.endsWith('.xml') || ed.tabs.some((t) => t.file === file)) { toast('a new file needs a name ending in .xml that is not open already', true); return; }
  const rel = relativePath(main.file, file);
  const r = main.outline ? main.outline.rules.find((x) => x.label === ed.sel) : null;
  // After the selected rule in its list (into it when it is the file's
  // top rule), else last in the top rule.
  const mo = main.outline;
  const top = mo && mo.top.length ? mo.rules[mo.top[0]] : null;
  let parent = top && holdsRules(top.tag) ? top.label : '', index;
  if (r && r.parent >= 0) { parent = mo.rules[r.parent].label; index = mo.rules[r.parent].children.indexOf(r.index) + 1; }
  else if (r && holdsRules(r.tag)) parent = r.label;
  const source = `<?xml version="1.0" encoding="UTF-8"?>\n<behaviorTree>\n${TEMPLATES[tpl](id).replace(/^/gm, '  ')}\n</behaviorTree>\n`;
  const o = await edApi('POST', `/api/trees/${encodeURIComponent(ed.tree)}/edit`, { file, source, ops: [] });
  if (o.status !== 200) { toast(o.data.error, true); return; }
  const tab = { file, source, saved: '', version: null, base: '', outline: o.data.outline, outlineError: o.data.outlineError || '', encoding: 'UTF-8',
    undo: [], redo: [], problems: [], isNew: true };
  ed.tabs.push(tab);
  ed.cur = main;
  if (!await edit([{ op: 'insert', parent, index, xml: `<subtree id=".${id}">${rel}</subtree>` }], inserted(parent, index))) {
    ed.tabs.splice(ed.tabs.indexOf(tab), 1);
    renderEditor();
    return;
  }
  $('#ednew').hidden = true;
  showTab(tab);
}

function relativePath(from, to) {
  const a = from.split('/').slice(0, -1), b = to.split('/');
  let k = 0;
  while (k < a.length && k < b.length - 1 && a[k] === b[k]) k++;
  return '../'.repeat(a.length - k) + b.slice(k).join('/');
}

// --- drawing ---

function buildEditor() {
  const box = el('section');
  box.id = 'editor';
  box.hidden = true;
  box.innerHTML = `
  <div id="edbar">
    <div id="edtabs" role="tablist"></div>
    <div class="spacer"></div>
    <div class="seg"><button id="edvtree" class="on" title="Edit the rules">Tree</button><button id="edvsource" title="The file's raw XML">Source</button></div>
    <button id="edundo" title="Undo (Ctrl+Z)">Undo</button>
    <button id="edredo" title="Redo (Ctrl+Y)">Redo</button>
    <button id="ednewbtn" title="A new subtree file from a template, included here">New subtree…</button>
    <span id="edcount" class="edcount"></span>
    <button id="edsave" class="primary" title="Write the file and apply it to the running game (Ctrl+S)">Save &amp; apply</button>
    <button id="edclose" title="Back to the live view">Close</button>
  </div>
  <div id="ednew" hidden>
    <label>file <input id="ednewfile" size="32" spellcheck="false"></label>
    <label>template <select id="ednewtpl"><option>sequence</option><option>choice</option><option>parallel</option><option>stateMachine</option></select></label>
    <label>subtree id <input id="ednewid" size="12" placeholder="from the file" spellcheck="false"></label>
    <button id="ednewok">Create and include</button>
  </div>
  <div id="edresult" hidden></div>
  <div id="edmain">
    <aside id="edpal"><div class="search"><input id="edpalq" type="search" placeholder="Find a rule, action, condition…" spellcheck="false"></div><div id="edpallist"></div></aside>
    <div id="edcenter"><div id="edtree"></div><textarea id="edsource" hidden spellcheck="false"></textarea></div>
    <aside id="edinsp"></aside>
  </div>
  <ul id="edproblems"></ul>
  <div id="edcomplete" hidden role="listbox"></div>`;
  $('main').append(box);
  $('#edclose').onclick = () => closeEditor();
  $('#edsave').onclick = save;
  $('#edundo').onclick = () => undoRedo('undo', 'redo');
  $('#edredo').onclick = () => undoRedo('redo', 'undo');
  $('#edvtree').onclick = () => { ed.view = 'tree'; renderEditor(); };
  $('#edvsource').onclick = () => { ed.view = 'source'; renderEditor(); };
  $('#ednewbtn').onclick = newSubtreeForm;
  $('#ednewok').onclick = createSubtree;
  $('#edsource').addEventListener('input', sourceTyped);
  $('#edpalq').oninput = renderPalette;
  document.addEventListener('keydown', (e) => {
    if (!ed.tree || !(e.ctrlKey || e.metaKey)) return;
    const k = e.key.toLowerCase();
    if (k === 's') { e.preventDefault(); save(); }
    if (e.target.id === 'edsource' || e.target.closest('#edinsp input')) return; // their own undo
    if (k === 'z' && !e.shiftKey) { e.preventDefault(); undoRedo('undo', 'redo'); }
    if (k === 'y' || k === 'z' && e.shiftKey) { e.preventDefault(); undoRedo('redo', 'undo'); }
  }, true);
  document.addEventListener('pointermove', dragMove);
  document.addEventListener('pointerup', dragEnd);
  document.addEventListener('click', (e) => { if (!e.target.closest('#edcomplete, .ecomp')) hideComplete(); });
  renderPalette();
  edHook('build');
}

function renderEditor() {
  renderChrome();
  const tab = ed.cur;
  const source = ed.view === 'source' || !tab.outline;
  $('#edtree').hidden = source || ed.view === 'graph';
  $('#edsource').hidden = !source;
  if (source) {
    const ta = $('#edsource');
    if (ta.value.replace(/\r\n/g, '\n') !== tab.source.replace(/\r\n/g, '\n')) ta.value = tab.source;
  } else if (ed.view !== 'graph') {
    renderTree();
  }
  edHook('render');
  renderInspector();
  renderProblems();
  markProblems();
}

function renderChrome() {
  const tabs = $('#edtabs');
  tabs.replaceChildren(...ed.tabs.map((t) => {
    const b = el('button', 'edtab' + (t === ed.cur ? ' on' : '') + (isDirty(t) ? ' dirty' : ''), t.file.split('/').pop());
    b.title = t.file + (t.isNew ? ' (new: saved with the file that includes it)' : isDirty(t) ? ' (unsaved changes)' : '');
    b.dataset.file = t.file;
    b.onclick = () => showTab(t);
    return b;
  }));
  const tab = ed.cur;
  $('#edundo').disabled = !tab.undo.length;
  $('#edredo').disabled = !tab.redo.length;
  $('#edvtree').classList.toggle('on', ed.view === 'tree');
  $('#edvsource').classList.toggle('on', ed.view === 'source');
  $('#edvtree').disabled = !tab.outline;
  $('#edsave').textContent = ed.tabs.some(isDirty) ? 'Save & apply' : 'Saved';
}

function renderTree() {
  const tab = ed.cur, o = tab.outline;
  const box = $('#edtree');
  const root = el('div', 'eroot');
  const head = el('div', 'ehead');
  head.append(el('span', 'ekind', 'FILE'), el('b', '', tab.file), el('span', 'sub', `${o.encoding} · ${o.rules.length} rules`));
  root.append(head);
  const kids = el('div', 'ekids');
  appendRules(kids, o, o.top, '');
  root.append(kids);
  box.replaceChildren(root);
}

// inserted finds, in a new outline, the rule an insert put at index (or
// last) among parent's rules.
function inserted(parent, index) {
  return (o) => {
    const p = parent === '' ? null : o.rules.find((r) => r.label === parent);
    const list = p ? p.children : o.top;
    const i = list[index === undefined || index >= list.length ? list.length - 1 : index];
    return i === undefined ? null : o.rules[i].label;
  };
}

function appendRules(box, o, list, parent) {
  box.append(dropZone(parent, 0));
  list.forEach((i, k) => box.append(ruleBlock(o, i), dropZone(parent, k + 1)));
}

function dropZone(parent, index) {
  const z = el('div', 'edrop');
  z.dataset.parent = parent;
  z.dataset.index = index;
  return z;
}

function ruleBlock(o, i) {
  const r = o.rules[i];
  const b = el('div', 'erule k-' + r.tag + (r.label === ed.sel ? ' sel' : ''));
  b.dataset.label = r.label;
  const head = el('div', 'ehead');
  head.append(el('span', 'ekind', KINDS[r.tag] || r.tag.toUpperCase()));
  const title = el('span', 'title');
  const parent = r.parent >= 0 ? o.rules[r.parent] : null;
  if (r.id) {
    const shown = parent && parent.id && r.id.startsWith(parent.id + '.') ? r.id.slice(parent.id.length) : r.id;
    title.append(el('b', '', shown));
  } else {
    title.append(el('b', '', attrOf(r.attrs, 'name') || r.tag), el('span', 'pre', ` @${r.line}:${r.col}`));
  }
  head.append(title);
  const sub = [];
  if (r.tag === 'action') sub.push(attrOf(r.attrs, 'name'));
  if (r.text) sub.push(r.text);
  if (r.conditions.length) sub.push('if ' + r.conditions.join(r.mode === 'anyTrue' || r.mode === 'anyFalse' ? ' or ' : ' and ') + (r.mode && r.mode !== 'allTrue' ? ` (${r.mode})` : ''));
  for (const [k, v] of r.attrs) if (k !== 'id' && !(k === 'name' && r.tag === 'action')) sub.push(`${k}=${v}`);
  for (const [k, v] of r.params) sub.push(`${k}: ${v}`);
  head.append(el('span', 'sub', sub.join(' · ')), el('span', 'eprob'));
  if (r.text && /\.xml$/i.test(r.text)) {
    const open = el('button', 'eopen', 'open ↗');
    open.title = 'Open ' + r.text + ' in its own tab';
    open.onclick = (e) => { e.stopPropagation(); openSubtree(r); };
    head.append(open);
  }
  head.onpointerdown = (e) => startDrag(e, { move: r.label }, r.label);
  head.onclick = () => { if (!ed.dragged) selectRule(r.label); };
  b.append(head);
  if (r.states && r.states.length) {
    b.append(stateBlocks(o, r));
  } else if (holdsRules(r.tag)) {
    const kids = el('div', 'ekids');
    appendRules(kids, o, r.children, r.label);
    b.append(kids);
  }
  return b;
}

// stateBlocks draws a state machine's states, each with its transitions
// as written and its rule under it; the states themselves are edited in
// the source (a rule dropped here would not be in a state).
function stateBlocks(o, r) {
  const kids = el('div', 'ekids');
  for (const s of r.states) {
    const box = el('div', 'estate' + (s.initial ? ' initial' : ''));
    const head = el('div', 'eshead');
    head.append(el('span', 'ekind', 'STATE'), el('b', '', s.name), el('span', 'pre', ` @${s.line}:${s.col}`));
    if (s.initial) head.append(el('span', 'sub', 'initial'));
    const on = s.transitions.map((t) => `${t.signal ? 'on ' + t.signal : 'on ' + t.result} → ${t.to}`);
    if (on.length) head.append(el('span', 'sub', on.join(' · ')));
    box.append(head);
    if (s.rule >= 0) box.append(ruleBlock(o, s.rule));
    kids.append(box);
  }
  return kids;
}

function openSubtree(r) {
  const file = resolvePath(ed.cur.file, r.text);
  if (ed.tabs.some((t) => t.file === file) || (ed.cur.files || []).includes(file)) { openFile(file); return; }
  toast(`${file} is not a file of ${ed.tree} yet: save first, or create it with New subtree…`, true);
}

function selectRule(label) {
  ed.sel = label;
  for (const b of document.querySelectorAll('#edtree .erule')) b.classList.toggle('sel', b.dataset.label === label);
  renderInspector();
  edHook('select');
}

const selected = () => (ed.cur && ed.cur.outline && ed.sel ? ed.cur.outline.rules.find((r) => r.label === ed.sel) : null);

// --- the palette ---

function renderPalette() {
  const q = $('#edpalq').value.trim().toLowerCase();
  const box = $('#edpallist');
  const group = (title, items) => {
    const shown = items.filter((it) => !q || (it.name + ' ' + (it.doc || '')).toLowerCase().includes(q));
    if (!shown.length) return [];
    return [el('div', 'section-title', title), ...shown.map((it) => {
      const d = el('div', 'epal');
      d.dataset.name = it.name;
      d.dataset.kind = it.kind;
      d.append(el('span', 'pname', it.name), el('span', 'porigin', it.origin || ''));
      d.title = [it.doc, it.params && it.params.length ? 'parameters: ' + it.params.map((p) => `${p.name}${p.required ? '' : '?'} (${p.type || 'string'}): ${p.doc || ''}`).join('\n  ') : ''].filter(Boolean).join('\n');
      d.onpointerdown = (e) => { if (it.xml) startDrag(e, { xml: it.xml() }, it.name); };
      d.onclick = () => { if (!ed.dragged) paletteClick(it); };
      return d;
    })];
  };
  const rules = ed.palette.tags.filter((t) => t.kind === 'rule').map((t) => ({ name: t.tag, kind: 'rule', doc: t.doc, xml: () => templateOf(t.tag) }));
  const actions = ed.palette.actions.map((a) => ({ ...a, kind: 'action', xml: () => actionXML(a) }));
  const conds = ed.palette.conditions.map((c) => ({ ...c, kind: 'condition' })).concat(ed.palette.declared.map((c) => ({ ...c, kind: 'declared' })));
  box.replaceChildren(...group('Rules', rules), ...group('Actions', actions), ...group('Conditions', conds),
    ...group('Scorers', ed.palette.scorers.map((s) => ({ ...s, kind: 'scorer' }))), ...group('Hooks', ed.palette.hooks.map((h) => ({ ...h, kind: 'hook' }))));
}

function templateOf(tag) {
  if (tag === 'action') return '<action name="bt.log"><parameter name="log.message"></parameter></action>';
  // A new list is empty (its rules are dropped in next); a parallel runs
  // at least one rule, so it comes with one to replace.
  if (tag === 'parallel') return '<parallel>\n  <running/>\n</parallel>';
  if (holdsRules(tag)) return `<${tag}/>`;
  const s = tagSpec(tag);
  if (s && s.text) return `<${tag}></${tag}>`;
  return `<${tag}/>`;
}

// actionXML is a rule calling action a, with its required parameters.
function actionXML(a) {
  const ps = a.params.filter((p) => p.required).map((p) => `<parameter name="${escAttr(p.name)}">${escText(p.default || '')}</parameter>`);
  return ps.length ? `<action name="${escAttr(a.name)}">\n${ps.map((p) => '  ' + p).join('\n')}\n</action>` : `<action name="${escAttr(a.name)}"/>`;
}

const escText = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escAttr = (s) => escText(s).replace(/"/g, '&quot;');

// paletteClick adds an item to the selected rule: a rule into it (or after
// it), a condition to its conditions, a scorer as its choice.score, a hook
// as its enter (or exit) hook.
function paletteClick(it) {
  const r = selected();
  if (!r) { toast('Select a rule first, or drag the item into the tree', true); return; }
  switch (it.kind) {
    case 'rule': case 'action': {
      const o = ed.cur.outline;
      if (holdsRules(r.tag)) edit([{ op: 'insert', parent: r.label, xml: it.xml() }], inserted(r.label));
      else {
        const p = r.parent >= 0 ? o.rules[r.parent] : null;
        const at = (p ? p.children : o.top).indexOf(r.index) + 1;
        edit([{ op: 'insert', parent: p ? p.label : '', index: at, xml: it.xml() }], inserted(p ? p.label : '', at));
      }
      break;
    }
    case 'condition':
      edit([{ op: 'conditions', rule: r.label, conditions: [...r.conditions, it.name] }], r.label);
      break;
    case 'declared': { // a form (T.lessThan): the name is the designer's to finish
      const i = $('#ednewcond');
      i.value = it.name.replace(/^VARIABLE$/, '');
      i.focus();
      showComplete(i);
      break;
    }
    case 'scorer':
      edit([{ op: 'param', rule: r.label, name: 'choice.score', value: it.name }]);
      break;
    case 'hook': {
      const name = tagSpec(r.tag).attrs.some((a) => a.name === 'enter') && !attrOf(r.attrs, 'enter') ? 'enter' : 'exit';
      edit([{ op: 'attr', rule: r.label, name, value: it.name }]);
      break;
    }
  }
}

// --- dragging (pointer events: a mouse, a pen or a finger) ---

function startDrag(e, payload, label) {
  if (e.button !== 0 || e.target.closest('button, input')) return;
  ed.dragged = false;
  ed.drag = { x: e.clientX, y: e.clientY, payload, label, ghost: null, zone: null };
}

function dragMove(e) {
  const d = ed.drag;
  if (!d) return;
  if (!d.ghost) {
    if (Math.hypot(e.clientX - d.x, e.clientY - d.y) < 6) return;
    d.ghost = el('div', 'eghost', d.label);
    document.body.append(d.ghost);
    document.body.classList.add('edragging');
    if (d.payload.move) {
      const src = document.querySelector(`#edtree .erule[data-label="${CSS.escape(d.payload.move)}"]`);
      if (src) src.classList.add('edragsrc');
    }
  }
  d.ghost.style.left = e.clientX + 12 + 'px';
  d.ghost.style.top = e.clientY + 8 + 'px';
  edHook('dragmove', e);
  const under = document.elementFromPoint(e.clientX, e.clientY);
  const z = under && under.closest('.edrop');
  const ok = z && !z.closest('.edragsrc') ? z : null;
  if (d.zone !== ok) {
    if (d.zone) d.zone.classList.remove('over');
    if (ok) ok.classList.add('over');
    d.zone = ok;
  }
}

function dragEnd() {
  const d = ed.drag;
  ed.drag = null;
  if (!d || !d.ghost) return;
  ed.dragged = true;
  setTimeout(() => { ed.dragged = false; }, 0);
  d.ghost.remove();
  document.body.classList.remove('edragging');
  for (const x of document.querySelectorAll('.edragsrc, .edrop.over')) x.classList.remove('edragsrc', 'over');
  if (!d.zone) return;
  const parent = d.zone.dataset.parent;
  let index = Number(d.zone.dataset.index);
  if (d.payload.xml) { edit([{ op: 'insert', parent, index, xml: d.payload.xml }], inserted(parent, index)); return; }
  const o = ed.cur.outline;
  const r = o.rules.find((x) => x.label === d.payload.move);
  const p = r.parent >= 0 ? o.rules[r.parent].label : '';
  if (p === parent) {
    const at = (r.parent >= 0 ? o.rules[r.parent].children : o.top).indexOf(r.index);
    if (index === at || index === at + 1) return; // where it is
    if (index > at) index--;
  }
  edit([{ op: 'move', rule: r.label, parent, index }], movedLabel(r, parent));
}

// movedLabel guesses the label a moved rule will have (its id under its
// new parent), to keep it selected.
function movedLabel(r, parent) {
  const id = attrOf(r.attrs, 'id');
  if (!id) return null;
  if (!id.startsWith('.')) return id;
  const o = ed.cur.outline;
  let p = o.rules.find((x) => x.label === parent);
  while (p && !(p.id && holdsRules(p.tag))) p = p.parent >= 0 ? o.rules[p.parent] : null;
  return (p ? p.id : '') + id;
}

// --- the inspector ---

function renderInspector() {
  const box = $('#edinsp');
  const r = selected();
  if (!ed.cur || !ed.cur.outline) { box.replaceChildren(el('div', 'empty', ed.cur ? ed.cur.outlineError : '')); return; }
  if (!r) { box.replaceChildren(el('div', 'empty', 'Click a rule to edit it; drag rules to move them, and items of the palette into the tree to add them.'), declarations()); return; }
  const spec = tagSpec(r.tag);
  const parts = [];
  const head = el('div', 'ihead');
  head.append(el('b', '', r.label), el('div', 'muted', `${ed.cur.file}:${r.line}:${r.col}`));
  const tools = el('div', 'itools');
  const dup = el('button', '', 'Duplicate');
  dup.onclick = () => edit([{ op: 'duplicate', rule: r.label }]);
  const del = el('button', 'danger', 'Delete');
  del.onclick = () => edit([{ op: 'delete', rule: r.label }], null);
  tools.append(dup, del);
  head.append(tools);
  parts.push(head);
  const probs = el('div');
  probs.id = 'edinspprobs';
  for (const p of problemsAt(r.label)) probs.append(el('div', 'iprob p-' + p.severity, p.message));
  parts.push(probs);

  const tag = el('select');
  for (const t of ruleTags()) tag.append(new Option(t, t, false, t === r.tag));
  tag.onchange = () => edit([{ op: 'tag', rule: r.label, tag: tag.value }], r.label);
  parts.push(row('tag', tag, spec.doc));

  parts.push(el('div', 'isect', 'Attributes'));
  for (const a of spec.attrs) {
    const cur = attrOf(r.attrs, a.name);
    let input;
    if (a.complete === 'values' || a.complete === 'boolean') {
      input = el('select');
      input.append(new Option(a.default ? `(default ${a.default})` : '(not set)', ''));
      for (const v of a.complete === 'boolean' ? ['true', 'false'] : a.values) input.append(new Option(v, v, false, v === cur));
    } else {
      input = textInput(cur || '', a.complete || '', r, a.default ? `default ${a.default}` : a.type);
    }
    input.dataset.attr = a.name;
    // A new id is a new label: the rule stays selected by its place.
    const same = a.name === 'id' ? (o) => { const x = o.rules.find((y) => y.line === r.line && y.col === r.col && y.tag === r.tag); return x ? x.label : null; } : r.label;
    input.onchange = () => edit([{ op: 'attr', rule: r.label, name: a.name, value: input.value === '' ? null : input.value }], same);
    parts.push(row(a.name + (a.required ? ' *' : ''), input, `${a.type}${a.default ? ', default ' + a.default : ''}: ${a.doc}`));
  }
  for (const [k] of r.attrs) if (!spec.attrs.some((a) => a.name === k)) parts.push(el('div', 'iprob p-warning', `attribute ${k} is not one <${r.tag}> takes`));
  if (spec.text) {
    const t = textInput(r.text || '', '', r, spec.text);
    t.onchange = () => edit([{ op: 'text', rule: r.label, value: t.value }], r.label);
    parts.push(row('text', t, spec.text));
  }

  parts.push(el('div', 'isect', 'Parameters'));
  for (const [k, v] of r.params) {
    const spec = paramsOf(r).find((p) => p.name === k);
    const val = textInput(v, valueKind(spec && spec.type), r, spec ? spec.detail : 'not declared by a reader');
    val.dataset.param = k;
    val.onchange = () => edit([{ op: 'param', rule: r.label, name: k, value: val.value }], r.label);
    const x = el('button', 'icon', '×');
    x.title = 'Remove ' + k;
    x.onclick = () => edit([{ op: 'param', rule: r.label, name: k, value: null }], r.label);
    parts.push(row(k, val, spec ? spec.doc : '', x));
  }
  const pname = textInput('', 'params', r, 'parameter name');
  pname.id = 'ednewparam';
  const pval = textInput('', '', r, 'value');
  pval.id = 'ednewvalue';
  const padd = el('button', '', 'Add');
  padd.id = 'edaddparam';
  pname.addEventListener('picked', () => { const s = paramsOf(r).find((p) => p.name === pname.value); pval.dataset.complete = valueKind(s && s.type); pval.value = pval.value || (s && s.default) || ''; pval.focus(); });
  padd.onclick = () => { if (pname.value.trim()) edit([{ op: 'param', rule: r.label, name: pname.value.trim(), value: pval.value }], r.label); };
  pval.onkeydown = (e) => { if (e.key === 'Enter') padd.click(); };
  const prow = el('div', 'irow addrow');
  prow.append(pname, pval, padd);
  parts.push(prow);

  parts.push(el('div', 'isect', 'Conditions'));
  const conds = r.conditions.slice();
  const setConds = (list, mode) => edit([{ op: 'conditions', rule: r.label, conditions: list, mode }], r.label);
  conds.forEach((c, k) => {
    const neg = el('button', 'icon neg' + (c.startsWith('!') ? ' on' : ''), '!');
    neg.title = 'Negate';
    neg.onclick = () => { const l = conds.slice(); l[k] = c.startsWith('!') ? c.slice(1) : '!' + c; setConds(l); };
    const name = textInput(c.replace(/^!/, ''), 'conditions', r, 'condition');
    name.dataset.cond = k;
    name.onchange = () => { const l = conds.slice(); l[k] = (c.startsWith('!') ? '!' : '') + name.value.trim(); setConds(l.filter((x) => x && x !== '!')); };
    const x = el('button', 'icon', '×');
    x.onclick = () => setConds(conds.filter((_, j) => j !== k));
    const rw = el('div', 'irow');
    rw.append(neg, name, x);
    parts.push(rw);
  });
  const cadd = textInput('', 'conditions', r, 'add a condition');
  cadd.id = 'ednewcond';
  cadd.onchange = () => { if (cadd.value.trim()) setConds([...conds, cadd.value.trim()]); };
  parts.push(cadd);
  const mode = el('select');
  mode.id = 'edmode';
  mode.append(new Option('(default allTrue)', ''));
  for (const m of ed.palette.condModes) mode.append(new Option(m, m, false, m === r.mode));
  mode.onchange = () => setConds(conds, mode.value);
  parts.push(row('conditionMode', mode, tagSpec('conditionMode').doc));
  box.replaceChildren(...parts);
}

function row(label, input, doc, extra) {
  const r = el('div', 'irow');
  const l = el('label', '', label);
  l.title = doc || '';
  r.append(l, input);
  if (extra) r.append(extra);
  if (doc) r.title = doc;
  return r;
}

// declarations lists the file's variables, signals, timestamps and gates,
// with forms to add and remove them.
function declarations() {
  const o = ed.cur.outline;
  const box = el('div', 'idecls');
  box.append(el('div', 'isect', 'Declarations of ' + ed.cur.file.split('/').pop()));
  for (const spec of ed.palette.tags.filter((t) => t.kind === 'declaration')) {
    const list = o.decls.filter((d) => d.tag === spec.tag);
    const sect = el('div', 'idecl');
    sect.append(el('div', 'dtitle', spec.tag + 's'));
    for (const d of list) {
      const line = el('div', 'irow');
      line.dataset.line = d.line;
      line.append(el('span', 'dtext', d.attrs.map(([k, v]) => k === 'name' ? v : `${k}=${v}`).join(' ')));
      const x = el('button', 'icon', '×');
      x.title = 'Remove this declaration';
      x.onclick = () => edit([{ op: 'undeclare', tag: spec.tag, name: attrOf(d.attrs, 'name'), line: d.line, col: d.col }]);
      line.append(x);
      sect.append(line);
    }
    const form = el('div', 'irow addrow');
    const inputs = spec.attrs.map((a) => {
      const i = a.complete === 'values' || a.complete === 'boolean' ? el('select') : textInput('', a.complete || '', null, a.name);
      if (i.tagName === 'SELECT') { i.append(new Option(a.name, '')); for (const v of a.complete === 'boolean' ? ['true', 'false'] : a.values) i.append(new Option(v, v)); }
      i.title = `${a.name}: ${a.doc}`;
      i.dataset.name = a.name;
      return i;
    });
    const add = el('button', '', 'Add');
    add.onclick = () => {
      const attrs = inputs.filter((i) => i.value.trim()).map((i) => `${i.dataset.name}="${escAttr(i.value.trim())}"`);
      if (attrs.length) edit([{ op: 'declare', xml: `<${spec.tag} ${attrs.join(' ')}/>` }]);
    };
    form.append(...inputs, add);
    sect.append(form);
    box.append(sect);
  }
  return box;
}

// --- completion ---

// textInput is an input whose value completes from a kind of names.
function textInput(value, kind, rule, placeholder) {
  const i = el('input', 'ecomp');
  i.value = value;
  i.placeholder = placeholder || '';
  i.spellcheck = false;
  i.autocomplete = 'off';
  i.dataset.complete = kind;
  i._rule = rule;
  const show = () => { if (i.dataset.complete) showComplete(i); };
  i.addEventListener('focus', show);
  i.addEventListener('input', show);
  i.addEventListener('keydown', (e) => completeKey(e, i));
  i.addEventListener('change', hideComplete);
  return i;
}

function showComplete(input) {
  const box = $('#edcomplete');
  const q = input.value.trim().toLowerCase();
  const items = names(input.dataset.complete, input._rule).filter((n) => n.name.toLowerCase().includes(q)).slice(0, 60);
  if (!items.length) { hideComplete(); return; }
  box._input = input;
  box._at = -1;
  box.replaceChildren(...items.map((it) => {
    const d = el('div', 'citem');
    d.dataset.name = it.name;
    d.append(el('span', 'cname', it.name), el('span', 'cdetail', it.detail || ''));
    if (it.doc) d.append(el('div', 'cdoc', it.doc));
    d.onpointerdown = (e) => { e.preventDefault(); pick(input, it.name); };
    return d;
  }));
  const rect = input.getBoundingClientRect();
  box.style.left = rect.left + 'px';
  box.style.top = rect.bottom + 2 + 'px';
  box.style.minWidth = rect.width + 'px';
  box.hidden = false;
}

function pick(input, name) {
  input.value = name;
  hideComplete();
  input.dispatchEvent(new Event('picked'));
  input.dispatchEvent(new Event('change'));
}

function completeKey(e, input) {
  const box = $('#edcomplete');
  if (box.hidden || box._input !== input) { if (e.key === 'Enter') input.dispatchEvent(new Event('change')); return; }
  const items = box.querySelectorAll('.citem');
  if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    e.preventDefault();
    box._at = (box._at + (e.key === 'ArrowDown' ? 1 : items.length - 1) + (box._at < 0 && e.key === 'ArrowUp' ? 1 : 0)) % items.length;
    items.forEach((x, k) => x.classList.toggle('on', k === box._at));
    items[box._at].scrollIntoView({ block: 'nearest' });
  } else if (e.key === 'Enter') {
    e.preventDefault();
    if (box._at >= 0) pick(input, items[box._at].dataset.name); else { hideComplete(); input.dispatchEvent(new Event('change')); }
  } else if (e.key === 'Escape') {
    hideComplete();
  }
}

function hideComplete() { $('#edcomplete').hidden = true; }

edInit();
