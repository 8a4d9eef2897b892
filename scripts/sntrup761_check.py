#!/usr/bin/env python3
"""Checks our sntrup761 (Sources/CSNTRUP761, compiled here into a small shared library) against:

1. The NTRU Prime known answer, first entry (count = 0), as PQClean's test/crypto_kem/nistkat.c
   prints it with NIST's AES-256-CTR DRBG (entropy 00 01 .. 2f): the SHA-256 of that text is
   PQClean's crypto_kem/sntrup761/META.yml `nistkat-sha256`
   (afc42c3a5b10f4ef69654250097ebda9b9564570f4086744b24a6daf2bd1f89a). The DRBG is written below
   over OpenSSL's AES (pyca/cryptography), and fed to our C code through its randomness callback.
2. An independent implementation from PyPI, `pqcrypto` (sntrup_761): keys made by one side,
   ciphertexts made by the other, decapsulated by both; and implicit rejection of altered
   ciphertexts giving the same pseudo-random key in both.
3. The recorded KEM values of ../shared/refvectors/ratchet_x448_pq_sntrup761.json (made by
   simplexmq's own C code): every recorded ciphertext decapsulates with the recorded secret key.

Usage: sntrup761_check.py [refvectors dir]. Exits non-zero on any mismatch.
"""
import ctypes
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PK, SK, CT, SS = 1158, 1763, 1039, 32
# PQClean's crypto_kem/sntrup761/META.yml `nistkat-sha256`, two generations of it:
# - commit 5982bdff ("Match the NIST submission's sequence of calls to randombytes"): the NIST
#   submission's order, 4 bytes per 32-bit random value (also simplexmq's cbits/sntrup761.c);
# - commit 7c342d20 and later ("Get random bytes in one shot", supercop-20210529): the p values
#   of Small_random and Short_random read in one 4p-byte call each.
KAT_SHA256_PER_WORD = "2eba10673b9077530ba9c063d22f2534e415a6da42985c333c6baee133cc0ff1"
KAT_SHA256_ONE_SHOT = "afc42c3a5b10f4ef69654250097ebda9b9564570f4086744b24a6daf2bd1f89a"

RANDOM_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint8))


def build_library(tmp):
    out = os.path.join(tmp, "libsxq_sntrup761.so")
    src = os.path.join(ROOT, "Sources/CSNTRUP761/sntrup761.c")
    inc = os.path.join(ROOT, "Sources/CSNTRUP761/include")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-I", inc, src, "-lcrypto", "-o", out], check=True)
    return ctypes.CDLL(out)


class NistDRBG:
    """NIST's AES-256-CTR DRBG of the PQC KAT generator (rng.c): randombytes(n) makes
    ceil(n/16) blocks and then updates the key and counter."""

    def __init__(self, entropy48):
        self.key = bytes(32)
        self.v = bytes(16)
        self._update(entropy48)

    def _block(self):
        self.v = ((int.from_bytes(self.v, "big") + 1) % (1 << 128)).to_bytes(16, "big")
        enc = Cipher(algorithms.AES(self.key), modes.ECB()).encryptor()
        return enc.update(self.v) + enc.finalize()

    def _update(self, provided):
        temp = b"".join(self._block() for _ in range(3))
        if provided is not None:
            temp = bytes(a ^ b for a, b in zip(temp, provided))
        self.key, self.v = temp[:32], temp[32:48]

    def randombytes(self, n):
        out = b""
        while len(out) < n:
            out += self._block()
        self._update(None)
        return out[:n]


class Ours:
    def __init__(self, lib):
        self.lib = lib

    def _callback(self, source):
        def fill(_ctx, n, dst):
            data = source(n)
            ctypes.memmove(dst, data, n)
        return RANDOM_FN(fill)

    def keypair(self, source=os.urandom):
        pk, sk = ctypes.create_string_buffer(PK), ctypes.create_string_buffer(SK)
        assert self.lib.sxq_sntrup761_keypair(pk, sk, None, self._callback(source)) == 0
        return pk.raw, sk.raw

    def enc(self, pk, source=os.urandom):
        c, k = ctypes.create_string_buffer(CT), ctypes.create_string_buffer(SS)
        assert self.lib.sxq_sntrup761_enc(c, k, pk, None, self._callback(source)) == 0
        return c.raw, k.raw

    def dec(self, c, sk):
        k = ctypes.create_string_buffer(SS)
        assert self.lib.sxq_sntrup761_dec(k, c, sk) == 0
        return k.raw


failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


class OneShot:
    """Serves our 4-byte requests from one 4p-byte DRBG call per group of p values, as the
    one-shot generation reads them; other requests (rho) go to the DRBG directly."""

    def __init__(self, drbg):
        self.drbg, self.buffer = drbg, b""

    def __call__(self, n):
        if n == 4:
            if not self.buffer:
                self.buffer = self.drbg.randombytes(4 * 761)
            out, self.buffer = self.buffer[:4], self.buffer[4:]
            return out
        assert not self.buffer, "request inside a group of p values"
        return self.drbg.randombytes(n)


