"""The app receipt and POST /verifyReceipt, judged by other people's code.

Usage: receipts.py path/to/iapsim   (run by Tests/e2e/receipts.sh in its virtual environment)

After a script of purchases (a subscription with a free trial and a renewal, a refunded
non-consumable, a finished and an unfinished consumable, a non-renewing subscription):
- a certificate set made by JWS signing (no RSA chain yet) gains the RSA receipt chain when a
  receipt is first signed, its P-256 files unchanged and the new keys mode 0600;
- the receipt is signed with sha256WithRSAEncryption by a leaf marked 1.2.840.113635.100.6.11.1
  under an intermediate marked 1.2.840.113635.100.6.2.1, as Apple's are; `openssl rsa -check`
  accepts the keys;
- `openssl cms -verify -CAfile receipt-root.pem` accepts `iapsim receipt` and extracts the payload
  (and the P-256 JWS root does not vouch for it),
  which is read here with the `asn1` package (not iapsim) and checked field by field against
  `iapsim transactions --json` (Apple's "Receipt Fields" types and encodings);
- a receipt altered by one byte is refused by openssl and by `iapsim receipt decode` (exit 65);
- Apple's `ReceiptUtility.extract_transaction_id_from_app_receipt` finds a transaction id;
- `itunes-iap` (a legacy verifyReceipt client from PyPI), pointed at `iapsim serve`, reads
  `latest_receipt_info` newest first and `pending_renewal_info`;
- malformed, truncated, oversized, foreign, altered and wrongly-environed receipts, and a wrong
  shared secret, get Apple's status codes (21000–21008), and the server keeps answering.
"""
import atexit
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import warnings

import asn1
import itunesiap
from appstoreserverlibrary.receipt_utility import ReceiptUtility

# itunes-iap warns of fields its 2017 list lacks (original_transaction_id in renewal info).
warnings.simplefilter("ignore", UserWarning)
iapsim = os.path.abspath(sys.argv[1])
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
work = tempfile.mkdtemp(prefix="iapsim-receipts-")
atexit.register(shutil.rmtree, work, True)  # the state and certificates go with the run
env = dict(os.environ, IAPSIM_STATE_DIR=work + "/state", IAPSIM_CATALOG=root + "/catalog")
env.pop("IAPSIM_CERTS_DIR", None)
passed = failed = 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name} {detail}")


def run(*args, ok=(0,), binary=False, environment=None):
    result = subprocess.run([iapsim, *args], env=environment or env, capture_output=True, text=not binary,
                            stdin=subprocess.DEVNULL, timeout=300)
    if result.returncode not in ok:
        print(f"FAIL: iapsim {' '.join(args)} exited {result.returncode}: {result.stderr}")
        sys.exit(1)
    return result.stdout


def decode_all(data):
    decoder = asn1.Decoder()
    decoder.start(data)
    return decoder.read()[1]


run("clock", "freeze")
run("clock", "set", "2030-01-01T00:00:00Z")
run("buy", "com.example.app.pro.monthly", "--yes")      # 1: a free trial
run("clock", "advance", "P10D")                         # 2: its renewal
run("buy", "com.example.app.book", "--yes")             # 3: refunded below
run("buy", "com.example.app.coins100", "--yes")         # 4: finished: leaves the receipt
run("settings", "set", "finish-transactions", "manual")
run("buy", "com.example.app.gems500", "--yes")          # 5: unfinished: stays
run("buy", "com.example.app.seasonpass", "--yes")       # 6: non-renewing: stays
run("refund", "3")
run("settings", "set", "shared-secret", "s3cret")

# A set JWS signing made has no RSA chain; the first receipt adds one and keeps the rest.
legacy_env = dict(env, IAPSIM_CERTS_DIR=work + "/other-certs")
run("jws", "app-transaction", environment=legacy_env)
legacy = work + "/other-certs"
check("JWS signing makes no RSA chain", not os.path.exists(legacy + "/receipt-leaf.key"))
before = {name: open(f"{legacy}/{name}", "rb").read() for name in ("root.pem", "leaf.key", "xcode.key")}
foreign = run("receipt", "--base64", environment=legacy_env).strip()
check("the first receipt adds the RSA chain", os.path.exists(legacy + "/receipt-leaf.key"))
check("the P-256 files are kept byte for byte",
      all(open(f"{legacy}/{name}", "rb").read() == data for name, data in before.items()))
