"""Portal Launcher signed_request signer: Python 3.6 or later, standard library only.

    PORTAL_API_KEY=<api key> python3 sign_request.py [--exact] < payload.json

prints the signed_request of the JSON payload read from stdin; --exact signs the text exactly as
given (no issuedAt or nonce added).
"""
import base64
import hashlib
import hmac
import json
import os
import secrets
import sys
import time


def sign_json(payload_json: str, api_key: str) -> str:
    """The signed_request of a JSON text, signed exactly as given."""
    encoded = base64.b64encode(payload_json.encode("utf-8")).decode("ascii")
    # The HMAC is over the Base64 text, not over the JSON.
    digest = hmac.new(api_key.encode("utf-8"), encoded.encode("ascii"), hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii") + "." + encoded


def sign(payload: dict, api_key: str) -> str:
    """The signed_request of a payload, with a fresh issuedAt and a random nonce added."""
    fresh = dict(payload, issuedAt=int(time.time()), nonce=secrets.token_hex(16))
    return sign_json(json.dumps(fresh, ensure_ascii=False, separators=(",", ":")), api_key)


if __name__ == "__main__":
    key = os.environ.get("PORTAL_API_KEY")
    if not key:
        print("usage: PORTAL_API_KEY=<key> python3 sign_request.py [--exact] < payload.json",
              file=sys.stderr)
        sys.exit(2)
    text = sys.stdin.buffer.read().decode("utf-8")
    print(sign_json(text, key) if "--exact" in sys.argv[1:] else sign(json.loads(text), key))
