// btrun live view: structural editing at a designer's pace (`-edit`), a
// bar above the palette.
// Wrap the selected rules in a sequence, choice or parallel, unwrap a
// list, delete (Delete, Backspace), copy, cut and paste (Ctrl+C, X, V: a
// clipboard of XML, within a file and between files), duplicate (Ctrl+D),
// extract a rule into a new subtree file, and find rules by id, action or
// condition. Every change is an operation the server applies to the text
// (editor.js's edit()); deleting or moving a rule agents are running asks
// first and names them. Escape ends a drag with no change. Shift+click selects the rules from the selected
// one to the clicked one, in one list.
'use strict';

const st = {
  to: null,      // shift+click: the last rule of the selected range (same list)
  found: [],     // labels the search found
  at: -1,        // the one shown
};

function structureInit() {
  const bar = el('div');
  bar.id = 'edstruct';
  bar.innerHTML = `
    <span class="label">wrap in</span>
    <button data-wrap="sequence" title="Wrap the selected rules in a sequence (Ctrl+G)">sequence</button>
    <button data-wrap="choice" title="Wrap the selected rules in a choice">choice</button>
    <button data-wrap="parallel" title="Wrap the selected rules in a parallel">parallel</button>
    <button id="edunwrap" title="Put the selected list's rules in its place (Ctrl+Shift+G)">unwrap</button>
    <button id="edcopy" title="Copy the selected rules as XML (Ctrl+C)">copy</button>
    <button id="edcut" title="Cut the selected rules (Ctrl+X)">cut</button>
    <button id="edpaste" title="Paste into the selected list, or after the selected rule (Ctrl+V)">paste</button>
    <button id="eddup" title="Duplicate the selected rule (Ctrl+D)">duplicate</button>
    <button id="eddel" title="Delete the selected rules (Delete, Backspace)">delete</button>
    <button id="edextract" title="Move the selected rule to a new subtree file, included in its place">extract to file…</button>
    <input id="edfind" type="search" placeholder="Find rules: id, action, condition (Ctrl+F)" spellcheck="false" autocomplete="off">
    <span id="edfound" class="edfound"></span>`;
  $('#edpal').prepend(bar); // above the palette: the tree keeps its height
  for (const b of bar.querySelectorAll('[data-wrap]')) b.onclick = () => wrapSel(b.dataset.wrap);
  $('#edunwrap').onclick = unwrapSel;
  $('#edcopy').onclick = () => copySel(false);
  $('#edcut').onclick = () => copySel(true);
  $('#edpaste').onclick = () => pasteClip(null);
  $('#eddup').onclick = dupSel;
  $('#eddel').onclick = deleteSel;
  $('#edextract').onclick = extractSel;
  $('#edfind').oninput = find;
  $('#edfind').onkeydown = (e) => {
    if (e.key === 'Enter') { e.preventDefault(); showFound(e.shiftKey ? -1 : 1); }
    if (e.key === 'Escape') { e.target.value = ''; find(); e.target.blur(); }
  };
  document.addEventListener('keydown', structureKey);
  document.addEventListener('paste', (e) => {
    if (!structureKeys(e)) return;
    const text = e.clipboardData && e.clipboardData.getData('text/plain');
    e.preventDefault();
    pasteClip(text && text.trim().startsWith('<') ? text : null);
  });
  document.addEventListener('copy', (e) => {
    if (!structureKeys(e) || !st.copied) return;
    e.clipboardData.setData('text/plain', st.copied);
    e.preventDefault();
  });
  // Shift+click extends the selection along the selected rule's list.
  document.addEventListener('click', (e) => {
    const n = e.shiftKey && e.target.closest('.gnode, #edtree .erule > .ehead');
    if (!n || !ed.sel) return;
    e.stopPropagation();
    e.preventDefault();
    const label = n.dataset.label || n.parentElement.dataset.label;
    st.to = label === ed.sel ? null : label;
    markRange();
  }, true);
  edHooks.select.push(() => { st.to = null; markRange(); });
  edHooks.render.push(() => { markRange(); markFound(); });
  edHooks.guard.push(askRunning);
}

// structureKeys reports whether a key or clipboard event is the editor's:
// the editor is open on the rules and no field has the focus.
function structureKeys(e) {
  return !!ed.tree && !!ed.cur && ed.view !== 'source' && !e.target.closest('input, textarea, select, [contenteditable]');
}

