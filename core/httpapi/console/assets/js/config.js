// The configuration pages: the running configuration (secrets redacted
// by the bridge) and a reload with a preview of what would change.
import { api } from './api.js';
import { h, announce, confirmDialog, table, errorText } from './ui.js';

export function configPage(root) {
  root.append(h('h1', {}, 'Configuration'),
    h('p', { class: 'muted' }, 'The configuration the bridge runs now. Secrets are shown redacted; the bridge never sends them.'));
  const status = h('p', { role: 'status' });
  const pre = h('pre', { id: 'config-json', tabindex: '0', 'aria-label': 'Running configuration' }, 'Loading\u2026');
  const refresh = h('button', { type: 'button', class: 'secondary', onclick: () => load() }, 'Refresh');
  root.append(h('div', { class: 'actions' }, refresh), status, pre);
  async function load() {
    try {
      const cfg = await api('GET', '/config');
      pre.textContent = JSON.stringify(cfg, null, 2);
      status.textContent = '';
    } catch (e) {
      status.className = 'error';
      status.textContent = errorText(e);
    }
  }
  load();
}

function show(v) {
  if (v === undefined) return '\u2014';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function reloadPage(root) {
  root.append(h('h1', {}, 'Reload'),
    h('p', { class: 'muted' }, 'Paste or upload a complete YAML configuration, preview how it differs from the running one, then apply it. Routes whose settings did not change keep running.'));
  const doc = h('textarea', { id: 'reload-yaml', spellcheck: 'false', autocomplete: 'off' });
  const file = h('input', { id: 'reload-file', type: 'file', accept: '.yaml,.yml,application/yaml,text/yaml' });
  const preview = h('button', { type: 'button', id: 'reload-preview' }, 'Preview changes');
  const apply = h('button', { type: 'button', id: 'reload-apply', class: 'danger', disabled: true }, 'Apply reload\u2026');
  const status = h('div', { id: 'reload-status', role: 'status' });
  const plan = h('div', { id: 'reload-plan' });
  root.append(
    h('div', { class: 'card' },
      h('label', { for: 'reload-file' }, 'Upload a YAML file'), file,
      h('label', { for: 'reload-yaml' }, 'Configuration (YAML)'), doc,
      h('div', { class: 'actions' }, preview, apply)),
    status, plan);

  let previewed = null; // the text whose preview was valid
  doc.addEventListener('input', () => { apply.disabled = doc.value !== previewed; });
  file.addEventListener('change', async () => {
    if (!file.files.length) return;
    doc.value = await file.files[0].text();
    apply.disabled = true;
    previewed = null;
    plan.replaceChildren();
  });

  preview.addEventListener('click', async () => {
    const text = doc.value;
    status.className = '';
    plan.replaceChildren();
    if (!text.trim()) { status.className = 'error'; status.textContent = 'Paste or upload a configuration first.'; return; }
    try {
      const res = await api('POST', '/config/validate', text);
      drawPlan(res);
      previewed = res.valid ? text : null;
      apply.disabled = !res.valid;
      status.className = res.valid ? '' : 'error';
      status.textContent = res.valid ? 'The configuration is valid. Review the changes, then apply.' : 'The configuration has problems; nothing can be applied.';
      announce(status.textContent);
    } catch (e) {
      status.className = 'error';
      status.textContent = errorText(e);
    }
  });

  apply.addEventListener('click', async () => {
    if (doc.value !== previewed) return;
    if (!await confirmDialog('Apply this configuration?', 'The bridge reloads now; changed routes restart without losing messages in flight.', 'Apply')) return;
    try {
      const res = await api('POST', '/reload', doc.value);
      status.className = '';
      status.textContent = 'Reloaded: generation ' + res.generation + '. Added: ' + (res.added.join(', ') || 'none') +
        '; removed: ' + (res.removed.join(', ') || 'none') + '; changed: ' + (res.changed.join(', ') || 'none') + '.' +
        (res.restart_required.length ? ' Needs a restart: ' + res.restart_required.map((p) => p.path).join(', ') + '.' : '');
      announce(status.textContent);
      apply.disabled = true;
      previewed = null;
    } catch (e) {
      status.className = 'error';
      status.textContent = 'Reload refused: ' + errorText(e);
    }
  });

  function drawPlan(res) {
    const parts = [];
    const list = (title, items) => items.length ? h('section', { class: 'card' }, h('h2', {}, title),
      h('ul', {}, items.map((p) => h('li', {}, (p.path ? p.path + ': ' : '') + p.message)))) : null;
    parts.push(list('Problems', res.problems), list('Warnings', res.warnings));
    const p = res.plan;
    if (p) {
      const names = (l) => (l.length ? l.join(', ') : 'none');
      parts.push(h('section', { class: 'card', 'aria-labelledby': 'plan-h' },
        h('h2', { id: 'plan-h' }, 'What would change'),
        h('dl', { class: 'facts' },
          h('dt', {}, 'Routes added'), h('dd', {}, names(p.routes_added)),
          h('dt', {}, 'Routes removed'), h('dd', {}, names(p.routes_removed)),
          h('dt', {}, 'Routes changed'), h('dd', {}, names(p.routes_changed)),
          h('dt', {}, 'Routes using a changed part'), h('dd', { id: 'plan-affected' }, names(p.routes_affected || []))),
        p.changes.length ? table('Changed settings', [{ label: 'Setting' }, { label: 'Running' }, { label: 'Proposed' }],
          p.changes.map((c) => ({ cells: [h('code', {}, c.path), h('span', { class: 'diff-before' }, show(c.before)), h('span', { class: 'diff-after' }, show(c.after))] })))
          : h('p', {}, 'No setting differs from the running configuration.')));
    }
    plan.replaceChildren(...parts.filter(Boolean));
  }
}
