// The dead-letter pages: a filtered list with selection, redrive and
// purge, and one entry with its headers, payload and error.
import { api } from './api.js';
import { h, announce, confirmDialog, when, table, errorText } from './ui.js';
import { state, onLive } from './app.js';

const CATEGORIES = ['max_retries', 'permanent', 'expired', 'filtered', 'retry_unsupported', 'rejected'];

// filter is kept across visits to the list within the tab.
const filter = { route: '', code: '', category: '', since: '', until: '' };

function routeIds() {
  return state.routes ? state.routes.routes.map((r) => r.id) : [];
}

function field(id, label, control) {
  control.id = id;
  return h('div', {}, h('label', { for: id }, label), control);
}

function routeSelect(id, label, anyLabel, value) {
  const sel = h('select', {}, h('option', { value: '' }, anyLabel),
    routeIds().map((r) => h('option', { value: r, selected: r === value }, r)));
  return field(id, label, sel);
}

function query() {
  const q = new URLSearchParams();
  for (const k of ['route', 'code', 'category']) if (filter[k]) q.set(k, filter[k]);
  if (filter.since) q.set('since', new Date(filter.since).toISOString());
  if (filter.until) q.set('until', new Date(filter.until).toISOString());
  return q;
}

function bodyFilter() {
  const q = query();
  const out = {};
  for (const [k, v] of q) out[k] = v;
  return out;
}