def kat(ours):
    for what, expected, wrap in (
        ("per-word (NIST submission order)", KAT_SHA256_PER_WORD, lambda d: d.randombytes),
        ("one-shot (supercop-20210529)", KAT_SHA256_ONE_SHOT, OneShot),
    ):
        drbg = NistDRBG(bytes(range(48)))
        seed = drbg.randombytes(48)
        source = wrap(NistDRBG(seed))
        pk, sk = ours.keypair(source)
        ct, ss = ours.enc(pk, source)
        text = "count = 0\n"
        for name, value in (("seed", seed), ("pk", pk), ("sk", sk), ("ct", ct), ("ss", ss)):
            text += f"{name} = {value.hex().upper()}\n"
        check(hashlib.sha256(text.encode()).hexdigest() == expected, f"NIST KAT count=0, {what}: PQClean nistkat-sha256")
        check(ours.dec(ct, sk) == ss, f"KAT {what}: ciphertext decapsulates to the KAT shared secret")


def cross(ours):
    from pqcrypto.kem import sntrup_761 as other
    for i in range(8):
        pk, sk = ours.keypair()
        ct, ss = other.encaps(pk)
        check(ours.dec(ct, sk) == ss, f"[{i}] our key, pqcrypto ciphertext, our decapsulation")
        ct2, ss2 = ours.enc(pk)
        check(other.decaps(sk, ct2) == ss2, f"[{i}] our key, our ciphertext, pqcrypto decapsulation")
        pk3, sk3 = other.keypair() if hasattr(other, "keypair") else other.keygen()
        ct3, ss3 = ours.enc(pk3)
        check(other.decaps(sk3, ct3) == ss3, f"[{i}] pqcrypto key, our ciphertext, pqcrypto decapsulation")
        ct4, ss4 = other.encaps(pk3)
        check(ours.dec(ct4, sk3) == ss4, f"[{i}] pqcrypto key, pqcrypto ciphertext, our decapsulation")
        for pos in (0, 500, CT - 1):
            bad = bytearray(ct4)
            bad[pos] ^= 0x01
            bad = bytes(bad)
            mine, theirs = ours.dec(bad, sk3), other.decaps(sk3, bad)
            check(mine == theirs and mine != ss4, f"[{i}] altered byte {pos}: same implicit-rejection key in both")


def refvectors(ours, folder):
    path = os.path.join(folder, "ratchet_x448_pq_sntrup761.json")
    if not os.path.exists(path):
        print(f"skip refvectors: {path} not found")
        return
    vectors = json.load(open(path))["vectors"]
    seen = set()
    # Every state snapshot pairs a secret key PQRs.sec with, on the peer side, a ciphertext made
    # for its public key; collect keys by public key and ciphertexts by target key.
    secrets, accepted = {}, []

    def walk(o):
        if isinstance(o, dict):
            if "PQRs" in o and isinstance(o["PQRs"], dict):
                secrets[o["PQRs"]["pub_hex"]] = o["PQRs"]["sec_hex"]
            if "PQRct_hex" in o and "PQRr_hex" in o and "PQRss_hex" in o:
                accepted.append((o["PQRr_hex"], o["PQRct_hex"], o["PQRss_hex"]))
            if "kemKeyPair" in o and isinstance(o["kemKeyPair"], dict):
                secrets[o["kemKeyPair"]["pub_hex"]] = o["kemKeyPair"]["sec_hex"]
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    walk(vectors)
    for pub, sec in secrets.items():
        check(sec[2 * 382:2 * (382 + PK)] == pub, f"recorded secret key of {pub[:16]}… embeds its public key")
    # After a ratchet step PQRct is made for PQRr; after the X3DH of the party that proposed, the
    # recorded PQRct is the one the peer made for the proposer's own key. Any recorded secret key
    # must open it to PQRss.
    n = 0
    for pub, ct, ss in accepted:
        if ct in seen:
            continue
        seen.add(ct)
        keys = ([secrets[pub]] if pub in secrets else []) + [s for p, s in secrets.items() if p != pub]
        opened = any(ours.dec(bytes.fromhex(ct), bytes.fromhex(sk)).hex() == ss for sk in keys)
        check(opened, f"recorded ciphertext {ct[:16]}… decapsulates to its PQRss with a recorded key")
        n += 1
    check(n > 0, f"{n} recorded ciphertexts checked")


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "refvectors")
    with tempfile.TemporaryDirectory() as tmp:
        ours = Ours(build_library(tmp))
        kat(ours)
        cross(ours)
        refvectors(ours, folder)
    print(f"sntrup761: {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
