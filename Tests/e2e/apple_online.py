"""Apple's SignedDataVerifier with online checks ON accepts iapsim's signed data, unpatched.

Usage: apple_online.py path/to/iapsim   (run by Tests/e2e/apple.sh, in a virtual environment
with app-store-server-library installed)

With `enable_online_checks=True` Apple's verifier asks the OCSP responder named in the
authorityInfoAccess of the intermediate and of the leaf (http://ocsp.iapsim.test/, a name that
resolves nowhere) whether each is still good, with `requests`, which honours HTTP_PROXY. Here
HTTP_PROXY names a running `iapsim serve`, which answers as that responder; HTTPS_PROXY names it
too, so Apple's API client fetches a notification from Apple's own Sandbox host, as a backend
set up by docs/BACKEND.md does. NO_PROXY is unset. Checked:

- a transaction and a notification signed by iapsim are accepted, and serve logged one OCSP
  request per certificate, each answered good;
- with the proxy pointing nowhere the same verifier fails (retryable): the check did go online;
- after `iapsim certs rotate`, a JWS signed by the replaced set is rejected by a verifier that
  trusts its root, because serve answers `revoked` for its certificates; a JWS of the new set
  is accepted.

The simulated clock is frozen in 2030 while the verifier reads the real one: the responder's
thisUpdate..nextUpdate window spans both.
"""
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from appstoreserverlibrary.api_client import AppStoreServerAPIClient
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException, VerificationStatus
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

iapsim = os.path.abspath(sys.argv[1])
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
work = tempfile.mkdtemp(prefix="iapsim-online-")
env = dict(os.environ, IAPSIM_STATE_DIR=work + "/state", IAPSIM_CATALOG=root + "/catalog")
env.pop("IAPSIM_CERTS_DIR", None)
BUNDLE = "com.example.app"
passed = failed = 0


def run(*args):
    result = subprocess.run([iapsim, *args], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        raise SystemExit(f"FAIL: iapsim {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name} {detail}")


def rejection(call):
    """The VerificationStatus `call` raised, or None when it passed."""
    try:
        call()
    except VerificationException as error:
        return error.status
    return None


def read_der(path):
    with open(path, "rb") as f:
        return f.read()


run("clock", "freeze")
run("clock", "set", "2030-01-01T00:00:00Z")
run("buy", "com.example.app.pro.monthly")
run("certs", "export", work + "/old")
old_root = read_der(work + "/old/root.der")
old_jws = run("jws", "transaction", "1").strip()

key = ec.generate_private_key(ec.SECP256R1())
pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
port_file, log_file = work + "/port", work + "/serve.log"
log = open(log_file, "w")
server = subprocess.Popen([iapsim, "serve", "--port", "0", "--port-file", port_file], env=env,
                          stdout=subprocess.DEVNULL, stderr=log, stdin=subprocess.DEVNULL)
try:
    deadline = time.time() + 30
    while time.time() < deadline and not (os.path.exists(port_file) and open(port_file).read().strip()):
        time.sleep(0.05)
    port = int(open(port_file).read().strip())
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        os.environ.pop(name, None)
    proxy = f"http://127.0.0.1:{port}"
    os.environ.update(HTTP_PROXY=proxy, HTTPS_PROXY=proxy, REQUESTS_CA_BUNDLE=work + "/old/tls-root.pem")

    def ocsp_lines():
        with open(log_file) as f:
            return [line for line in f if "(OCSP " in line]

    # A transaction, and a notification fetched from Apple's Sandbox host through serve.
    verifier = SignedDataVerifier([old_root], True, Environment.SANDBOX, BUNDLE, None)
    check("online checks on: a transaction is accepted",
          verifier.verify_and_decode_signed_transaction(old_jws).productId == "com.example.app.pro.monthly")
    check("serve answered an OCSP request for the intermediate and one for the leaf, each good",
          [line.split("(", 1)[1].strip() for line in ocsp_lines()] == ["OCSP good)", "OCSP good)"], str(ocsp_lines()))
    client = AppStoreServerAPIClient(pem, "KEY", "issuer", BUNDLE, Environment.SANDBOX)
    now = int(datetime.datetime(2030, 1, 2, tzinfo=datetime.timezone.utc).timestamp() * 1000)
    history = client.get_notification_history(None, NotificationHistoryRequest(startDate=now - 86_400_000 * 30, endDate=now))
    payload = history.notificationHistory[0].signedPayload
    # A fresh verifier: Apple's caches a chain it checked online for 15 minutes.
    fresh = SignedDataVerifier([old_root], True, Environment.SANDBOX, BUNDLE, None)
    notification = fresh.verify_and_decode_notification(payload)
    check("online checks on: a notification is accepted",
          notification.rawNotificationType == "SUBSCRIBED" and len(ocsp_lines()) == 4, str(len(ocsp_lines())))

    # Nobody answering OCSP: the online check fails, so it really is made.
    os.environ["HTTP_PROXY"] = "http://127.0.0.1:1"
    nowhere = SignedDataVerifier([old_root], True, Environment.SANDBOX, BUNDLE, None)
    status = rejection(lambda: nowhere.verify_and_decode_signed_transaction(old_jws))
    check("with no responder the online check fails", status == VerificationStatus.RETRYABLE_VERIFICATION_FAILURE,
          str(status))
    os.environ["HTTP_PROXY"] = proxy

    # Rotated: the replaced set is revoked, the new one good.
    run("certs", "rotate")
    run("certs", "export", work + "/new")
    new_root = read_der(work + "/new/root.der")
    both = SignedDataVerifier([old_root, new_root], True, Environment.SANDBOX, BUNDLE, None)
    before = len(ocsp_lines())
    status = rejection(lambda: both.verify_and_decode_signed_transaction(old_jws))
    check("a JWS of the replaced set is rejected online", status == VerificationStatus.VERIFICATION_FAILURE, str(status))
    check("serve answered revoked for it", any("OCSP revoked" in line for line in ocsp_lines()[before:]),
          str(ocsp_lines()[before:]))
    offline = SignedDataVerifier([old_root], False, Environment.SANDBOX, BUNDLE, None)
    check("offline, the replaced set's JWS still verifies (no one asked)",
          rejection(lambda: offline.verify_and_decode_signed_transaction(old_jws)) is None)
    new_jws = run("jws", "transaction", "1").strip()
    check("a JWS of the new set is accepted online",
          both.verify_and_decode_signed_transaction(new_jws).transactionId == "1")
finally:
    server.terminate()
    server.wait(timeout=30)
    log.close()
    shutil.rmtree(work, ignore_errors=True)

print(f"online checks: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
