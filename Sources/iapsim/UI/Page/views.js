// iapsim ui: the page's views, each drawn from one command's --json (app.js reads it and
// calls them on every refresh). Buttons send the words of one command (button(), act() in
// app.js); text from the state goes through safe() and textContent, never parsed as HTML.

/* The customer picker: the store's customers (accounts --json), the chosen one selected. */
function renderAccounts(list) {
  const accounts = list.accounts.slice();
  // A customer named but without files yet (iapsim ui --account NEW) is a choice too.
  if (!accounts.some((a) => a.name === view.account)) accounts.push({ name: view.account, transactionCount: 0 });
  $('#account').replaceChildren(...accounts.map((a) => el('option', { value: a.name,
    text: a.name + ' (' + a.transactionCount + (a.transactionCount === 1 ? ' transaction)' : ' transactions)') })));
  $('#account').value = view.account;
}
/** Acts for another customer: every view is read again for it, the version watch restarts. */
function chooseAccount(name) {
  if (name === view.account) return;
  view.account = name;
  view.version = null;
  view.tx.offset = 0; view.nt.offset = 0;
  if (watching) watching.abort();
  refresh();
}

/* The clock */
/** Draws the clock; `quietly` (the timer's moves of a running clock) keeps a screen reader from
    announcing it every few seconds, while a change of the state is announced. */
function renderClock(quietly) {
  const clock = view.clock;
  if (!clock) return;
  $('#clock-now').setAttribute('aria-live', quietly ? 'off' : 'polite');
  $('#clock-now').textContent = safe(when(clock.date) + ' UTC' + (clock.frozen ? ' (frozen)' : ' (' + clock.timeRate + ')'));
  $('#clock-freeze').disabled = clock.frozen;
  $('#clock-run').disabled = !clock.frozen;
}

/* The catalog */
function renderCatalog(list) {
  view.products = list.products;
  $('#catalog-meta').textContent = safe('Storefront ' + list.storefront + ', ' + list.currencyCode + ', locale ' +
    list.locale + (list.invalidProductIdentifiers.length ? '; invalid: ' + list.invalidProductIdentifiers.join(', ') : ''));
  const body = $('#catalog-table tbody');
  body.replaceChildren(...list.products.map((product, index) => {
    const sub = product.subscription;
    let eligibility = '—';
    if (sub) eligibility = sub.isEligibleForIntroOffer ? 'eligible for the introductory offer'
      : 'not eligible for the introductory offer';
    const owned = product.type === 'consumable' ? 'balance ' + product.balance : product.owned ? 'owned' : '';
    const select = el('select', { id: 'outcome-' + index, 'aria-label': 'Outcome of buying ' + product.displayName },
      ...rowOutcomes().map((o) => el('option', { text: o })));
    return el('tr', { 'data-product': product.id },
      el('td', {}, el('strong', { text: product.displayName }), el('br'), el('span', { class: 'muted', text: product.id })),
      el('td', { text: product.type }),
      el('td', { text: product.displayPrice }),
      el('td', { text: eligibility }),
      el('td', { text: owned }),
      el('td', {}, select, ' ', button('Buy', () => ['buy', product.id, '--outcome', select.value],
        { 'aria-label': 'Buy ' + product.displayName, 'data-buy': product.id })));
  }));
  for (const name of ['#tx-filter select[name="eq.productID"]', '#trigger-product', '#bo-product']) {
    const select = $(name);
    const keep = select.value;
    const first = name === '#bo-product' ? [] : [select.options[0]];
    select.replaceChildren(...first, ...list.products.map((p) => el('option', { value: p.id, text: p.id })));
    if (keep) select.value = keep;
  }
  renderOffers();
}

