// Talking to the admin API. The key lives only in this tab's
// sessionStorage and travels only in the Authorization header.

const KEY = 'gobridge.adminKey';

export function getKey() { return sessionStorage.getItem(KEY) || ''; }
export function setKey(k) { sessionStorage.setItem(KEY, k); }
export function clearKey() { sessionStorage.removeItem(KEY); }

// ApiError carries the API's error code and message.
export class ApiError extends Error {
  constructor(status, code, message, problems) {
    super(message);
    this.status = status;
    this.code = code;
    this.problems = problems || [];
  }
}

let onUnauthorized = () => {};
export function whenUnauthorized(fn) { onUnauthorized = fn; }

function headers(extra) {
  return Object.assign({ 'Authorization': 'Bearer ' + getKey() }, extra || {});
}

// api calls the admin API. body may be an object (sent as JSON) or a
// string (sent as YAML). It returns the decoded JSON answer or throws an
// ApiError.
export async function api(method, path, body, key) {
  const opts = { method, headers: headers(), cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' };
  if (key !== undefined) opts.headers['Authorization'] = 'Bearer ' + key;
  if (typeof body === 'string') {
    opts.headers['Content-Type'] = 'application/yaml';
    opts.body = body;
  } else if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  const resp = await fetch('/api/v1/admin' + path, opts);
  let data = null;
  try { data = await resp.json(); } catch (e) { data = null; }
  if (!resp.ok) {
    const err = (data && data.error) || {};
    if (resp.status === 401 && key === undefined) onUnauthorized();
    throw new ApiError(resp.status, err.code || String(resp.status), err.message || resp.statusText, err.problems);
  }
  return data;
}

// parseEvents splits buffered stream text into complete events; it
// returns the events and the unfinished rest.
function parseEvents(buf) {
  const out = [];
  let i;
  while ((i = buf.indexOf('\n\n')) >= 0) {
    const block = buf.slice(0, i);
    buf = buf.slice(i + 2);
    let name = 'message';
    const data = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      if (line.startsWith('event: ')) name = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length) out.push({ name, data: data.join('\n') });
  }
  return { events: out, rest: buf };
}

// LiveStream reads the admin event stream with fetch (EventSource cannot
// send the Authorization header) and reconnects with a growing delay.
export class LiveStream {
  constructor(onEvent, onState) {
    this.onEvent = onEvent;
    this.onState = onState;
    this.ctrl = null;
    this.stopped = false;
    this.delay = 1000;
    this.timer = null;
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ctrl) this.ctrl.abort();
  }

  async connect() {
    this.ctrl = new AbortController();
    this.onState('connecting');
    try {
      const resp = await fetch('/api/v1/admin/events', {
        headers: headers({ 'Accept': 'text/event-stream' }), cache: 'no-store',
        credentials: 'omit', signal: this.ctrl.signal,
      });
      if (resp.status === 401) { onUnauthorized(); return; }
      if (!resp.ok || !resp.body) throw new Error('status ' + resp.status);
      this.onState('live');
      this.delay = 1000;
      const reader = resp.body.getReader();
      const dec = new TextDecoder();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true }).replace(/\r\n/g, '\n');
        const parsed = parseEvents(buf);
        buf = parsed.rest;
        for (const ev of parsed.events) {
          try { this.onEvent(ev.name, JSON.parse(ev.data)); } catch (e) { /* a bad event is skipped */ }
        }
      }
    } catch (e) {
      if (this.stopped) return;
    }
    if (this.stopped) return;
    this.onState('reconnecting');
    this.timer = setTimeout(() => this.connect(), this.delay);
    this.delay = Math.min(this.delay * 2, 30000);
  }
}
