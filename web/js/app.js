/**
 * The run view's shell: sign-in with an API key (kept in sessionStorage), then hash routes —
 * #/runs, #/runs/<id>, #/start[/<canvas>], #/canvases, #/canvases/<id>[/versions/<vid>],
 * #/sessions/<canvas>/<session>, #/schedules[/<canvas>].
 */
import { checkKey, onUnauthorized, session } from './api.js';
import { canvasPage, canvasesPage } from './canvases.js';
import { forgetConfig } from './config.js';
import { h, replace } from './dom.js';
import { runPage } from './runView.js';
import { runsPage } from './runs.js';
import { schedulesPage } from './schedules.js';
import { sessionPage } from './sessions.js';
import { startPage } from './start.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
let dispose = null;
let generation = 0;

function loginPage(message) {
  nav.hidden = true;
  const key = h('input', {
    type: 'password',
    id: 'api-key',
    name: 'api-key',
    autocomplete: 'off',
    placeholder: 'API key',
    'data-role': 'api-key',
    required: true,
  });
  const error = h('div', { class: 'error-box', role: 'alert', hidden: !message, 'data-role': 'login-error' }, message ?? '');
  const form = h(
    'form',
    { class: 'login' },
    h('h2', {}, 'Sign in'),
    h('p', { class: 'muted' }, 'Use an API key of your tenant (npm start prints one). It stays in this tab only.'),
    h('label', { for: 'api-key', class: 'field-name' }, 'API key'),
    key,
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    error,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const value = key.value.trim();
    if (!(await checkKey(value))) {
      error.hidden = false;
      error.textContent = 'The API refused this key.';
      return;
    }
    session.signIn(value);
    forgetConfig();
    if (!location.hash || location.hash === '#/login') location.hash = '#/runs';
    else void route();
  });
  replace(main, form);
  key.focus();
}

onUnauthorized.handler = () => {
  session.signOut();
  dispose?.();
  dispose = null;
  loginPage('Your key was refused; sign in again.');
};

async function route() {
  dispose?.();
  dispose = null;
  if (!session.key()) return loginPage();
  nav.hidden = false;
  const [path, query] = (location.hash.replace(/^#/, '') || '/runs').split('?');
  const params = new URLSearchParams(query ?? '');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  replace(main, h('p', { class: 'muted' }, 'Loading…'));
  const mine = ++generation;
  try {
    let page;
    if (parts[0] === 'runs' && parts[1]) page = runPage(main, parts[1]);
    else if (parts[0] === 'start') page = startPage(main, parts[1], params);
    else if (parts[0] === 'sessions' && parts[2]) page = sessionPage(main, parts[1], parts[2]);
    else if (parts[0] === 'schedules') page = schedulesPage(main, parts[1]);
    else if (parts[0] === 'canvases' && parts[1]) page = canvasPage(main, parts[1], parts[2] === 'versions' ? parts[3] : undefined);
    else if (parts[0] === 'canvases') page = canvasesPage(main);
    else page = runsPage(main, params);
    const stop = await page;
    // Navigated away while this page loaded: it stops at once.
    if (mine !== generation) stop?.();
    else dispose = stop ?? null;
  } catch (err) {
    if (err?.status === 401 || mine !== generation) return;
    replace(main, h('div', { class: 'error-box', 'data-role': 'page-error' }, err?.message ?? String(err)));
  }
}

document.getElementById('signout').addEventListener('click', () => {
  session.signOut();
  location.hash = '#/login';
  void route();
});
// The skip link moves the focus to the page's content without touching the hash (the router's).
document.querySelector('.skip-link')?.addEventListener('click', (ev) => {
  ev.preventDefault();
  main.focus();
});
window.addEventListener('hashchange', () => void route());
void route();
