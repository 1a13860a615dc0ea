// btrun live view: the editor's drawing (`-edit`). The tree being edited
// drawn as the live view draws it, and edited there: click a rule to
// select it (the outline and the drawing share one selection), drag it
// onto another rule or between two rules to move it, drop a palette item
// on the drawing to insert it, drag the background to pan, the wheel to
// zoom. The agents' current rules are shown on the rules while editing
// (from the agent list the server sends: each agent's tree and rule).
// Plain JavaScript, no build step; it draws with editor.js's helpers and
// sends its edits through editor.js's edit() and drag machinery.
'use strict';

const GW = 190, GH = 64, GGX = 36, GGY = 18;

const gr = {
  zoom: 1,
  pan: null,    // a background drag in progress: {x, y, left, top}
  nodes: new Map(), // label -> node element
  layout: null,
};

// graphLayout places an outline's rules: depth across, leaves down, each
// list beside the middle of its rules (as the live view's layout).
function graphLayout(o) {
  const pos = new Array(o.rules.length);
  let row = 0, depth = 0;
  const place = (i) => {
    const r = o.rules[i];
    depth = Math.max(depth, r.depth);
    let y;
    if (!r.children.length) {
      y = row * (GH + GGY);
      row++;
    } else {
      const ys = r.children.map(place);
      y = (ys[0] + ys[ys.length - 1]) / 2;
    }
    pos[i] = { x: r.depth * (GW + GGX), y };
    return y;
  };
  o.top.forEach(place);
  return { pos, width: (depth + 2) * (GW + GGX), height: Math.max(1, row) * (GH + GGY) + GGY };
}

function graphInit() {
  const seg = $('#edvtree').parentElement;
  const b = el('button', '', 'Drawing');
  b.id = 'edvgraph';
  b.title = 'Edit the rules in the drawing, with the agents on them';
  b.onclick = () => {
    ed.view = 'graph';
    renderEditor();
    // The selection made in the tree in sight, else the agents.
    const n = gr.nodes.get(ed.sel) || $('#edgcanvas .gnode.cursor');
    if (n) graphReveal(n);
  };
  seg.insertBefore(b, seg.firstChild);
  const wrap = el('div');
  wrap.id = 'edgraph';
  wrap.hidden = true;
  wrap.innerHTML = '<div id="edgcanvas"></div>';
  $('#edcenter').prepend(wrap);
  wrap.addEventListener('pointerdown', panStart);
  wrap.addEventListener('wheel', wheelZoom, { passive: false });
  document.addEventListener('pointermove', panMove);
  document.addEventListener('pointerup', () => { gr.pan = null; $('#edgraph').classList.remove('panning'); });
  edHooks.render.push(graphRender);
  edHooks.select.push(graphSelect);
  edHooks.update.push(graphAgents);
  edHooks.marks.push(graphMarks);
  edHooks.dragmove.push(graphDragMove);
}

// graphRender draws the current tab's outline when the drawing is shown.
function graphRender() {
  const shown = ed.view === 'graph' && !!ed.cur && !!ed.cur.outline;
  $('#edgraph').hidden = !shown;
  $('#edvgraph').classList.toggle('on', ed.view === 'graph');
  $('#edvtree').classList.toggle('on', ed.view === 'tree');
  if (!shown) return;
  const o = ed.cur.outline;
  const L = graphLayout(o);
  gr.layout = L;
  const root = $('#edgcanvas');
  const svgNS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(svgNS, 'svg');
  svg.setAttribute('width', L.width);
  svg.setAttribute('height', L.height);
  const parts = [svg];
  gr.nodes = new Map();
  o.rules.forEach((r, i) => {
    const p = L.pos[i];
    if (!p) return;
    if (r.parent >= 0) {
      const q = L.pos[r.parent];
      const x1 = q.x + GW, y1 = q.y + GH / 2, x2 = p.x, y2 = p.y + GH / 2;
      const path = document.createElementNS(svgNS, 'path');
      path.setAttribute('d', `M${x1} ${y1} C${x1 + GGX / 2} ${y1}, ${x2 - GGX / 2} ${y2}, ${x2} ${y2}`);
      path.setAttribute('class', 'edge');
      svg.append(path);
    }
    parts.push(graphNode(o, r, p));
  });
  parts.push(...graphZones(o, L));
  root.replaceChildren(...parts);
  root.style.width = L.width + 'px';
  root.style.height = L.height + 'px';
  graphZoom(gr.zoom);
  graphAgents();
  graphMarks();
}

