"""A backend's test, unmodified production verification code, trusting iapsim's test root.

Run: iapsim buy com.example.app.pro.monthly --yes
     iapsim certs export ./trusted
     python3 examples/backend_verify.py ./trusted/root.der "$(iapsim jws transaction 1)"
(Tests/e2e/apple.sh runs it with Apple's app-store-server-library installed.)
"""
import sys

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier


def grant_access(signed_transaction: str, trusted_roots: list[bytes]) -> str:
    # The same call a production backend makes; only the trusted roots differ in its tests.
    verifier = SignedDataVerifier(trusted_roots, False, Environment.SANDBOX, "com.example.app")
    transaction = verifier.verify_and_decode_signed_transaction(signed_transaction)
    return transaction.productId


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as root:
        print("granted", grant_access(sys.argv[2].strip(), [root.read()]))