/* Pending purchases and refund requests */
function renderPending(status) {
  const items = [];
  for (const request of status.pending) {
    const actions = request.reason === 'askToBuy'
      ? [button('Approve', ['approve', String(request.id)]), button('Decline', ['decline', String(request.id)])]
      : [button('Resolve', ['resolve', String(request.id)])];
    items.push(el('li', { 'data-pending': request.id },
      (request.reason === 'askToBuy' ? 'Ask to Buy ' : 'Interrupted purchase ') + request.id + ': ' +
      request.productID + ', requested ' + when(request.requestDate) +
      (request.expirationDate ? ', expires ' + when(request.expirationDate) : '') + ' ', ...actions));
  }
  for (const request of status.refundRequests) {
    items.push(el('li', {}, 'Refund request for transaction ' + request.transactionID + ' (' + request.productID +
      '), ' + when(request.requestDate) + ' ',
      button('Refund', ['refund', String(request.transactionID)]),
      button('Decline refund', ['refund', String(request.transactionID), '--decline'])));
  }
  $('#pending-list').replaceChildren(items.length ? el('ul', {}, items) : el('p', { class: 'muted', text: 'Nothing pending.' }));
}

/* Subscription timelines */
async function renderTimelines(status) {
  const container = $('#timelines');
  const subscriptions = status.subscriptions || [];
  if (!subscriptions.length) return container.replaceChildren(el('p', { class: 'muted', text: 'No subscriptions.' }));
  const notes = (await api('/api/rows/notifications?order=desc&limit=500')).notifications;
  const groups = [...new Set(subscriptions.map((s) => s.subscriptionGroupID))];
  const made = [];
  for (const group of groups) {
    const rows = (await api('/api/rows/transactions?limit=500&sort=purchaseDate&order=desc&eq.subscriptionGroupID=' +
      encodeURIComponent(group))).transactions.reverse();
    made.push(timeline(group, subscriptions.filter((s) => s.subscriptionGroupID === group), rows, notes));
  }
  container.replaceChildren(...made);
}