// graphNode is one rule's box; dropping on it puts the dragged rule into
// it (last) when it holds rules, else after it.
function graphNode(o, r, p) {
  const n = el('div', 'node gnode edrop k-' + r.tag + (r.label === ed.sel ? ' sel' : ''));
  n.style.left = p.x + 'px';
  n.style.top = p.y + 'px';
  n.dataset.label = r.label;
  const parent = r.parent >= 0 ? o.rules[r.parent] : null;
  if (holdsRules(r.tag)) {
    n.dataset.parent = r.label;
    n.dataset.index = r.children.length;
  } else {
    n.dataset.parent = parent ? parent.label : '';
    n.dataset.index = (parent ? parent.children : o.top).indexOf(r.index) + 1;
  }
  n.append(el('span', 'kind', KINDS[r.tag] || r.tag.toUpperCase()));
  const l1 = el('div', 'l1');
  const title = el('span', 'title');
  if (r.id) {
    const shown = parent && parent.id && r.id.startsWith(parent.id + '.') ? r.id.slice(parent.id.length) : r.id;
    title.append(el('b', '', shown));
  } else {
    title.append(el('b', '', attrOf(r.attrs, 'name') || r.tag), el('span', 'pre', ` @${r.line}:${r.col}`));
  }
  l1.append(title, el('span', 'eprob'));
  const sub = [];
  if (r.tag === 'action') sub.push(attrOf(r.attrs, 'name'));
  if (r.text) sub.push(r.text);
  if (r.conditions.length) sub.push('if ' + r.conditions.join(r.mode === 'anyTrue' || r.mode === 'anyFalse' ? ' or ' : ' and '));
  const l2 = el('div', 'l2', sub.join(' · '));
  const l3 = el('div', 'l3 gagents');
  n.append(l1, l2, l3);
  n.title = r.label + (r.params.length ? '\n' + r.params.map(([k, v]) => `${k} = ${v}`).join('\n') : '');
  n.onpointerdown = (e) => { e.stopPropagation(); startDrag(e, { move: r.label }, r.label); };
  n.onclick = () => { if (!ed.dragged) selectRule(r.label); };
  gr.nodes.set(r.label, n);
  return n;
}

// graphZones are the places between rules a drag can drop at: above each
// rule of a list, below its last, and beside a list with no rules.
function graphZones(o, L) {
  const out = [];
  const zone = (parent, index, x, y, w) => {
    const z = el('div', 'edrop gzone');
    z.dataset.parent = parent;
    z.dataset.index = index;
    Object.assign(z.style, { left: x + 'px', top: y + 'px', width: w + 'px' });
    out.push(z);
  };
  const list = (parent, kids) => {
    kids.forEach((k, j) => { const p = L.pos[k]; zone(parent, j, p.x, p.y - GGY, GW); });
    if (kids.length) { const p = L.pos[kids[kids.length - 1]]; zone(parent, kids.length, p.x, p.y + GH, GW); }
  };
  list('', o.top);
  o.rules.forEach((r, i) => {
    if (!holdsRules(r.tag)) return;
    if (r.children.length) list(r.label, r.children);
    else { const p = L.pos[i]; zone(r.label, 0, p.x + GW + GGX / 2, p.y + GH / 2 - GGY / 2, GW / 2); }
  });
  return out;
}

// graphSelect follows the selection made in either view.
function graphSelect() {
  for (const [label, n] of gr.nodes) n.classList.toggle('sel', label === ed.sel);
  const n = gr.nodes.get(ed.sel);
  if (n && ed.view === 'graph') graphReveal(n);
}

function graphReveal(n) {
  const wrap = $('#edgraph');
  const x = (parseFloat(n.style.left) + GW / 2) * gr.zoom, y = (parseFloat(n.style.top) + GH / 2) * gr.zoom;
  if (x < wrap.scrollLeft || x > wrap.scrollLeft + wrap.clientWidth || y < wrap.scrollTop || y > wrap.scrollTop + wrap.clientHeight) {
    wrap.scrollLeft = x - wrap.clientWidth / 2;
    wrap.scrollTop = y - wrap.clientHeight / 2;
  }
}

// graphMarks marks problems and search matches on the drawing.
function graphMarks() {
  for (const [label, n] of gr.nodes) {
    const ps = problemsAt(label);
    const err = ps.some((p) => p.severity === 'error');
    n.classList.toggle('has-error', err);
    n.classList.toggle('has-warning', !err && ps.length > 0);
    const badge = n.querySelector('.eprob');
    badge.textContent = ps.length ? (err ? '✖ ' : '⚠ ') + ps.length : '';
    badge.title = ps.map((p) => p.message).join('\n');
  }
  if (typeof markFound === 'function') markFound();
}

