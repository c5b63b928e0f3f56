"""Errors to back off from, judged by Apple's own Python client.

Usage: apple_errors.py path/to/iapsim   (run by Tests/e2e/apple.sh in its virtual environment)

While `iapsim serve` runs, `iapsim server-error` (another process) arms Apple's errors: the
client must raise APIException with the right api_error, http_status_code and message for
each; a count of 2 fails exactly two requests, then they succeed; concurrent requests never
both take the last of a count; an endpoint pattern affects only the paths it matches; a 429
carries Retry-After (UNIX milliseconds on iapsim's clock); a bad token still gets 401 first;
a delay makes a client with a short time-out time out; `status` and `settings` show what is
armed.
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from appstoreserverlibrary.api_client import APIError, APIException, AppStoreServerAPIClient
from appstoreserverlibrary.models.Environment import Environment

iapsim = os.path.abspath(sys.argv[1])
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
work = tempfile.mkdtemp(prefix="iapsim-errors-")
atexit.register(shutil.rmtree, work, True)  # the state and certificates go with the run
env = dict(os.environ, IAPSIM_STATE_DIR=work + "/state", IAPSIM_CATALOG=root + "/catalog")
BUNDLE = "com.example.app"
passed = failed = 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name} {detail}")


def run(*args):
    result = subprocess.run([iapsim, *args], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                            timeout=300)  # certs export makes RSA keys: slow in a debug build beside crash.sh
    if result.returncode != 0:
        raise SystemExit(f"FAIL: iapsim {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


class Client(AppStoreServerAPIClient):
    """Apple's client with a time-out of the backend's choosing, keeping the last response."""

    def __init__(self, *args, timeout=30):
        super().__init__(*args)
        self.timeout = timeout
        self.last = None

    def _execute_request(self, method, url, params, headers, json, data):
        self.last = requests.request(method, url, params=params, headers=headers, json=json, data=data,
                                     timeout=self.timeout)
        return self.last


def outcome(call):
    """None when the call succeeds, else (http_status_code, api_error, error_message)."""
    try:
        call()
    except APIException as error:
        return error.http_status_code, error.api_error, error.error_message
    return None


key = ec.generate_private_key(ec.SECP256R1())
pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
with open(work + "/AuthKey_TESTKEY123.p8", "wb") as f:
    f.write(pem)
run("clock", "freeze")
run("clock", "set", "2030-01-01T00:00:00Z")
run("buy", "com.example.app.pro.monthly")  # 1
run("buy", "com.example.app.book")         # 2
run("certs", "export", work + "/trusted")   # tls-root.pem: serve's TLS root, for the proxy

port_file = work + "/port"
server = subprocess.Popen([iapsim, "serve", "--port", "0", "--port-file", port_file, "--key-file",
                           work + "/AuthKey_TESTKEY123.p8", "--key-id", "TESTKEY123", "--issuer-id", "issuer-1"],
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
try:
    deadline = time.time() + 30
    while time.time() < deadline and not (os.path.exists(port_file) and open(port_file).read().strip()):
        time.sleep(0.05)
    port = int(open(port_file).read().strip())
    # Apple's client unpatched, through serve as the HTTPS proxy to Apple's Sandbox host.
    os.environ["HTTPS_PROXY"] = f"http://127.0.0.1:{port}"
    os.environ["REQUESTS_CA_BUNDLE"] = work + "/trusted/tls-root.pem"

    def client(timeout=30):
        return Client(pem, "TESTKEY123", "issuer-1", BUNDLE, Environment.SANDBOX, timeout=timeout)

    api = client()
    info = lambda: api.get_transaction_info("1")  # noqa: E731
    check("nothing armed: Get Transaction Info answers", outcome(info) is None)

    # Each of Apple's errors to back off from, with Apple's status and message.
    table = [
        (4290000, 429, APIError.RATE_LIMIT_EXCEEDED, "Rate limit exceeded."),
        (4040002, 404, APIError.ACCOUNT_NOT_FOUND_RETRYABLE, "Account not found. Please try again."),
        (4040004, 404, APIError.APP_NOT_FOUND_RETRYABLE, "App not found. Please try again."),
        (4040006, 404, APIError.ORIGINAL_TRANSACTION_ID_NOT_FOUND_RETRYABLE,
         "Original transaction id not found. Please try again."),
        (5000001, 500, APIError.GENERAL_INTERNAL_RETRYABLE, "An unknown error occurred. Please try again."),
        (5000000, 500, APIError.GENERAL_INTERNAL, "An unknown error occurred."),
    ]
    for code, status, error, message in table:
        run("server-error", str(code), "--count", "1")
        got = outcome(info)
        check(f"{code}: APIException({status}, {error.name})", got == (status, error, message), str(got))
        check(f"{code}: exactly Apple's body", api.last.json() == {"errorCode": code, "errorMessage": message}
              and api.last.headers.get("Content-Type") == "application/json", api.last.text)
        if code == 4290000:
            retry = api.last.headers.get("Retry-After", "")
            # One second after the frozen clock's 2030-01-01T00:00:00Z, in milliseconds.
            check("429: Retry-After is UNIX milliseconds on iapsim's clock", retry == "1893456001000", retry)
        else:
            check(f"{code}: no Retry-After", "Retry-After" not in api.last.headers)
        check(f"{code}: the count is spent, the next request answers", outcome(info) is None)

    # Apple's name arms it too; a count of 2 fails exactly two requests.
    run("server-error", "RateLimitExceededError", "--count", "2")
    shown = json.loads(run("status", "--json"))["serverErrors"]
    check("status shows what is armed", shown == [{"errorCode": 4290000, "errorMessage": "Rate limit exceeded.",
                                                   "httpStatus": 429, "name": "RateLimitExceededError",
                                                   "remaining": 2, "endpoint": None}], str(shown))
    results = [outcome(info) for _ in range(3)]
    check("a count of 2 fails two requests, then they succeed",
          [r and r[1] for r in results] == [APIError.RATE_LIMIT_EXCEEDED, APIError.RATE_LIMIT_EXCEEDED, None],
          str(results))
    check("a spent count is disarmed", json.loads(run("settings", "--json"))["serverErrors"] == [])

    # Concurrent requests never both take the last of a count.
    run("server-error", "5000001", "--count", "3")
    barrier = threading.Barrier(10)
    answers = []

    def concurrent():
        c = client()
        barrier.wait(timeout=30)
        answers.append(outcome(lambda: c.get_transaction_info("2")))

    threads = [threading.Thread(target=concurrent) for _ in range(10)]
    [t.start() for t in threads]
    [t.join(timeout=60) for t in threads]
    failures = [a for a in answers if a is not None]
    check("10 concurrent requests against a count of 3: exactly 3 fail", len(answers) == 10 and len(failures) == 3,
          f"{len(failures)} of {len(answers)}")

    # An endpoint pattern affects only the paths it matches.
    run("server-error", "4040002", "--endpoint", "/inApps/v1/subscriptions/*")
    check("a pattern leaves other endpoints alone", outcome(info) is None)
    got = outcome(lambda: api.get_all_subscription_statuses("1"))
    check("a pattern fails the endpoint it names", got and got[1] == APIError.ACCOUNT_NOT_FOUND_RETRYABLE, str(got))
    got = outcome(lambda: api.get_all_subscription_statuses("1"))
    check("without a count, every matching request fails", got and got[1] == APIError.ACCOUNT_NOT_FOUND_RETRYABLE)

    # A bad token is refused with 401 first, and takes nothing from a count.
    run("server-error", "clear")
    run("server-error", "4290000", "--count", "1")
    unauthenticated = requests.get("https://api.storekit-sandbox.apple.com/inApps/v1/transactions/1", headers={"Authorization": "Bearer x"},
                                   timeout=30)
    check("a bad token gets 401 before an armed error", unauthenticated.status_code == 401)
    got = outcome(info)
    check("... and the count is still there for the next good request", got and got[0] == 429, str(got))

    # A delay makes a client with a short time-out time out; the next request answers at once.
    run("server-error", "delay", "3s", "--count", "1")
    impatient = client(timeout=1)
    started = time.time()
    try:
        impatient.get_transaction_info("1")
        timed_out = False
    except requests.exceptions.Timeout:
        timed_out = True
    check("a delay of 3s times out a client that waits 1s", timed_out and time.time() - started < 2.5,
          f"timed out: {timed_out}")
    started = time.time()
    check("after the delay is spent, requests answer", outcome(info) is None and time.time() - started < 2)
    run("server-error", "delay", "1500ms", "--count", "1")
    started = time.time()
    check("a patient client gets the answer after the delay", outcome(info) is None
          and 1.4 < time.time() - started < 10, f"{time.time() - started:.2f}s")
finally:
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
print(f"server errors: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
