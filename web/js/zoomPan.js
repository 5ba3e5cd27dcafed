/**
 * Zoom and pan for the graph: the content group's transform driven by the wheel (or a trackpad
 * pinch) around the pointer, a drag (one finger or the mouse), two-finger pinch, the +/−/Fit
 * buttons and the keyboard (+, −, 0 to fit, arrows to pan). The first view fits the graph but
 * never shrinks text below a readable size; a graph wider than that starts at its left edge and
 * is panned. A drag does not also click the node it started on.
 */
import { h } from './dom.js';

export const MIN_ZOOM = 0.15;
export const MAX_ZOOM = 3;
// The smallest text in the graph is 12 px (run.css): at 11/12 it is 11 px on screen.
export const READABLE_ZOOM = 11 / 12;
const STEP = 1.25;
const PAN_STEP = 60;
const DRAG_SLOP = 4;

const clamp = (k) => Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, k));
const round = (n) => Math.round(n * 1000) / 1000;

/** The first view's zoom: the graph fitted to the box, no smaller than readable, no larger than 1.25. */
export function defaultZoom(bounds, width, height) {
  return Math.min(1.25, Math.max(READABLE_ZOOM, Math.min(width / bounds.w, height / bounds.h)));
}

/** Wires zoom and pan onto `svg`, transforming `content`; returns `{controls, zoomBy, fit, home, state}`. */
export function zoomPan(svg, content, bounds) {
  let k = 1;
  let tx = 0;
  let ty = 0;
  let moved = false;
  svg.setAttribute('tabindex', '0');
  // Tall enough for the graph at the readable zoom, within what a screen shows beside the panel.
  svg.style.height = `${Math.round(Math.min(560, Math.max(240, bounds.h * READABLE_ZOOM)))}px`;

  const apply = () => {
    content.setAttribute('transform', `translate(${round(tx)},${round(ty)}) scale(${round(k)})`);
    svg.dataset.zoom = k.toFixed(3);
  };
  const size = () => ({ w: svg.clientWidth || 800, h: svg.clientHeight || 400 });
  const zoomBy = (factor, cx = size().w / 2, cy = size().h / 2) => {
    const next = clamp(k * factor);
    tx = cx - ((cx - tx) * next) / k;
    ty = cy - ((cy - ty) * next) / k;
    k = next;
    moved = true;
    apply();
  };
  const panBy = (dx, dy) => {
    tx += dx;
    ty += dy;
    moved = true;
    apply();
  };
  const fit = () => {
    const { w, h: hh } = size();
    k = clamp(Math.min(w / bounds.w, hh / bounds.h));
    tx = (w - bounds.w * k) / 2 - bounds.x * k;
    ty = (hh - bounds.h * k) / 2 - bounds.y * k;
    moved = true;
    apply();
  };
  const home = () => {
    const { w, h: hh } = size();
    k = clamp(defaultZoom(bounds, w, hh));
    tx = bounds.w * k <= w ? (w - bounds.w * k) / 2 - bounds.x * k : -bounds.x * k;
    ty = bounds.h * k <= hh ? (hh - bounds.h * k) / 2 - bounds.y * k : -bounds.y * k;
    apply();
  };
  home();
  // The box's size is known once it is on the page (and changes with the window): until the
  // user moves the view, the first view follows it.
  if (typeof window !== 'undefined' && window.ResizeObserver) {
    const watch = new window.ResizeObserver(() => {
      // A graph redrawn (a new canvas, the nodes of a deleted one arriving) is replaced: let it go.
      if (!svg.isConnected) watch.disconnect();
      else if (!moved) home();
    });
    watch.observe(svg);
  }

  svg.addEventListener(
    'wheel',
    (ev) => {
      ev.preventDefault();
      const r = svg.getBoundingClientRect();
      // A trackpad pinch arrives as a wheel with ctrlKey and small deltas.
      zoomBy(Math.exp(-ev.deltaY * (ev.ctrlKey ? 0.01 : 0.0015)), ev.clientX - r.left, ev.clientY - r.top);
    },
    { passive: false },
  );

  const pointers = new Map();
  let drag = null;
  let pinch = null;
  svg.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0 && ev.pointerType === 'mouse') return;
    pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
    if (pointers.size === 1) drag = { x: ev.clientX, y: ev.clientY, id: ev.pointerId, active: false };
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = { d: Math.hypot(a.x - b.x, a.y - b.y) || 1 };
      drag = null;
    }
  });
  svg.addEventListener('pointermove', (ev) => {
    if (!pointers.has(ev.pointerId)) return;
    pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
    if (pinch && pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y) || 1;
      const r = svg.getBoundingClientRect();
      zoomBy(d / pinch.d, (a.x + b.x) / 2 - r.left, (a.y + b.y) / 2 - r.top);
      pinch.d = d;
      return;
    }
    if (!drag || drag.id !== ev.pointerId) return;
    const [dx, dy] = [ev.clientX - drag.x, ev.clientY - drag.y];
    if (!drag.active && Math.hypot(dx, dy) < DRAG_SLOP) return;
    if (!drag.active) {
      drag.active = true;
      // Captured only once it is a drag: a plain click still reaches the node under it.
      svg.setPointerCapture?.(ev.pointerId);
      svg.classList.add('dragging');
    }
    drag.x = ev.clientX;
    drag.y = ev.clientY;
    panBy(dx, dy);
  });
  const end = (ev) => {
    pointers.delete(ev.pointerId);
    if (pointers.size < 2) pinch = null;
    if (drag?.active && drag.id === ev.pointerId) {
      svg.classList.remove('dragging');
      // The click that ends a drag (dispatched in the same task as this pointerup) selects nothing.
      const swallow = (c) => c.stopPropagation();
      svg.addEventListener('click', swallow, { capture: true, once: true });
      setTimeout(() => svg.removeEventListener('click', swallow, { capture: true }), 0);
      drag = null;
    } else if (drag?.id === ev.pointerId) drag = null;
  };
  svg.addEventListener('pointerup', end);
  svg.addEventListener('pointercancel', end);

  svg.addEventListener('keydown', (ev) => {
    const keys = {
      '+': () => zoomBy(STEP),
      '=': () => zoomBy(STEP),
      '-': () => zoomBy(1 / STEP),
      0: fit,
      ArrowLeft: () => panBy(PAN_STEP, 0),
      ArrowRight: () => panBy(-PAN_STEP, 0),
      ArrowUp: () => panBy(0, PAN_STEP),
      ArrowDown: () => panBy(0, -PAN_STEP),
    };
    if (ev.ctrlKey || ev.metaKey || ev.altKey || !keys[ev.key]) return;
    ev.preventDefault();
    keys[ev.key]();
  });

  const button = (role, label, text, act) => {
    const b = h('button', { type: 'button', class: 'zoom-button', 'data-role': role, 'aria-label': label, title: label }, text);
    b.addEventListener('click', act);
    return b;
  };
  const controls = h(
    'div',
    { class: 'zoom-controls', role: 'toolbar', 'aria-label': 'Graph zoom' },
    button('zoom-in', 'Zoom in (+)', '+', () => zoomBy(STEP)),
    button('zoom-out', 'Zoom out (−)', '−', () => zoomBy(1 / STEP)),
    button('zoom-fit', 'Fit the graph (0)', 'Fit', fit),
  );
  return { controls, zoomBy, panBy, fit, home, state: () => ({ k, tx, ty }) };
}
