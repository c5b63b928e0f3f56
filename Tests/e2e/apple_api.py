"""The App Store Server API on localhost, judged by Apple's own Python client.

Usage: apple_api.py path/to/iapsim   (run by Tests/e2e/apple.sh in its virtual environment)

After a script of purchases, renewals, a refund and an upgrade, `iapsim serve --port 0` answers
Apple's AppStoreServerAPIClient (Environment.SANDBOX, unpatched: HTTPS_PROXY names serve, which answers Apple's host over TLS; was: its base URL pointed at the
server) on every endpoint; each answer is checked against `iapsim transactions --json` and
`status --json`, and every signed item decoded with SignedDataVerifier (Sandbox, iapsim's
root; Production for Look Up Order ID, which Apple does not serve in the sandbox). Errors must
surface in the client as the right APIError. The server must verify tokens signed with the
developer's key (`--key-file`), and refuse others with 401.
"""
import atexit
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient, GetTransactionHistoryVersion
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.Status import Status
from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
from appstoreserverlibrary.models.MassExtendRenewalDateRequest import MassExtendRenewalDateRequest
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.TransactionHistoryRequest import Order, ProductType, TransactionHistoryRequest
from appstoreserverlibrary.models.UpdateAppAccountTokenRequest import UpdateAppAccountTokenRequest
from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
from appstoreserverlibrary.models.RefundPreference import RefundPreference
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

iapsim = os.path.abspath(sys.argv[1])
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
work = tempfile.mkdtemp(prefix="iapsim-api-")
atexit.register(shutil.rmtree, work, True)  # the state and certificates go with the run
env = dict(os.environ, IAPSIM_STATE_DIR=work + "/state", IAPSIM_CATALOG=root + "/catalog")
env.pop("IAPSIM_CERTS_DIR", None)
BUNDLE, APP_APPLE_ID = "com.example.app", 1234567890
passed = failed = 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name} {detail}")


