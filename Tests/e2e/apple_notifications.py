"""App Store Server Notifications V2 from iapsim, judged by Apple's library at a webhook.

Usage: apple_notifications.py path/to/iapsim   (run by Tests/e2e/apple.sh in the virtual
environment that has app-store-server-library)

A webhook on 127.0.0.1 (port 0) receives what `iapsim listen --forward-to … --drain` POSTs and
decodes each with Apple's SignedDataVerifier.verify_and_decode_notification: Sandbox against
iapsim's exported root, and Production with app_apple_id. The events: first subscription,
resubscribe, renewal, billing-retry recovery, failed renewal with and without grace, grace
expiry, voluntary and billing-retry expiry, auto-renew off and on, upgrade, downgrade, refund,
one-time charge, test, offers, price increases, Family Sharing, renewal extensions (the mass
extension's `summary` included); `appAppleId` in Production only. A webhook answering 500
then 200 shows two attempts in Production and one in the sandbox; a SIGKILL of a listener
loses nothing and posts again at most the one in flight (Tests/e2e/deliveries.py kills it
at random moments).
"""
import atexit
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

iapsim = os.path.abspath(sys.argv[1])
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUNDLE, APP_APPLE_ID = "com.example.app", 1234567890
passed = failed = 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name} {detail}")


class Webhook:
    """A loopback endpoint that records bodies and answers from a script of statuses."""

    def __init__(self):
        self.bodies, self.answers, self.lock = [], [], threading.Lock()
        hook = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with hook.lock:
                    hook.bodies.append((self.headers.get("Content-Type"), self.headers.get("X-Test"), body))
                    status = hook.answers.pop(0) if hook.answers else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/apple"

    def take(self):
        with self.lock:
            bodies, self.bodies = self.bodies, []
        return bodies


