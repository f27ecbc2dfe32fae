// Small DOM helpers shared by the pages.

// h builds an element: h('td', {class: 'num'}, 'text', child...).
// Attributes starting with "on" become event listeners.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// announce tells screen readers about an outcome.
export function announce(msg) {
  const a = document.getElementById('announcer');
  a.textContent = '';
  setTimeout(() => { a.textContent = msg; }, 50);
}

// confirmDialog asks a yes/no question in a modal dialog (Escape
// cancels); it resolves true when confirmed.
export function confirmDialog(title, text, okLabel) {
  const d = document.getElementById('confirm');
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-ok').textContent = okLabel || 'Confirm';
  const back = document.activeElement;
  return new Promise((resolve) => {
    d.addEventListener('close', () => {
      if (back && back.focus) back.focus();
      resolve(d.returnValue === 'ok');
    }, { once: true });
    d.returnValue = 'cancel';
    d.showModal();
    document.getElementById('confirm-cancel').focus();
  });
}

export function pill(value) {
  return h('span', { class: 'pill ' + String(value || '').toLowerCase() }, value || 'unknown');
}

export function when(t) {
  if (!t || t.startsWith('0001-')) return '';
  const d = new Date(t);
  return isNaN(d) ? t : d.toLocaleString();
}

export function num(v) {
  return v === undefined || v === null ? '\u2014' : String(v);
}

// table builds a table that stacks into label/value rows on a phone.
export function table(caption, columns, rows) {
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'stack' },
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : null }, c.label)))),
      h('tbody', {}, rows.map((r) => h('tr', r.attrs || {}, columns.map((c, i) =>
        h('td', { 'data-label': c.label, class: c.num ? 'num' : null }, r.cells[i])))))));
}

export function errorText(e) {
  const probs = (e.problems || []).map((p) => (p.path ? p.path + ': ' : '') + p.message);
  return [e.code ? e.code + ': ' + e.message : String(e.message || e)].concat(probs).join('\n');
}
