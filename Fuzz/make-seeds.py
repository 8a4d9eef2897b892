#!/usr/bin/env python3
"""Writes the seed corpus of the SMP decoder fuzzer: one valid encoding per file of each thing
Fuzz/SMPFuzz decodes (transmissions, commands, responses, errors, message bodies, handshakes,
blocks, server addresses). Usage: make-seeds.py OUTPUT_DIR"""
import base64, os, struct, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

def ss(b):  # shortString
    assert len(b) <= 255
    return bytes([len(b)]) + b

def ls(b):  # largeString / originalLength
    return struct.pack(">H", len(b)) + b

def pad(b, size):  # paddedString
    return struct.pack(">H", len(b)) + b + b"#" * (size - len(b) - 2)

def block(transmissions):
    return pad(bytes([len(transmissions)]) + b"".join(ls(t) for t in transmissions), 16384)

X25519 = bytes.fromhex("302a300506032b656e032100") + bytes(range(1, 33))
ED25519 = bytes.fromhex("302a300506032b6570032100") + bytes(range(33, 65))
sig = bytes(range(64))
corr = bytes(range(100, 124))
ent = bytes(range(200, 224))
ts = struct.pack(">q", 1700000000)

def tx(body, auth=sig, c=corr, e=ent):
    return ss(auth) + ss(c) + ss(e) + body

commands = {
    "new": b"NEW " + ss(ED25519) + ss(X25519) + b"0" + b"S" + b"T",
    "new_auth": b"NEW " + ss(ED25519) + ss(X25519) + b"1" + ss(b"password") + b"C",
    "sub": b"SUB", "get": b"GET", "off": b"OFF", "del": b"DEL", "que": b"QUE", "ndel": b"NDEL",
    "ping": b"PING", "nsub": b"NSUB",
    "key": b"KEY " + ss(ED25519), "skey": b"SKEY " + ss(ED25519),
    "nkey": b"NKEY " + ss(ED25519) + ss(X25519),
    "ack": b"ACK " + ss(bytes(24)),
    "send": b"SEND T hello world",
    "send_flags": b"SEND F\x00\x00 body",
}
responses = {
    "ids": b"IDS " + ss(ent) + ss(corr) + ss(X25519) + b"T",
    "msg": b"MSG " + ss(bytes(24)) + bytes(range(256)) * 2,
    "nid": b"NID " + ss(ent) + ss(X25519),
    "nmsg": b"NMSG " + bytes(24) + bytes(128),
    "end": b"END", "ok": b"OK", "pong": b"PONG",
    "info": b'INFO {"qiSnd":true,"qiNtf":false,"qiSize":0}',
    "err_auth": b"ERR AUTH",
    "err_cmd": b"ERR CMD SYNTAX",
    "err_proxy": b"ERR PROXY PROTOCOL AUTH",
    "err_broker": b"ERR PROXY BROKER RESPONSE " + ss(b"bad response"),
    "err_broker_transport": b"ERR PROXY BROKER TRANSPORT HANDSHAKE IDENTITY",
    "err_transport": b"ERR TRANSPORT BLOCK",
    "err_nosession": b"ERR PROXY NO_SESSION",
}
seeds = {}
for k, v in commands.items():
    seeds["cmd_" + k] = v
    seeds["tx_" + k] = tx(v, e=b"" if k in ("new", "new_auth", "ping") else ent)
for k, v in responses.items():
    seeds["resp_" + k] = v
    seeds["tx_resp_" + k] = tx(v, auth=b"", c=b"" if k in ("msg", "end", "nmsg") else corr)
seeds["error_type"] = b"PROXY BROKER UNEXPECTED " + ss(b"x")
seeds["rcv_body"] = ts + b"T" + b" " + b"sender's encrypted message"
seeds["rcv_body_quota"] = b"QUOTA " + ts
seeds["padded"] = pad(b"some text", 64)
client_hello = struct.pack(">H", 9) + ss(bytes(range(32))) + ss(X25519)
fake_cert = bytes.fromhex("30820100") + bytes(256)
server_hello = struct.pack(">HH", 7, 9) + ss(bytes(range(32))) + ls(fake_cert) + ls(X25519 + sig)
seeds["client_hello"] = client_hello
seeds["server_hello"] = server_hello
seeds["block_client_hello"] = pad(client_hello, 16384)
seeds["block_server_hello"] = pad(server_hello, 16384)
seeds["block_commands"] = block([tx(commands["send"]), tx(commands["sub"]), tx(commands["new"], e=b"")])
seeds["block_responses"] = block([tx(responses["ok"], auth=b""), tx(responses["msg"], auth=b"", c=b"")])
key_hash = base64.urlsafe_b64encode(bytes(range(32))).decode()
seeds["address"] = f"smp://{key_hash}@smp.example.com,abcdefghij.onion:5223".encode()
seeds["address_ipv6"] = f"smp://{key_hash.rstrip('=')}@[::1]:443".encode()
seeds["address_ipv4"] = f"smp://{key_hash}@127.0.0.1".encode()
seeds["base64url"] = base64.urlsafe_b64encode(bytes(range(40))).rstrip(b"=")

for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print(f"{len(seeds)} seeds in {out}")
