// iapsim ui: "Buy with options", built from `iapsim help buy --json` (app.js reads it once, as
// the view 'buy-options'): one field per option of `iapsim buy`, so an option the command gains
// is on the page without an edit here. The page adds only what a form needs beside the spec:
// the options it leaves out, the choices the catalog gives, and a button for a new token.

/** `--yes`: the page never asks, so it has nothing to answer. */
const buyOptionsLeftOut = new Set(['yes']);

/** Draws the form's fields from `view.buyOptions` (help buy --json). */
function renderBuyForm() {
  const options = view.buyOptions.options.filter((option) => !buyOptionsLeftOut.has(option.name));
  $('#bo-fields').replaceChildren(...options.map(buyField));
  renderOffers();
}

/** The outcomes a product's row offers: `--outcome`'s values but the `fail=ERROR` ones, which
    only the form lists. */
function rowOutcomes() {
  const outcome = view.buyOptions && view.buyOptions.options.find((option) => option.name === 'outcome');
  return outcome ? outcome.values.filter((value) => !value.includes('=')) : ['success'];
}

/** One option's field, `#bo-NAME`: a checkbox for a flag; a number for a count (typed, so a
    value out of range gets the command line's own error); a list for a set of values, or for
    `--offer`, whose choices are the chosen product's offers; text otherwise. */
function buyField(option) {
  const id = 'bo-' + option.name;
  const label = option.name[0].toUpperCase() + option.name.slice(1).replaceAll('-', ' ');
  const common = { id, name: option.name, 'data-option': option.name, 'aria-describedby': id + '-hint' };
  let input;
  if (option.valueName === null) {
    input = el('input', Object.assign({ type: 'checkbox' }, common));
  } else if (option.values.length && option.values.every((value) => /^[0-9]+$/.test(value))) {
    const numbers = option.values.map(Number);
    input = el('input', Object.assign({ type: 'number', min: Math.min(...numbers), max: Math.max(...numbers),
      size: 3 }, common));
  } else if (option.values.length || option.name === 'offer') {
    input = el('select', common, el('option', { value: '', text: option.name === 'offer' ? 'none' : 'default' }),
      ...option.values.map((value) => el('option', { text: value })));
  } else {
    input = el('input', Object.assign({ size: 24, placeholder: option.valueName, autocomplete: 'off',
      spellcheck: 'false' }, common));
  }
  const extra = option.name === 'app-account-token'
    ? [' ', el('button', { type: 'button', id: id + '-new', text: 'New token',
      onclick: () => { input.value = newUUID(); input.focus(); } })]
    : [];
  return el('span', { class: 'field', id: id + '-field' }, el('label', {}, label + ' ', input), ...extra,
    ' ', el('span', { id: id + '-hint', class: 'hint', text: option.help }));
}

/** The offers of the product chosen, as the catalog lists them; a billing plan only for a
    subscription the catalog gives plans (billingPlans). */
function renderOffers() {
  const select = $('#bo-offer');
  if (!select) return;
  const keep = select.value;
  const product = view.products.find((p) => p.id === $('#bo-product').value);
  const sub = product && product.subscription;
  const offers = sub ? [...sub.promotionalOffers, ...sub.winBackOffers] : [];
  select.replaceChildren(el('option', { value: '', text: 'none' }), ...offers.map((offer) =>
    el('option', { value: offer.id, text: offer.id + ' (' + offer.type + ': ' + offer.summary + ')' })));
  if (offers.some((offer) => offer.id === keep)) select.value = keep;
  const plan = $('#bo-billing-plan');
  if (!plan) return;
  const plans = !!(sub && sub.billingPlans.length);
  $('#bo-billing-plan-field').hidden = !plans;
  if (!plans) plan.value = '';
}

/** The words of the form: each field filled (a flag ticked) is its option of `iapsim buy`, in
    the order `iapsim help buy` lists them. */
function buyWords() {
  const words = ['buy', $('#bo-product').value];
  for (const field of document.querySelectorAll('#bo-fields [data-option]')) {
    if (field.closest('[hidden]')) continue;
    const option = '--' + field.dataset.option;
    if (field.type === 'checkbox') {
      if (field.checked) words.push(option);
    } else if (field.value.trim()) {
      words.push(option, field.value.trim());
    }
  }
  return words;
}

/** A random version-4 UUID for an app account token (crypto.randomUUID where the browser has it). */
function newUUID() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
}
