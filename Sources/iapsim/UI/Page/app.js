// iapsim ui: the page's behaviour. Every view is one command's --json (through /api/read/…
// and /api/rows/…); every button sends the words of one command to /api/action. Text from the
// state is set with textContent, never parsed as HTML. The customer is the page's choice
// (view.account, from the picker): every read names it in ?account=, every action carries
// --account NAME. It decides nothing about the App Store. The views it draws are in views.js.
'use strict';
const $ = (selector, root = document) => root.querySelector(selector);
const view = { account: document.querySelector('meta[name="iapsim-account"]').content,
  products: [], status: null, clock: null, notifications: [], buyOptions: null,
  tx: { offset: 0, limit: 50, sort: 'id', order: 'desc', filter: {} }, nt: { offset: 0, limit: 25 } };

/** Text from the state made safe to show, as the terminal shows it (TerminalText): control
    characters (C0, DEL, C1; newlines kept where asked) and the bidirectional embedding,
    override and isolate controls become \u{…}, so a product name cannot reorder what
    follows it on the page or hide characters. */
const unsafeCharacters = /[\u0000-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
function safe(text, keepNewlines = false) {
  return String(text).replace(unsafeCharacters, (c) => (keepNewlines && c === '\n') ? c
    : '\\u{' + c.codePointAt(0).toString(16).toUpperCase() + '}');
}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'text') node.textContent = safe(value);
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : (name === 'title' || name === 'aria-label') ? safe(value) : value);
  }
  for (const child of children.flat()) if (child !== null && child !== undefined)
    node.append(child instanceof Node ? child : document.createTextNode(safe(child)));
  return node;
}
const svgNS = 'http://www.w3.org/2000/svg';
function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) node.append(child);
  return node;
}
const day = (date) => (date || '').slice(0, 10);
const when = (date) => date ? date.replace('T', ' ').replace(/:00Z$|Z$/, '') : '—';

/** A GET of the server's API for the chosen customer. */
async function api(path, signal) {
  const url = path + (path.includes('?') ? '&' : '?') + 'account=' + encodeURIComponent(view.account);
  const response = await fetch(url, { credentials: 'same-origin', signal });
  const body = await response.json();
  if (!response.ok && body.error) throw new Error(body.error);
  return body;
}
async function read(name, query = '') { return (await api('/api/read/' + name + query)).output; }

/** Runs `iapsim WORDS --json` on the server and shows what it printed. */
async function act(argv, button) {
  if (button) button.disabled = true;
  const box = $('#result');
  try {
    const response = await fetch('/api/action', { method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ argv: argv.concat(['--account', view.account]) }) });
    const body = await response.json();
    const command = 'iapsim --account ' + view.account + ' ' + argv.join(' ');
    if (!response.ok) return show(box, command + ': ' + body.error, true);
    const output = body.output || {};
    const summary = output.result ? ' — ' + output.result : '';
    show(box, command + summary + ' (exit ' + body.exitCode + ')' +
      (body.messages.length ? '\n' + body.messages.join('\n') : ''), body.exitCode !== 0 && body.exitCode !== 3);
    return body;
  } catch (error) {
    show(box, String(error), true);
  } finally {
    if (button) button.disabled = false;
  }
}
function show(box, text, bad) {
  box.hidden = false;
  box.textContent = safe(text, true);
  box.classList.toggle('bad', !!bad);
}
function button(label, argv, attributes = {}) {
  const node = el('button', Object.assign({ type: 'button', text: label }, attributes));
  node.addEventListener('click', () => act(typeof argv === 'function' ? argv() : argv, node));
  return node;
}
async function detail(title, load) {
  const dialog = $('#detail');
  $('#detail-title').textContent = safe(title);
  $('#detail-body').textContent = 'Loading…';
  dialog.showModal();
  try { $('#detail-body').textContent = safe(JSON.stringify(await load(), null, 2), true); }
  catch (error) { $('#detail-body').textContent = safe(error, true); }
}

let refreshing = null;
let again = false;
/** Reads every view again; a change during a refresh makes one more, never more than one. */
async function refresh() {
  if (refreshing) { again = true; return refreshing; }
  refreshing = (async () => {
    do {
      again = false;
      // The table and the outbox load beside the views; the timelines need the status and the clock.
      const pages = Promise.all([loadTransactions(), loadNotifications()]);
      const [list, status, clock, settings, accounts] = await Promise.all(
        [read('products'), read('status'), read('clock'), read('settings'), read('accounts')]);
      view.clock = clock; view.status = status;
      renderAccounts(accounts); renderClock(); renderCatalog(list); renderPending(status); renderSettings(settings);
      await Promise.all([pages, renderTimelines(status)]);
      document.body.dataset.version = view.version;
      document.body.dataset.account = view.account;
    } while (again);
  })();
  try { await refreshing; } finally { refreshing = null; schedule(); }
}

/* A running simulated clock moves without a change to the state: every few seconds, while the
   tab is visible and the clock runs, read it again and move what depends on it (the clock's
   line, the now-lines, the bands open until now). One timer at most, never two reads at once. */