function structureKey(e) {
  if (!ed.tree) return;
  if (e.key === 'Escape' && ed.drag) { ed.drag.zone = null; dragEnd(); return; } // the drag drops nothing
  const k = e.key.toLowerCase(), mod = e.ctrlKey || e.metaKey;
  if (mod && k === 'f') { e.preventDefault(); $('#edfind').focus(); return; }
  if (!structureKeys(e)) return;
  if (!mod && (e.key === 'Delete' || e.key === 'Backspace')) { e.preventDefault(); deleteSel(); return; }
  if (!mod) return;
  switch (k) {
    case 'c': copySel(false); break; // the copy event that follows puts it on the system clipboard too
    case 'x': e.preventDefault(); copySel(true); break;
    case 'v': // the paste event brings the system clipboard's text; without one, the page's
      st.pasted = false;
      setTimeout(() => { if (!st.pasted) pasteClip(null); }, 0);
      return;
    case 'd': e.preventDefault(); dupSel(); break;
    case 'g': e.preventDefault(); if (e.shiftKey) unwrapSel(); else wrapSel('sequence'); break;
  }
}

// selectedRules are the selected rules: the selected one, and with a
// shift+click the ones after it in its list up to the clicked one.
function selectedRules() {
  const o = ed.cur && ed.cur.outline, r = selected();
  if (!o || !r) return [];
  const list = r.parent >= 0 ? o.rules[r.parent].children : o.top;
  const i = list.indexOf(r.index);
  const to = st.to ? o.rules.find((x) => x.label === st.to) : null;
  const j = to ? list.indexOf(to.index) : -1;
  if (j < 0) return [r];
  return list.slice(Math.min(i, j), Math.max(i, j) + 1).map((k) => o.rules[k]);
}

function markRange() {
  const labels = new Set(st.to ? selectedRules().map((r) => r.label) : []);
  for (const n of document.querySelectorAll('.gnode, #edtree .erule')) n.classList.toggle('sel2', labels.has(n.dataset.label) && n.dataset.label !== ed.sel);
}

const needSel = () => { toast('Select a rule first: click it in the drawing or the outline', true); return null; };

function wrapSel(tag) {
  const rs = selectedRules();
  if (!rs.length) return needSel();
  // The wrapped rules keep their labels: the new list has no id.
  edit([{ op: 'wrap', rule: rs[0].label, tag, count: rs.length }], (o) => {
    const r = o.rules.find((x) => x.label === rs[0].label);
    return r && r.parent >= 0 ? o.rules[r.parent].label : null;
  });
}

function unwrapSel() {
  const r = selected();
  if (!r) return needSel();
  edit([{ op: 'unwrap', rule: r.label }], null);
}

function deleteSel() {
  const rs = selectedRules();
  if (!rs.length) return needSel();
  edit(rs.map((r) => ({ op: 'delete', rule: r.label })).reverse(), null);
}

function dupSel() {
  const r = selected();
  if (!r) return needSel();
  edit([{ op: 'duplicate', rule: r.label }]);
}

// --- the clipboard: the rules' XML, as the file writes them ---

// ruleElement finds a rule of a tab's outline in its source parsed by the
// browser: the outline lists rules in document order (a state's rule as
// its machine's child), so the k-th rule element in that walk is rule k.
function ruleElement(tab, label) {
  const o = tab.outline;
  const k = o.rules.findIndex((r) => r.label === label);
  const doc = new DOMParser().parseFromString(tab.source.replace(/^\uFEFF/, ''), 'application/xml');
  if (k < 0 || doc.querySelector('parsererror')) return null;
  const tags = new Set(ruleTags());
  let n = -1, found = null;
  const walk = (e) => {
    for (const c of e.children) {
      if (found) return;
      if (tags.has(c.tagName)) {
        if (++n === k) { found = c; return; }
        walk(c);
      } else if (c.tagName === 'state' && e !== doc.documentElement) {
        walk(c);
      }
    }
  };
  walk(doc.documentElement);
  return found;
}

