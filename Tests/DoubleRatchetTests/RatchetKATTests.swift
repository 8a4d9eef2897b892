import Crypto
import XCTest
@testable import DoubleRatchet
import SimplexFoundation

/// Known answers computed independently with Python's pyca/cryptography (HKDF-SHA512, X448,
/// AES-GCM with 16-byte nonces) from our reading of Ratchet.hs: the chain and root KDFs, the
/// X3DH, and the exact bytes of a first message with and without KEM.
final class RatchetKATTests: XCTestCase {
    private func pattern(_ n: Int, _ mul: Int, _ add: Int) -> [UInt8] { (0..<n).map { UInt8(($0 * mul + add) % 256) } }
    private func x448(_ mul: Int, _ add: Int) throws -> X448PrivateKey { try X448PrivateKey(rawRepresentation: pattern(56, mul, add)) }

    func testChainKDF() throws {
        let (ck, mk, iv, headerIV) = try RatchetKDF.chain(Array(0..<32))
        XCTAssertEqual(toHex(ck), "700adb2d724336ee01af8788318163514b0bfaf4a78f68068211dec1498ea752")
        XCTAssertEqual(toHex(mk), "7e51e30511914d29893fd7640d76abdb2c5c3c81d4b332ef1ad82afc189b09a5")
        XCTAssertEqual(toHex(iv + headerIV), "a539e64bf854a18090d981c0a2995665bc018d49134b7b0ef0032f6b8e862037")
    }

    func testRootKDFWithAndWithoutKEMSecret() throws {
        let a = try x448(7, 1), b = try x448(13, 5)
        let dh = try PQRatchet.dh(a, b.publicKey)
        XCTAssertEqual(toHex(dh), "60f64744f0986b08c2032b963a5bbcb0cefcd96c988dba39e0955603681eb5dc536e07f62116cb2d62f8f30bd945ff5ba2ed6fcc4298b5cd")
        let rk = Array(UInt8(32)..<64), ss = KEMSharedSecret(Array(UInt8(64)..<96))
        let r = try RatchetKDF.root(rootKey: rk, dhOutput: dh, kemSecret: ss)
        XCTAssertEqual([r.rootKey, r.chainKey, r.nextHeaderKey].map(toHex),
                       ["ee6b2955876175d48d68af77c96596a89667fd43525ea0d1a8ec89e0972257b8", "04eba746e3bede3a3420f6bffd6c6af7630e93c1b5a6bfb22482f16f42a5a6d0", "cc80439c74ca270f0c4fb182571fafa6dadd0779dc8d7691198491ede47713fa"])
        let r0 = try RatchetKDF.root(rootKey: rk, dhOutput: dh, kemSecret: nil)
        XCTAssertEqual([r0.rootKey, r0.chainKey, r0.nextHeaderKey].map(toHex),
                       ["4e85656bcca27b549153172cea4ab4d372761cd8ccccf6b7fa8b699da5cd244b", "a056ca77d78f5ff559df3d1eca654af35102ccfc220f9b56eaa1a89eabcf7c06", "fc4489be28a039facb12330cd9f8c8863aa54e63e4b0534a4fececcfe32ae91a"])
    }

    /// Alice (A1, A2 in her params, A3 her first DH ratchet key) joins Bob (B1, B2).
    private func aliceFirstMessage(kem: (RatchetKEMAccepted, KEMKeyPair)?, text: String, paddedLength: Int) throws -> (RatchetInitParams, [UInt8], PQRatchet) {
        let a1 = try x448(3, 11), a2 = try x448(5, 17), a3 = try x448(11, 23)
        let b1 = try x448(17, 29), b2 = try x448(19, 31)
        let own = E2EPrivateParams(version: 3, key1: a1, key2: a2, kem: kem.map { .accepted($0.0.ciphertext, $0.0.sharedSecret, $0.1) })
        let peer = E2ERatchetParams(version: 3, key1: b1.publicKey, key2: b2.publicKey, kem: kem.map { .proposed($0.0.peerKey) })
        let params = try PQRatchet.pqX3dhSnd(own, peer)
        var alice = try PQRatchet.initSend(versions: .latest, peerRatchetKey: b2.publicKey, dhRatchetKey: a3, params: params)
        let msg = try alice.encrypt(Array(text.utf8), paddedLength: paddedLength)
        return (params, msg, alice)
    }

