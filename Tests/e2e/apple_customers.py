"""Two customers of one app through one `iapsim serve` and one webhook, judged by Apple's client.

Usage: apple_customers.py path/to/iapsim   (run by Tests/e2e/apple.sh in its virtual environment)

Alice and Bob each subscribe and buy; Alice is refunded. One `iapsim serve` answers Apple's
AppStoreServerAPIClient for both: every transaction id finds its customer, each history,
subscription status and refund history holds that customer's transactions only, Get Notification
History covers the app and its transactionId filter selects one customer. One `iapsim listen
--drain` delivers every customer's notifications to one webhook in event-time order. Ids
(transaction, original, web order line item, order, appTransactionId) never collide.
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

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from appstoreserverlibrary.api_client import AppStoreServerAPIClient, GetTransactionHistoryVersion
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.TransactionHistoryRequest import Order, TransactionHistoryRequest
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

iapsim = os.path.abspath(sys.argv[1])
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
work = tempfile.mkdtemp(prefix="iapsim-customers-")
atexit.register(shutil.rmtree, work, True)  # the state and certificates go with the run
env = dict(os.environ, IAPSIM_STATE_DIR=work + "/state", IAPSIM_CATALOG=root + "/catalog")
env.pop("IAPSIM_CERTS_DIR", None)
env.pop("IAPSIM_ACCOUNT", None)
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
    result = subprocess.run([iapsim, *args], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                            timeout=120)
    if result.returncode not in ok:
        raise SystemExit(f"FAIL: iapsim {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def ids_of(name):
    return [t["id"] for t in json.loads(run("--account", name, "transactions", "--json"))["transactions"]
            if t.get("state") != "pending"]


run("clock", "set", "2030-01-01T00:00:00Z")
run("clock", "freeze")
run("settings", "set", "app-apple-id", str(APP_APPLE_ID))
run("accounts", "add", "alice")
run("accounts", "add", "bob", "--storefront", "GBR")
run("--account", "alice", "buy", "com.example.app.pro.monthly")
run("--account", "bob", "buy", "com.example.app.pro.monthly")
run("--account", "alice", "buy", "com.example.app.book")
run("--account", "bob", "buy", "com.example.app.book")
run("clock", "advance", "P10D")                                   # both renew
alice_book = [t for t in json.loads(run("--account", "alice", "transactions", "--json"))["transactions"]
              if t["productID"] == "com.example.app.book"][0]["id"]
run("--account", "alice", "refund", str(alice_book))
alice, bob = ids_of("alice"), ids_of("bob")
check("each customer has 3 transactions", len(alice) == 3 and len(bob) == 3, f"{alice} {bob}")
check("no transaction id is both customers'", not set(alice) & set(bob), f"{alice} {bob}")

key = ec.generate_private_key(ec.SECP256R1())
pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
with open(work + "/key.p8", "wb") as f:
    f.write(pem)
run("certs", "export", work + "/trusted")
with open(work + "/trusted/root.der", "rb") as f:
    root_der = f.read()
sandbox = SignedDataVerifier([root_der], False, Environment.SANDBOX, BUNDLE, None)
# Look Up Order ID answers in Production only: the server signs as Production.
verifier = SignedDataVerifier([root_der], False, Environment.PRODUCTION, BUNDLE, APP_APPLE_ID)

port_file = work + "/port"
server = subprocess.Popen([iapsim, "serve", "--port", "0", "--port-file", port_file, "--key-file", work + "/key.p8",
                           "--key-id", "K1", "--issuer-id", "issuer-1", "--environment", "Production"],
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                          text=True)
try:
    deadline = time.time() + 30
    while time.time() < deadline and not (os.path.exists(port_file) and open(port_file).read().strip()):
        time.sleep(0.05)
    # Production data (--environment Production) at Apple's production host, through serve as
    # the HTTPS proxy: Apple's client unpatched.
    os.environ["HTTPS_PROXY"] = f"http://127.0.0.1:{int(open(port_file).read().strip())}"
    os.environ["REQUESTS_CA_BUNDLE"] = work + "/trusted/tls-root.pem"
    client = AppStoreServerAPIClient(pem, "K1", "issuer-1", BUNDLE, Environment.PRODUCTION)

    seen = {"transactionId": set(), "originalTransactionId": set(), "webOrderLineItemId": set(),
            "appTransactionId": {}}
    for name, ids in (("alice", alice), ("bob", bob)):
        for tid in ids:
            info = verifier.verify_and_decode_signed_transaction(
                client.get_transaction_info(str(tid)).signedTransactionInfo)
            check(f"{name}: transaction {tid} is found", info.transactionId == str(tid))
            seen["transactionId"].add(info.transactionId)
            if info.originalTransactionId == info.transactionId:
                seen["originalTransactionId"].add(info.originalTransactionId)
            if info.webOrderLineItemId:
                seen["webOrderLineItemId"].add(info.webOrderLineItemId)
            seen["appTransactionId"].setdefault(info.appTransactionId, set()).add(name)
        # History: the customer's transactions, and no one else's.
        history = client.get_transaction_history(str(ids[0]), None, TransactionHistoryRequest(sort=Order.ASCENDING),
                                                 GetTransactionHistoryVersion.V2)
        got = sorted(int(verifier.verify_and_decode_signed_transaction(s).transactionId)
                     for s in history.signedTransactions)
        check(f"{name}: history is theirs", got == sorted(ids), f"{got} != {sorted(ids)}")
        statuses = client.get_all_subscription_statuses(str(ids[0]))
        originals = {verifier.verify_and_decode_signed_transaction(t.signedTransactionInfo).originalTransactionId
                     for group in statuses.data for t in group.lastTransactions}
        check(f"{name}: statuses are theirs", originals and all(int(o) in ids for o in originals), f"{originals}")
        refunds = client.get_refund_history(str(ids[-1]), None)
        refunded = [int(verifier.verify_and_decode_signed_transaction(s).transactionId)
                    for s in refunds.signedTransactions]
        check(f"{name}: refund history", refunded == ([alice_book] if name == "alice" else []), f"{refunded}")
    check("appTransactionIds are one per customer", len(seen["appTransactionId"]) == 2
          and all(len(v) == 1 for v in seen["appTransactionId"].values()), f"{seen['appTransactionId']}")
    check("web order line item ids never collide", len(seen["webOrderLineItemId"]) == 4, f"{seen['webOrderLineItemId']}")
    orders = [json.loads(run("--account", n, "transactions", "--json"))["transactions"] for n in ("alice", "bob")]
    order_ids = [t.get("orderID") for ts in orders for t in ts if t.get("orderID")]
    check("order ids never collide", len(order_ids) == len(set(order_ids)) == 6, f"{order_ids}")
    for name, ts in zip(("alice", "bob"), orders):
        for t in ts:
            looked = client.look_up_order_id(t["orderID"])
            found = [int(verifier.verify_and_decode_signed_transaction(s).transactionId)
                     for s in looked.signedTransactions or []]
            check(f"{name}: order {t['orderID']} is theirs", looked.status == 0 and found == [t["id"]], f"{found}")

    # Notification history: the app's, and one customer's by transactionId.
    start, end = 1893456000000 - 86_400_000, 1893456000000 + 60 * 86_400_000
    def notification_history(transaction_id=None):
        request = NotificationHistoryRequest(startDate=start, endDate=end, transactionId=transaction_id)
        items, token = [], None
        for _ in range(10):
            page = client.get_notification_history(token, request)
            items += page.notificationHistory
            token = page.paginationToken
            if not page.hasMore:
                break
        return [verifier.verify_and_decode_notification(i.signedPayload) for i in items]
    everyone = notification_history()
    check("notification history covers the app (4 purchases, 2 renewals, 1 refund)", len(everyone) == 7,
          f"{len(everyone)}")
    for name, ids in (("alice", alice), ("bob", bob)):
        mine = notification_history(str(ids[0]))
        tids = {int(verifier.verify_and_decode_signed_transaction(n.data.signedTransactionInfo).transactionId)
                for n in mine}
        check(f"{name}: notification history by transactionId is theirs", tids and tids <= set(ids), f"{tids}")
finally:
    server.terminate()
    server.wait(timeout=10)

# One webhook receives every customer's notifications, in event-time order.
bodies, lock = [], threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with lock:
            bodies.append(json.loads(body)["signedPayload"])
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


hook = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=hook.serve_forever, daemon=True).start()
run("listen", "--forward-to", f"http://127.0.0.1:{hook.server_address[1]}/apple", "--drain")
hook.shutdown()
verifier = sandbox
decoded = [verifier.verify_and_decode_notification(b) for b in bodies]
check("the webhook got every customer's 7 notifications", len(decoded) == 7, f"{len(decoded)}")
dates = [n.signedDate for n in decoded]
check("in event-time order", dates == sorted(dates), f"{dates}")
owners = {}
for n in decoded:
    info = verifier.verify_and_decode_signed_transaction(n.data.signedTransactionInfo)
    owner = "alice" if int(info.transactionId) in alice else "bob" if int(info.transactionId) in bob else None
    check(f"notification about {info.transactionId} belongs to a customer", owner is not None)
    owners.setdefault(owner, set()).add(info.appTransactionId)
check("each notification carries its own customer's appTransactionId",
      len(owners) == 2 and all(len(v) == 1 for v in owners.values())
      and not (owners.get("alice", set()) & owners.get("bob", set())), f"{owners}")
check("the refund notification is Alice's",
      any(n.notificationType == "REFUND" and int(verifier.verify_and_decode_signed_transaction(
          n.data.signedTransactionInfo).transactionId) == alice_book for n in decoded))
print(f"customers through serve and listen: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