def session(environment):
    work = tempfile.mkdtemp(prefix="iapsim-notifications-")
    atexit.register(shutil.rmtree, work, True)  # the state and certificates go with the run
    env = dict(os.environ, IAPSIM_STATE_DIR=work + "/state", IAPSIM_CATALOG=root + "/catalog")
    env.pop("IAPSIM_CERTS_DIR", None)

    def run(*args, ok=(0,)):
        result = subprocess.run([iapsim, *args], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                                timeout=300)
        if result.returncode not in ok:
            raise SystemExit(f"FAIL: iapsim {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
        return result.stdout

    run("clock", "freeze")
    run("clock", "set", "2030-01-01T00:00:00Z")
    run("settings", "set", "environment", environment)
    run("settings", "set", "app-apple-id", str(APP_APPLE_ID))
    run("certs", "export", work + "/trusted")
    with open(work + "/trusted/root.der", "rb") as f:
        trusted = f.read()
    return run, env, trusted


def decode_all(bodies, verifier):
    decoded = []
    for content_type, _, body in bodies:
        check("Content-Type is application/json", content_type == "application/json", content_type)
        payload = verifier.verify_and_decode_notification(json.loads(body)["signedPayload"])
        decoded.append(payload)
    return decoded


hook = Webhook()
expected = {
    ("SUBSCRIBED", "INITIAL_BUY"), ("SUBSCRIBED", "RESUBSCRIBE"), ("DID_RENEW", None), ("DID_RENEW", "BILLING_RECOVERY"),
    ("DID_FAIL_TO_RENEW", None), ("DID_FAIL_TO_RENEW", "GRACE_PERIOD"), ("GRACE_PERIOD_EXPIRED", None),
    ("EXPIRED", "VOLUNTARY"), ("EXPIRED", "BILLING_RETRY"), ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED"),
    ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED"), ("DID_CHANGE_RENEWAL_PREF", "UPGRADE"),
    ("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE"), ("REFUND", None), ("ONE_TIME_CHARGE", None), ("TEST", None),
    ("CONSUMPTION_REQUEST", None), ("REFUND_DECLINED", None), ("REFUND_REVERSED", None), ("PRICE_INCREASE", "PENDING"),
    ("PRICE_INCREASE", "ACCEPTED"), ("EXPIRED", "PRICE_INCREASE"), ("OFFER_REDEEMED", "DOWNGRADE"),
    ("OFFER_REDEEMED", None), ("REVOKE", None), ("RENEWAL_EXTENDED", None), ("RENEWAL_EXTENSION", "SUMMARY"),
    ("RENEWAL_EXTENSION", "FAILURE"),
}
for environment, library_environment in [("Sandbox", Environment.SANDBOX), ("Production", Environment.PRODUCTION)]:
    run, env, trusted = session(environment)
    verifier = SignedDataVerifier([trusted], False, library_environment, BUNDLE,
                                  APP_APPLE_ID if library_environment == Environment.PRODUCTION else None)
    for name in ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
                 "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED", "EXPIRED/VOLUNTARY", "SUBSCRIBED/RESUBSCRIBE",
                 "DID_FAIL_TO_RENEW", "EXPIRED/BILLING_RETRY", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED",
                 "DID_RENEW/BILLING_RECOVERY", "DID_CHANGE_RENEWAL_PREF/UPGRADE", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE",
                 "REFUND", "ONE_TIME_CHARGE", "TEST", "CONSUMPTION_REQUEST", "REFUND_DECLINED", "REFUND_REVERSED",
                 "PRICE_INCREASE/PENDING", "PRICE_INCREASE/ACCEPTED", "EXPIRED/PRICE_INCREASE",
                 "OFFER_REDEEMED/DOWNGRADE", "OFFER_REDEEMED", "REVOKE", "RENEWAL_EXTENDED",
                 "RENEWAL_EXTENSION/SUMMARY", "RENEWAL_EXTENSION/FAILURE"]:
        raised = json.loads(run("trigger", name, "--json"))["notifications"]
        kinds = {n["notificationType"] + ("/" + n["subtype"] if n["subtype"] else "") for n in raised}
        check(f"{environment}: trigger {name} raises it", name in kinds, str(kinds))
    recorded = json.loads(run("notifications", "--json"))["notifications"]
    run("listen", "--forward-to", hook.url, "--drain", "--header", "X-Test: yes")
    bodies = hook.take()
    check(f"{environment}: every notification POSTed once", len(bodies) == len(recorded), f"{len(bodies)} vs {len(recorded)}")
    check(f"{environment}: --header is sent", all(h == "yes" for _, h, _ in bodies))
    decoded = decode_all(bodies, verifier)
    seen = {(d.rawNotificationType, d.rawSubtype) for d in decoded}
    for pair in sorted(expected, key=str):
        check(f"{environment}: {pair[0]}/{pair[1]} decoded by Apple's verifier", pair in seen)
    check(f"{environment}: UUIDs as recorded, in order",
          [d.notificationUUID for d in decoded] == [n["notificationUUID"] for n in recorded])
    check(f"{environment}: signedDate is the event's simulated time",
          all(d.signedDate == int(round(time.mktime(time.strptime(n["date"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone) * 1000)
              for d, n in zip(decoded, recorded)))
    app_apple_id = APP_APPLE_ID if environment == "Production" else None
    for d in decoded:
        if d.rawSubtype == "SUMMARY":
            # Apple, "summary": a mass extension's summary, and no data.
            summary = d.summary
            check(f"{environment}: RENEWAL_EXTENSION/SUMMARY carries a summary and no data",
                  d.data is None and summary is not None and summary.requestIdentifier
                  and summary.productId and summary.bundleId == BUNDLE and summary.rawEnvironment == environment
                  and summary.appAppleId == app_apple_id and summary.succeededCount is not None
                  and summary.failedCount is not None, repr(d))
            continue
        check(f"{environment}: {d.rawNotificationType} has appAppleId only in Production",
              d.data.appAppleId == app_apple_id, repr(d.data))
        if d.rawNotificationType == "TEST":
            check(f"{environment}: TEST has no transaction", d.data.signedTransactionInfo is None)
        else:
            transaction = verifier.verify_and_decode_signed_transaction(d.data.signedTransactionInfo)
            check(f"{environment}: {d.rawNotificationType} carries its signed transaction",
                  transaction.bundleId == BUNDLE and d.data.rawEnvironment == environment)
            if d.data.signedRenewalInfo:
                verifier.verify_and_decode_renewal_info(d.data.signedRenewalInfo)
            if d.rawSubtype == "BILLING_RECOVERY":
                check(f"{environment}: BILLING_RECOVERY is dated when billing recovered, after the renewal date",
                      d.signedDate > transaction.purchaseDate, f"{d.signedDate} vs {transaction.purchaseDate}")
    # Nothing is delivered twice: a second drain has nothing to do.
    run("listen", "--forward-to", hook.url, "--drain")
    check(f"{environment}: a second drain delivers nothing", hook.take() == [])

    # A webhook that answers 500 then 200.
    run("notify-test")
    hook.answers = [500]
    run("listen", "--forward-to", hook.url, "--drain", ok=(7,))  # 7: a delivery failed
    first = hook.take()
    run("clock", "advance", "PT2H")
    run("listen", "--forward-to", hook.url, "--drain")
    second = hook.take()
    test = json.loads(run("notifications", "--type", "TEST", "--json"))["notifications"][-1]
    results = [a["sendAttemptResult"] for a in test["sendAttempts"]]
    if environment == "Production":
        check("Production: 500 then 200 is two attempts", results == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE", "SUCCESS"]
              and len(first) == 1 and len(second) == 1, str(results))
    else:
        check("Sandbox: 500 is one attempt, no retry", results == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE"]
              and len(first) == 1 and second == [], str(results))
        failures = json.loads(run("notifications", "--only-failures", "--json"))["notifications"]
        check("Sandbox: --only-failures lists it", [n["notificationUUID"] for n in failures] == [test["notificationUUID"]])

# Offers and the account: refund requests and their decisions, price increases, each decoded by
# Apple's verifier with Apple's field values (notificationType, subtype, consumptionRequestReason,
# renewal info priceIncreaseStatus and expirationIntent).
for environment, library_environment in [("Sandbox", Environment.SANDBOX), ("Production", Environment.PRODUCTION)]:
    run, env, trusted = session(environment)
    verifier = SignedDataVerifier([trusted], False, library_environment, BUNDLE,
                                  APP_APPLE_ID if library_environment == Environment.PRODUCTION else None)
    run("buy", "com.example.app.coins100", "--yes")                                  # 1
    run("request-refund", "1", "--reason", "UNINTENDED_PURCHASE")
    run("refund", "1", "--decline")
    run("request-refund", "1")
    run("refund", "1")
    run("refund", "1", "--reverse")
    run("buy", "com.example.app.pro.monthly", "--yes")                               # 2
    run("price-increase", "com.example.app.pro.monthly", "3.99")
    run("price-increase", "consent", "com.example.app.pro.monthly")
    run("clock", "advance", "P8D")                                                   # renews at 3.99
    run("price-increase", "com.example.app.pro.monthly", "4.99", "--notify-only")
    run("price-increase", "com.example.app.pro.monthly", "5.99")
    run("clock", "advance", "P1M")                                                   # no consent: expires
    run("listen", "--forward-to", hook.url, "--drain")
    decoded = decode_all(hook.take(), verifier)
    names = [d.rawNotificationType + ("/" + d.rawSubtype if d.rawSubtype else "") for d in decoded]
    for name in ["CONSUMPTION_REQUEST", "REFUND_DECLINED", "REFUND", "REFUND_REVERSED", "PRICE_INCREASE/PENDING",
                 "PRICE_INCREASE/ACCEPTED", "EXPIRED/PRICE_INCREASE"]:
        check(f"{environment}: {name} decoded by Apple's verifier", name in names, str(names))
    consumption = next(d for d in decoded if d.rawNotificationType == "CONSUMPTION_REQUEST")
    check(f"{environment}: consumptionRequestReason is Apple's value",
          consumption.data.rawConsumptionRequestReason == "UNINTENDED_PURCHASE", str(consumption.data))
    reversed_ = next(d for d in decoded if d.rawNotificationType == "REFUND_REVERSED")
    transaction = verifier.verify_and_decode_signed_transaction(reversed_.data.signedTransactionInfo)
    check(f"{environment}: REFUND_REVERSED carries the transaction without its revocation",
          transaction.revocationDate is None, str(transaction))
    statuses = [verifier.verify_and_decode_renewal_info(d.data.signedRenewalInfo).rawPriceIncreaseStatus
                for d in decoded if d.rawNotificationType == "PRICE_INCREASE"]
    check(f"{environment}: priceIncreaseStatus 0 pending, then 1 agreed, 1 notified, 0 pending",
          statuses == [0, 1, 1, 0], str(statuses))
    renewed = [verifier.verify_and_decode_signed_transaction(d.data.signedTransactionInfo)
               for d in decoded if d.rawNotificationType == "DID_RENEW"]
    check(f"{environment}: the renewal after consent charges the new price",
          [t.price for t in renewed][:1] == [3990], str([t.price for t in renewed]))
    expired = next(d for d in decoded if d.rawNotificationType == "EXPIRED")
    info = verifier.verify_and_decode_renewal_info(expired.data.signedRenewalInfo)
    check(f"{environment}: EXPIRED/PRICE_INCREASE has expirationIntent 3", info.rawExpirationIntent == 3, str(info))

# The renewal info of each notification's moment, and auto-renew the App Store turns off: a
# refund of an earlier period leaves the subscription renewing; a refund request on it, and a
# declined price increase, turn auto-renew off (DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED);
# a family member's access is ONE_TIME_CHARGE / SUBSCRIBED.
for environment, library_environment in [("Sandbox", Environment.SANDBOX), ("Production", Environment.PRODUCTION)]:
    run, env, trusted = session(environment)
    verifier = SignedDataVerifier([trusted], False, library_environment, BUNDLE,
                                  APP_APPLE_ID if library_environment == Environment.PRODUCTION else None)
    run("buy", "com.example.app.pro.monthly", "--yes")                               # 1, the free week
    run("clock", "advance", "P40D")                                                  # renewals 2, 3
    run("refund", "2")
    run("request-refund", "3")
    run("buy", "com.example.app.pro.yearly", "--yes")                                # 4, an upgrade
    run("price-increase", "com.example.app.pro.yearly", "29.99")
    run("price-increase", "decline", "com.example.app.pro.yearly")
    run("buy", "com.example.app.book", "--as-family-member")                         # 5
    run("listen", "--forward-to", hook.url, "--drain")
    decoded = decode_all(hook.take(), verifier)
    names = [d.rawNotificationType + ("/" + d.rawSubtype if d.rawSubtype else "") for d in decoded]
    refund = next(d for d in decoded if d.rawNotificationType == "REFUND")
    info = verifier.verify_and_decode_renewal_info(refund.data.signedRenewalInfo)
    check(f"{environment}: the REFUND of an earlier period says the subscription still renews",
          info.rawAutoRenewStatus == 1 and refund.data.rawStatus == 1, repr(info))
    disabled = [d for d in decoded if d.rawSubtype == "AUTO_RENEW_DISABLED"]
    check(f"{environment}: a refund request and a declined price increase turn auto-renew off",
          len(disabled) == 2 and all(verifier.verify_and_decode_renewal_info(d.data.signedRenewalInfo)
                                     .rawAutoRenewStatus == 0 for d in disabled), str(names))
    check(f"{environment}: a family member's non-consumable is ONE_TIME_CHARGE", names[-1] == "ONE_TIME_CHARGE",
          str(names))

# The Billing Grace Period ("Testing failing subscription renewals and In-App Purchases",
# "isInBillingRetry"): the failed renewal's renewal info says billingError (expirationIntent 2)
# with the grace date; cancelling, or declining a price increase, in the grace period ends the
# subscription at once; a refund request asks for consumption information for a
# non-consumable too ("ConsumptionRequest": any product type), OTHER when no reason is given.
for environment, library_environment in [("Sandbox", Environment.SANDBOX), ("Production", Environment.PRODUCTION)]:
    run, env, trusted = session(environment)
    verifier = SignedDataVerifier([trusted], False, library_environment, BUNDLE,
                                  APP_APPLE_ID if library_environment == Environment.PRODUCTION else None)
    run("settings", "set", "billing-retry", "true")
    run("settings", "set", "grace-period", "true")
    run("buy", "com.example.app.pro.monthly", "--yes")                               # 1, the free week
    run("clock", "advance", "P8D")                                                   # the renewal fails
    run("cancel-subscription", "com.example.app.pro.monthly")                        # ends it now
    run("buy", "com.example.app.book", "--yes")                                      # 2
    run("request-refund", "2")
    run("buy", "com.example.app.pro.yearly", "--yes")                                # 3, resubscribes
    run("clock", "advance", "P1Y1D")                                                 # its renewal fails
    run("price-increase", "com.example.app.pro.yearly", "29.99")
    run("price-increase", "decline", "com.example.app.pro.yearly")                   # ends it now
    run("listen", "--forward-to", hook.url, "--drain")
    decoded = decode_all(hook.take(), verifier)
    names = [d.rawNotificationType + ("/" + d.rawSubtype if d.rawSubtype else "") for d in decoded]
    failed_ = [d for d in decoded if d.rawNotificationType == "DID_FAIL_TO_RENEW"]
    infos = [verifier.verify_and_decode_renewal_info(d.data.signedRenewalInfo) for d in failed_]
    check(f"{environment}: in the grace period the renewal info says billingError (expirationIntent 2)",
          len(infos) == 2 and all(i.rawExpirationIntent == 2 and i.isInBillingRetryPeriod
                                  and i.gracePeriodExpiresDate is not None for i in infos)
          and all(d.data.rawStatus == 4 for d in failed_), repr(infos))
    expired = [d for d in decoded if d.rawNotificationType == "EXPIRED"]
    check(f"{environment}: cancelling and declining in the grace period expire at once",
          [d.rawSubtype for d in expired] == ["VOLUNTARY", "PRICE_INCREASE"]
          and all(d.data.rawStatus == 2 for d in expired) and "GRACE_PERIOD_EXPIRED" not in names, str(names))
    ended = [verifier.verify_and_decode_renewal_info(d.data.signedRenewalInfo) for d in expired]
    check(f"{environment}: the ended subscriptions leave billing retry",
          [i.rawExpirationIntent for i in ended] == [1, 3] and not any(i.isInBillingRetryPeriod for i in ended),
          repr(ended))
    consumption = [d for d in decoded if d.rawNotificationType == "CONSUMPTION_REQUEST"]
    transaction = verifier.verify_and_decode_signed_transaction(consumption[0].data.signedTransactionInfo) \
        if consumption else None
    check(f"{environment}: a non-consumable's refund request is a CONSUMPTION_REQUEST with reason OTHER",
          len(consumption) == 1 and consumption[0].data.rawConsumptionRequestReason == "OTHER"
          and transaction.rawType == "Non-Consumable", str(names))

# A listener killed with SIGKILL loses nothing and posts again at most the one in flight.
run, env, trusted = session("Sandbox")
listener = subprocess.Popen([iapsim, "listen", "--forward-to", hook.url], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
run("buy", "com.example.app.book")
deadline = time.time() + 20
while time.time() < deadline and not hook.bodies:
    time.sleep(0.05)
listener.send_signal(signal.SIGKILL)
listener.wait(timeout=10)
run("buy", "com.example.app.coins100")
run("listen", "--forward-to", hook.url, "--drain")
received = [json.loads(body)["signedPayload"] for _, _, body in hook.take()]
recorded = json.loads(run("notifications", "--json"))["notifications"]
check("SIGKILL: every notification delivered, at most the one in flight twice",
      len(recorded) == 2 and all(n["delivered"] for n in recorded) and 2 <= len(received) <= 3,
      f"{len(received)} received, {len(recorded)} recorded")

# SIGTERM stops a listener cleanly (exit 0).
listener = subprocess.Popen([iapsim, "listen", "--forward-to", hook.url], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
# Long enough for a debug build on a loaded two-core machine to install its handlers (0.5 s was
# not, once: the signal came before them and ended the process as SIGTERM's default does).
time.sleep(3)
listener.send_signal(signal.SIGTERM)
check("SIGTERM: listen exits 0", listener.wait(timeout=10) == 0)
hook.server.shutdown()
print(f"notifications: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