function timeline(group, subscriptions, rows, allNotes) {
  const originals = new Set(rows.map((t) => t.originalID));
  const notes = allNotes.filter((n) => originals.has(n.originalTransactionID)).reverse();
  const now = Date.parse(view.clock.date);
  const times = [now];
  for (const t of rows) times.push(Date.parse(t.purchaseDate), Date.parse(t.expirationDate || t.purchaseDate));
  for (const n of notes) times.push(Date.parse(n.date));
  let start = Math.min(...times), end = Math.max(...times);
  const margin = Math.max((end - start) * 0.03, 3600e3);
  start -= margin; end += margin;
  const lanes = [...new Set(rows.map((t) => t.productID))];
  const width = 1000, left = 8, top = 18, laneHeight = 22;
  const height = top + lanes.length * laneHeight + 22;
  const x = (time) => left + (time - start) / (end - start) * (width - 2 * left);
  const lanesBottom = top + lanes.length * laneHeight;
  const graphic = svg('svg', { viewBox: '0 0 ' + width + ' ' + height, role: 'img',
    'aria-labelledby': 'tl-title-' + group });
  const events = [];
  const counts = { purchase: 0, renewal: 0, refund: 0, expiry: 0, grace: 0, retry: 0, change: 0, price: 0 };
  // What moves with a running clock: the now-line, and the bands still open, which run to now.
  const toNow = [];
  // Bands from the notifications the App Store sent: DID_FAIL_TO_RENEW opens billing retry
  // (and, with GRACE_PERIOD, grace); GRACE_PERIOD_EXPIRED closes grace; a renewal or an
  // expiry closes both. One still open runs to now.
  const open = {};
  const bandTitle = (kind, from, to) => (kind === 'grace' ? 'Grace period ' : 'Billing retry ') +
    when(new Date(from).toISOString()) + ' → ' + when(new Date(to).toISOString());
  const band = (kind, from, to, running) => {
    counts[kind] += 1;
    const title = svg('title', {}, document.createTextNode(bandTitle(kind, from, to)));
    const rect = svg('rect', { class: 'band ' + kind, 'data-kind': kind, x: x(from), y: top - 4,
      width: Math.max(x(to) - x(from), 2), height: lanesBottom - top + 8 }, title);
    graphic.append(rect);
    if (running) toNow.push((at) => { rect.setAttribute('width', Math.max(x(at) - x(from), 2));
      title.textContent = bandTitle(kind, from, at); });
    events.push([from, (kind === 'grace' ? 'Grace period' : 'Billing retry') + ' from ' + day(new Date(from).toISOString()) +
      ' to ' + day(new Date(to).toISOString())]);
  };
  const close = (kind, at, stillOpen) => {
    if (open[kind] !== undefined) { band(kind, open[kind], at, stillOpen); delete open[kind]; }
  };
  for (const n of notes) {
    const at = Date.parse(n.date);
    if (n.notificationType === 'DID_FAIL_TO_RENEW') {
      if (open.retry === undefined) open.retry = at;
      if (n.subtype === 'GRACE_PERIOD' && open.grace === undefined) open.grace = at;
    } else if (n.notificationType === 'GRACE_PERIOD_EXPIRED') close('grace', at);
    else if (['DID_RENEW', 'EXPIRED', 'SUBSCRIBED', 'REFUND', 'REVOKE'].includes(n.notificationType)) {
      close('grace', at); close('retry', at);
    }
    if (n.notificationType === 'DID_CHANGE_RENEWAL_PREF' || (n.notificationType === 'OFFER_REDEEMED' && n.subtype)) {
      counts.change += 1;
      const what = (n.subtype === 'DOWNGRADE' ? 'Downgrade' : n.subtype === 'UPGRADE' ? 'Upgrade' : 'Change') +
        ' (' + n.notificationType + ') ' + when(n.date);
      graphic.append(svg('line', { class: 'mark change', 'data-kind': 'change', x1: x(at), x2: x(at), y1: top - 6,
        y2: lanesBottom + 4 }, svg('title', {}, document.createTextNode(what))));
      events.push([at, what]);
    }
    if (n.notificationType === 'PRICE_INCREASE') {
      counts.price += 1;
      const what = 'Price increase (PRICE_INCREASE/' + n.subtype + ') ' + when(n.date);
      graphic.append(svg('line', { class: 'mark price', 'data-kind': 'price', 'data-subtype': n.subtype,
        x1: x(at), x2: x(at), y1: top - 6, y2: lanesBottom + 4 }, svg('title', {}, document.createTextNode(what))));
      events.push([at, what]);
    }
    if (n.notificationType === 'EXPIRED') {
      counts.expiry += 1;
      graphic.append(svg('line', { class: 'mark expiry', 'data-kind': 'expiry', x1: x(at), x2: x(at), y1: top - 6,
        y2: lanesBottom + 4 }, svg('title', {}, document.createTextNode('Expired ' + when(n.date) +
        (n.subtype ? ' (' + n.subtype + ')' : '')))));
      events.push([at, 'Expired ' + day(n.date) + (n.subtype ? ' (' + n.subtype + ')' : '')]);
    }
  }
  close('grace', now, true); close('retry', now, true);
  rows.forEach((t) => {
    const lane = lanes.indexOf(t.productID);
    const from = Date.parse(t.purchaseDate);
    const to = Date.parse(t.revocationDate || t.expirationDate || t.purchaseDate);
    const kind = t.reason === 'renewal' ? 'renewal' : 'purchase';
    counts[kind] += 1;
    const style = t.revocationDate ? 'revoked' : t.isUpgraded ? 'upgrade' : kind;
    const label = (kind === 'renewal' ? 'Renewal ' : 'Purchase ') + t.id + ' of ' + t.productID + ', ' + day(t.purchaseDate) +
      ' to ' + day(t.expirationDate) + (t.offer ? ', ' + t.offer.type + ' offer' : '') + (t.isUpgraded ? ', upgraded' : '') +
      (t.revocationDate ? ', refunded ' + day(t.revocationDate) : '');
    graphic.append(svg('rect', { class: 'bar ' + style, 'data-kind': kind, 'data-id': t.id, x: x(from),
      y: top + lane * laneHeight + 3, width: Math.max(x(to) - x(from) - 1, 2), height: laneHeight - 8, rx: 2 },
      svg('title', {}, document.createTextNode(label))));
    events.push([from, label]);
    if (t.revocationDate) {
      const at = Date.parse(t.revocationDate);
      counts.refund += 1;
      graphic.append(svg('line', { class: 'mark refund', 'data-kind': 'refund', x1: x(at), x2: x(at),
        y1: top + lane * laneHeight, y2: top + (lane + 1) * laneHeight },
        svg('title', {}, document.createTextNode('Refunded ' + when(t.revocationDate) + ' (transaction ' + t.id + ')'))));
      events.push([at, 'Refund of transaction ' + t.id + ' on ' + day(t.revocationDate)]);
    }
  });
  lanes.forEach((lane, index) => graphic.append(svg('text', { class: 'lane', x: left + 2, y: top + index * laneHeight + 1 },
    document.createTextNode(lane))));
  for (let i = 0; i <= 5; i += 1) {
    const at = start + (end - start) * i / 5;
    graphic.append(svg('text', { class: 'axis', x: x(at), y: height - 4, 'text-anchor': i === 0 ? 'start' : i === 5 ? 'end' : 'middle' },
      document.createTextNode(day(new Date(at).toISOString()))));
  }
  const nowTitle = svg('title', {}, document.createTextNode('Now ' + when(view.clock.date)));
  const nowLine = svg('line', { class: 'mark now', 'data-kind': 'now', 'data-at': view.clock.date, x1: x(now), x2: x(now),
    y1: 2, y2: lanesBottom + 6 }, nowTitle);
  graphic.append(nowLine);
  const summary = counts.purchase + ' purchase' + (counts.purchase === 1 ? '' : 's') + ', ' + counts.renewal +
    ' renewal' + (counts.renewal === 1 ? '' : 's') + ', ' + counts.refund + ' refund' + (counts.refund === 1 ? '' : 's') +
    (counts.grace ? ', ' + counts.grace + ' grace period' + (counts.grace === 1 ? '' : 's') : '') +
    (counts.retry ? ', ' + counts.retry + ' billing retr' + (counts.retry === 1 ? 'y' : 'ies') : '') +
    (counts.expiry ? ', ' + counts.expiry + ' expir' + (counts.expiry === 1 ? 'y' : 'ies') : '') +
    (counts.change ? ', ' + counts.change + ' upgrade or downgrade' + (counts.change === 1 ? '' : 's') : '') +
    (counts.price ? ', ' + counts.price + ' price increase notice' + (counts.price === 1 ? '' : 's') : '');
  const heading = el('h3', { id: 'tl-title-' + group },
    'Group ' + group + ': ' + subscriptions.map((s) => s.productID + ' ' + s.state +
      (s.expirationDate ? (s.state !== 'subscribed' ? ', expired ' : s.willAutoRenew ? ', renews ' : ', ends ') +
      day(s.expirationDate) : '') + (s.priceIncreaseNewPrice ? ', price increase to ' + s.priceIncreaseNewPrice +
      (s.priceIncreaseStatus === 'pending' ? ' waiting for consent' : s.priceIncreaseStatus === 'agreed' ? ' agreed' : '') : '')
    ).join('; '));
  graphic.prepend(svg('desc', {}, document.createTextNode(summary)));
  const list = el('details', {}, el('summary', { text: 'Events as a list (' + summary + ')' }),
    el('ol', {}, events.sort((a, b) => a[0] - b[0]).map((e) => el('li', { text: e[1] }))));
  const actions = el('div', { class: 'actions' });
  for (const s of subscriptions) {
    actions.append(
      s.willAutoRenew ? button('Cancel auto-renew', ['cancel-subscription', s.productID])
        : button('Turn auto-renew on', ['cancel-subscription', s.productID, '--undo']),
      button('Renew now', ['renew', s.productID]), button('Expire now', ['expire', s.productID], { class: 'danger' }));
    // What the status says waits for an answer: a price increase, a billing issue.
    if (s.priceIncreaseStatus === 'pending') actions.append(
      button('Consent to the price increase', ['price-increase', 'consent', s.productID],
        { 'aria-label': 'Consent to the price increase of ' + s.productID, 'data-consent': s.productID }),
      button('Decline the price increase', ['price-increase', 'decline', s.productID],
        { 'aria-label': 'Decline the price increase of ' + s.productID, 'data-decline': s.productID, class: 'danger' }));
    if (s.isInBillingRetry) actions.append(
      button('Resolve the billing issue', ['resolve', String(s.originalID)],
        { 'aria-label': 'Resolve the billing issue of ' + s.productID, 'data-resolve': s.productID }));
    actions.append(priceForm(s.productID));
  }
  const node = el('div', { class: 'timeline', 'data-group': group }, heading, graphic, list, actions);
  /** Moves the now-line (and the bands open until now) to `at`; false when `at` is off the drawn range. */
  node.moveNow = (date) => {
    const at = Date.parse(date);
    if (!(at >= start && at <= end)) return false;
    nowLine.setAttribute('x1', x(at)); nowLine.setAttribute('x2', x(at)); nowLine.setAttribute('data-at', date);
    nowTitle.textContent = 'Now ' + when(date);
    for (const move of toNow) move(at);
    return true;
  };
  return node;
}