def run(*args, ok=(0,)):
    result = subprocess.run([iapsim, *args], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    if result.returncode not in ok:
        raise SystemExit(f"FAIL: iapsim {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def api_error(call):
    try:
        call()
    except APIException as error:
        return error.http_status_code, error.raw_api_error
    return None


# The developer's key, as App Store Connect hands out a .p8 (PKCS#8 PEM).
key = ec.generate_private_key(ec.SECP256R1())
pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
with open(work + "/AuthKey_TESTKEY123.p8", "wb") as f:
    f.write(pem)

run("clock", "freeze")
run("clock", "set", "2030-01-01T00:00:00Z")
run("settings", "set", "app-apple-id", str(APP_APPLE_ID))
run("buy", "com.example.app.book")                       # 1
run("buy", "com.example.app.coins100", "--quantity", "2")  # 2
run("buy", "com.example.app.pro.monthly")                # 3, a free week
run("clock", "advance", "P10D")                          # 4, a renewal
run("buy", "com.example.app.pro.yearly")                 # 5, an upgrade
run("refund", "1")
for i in range(25):                                      # enough for two pages of history
    run("buy", "com.example.app.gems500")
run("certs", "export", work + "/trusted")
with open(work + "/trusted/root.der", "rb") as f:
    root_der = f.read()
verifier = SignedDataVerifier([root_der], False, Environment.SANDBOX, BUNDLE, None)
production = SignedDataVerifier([root_der], False, Environment.PRODUCTION, BUNDLE, APP_APPLE_ID)
transactions = {t["id"]: t for t in json.loads(run("transactions", "--json"))["transactions"]}

port_file = work + "/port"
server = subprocess.Popen([iapsim, "serve", "--port", "0", "--port-file", port_file, "--key-file",
                           work + "/AuthKey_TESTKEY123.p8", "--key-id", "TESTKEY123", "--issuer-id", "issuer-1"],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
deadline = time.time() + 30
while time.time() < deadline and not (os.path.exists(port_file) and open(port_file).read().strip()):
    time.sleep(0.05)
port = int(open(port_file).read().strip())
first_line = server.stdout.readline().strip()
check("serve prints where it listens", first_line == f"Listening on http://127.0.0.1:{port}", first_line)

# Apple's client as production code makes it, unpatched: its own Sandbox URL, reached through
# serve as the HTTPS proxy, trusting the TLS root that `certs export` wrote.
os.environ["HTTPS_PROXY"] = f"http://127.0.0.1:{port}"
os.environ["REQUESTS_CA_BUNDLE"] = work + "/trusted/tls-root.pem"
client = AppStoreServerAPIClient(pem, "TESTKEY123", "issuer-1", BUNDLE, Environment.SANDBOX)
production_client = AppStoreServerAPIClient(pem, "TESTKEY123", "issuer-1", BUNDLE, Environment.PRODUCTION)
check("Production's host has none of this Sandbox state's transactions (as Apple's)",
      api_error(lambda: production_client.get_transaction_info("1")) == (404, 4040010))

# Get Transaction Info
for tid, t in list(transactions.items())[:6]:
    info = verifier.verify_and_decode_signed_transaction(client.get_transaction_info(str(tid)).signedTransactionInfo)
    check(f"transaction {tid}", info.transactionId == str(tid) and info.productId == t["productID"]
          and (info.revocationDate is not None) == (t["revocationDate"] is not None))
check("unknown transaction is TransactionIdNotFound", api_error(lambda: client.get_transaction_info("999")) == (404, 4040010))
check("bad transaction id is InvalidTransactionId", api_error(lambda: client.get_transaction_info("abc")) == (400, 4000006))

# Get Transaction History v2: two pages, then filters and sort
request = TransactionHistoryRequest(sort=Order.ASCENDING)
first = client.get_transaction_history("1", None, request, GetTransactionHistoryVersion.V2)
second = client.get_transaction_history("1", first.revision, request, GetTransactionHistoryVersion.V2)
ids = [verifier.verify_and_decode_signed_transaction(s).transactionId for s in first.signedTransactions + second.signedTransactions]
check("history: 20 a page, hasMore, then the rest",
      len(first.signedTransactions) == 20 and first.hasMore and not second.hasMore and len(ids) == len(transactions),
      f"{len(first.signedTransactions)} {first.hasMore} {second.hasMore} {len(ids)}")
# Apple sorts by each record's last modification: 4 was marked upgraded when 5 was bought, and 1
# refunded after that, so 1 comes after 5; the rest in the order they were made.
check("history: every transaction once, by last modification",
      ids == ["2", "3", "4", "5", "1"] + [str(i) for i in range(6, len(transactions) + 1)], str(ids[:8]))
synced = second.revision
check("history: bundleId, environment", first.bundleId == BUNDLE and first.rawEnvironment == "Sandbox")
subs = client.get_transaction_history("1", None, TransactionHistoryRequest(
    productTypes=[ProductType.AUTO_RENEWABLE], sort=Order.DESCENDING), GetTransactionHistoryVersion.V2)
decoded = [verifier.verify_and_decode_signed_transaction(s) for s in subs.signedTransactions]
expected = sorted((t for t in transactions.values() if t["productType"] == "autoRenewable"),
                  key=lambda t: (t["purchaseDate"], t["id"]), reverse=True)
check("history: productType filter and DESCENDING", [d.transactionId for d in decoded] == [str(t["id"]) for t in expected])
revoked = client.get_transaction_history("1", None, TransactionHistoryRequest(revoked=True), GetTransactionHistoryVersion.V2)
check("history: revoked filter", [verifier.verify_and_decode_signed_transaction(s).transactionId
                                  for s in revoked.signedTransactions] == ["1"])
v1 = client.get_transaction_history("1", None, TransactionHistoryRequest(), GetTransactionHistoryVersion.V1)
v1_types = {verifier.verify_and_decode_signed_transaction(s).rawType for s in v1.signedTransactions}
check("history v1: no finished consumables", "Consumable" not in v1_types and len(v1.signedTransactions) == 4
      and not v1.hasMore, f"{v1_types} {len(v1.signedTransactions)}")
check("history: a bad revision is InvalidRequestRevision",
      api_error(lambda: client.get_transaction_history("1", "nonsense", request, GetTransactionHistoryVersion.V2)) == (400, 4000005))

# Get All Subscription Statuses
status = json.loads(run("status", "--json"))
statuses = client.get_all_subscription_statuses("3")
group = statuses.data[0]
last = group.lastTransactions[0]
renewal = verifier.verify_and_decode_renewal_info(last.signedRenewalInfo)
expected_sub = status["subscriptions"][0]
check("statuses: the group, its chain and state",
      group.subscriptionGroupIdentifier == expected_sub["subscriptionGroupID"]
      and last.originalTransactionId == str(expected_sub["originalID"]) and last.rawStatus == 1
      and renewal.autoRenewProductId == expected_sub["autoRenewProductID"], repr(group))
expired = client.get_all_subscription_statuses("3", [Status.EXPIRED])
active = client.get_all_subscription_statuses("3", [Status.ACTIVE])
check("statuses: a status filter", expired.data == [] and len(active.data) == 1, f"{expired.data!r} {len(active.data)}")
check("statuses: a bad status is InvalidStatus",
      api_error(lambda: client._make_request("/inApps/v1/subscriptions/3", "GET", {"status": ["9"]}, None, None)) == (400, 4000031))

# Get Refund History
refunds = client.get_refund_history("1", None)
check("refund history", [verifier.verify_and_decode_signed_transaction(s).transactionId for s in refunds.signedTransactions] == ["1"]
      and refunds.hasMore is False)

# Refunded after a full sync: the next incremental call (the stored revision) has it, and only it.
run("refund", "10")
incremental = client.get_transaction_history("1", synced, request, GetTransactionHistoryVersion.V2)
changed = [verifier.verify_and_decode_signed_transaction(s) for s in incremental.signedTransactions]
check("history: a refund after a full sync comes back on the next incremental call",
      [(c.transactionId, c.revocationDate is not None) for c in changed] == [("10", True)], repr(changed))

# Look Up Order ID: Apple does not serve it in the sandbox, so no order is valid there.
order = transactions[2]["orderID"]
sandbox = client.look_up_order_id(order)
check("order lookup: none in the sandbox", sandbox.rawStatus == 1 and sandbox.signedTransactions is None, repr(sandbox))
run("settings", "set", "environment", "Production")
# Production data now: Apple's production host answers it, as Apple's would.
lookup = production_client.look_up_order_id(order)
check("order lookup: valid", lookup.rawStatus == 0
      and [production.verify_and_decode_signed_transaction(s).transactionId
           for s in lookup.signedTransactions] == ["2"])
renewal_order = production_client.look_up_order_id(transactions[4]["orderID"])
check("order lookup: a renewal is an order of its own",
      [production.verify_and_decode_signed_transaction(s).transactionId
       for s in renewal_order.signedTransactions] == ["4"])
unknown = production_client.look_up_order_id("MNOSUCHORD")
check("order lookup: unknown is status 1 without signedTransactions",
      unknown.rawStatus == 1 and unknown.signedTransactions is None, repr(unknown))
run("settings", "set", "environment", "Sandbox")

# Send Consumption Information
client.send_consumption_information("2", ConsumptionRequest(customerConsented=True, sampleContentProvided=False,
                                                            deliveryStatus=DeliveryStatus.DELIVERED,
                                                            consumptionPercentage=50000,
                                                            refundPreference=RefundPreference.GRANT_PRORATED))
check("consumption information accepted", True)
check("consumption: customerConsented false is InvalidCustomerConsented",
      api_error(lambda: client.send_consumption_information("2", ConsumptionRequest(
          customerConsented=False, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED)))
      == (400, 4000035))
check("consumption: no percentage for a subscription",
      api_error(lambda: client.send_consumption_information("3", ConsumptionRequest(
          customerConsented=True, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED,
          consumptionPercentage=10000))) == (400, 4000209))
check("consumption: an unknown deliveryStatus is InvalidDeliveryStatus",
      api_error(lambda: client._make_request("/inApps/v2/transactions/consumption/2", "PUT", {}, ConsumptionRequest(
          customerConsented=True, sampleContentProvided=False, rawDeliveryStatus="LOST_IN_THE_POST"), None))
      == (400, 4000036))
check("consumption: an unknown refundPreference is InvalidRefundPreference",
      api_error(lambda: client._make_request("/inApps/v2/transactions/consumption/2", "PUT", {}, ConsumptionRequest(
          customerConsented=True, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED,
          rawRefundPreference="GRANT_HALF"), None)) == (400, 4000044))

# Extend a Subscription Renewal Date
before = verifier.verify_and_decode_signed_transaction(client.get_transaction_info("5").signedTransactionInfo).expiresDate
first_id = str(uuid.uuid4())
extended = client.extend_subscription_renewal_date("3", ExtendRenewalDateRequest(extendByDays=7, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION,
                                                                                requestIdentifier=first_id))
check("extend: success, 7 days later", extended.success and extended.effectiveDate == before + 7 * 86400000,
      f"{extended.effectiveDate} vs {before}")
again = client.extend_subscription_renewal_date("3", ExtendRenewalDateRequest(
    extendByDays=7, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier=first_id))
check("extend: the same requestIdentifier again extends nothing more", again.effectiveDate == extended.effectiveDate)
check("extend: too many days is InvalidExtendByDays",
      api_error(lambda: client.extend_subscription_renewal_date("3", ExtendRenewalDateRequest(
          extendByDays=91, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier="x"))) == (400, 4000009))
check("extend: unknown chain is OriginalTransactionIdNotFound",
      api_error(lambda: client.extend_subscription_renewal_date("999", ExtendRenewalDateRequest(
          extendByDays=1, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier="x"))) == (404, 4040005))
canada_id = str(uuid.uuid4())
client.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(
    extendByDays=1, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier=canada_id,
    productId="com.example.app.pro.yearly", storefrontCountryCodes=["CAN"]))
canada = client.get_status_of_subscription_renewal_date_extensions(canada_id, "com.example.app.pro.yearly")
check("mass extension: only the storefronts named", canada.succeededCount == 0 and canada.failedCount == 0,
      repr(canada))
mass_id = str(uuid.uuid4())
client.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(
    extendByDays=1, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier=mass_id, productId="com.example.app.pro.yearly"))
mass = client.get_status_of_subscription_renewal_date_extensions(mass_id, "com.example.app.pro.yearly")
check("mass extension and its status", mass.complete and mass.succeededCount == 1 and mass.failedCount == 0, repr(mass))
check("extend: a third extension within 365 days is SubscriptionMaxExtension",
      api_error(lambda: client.extend_subscription_renewal_date("3", ExtendRenewalDateRequest(
          extendByDays=1, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION,
          requestIdentifier=str(uuid.uuid4())))) == (403, 4030005))
check("mass extension: an unknown storefront is InvalidStorefrontCountryCode",
      api_error(lambda: client.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(
          extendByDays=1, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier=str(uuid.uuid4()),
          productId="com.example.app.pro.yearly", storefrontCountryCodes=["XXX"]))) == (400, 4000028))

