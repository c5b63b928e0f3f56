"""Apple's own App Store Server Library judges iapsim's signed data.

Usage: apple_signed_data.py path/to/iapsim   (run by Tests/e2e/apple.sh, in a virtual
environment with app-store-server-library installed)

A script of purchases (every product type, an introductory offer, a renewal, an upgrade, a
refund, a prorated refund) runs on a fresh state; then every transaction, the renewal info and
the app transaction are signed by iapsim and verified by Apple's SignedDataVerifier: Sandbox and
Production against iapsim's exported test root (online checks off), LocalTesting and Xcode
by shape. A verifier with Apple's real root must reject them, and so must any verifier when
one payload byte is altered. Every decoded field must equal what `iapsim transactions
--json` says. Then the renewal info through a subscription's life (auto-renew off, expiry, a
lapse, an app account token) and a monthly billing plan's payments (App Store Server API 1.21)
are decoded by Apple's models, which check each field's type and range.
"""
import base64
import datetime
import json
import os
import shutil
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
run("refund", "2", "--prorated", "40")                # part of the coins
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
# --json's revocationType (StoreKit's names) as Apple's library reads the JWS's.
REVOCATION_TYPES = {"fullRefund": "REFUND_FULL", "proratedRefund": "REFUND_PRORATED", "familyRevocation": "FAMILY_REVOKE"}


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
            "rawRevocationType": REVOCATION_TYPES.get(t.get("revocationType")),
            "revocationPercentage": None if t["revocationDate"] is None
            else round(float(t["revocationPercentage"]) * 1000),
            "rawBillingPlanType": "BILLED_UPFRONT" if t["productType"] == "autoRenewable" else None,
            "commitmentInfo": None,
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

# The renewal info through a subscription's life, and a monthly plan's payments, decoded by
# Apple's models (Sandbox, iapsim's root) on a state of their own. The catalog is the bundled
# one with Pro yearly also offered monthly (format 5's billingPlans).
catalog = work.name + "/catalog"
shutil.copytree(root + "/catalog", catalog)
with open(catalog + "/Products.storekit") as f:
    storekit = json.load(f)
for group in storekit["subscriptionGroups"]:
    for subscription in group["subscriptions"]:
        if subscription["productID"] == "com.example.app.pro.yearly":
            subscription["billingPlans"] = [
                {"billingPlanType": "BILLED_UPFRONT", "displayPrice": subscription["displayPrice"],
                 "commitmentDisplayPrice": subscription["displayPrice"], "internalID": "P1", "isEnabled": True},
                {"billingPlanType": "MONTHLY", "displayPrice": "2.99", "commitmentDisplayPrice": "35.88",
                 "internalID": "P2", "isEnabled": True}]
with open(catalog + "/Products.storekit", "w") as f:
    json.dump(storekit, f)
env = dict(env, IAPSIM_STATE_DIR=work.name + "/state2", IAPSIM_CATALOG=catalog)
run("certs", "export", work.name + "/trusted2")
with open(work.name + "/trusted2/root.der", "rb") as f:
    sandbox = verifier(Environment.SANDBOX, [f.read()])


def renewal_info(selector):
    return sandbox.verify_and_decode_renewal_info(
        json.loads(run("jws", "renewal", selector, "--json"))["jws"])


def transaction_info(tid):
    jws = json.loads(run("jws", "transaction", str(tid), "--json"))["jws"]
    return sandbox.verify_and_decode_signed_transaction(jws)


run("clock", "freeze")
run("clock", "set", "2030-01-01T00:00:00Z")
token = "2f7c5b1e-8d3a-4e6f-9a1b-0c2d3e4f5a6b"
run("buy", "com.example.app.pro.yearly", "--app-account-token", token)            # 1
first = transaction_info(1)
run("cancel-subscription", "com.example.app.pro.yearly")
info = renewal_info("com.example.app.pro.yearly")
check("renewal info, auto-renew off: renewalDate, no expirationIntent yet",
      info.renewalDate == first.expiresDate and info.rawExpirationIntent is None and info.rawAutoRenewStatus == 0,
      repr(info))
check("renewal info: appAccountToken, renewalBillingPlanType",
      str(info.appAccountToken) == token and info.rawRenewalBillingPlanType == "BILLED_UPFRONT"
      and info.commitmentInfo is None, repr(info))
run("clock", "advance", "P1Y61D")                    # expired, then a lapse of 61 days
info = renewal_info("com.example.app.pro.yearly")
check("renewal info, expired: renewalDate stays, expirationIntent 1",
      info.renewalDate == first.expiresDate and info.rawExpirationIntent == 1, repr(info))
run("buy", "com.example.app.pro.yearly")                                         # 2: after the lapse
again = transaction_info(2)
info = renewal_info("com.example.app.pro.yearly")
check("renewal info: recentSubscriptionStartDate starts again after a lapse of more than 60 days",
      info.recentSubscriptionStartDate == again.purchaseDate != first.purchaseDate, repr(info))
run("expire", "com.example.app.pro.yearly")
run("buy", "com.example.app.pro.yearly", "--billing-plan", "monthly")           # 3: the first of 12 payments
run("clock", "advance", "P1M")                                                  # 4: the second
monthly = [transaction_info(3), transaction_info(4)]
check("monthly plan: billingPlanType and commitmentInfo",
      [(m.rawBillingPlanType, m.commitmentInfo.billingPeriodNumber, m.commitmentInfo.totalBillingPeriods,
        m.commitmentInfo.commitmentPrice) for m in monthly] == [("MONTHLY", 1, 12, 35880), ("MONTHLY", 2, 12, 35880)]
      and monthly[0].commitmentInfo.commitmentExpiresDate == monthly[1].commitmentInfo.commitmentExpiresDate
      == millis("2032-03-03T00:00:00Z") and monthly[0].purchaseDate == millis("2031-03-03T00:00:00Z"), repr(monthly))
info = renewal_info("com.example.app.pro.yearly")
commitment = info.commitmentInfo
check("monthly plan: renewalBillingPlanType and the renewal's commitmentInfo",
      info.rawRenewalBillingPlanType == "MONTHLY" and commitment.rawCommitmentRenewalBillingPlanType == "MONTHLY"
      and commitment.commitmentAutoRenewProductId == "com.example.app.pro.yearly"
      and commitment.rawCommitmentAutoRenewStatus == 1 and commitment.commitmentRenewalPrice == 35880
      and commitment.commitmentRenewalDate == monthly[0].commitmentInfo.commitmentExpiresDate, repr(info))

print(f"apple: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