// agentsOn maps the rules of the edited tree to the agents whose current
// rule they are (the live agent list: each agent's tree and rule label).
function agentsOn() {
  const m = new Map();
  for (const a of ui.agents || []) {
    if (!ed.tree || !a.rule || (a.tree !== ed.tree && !a.tree.startsWith(ed.tree + '['))) continue;
    if (!m.has(a.rule)) m.set(a.rule, []);
    m.get(a.rule).push(a.id);
  }
  return m;
}

// graphAgents shows each agent on its current rule.
function graphAgents() {
  if (ed.view !== 'graph' || !gr.nodes.size) return;
  const on = agentsOn();
  for (const [label, n] of gr.nodes) {
    const ids = on.get(label) || [];
    n.classList.toggle('cursor', ids.length > 0);
    const box = n.querySelector('.gagents');
    const text = ids.length ? '● ' + (ids.length > 3 ? `${ids.slice(0, 3).join(', ')} +${ids.length - 3}` : ids.join(', ')) : '';
    if (box.textContent !== text) box.replaceChildren(...(text ? [el('span', 'chip live', text)] : []));
    box.title = ids.join(', ');
  }
}

// --- panning and zooming ---

function panStart(e) {
  if (e.button !== 0 || e.target.closest('.gnode')) return;
  const w = $('#edgraph');
  gr.pan = { x: e.clientX, y: e.clientY, left: w.scrollLeft, top: w.scrollTop };
  w.classList.add('panning');
}

function panMove(e) {
  if (!gr.pan) return;
  const w = $('#edgraph');
  w.scrollLeft = gr.pan.left - (e.clientX - gr.pan.x);
  w.scrollTop = gr.pan.top - (e.clientY - gr.pan.y);
}

// wheelZoom zooms about the pointer: the point under it stays there.
function wheelZoom(e) {
  e.preventDefault();
  const w = $('#edgraph');
  const r = w.getBoundingClientRect();
  const px = e.clientX - r.left, py = e.clientY - r.top;
  const cx = (w.scrollLeft + px) / gr.zoom, cy = (w.scrollTop + py) / gr.zoom;
  graphZoom(gr.zoom * (e.deltaY < 0 ? 1.15 : 1 / 1.15));
  w.scrollLeft = cx * gr.zoom - px;
  w.scrollTop = cy * gr.zoom - py;
}

function graphZoom(z) {
  gr.zoom = Math.max(0.1, Math.min(2.5, z));
  const c = $('#edgcanvas');
  c.style.transform = `scale(${gr.zoom})`;
  if (gr.layout) {
    c.style.marginRight = gr.layout.width * (gr.zoom - 1) + 'px';
    c.style.marginBottom = gr.layout.height * (gr.zoom - 1) + 'px';
  }
}

// graphDragMove marks the rule dragged and the rules inside it (no drop
// there), and scrolls the view.
function graphDragMove(e) {
  const d = ed.drag;
  if (d && d.payload.move && !d.marked && gr.nodes.size) {
    d.marked = true;
    const o = ed.cur.outline;
    const mark = (r) => { const n = gr.nodes.get(r.label); if (n) n.classList.add('edragsrc'); r.children.forEach((k) => mark(o.rules[k])); };
    const r = o.rules.find((x) => x.label === d.payload.move);
    if (r) mark(r);
  }
  autoScroll(e);
}

// autoScroll scrolls the view a drag is in when the pointer stays near
// its edge, faster the nearer: from the fourth pointer move in a row
// there, so that a drop on a rule near the edge is not scrolled away
// under the pointer.
function autoScroll(e) {
  const d = ed.drag;
  const box = ed.view === 'graph' ? $('#edgraph') : $('#edcenter');
  const r = box.getBoundingClientRect();
  const edge = 40;
  const near = (x) => Math.max(0, edge - x);
  const dy = near(r.bottom - e.clientY) - near(e.clientY - r.top), dx = near(r.right - e.clientX) - near(e.clientX - r.left);
  const inside = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
  d.edgeMoves = inside && (dx || dy) ? (d.edgeMoves || 0) + 1 : 0;
  if (d.edgeMoves < 4) return;
  box.scrollTop += Math.sign(dy) * Math.ceil(Math.abs(dy) / 2);
  box.scrollLeft += Math.sign(dx) * Math.ceil(Math.abs(dx) / 2);
}

edHooks.build.push(graphInit);