export function dlqPage(root) {
  const hq = new URLSearchParams(location.hash.split('?')[1] || '');
  if (hq.has('route')) filter.route = hq.get('route');
  root.append(h('h1', {}, 'Dead letters'));
  const depth = h('p', { id: 'dlq-depth', class: 'muted' });
  const status = h('p', { id: 'dlq-status', role: 'status' });
  const list = h('div', { id: 'dlq-list' });
  const more = h('div', {});
  const form = h('form', { class: 'card filters', id: 'dlq-filter', 'aria-label': 'Filter dead letters' },
    routeSelect('f-route', 'Route', 'Any route', filter.route),
    field('f-category', 'Category', h('select', {}, h('option', { value: '' }, 'Any category'),
      CATEGORIES.map((c) => h('option', { value: c, selected: c === filter.category }, c)))),
    field('f-code', 'Error code', h('input', { type: 'text', value: filter.code, placeholder: 'e.g. PERMANENT', spellcheck: 'false' })),
    field('f-since', 'Failed from', h('input', { type: 'datetime-local', value: filter.since })),
    field('f-until', 'Failed before', h('input', { type: 'datetime-local', value: filter.until })),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Apply filter'),
      h('button', { type: 'button', class: 'secondary', onclick: () => clear() }, 'Clear')));
  const target = routeSelect('redrive-target', 'Redrive to', 'Each entry\u2019s own route', '');
  const bulk = h('div', { class: 'card actions', id: 'dlq-actions' },
    target,
    h('button', { type: 'button', id: 'select-all', class: 'secondary', onclick: () => selectAll() }, 'Select all shown'),
    h('button', { type: 'button', id: 'redrive-selected', onclick: () => redriveSelected() }, 'Redrive selected'),
    h('button', { type: 'button', id: 'purge', class: 'danger', onclick: () => purge() }, 'Purge matching\u2026'));
  root.append(depth, form, bulk, status, list, more);

  let entries = [];
  let cursor = '';
  let loading = false;

  function clear() {
    for (const k of Object.keys(filter)) filter[k] = '';
    for (const c of form.querySelectorAll('input, select')) c.value = '';
    load(false);
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    filter.route = form.querySelector('#f-route').value;
    filter.category = form.querySelector('#f-category').value;
    filter.code = form.querySelector('#f-code').value.trim();
    filter.since = form.querySelector('#f-since').value;
    filter.until = form.querySelector('#f-until').value;
    load(false);
  });

  function drawDepth() {
    const d = state.dlq;
    if (!d) return;
    depth.textContent = d.configured ? d.depth + ' entr' + (d.depth === 1 ? 'y' : 'ies') + ' in the dead-letter queue.' : 'This bridge has no dead-letter store.';
  }

  function draw() {
    if (!entries.length) {
      list.replaceChildren(h('p', { id: 'dlq-empty' }, 'No entries match.'));
    } else {
      const cols = [{ label: 'Select' }, { label: 'Entry' }, { label: 'Route' }, { label: 'Category' },
        { label: 'Error' }, { label: 'Attempts', num: true }, { label: 'Last failure' }];
      list.replaceChildren(table('Dead-lettered messages', cols, entries.map((e) => ({
        attrs: { 'data-id': e.id, class: 'dlq-row' },
        cells: [
          h('input', { type: 'checkbox', class: 'pick', value: e.id, 'aria-label': 'Select entry ' + e.id }),
          h('a', { href: '#/dlq/' + encodeURIComponent(e.id), class: 'entry-link' }, e.id),
          e.route, e.category, errorLine(e.error),
          String(e.attempts), when(e.last_failure_at),
        ],
      }))));
    }
    more.replaceChildren(cursor ? h('button', { type: 'button', class: 'secondary', onclick: () => load(true) }, 'Load more') : '');
  }

  async function load(append) {
    if (loading) return;
    loading = true;
    const q = query();
    if (append && cursor) q.set('cursor', cursor);
    try {
      const page = await api('GET', '/dlq?' + q.toString());
      entries = append ? entries.concat(page.entries) : page.entries;
      cursor = page.next_cursor;
      status.textContent = '';
      draw();
    } catch (e) {
      status.textContent = errorText(e);
      status.className = 'error';
    } finally {
      loading = false;
    }
  }

  function selectAll() {
    const boxes = [...list.querySelectorAll('input.pick')];
    const all = boxes.length && boxes.every((c) => c.checked);
    for (const c of boxes) c.checked = !all;
    announce(all ? 'Selection cleared.' : boxes.length + ' entries selected.');
  }

  async function redriveSelected() {
    const ids = [...list.querySelectorAll('input.pick:checked')].map((c) => c.value);
    if (!ids.length) { status.className = 'error'; status.textContent = 'Select at least one entry first.'; return; }
    const to = bulk.querySelector('#redrive-target').value;
    status.className = '';
    status.textContent = 'Redriving ' + ids.length + '\u2026';
    try {
      const res = await api('POST', '/dlq/redrive', to ? { ids, to_route: to } : { ids });
      const msg = res.redriven + ' redriven, ' + res.failed + ' failed' +
        (res.failures.length ? ': ' + res.failures.map((f) => f.id + ' (' + f.error.code + ')').join(', ') : '') + '.';
      status.className = res.failed ? 'error' : '';
      status.textContent = msg;
      announce(msg);
    } catch (e) {
      status.className = 'error';
      status.textContent = errorText(e);
    }
    load(false);
  }

  async function purge() {
    const f = bodyFilter();
    const what = Object.keys(f).length ? 'every entry that matches the filter' : 'every entry in the dead-letter queue';
    if (!await confirmDialog('Purge dead letters?', 'This deletes ' + what + '. It cannot be undone.', 'Purge')) return;
    try {
      const res = await api('POST', '/dlq/purge', Object.assign({ confirm: true }, f));
      status.className = '';
      status.textContent = res.purged + ' entries purged.';
      announce(status.textContent);
    } catch (e) {
      status.className = 'error';
      status.textContent = errorText(e);
    }
    load(false);
  }

  drawDepth();
  load(false);
  let lastDepth = state.dlq ? state.dlq.depth : null;
  onLive((name, data) => {
    if (name !== 'dlq') return;
    drawDepth();
    if (data.depth !== lastDepth) {
      lastDepth = data.depth;
      const picked = new Set([...list.querySelectorAll('input.pick:checked')].map((c) => c.value));
      load(false).then(() => {
        for (const c of list.querySelectorAll('input.pick')) c.checked = picked.has(c.value);
      });
    }
  });
}

// errorLine is an entry's error code and message, without the code twice
// when the message starts with it.
function errorLine(err) {
  const code = err.code || '';
  const msg = err.message || '';
  if (!code || msg.startsWith(code)) return msg || code;
  return msg ? code + ': ' + msg : code;
}

// hex renders bytes as offset, hex and printable columns.
function hex(bytes) {
  const lines = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const row = bytes.slice(i, i + 16);
    const hx = [...row].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const tx = [...row].map((b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : '.')).join('');
    lines.push(i.toString(16).padStart(8, '0') + '  ' + hx.padEnd(48) + ' ' + tx);
  }
  return lines.join('\n');
}

function payloadBytes(m) {
  if (!m || m.payload === undefined) return new Uint8Array();
  if (m.payload_encoding === 'base64') return Uint8Array.from(atob(m.payload), (c) => c.charCodeAt(0));
  return new TextEncoder().encode(m.payload);
}

