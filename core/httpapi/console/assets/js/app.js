// The console's entry point: sign-in, the page router and the live state
// that the event stream keeps current.
import { api, getKey, setKey, clearKey, whenUnauthorized, LiveStream } from './api.js';
import { routesPage, healthPage } from './pages.js';
import { dlqPage, entryPage } from './dlq.js';
import { configPage, reloadPage } from './config.js';

// state is the latest of each live event; pages read it and subscribe.
export const state = { routes: null, dlq: null, health: null, listeners: new Set() };

function publish(name, data) {
  state[name] = data;
  if (name === 'dlq') {
    document.getElementById('nav-dlq-depth').textContent = data.configured ? '(' + data.depth + ')' : '';
  }
  for (const fn of state.listeners) fn(name, data);
}

// onLive registers fn for live events until the page changes.
export function onLive(fn) { state.listeners.add(fn); }

let stream = null;
let current = null; // { cleanup } of the shown page

const pages = {
  routes: routesPage,
  health: healthPage,
  dlq: dlqPage,
  config: configPage,
  reload: reloadPage,
};

function show(signedIn) {
  document.getElementById('login-view').hidden = signedIn;
  document.getElementById('page').hidden = !signedIn;
  document.getElementById('nav').hidden = !signedIn;
  document.getElementById('session').hidden = !signedIn;
}

function signOut(msg) {
  clearKey();
  if (stream) stream.stop();
  stream = null;
  state.listeners.clear();
  state.routes = state.dlq = state.health = null;
  document.getElementById('bridge-id').textContent = '';
  document.getElementById('page').replaceChildren();
  show(false);
  document.getElementById('login-error').textContent = msg || '';
  document.getElementById('login-key').focus();
}

async function signedIn() {
  show(true);
  try {
    const st = await api('GET', '/status');
    document.getElementById('bridge-id').textContent = st.bridge_id + (st.version ? ' \u00b7 ' + st.version : '');
  } catch (e) { /* the pages report errors */ }
  const live = document.getElementById('live-state');
  stream = new LiveStream(publish, (s) => {
    live.dataset.state = s;
    live.textContent = { live: 'Live', connecting: 'Connecting', reconnecting: 'Reconnecting' }[s] || s;
  });
  stream.start();
  route();
}

// route shows the page the location hash names: #/routes, #/dlq,
// #/dlq/<entry id>, #/health, #/config or #/reload.
function route() {
  if (!getKey()) return;
  const parts = location.hash.replace(/^#\/?/, '').split('?')[0].split('/');
  let name = parts[0] || 'routes';
  if (!pages[name]) name = 'routes';
  state.listeners.clear();
  if (current && current.cleanup) current.cleanup();
  const root = document.getElementById('page');
  root.replaceChildren();
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.dataset.page === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const id = parts.slice(1).join('/');
  current = (name === 'dlq' && id) ? entryPage(root, decodeURIComponent(id)) : pages[name](root);
  const title = root.querySelector('h1');
  document.title = (title ? title.textContent + ' \u2013 ' : '') + 'gobridge console';
}

// focusMain moves focus to the page after a navigation by keyboard.
function focusMain() {
  const m = document.getElementById('main');
  if (m) m.focus({ preventScroll: true });
}

function boot() {
  whenUnauthorized(() => signOut('The key was refused; sign in again.'));
  document.getElementById('login-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const input = document.getElementById('login-key');
    const key = input.value.trim();
    const err = document.getElementById('login-error');
    err.textContent = '';
    try {
      await api('GET', '/status', undefined, key);
    } catch (e) {
      err.textContent = e.status === 401 ? 'That key is not the admin key.' : 'Sign-in failed: ' + e.message;
      input.focus();
      return;
    }
    input.value = '';
    setKey(key);
    if (!location.hash) location.hash = '#/routes';
    signedIn();
    focusMain();
  });
  document.getElementById('logout').addEventListener('click', () => signOut('Signed out.'));
  window.addEventListener('hashchange', () => { route(); focusMain(); });
  if (getKey()) signedIn();
  else show(false);
}

boot();