check("the RSA keys are 0600", all(os.stat(f"{legacy}/receipt-{level}.key").st_mode & 0o777 == 0o600
                                     for level in ("root", "intermediate", "leaf")))
for level in ("root", "intermediate", "leaf"):
    checked = subprocess.run(["openssl", "rsa", "-check", "-noout", "-in", f"{legacy}/receipt-{level}.key"],
                             capture_output=True, text=True, timeout=60)
    check(f"openssl rsa -check accepts receipt-{level}.key", "RSA key ok" in checked.stdout, checked.stderr)

run("certs", "export", work + "/trusted")
transactions = {str(t["id"]): t for t in json.loads(run("transactions", "--json"))["transactions"]}
expected = [i for i, t in transactions.items() if not (t["productType"] == "consumable" and t["isFinished"])]
check("the script made a finished consumable", "4" in transactions and "4" not in expected)

# openssl accepts the receipt with iapsim's RSA receipt root and gives back the payload.
run("receipt", "--out", work + "/receipt.der")
verify = subprocess.run(["openssl", "cms", "-verify", "-inform", "DER", "-in", work + "/receipt.der", "-binary",
                         "-CAfile", work + "/trusted/receipt-root.pem", "-out", work + "/payload.der"],
                        capture_output=True, text=True, timeout=60)
check("openssl cms -verify accepts the receipt", verify.returncode == 0, verify.stderr)
other_root = subprocess.run(["openssl", "cms", "-verify", "-inform", "DER", "-in", work + "/receipt.der", "-binary",
                             "-CAfile", work + "/trusted/root.pem", "-out", os.devnull], capture_output=True, timeout=60)
check("the P-256 JWS root does not vouch for a receipt", other_root.returncode != 0)
printed = subprocess.run(["openssl", "cms", "-cmsout", "-print", "-inform", "DER", "-in", work + "/receipt.der"],
                         capture_output=True, text=True, timeout=60).stdout
signer_info = printed.partition("signerInfos:")[2]
check("the signer signs with sha256WithRSAEncryption and SHA-256",
      "algorithm: sha256WithRSAEncryption" in signer_info and "algorithm: sha256 (2.16.840.1.101.3.4.2.1)" in signer_info,
      signer_info)
for name, marker in (("receipt-leaf", "1.2.840.113635.100.6.11.1"), ("receipt-intermediate", "1.2.840.113635.100.6.2.1")):
    text = subprocess.run(["openssl", "x509", "-noout", "-text", "-in", f"{work}/trusted/{name}.pem"],
                          capture_output=True, text=True, timeout=60).stdout
    check(f"{name}: RSA-2048, sha256WithRSAEncryption, marker {marker}", "Public-Key: (2048 bit)" in text
          and "Signature Algorithm: sha256WithRSAEncryption" in text and marker in text, text[:400])
payload = open(work + "/payload.der", "rb").read() if verify.returncode == 0 else b""


def attributes(encoded):
    """The (type, value bytes) of a receipt SET, read by the asn1 package."""
    return [(item[0], item[2]) for item in decode_all(encoded)]


def value(encoded):
    return decode_all(encoded)


fields = attributes(payload) if payload else []
by_type = {}
for kind, raw in fields:
    by_type.setdefault(kind, []).append(raw)
check("bundle id (2) is a UTF8String", value(by_type.get(2, [b"\x0c\x00"])[0]) == "com.example.app")
check("app version (3) is a UTF8String", value(by_type.get(3, [b"\x0c\x00"])[0]) == "1.0")
check("opaque value (4) is bytes", len(by_type.get(4, [b""])[0]) == 16)
check("SHA-1 hash (5) is 20 bytes", len(by_type.get(5, [b""])[0]) == 20)
check("creation date (12) is an RFC 3339 IA5String", by_type.get(12, [b""])[0][:1] == b"\x16"
      and value(by_type[12][0]).endswith("Z"))
check("original application version (19)", value(by_type.get(19, [b"\x0c\x00"])[0]) == "1.0")
in_app = []
for raw in by_type.get(17, []):
    purchase = {}
    for kind, inner in attributes(raw):
        purchase[kind] = inner
    in_app.append(purchase)
