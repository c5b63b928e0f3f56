"""The Transaction Manager (`iapsim ui`) in headless Chromium, driven through Selenium: buy a
subscription on the page, raise its price and consent on the timeline's forms, advance the clock
a year with the keyboard, see twelve renewals on the timeline at the new price, refund one from
its row, see the REFUND notification in the outbox, see a purchase made meanwhile with
`iapsim buy` in a shell appear without a reload, resolve a billing issue, buy three of a
consumable with an app account token from "Buy with options", add a customer and buy for it
alone, and let the clock run: the now-line follows it, and stops while the tab is hidden. It
saves a screenshot of each screen into SHOTS (and, with --docs DIR, into DIR for docs/UI.md),
and prints the load and update times it measured.

Usage: ui_story.py path/to/iapsim SHOTS [--docs DIR]   (run by Tests/e2e/ui.sh)
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.abspath(sys.argv[1])
SHOTS = os.path.abspath(sys.argv[2])
DOCS = os.path.abspath(sys.argv[sys.argv.index("--docs") + 1]) if "--docs" in sys.argv else None
WAIT = 20  # seconds: the longest any step waits for the page
SUBSCRIPTION = "com.example.app.pro.monthly"

failures = []
passed = 0


def check(condition, message):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(message)
        print("FAIL: " + message)


def shot(driver, name):
    os.makedirs(SHOTS, exist_ok=True)
    path = os.path.join(SHOTS, name + ".png")
    driver.save_screenshot(path)
    if DOCS:
        os.makedirs(DOCS, exist_ok=True)
        shutil.copy(path, os.path.join(DOCS, name + ".png"))


def iapsim(env, *words):
    return subprocess.run([BIN, *words], env=env, capture_output=True, text=True, timeout=60)


def main():
    work = tempfile.mkdtemp(prefix="iapsim-ui-")
    env = dict(os.environ, IAPSIM_STATE_DIR=os.path.join(work, "state"), IAPSIM_CATALOG=os.path.join(ROOT, "catalog"))
    env.pop("IAPSIM_LOCALE", None)
    iapsim(env, "clock", "set", "2027-01-01T00:00:00Z")
    iapsim(env, "clock", "freeze")
    port_file = os.path.join(work, "port")
    server = subprocess.Popen([BIN, "ui", "--port-file", port_file], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    driver = None
    try:
        deadline = time.monotonic() + WAIT
        while not os.path.exists(port_file) and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.05)
        check(os.path.exists(port_file), "iapsim ui wrote its port file")
        port = open(port_file).read().strip()
        # The first line is the one-time sign-in address, which gives the browser its cookie.
        opened = server.stdout.readline().strip()
        check(opened.startswith("Open http://127.0.0.1:%s/login?secret=" % port), "iapsim ui printed its sign-in address")
        url = opened[len("Open "):]

        # Chromium keeps its singleton socket in a folder under TMPDIR, left behind when it is
        # not shut down cleanly: under the story's folder, it goes with it.
        os.environ["TMPDIR"] = work
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1280,800", "--force-device-scale-factor=1"):
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                                  options=options)
        driver.set_page_load_timeout(WAIT)
        driver.set_script_timeout(WAIT)
        # The page redraws a view when the state changes: an element read meanwhile is stale.
        wait = WebDriverWait(driver, WAIT, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,))

        def rows(selector):
            return driver.find_elements(By.CSS_SELECTOR, selector)

        # 1. The page, the catalog and the clock.
        driver.get(url)
        wait.until(lambda d: len(rows("#catalog-table tbody tr")) > 0 and "2027-01-01" in d.find_element(By.ID, "clock-now").text)
        check(any("$2.99" in r.text for r in rows("#catalog-table tbody tr")), "the catalog shows localized prices")
        check("eligible for the introductory offer" in driver.find_element(By.ID, "catalog-table").text,
              "the catalog shows intro-offer eligibility")
        shot(driver, "01-catalog")

        # 1b. The signed-in page still cannot run a program (clock exec), and another process
        # without the cookie gets neither the page nor a secret; the link, once used, is spent.
        marker = os.path.join(work, "ran")
        status = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch('/api/action', {method: 'POST', headers: {'Content-Type': 'application/json'},"
            " body: JSON.stringify({argv: ['clock', 'exec', '--', 'touch', arguments[0]]})}).then(r => done(r.status));",
            marker)
        check(status == 403 and not os.path.exists(marker), "the page may not run clock exec (HTTP %s)" % status)
        for address, expected in (("http://127.0.0.1:%s/" % port, 401), (url, 403)):
            try:
                urllib.request.urlopen(address, timeout=WAIT)
                answer = 200
            except urllib.error.HTTPError as error:
                answer = error.code
            check(answer == expected, "without the cookie %s answers %s, not %s" % (address.split("?")[0], expected, answer))

        # 2. Buy the subscription from its row.
        driver.find_element(By.CSS_SELECTOR, 'button[data-buy="%s"]' % SUBSCRIPTION).click()
        wait.until(lambda d: len(rows('.timeline rect[data-kind="purchase"]')) == 1)
        check("purchased" in driver.find_element(By.ID, "result").text, "the page says the purchase went through")
        shot(driver, "02-bought")

        # 2b. A price increase from the timeline's form (with the keyboard), then the subscriber's consent.
        price = driver.find_element(By.CSS_SELECTOR, '.timeline form[data-price-increase="%s"] input' % SUBSCRIPTION)
        price.send_keys("3.49", Keys.ENTER)
        wait.until(lambda d: len(rows('.timeline button[data-consent="%s"]' % SUBSCRIPTION)) == 1)
        # The increase writes the state and the outbox: the timeline may be drawn twice meanwhile.
        wait.until(lambda d: "waiting for consent" in d.find_element(By.CSS_SELECTOR, ".timeline h3").text)
        check(len(rows('#nt-table tbody tr[data-type="PRICE_INCREASE"]')) == 1, "PRICE_INCREASE/PENDING in the outbox")
        driver.find_element(By.CSS_SELECTOR, '.timeline button[data-consent="%s"]' % SUBSCRIPTION).send_keys(Keys.ENTER)
        wait.until(lambda d: len(rows('.timeline line[data-kind="price"]')) == 2)
        check(len(rows('.timeline button[data-consent]')) == 0, "nothing waits for consent after it")
        check("price-increase consent" in driver.find_element(By.ID, "result").text
              and "(exit 0)" in driver.find_element(By.ID, "result").text, "the page shows the consent's outcome")
        check(any("PRICE_INCREASE / ACCEPTED" in r.text for r in rows("#nt-table tbody tr")),
              "PRICE_INCREASE/ACCEPTED in the outbox")
        driver.execute_script("document.getElementById('subscriptions').scrollIntoView()")
        shot(driver, "10-price-increase")

        # 3. Advance the clock a year, with the keyboard.
        field = driver.find_element(By.ID, "advance-by")
        field.clear()
        field.send_keys("P1Y", Keys.ENTER)
        wait.until(lambda d: len(rows('.timeline rect[data-kind="renewal"]')) == 12)
        check("2028-01-01" in driver.find_element(By.ID, "clock-now").text, "the clock reads a year later")
        check(len(rows('.timeline line[data-kind="now"]')) == 1, "the timeline draws now as a line")
        check(any("3.49 USD" in r.text for r in rows('#tx-table tbody tr[data-reason="renewal"]')),
              "the renewals after the consent charge the new price")
        driver.execute_script("document.getElementById('subscriptions').scrollIntoView()")
        shot(driver, "03-timeline")

        # 4. Refund one renewal from its row in the table; the REFUND notification appears.
        renewal = rows('#tx-table tbody tr[data-reason="renewal"]')[2]
        refunded = renewal.get_attribute("data-id")
        renewal.find_element(By.CSS_SELECTOR, "button[data-refund]").click()
        wait.until(lambda d: "revoked" in d.find_element(By.CSS_SELECTOR, '#tx-table tr[data-id="%s"]' % refunded).text)
        wait.until(lambda d: len(rows('#nt-table tbody tr[data-type="REFUND"]')) == 1)
        check(len(rows('.timeline line[data-kind="refund"]')) == 1, "the timeline marks the refund")
        driver.execute_script("document.getElementById('notifications').scrollIntoView()")
        shot(driver, "04-refund-outbox")

        # 5. A purchase made meanwhile in a shell appears without a reload.
        marker = driver.execute_script("window.notReloaded = true; return window.notReloaded")
        started = time.monotonic()
        check(iapsim(env, "buy", "com.example.app.book").returncode == 0, "iapsim buy in a shell")
        wait.until(lambda d: any("com.example.app.book" in r.text for r in rows("#tx-table tbody tr")))
        update_ms = (time.monotonic() - started) * 1000
        check(driver.execute_script("return window.notReloaded") is True and marker, "the page was not reloaded")
        driver.execute_script("document.getElementById('transactions').scrollIntoView()")
        shot(driver, "05-shell-purchase")

        # 6. Billing trouble: the settings from the page, then a month; grace and retry bands.
        for key in ("billing-retry", "grace-period"):
            Select(driver.find_element(By.ID, "setting-key")).select_by_visible_text(key)
            value = driver.find_element(By.ID, "setting-value")
            value.clear()
            value.send_keys("true", Keys.ENTER)
            wait.until(lambda d: any(r.text.split()[:2] == [key, "true"] for r in rows("#settings-table tbody tr")))
        field = driver.find_element(By.ID, "advance-by")
        field.clear()
        field.send_keys("P1M", Keys.ENTER)
        wait.until(lambda d: len(rows('.timeline rect[data-kind="grace"]')) == 1
                   and len(rows('.timeline rect[data-kind="retry"]')) == 1)
        check(len(rows('#nt-table tbody tr[data-type="GRACE_PERIOD_EXPIRED"]')) == 1, "GRACE_PERIOD_EXPIRED in the outbox")
        driver.execute_script("document.getElementById('subscriptions').scrollIntoView()")
        shot(driver, "06-billing-retry")

        # 6b. Resolve the billing issue from the timeline: the App Store's DID_RENEW/BILLING_RECOVERY.
        driver.find_element(By.CSS_SELECTOR, '.timeline button[data-resolve="%s"]' % SUBSCRIPTION).click()
        wait.until(lambda d: any("BILLING_RECOVERY" in r.text for r in rows("#nt-table tbody tr")))
        check(len(rows('.timeline button[data-resolve]')) == 0, "no billing issue is left to resolve")
        driver.execute_script("document.getElementById('subscriptions').scrollIntoView()")
        shot(driver, "11-billing-resolved")

        # 6c. Buy with options: three coins with a new app account token, from the keyboard.
        driver.execute_script("document.getElementById('buy-options').scrollIntoView({ block: 'center' })")
        # The form is buy's spec: a field for each option `iapsim help buy --json` lists (but --yes),
        # and every --outcome value, fail=ERROR ones included, to choose from.
        spec = json.loads(iapsim(env, "help", "buy", "--json").stdout)["options"]
        fields = [f.get_attribute("data-option") for f in driver.find_elements(By.CSS_SELECTOR, "#bo-fields [data-option]")]
        check(fields == [o["name"] for o in spec if o["name"] != "yes"], "a field per option of buy: %s" % fields)
        outcome = next(o for o in spec if o["name"] == "outcome")
        offered = [e.get_attribute("value") for e in Select(driver.find_element(By.ID, "bo-outcome")).options]
        check(offered == [""] + outcome["values"] and "fail=StoreKitError.networkError" in offered, "the outcomes are buy's")
        Select(driver.find_element(By.ID, "bo-product")).select_by_value("com.example.app.coins100")
        check(not driver.find_element(By.ID, "bo-billing-plan").is_displayed(), "no billing plan to choose for a consumable")
        driver.find_element(By.ID, "bo-app-account-token-new").send_keys(Keys.ENTER)
        token = driver.find_element(By.ID, "bo-app-account-token").get_attribute("value")
        quantity = driver.find_element(By.ID, "bo-quantity")
        quantity.clear()
        quantity.send_keys("3", Keys.ENTER)
        coins = '#catalog-table tr[data-product="com.example.app.coins100"]'
        wait.until(lambda d: "balance 3" in d.find_element(By.CSS_SELECTOR, coins).text)
        check("--quantity 3" in driver.find_element(By.ID, "result").text, "the result names the quantity")
        driver.execute_script("window.scrollTo(0, 0)")
        shot(driver, "12-buy-options")
        quantity.clear()
        quantity.send_keys("11", Keys.ENTER)
        wait.until(lambda d: "--quantity 11" in d.find_element(By.ID, "result").text)
        check("(exit 64)" in driver.find_element(By.ID, "result").text
              and "from 1 to 10" in driver.find_element(By.ID, "result").text, "a quantity of 11 is the CLI's usage error")
        check("balance 3" in driver.find_element(By.CSS_SELECTOR, coins).text, "nothing more was bought")

        # 7. A transaction's decoded JWS, one click away: the coins, with their quantity and token.
        rows("#tx-table tbody tr")[0].find_element(By.XPATH, ".//button[text()='JWS']").click()
        wait.until(lambda d: '"transactionId"' in d.find_element(By.ID, "detail-body").text)
        payload = driver.find_element(By.ID, "detail-body").text
        check('"quantity": 3' in payload and token.lower() in payload, "the JWS has the quantity and the app account token")
        shot(driver, "07-jws")
        driver.find_element(By.ID, "detail-close").click()

        # 7b. Another customer: add bob from the header, buy for bob on the page; bob's table has the
        # purchase, default's does not, and the command line agrees.
        driver.execute_script("window.scrollTo(0, 0)")
        check(Select(driver.find_element(By.ID, "account")).first_selected_option.get_attribute("value") == "default",
              "the picker starts on the customer iapsim ui acts for")
        driver.find_element(By.ID, "account-new").send_keys("bob", Keys.ENTER)
        wait.until(lambda d: d.execute_script("return document.body.dataset.account") == "bob"
                   and Select(d.find_element(By.ID, "account")).first_selected_option.get_attribute("value") == "bob")
        wait.until(lambda d: "No transactions." in d.find_element(By.ID, "tx-range").text)
        yearly = "com.example.app.pro.yearly"
        driver.find_element(By.CSS_SELECTOR, 'button[data-buy="%s"]' % yearly).click()
        wait.until(lambda d: [r.get_attribute("data-id") for r in rows("#tx-table tbody tr")] != []
                   and all(yearly in r.text for r in rows("#tx-table tbody tr")))
        check(len(rows("#tx-table tbody tr")) == 1, "bob's table has bob's one purchase")
        check("--account bob buy %s" % yearly in driver.find_element(By.ID, "result").text,
              "the page ran the purchase for bob")
        wait.until(lambda d: "bob (1 transaction)" in d.find_element(By.ID, "account").text)
        driver.execute_script("document.getElementById('transactions').scrollIntoView()")
        shot(driver, "13-customer")
        Select(driver.find_element(By.ID, "account")).select_by_value("default")
        wait.until(lambda d: d.execute_script("return document.body.dataset.account") == "default"
                   and any("com.example.app.book" in r.text for r in rows("#tx-table tbody tr")))
        check(not any(yearly in r.text for r in rows("#tx-table tbody tr")), "default's table does not have bob's purchase")
        check(yearly in iapsim(env, "--account", "bob", "transactions", "--json").stdout
              and yearly not in iapsim(env, "transactions", "--json").stdout, "the command line agrees")

        # 8. Phone width, and the dark scheme.
        driver.set_window_size(390, 844)
        driver.execute_script("window.scrollTo(0, 0)")
        shot(driver, "08-phone")
        driver.set_window_size(1280, 800)
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                               {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        driver.execute_script("document.getElementById('subscriptions').scrollIntoView()")
        shot(driver, "09-dark")

        # 10. A running clock: the clock's line and the now-line move without a change to the state,
        # every few seconds, and not while the tab is hidden.
        driver.set_window_size(1280, 800)
        driver.find_element(By.ID, "clock-run").click()
        wait.until(lambda d: "frozen" not in d.find_element(By.ID, "clock-now").text)
        wait.until(lambda d: d.find_element(By.ID, "clock-run").get_attribute("disabled"))
        now_at = lambda: driver.find_element(By.CSS_SELECTOR, '.timeline line[data-kind="now"]').get_attribute("data-at")
        first, version = now_at(), driver.execute_script("return document.body.dataset.version")
        WebDriverWait(driver, 15, poll_frequency=0.2).until(lambda d: now_at() != first)
        check(driver.execute_script("return document.body.dataset.version") == version,
              "the now-line moved with no change to the state")
        check(driver.find_element(By.ID, "clock-now").get_attribute("aria-live") == "off",
              "the timer's moves of the clock are not announced")
        driver.execute_script("Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });"
                              "document.dispatchEvent(new Event('visibilitychange'))")
        time.sleep(0.5)  # a read of the clock already under way may still land
        hidden_at = now_at()
        time.sleep(7)
        check(now_at() == hidden_at, "a hidden tab does not read the clock")
        driver.execute_script("Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });"
                              "document.dispatchEvent(new Event('visibilitychange'))")
        WebDriverWait(driver, 3, poll_frequency=0.1).until(lambda d: now_at() != hidden_at)

        # The first load: from the request to every view drawn, in a new tab.
        started = time.monotonic()
        driver.get("http://127.0.0.1:%s/" % port)
        wait.until(lambda d: len(rows("#tx-table tbody tr")) > 0 and len(rows(".timeline")) == 1)
        load_ms = (time.monotonic() - started) * 1000
        print("ui story: first load drawn in %.0f ms; a shell's purchase shown in %.0f ms" % (load_ms, update_ms))
        check(update_ms < 2000, "a shell's change shows within 2 s (measured %.0f ms)" % update_ms)
    except Exception as error:  # a timeout names the step through the traceback
        import traceback
        traceback.print_exc()
        failures.append("story stopped: %r" % error)
        if driver:
            shot(driver, "failure")
    finally:
        if driver:
            driver.quit()
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)
    print("ui story: %d passed, %d failed (screenshots in %s)" % (passed, len(failures), SHOTS))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