# Get App Transaction Info
app = client.get_app_transaction_info("1")
app_transaction = verifier.verify_and_decode_app_transaction(app.signedAppTransactionInfo)
check("app transaction", app_transaction.bundleId == BUNDLE)

# The endpoints that take any transaction id take the customer's appTransactionId too.
app_id = app_transaction.appTransactionId
by_app = client.get_transaction_history(app_id, None, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2)
check("appTransactionId: history", len(by_app.signedTransactions) == 20 and by_app.hasMore)
check("appTransactionId: statuses", len(client.get_all_subscription_statuses(app_id).data) == 1)
check("appTransactionId: refund history", len(client.get_refund_history(app_id, None).signedTransactions) == 2)
check("appTransactionId: app transaction", verifier.verify_and_decode_app_transaction(
    client.get_app_transaction_info(app_id).signedAppTransactionInfo).appTransactionId == app_id)
check("appTransactionId: Get Transaction Info does not take one",
      api_error(lambda: client.get_transaction_info(app_id)) == (400, 4000048))

# Set App Account Token
token = str(uuid.uuid4())
client.set_app_account_token("2", UpdateAppAccountTokenRequest(appAccountToken=token))
info = verifier.verify_and_decode_signed_transaction(client.get_transaction_info("2").signedTransactionInfo)
check("app account token set", str(info.appAccountToken) == token, repr(info.appAccountToken))
check("app account token: a renewal's id is not an original one",
      api_error(lambda: client.set_app_account_token("4", UpdateAppAccountTokenRequest(appAccountToken=token)))
      == (400, 4000187))
