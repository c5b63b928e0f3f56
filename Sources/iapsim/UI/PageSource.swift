/// The page `iapsim ui` serves: hand-written HTML, CSS and JavaScript, compiled into the
/// binary so it works offline and needs no package. It holds no secret (the browser proves
/// itself with the session cookie it got at the sign-in link); `{{ACCOUNT}}` is replaced by the customer `iapsim ui` started with (the picker's first choice).
/// The script (`PageSource+Script.swift`) draws what the commands' `--json` says and sends
/// each button's words to `/api/action`; it decides nothing about the App Store.
enum PageSource {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="iapsim-account" content="{{ACCOUNT}}">
        <meta name="color-scheme" content="light dark">
        <title>iapsim Transaction Manager</title>
        <link rel="stylesheet" href="/app.css">
        <script src="/app.js" defer></script>
        </head>
        <body>
        <a class="skip" href="#transactions">Skip to transactions</a>
        <header>
          <h1>iapsim <span>Transaction Manager</span></h1>
          <section id="customer" aria-labelledby="customer-title">
            <h2 id="customer-title" class="sr-only">Customer</h2>
            <label for="account">Customer</label>
            <select id="account" name="account" aria-describedby="account-hint"><option>{{ACCOUNT}}</option></select>
            <span id="account-hint" class="sr-only">Every view and button acts for the customer chosen here</span>
            <form id="account-add" class="inline-form">
              <label for="account-new" class="sr-only">New customer's name</label>
              <input id="account-new" name="name" size="10" placeholder="new name" required maxlength="64"
                pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" autocomplete="off" spellcheck="false">
              <button type="submit">Add customer</button>
            </form>
          </section>
          <section id="clock" aria-labelledby="clock-title">
            <h2 id="clock-title" class="inline">Simulated clock</h2>
            <output id="clock-now" aria-live="polite">loading…</output>
            <form id="clock-advance" class="inline-form">
              <label for="advance-by">Advance by</label>
              <input id="advance-by" name="by" value="P1M" size="6" pattern="P.*" required
                     aria-describedby="advance-hint">
              <span id="advance-hint" class="sr-only">An ISO 8601 duration such as P1D, P1M or P1Y</span>
              <button type="submit">Advance</button>
            </form>
            <form id="clock-set" class="inline-form">
              <label for="set-to">Set to</label>
              <input id="set-to" name="to" size="19" placeholder="2027-01-01T00:00:00Z" required>
              <button type="submit">Set</button>
            </form>
            <button type="button" id="clock-freeze">Freeze</button>
            <button type="button" id="clock-run">Run</button>
          </section>
        </header>
        <div id="result" role="status" aria-live="polite" class="result" hidden></div>
        <main>
          <section id="catalog" aria-labelledby="catalog-title">
            <h2 id="catalog-title">Catalog</h2>
            <p id="catalog-meta" class="meta">Loading the catalog…</p>
            <div class="scroll"><table id="catalog-table">
              <caption class="sr-only">Products, their localized prices and eligibility</caption>
              <thead><tr><th scope="col">Product</th><th scope="col">Type</th><th scope="col">Price</th>
                <th scope="col">Eligibility</th><th scope="col">Owned</th><th scope="col">Buy</th></tr></thead>
              <tbody></tbody>
            </table></div>
            <form id="buy-options" class="options" aria-labelledby="buy-options-title" novalidate>
              <h3 id="buy-options-title">Buy with options</h3>
              <label>Product <select id="bo-product" name="product"></select></label>
              <label>Quantity <input id="bo-quantity" name="quantity" type="number" min="1" max="10" value="1"
                size="3" aria-describedby="bo-quantity-hint"></label>
              <span id="bo-quantity-hint" class="hint">of a consumable, 1–10</span>
              <label>Offer <select id="bo-offer" name="offer" aria-describedby="bo-offer-hint"></select></label>
              <span id="bo-offer-hint" class="hint">none: the introductory offer applies when eligible</span>
              <label>Offer signature <input id="bo-signature" name="signature" size="24"
                placeholder="KEY_ID:NONCE:TIMESTAMP:SIGNATURE" aria-describedby="bo-signature-hint"></label>
              <span id="bo-signature-hint" class="hint">only for a catalog with an offer key (iapsim offer-signature)</span>
              <label>App account token <input id="bo-token" name="token" size="36" placeholder="UUID"
                autocomplete="off" spellcheck="false"></label>
              <button type="button" id="bo-token-new">New token</button>
              <label id="bo-plan-label" hidden>Billing plan <select id="bo-plan" name="plan">
                <option value="">upfront (the default)</option><option>monthly</option></select></label>
              <label>Outcome <select id="bo-outcome" name="outcome"><option value="">as the settings say</option>
                <option>success</option><option>ask-to-buy</option><option>interrupted</option><option>cancel</option>
                <option>fail</option></select></label>
              <button type="submit">Buy</button>
            </form>
          </section>
          <section id="pending" aria-labelledby="pending-title">
            <h2 id="pending-title">Ask to Buy and interrupted purchases</h2>
            <div id="pending-list"></div>
          </section>
          <section id="subscriptions" aria-labelledby="subscriptions-title">
            <h2 id="subscriptions-title">Subscriptions</h2>
            <p class="legend" aria-hidden="true"><span class="key purchase"></span>purchase
              <span class="key renewal"></span>renewal <span class="key upgrade"></span>upgraded
              <span class="key grace"></span>grace period <span class="key retry"></span>billing retry
              <span class="key refund"></span>refund <span class="key change"></span>upgrade/downgrade chosen
              <span class="key expiry"></span>expiry <span class="key price"></span>price increase
              <span class="key now"></span>now</p>
            <div id="timelines"></div>
          </section>
          <section id="transactions" aria-labelledby="transactions-title" tabindex="-1">
            <h2 id="transactions-title">Transactions</h2>
            <form id="tx-filter" class="filters" role="search">
              <label>Search <input name="q" type="search" placeholder="id, product, order…"></label>
              <label>Product <select name="eq.productID"><option value="">any</option></select></label>
              <label>Type <select name="eq.productType"><option value="">any</option>
                <option>consumable</option><option>nonConsumable</option><option>autoRenewable</option>
                <option>nonRenewable</option></select></label>
              <label>State <select name="eq.state"><option value="">any</option><option>purchased</option>
                <option>expired</option><option>upgraded</option><option>revoked</option></select></label>
              <label>Offer <select name="eq.offer"><option value="">any</option><option>introductory</option>
                <option>promotional</option><option>code</option><option>winBack</option></select></label>
            </form>
            <div class="scroll"><table id="tx-table">
              <caption class="sr-only">Transactions; the column buttons sort</caption>
              <thead><tr></tr></thead>
              <tbody></tbody>
            </table></div>
            <nav class="pager" aria-label="Transaction pages">
              <button type="button" id="tx-prev">Previous page</button>
              <span id="tx-range" aria-live="polite"></span>
              <button type="button" id="tx-next">Next page</button>
            </nav>
          </section>
          <section id="notifications" aria-labelledby="notifications-title">
            <h2 id="notifications-title">Notifications</h2>
            <form id="trigger" class="inline-form">
              <label for="trigger-type">Trigger</label>
              <select id="trigger-type" name="type"></select>
              <label for="trigger-product">for</label>
              <select id="trigger-product" name="product"><option value="">any product</option></select>
              <button type="submit">Trigger</button>
            </form>
            <div class="scroll"><table id="nt-table">
              <caption class="sr-only">The notification outbox, newest first, with each delivery attempt</caption>
              <thead><tr><th scope="col">Date</th><th scope="col">Type</th><th scope="col">Transaction</th>
                <th scope="col">Delivery attempts</th><th scope="col">Payload</th></tr></thead>
              <tbody></tbody>
            </table></div>
            <nav class="pager" aria-label="Notification pages">
              <button type="button" id="nt-prev">Newer</button>
              <span id="nt-range" aria-live="polite"></span>
              <button type="button" id="nt-next">Older</button>
            </nav>
          </section>
          <section id="settings" aria-labelledby="settings-title">
            <h2 id="settings-title">Settings</h2>
            <form id="settings-form" class="inline-form">
              <label for="setting-key">Setting</label>
              <select id="setting-key" name="key"></select>
              <label for="setting-value">value</label>
              <input id="setting-value" name="value" size="14" required>
              <button type="submit">Set</button>
            </form>
            <div class="scroll"><table id="settings-table">
              <caption class="sr-only">Session settings and where each came from</caption>
              <thead><tr><th scope="col">Setting</th><th scope="col">Value</th><th scope="col">From</th></tr></thead>
              <tbody></tbody>
            </table></div>
          </section>
        </main>
        <dialog id="detail" aria-labelledby="detail-title">
          <h2 id="detail-title">Detail</h2>
          <pre id="detail-body" tabindex="0"></pre>
          <form method="dialog"><button id="detail-close">Close</button></form>
        </dialog>
        </body>
        </html>
        """#

    static let style = #"""
        :root { --bg: #fff; --fg: #1d1d1f; --muted: #6e6e73; --line: #d2d2d7; --panel: #f5f5f7;
          --accent: #0066cc; --bad: #c9302c; --ok: #1a7f37; --grace: #f5c451; --retry: #f08c3a;
          --purchase: #0066cc; --renewal: #5e9ed6; --upgrade: #8e6bd1; color-scheme: light dark; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #161618; --fg: #f5f5f7; --muted: #a1a1a6; --line: #3a3a3c; --panel: #232326;
            --accent: #4da3ff; --bad: #ff6961; --ok: #56d364; --purchase: #4da3ff; --renewal: #2f6ea8; }
        }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg);
          color: var(--fg); }
        header { position: sticky; top: 0; z-index: 2; background: var(--panel); border-bottom: 1px solid var(--line);
          padding: .5rem 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; }
        h1 { font-size: 1.1rem; margin: 0; } h1 span { font-weight: 400; color: var(--muted); }
        h2 { font-size: 1rem; margin: 1.25rem 0 .5rem; } h2.inline { margin: 0; font-size: .9rem; }
        #clock, #customer { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
        #clock-now { font-variant-numeric: tabular-nums; font-weight: 600; }
        main { padding: 0 1rem 3rem; max-width: 1400px; margin: 0 auto; }
        table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
        th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { font-weight: 600; color: var(--muted); white-space: nowrap; }
        th button { all: unset; cursor: pointer; } th button:focus-visible { outline: 2px solid var(--accent); }
        .scroll { overflow-x: auto; }
        button, input, select { font: inherit; color: inherit; }
        button { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .15rem .6rem;
          cursor: pointer; }
        button:hover { border-color: var(--accent); }
        button.danger { color: var(--bad); }
        input, select { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: .15rem .4rem; }
        :focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
        .inline-form, .filters { display: inline-flex; flex-wrap: wrap; gap: .35rem; align-items: center; margin: 0; }
        .filters { margin-bottom: .5rem; gap: .5rem 1rem; }
        .options { display: flex; flex-wrap: wrap; gap: .4rem 1rem; align-items: center; margin: .75rem 0 0;
          padding: .5rem; border: 1px solid var(--line); border-radius: 8px; }
        .options h3 { flex-basis: 100%; font-size: .95rem; margin: 0; }
        .timeline .price-form { display: inline-flex; flex-wrap: wrap; gap: .35rem; align-items: center; }
        .hint, .meta, .muted { color: var(--muted); font-size: .85em; }
        .result { margin: .5rem 1rem; padding: .4rem .75rem; border-radius: 6px; border: 1px solid var(--line);
          background: var(--panel); white-space: pre-wrap; }
        .result.bad { border-color: var(--bad); }
        .pager { display: flex; gap: 1rem; align-items: center; margin: .5rem 0; }
        .tag { display: inline-block; padding: 0 .4rem; border-radius: 4px; background: var(--panel);
          border: 1px solid var(--line); font-size: .85em; }
        .tag.revoked, .tag.failed { color: var(--bad); } .tag.purchased, .tag.success { color: var(--ok); }
        .timeline { border: 1px solid var(--line); border-radius: 8px; padding: .5rem; margin-bottom: 1rem; }
        .timeline h3 { font-size: .95rem; margin: 0 0 .25rem; }
        .timeline svg { width: 100%; height: auto; display: block; }
        .timeline .actions { display: flex; flex-wrap: wrap; gap: .4rem; margin-top: .4rem; }
        .bar.purchase { fill: var(--purchase); } .bar.renewal { fill: var(--renewal); }
        .bar.upgrade { fill: var(--upgrade); } .bar.revoked { fill: var(--bad); opacity: .6; }
        .band.grace { fill: var(--grace); opacity: .55; } .band.retry { fill: var(--retry); opacity: .45; }
        .mark.refund { stroke: var(--bad); stroke-width: 3; } .mark.expiry { stroke: var(--fg); stroke-width: 2;
          stroke-dasharray: 3 2; }
        .mark.change { stroke: var(--upgrade); stroke-width: 2; stroke-dasharray: 1 2; }
        .mark.price { stroke: var(--grace); stroke-width: 3; stroke-dasharray: 6 2; }
        .mark.now { stroke: var(--ok); stroke-width: 2; } .axis { fill: var(--muted); font-size: 10px; }
        .lane { fill: var(--muted); font-size: 10px; }
        .legend { font-size: .85em; color: var(--muted); }
        .key { display: inline-block; width: .8em; height: .8em; margin: 0 .25em 0 .6em; vertical-align: -1px;
          border-radius: 2px; }
        .key.purchase { background: var(--purchase); } .key.renewal { background: var(--renewal); }
        .key.upgrade { background: var(--upgrade); } .key.grace { background: var(--grace); }
        .key.retry { background: var(--retry); } .key.refund { background: var(--bad); }
        .key.change { border: 1px dotted var(--upgrade); }
        .key.expiry { border: 1px dashed var(--fg); } .key.price { border: 2px dashed var(--grace); } .key.now { background: var(--ok); }
        dialog { max-width: min(900px, 95vw); width: 100%; border: 1px solid var(--line); border-radius: 10px;
          background: var(--bg); color: var(--fg); }
        dialog pre { max-height: 70vh; overflow: auto; background: var(--panel); padding: .5rem; font-size: 12px; }
        .skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: .5rem; z-index: 3; }
        .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
        ul.attempts { margin: 0; padding-left: 1rem; }
        td.actions, td.date { white-space: nowrap; }
        td.actions button { padding: .1rem .45rem; }
        @media (max-width: 1400px) { .hide-medium { display: none; } }
        section { scroll-margin-top: 5.5rem; }
        @media (max-width: 700px) {
          header { position: static; } main { padding: 0 .5rem 2rem; }
          th, td { padding: .25rem .3rem; } .hide-narrow { display: none; }
        }
        """#
}