ids = [value(p[1703]) for p in in_app]
check("the receipt lists every transaction but finished consumables", ids == expected, f"{ids} != {expected}")
for purchase in in_app:
    t = transactions[value(purchase[1703])]
    name = f"transaction {t['id']}"
    check(f"{name}: quantity (1701) INTEGER", value(purchase[1701]) == t["purchasedQuantity"])
    check(f"{name}: product id (1702)", value(purchase[1702]) == t["productID"])
    check(f"{name}: original transaction id (1705)", value(purchase[1705]) == str(t["originalID"]))
    check(f"{name}: purchase date (1704) IA5String", purchase[1704][:1] == b"\x16"
          and value(purchase[1704]) == t["purchaseDate"])
    check(f"{name}: original purchase date (1706)", value(purchase[1706]) == t["originalPurchaseDate"])
    if t["productType"] == "autoRenewable":
        check(f"{name}: expiry (1708)", value(purchase.get(1708, b"\x16\x00")) == t["expirationDate"])
        check(f"{name}: web order line item (1711)", str(value(purchase.get(1711, b"\x02\x01\x00")))
              == t["webOrderLineItemID"])
        trial = t.get("offer") and t["offer"]["paymentMode"] == "freeTrial"
        check(f"{name}: trial flag (1713)", value(purchase.get(1713, b"\x02\x01\x09")) == (1 if trial else 0))
        check(f"{name}: intro price flag (1719)", value(purchase.get(1719, b"\x02\x01\x09")) == 0)
    else:
        check(f"{name}: no subscription fields", 1708 not in purchase and 1711 not in purchase)
    if t["revocationDate"]:
        check(f"{name}: cancellation date (1712)", value(purchase.get(1712, b"\x16\x00")) == t["revocationDate"])
    else:
        check(f"{name}: no cancellation date", 1712 not in purchase)

# One byte altered inside the payload: openssl and iapsim both refuse it.
der = open(work + "/receipt.der", "rb").read()
at = der.find(b"com.example.app")
altered = der[:at] + b"C" + der[at + 1:]
open(work + "/altered.der", "wb").write(altered)
verify = subprocess.run(["openssl", "cms", "-verify", "-inform", "DER", "-in", work + "/altered.der", "-binary",
                         "-CAfile", work + "/trusted/receipt-root.pem", "-out", os.devnull], capture_output=True,
                        timeout=60)
check("openssl refuses an altered receipt", verify.returncode != 0)
decoded = subprocess.run([iapsim, "receipt", "decode", work + "/altered.der"], env=env, capture_output=True, timeout=60)
check("receipt decode exits 65 for an altered receipt", decoded.returncode == 65, decoded.stdout)
decoded = json.loads(run("receipt", "decode", work + "/receipt.der", "--json"))
check("receipt decode verifies iapsim's receipt", decoded["verified"] is True)

# Apple's ReceiptUtility finds a transaction id in it.
receipt_b64 = run("receipt", "--base64").strip()
found = ReceiptUtility().extract_transaction_id_from_app_receipt(receipt_b64)
check("ReceiptUtility extracts a transaction id", found == expected[0], f"{found}")

# POST /verifyReceipt, through itunes-iap and by hand.
port_file = work + "/port"
server = subprocess.Popen([iapsim, "serve", "--port", "0", "--port-file", port_file], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
deadline = time.time() + 30
while time.time() < deadline and not (os.path.exists(port_file) and open(port_file).read().strip()):
    time.sleep(0.05)
url = f"http://127.0.0.1:{int(open(port_file).read().strip())}/verifyReceipt"

response = itunesiap.Request(receipt_b64, password="s3cret").verify_from(url, timeout=60)
latest = response.latest_receipt_info
check("itunes-iap: status 0", response.status == 0)
check("itunes-iap: latest_receipt_info newest first",
      [p.transaction_id for p in latest] == sorted(expected, key=lambda i: (transactions[i]["purchaseDate"], int(i)),
                                                   reverse=True), [p.transaction_id for p in latest])
check("itunes-iap: purchase dates read", all(p.purchase_date.year == 2030 for p in latest))
renewal = response.pending_renewal_info[0]
check("itunes-iap: pending_renewal_info", renewal["original_transaction_id"] == "1" and renewal.auto_renew_status == 1
      and renewal.auto_renew_product_id == "com.example.app.pro.monthly", f"{renewal}")
check("itunes-iap: the receipt's in_app", [p.transaction_id for p in response.receipt.in_app] == expected)


def post(body, method="POST"):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data if method == "POST" else None, method=method)
    with urllib.request.urlopen(request, timeout=120) as answer:
        check(f"{method} answers 200", answer.status == 200)
        return json.loads(answer.read())


def status(body, method="POST"):
    return post(body, method)["status"]


