#!/usr/bin/env python3
"""ctypes test of libsimplex (include/simplex.h), as a Python bot SDK would load it.

Needs SIMPLEX_SMP_SERVERS=smp://... (Tests/CABI/run.sh starts a relay and sets it) and the
library path in LIBSIMPLEX (default: .build/debug/libsimplex.so).
"""
import base64
import ctypes
import hashlib
import json
import os
import shutil
import struct
import sys
import tempfile
import threading
import time

lib = ctypes.CDLL(os.environ.get("LIBSIMPLEX", ".build/debug/libsimplex.so"))
libc = ctypes.CDLL(None)
libc.free.argtypes = [ctypes.c_void_p]

c_ctrl = ctypes.c_void_p
P = ctypes.c_void_p  # returned buffers: read as C strings, then free()
lib.chat_migrate_init.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(c_ctrl)]
lib.chat_migrate_init_key.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                                      ctypes.POINTER(c_ctrl)]
lib.chat_send_cmd.argtypes = [c_ctrl, ctypes.c_char_p]
lib.chat_send_cmd_retry.argtypes = [c_ctrl, ctypes.c_char_p, ctypes.c_int]
lib.chat_recv_msg_wait.argtypes = [c_ctrl, ctypes.c_int]
lib.chat_close_store.argtypes = [c_ctrl]
lib.chat_reopen_store.argtypes = [c_ctrl]
lib.chat_parse_markdown.argtypes = [ctypes.c_char_p]
lib.chat_parse_server.argtypes = [ctypes.c_char_p]
lib.chat_password_hash.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
lib.chat_write_file.argtypes = [c_ctrl, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
lib.chat_read_file.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
lib.chat_encrypt_file.argtypes = [c_ctrl, ctypes.c_char_p, ctypes.c_char_p]
lib.chat_decrypt_file.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
for f in ("chat_migrate_init", "chat_migrate_init_key", "chat_send_cmd", "chat_send_cmd_retry", "chat_recv_msg_wait",
          "chat_close_store", "chat_reopen_store", "chat_parse_markdown", "chat_parse_server", "chat_password_hash",
          "chat_write_file", "chat_read_file", "chat_encrypt_file", "chat_decrypt_file"):
    getattr(lib, f).restype = P


def take(ptr):
    """The C string at ptr, freed."""
    assert ptr, "NULL answer"
    try:
        return ctypes.string_at(ptr).decode()
    finally:
        libc.free(ptr)


def b(s):
    return s.encode() if s is not None else None


class Client:
    def __init__(self, name, prefix):
        self.name = name
        self.ctrl = c_ctrl()
        r = json.loads(take(lib.chat_migrate_init(b(prefix), b"", b"yesUp", ctypes.byref(self.ctrl))))
        assert r == {"type": "ok"}, r
        assert self.ctrl.value
        self.events = []
        self.cmd('/_create user {"profile":{"displayName":"%s","fullName":""},"pastTimestamp":false}' % name)
        self.cmd("/_start")

    def cmd(self, s):
        r = json.loads(take(lib.chat_send_cmd_retry(self.ctrl, b(s), 1)))
        assert "result" in r, f"{self.name} {s}: {r}"
        return r["result"]

    def event(self, type_, match=lambda e: True, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for i, e in enumerate(self.events):
                if e.get("type") == type_ and match(e):
                    return self.events.pop(i)
            s = take(lib.chat_recv_msg_wait(self.ctrl, 500_000))
            if s:
                self.events.append(json.loads(s)["result"])
        raise AssertionError(f"{self.name}: no {type_} event; got {[e.get('type') for e in self.events]}")

    def close(self):
        assert take(lib.chat_close_store(self.ctrl)) == ""


def item_texts(e):
    return [ci["chatItem"]["meta"]["itemText"] for ci in e.get("chatItems", [])]


def test_errors(d):
    bogus = c_ctrl(0x7FFF1234)
    r = json.loads(take(lib.chat_send_cmd(bogus, b"/users")))
    assert r == {"error": {"type": "error", "errorType": {"type": "chatNotStarted"}}}, r
    assert take(lib.chat_send_cmd(None, None)).find("chatNotStarted") > 0
    assert take(lib.chat_recv_msg_wait(bogus, 0)) == ""
    assert take(lib.chat_close_store(bogus)) != ""
    assert take(lib.chat_reopen_store(bogus)) != ""
    with open(os.path.join(d, "garbage_chat.db"), "wb") as f:
        f.write(os.urandom(4096))
    ctrl = c_ctrl()
    r = json.loads(take(lib.chat_migrate_init(b(os.path.join(d, "garbage")), b"", b"yesUp", ctypes.byref(ctrl))))
    assert r["type"] == "errorNotADatabase" and r["dbFile"].endswith("garbage_chat.db"), r
    assert not ctrl.value
    r = json.loads(take(lib.chat_migrate_init_key(b(os.path.join(d, "x")), b"", 0, b"nope", 0, ctypes.byref(ctrl))))
    assert r == {"type": "invalidConfirmation"}, r


def test_utilities(server):
    r = json.loads(take(lib.chat_parse_markdown(b"hi *bold* _it_ https://simplex.chat")))
    formats = [(f["text"], f.get("format", {}).get("type")) for f in r["formattedText"]]
    assert ("bold", "bold") in formats and ("it", "italic") in formats and ("https://simplex.chat", "uri") in formats, r
    assert json.loads(take(lib.chat_parse_markdown(b"plain"))) == {}
    r = json.loads(take(lib.chat_parse_server(b(server))))
    sa = r["serverAddress"]
    assert r["parseError"] == "" and sa["serverProtocol"] == "smp" and sa["hostnames"] == ["127.0.0.1"], r
    assert server.startswith(f"smp://{sa['keyHash']}@") or server.startswith(f"smp://{sa['keyHash'].rstrip('=')}@"), r
    # Any key hash length parses, as in simplexmq; a missing host does not.
    r = json.loads(take(lib.chat_parse_server(b"smp://abc:secret@example.com")))
    assert r["serverAddress"]["basicAuth"] == "secret" and r["parseError"] == "", r
    r = json.loads(take(lib.chat_parse_server(b"smp://abc:secret@")))
    assert "serverAddress" not in r and r["parseError"], r
    kh = base64.urlsafe_b64encode(bytes(range(32))).decode()
    r = json.loads(take(lib.chat_parse_server(b(f"xftp://{kh}:secret@a.example,b.example:443"))))
    assert r["serverAddress"] == {"serverProtocol": "xftp", "hostnames": ["a.example", "b.example"], "port": "443",
                                  "keyHash": kh, "basicAuth": "secret"}, r
    # ntf:// parses as every protocol server does (AProtoServerWithAuth); an unknown scheme does not.
    r = json.loads(take(lib.chat_parse_server(b(f"ntf://{kh}@ntf.example"))))
    assert r["serverAddress"] == {"serverProtocol": "ntf", "hostnames": ["ntf.example"], "port": "",
                                  "keyHash": kh, "basicAuth": ""}, r
    r = json.loads(take(lib.chat_parse_server(b(f"http://{kh}@ntf.example"))))
    assert "serverAddress" not in r and r["parseError"], r
    # Mobile.hs chatPasswordHash: base64url(sha512(pwd ++ base64url-decode(salt))).
    salt = base64.urlsafe_b64encode(b"0123456789abcdef").decode()
    expected = base64.urlsafe_b64encode(hashlib.sha512(b"secret" + b"0123456789abcdef").digest()).decode()
    assert take(lib.chat_password_hash(b"secret", b(salt))) == expected
    assert take(lib.chat_password_hash(b"secret", b"!!")) == ""


def read_file(path, key, nonce):
    ptr = lib.chat_read_file(b(path), b(key), b(nonce))
    assert ptr
    try:
        status = ctypes.string_at(ptr, 1)[0]
        if status == 0:
            (n,) = struct.unpack("<I", ctypes.string_at(ptr + 1, 4))
            return True, ctypes.string_at(ptr + 5, n)
        return False, ctypes.string_at(ptr + 1).decode()
    finally:
        libc.free(ptr)


def test_files(d):
    data = bytes(range(256)) * 40 + b"\0end"
    path = os.path.join(d, "f.bin")
    r = json.loads(take(lib.chat_write_file(None, b(path), data, len(data))))
    assert r["type"] == "result", r
    key, nonce = r["cryptoArgs"]["fileKey"], r["cryptoArgs"]["fileNonce"]
    assert len(base64.urlsafe_b64decode(key)) == 32 and len(base64.urlsafe_b64decode(nonce)) == 24
    assert os.path.getsize(path) == len(data) + 16  # ciphertext, then the 16-byte tag
    assert read_file(path, key, nonce) == (True, data)
    ok, err = read_file(path, nonce, key)
    assert not ok and err, err
    enc, dec = os.path.join(d, "f.enc"), os.path.join(d, "f.dec")
    r = json.loads(take(lib.chat_encrypt_file(None, b(path), b(enc))))
    assert r["type"] == "result", r
    a = r["cryptoArgs"]
    assert take(lib.chat_decrypt_file(b(enc), b(a["fileKey"]), b(a["fileNonce"]), b(dec))) == ""
    assert read_file(dec, key, nonce) == (True, data)
    r = json.loads(take(lib.chat_write_file(None, b"/nonexistent-dir/x", b"x", 1)))
    assert r["type"] == "error" and r["writeError"], r


def main():
    server = os.environ.get("SIMPLEX_SMP_SERVERS", "")
    assert server.startswith("smp://"), "set SIMPLEX_SMP_SERVERS to a relay address"
    t0 = time.time()
    d = tempfile.mkdtemp(prefix="cabi-py-")
    try:
        test_errors(d)
        test_utilities(server)
        test_files(d)
        alice, bob = Client("alice", os.path.join(d, "alice")), Client("bob", os.path.join(d, "bob"))
        link = alice.cmd("/_connect 1")["connLinkInvitation"]["connFullLink"]
        bob.cmd(f"/connect {link}")
        bob_id = alice.event("contactConnected")["contact"]["contactId"]
        bob.event("contactConnected")
        alice.cmd('/_send @%d json [{"msgContent":{"type":"text","text":"hello from Python"}}]' % bob_id)
        bob.event("newChatItems", lambda e: "hello from Python" in item_texts(e))

        # Calls from many threads at once: each thread sends and polls without crashing.
        errors = []

        def worker(c):
            try:
                for _ in range(20):
                    assert "activeUser" in json.dumps(c.cmd("/user"))
                    take(lib.chat_recv_msg_wait(c.ctrl, 0))
            except Exception as e:  # noqa: BLE001
                errors.append(e)

        threads = [threading.Thread(target=worker, args=(c,)) for c in (alice, bob) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors

        alice.close()
        bob.close()
        # Closed stores answer errorDatabase until reopened; then the chat goes on.
        r = json.loads(take(lib.chat_send_cmd(alice.ctrl, b"/user")))
        assert r["error"]["type"] == "errorDatabase", r
        assert take(lib.chat_reopen_store(alice.ctrl)) == ""
        assert "activeUser" in json.dumps(alice.cmd("/user"))
        alice.close()
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print(f"cabi_test.py: all passed ({time.time() - t0:.1f} s)")


if __name__ == "__main__":
    main()
