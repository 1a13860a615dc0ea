// btrun live view: time travel across the editor's saves. The status lists
// the steps each save came after (timeTravel.edits): the slider gets a mark
// at each, and a step shown before one says that it ran the trees as they
// were, to be looked at only. Plain JavaScript; app.js calls replay.render
// after it draws the time travel bar.
'use strict';

const replay = {
  render() {
    const s = ui.status;
    const edits = (s && s.timeTravel.edits) || [];
    const slider = $('#slider');
    let marks = $('#travelmarks');
    if (!marks) {
      marks = el('div');
      marks.id = 'travelmarks';
      slider.parentNode.insertBefore(marks, slider.nextSibling);
    }
    const min = Number(slider.min), max = Number(slider.max);
    const key = edits.join() + '|' + min + '|' + max;
    if (marks.dataset.key !== key) {
      marks.dataset.key = key;
      // Over the slider: each mark where its step sits on the track.
      const r = slider.getBoundingClientRect(), p = slider.parentNode.getBoundingClientRect();
      marks.style.left = (r.left - p.left) + 'px';
      marks.style.width = r.width + 'px';
      marks.replaceChildren(...edits.filter((at) => at >= min && at <= max && max > min).map((at) => {
        const m = el('span', 'editmark');
        m.dataset.step = at;
        m.style.left = `calc(${((at - min) / (max - min)) * 100}% - 1px)`;
        m.title = `saved from the editor after step ${at}: the steps before ran the trees as they were`;
        return m;
      }));
    }
    const after = edits.find((at) => s.step < at);
    document.body.classList.toggle('oldtrees', after !== undefined);
    if (after !== undefined && s.paused) {
      $('#travelinfo').innerHTML = `showing step <b>${s.step}</b>, before the save after step ${after}: the trees as they were then, to look at (the game goes on from step ${after} or later)`;
    }
  },
};