subscription_token = str(uuid.uuid4())
client.set_app_account_token("3", UpdateAppAccountTokenRequest(appAccountToken=subscription_token))
renewal_info = verifier.verify_and_decode_renewal_info(client.get_all_subscription_statuses("3").data[0]
                                                       .lastTransactions[0].signedRenewalInfo)
check("renewal info carries the appAccountToken", str(renewal_info.appAccountToken) == subscription_token
      and renewal_info.renewalDate is not None and renewal_info.rawRenewalBillingPlanType == "BILLED_UPFRONT",
      repr(renewal_info))

# Test notifications and the notification history
test = client.request_test_notification()
test_status = client.get_test_notification_status(test.testNotificationToken)
check("test notification", verifier.verify_and_decode_notification(test_status.signedPayload).rawNotificationType == "TEST")
check("test notification: unknown token",
      api_error(lambda: client.get_test_notification_status(str(uuid.uuid4()))) == (404, 4040008))
start, end = 1893456000000, 1893456000000 + 400 * 86400000
history = client.get_notification_history(None, NotificationHistoryRequest(startDate=start, endDate=end))
kinds = [verifier.verify_and_decode_notification(item.signedPayload).rawNotificationType for item in history.notificationHistory]
check("notification history: first page of 20", len(kinds) == 20 and history.hasMore and "SUBSCRIBED" in kinds, str(kinds))
renewals = client.get_notification_history(None, NotificationHistoryRequest(startDate=start, endDate=end,
                                                                           notificationType="DID_RENEW"))