/** `iapsim price-increase PRODUCT PRICE [--consent-required | --notify-only]` as a small form. */
function priceForm(productID) {
  const key = productID.replace(/[^A-Za-z0-9_-]/g, '_');
  const price = el('input', { id: 'pi-price-' + key, size: 7, inputmode: 'decimal', placeholder: '12.99',
    autocomplete: 'off' });
  const mode = el('select', { id: 'pi-mode-' + key },
    el('option', { value: '--consent-required', text: 'the subscriber must consent' }),
    el('option', { value: '--notify-only', text: 'a notice only' }));
  const form = el('form', { class: 'price-form', 'data-price-increase': productID,
    'aria-label': 'Price increase of ' + productID },
    el('label', { for: price.id, text: 'New renewal price of ' + productID }), price,
    el('label', { for: mode.id, class: 'sr-only', text: 'How the subscriber learns of it' }), mode,
    el('button', { type: 'submit', text: 'Raise price' }));
  form.addEventListener('submit', (e) => { e.preventDefault();
    act(['price-increase', productID, price.value.trim(), mode.value], e.submitter); });
  return form;
}

/* Transactions */
const columns = [['id', 'ID'], ['originalID', 'Original', 'hide-medium'], ['productID', 'Product'],
  ['reason', 'Reason'], ['state', 'State'], ['offer', 'Offer', 'hide-narrow'], ['purchaseDate', 'Purchased', 'date'],
  ['expirationDate', 'Expires', 'date'], ['price', 'Price'], ['revocationDate', 'Revoked', 'hide-narrow date']];