    func testX3DHAndFirstMessageBytes() throws {
        let (params, msg, _) = try aliceFirstMessage(kem: nil, text: "hello bob", paddedLength: 64)
        XCTAssertEqual(toHex(params.sendHeaderKey), "2c19a803c6c5062a586aacd05452ea3772d1b731ee55892f33d09544b0087fb3")
        XCTAssertEqual(toHex(params.receiveNextHeaderKey), "9668ef5a2fc41c820ecdd2e8562bc7beea7f79bdfd7e9ef9a500ca4a23ebe53c")
        XCTAssertEqual(toHex(params.ratchetKey), "26827fdab9a2d0287f358e48c38ecafd4b023a9c51dde385f1caedc7f76b49f8")
        XCTAssertEqual(toHex(params.associatedData), "162b15924837c5d68e722da7c7bbab355d01ef891acbf894e27ceb1f7f18e158903a01cf1b2e7a82783bf44652a92e9cf92b1b86bffd27b8adae9b2500e9700c49098f5584583632284dbf042771aabe38ca69f481f788fc40d32d85cdeaa2c1e2307c9f8ebfdb28dc58962755005aa5")
        XCTAssertEqual(msg.count, 2 + 124 + 16 + 64)
        XCTAssertEqual(toHex(msg), "007c000337cd35acc182ebe610e14ae5e630a3168d405fcebfaac3a2fd22ddcff79aa5f20058ad84b84017c5a398219fe242196bbe8e5b9687a25aa7b7944fa968f81c7f81d7bc5e0a0db2545597762ae0ed53c4b8e849bee45c2bf12010b00b5bc4b8e5b6eb8692ab23d29e1b89a0b1323a08c51b7aaa1420054229debe6128f2d6933e20993fd025311ae4ffc0aaea54c13af9bb1583e7b9664e4ad1ed34f84e689ad97f579984269222e272999c792b6e80966d1b6e3f6d216f4354250f92c333bc363535a5907b3fcb1cb63a")
    }

    /// KEM values are fixed byte patterns of sntrup761's sizes (the layout does not depend on
    /// them being real keys); the message has the reference's PQ size, 2464 bytes.
    func testPQX3DHAndFirstMessageBytes() throws {
        let accepted = RatchetKEMAccepted(
            peerKey: KEMPublicKey(pattern(1158, 11, 9)), sharedSecret: KEMSharedSecret(pattern(32, 23, 1)),
            ciphertext: KEMCiphertext(pattern(1039, 7, 3)))
        let keyPair = KEMKeyPair(publicKey: KEMPublicKey(pattern(1158, 11, 9)), secretKey: KEMSecretKey(pattern(1763, 1, 0)))
        let (params, msg, alice) = try aliceFirstMessage(kem: (accepted, keyPair), text: "hello PQ bob", paddedLength: 100)
        XCTAssertEqual(toHex(params.sendHeaderKey), "7650e0eb8b8a0b56c9c2839f5843a3668916574628d8865e4d758c31dab0fe8b")
        XCTAssertEqual(toHex(params.receiveNextHeaderKey), "9f1f403d5c9e4b892eea61242ec5922378b36eef9904d23c3d665a22ad6076fa")
        XCTAssertEqual(toHex(params.ratchetKey), "4eca3b7c916a5cc49cd00b7dc98f44aacabdca214c960e7233aa7bcfe133b068")
        XCTAssertEqual(msg.count, 2464)
        XCTAssertEqual(msg.count, alice.encryptedLength(paddedLength: 100))
        XCTAssertEqual(toHex(Array(SHA256.hash(data: msg))), "11d43d19620097a9215f6ddebf6c30866c9dea059bd08b5ba240798e4801f4d6")
        XCTAssertTrue(alice.sendingPQ)
    }
}

