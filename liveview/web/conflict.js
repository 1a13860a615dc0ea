// btrun live view: a save that meets a file changed on disk (editor.js).
// The page never writes over a change it has not shown: it puts the
// designer's version and the disk's side by side, each difference with a
// choice (preset from the text both were made from: the side that changed
// it wins, the designer's when both did), and saves the merge only when
// asked. Plain JavaScript, no build step.
'use strict';

// splitLines keeps each line's end, so a merge is byte-exact.
const splitLines = (s) => (s === '' ? [] : s.match(/[^\n]*\n|[^\n]+$/g));

// lineDiff returns the runs of a and b: {same: true, a: [i, j], b: [k, l]}
// or {same: false, ...}. The common start and end are cut first; what is
// left is compared line by line when it is small, else it is one
// difference (the page's memory stays bounded on a huge file).
function lineDiff(a, b) {
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  const n = a.length - p - s, m = b.length - p - s;
  const runs = [];
  const push = (same, a0, a1, b0, b1) => {
    if (a0 === a1 && b0 === b1) return;
    const last = runs[runs.length - 1];
    if (last && last.same === same) { last.a[1] = a1; last.b[1] = b1; return; }
    runs.push({ same, a: [a0, a1], b: [b0, b1] });
  };
  push(true, 0, p, 0, p);
  if (n * m > 4e6) {
    push(false, p, p + n, p, p + m);
  } else {
    // lcs[i][j]: the longest common lines of a[p+i..] and b[p+j..].
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i][j] = a[p + i] === b[p + j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    let i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[p + i] === b[p + j]) { push(true, p + i, p + i + 1, p + j, p + j + 1); i++; j++; }
      else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) { push(false, p + i, p + i, p + j, p + j + 1); j++; }
      else { push(false, p + i, p + i + 1, p + j, p + j); i++; }
    }
  }
  push(true, a.length - s, a.length, b.length - s, b.length);
  return runs;
}

// changedLines marks the lines of b that differ from a.
function changedLines(a, b) {
  const out = new Uint8Array(b.length);
  for (const r of lineDiff(a, b)) if (!r.same) out.fill(1, r.b[0], r.b[1]);
  return out;
}

// showConflict shows tab's text beside the disk's (text and version, as
// GET .../source gave them) in the result box, with the choices.
function showConflict(tab, disk, message) {
  const base = splitLines(tab.base), mine = splitLines(tab.source), theirs = splitLines(disk.source);
  const byMe = changedLines(base, mine), byDisk = changedLines(base, theirs);
  const runs = lineDiff(mine, theirs);
  const any = (marks, [i, j]) => marks.subarray(i, j).some((x) => x);
  for (const r of runs) {
    if (r.same) continue;
    const me = any(byMe, r.a), them = any(byDisk, r.b);
    r.both = me && them;
    // Nothing of mine in it: the disk changed it (or I removed lines the
    // disk still has unchanged).
    r.pick = me || (r.a[0] === r.a[1] && !them) ? 'mine' : 'disk';
  }
  const box = $('#edresult');
  box.hidden = false;
  box.className = 'conflict';
  const grid = el('div', 'cdiff');
  grid.append(el('div', 'chead', 'Your version'), el('div', 'chead'), el('div', 'chead', 'On disk now'));
  const text = (lines, cls) => el('pre', cls, lines.join('') || ' ');
  runs.forEach((r, k) => {
    if (r.same) {
      const lines = mine.slice(r.a[0], r.a[1]);
      const shown = lines.length > 4 ? [...lines.slice(0, 2), `… ${lines.length - 4} same lines …\n`, ...lines.slice(-2)] : lines;
      grid.append(text(shown, 'csame'), el('div'), text(shown, 'csame'));
      return;
    }
    const left = text(mine.slice(r.a[0], r.a[1]), 'cmine'), right = text(theirs.slice(r.b[0], r.b[1]), 'cdisk');
    const pickers = el('div', 'cpick' + (r.both ? ' both' : ''));
    pickers.dataset.hunk = k;
    const mark = () => {
      left.classList.toggle('on', r.pick === 'mine');
      right.classList.toggle('on', r.pick === 'disk');
    };
    const use = (side, label, tip) => {
      const b = el('button', 'icon', label);
      b.title = tip;
      b.dataset.pick = side;
      b.onclick = () => { r.pick = side; mark(); };
      return b;
    };
    pickers.append(use('mine', '◀', 'Keep yours'), use('disk', '▶', "Take the disk's"));
    if (r.both) pickers.title = 'Both changed these lines';
    mark();
    grid.append(left, pickers, right);
  });
  const merged = () => runs.map((r) => (r.same || r.pick === 'mine' ? mine.slice(r.a[0], r.a[1]) : theirs.slice(r.b[0], r.b[1])).join('')).join('');
  const save = el('button', 'primary', 'Save the merge');
  save.id = 'edmerge';
  save.title = 'Save the lines chosen in each difference (◀ yours, ▶ the disk\'s)';
  save.onclick = () => saveMerge(tab, disk, merged());
  const load = el('button', '', "Load the disk's version");
  load.id = 'edtakedisk';
  load.title = 'Your edits stay in Undo';
  load.onclick = () => reloadFromDisk(tab);
  const head = el('div', 'chint');
  head.append(el('span', '', message + ' '), save, el('span', '', ' '), load);
  box.replaceChildren(head, grid);
}

// saveMerge makes the merge the tab's text (Undo brings back the text
// before it), made from the disk's version, and saves it.
async function saveMerge(tab, disk, text) {
  const r = await edApi('POST', `/api/trees/${encodeURIComponent(ed.tree)}/edit`, { file: tab.file, source: text, ops: [] });
  if (r.status !== 200) { toast(r.data.error || 'cannot read the merge', true); return; }
  ed.cur = tab;
  setSource(tab, text, r.data.outline, r.data.outlineError);
  tab.saved = disk.source;
  tab.version = disk.version;
  tab.base = disk.source;
  $('#edresult').hidden = true;
  renderEditor();
  saveNow();
}