function renderHeader() {
  $('#tx-table thead tr').replaceChildren(...columns.map(([key, label, extra]) => {
    const sorted = view.tx.sort === key;
    return el('th', { scope: 'col', class: extra, 'aria-sort': sorted ? (view.tx.order === 'desc' ? 'descending' : 'ascending') : 'none' },
      el('button', { type: 'button', text: label + (sorted ? (view.tx.order === 'desc' ? ' ↓' : ' ↑') : ''),
        onclick: () => { view.tx.order = sorted && view.tx.order === 'asc' ? 'desc' : 'asc'; view.tx.sort = key;
          view.tx.offset = 0; renderHeader(); loadTransactions(); } }));
  }), el('th', { scope: 'col', text: 'Actions' }));
}
async function loadTransactions() {
  const params = new URLSearchParams({ offset: view.tx.offset, limit: view.tx.limit, sort: view.tx.sort, order: view.tx.order });
  for (const [key, value] of Object.entries(view.tx.filter)) if (value) params.set(key, value);
  const page = await api('/api/rows/transactions?' + params);
  const body = $('#tx-table tbody');
  body.replaceChildren(...page.transactions.map((t) => el('tr', { 'data-id': t.id, 'data-reason': t.reason },
    ...columns.map(([key, , extra]) => {
      let text = t[key];
      if (key === 'offer') text = t.offer ? t.offer.type : '';
      if (key === 'price') text = t.price + ' ' + t.currency;
      if (key.endsWith('Date')) return el('td', { class: extra, title: t[key] ? when(t[key]) + ' UTC' : null,
        text: t[key] ? day(t[key]) : '—' });
      if (key === 'productID') return el('td', {}, t.productID, el('br'), el('span', { class: 'muted', text: t.productType }));
      if (key === 'state') return el('td', {}, el('span', { class: 'tag ' + t.state, text: t.state + (t.isFinished ? '' : ', unfinished') }));
      return el('td', { class: extra, text: text === null || text === undefined ? '' : String(text) });
    }),
    el('td', { class: 'actions' }, el('button', { type: 'button', text: 'JWS', 'aria-label': 'Decoded JWS of transaction ' + t.id,
      onclick: () => detail('Transaction ' + t.id + ': signed JWS, decoded', async () => read('jws', '?transaction=' + t.id)) }),
      t.revocationDate ? null : [' ', button('Refund', ['refund', String(t.id)],
        { class: 'danger', 'aria-label': 'Refund transaction ' + t.id, 'data-refund': t.id }),
        ' ', button('Request refund', ['request-refund', String(t.id)], { 'aria-label': 'Request a refund of transaction ' + t.id })],
      t.isFinished ? null : [' ', button('Finish', ['finish', String(t.id)], { 'aria-label': 'Finish transaction ' + t.id })]))));
  const last = page.offset + page.transactions.length;
  $('#tx-range').textContent = page.matched ? 'Rows ' + (page.offset + 1) + '–' + last + ' of ' + page.matched +
    (page.matched !== page.total ? ' (' + page.total + ' in all)' : '') : 'No transactions.';
  $('#tx-prev').disabled = page.offset === 0;
  $('#tx-next').disabled = last >= page.matched;
}