/* The generator of the values above (Python 3, pyca/cryptography 48), kept for re-checking:

from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x448 import X448PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives import serialization
import struct

def hkdf3(salt, ikm, info):
    out = HKDF(algorithm=hashes.SHA512(), length=96, salt=salt, info=info).derive(ikm)
    return out[:32], out[32:64], out[64:]

def pat(n, mul, add): return bytes((i * mul + add) % 256 for i in range(n))

def x448(seed): return X448PrivateKey.from_private_bytes(seed)
def raw(pk): return pk.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
def der(pk): return pk.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)

ck = bytes(range(32)); rk = bytes(range(32, 64)); ss = bytes(range(64, 96))
print("chain", *[x.hex() for x in hkdf3(b"", ck, b"SimpleXChainRatchet")])
a = x448(pat(56, 7, 1)); b = x448(pat(56, 13, 5))
dh = a.exchange(b.public_key())
print("dh", dh.hex())
print("root", *[x.hex() for x in hkdf3(rk, dh + ss, b"SimpleXRootRatchet")])
print("rootNoKEM", *[x.hex() for x in hkdf3(rk, dh, b"SimpleXRootRatchet")])

A1, A2, A3 = x448(pat(56, 3, 11)), x448(pat(56, 5, 17)), x448(pat(56, 11, 23))
B1, B2 = x448(pat(56, 17, 29)), x448(pat(56, 19, 31))

def first_message(kem_ss, hdr_kem, padded_hdr, plaintext, padded_len):
    dhs = A2.exchange(B1.public_key()) + A1.exchange(B2.public_key()) + A2.exchange(B2.public_key()) + kem_ss
    hk, nhk, sk = hkdf3(b"\0" * 64, dhs, b"SimpleXX3DH")
    ad = raw(A1) + raw(B1)
    rk2, cks, nhks = hkdf3(sk, A3.exchange(B2.public_key()) + kem_ss, b"SimpleXRootRatchet")
    ck2, mk, ivs = hkdf3(b"", cks, b"SimpleXChainRatchet")
    iv, hiv = ivs[:16], ivs[16:]
    d = der(A3)
    header = struct.pack(">H", 3) + bytes([len(d)]) + d + hdr_kem + struct.pack(">II", 0, 0)
    ph = struct.pack(">H", len(header)) + header + b"#" * (padded_hdr - len(header) - 2)
    ct = AESGCM(hk).encrypt(hiv, ph, ad)
    hbody, htag = ct[:-16], ct[-16:]
    enc_header = struct.pack(">H", 3) + hiv + htag + struct.pack(">H", len(hbody)) + hbody
    pb = struct.pack(">H", len(plaintext)) + plaintext + b"#" * (padded_len - len(plaintext) - 2)
    ct = AESGCM(mk).encrypt(iv, pb, ad + enc_header)
    msg = struct.pack(">H", len(enc_header)) + enc_header + ct[-16:] + ct[:-16]
    return hk, nhk, sk, ad, msg

hk, nhk, sk, ad, msg = first_message(b"", b"0", 88, b"hello bob", 64)
print("x3dh", hk.hex(), nhk.hex(), sk.hex(), ad.hex())
print("msg", msg.hex())
kem_ct = pat(1039, 7, 3); kem_pk = pat(1158, 11, 9); kem_ss = pat(32, 23, 1)
hk, nhk, sk, ad, msg = first_message(kem_ss, b"1A" + struct.pack(">H", 1039) + kem_ct + struct.pack(">H", 1158) + kem_pk, 2310, b"hello PQ bob", 100)
print("x3dhPQ", hk.hex(), nhk.hex(), sk.hex())
print("msgPQ", msg.hex())
import hashlib
print("msgPQsha256", hashlib.sha256(msg).hexdigest(), len(msg))
*/