// ruleXML is a rule's markup, its lines moved left by the rule's own
// indentation.
function ruleXML(tab, r) {
  const e = ruleElement(tab, r.label);
  if (!e) return null;
  const line = tab.source.split(/\r?\n/)[r.line - 1] || '';
  const indent = line.slice(0, line.length - line.trimStart().length);
  const xml = new XMLSerializer().serializeToString(e);
  return xml.split(/\r?\n/).map((l, i) => (i > 0 && l.startsWith(indent) ? l.slice(indent.length) : l)).join('\n');
}

function copySel(cut) {
  const rs = selectedRules();
  if (!rs.length) return needSel();
  const xmls = rs.map((r) => ruleXML(ed.cur, r));
  if (xmls.some((x) => !x)) { toast('the file does not parse: fix it in the source first', true); return; }
  st.copied = xmls.join('\n');
  ed.clip = xmls;
  try { localStorage.setItem('btrun.clip', JSON.stringify(xmls)); } catch (e) { /* private mode */ }
  if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(st.copied).catch(() => {});
  toast(`${cut ? 'Cut' : 'Copied'} ${rs.length === 1 ? rs[0].label : rs.length + ' rules'}`);
  if (cut) edit(rs.map((r) => ({ op: 'delete', rule: r.label })).reverse(), null);
}

// pasteClip pastes the clipboard's rules (text: from the system
// clipboard) into the selected list (last), or after the selected rule.
function pasteClip(text) {
  st.pasted = true;
  let xmls = text ? splitRules(text) : ed.clip;
  if (!xmls) { try { xmls = JSON.parse(localStorage.getItem('btrun.clip') || 'null'); } catch (e) { xmls = null; } }
  if (!xmls || !xmls.length) { toast('Nothing to paste: copy a rule first', true); return; }
  const o = ed.cur.outline, r = selected();
  if (!o) return;
  let parent = '', index;
  if (r && holdsRules(r.tag)) { parent = r.label; index = r.children.length; }
  else if (r) { const p = r.parent >= 0 ? o.rules[r.parent] : null; parent = p ? p.label : ''; index = (p ? p.children : o.top).indexOf(r.index) + 1; }
  else index = o.top.length;
  edit(xmls.map((xml, k) => ({ op: 'paste', parent, index: index + k, xml })), inserted(parent, index));
}

// splitRules splits pasted text into its top-level elements.
function splitRules(text) {
  const doc = new DOMParser().parseFromString('<clip>' + text.replace(/<\?xml[^>]*\?>/, '') + '</clip>', 'application/xml');
  if (doc.querySelector('parsererror')) return null;
  const tags = new Set(ruleTags());
  let kids = [...doc.documentElement.children];
  if (kids.length === 1 && kids[0].tagName === 'behaviorTree') kids = [...kids[0].children];
  const out = kids.filter((c) => tags.has(c.tagName)).map((c) => new XMLSerializer().serializeToString(c));
  return out.length ? out : null;
}

// --- extract into a new subtree file ---

async function extractSel() {
  const tab = ed.cur, o = tab && tab.outline, r = selected();
  if (!r) return needSel();
  const e = ruleElement(tab, r.label);
  if (!e) { toast('the file does not parse: fix it in the source first', true); return; }
  const name = ((r.id || '').split('.').pop() || 'extracted').replace(/[^A-Za-z0-9_-]/g, '') || 'extracted';
  const dir = tab.file.split('/').slice(0, -1).join('/');
  const taken = new Set([...ed.tabs.map((t) => t.file), ...(tab.files || [])]);
  let file = (dir ? dir + '/' : '') + name + '.xml';
  for (let k = 2; taken.has(file); k++) file = (dir ? dir + '/' : '') + name + k + '.xml';
  // In its own file the rule's id is the subtree's name (the include adds
  // the dot that joins it to the ids around it).
  e.setAttribute('id', name);
  const line = tab.source.split(/\r?\n/)[r.line - 1] || '';
  const indent = line.slice(0, line.length - line.trimStart().length);
  const body = new XMLSerializer().serializeToString(e).split(/\r?\n/)
    .map((l, i) => '  ' + (i > 0 && l.startsWith(indent) ? l.slice(indent.length) : l)).join('\n');
  const source = `<?xml version="1.0" encoding="UTF-8"?>\n<behaviorTree>\n${body}\n</behaviorTree>\n`;
  const made = await edApi('POST', `/api/trees/${encodeURIComponent(ed.tree)}/edit`, { file, source, ops: [] });
  if (made.status !== 200) { toast(made.data.error, true); return; }
  const nt = { file, source, saved: '', version: null, base: '', outline: made.data.outline, outlineError: made.data.outlineError || '', encoding: 'UTF-8',
    undo: [], redo: [], problems: [], isNew: true };
  ed.tabs.push(nt);
  const p = r.parent >= 0 ? o.rules[r.parent] : null;
  const parent = p ? p.label : '', index = (p ? p.children : o.top).indexOf(r.index);
  const ok = await edit([{ op: 'delete', rule: r.label }, { op: 'insert', parent, index, xml: `<subtree id=".${name}">${relativePath(tab.file, file)}</subtree>` }],
    inserted(parent, index));
  if (!ok) { ed.tabs.splice(ed.tabs.indexOf(nt), 1); renderEditor(); return; }
  toast(`Moved ${r.label} to ${file} (saved with ${tab.file})`);
}

