// btrun live view: the project. Every tree of the game in a list (with the
// files each is loaded from), and the trees a designer opened as tabs over
// the drawing, so that several trees are a click (or a key) apart. Plain
// JavaScript; it uses the page's helpers (app.js: $, el, api, esc, ui,
// showTreeOnly, select) and, when the run edits, the editor's openEditor
// and openFile (editor.js). app.js calls projects.shown() whenever the
// drawing changes to another tree or agent.
'use strict';

const projects = {
  trees: [],     // GET /api/trees
  tabs: [],      // names of the trees opened as tabs, in the order opened
  reloads: -1,   // the status's reloads when the list was fetched
};

function projectsInit() {
  const left = $('#left');
  const title = el('div', 'section-title', 'Project');
  title.id = 'project-title';
  const list = el('ul');
  list.id = 'project';
  list.setAttribute('aria-label', 'Trees of the game');
  left.insertBefore(list, $('#bps').previousElementSibling);
  left.insertBefore(title, list);
  const tabs = el('div');
  tabs.id = 'treetabs';
  tabs.setAttribute('role', 'tablist');
  tabs.hidden = true;
  $('#center').insertBefore(tabs, $('#canvaswrap'));
  list.onclick = (e) => {
    const f = e.target.closest('[data-file]');
    if (f) { openProjectFile(f.dataset.tree, f.dataset.file); return; }
    const t = e.target.closest('[data-tree]');
    if (t) openTreeTab(t.dataset.tree);
  };
  tabs.onclick = (e) => {
    const t = e.target.closest('[data-tab]');
    if (!t) return;
    if (e.target.closest('.x')) closeTreeTab(t.dataset.tab);
    else openTreeTab(t.dataset.tab);
  };
  // Keys on a focused tab: arrows move between tabs, Delete closes it.
  tabs.onkeydown = (e) => {
    const t = e.target.closest('[data-tab]');
    if (!t) return;
    const i = projects.tabs.indexOf(t.dataset.tab);
    let to = null;
    if (e.key === 'ArrowRight') to = projects.tabs[(i + 1) % projects.tabs.length];
    else if (e.key === 'ArrowLeft') to = projects.tabs[(i + projects.tabs.length - 1) % projects.tabs.length];
    else if (e.key === 'Delete' || e.key === 'Backspace') { e.preventDefault(); closeTreeTab(t.dataset.tab); return; }
    if (to === null) return;
    e.preventDefault();
    openTreeTab(to);
    focusTab(to);
  };
  // The list follows reloads (a save from the editor, a new subtree file).
  setInterval(() => { if (ui.status && ui.status.reloads !== projects.reloads) refreshProject(); }, 500);
}

async function refreshProject() {
  const reloads = ui.status ? ui.status.reloads : -1;
  let trees;
  try { trees = await api('GET', '/api/trees'); } catch (e) { return; }
  projects.reloads = reloads;
  projects.trees = trees || [];
  projects.tabs = projects.tabs.filter((n) => projects.trees.some((t) => t.name === n));
  renderProject();
}

function renderProject() {
  const list = $('#project');
  const editing = typeof ed !== 'undefined' && ed.palette;
  list.replaceChildren(...projects.trees.map((t) => {
    const li = el('li');
    const b = el('button', 'ptree' + (ui.treeOnly === t.name ? ' shown' : ''));
    b.dataset.tree = t.name;
    b.title = `Open ${t.name} in a tab`;
    b.innerHTML = `<span class="pname">${esc(t.name)}</span><span class="pcount">${t.agents} agent${t.agents === 1 ? '' : 's'} · ${t.rules} rules</span>`;
    li.append(b);
    const files = el('ul', 'pfiles');
    for (const f of t.files || [t.file]) {
      const fl = el('li');
      const fb = el('button', 'pfile', f);
      fb.dataset.tree = t.name;
      fb.dataset.file = f;
      fb.title = editing ? `Edit ${f}` : `Show ${t.name}`;
      fl.append(fb);
      files.append(fl);
    }
    li.append(files);
    return li;
  }));
  renderTreeTabs();
}

function renderTreeTabs() {
  const box = $('#treetabs');
  // A tab that had the keyboard keeps it through the redraw (the shown
  // tab's, when that tab was closed).
  const a = document.activeElement;
  const focused = a && box.contains(a) && a.dataset.tab;
  box.hidden = projects.tabs.length === 0;
  box.replaceChildren(...projects.tabs.map((name) => {
    const on = ui.treeOnly === name;
    const t = el('button', 'ttab' + (on ? ' on' : ''));
    t.dataset.tab = name;
    t.setAttribute('role', 'tab');
    t.setAttribute('aria-selected', on ? 'true' : 'false');
    t.title = `${name} (← → other tabs, Delete closes)`;
    t.innerHTML = `${esc(name)}<span class="x" title="Close the tab" aria-label="Close ${esc(name)}">×</span>`;
    return t;
  }));
  if (focused) focusTab(projects.tabs.includes(focused) ? focused : ui.treeOnly);
}

function focusTab(name) {
  const t = name && [...document.querySelectorAll('#treetabs [data-tab]')].find((b) => b.dataset.tab === name);
  if (t) t.focus();
}

// openTreeTab shows tree name in its tab (opening one if needed).
function openTreeTab(name) {
  if (!projects.tabs.includes(name)) projects.tabs.push(name);
  history.replaceState(null, '', '#tree=' + encodeURIComponent(name));
  showTreeOnly(name);
  renderProject();
}

// closeTreeTab closes a tab; closing the one shown shows its neighbour, or
// the first agent when it was the last.
function closeTreeTab(name) {
  const i = projects.tabs.indexOf(name);
  if (i < 0) return;
  projects.tabs.splice(i, 1);
  if (ui.treeOnly === name) {
    const next = projects.tabs[Math.min(i, projects.tabs.length - 1)];
    if (next) openTreeTab(next);
    else if (ui.agents.length) select(ui.agents[0].id);
  }
  renderProject();
}

// openProjectFile edits a tree's file when the run edits; else shows the tree.
async function openProjectFile(tree, file) {
  openTreeTab(tree);
  if (typeof ed === 'undefined' || !ed.palette) return;
  if (ed.tree !== tree) await openEditor(tree);
  if (ed.tree === tree) await openFile(file);
}

projects.shown = renderProject;
projectsInit();
refreshProject();
