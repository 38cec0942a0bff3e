#!/usr/bin/env python3
"""An independent JOSE implementation (joserfc + cryptography) for CryptoCoreTests.

Usage: jose_crosscheck.py COMMAND, with a JSON object on stdin; prints a JSON object.

  sign-rs256  {"claims", "kid"}            -> {"token", "jwks"}   (fresh RSA-2048 key)
  sign-es256  {"claims", "kid"}            -> {"token", "jwks"}   (fresh P-256 key)
  verify      {"token", "jwks"}            -> {"header", "claims"} or {"error"}
  pem-to-jwk  {"pem"}                      -> {"x", "y"}          (a PKCS#8 P-256 private key)
  scrypt      {"password", "salt", "n", "r", "p", "length"} -> {"key"} (base64url fields)
"""
import base64
import json
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt
from joserfc import jwt
from joserfc.jwk import ECKey, KeySet, RSAKey


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign(request, key, alg):
    key_dict = key.as_dict(private=False)
    key_dict["kid"] = request["kid"]
    token = jwt.encode({"alg": alg, "kid": request["kid"], "typ": "JWT"}, request["claims"], key)
    return {"token": token, "jwks": {"keys": [key_dict]}}


def verify(request):
    keys = KeySet.import_key_set(request["jwks"])
    try:
        token = jwt.decode(request["token"], keys, algorithms=["ES256", "RS256"])
    except Exception as error:  # the test only needs to know that joserfc refused it
        return {"error": type(error).__name__}
    return {"header": token.header, "claims": token.claims}


def pem_to_jwk(request):
    key = serialization.load_pem_private_key(request["pem"].encode(), password=None)
    numbers = key.public_key().public_numbers()
    return {"x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big"))}


def scrypt(request):
    kdf = Scrypt(salt=unb64url(request["salt"]), length=request["length"],
                 n=request["n"], r=request["r"], p=request["p"])
    return {"key": b64url(kdf.derive(request["password"].encode()))}


def main():
    command = sys.argv[1]
    request = json.load(sys.stdin)
    if command == "sign-rs256":
        result = sign(request, RSAKey.generate_key(2048), "RS256")
    elif command == "sign-es256":
        result = sign(request, ECKey.generate_key("P-256"), "ES256")
    elif command == "verify":
        result = verify(request)
    elif command == "pem-to-jwk":
        result = pem_to_jwk(request)
    elif command == "scrypt":
        result = scrypt(request)
    else:
        raise SystemExit(f"unknown command {command}")
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
