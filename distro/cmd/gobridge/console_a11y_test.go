package main

// a11yCheck is the accessibility check the console browser test runs on
// every page: each visible control has an accessible name, each image an
// alt text, each link some text, and each visible piece of text a
// contrast of at least 4.5:1 against the background it is drawn on, from
// the computed styles. It returns one line per problem, naming the element.
const a11yCheck = `(() => {
  const problems = [];
  const visible = (el) => {
    if (el.closest('[hidden]')) return false;
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && !(el.closest('dialog') && !el.closest('dialog').open);
  };
  const describe = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    if (el.className && typeof el.className === 'string') s += '.' + el.className.trim().split(/\s+/).join('.');
    const t = (el.textContent || '').trim().slice(0, 40);
    return t ? s + ' "' + t + '"' : s;
  };
  const nameOf = (el) => {
    const aria = el.getAttribute('aria-label');
    if (aria && aria.trim()) return aria.trim();
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = by.split(/\s+/).map((id) => (document.getElementById(id) || {}).textContent || '').join(' ').trim();
      if (t) return t;
    }
    if (el.labels && el.labels.length) {
      const t = [...el.labels].map((l) => l.textContent).join(' ').trim();
      if (t) return t;
    }
    if (el.tagName === 'BUTTON' || el.tagName === 'A') {
      const t = (el.textContent || '').trim();
      if (t) return t;
    }
    return (el.getAttribute('title') || '').trim();
  };
  for (const el of document.querySelectorAll('input, select, textarea, button, a[href]')) {
    if (el.type === 'hidden' || !visible(el)) continue;
    if (!nameOf(el)) problems.push('no accessible name: ' + describe(el));
  }
  for (const img of document.querySelectorAll('img')) {
    if (!img.hasAttribute('alt')) problems.push('image without alt: ' + describe(img));
  }
  const rgba = (s) => {
    const m = s.match(/rgba?\(([^)]+)\)/);
    if (!m) return [0, 0, 0, 1];
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let out = [255, 255, 255];
    for (const c of layers.reverse()) out = out.map((v, i) => c[i] * c[3] + v * (1 - c[3]));
    return out;
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !visible(el) || el.classList.contains('visually-hidden')) continue;
    const fg = rgba(getComputedStyle(el).color);
    const bg = background(el);
    const blended = fg.slice(0, 3).map((v, i) => v * fg[3] + bg[i] * (1 - fg[3]));
    const l1 = lum(blended), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    if (ratio < 4.5) problems.push('contrast ' + ratio.toFixed(2) + ':1 below 4.5:1: ' + describe(el));
  }
  return problems;
})()`