export function entryPage(root, id) {
  root.append(h('p', {}, h('a', { href: '#/dlq' }, '\u2190 All dead letters')), h('h1', {}, 'Entry ' + id));
  const status = h('p', { id: 'entry-status', role: 'status' });
  const body = h('div', { id: 'entry' });
  root.append(status, body);
  api('GET', '/dlq/' + encodeURIComponent(id)).then((e) => drawEntry(e), (e) => { status.className = 'error'; status.textContent = errorText(e); });

  function drawEntry(e) {
    const m = e.message || {};
    const bytes = payloadBytes(m);
    const text = new TextDecoder().decode(bytes);
    let json = null;
    try { json = JSON.stringify(JSON.parse(text), null, 2); } catch (err) { json = null; }
    const views = { json: json === null ? 'The payload is not JSON.' : json, text: m.payload_encoding === 'base64' ? 'The payload is not UTF-8 text; see hex.' : text, hex: hex(bytes) };
    const pre = h('pre', { id: 'payload', tabindex: '0', 'aria-label': 'Payload' });
    const buttons = ['json', 'text', 'hex'].map((v) => h('button', { type: 'button', class: 'secondary', 'data-view': v, 'aria-pressed': 'false', onclick: () => pick(v) }, v.toUpperCase()));
    const pick = (v) => {
      pre.textContent = views[v];
      for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.view === v));
    };
    const target = routeSelect('entry-target', 'Redrive to', 'Its own route (' + e.route + ')', '');
    const headers = Object.entries(m.headers || {});
    body.replaceChildren(
      h('section', { class: 'card', 'aria-labelledby': 'what-h' }, h('h2', { id: 'what-h' }, 'Failure'),
        h('dl', { class: 'facts' },
          h('dt', {}, 'Route'), h('dd', {}, e.route),
          h('dt', {}, 'Binding'), h('dd', {}, e.binding || '\u2014'),
          h('dt', {}, 'Address'), h('dd', {}, e.address || '\u2014'),
          h('dt', {}, 'Category'), h('dd', {}, e.category),
          h('dt', {}, 'Error'), h('dd', { id: 'entry-error' }, (e.error.class ? e.error.class + ' \u00b7 ' : '') + errorLine(e.error)),
          h('dt', {}, 'Attempts'), h('dd', {}, String(e.attempts)),
          h('dt', {}, 'First failure'), h('dd', {}, when(e.first_failure_at)),
          h('dt', {}, 'Last failure'), h('dd', {}, when(e.last_failure_at)),
          h('dt', {}, 'Message'), h('dd', {}, (m.id || '') + (m.subject ? ' \u00b7 ' + m.subject : '')),
          h('dt', {}, 'Created'), h('dd', {}, when(m.created_at)),
          h('dt', {}, 'Size'), h('dd', {}, (m.payload_size || 0) + ' bytes'))),
      h('section', { class: 'card actions', 'aria-label': 'Repair' }, target,
        h('button', { type: 'button', id: 'entry-redrive', onclick: () => redrive() }, 'Redrive'),
        h('button', { type: 'button', id: 'entry-delete', class: 'danger', onclick: () => del() }, 'Delete\u2026')),
      h('section', { class: 'card', 'aria-labelledby': 'hdr-h' }, h('h2', { id: 'hdr-h' }, 'Headers'),
        headers.length ? table('Headers', [{ label: 'Name' }, { label: 'Value' }],
          headers.map(([k, v]) => ({ cells: [k, typeof v === 'string' ? v : JSON.stringify(v)] }))) : h('p', { class: 'muted' }, 'No headers.')),
      h('section', { class: 'card', 'aria-labelledby': 'pl-h' }, h('h2', { id: 'pl-h' }, 'Payload'),
        h('div', { class: 'actions', role: 'group', 'aria-label': 'Show the payload as' }, buttons), pre));
    pick(json === null ? (m.payload_encoding === 'base64' ? 'hex' : 'text') : 'json');
  }

  async function redrive() {
    const to = body.querySelector('#entry-target').value;
    status.className = '';
    status.textContent = 'Redriving\u2026';
    try {
      const res = await api('POST', '/dlq/' + encodeURIComponent(id) + '/redrive', to ? { to_route: to } : undefined);
      announce('Redriven as message ' + res.new_id + '.');
      location.hash = '#/dlq';
    } catch (e) {
      status.className = 'error';
      status.textContent = 'Redrive failed: ' + errorText(e);
    }
  }

  async function del() {
    if (!await confirmDialog('Delete this entry?', 'Entry ' + id + ' is deleted without being delivered.', 'Delete')) return;
    try {
      await api('DELETE', '/dlq/' + encodeURIComponent(id));
      announce('Entry ' + id + ' deleted.');
      location.hash = '#/dlq';
    } catch (e) {
      status.className = 'error';
      status.textContent = errorText(e);
    }
  }
}
