"""Promotional offer signatures, judged by Apple's own App Store Server Library.

Usage: apple_offers.py path/to/iapsim   (run by Tests/e2e/apple.sh, in a virtual environment
with app-store-server-library installed)

A copy of the bundled catalog gets a subscriptionOffersKeyPair made here (a TEST ONLY P-256
key, base64 PKCS #8 as Xcode stores it). Apple's PromotionalOfferSignatureCreator signs an
offer the way a developer's server does; `iapsim buy --offer --offer-signature` must accept
it, with and without an app account token, and refuse a signature over another offer, one
made with another key, one older than 24 hours and a missing one, as StoreKit does.
`iapsim offer-signature` must make the same signature payload Apple's library makes:
the library's public key verifies it. The redeemed transaction, signed by iapsim, must
decode in Apple's SignedDataVerifier with offerType 2 and offerIdentifier.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.exceptions import InvalidSignature
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

iapsim = os.path.abspath(sys.argv[1])
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
work = tempfile.TemporaryDirectory()
BUNDLE, KEY_ID, PRODUCT, OFFER = "com.example.app", "TESTONLY01", "com.example.app.pro.monthly", "pro.monthly.comeback"
passed = failed = 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: offers: {name} {detail}")


# The catalog, with a TEST ONLY key pair as Xcode stores one (mode 0600, in the temp folder).
key = ec.generate_private_key(ec.SECP256R1())
der = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
catalog = os.path.join(work.name, "catalog")
os.makedirs(catalog)
document = json.load(open(os.path.join(root, "catalog", "Products.storekit")))
document["subscriptionOffersKeyPair"] = {"id": KEY_ID, "privateKey": base64.b64encode(der).decode()}
path = os.path.join(catalog, "Products.storekit")
with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as out:
    json.dump(document, out)
os.symlink(os.path.join(root, "catalog", "IAPProductIDs.plist"), os.path.join(catalog, "IAPProductIDs.plist"))


def env(state):
    return dict(os.environ, IAPSIM_STATE_DIR=os.path.join(work.name, state), IAPSIM_CATALOG=catalog)


def run(state, *args):
    return subprocess.run([iapsim, *args], env=env(state), capture_output=True, text=True, stdin=subprocess.DEVNULL)


def lapsed(state):
    """A state whose customer subscribed once and let it lapse: eligible for the offer."""
    for args in (["buy", PRODUCT, "--yes"], ["cancel-subscription", PRODUCT], ["clock", "advance", "P1M"]):
        result = run(state, *args)
        if result.returncode != 0:
            raise SystemExit(f"FAIL: offers: iapsim {' '.join(args)} exited {result.returncode}: {result.stderr}")


creator = PromotionalOfferSignatureCreator(pem, KEY_ID, BUNDLE)
now = int(time.time() * 1000)


def apple_signature(offer=OFFER, token="", nonce=None, timestamp=now, signer=creator):
    nonce = nonce or uuid.uuid4()
    signature = signer.create_signature(PRODUCT, offer, token, nonce, timestamp)
    return f"{KEY_ID}:{nonce}:{timestamp}:{signature}"


# Accepted: Apple's signature, without and with an app account token.
for index, token in enumerate(["", "7E4D3C2B-1A09-4F8E-9D7C-6B5A4F3E2D1C"]):
    state = f"accepted{index}"
    lapsed(state)
    args = ["buy", PRODUCT, "--offer", OFFER, "--offer-signature", apple_signature(token=token), "--yes", "--json"]
    if token:
        args += ["--app-account-token", token]
    result = run(state, *args)
    check(f"Apple's signature (token {token!r}) is accepted", result.returncode == 0, result.stderr)
    if result.returncode == 0:
        transaction = json.loads(result.stdout)["transaction"]
        check("the transaction is the promotional offer's", transaction.get("offerType") == "promotional"
              and transaction.get("offerID") == OFFER and transaction.get("price") == "0.99", transaction)

# Refused, as StoreKit refuses them.
other = PromotionalOfferSignatureCreator(
    ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()), KEY_ID, BUNDLE)
refusals = {
    "another offer's signature": (apple_signature(offer="other.offer"), "invalidOfferSignature"),
    "another key's signature": (apple_signature(signer=other), "invalidOfferSignature"),
    "a signature older than 24 hours": (apple_signature(timestamp=now - 25 * 3600 * 1000), "invalidOfferSignature"),
    "a signature dated ten minutes ahead": (apple_signature(timestamp=now + 600 * 1000), "invalidOfferSignature"),
    "no signature": (None, "missingOfferParameters"),
}
for name, (signature, error) in refusals.items():
    state = "refused-" + name.replace(" ", "-").replace("'", "")
    lapsed(state)
    args = ["buy", PRODUCT, "--offer", OFFER, "--yes", "--json"] + (["--offer-signature", signature] if signature else [])
    result = run(state, *args)
    outcome = json.loads(result.stdout) if result.stdout.strip() else {}
    check(f"{name} is refused with {error}", result.returncode == 1 and outcome.get("error", {}).get("name") == error,
          f"exit {result.returncode}: {result.stdout} {result.stderr}")

# A nonce is used once: the same signature of Apple's, redeemed again, is refused.
state = "replayed"
lapsed(state)
replayed = apple_signature()
args = ["buy", PRODUCT, "--offer", OFFER, "--offer-signature", replayed, "--yes", "--json"]
first, second = run(state, *args), run(state, *args)
outcome = json.loads(second.stdout) if second.stdout.strip() else {}
check("a signature redeemed twice is refused the second time",
      first.returncode == 0 and second.returncode == 1
      and outcome.get("error", {}).get("name") == "invalidOfferSignature",
      f"exit {first.returncode}, then {second.returncode}: {second.stdout} {second.stderr}")

# iapsim's own signer makes Apple's payload: Apple's public key check accepts it.
nonce = uuid.uuid4()
result = run("signer", "offer-signature", PRODUCT, OFFER, "--nonce", str(nonce), "--timestamp", str(now), "--json")
check("offer-signature runs", result.returncode == 0, result.stderr)
if result.returncode == 0:
    made = json.loads(result.stdout)
    payload = "\u2063".join([BUNDLE, KEY_ID, PRODUCT, OFFER, "", str(nonce).lower(), str(now)]).encode()
    try:
        key.public_key().verify(base64.b64decode(made["signature"]), payload, ec.ECDSA(hashes.SHA256()))
        check("iapsim's signature verifies over Apple's payload", True)
    except InvalidSignature:
        check("iapsim's signature verifies over Apple's payload", False, made)
    state = "own-signature"
    lapsed(state)
    result = run(state, "buy", PRODUCT, "--offer", OFFER, "--offer-signature", made["offerSignature"], "--yes")
    check("iapsim's own signature is accepted", result.returncode == 0, result.stderr)
# With an app account token: iapsim signs what Apple's creator signs, and the purchase with
# that token accepts it.
token = "7E4D3C2B-1A09-4F8E-9D7C-6B5A4F3E2D1C"
result = run("signer", "offer-signature", PRODUCT, OFFER, "--nonce", str(nonce), "--timestamp", str(now),
             "--app-account-token", token, "--json")
if result.returncode == 0:
    made = json.loads(result.stdout)
    payload = "\u2063".join([BUNDLE, KEY_ID, PRODUCT, OFFER, token.lower(), str(nonce).lower(), str(now)]).encode()
    try:
        key.public_key().verify(base64.b64decode(made["signature"]), payload, ec.ECDSA(hashes.SHA256()))
        check("iapsim's signature with a token verifies over Apple's payload", True)
    except InvalidSignature:
        check("iapsim's signature with a token verifies over Apple's payload", False, made)
    state = "own-signature-token"
    lapsed(state)
    result = run(state, "buy", PRODUCT, "--offer", OFFER, "--offer-signature", made["offerSignature"],
                 "--app-account-token", token, "--yes")
    check("iapsim's own signature with a token is accepted", result.returncode == 0, result.stderr)
else:
    check("offer-signature --app-account-token runs", False, result.stderr)

# The redeemed transaction, signed by iapsim, decodes in Apple's verifier.
exported = os.path.join(work.name, "trusted")
run("accepted0", "certs", "export", exported)
verifier = SignedDataVerifier([open(os.path.join(exported, "root.der"), "rb").read()], False, Environment.SANDBOX, BUNDLE)
transactions = json.loads(run("accepted0", "transactions", "--json").stdout)["transactions"]
redeemed = [t for t in transactions if t.get("offerType") == "promotional"]
check("the history holds the redeemed transaction", len(redeemed) == 1, transactions)
if redeemed:
    jws = run("accepted0", "jws", "transaction", str(redeemed[0]["id"])).stdout.strip()
    decoded = verifier.verify_and_decode_signed_transaction(jws)
    check("Apple's verifier reads offerType 2 and the offer identifier",
          int(decoded.rawOfferType) == 2 and decoded.offerIdentifier == OFFER, vars(decoded))

# A lapsed subscriber's signed renewal info names the win-back offer it may redeem.
lapsed("winback")
run("winback", "certs", "export", exported + "-winback")
verifier = SignedDataVerifier([open(os.path.join(exported + "-winback", "root.der"), "rb").read()], False,
                              Environment.SANDBOX, BUNDLE)
renewal = verifier.verify_and_decode_renewal_info(run("winback", "jws", "renewal", PRODUCT).stdout.strip())
check("the signed renewal info lists the eligible win-back offer",
      renewal.eligibleWinBackOfferIds == ["pro.monthly.winback"], vars(renewal))

print(f"offers: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