/* Notifications */
async function loadNotifications() {
  const page = await api('/api/rows/notifications?order=desc&offset=' + view.nt.offset + '&limit=' + view.nt.limit);
  $('#nt-table tbody').replaceChildren(...page.notifications.map((n) => el('tr', { 'data-type': n.notificationType },
    el('td', { text: when(n.date) }),
    el('td', { text: n.notificationType + (n.subtype ? ' / ' + n.subtype : '') }),
    el('td', { text: n.transactionID === null ? '—' : String(n.transactionID) }),
    el('td', {}, n.sendAttempts.length ? el('ul', { class: 'attempts' }, n.sendAttempts.map((a) =>
      el('li', { text: when(a.attemptDate) + ' → ' + a.sendAttemptResult }))) : el('span', { class: 'muted',
      text: n.delivered ? 'delivered' : 'not delivered yet (iapsim listen)' })),
    el('td', {}, el('button', { type: 'button', text: 'Show', 'aria-label': 'Signed payload of ' + n.notificationType,
      onclick: () => detail(n.notificationType + ' ' + n.notificationUUID, async () =>
        read('notification', '?uuid=' + encodeURIComponent(n.notificationUUID))) })))));
  const last = page.offset + page.notifications.length;
  $('#nt-range').textContent = page.matched ? (page.offset + 1) + '–' + last + ' of ' + page.matched : 'No notifications.';
  $('#nt-prev').disabled = page.offset === 0;
  $('#nt-next').disabled = last >= page.matched;
}

/* Settings */
function renderSettings(settings) {
  const select = $('#setting-key');
  const keep = select.value;
  const keys = Object.keys(settings.settings);
  select.replaceChildren(...keys.map((key) => el('option', { text: key })));
  if (keep) select.value = keep;
  $('#settings-table tbody').replaceChildren(...keys.map((key) => el('tr', {},
    el('td', { text: key }), el('td', { text: settings.settings[key] }), el('td', { text: settings.sources[key] }))));
}
