#!/usr/bin/env python3
"""End-to-end tests of the simplex-chat terminal client and its WebSocket API.

Real processes on a fresh temporary HOME: people type into pseudo-terminals, a bot talks over a
real WebSocket from this (separate) process. Usage: cli_test.py <path to simplex-chat>
"""
import base64, json, os, pty, re, select, shutil, socket, struct, subprocess, sys, tempfile, time

BIN = sys.argv[1]
HOME = tempfile.mkdtemp(prefix="cli-test-")
RELAY_PORT = str(20000 + os.getpid() % 20000)
ENV = dict(os.environ, HOME=HOME)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


class Person:
    """A simplex-chat process in a pseudo-terminal."""

    def __init__(self, name, args=None, first_run_name=True):
        self.name = name
        argv = [BIN, "-d", f"{HOME}/{name}", "--relay-port", RELAY_PORT] + (args or [])
        if first_run_name:
            argv += ["--display-name", name]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(BIN, argv, ENV)
        self.buf = ""

    def type(self, line):
        os.write(self.fd, (line + "\n").encode())

    def expect(self, pattern, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = re.search(pattern, self.buf)
            if m:
                self.buf = self.buf[m.end():]
                return m
            r, _, _ = select.select([self.fd], [], [], 0.2)
            if r:
                try:
                    self.buf += os.read(self.fd, 65536).decode(errors="replace")
                except OSError:
                    break
        raise AssertionError(f"{self.name}: no {pattern!r} in {self.buf[-800:]!r}")

    def quit(self):
        try:
            self.type("/q")
            os.waitpid(self.pid, 0)
        except OSError:
            pass


class WebSocket:
    """A minimal RFC 6455 client (text frames, masking), enough for the bot API."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=20)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.s.recv(1)
        assert b" 101 " in head.split(b"\r\n")[0], head
        self.pending = []

    def send_text(self, text):
        data = text.encode()
        mask = os.urandom(4)
        hdr = bytes([0x81])
        n = len(data)
        if n < 126:
            hdr += bytes([0x80 | n])
        elif n < 65536:
            hdr += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            hdr += bytes([0x80 | 127]) + struct.pack(">Q", n)
        self.s.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _exact(self, n):
        out = b""
        while len(out) < n:
            chunk = self.s.recv(n - len(out))
            if not chunk:
                raise EOFError
            out += chunk
        return out

    def recv(self):
        b0, b1 = self._exact(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack(">H", self._exact(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", self._exact(8))[0]
        return json.loads(self._exact(n).decode())

    def call(self, corr, cmd):
        self.send_text(json.dumps({"corrId": corr, "cmd": cmd}))
        return self.wait(lambda m: m.get("corrId") == corr)["resp"]

    def wait(self, pred, timeout=20):
        for i, m in enumerate(self.pending):
            if pred(m):
                return self.pending.pop(i)
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = self.recv()
            if pred(m):
                return m
            self.pending.append(m)
        raise AssertionError("no matching WebSocket message")

    def event(self, type_):
        return self.wait(lambda m: "corrId" not in m and m["resp"].get("type") == type_)["resp"]


def link_in(text):
    m = re.search(r"(simplex:/(?:invitation|contact)#/\?\S+)", text)
    return m.group(1) if m else None


try:
    # First run asks for a profile.
    dave = Person("dave", first_run_name=False)
    dave.expect("display name: ")
    dave.type("dave")
    dave.expect(r"full name \(optional\): ")
    dave.type("Dave D")
    dave.expect("Current user: dave")
    dave.quit()

    # Invitation, messages both ways (addressed and bare lines), delivery marks.
    alice, bob = Person("alice"), Person("bob")
    alice.expect("Type /help")
    bob.expect("Type /help")
    alice.type("/c")
    inv = alice.expect(r"(simplex:/invitation#/\?\S+)").group(1)
    alice.expect("▀|▄|█")  # the link's QR code follows it
    bob.type(f"/c {inv}")
    bob.expect("confirmation sent!")
    alice.expect("bob: contact is connected")
    bob.expect("alice: contact is connected")
    alice.type("@bob hello bob")
    bob.expect("alice> hello bob")
    alice.expect("@bob ✓✓ hello bob")
    bob.type("hi alice")
    alice.expect("bob> hi alice")
    alice.type("/contacts")
    alice.expect("bob")

    # Address: carol sends a request, alice accepts with /ac.
    alice.type("/ad")
    addr = alice.expect(r"(simplex:/contact#/\?\S+)").group(1)
    carol = Person("carol")
    carol.expect("Type /help")
    carol.type(f"/c {addr}")
    carol.expect("connection request sent!")
    alice.expect("carol wants to connect to you!")
    alice.type("/ac carol")
    alice.expect("carol: contact is connected")
    carol.expect("alice: contact is connected")
    carol.type("@alice hey from carol")
    alice.expect("carol> hey from carol")

    # A group: alice invites bob and carol, who are introduced to each other.
    alice.type("/g team")
    alice.expect("group #team is created")
    alice.type("/a team bob")
    bob.expect("invites you to join the group as member")
    bob.type("/j team")
    bob.expect("#team: you joined the group")
    alice.type("/a team carol")
    carol.expect("invites you to join the group as member")
    carol.type("/j team")
    carol.expect("#team: you joined the group")
    bob.expect("#team: carol joined the group")
    carol.expect("#team: bob joined the group")
    alice.type("#team hello team")
    bob.expect("#team alice> hello team")
    carol.expect("#team alice> hello team")
    carol.type("#team hi bob")
    bob.expect("#team carol> hi bob")
    print("terminal: ok")

    # WebSocket API from this process.
    ws_port = int(RELAY_PORT) + 1
    bot = subprocess.Popen([BIN, "-d", f"{HOME}/bot", "--display-name", "bot", "--relay-port", RELAY_PORT, "-p", str(ws_port)],
                           env=ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    line = b""
    while b"WebSocket API on" not in line:
        line = bot.stdout.readline()
        if not line:
            raise AssertionError("bot exited")
    ws = WebSocket(ws_port)
    resp = ws.call("1", "/_address 1")
    check(resp["type"] == "userContactLinkCreated", f"address: {resp}")
    bot_addr = resp["connLinkContact"]["connFullLink"]
    # Malformed frames get an error and the socket stays open.
    ws.send_text("not json")
    bad = ws.wait(lambda m: m["resp"].get("type") == "chatCmdError")
    check(bad["resp"]["chatError"]["errorType"]["type"] == "commandError", f"malformed: {bad}")
    resp = ws.call("2", "/nonsense command")
    check(resp["type"] == "chatCmdError", f"bad command: {resp}")
    carol.type(f"/c {bot_addr}")
    req = ws.event("receivedContactRequest")
    rid = req["contactRequest"]["contactRequestId"]
    resp = ws.call("3", f"/_accept {rid}")
    check(resp["type"] == "acceptingContactRequest", f"accept: {resp}")
    conn = ws.event("contactConnected")
    cid = conn["contact"]["contactId"]
    carol.expect("bot: contact is connected")
    resp = ws.call("4", f'/_send @{cid} json [{{"msgContent":{{"type":"text","text":"hello from the bot"}}}}]')
    check(resp["type"] == "newChatItems", f"send: {resp}")
    carol.expect("bot> hello from the bot")
    carol.type("@bot thanks bot")
    got = ws.event("newChatItems")
    check(got["chatItems"][0]["chatItem"]["meta"]["itemText"] == "thanks bot", f"received: {got}")
    print("websocket: ok")
    bot.terminate()
    for p in (alice, bob, carol):
        p.quit()
except AssertionError as e:
    failures.append(str(e))
    print("FAIL:", e)
finally:
    shutil.rmtree(HOME, ignore_errors=True)

sys.exit(1 if failures else 0)