const tickEvery = 5000;
let tickTimer = null;
let ticking = false;
function schedule() {
  clearTimeout(tickTimer);
  tickTimer = null;
  if (ticking || document.hidden || !view.clock || view.clock.frozen) return;
  tickTimer = setTimeout(tick, tickEvery);
}
async function tick() {
  tickTimer = null;
  if (ticking) return;
  ticking = true;
  try {
    view.clock = await read('clock');
    renderClock(true);
    // Now off a timeline's drawn range: draw the timelines again (not during a refresh, which draws them).
    const moved = [...document.querySelectorAll('.timeline')].every((node) => node.moveNow(view.clock.date));
    if (!moved && !refreshing && view.status) await renderTimelines(view.status);
  } catch (error) {
    // The version watch reports a lost server.
  } finally {
    ticking = false;
  }
  schedule();
}

/** Waits for the state to change (the server answers within 15 s, at once on a change). */
let watching = null;
async function watch() {
  let failures = 0;
  for (;;) {
    // Choosing another customer aborts the wait on the former's version.
    const controller = new AbortController();
    watching = controller;
    try {
      const answer = await api('/api/version?since=' + encodeURIComponent(view.version || ''), controller.signal);
      failures = 0;
      if (answer.version !== view.version) { view.version = answer.version; await refresh(); }
      // Too many polls wait on the server (other tabs): ask again a little later.
      if (answer.busy) await new Promise((resolve) => setTimeout(resolve, 2000));
    } catch (error) {
      if (controller.signal.aborted) continue;
      failures += 1;
      show($('#result'), 'Lost the server: ' + error.message + ' (retrying)', true);
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * failures, 10000)));
    }
  }
}

function wire() {
  $('#account').addEventListener('change', (e) => chooseAccount(e.target.value));
  $('#account-add').addEventListener('submit', async (e) => { e.preventDefault();
    const name = $('#account-new').value.trim();
    const body = await act(['accounts', 'add', name], e.submitter);
    if (body && body.exitCode === 0) { $('#account-new').value = ''; chooseAccount(name); } });
  $('#clock-advance').addEventListener('submit', (e) => { e.preventDefault(); act(['clock', 'advance', $('#advance-by').value]); });
  $('#clock-set').addEventListener('submit', (e) => { e.preventDefault(); act(['clock', 'set', $('#set-to').value]); });
  $('#clock-freeze').addEventListener('click', (e) => act(['clock', 'freeze'], e.target));
  $('#restore').addEventListener('click', (e) => act(['restore'], e.target));
  $('#clock-run').addEventListener('click', (e) => act(['clock', 'run'], e.target));
  $('#settings-form').addEventListener('submit', (e) => { e.preventDefault();
    act(['settings', 'set', $('#setting-key').value, $('#setting-value').value]); });
  $('#trigger').addEventListener('submit', (e) => { e.preventDefault();
    const product = $('#trigger-product').value;
    act(['trigger', $('#trigger-type').value].concat(product ? ['--product', product] : [])); });
  let timer = null;
  const filter = () => { clearTimeout(timer); timer = setTimeout(() => {
    view.tx.filter = Object.fromEntries(new FormData($('#tx-filter')));
    view.tx.offset = 0; loadTransactions(); }, 150); };
  $('#tx-filter').addEventListener('input', filter);
  $('#tx-filter').addEventListener('submit', (e) => { e.preventDefault(); filter(); });
  $('#tx-prev').addEventListener('click', () => { view.tx.offset = Math.max(0, view.tx.offset - view.tx.limit); loadTransactions(); });
  $('#tx-next').addEventListener('click', () => { view.tx.offset += view.tx.limit; loadTransactions(); });
  $('#nt-prev').addEventListener('click', () => { view.nt.offset = Math.max(0, view.nt.offset - view.nt.limit); loadNotifications(); });
  $('#nt-next').addEventListener('click', () => { view.nt.offset += view.nt.limit; loadNotifications(); });
  document.addEventListener('visibilitychange', () => {
    if (document.hidden) schedule();
    else if (view.clock && !view.clock.frozen) { clearTimeout(tickTimer); tick(); }
  });
  $('#bo-product').addEventListener('change', renderOffers);
  $('#buy-options').addEventListener('submit', (e) => { e.preventDefault(); act(buyWords(), e.submitter); });
}

document.addEventListener('DOMContentLoaded', async () => {
  wire();
  renderHeader();
  read('triggers').then((t) => $('#trigger-type').replaceChildren(...t.triggerable.map((n) => el('option', { text: n }))));
  // The buy form's fields and the rows' outcomes are buy's options: read before the first paint.
  try {
    const answer = await api('/api/read/buy-options');
    if (!answer.output) throw new Error((answer.messages || []).join(' ') || 'exit ' + answer.exitCode);
    view.buyOptions = answer.output;
    renderBuyForm();
  } catch (error) {
    $('#bo-fields').textContent = safe('Could not read the options of iapsim buy: ' + error.message);
  }
  // The first paint does not wait for the version watch's first answer (whose refresh
  // then runs once more, at most).
  refresh().catch(() => {});
  watch();
});