check("notification history: a type filter",
      [verifier.verify_and_decode_notification(i.signedPayload).rawNotificationType for i in renewals.notificationHistory] == ["DID_RENEW"])
customer = client.get_notification_history(None, NotificationHistoryRequest(startDate=start, endDate=end,
                                                                           transactionId="2"))
customer_kinds = {verifier.verify_and_decode_notification(i.signedPayload).rawNotificationType
                  for i in customer.notificationHistory}
check("notification history: a transactionId selects the whole customer",
      {"ONE_TIME_CHARGE", "SUBSCRIBED", "REFUND"} <= customer_kinds and "TEST" not in customer_kinds,
      str(customer_kinds))
check("notification history: a startDate older than 180 days is StartDateTooFarInPast",
      api_error(lambda: client.get_notification_history(None, NotificationHistoryRequest(
          startDate=start - 200 * 86400000, endDate=end))) == (400, 4000012))

# Finish Transaction, as the app's Transaction.finish() does.
run("settings", "set", "finish-transactions", "manual")
run("buy", "com.example.app.gems500")
# The renewal made by `clock advance` waits for the app too (it happened outside the app).
unfinished = json.loads(run("transactions", "--unfinished", "--json"))["transactions"]
for transaction in unfinished:
    client.finish_transaction(str(transaction["id"]))