raw = base64.b64decode(receipt_b64)
check("GET: 21000", status(b"", "GET") == 21000)
check("not JSON: 21002", status(b"\x00\xffnot json") == 21002)
check("no receipt-data: 21002", status({"password": "s3cret"}) == 21002)
check("garbage receipt-data: 21002", status({"receipt-data": "@@@@"}) == 21002)
check("truncated receipt: 21002", status({"receipt-data": base64.b64encode(raw[: len(raw) // 2]).decode()}) == 21002)
check("oversized receipt: 21002", status({"receipt-data": base64.b64encode(b"\x30" * (3 << 20)).decode()}) == 21002)
check("altered receipt: 21003", status({"receipt-data": base64.b64encode(altered).decode(), "password": "s3cret"})
      == 21003)
check("wrong shared secret: 21004", status({"receipt-data": receipt_b64, "password": "nope"}) == 21004)
check("no shared secret for a subscription: 21004", status({"receipt-data": receipt_b64}) == 21004)
whole = post({"receipt-data": receipt_b64, "password": "s3cret", "exclude-old-transactions": True})
subscription = [p["transaction_id"] for p in whole["latest_receipt_info"] if p["product_id"].endswith("monthly")]
check("exclude-old-transactions keeps the newest renewal", subscription == ["2"], f"{subscription}")
check("dates in three forms", all(k in whole["receipt"] for k in
                                  ("receipt_creation_date", "receipt_creation_date_ms", "receipt_creation_date_pst")))
check("Pacific time", whole["receipt"]["request_date_pst"].endswith("America/Los_Angeles"))
check("latest_receipt verifies", status({"receipt-data": whole["latest_receipt"], "password": "s3cret"}) == 0)

# A production receipt sent to this sandbox server: 21008; a sandbox one to production: 21007.
production = run("receipt", "--base64", "--environment", "Production").strip()
check("production receipt to the sandbox: 21008", status({"receipt-data": production, "password": "s3cret"}) == 21008)
# Another chain: a receipt signed by certificates this state does not trust (the set above).
check("another chain: 21003", status({"receipt-data": foreign, "password": "s3cret"}) == 21003)
decoded = subprocess.run([iapsim, "receipt", "decode", "--json"], env=env, input=foreign.encode(),
                         capture_output=True, timeout=60)
check("receipt decode of another chain: exit 65, not iapsim's", decoded.returncode == 65
      and "not iapsim's" in json.loads(decoded.stdout)["chain"])
check("the server still answers", status({"receipt-data": receipt_b64, "password": "s3cret"}) == 0)

# itunes-iap as a backend ships it, unpatched: Apple's production URL first and the sandbox one
# on 21007 (its `review` policy), reached through serve as the HTTPS proxy, trusting serve's
# TLS root; no URL of iapsim's anywhere in its call.
run("certs", "export", work + "/trusted")
proxy_port = int(open(port_file).read().strip())
with_proxy = dict(os.environ, HTTPS_PROXY=f"http://127.0.0.1:{proxy_port}",
                  REQUESTS_CA_BUNDLE=work + "/trusted/tls-root.pem")
saved = dict(os.environ)
os.environ.update(with_proxy)
try:
    unpatched = itunesiap.verify(receipt_b64, password="s3cret", env=itunesiap.env.review)
    check("itunes-iap unpatched, through the proxy: status 0", unpatched.status == 0)
    try:
        itunesiap.verify(receipt_b64, password="s3cret", env=itunesiap.env.production)
        check("itunes-iap at Apple's production host: a sandbox receipt is refused", False)
    except itunesiap.exc.InvalidReceipt as error:
        check("itunes-iap at Apple's production host: a sandbox receipt is 21007", error.status == 21007)
finally:
    os.environ.clear()
    os.environ.update(saved)
server.terminate()
check("serve exits 0", server.wait(timeout=10) == 0)

port_file = work + "/port2"
server = subprocess.Popen([iapsim, "serve", "--port", "0", "--port-file", port_file, "--environment", "Production"],
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
deadline = time.time() + 30
while time.time() < deadline and not (os.path.exists(port_file) and open(port_file).read().strip()):
    time.sleep(0.05)
url = f"http://127.0.0.1:{int(open(port_file).read().strip())}/verifyReceipt"
check("sandbox receipt to production: 21007", status({"receipt-data": receipt_b64, "password": "s3cret"}) == 21007)
check("production receipt to production: 0", status({"receipt-data": production, "password": "s3cret"}) == 0)
server.terminate()
server.wait(timeout=10)

print(f"receipts: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
