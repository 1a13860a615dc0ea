// btrun live view: replay beyond one run. Open save (in the time travel
// bar) loads a save file beside the config into the running game; and time
// travel across the editor's saves. The status lists
// the steps each save came after (timeTravel.edits): the slider gets a mark
// at each, and a step shown before one says that it ran the trees as they
// were, to be looked at only. Plain JavaScript; app.js calls replay.render
// after it draws the time travel bar.
'use strict';

const replay = {
  render() {
    const s = ui.status;
    const edits = (s && s.timeTravel.edits) || [];
    const after = edits.find((at) => s.step < at);
    document.body.classList.toggle('oldtrees', after !== undefined);
    if (after !== undefined && s.paused) {
      $('#travelinfo').innerHTML = `showing step <b>${s.step}</b>, before the save after step ${after}: the trees as they were then, to look at (the game goes on from step ${after} or later)`;
    }
    const slider = $('#slider');
    let marks = $('#travelmarks');
    if (!marks) {
      marks = el('div');
      marks.id = 'travelmarks';
      slider.parentNode.insertBefore(marks, slider.nextSibling);
    }
    // Over the slider's track, measured after the bar's text is set (the
    // slider's width follows it).
    const r = slider.getBoundingClientRect(), p = slider.parentNode.getBoundingClientRect();
    marks.style.left = (r.left - p.left) + 'px';
    marks.style.width = r.width + 'px';
    const min = Number(slider.min), max = Number(slider.max);
    const key = edits.join() + '|' + min + '|' + max;
    if (marks.dataset.key === key) return;
    marks.dataset.key = key;
    marks.replaceChildren(...edits.filter((at) => at >= min && at <= max && max > min).map((at) => {
      const m = el('span', 'editmark');
      m.dataset.step = at;
      m.style.left = `calc(${((at - min) / (max - min)) * 100}% - 1px)`;
      m.title = `saved from the editor after step ${at}: the steps before ran the trees as they were`;
      return m;
    }));
  },
};

// Open save: a button in the time travel bar, a list of the save files
// beside the config (GET /api/saves), and Open, which loads the chosen one
// (POST /api/load) after the page asks when later steps would go.
function replayInit() {
  const open = el('button', '', 'Open save…');
  open.id = 'opensave';
  open.title = 'Load a save file from the config\'s folder into the game (time travel starts at its step)';
  const form = el('form', 'row');
  form.id = 'saveform';
  form.hidden = true;
  const list = el('select');
  list.id = 'savelist';
  list.setAttribute('aria-label', 'Save files');
  const go = el('button', 'primary', 'Open');
  go.type = 'submit';
  go.id = 'saveopen';
  form.append(list, go);
  $('#travel').append(open, form);
  open.onclick = async () => {
    if (!form.hidden) { form.hidden = true; return; }
    const r = await act('GET', '/api/saves');
    if (!r) return;
    if (!r.saves.length) { toast('No save file in the config\'s folder (btrun run -save NAME writes one)', true); return; }
    list.replaceChildren(...r.saves.map((n) => new Option(n, n)));
    form.hidden = false;
    list.focus();
  };
  form.onsubmit = (e) => {
    e.preventDefault();
    const file = list.value;
    if (!file) return;
    confirmDiscard('Open the save', async () => {
      const r = await act('POST', '/api/load', { file });
      if (!r) return;
      form.hidden = true;
      toast(`${file}: the game is at its step ${r.step}` + (r.warnings.length ? ' (' + r.warnings.join('; ') + ')' : ''));
    });
  };
}

replayInit();
