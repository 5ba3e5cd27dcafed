/**
 * Building DOM without markup: every piece of text goes in as a text node (textContent), so what a
 * model, a canvas or a user wrote is shown as text and never parsed as HTML.
 */
const SVG_NS = 'http://www.w3.org/2000/svg';

function fill(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** An HTML element: `h('a', {href}, 'text', child)`. Attributes named on* take listeners. */
export function h(tag, attrs = {}, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element. */
export function s(tag, attrs = {}, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** Replaces an element's children. */
export function replace(el, ...children) {
  el.replaceChildren();
  return fill(el, {}, children);
}

/** Any value as readable text: strings as they are, the rest as indented JSON. */
export function asText(v) {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

/** A block of preformatted text. */
export function pre(v, cls = 'data') {
  // Focusable: a long value scrolls inside its box, and a keyboard must be able to scroll it too.
  return h('pre', { class: cls, tabindex: 0 }, asText(v));
}

export function duration(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  if (m < 60) return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function when(ms) {
  if (!ms) return '—';
  const d = new Date(ms);
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString() : d.toLocaleString();
}

export function tokens(usage) {
  if (!usage || typeof usage.total_tokens !== 'number') return '—';
  // ≈: part of it is an estimate (a provider that reported no usage, a call a cancel cut off).
  return `${usage.estimated ? '≈ ' : ''}${usage.total_tokens} (${usage.prompt_tokens ?? 0} in / ${usage.completion_tokens ?? 0} out)`;
}

/** A status badge. */
export function badge(status) {
  return h('span', { class: `badge st-${status}` }, status);
}