// --- agents on the rules an edit removes or moves ---

// askRunning asks before an edit deletes, moves or unwraps rules that
// agents are on now, naming them.
function askRunning(ops) {
  const o = ed.cur && ed.cur.outline;
  if (!o || typeof agentsOn !== 'function') return true;
  const on = agentsOn();
  const ids = new Set(), rules = [];
  let verb = '';
  for (const op of ops) {
    if (!['delete', 'move', 'unwrap'].includes(op.op)) continue;
    const r = o.rules.find((x) => x.label === op.rule);
    if (!r) continue;
    const before = ids.size;
    const walk = (x) => { (on.get(x.label) || []).forEach((i) => ids.add(i)); x.children.forEach((k) => walk(o.rules[k])); };
    walk(r);
    if (ids.size > before) { rules.push(r.label); verb = verb || op.op; }
  }
  if (!ids.size) return true;
  const who = [...ids];
  const names = who.length > 6 ? `${who.slice(0, 6).join(', ')} and ${who.length - 6} more` : who.join(', ');
  $('#confirmtext').textContent = `${names} ${who.length === 1 ? 'is' : 'are'} running ${rules.join(', ')} (or a rule inside it) now. ` +
    `${verb[0].toUpperCase() + verb.slice(1)} it anyway? Once saved, ${who.length === 1 ? 'it leaves' : 'they leave'} the rule.`;
  $('#confirmyes').textContent = verb[0].toUpperCase() + verb.slice(1);
  $('#confirm').hidden = false;
  $('#confirm').classList.add('running');
  return new Promise((resolve) => {
    const no = $('#confirmno'), prev = no.onclick;
    const done = (v) => { no.onclick = prev; $('#confirm').classList.remove('running'); resolve(v); };
    ui.pending = () => done(true);
    no.onclick = (e) => { prev(e); done(false); };
  });
}

// --- search ---

// find marks the rules whose label, id, action, subtree path or
// conditions hold the text looked for, and shows the first.
function find() {
  const q = $('#edfind').value.trim().toLowerCase();
  const o = ed.cur && ed.cur.outline;
  st.found = !q || !o ? [] : o.rules.filter((r) => [r.label, r.id || '', attrOf(r.attrs, 'name') || '', r.text || '', ...r.conditions]
    .some((s) => s.toLowerCase().includes(q))).map((r) => r.label);
  st.at = -1;
  markFound();
  if (st.found.length) showFound(1);
}

function showFound(d) {
  if (!st.found.length) return;
  st.at = (st.at + d + st.found.length) % st.found.length;
  selectRule(st.found[st.at]);
  const n = document.querySelector(ed.view === 'graph' ? `.gnode[data-label="${CSS.escape(ed.sel)}"]` : `#edtree .erule[data-label="${CSS.escape(ed.sel)}"]`);
  if (n && ed.view !== 'graph') n.scrollIntoView({ block: 'nearest' });
  markFound();
}

function markFound() {
  const found = new Set(st.found);
  for (const n of document.querySelectorAll('.gnode, #edtree .erule')) n.classList.toggle('found', found.has(n.dataset.label));
  const q = $('#edfind') && $('#edfind').value.trim();
  $('#edfound').textContent = !q ? '' : st.found.length ? `${st.at + 1} of ${st.found.length}` : 'no rule';
}

edHooks.build.push(structureInit);
