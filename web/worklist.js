// The Worklist view: not built yet (issue 26).
'use strict';

MR.registerView('worklist', {
  title: 'Worklist',
  mount(el) {
    el.append(MR.h('p', { text: 'This view is not available in this version of the page. The Runs view lists what the server has run.' }));
  },
});
