"""Apple's own App Store Server Library judges iapsim's signed data.

Usage: apple_signed_data.py path/to/iapsim   (run by Tests/e2e/apple.sh, in a virtual
environment with app-store-server-library installed)

A script of purchases (every product type, an introductory offer, a renewal, an upgrade, a
refund) runs on a fresh state; then every transaction, the renewal info and the app
transaction are signed by iapsim and verified by Apple's SignedDataVerifier: Sandbox and
Production against iapsim's exported test root (online checks off), LocalTesting and Xcode
by shape. A verifier with Apple's real root must reject them, and so must any verifier when
one payload byte is altered. Every decoded field must equal what `iapsim transactions
--json` says.
"""
import base64
import datetime
import json
import os
import subprocess
import sys
import tempfile

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

iapsim = os.path.abspath(sys.argv[1])
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
work = tempfile.TemporaryDirectory()
env = dict(os.environ, IAPSIM_STATE_DIR=work.name + "/state", IAPSIM_CATALOG=root + "/catalog")
env.pop("IAPSIM_CERTS_DIR", None)
BUNDLE, APP_APPLE_ID = "com.example.app", 1234567890
passed = failed = 0


def run(*args, ok=(0,)):
    result = subprocess.run([iapsim, *args], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if result.returncode not in ok:
        raise SystemExit(f"FAIL: iapsim {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name} {detail}")


def millis(iso):
    return None if iso is None else int(datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ")
                                        .replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)


# The script of purchases, on a frozen clock.
run("clock", "freeze")
run("clock", "set", "2030-01-01T00:00:00Z")
run("settings", "set", "app-apple-id", str(APP_APPLE_ID))
run("buy", "com.example.app.book")
run("buy", "com.example.app.coins100", "--quantity", "3")
run("buy", "com.example.app.seasonpass")
run("buy", "com.example.app.pro.monthly")             # introductory offer: a free week
run("clock", "advance", "P10D")                       # renews at the monthly price
run("buy", "com.example.app.pro.yearly")              # a higher level: an upgrade, at once
run("refund", "1")                                    # the book
transactions = json.loads(run("transactions", "--json"))["transactions"]
check("the script made every kind of transaction",
      {t["productType"] for t in transactions} == {"nonConsumable", "consumable", "nonRenewable", "autoRenewable"}
      and any(t["reason"] == "renewal" for t in transactions) and any(t["isUpgraded"] for t in transactions)
      and any(t["revocationDate"] for t in transactions) and any(t.get("offerType") for t in transactions),
      json.dumps(transactions)[:400])

products = {p["id"]: p for p in json.loads(run("list", "--json"))["products"]}
yearly_price = round(float(products["com.example.app.pro.yearly"]["price"]) * 1000)

certs = work.name + "/trusted"
run("certs", "export", certs)
with open(certs + "/root.der", "rb") as f:
    iapsim_root = f.read()
with open(root + "/Tests/e2e/fixtures/AppleRootCA-G3.pem") as f:
    pem = "".join(line for line in f.read().splitlines() if "CERTIFICATE" not in line)
apple_root = base64.b64decode(pem)

TYPES = {"consumable": "Consumable", "nonConsumable": "Non-Consumable",
         "autoRenewable": "Auto-Renewable Subscription", "nonRenewable": "Non-Renewing Subscription"}


def verifier(environment, roots):
    return SignedDataVerifier(roots, False, environment, BUNDLE,
                              APP_APPLE_ID if environment == Environment.PRODUCTION else None)


def rejected(verify, jws):
    try:
        verify(jws)
    except VerificationException:
        return True
    return False


def altered(jws):
    header, payload, signature = jws.split(".")
    raw = bytearray(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    raw[raw.index(b'"bundleId"') + 12] ^= 0x01      # one byte of the bundle identifier
    return ".".join([header, base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("="), signature])


for environment, roots in [(Environment.SANDBOX, [iapsim_root]), (Environment.PRODUCTION, [iapsim_root]),
                           (Environment.LOCAL_TESTING, []), (Environment.XCODE, [])]:
    name = environment.value
    judge = verifier(environment, roots)
    for t in transactions:
        jws = json.loads(run("jws", "transaction", str(t["id"]), "--environment", name, "--json"))["jws"]
        label = f"{name} transaction {t['id']} ({t['productID']})"
        try:
            d = judge.verify_and_decode_signed_transaction(jws)
        except VerificationException as error:
            check(label + " verifies", False, repr(error))
            continue
        check(label + " verifies", True)
        expected = {
            "transactionId": str(t["id"]), "originalTransactionId": str(t["originalID"]), "productId": t["productID"],
            "bundleId": BUNDLE, "purchaseDate": millis(t["purchaseDate"]),
            "originalPurchaseDate": millis(t["originalPurchaseDate"]), "expiresDate": millis(t["expirationDate"]),
            "quantity": t["purchasedQuantity"], "rawType": TYPES[t["productType"]],
            "revocationDate": millis(t["revocationDate"]), "isUpgraded": True if t["isUpgraded"] else None,
            "currency": t["currency"], "price": round(float(t["price"]) * 1000), "rawEnvironment": name,
            "storefront": t["storefrontCountryCode"], "subscriptionGroupIdentifier": t["subscriptionGroupID"],
            "rawTransactionReason": "RENEWAL" if t["reason"] == "renewal" else "PURCHASE",
            "rawOfferType": 1 if t.get("offerType") == "introductory" else None,
        }
        for field, value in expected.items():
            check(f"{label} {field}", getattr(d, field) == value, f"{getattr(d, field)!r} != {value!r}")
        check(label + " storefrontId", d.storefrontId == "143441", d.storefrontId)
        if environment in (Environment.SANDBOX, Environment.PRODUCTION):
            check(label + " altered byte rejected", rejected(judge.verify_and_decode_signed_transaction, altered(jws)))
            check(label + " Apple's real root rejects it",
                  rejected(verifier(environment, [apple_root]).verify_and_decode_signed_transaction, jws))
        other = Environment.PRODUCTION if environment == Environment.SANDBOX else Environment.SANDBOX
        check(label + " another environment's verifier rejects it",
              rejected(verifier(other, [iapsim_root]).verify_and_decode_signed_transaction, jws))

    renewal = json.loads(run("jws", "renewal", "com.example.app.pro.yearly", "--environment", name, "--json"))["jws"]
    try:
        r = judge.verify_and_decode_renewal_info(renewal)
        check(f"{name} renewal info verifies", True)
        check(f"{name} renewal info fields",
              r.productId == "com.example.app.pro.yearly" and r.autoRenewProductId == "com.example.app.pro.yearly"
              and r.rawAutoRenewStatus == 1 and r.isInBillingRetryPeriod is False and r.currency == "USD"
              and r.renewalPrice == yearly_price and r.rawEnvironment == name, repr(r))
    except VerificationException as error:
        check(f"{name} renewal info verifies", False, repr(error))

    app = json.loads(run("jws", "app-transaction", "--environment", name, "--json"))["jws"]
    try:
        a = judge.verify_and_decode_app_transaction(app)
        check(f"{name} app transaction verifies", True)
        check(f"{name} app transaction fields", a.bundleId == BUNDLE and a.rawReceiptType == name
              and a.appAppleId == APP_APPLE_ID, repr(a))
    except VerificationException as error:
        check(f"{name} app transaction verifies", False, repr(error))

print(f"apple: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
