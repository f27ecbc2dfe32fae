// The routes and health pages, drawn from the live event stream.
import { h, pill, num, table } from './ui.js';
import { state, onLive } from './app.js';

function heading(root, text, intro) {
  root.append(h('h1', {}, text));
  if (intro) root.append(h('p', { class: 'muted' }, intro));
}

function rate(v) { return v === undefined ? '\u2014' : (Math.round(v * 100) / 100).toString(); }

export function routesPage(root) {
  heading(root, 'Routes', 'Rates are messages per second over the last few seconds; the view updates itself.');
  const box = h('div', { id: 'routes-table' });
  root.append(box);
  const draw = () => {
    const data = state.routes;
    if (!data) { box.replaceChildren(h('p', { class: 'muted' }, 'Waiting for the first update\u2026')); return; }
    if (!data.routes.length) { box.replaceChildren(h('p', {}, 'No routes are configured.')); return; }
    const cols = [
      { label: 'Route' }, { label: 'State' }, { label: 'Role' }, { label: 'In flight', num: true },
      { label: 'In /s', num: true }, { label: 'Out /s', num: true }, { label: 'Outbox', num: true },
      { label: 'DLQ', num: true }, { label: 'Last error' },
    ];
    const rows = data.routes.map((r) => ({
      attrs: { 'data-route': r.id },
      cells: [
        h('strong', {}, r.id), pill(r.state), r.role || '\u2014', num(r.in_flight),
        rate(r.received_per_sec), rate(r.sent_per_sec), num(r.outbox_depth),
        r.dlq_depth ? h('a', { href: '#/dlq?route=' + encodeURIComponent(r.id) }, String(r.dlq_depth)) : num(r.dlq_depth),
        r.last_error || '',
      ],
    }));
    box.replaceChildren(table('Routes', cols, rows));
  };
  draw();
  onLive((name) => { if (name === 'routes') draw(); });
}

export function healthPage(root) {
  heading(root, 'Health', 'Readiness and the health of each component, as the bridge reports them now.');
  const box = h('div', { id: 'health' });
  root.append(box);
  const draw = () => {
    const data = state.health;
    if (!data) { box.replaceChildren(h('p', { class: 'muted' }, 'Waiting for the first update\u2026')); return; }
    const rd = data.ready;
    const deep = data.deep;
    const parts = [
      h('section', { class: 'card', 'aria-labelledby': 'ready-h' },
        h('h2', { id: 'ready-h' }, 'Readiness'),
        h('dl', { class: 'facts' },
          h('dt', {}, 'Ready'), h('dd', { id: 'ready-state' }, pill(rd.ready ? 'yes' : 'no')),
          h('dt', {}, 'Level reached'), h('dd', {}, pill(rd.level)),
          h('dt', {}, 'Role'), h('dd', {}, rd.role || '\u2014'),
          h('dt', {}, 'Reason'), h('dd', { id: 'ready-detail' }, rd.detail || (rd.ready ? 'Every part is ready.' : '\u2014')))),
      h('section', { class: 'card', 'aria-labelledby': 'deep-h' },
        h('h2', { id: 'deep-h' }, 'Components'),
        h('p', {}, 'Overall: ', pill(deep.status)),
        deep.components.length ? table('Components',
          [{ label: 'Kind' }, { label: 'ID' }, { label: 'Status' }, { label: 'Detail' }],
          deep.components.map((c) => ({ cells: [c.kind, c.id, pill(c.status), c.detail || ''] })))
          : h('p', { class: 'muted' }, 'No components reported.')),
    ];
    if (deep.restart_required.length) {
      parts.push(h('section', { class: 'card', 'aria-labelledby': 'restart-h' },
        h('h2', { id: 'restart-h' }, 'Waiting for a restart'),
        h('ul', {}, deep.restart_required.map((r) => h('li', {}, r)))));
    }
    box.replaceChildren(...parts);
  };
  draw();
  onLive((name) => { if (name === 'health') draw(); });
}