check("finish transaction", [t["productID"] for t in unfinished] == ["com.example.app.pro.monthly", "com.example.app.gems500"]
      and json.loads(run("transactions", "--unfinished", "--json"))["transactions"] == [], repr(unfinished))
client.finish_transaction(str(unfinished[-1]["id"]))  # again: already finished, no error
check("finish transaction: unknown is TransactionIdNotFound",
      api_error(lambda: client.finish_transaction("999")) == (404, 4040010))
run("settings", "set", "finish-transactions", "auto")

# Authentication: a token signed with another key is refused.
other = ec.generate_private_key(ec.SECP256R1()).private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                              serialization.NoEncryption())
stranger = AppStoreServerAPIClient(other, "TESTKEY123", "issuer-1", BUNDLE, Environment.SANDBOX)
check("a token from another key is 401", api_error(lambda: stranger.get_transaction_info("1")) == (401, None))
wrong_app = AppStoreServerAPIClient(pem, "TESTKEY123", "issuer-1", "com.other.app", Environment.SANDBOX)
check("a token for another bundle is 401", api_error(lambda: wrong_app.get_transaction_info("1")) == (401, None))

# A purchase made by the CLI while the server runs is visible to the next request.
run("buy", "com.example.app.seasonpass")
newest = max(int(k) for k in json.loads(run("transactions", "--json"))["transactions"] and
             [t["id"] for t in json.loads(run("transactions", "--json"))["transactions"]])
check("the server sees the CLI's purchase", verifier.verify_and_decode_signed_transaction(
    client.get_transaction_info(str(newest)).signedTransactionInfo).productId == "com.example.app.seasonpass")

server.terminate()
check("serve exits 0 on SIGTERM", server.wait(timeout=10) == 0)

# The handler in docs/NOTIFICATIONS.md, as written there, on every notification this state
# raised, TEST and RENEWAL_EXTENSION/SUMMARY (which carry no transaction) among them.
run("notify-test")
handler = open(root + "/docs/NOTIFICATIONS.md").read().split("```python\n", 1)[1].split("```", 1)[0]
handled, updated, crashes = set(), [], []
scope = {"SignedDataVerifier": SignedDataVerifier, "Environment": Environment,
         "open": lambda path, mode: open(os.path.join(work, path), mode),
         "already_handled": handled.__contains__, "remember_handled": handled.add,
         "update_entitlement": lambda kind, subtype, transaction: updated.append((kind, transaction.productId))}
exec(handler, scope)


class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        try:
            status = scope["handle"](json.loads(body)["signedPayload"])
        except Exception as error:  # the snippet crashed: the check below says on what
            crashes.append(repr(error))
            status = 500
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


hook = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
threading.Thread(target=hook.serve_forever, daemon=True).start()
run("listen", "--forward-to", f"http://127.0.0.1:{hook.server_address[1]}/apple", "--drain")
hook.shutdown()
raised = json.loads(run("notifications", "--json"))["notifications"]
kinds = {n["notificationType"] + ("/" + n["subtype"] if n["subtype"] else "") for n in raised}
check("the docs' handler: TEST and RENEWAL_EXTENSION/SUMMARY raised", {"TEST", "RENEWAL_EXTENSION/SUMMARY"} <= kinds,
      str(kinds))
check("the docs' handler handles every notification", not crashes and handled == {n["notificationUUID"] for n in raised},
      str(crashes[:2]))
with_transactions = [n for n in raised if n["notificationType"] not in ("TEST", "RENEWAL_EXTENSION")]
check("the docs' handler updates entitlements from the transactions", len(updated) == len(with_transactions),
      f"{len(updated)} of {len(with_transactions)}")
print(f"api: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
