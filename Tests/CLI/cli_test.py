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

    def __init__(self, name, args=None, first_run_name=True, home=None, port=None):
        self.name = name
        home = home or HOME
        argv = [BIN, "-d", f"{home}/{name}", "--relay-port", port or RELAY_PORT] + (args or [])
        if first_run_name:
            argv += ["--display-name", name]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(BIN, argv, dict(os.environ, HOME=home, SWIFT_BACKTRACE="enable=yes,interactive=no"))
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
        """Types /q and waits for the exit, reading the terminal meanwhile: a pty nobody reads
        fills up, and then the client's next write (and its input thread) blocks, as it would in a
        real terminal whose reader stopped."""
        try:
            self.type("/q")
            deadline = time.time() + 10
            while time.time() < deadline:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
                if pid != 0:
                    # A crash on the way out is a failure too; the whole terminal output carries
                    # the runtime's backtrace.
                    # The backtrace from the crash report's start: the crashed thread comes first.
                    crash = self.buf.find("Program crashed")
                    shown = self.buf[crash:crash + 12000] if crash >= 0 else self.buf[-12000:]
                    check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
                          f"{self.name}: /q ended with status {status}; output since: {shown!r}")
                    return
                r, _, _ = select.select([self.fd], [], [], 0.1)
                if r:
                    try:
                        self.buf += os.read(self.fd, 65536).decode(errors="replace")
                    except OSError:
                        pass
            check(False, f"{self.name}: still running 10 s after /q; output since: {self.buf[-12000:]!r}")
            os.kill(self.pid, 9)
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
            b = self.s.recv(1)
            if not b:
                raise EOFError(f"connection closed during the WebSocket handshake: {head!r}")
            head += b
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


def start_ws_process(argv, home, stdin=subprocess.DEVNULL):
    """Starts simplex-chat with -p; returns (process, first lines) once the API listens."""
    p = subprocess.Popen(argv, env=dict(os.environ, HOME=home), stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    seen = b""
    deadline = time.time() + 60
    while b"WebSocket API on" not in seen:
        line = p.stdout.readline()
        if not line or time.time() > deadline:
            raise AssertionError(f"no WebSocket API: {seen.decode(errors='replace')}")
        seen += line
    return p, seen.decode(errors="replace")


def process_report(p):
    """Exit status and the last output of a process started by start_ws_process (stopped first if
    it still runs): what a failed connection to it is reported with."""
    running = p.poll() is None
    if running:
        p.terminate()
    try:
        out, _ = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    text = (out or b"").decode(errors="replace")
    crash = text.find("Program crashed")
    tail = text[crash:crash + 4000] if crash >= 0 else text[-3000:]
    return f"process {'was running' if running else f'had exited ({p.returncode})'}; output: {tail}"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run_deployment_tests():
    home = tempfile.mkdtemp(prefix="cli-deploy-")
    relay = str(free_port())
    try:
        # Five clients started at the same moment on a fresh HOME: one relay, one identity.
        crowd = [Person(f"p{i}", home=home, port=relay) for i in range(5)]
        if crowd:
            addrs, owners = [], []
            for i, p in enumerate(crowd):
                m = p.expect(r"(Local relay|Using the local relay already running): (smp://\S+)", timeout=30)
                addrs.append(m.group(2))
                if m.group(1) == "Local relay":
                    owners.append(i)
                p.expect("Type /help")
            check(len(set(addrs)) == 1, f"one relay identity for all: {addrs}")
            check(len(owners) == 1, f"one client runs the relay: {owners}")
            # Two clients that do not run the relay connect and chat.
            a, b = [crowd[i] for i in range(5) if i not in owners][:2]
            a.type("/c")
            inv = a.expect(r"(simplex:/invitation#/\?\S+)").group(1)
            b.type(f"/c {inv}")
            a.expect(f"{b.name}: contact is connected", timeout=40)
            b.expect(f"{a.name}: contact is connected", timeout=40)
            b.type(f"@{a.name} hello from the crowd")
            a.expect(f"{b.name}> hello from the crowd")
            # The owner quits: a waiting client takes the relay over (same identity and queues),
            # and the others reconnect to it.
            for i in owners:
                crowd[i].quit()
            b.type(f"@{a.name} still here after the owner left")
            a.expect(f"{b.name}> still here after the owner left", timeout=60)
            # /smp test: the relay passes; a wrong identity fails at connect.
            a.type(f"/smp test {addrs[0]}")
            a.expect("SMP server test passed", timeout=30)
            other = re.sub(r"smp://[^@]+@", "smp://" + base64.urlsafe_b64encode(bytes(32)).decode() + "@", addrs[0])
            a.type(f"/smp test {other}")
            a.expect("SMP server test failed at connect", timeout=30)
            for i, p in enumerate(crowd):
                if i not in owners:
                    p.quit()
            print("simultaneous start: ok")

        # -p with piped stdin and no profile: the display name is read from stdin.
        port = free_port()
        p = subprocess.Popen([BIN, "-d", f"{home}/piped", "--relay-port", relay, "-p", str(port)], env=dict(os.environ, HOME=home),
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        p.stdin.write(b"piper\n")
        p.stdin.flush()
        seen = b""
        while b"WebSocket API on" not in seen:
            line = p.stdout.readline()
            if not line:
                raise AssertionError(f"piped first run exited: {seen}")
            seen += line
        ws = WebSocket(port)
        resp = ws.call("1", "/user")
        check(resp["type"] == "activeUser" and resp["user"]["localDisplayName"] == "piper", f"piped profile: {resp}")
        p.terminate()
        p.wait()
        print("piped first run: ok")

        # A bot daemon's first-run line as published bot frameworks write it (stdin an open pipe).
        port = free_port()
        files = f"{home}/botfiles"
        argv = [BIN, "-p", str(port), "-d", f"{home}/daemon", "-y", "--mute", "--files-folder", files,
                "--auto-accept-files", "1000000", "--create-bot-display-name", "helper", "--create-bot-allow-files",
                "--relay-port", relay]
        p, _ = start_ws_process(argv, home, stdin=subprocess.PIPE)
        ws = WebSocket(port)
        resp = ws.call("1", "/user")
        prof = resp["user"]["profile"]
        check(prof.get("peerType") == "bot", f"bot profile: {prof}")
        check(prof["displayName"] == "helper", f"bot name: {prof}")
        check(os.path.isdir(files), "files folder created")
        p.terminate()
        p.wait()
        # --create-bot-display-name without --create-bot-allow-files: files prohibited in the profile.
        port = free_port()
        p, _ = start_ws_process([BIN, "-p", str(port), "-d", f"{home}/nofiles", "--create-bot-display-name", "strict",
                                 "--relay-port", relay], home)
        ws = WebSocket(port)
        prof = ws.call("1", "/user")["user"]["profile"]
        check(prof.get("peerType") == "bot" and prof.get("preferences", {}).get("files", {}).get("allow") == "no",
              f"bot without files: {prof}")
        p.terminate()
        p.wait()
        r = subprocess.run([BIN, "-d", f"{home}/x", "--create-bot-allow-files", "-p", "1"], env=dict(os.environ, HOME=home),
                           capture_output=True, timeout=30)
        check(r.returncode != 0 and b"requires --create-bot-display-name" in r.stdout + r.stderr, f"allow-files alone: {r}")
        print("bot daemon: ok")

        # -m: maintenance mode, the chat waits for /_start over the WebSocket.
        port = free_port()
        p, _ = start_ws_process([BIN, "-p", str(port), "-d", f"{home}/daemon", "-m", "--relay-port", relay], home)
        ws = WebSocket(port)
        resp = ws.call("1", "/_address 1")
        check(resp["type"] == "chatCmdError", f"not started in maintenance mode: {resp}")
        resp = ws.call("2", "/_start")
        check(resp["type"] in ("chatStarted", "chatRunning"), f"/_start: {resp}")
        resp = ws.call("3", "/_address 1")
        check(resp["type"] == "userContactLinkCreated", f"address after start: {str(resp)[:300]}")
        p.terminate()
        p.wait()
        print("maintenance: ok")

        # --chat-server-host beyond loopback: refused without a token; with one, only clients presenting it.
        r = subprocess.run([BIN, "-d", f"{home}/daemon", "-p", str(free_port()), "--chat-server-host", "0.0.0.0"],
                           env=dict(os.environ, HOME=home), capture_output=True, timeout=30)
        check(r.returncode != 0 and b"--chat-server-token" in r.stdout + r.stderr, f"host without token: {r}")
        port = free_port()
        p, _ = start_ws_process([BIN, "-d", f"{home}/daemon", "-p", str(port), "--chat-server-host", "0.0.0.0",
                                 "--chat-server-token", "s3cret", "--relay-port", relay], home)
        try:
            WebSocket(port)
            check(False, "upgrade without token accepted")
        except AssertionError as e:
            check("401" in str(e), f"no token: {e}")
        except EOFError as e:
            # Seen once in ~100 runs (session 19), not reproduced in 230 runs of this step alone.
            raise AssertionError(f"no token: {e}; {process_report(p)}")
        ws = TokenWebSocket(port, "s3cret")
        resp = ws.call("1", "/user")
        check(resp["type"] == "activeUser", f"with token: {resp}")
        try:
            TokenWebSocket(port, "wrong")
            check(False, "wrong token accepted")
        except AssertionError:
            pass
        p.terminate()
        p.wait()
        print("token: ok")

        # A damaged agent database: the failed start is reported and the process exits non-zero.
        with open(f"{home}/daemon_agent.db", "r+b") as f:
            f.seek(0)
            f.write(b"this is not a database at all" * 10)
        for suffix in ("-wal", "-shm"):
            try:
                os.remove(f"{home}/daemon_agent.db{suffix}")
            except FileNotFoundError:
                pass
        r = subprocess.run([BIN, "-d", f"{home}/daemon", "-p", str(free_port()), "--relay-port", relay],
                           env=dict(os.environ, HOME=home), capture_output=True, timeout=60)
        out = (r.stdout + r.stderr).decode(errors="replace")
        check(r.returncode != 0, f"damaged database must fail: {out}")
        check("WebSocket API on" not in out and "rror" in out, f"damaged database message: {out}")
        print("damaged database: ok")
    finally:
        shutil.rmtree(home, ignore_errors=True)


class TokenWebSocket(WebSocket):
    """The same client, presenting a token on the upgrade request."""

    def __init__(self, port, token):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=20)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        f"Authorization: Bearer {token}\r\n"
                        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            c = self.s.recv(1)
            if not c:
                break
            head += c
        assert b" 101 " in head.split(b"\r\n")[0], head
        self.pending = []


def run_file_tests():
    """Files over a real xftp-server process: /f, the offer with its size, /fr with the progress
    bar, completion and the same bytes, /fs."""
    xbin = os.path.join(os.path.dirname(BIN), "xftp-server")
    data = f"{HOME}/xftp"
    port = free_port()
    out = subprocess.run([xbin, "init", "--data", data + "/data", "--path", data + "/files", "--quota", "100mb", "--port", str(port)],
                         capture_output=True, text=True, env=ENV).stdout
    addr = re.search(r"Server address: (\S+)", out).group(1)
    srv = subprocess.Popen([xbin, "start", "--data", data + "/data"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    try:
        deadline = time.time() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline:
                    raise AssertionError("xftp-server does not listen")
                time.sleep(0.2)
        folders = {n: f"{HOME}/{n}-files" for n in ("fa", "fb")}
        for f in folders.values():
            os.makedirs(f, exist_ok=True)
        fa = Person("fa", args=["--xftp-server", addr, "--files-folder", folders["fa"]])
        fb = Person("fb", args=["--xftp-server", addr, "--files-folder", folders["fb"]])
        fa.expect("Type /help")
        fb.expect("Type /help")
        fa.type("/c")
        inv = fa.expect(r"(simplex:/invitation#/\?\S+)").group(1)
        fb.type(f"/c {inv}")
        fa.expect("fb: contact is connected")
        fb.expect("fa: contact is connected")
        payload = os.urandom(1_500_000)
        with open(folders["fa"] + "/report.bin", "wb") as f:
            f.write(payload)
        fa.type("/f @fb report.bin")
        fa.expect(r"use /fc \d+ to cancel sending")
        m = fb.expect(r"sends file report\.bin \(1\.4 MiB / 1500000 bytes\)\s+use /fr (\d+) ")
        fid = m.group(1)
        fb.type(f"/fr {fid}")
        fb.expect(rf"saving file {fid} \(report\.bin\)")
        fb.expect(r"\[#*-*\] \d+%", timeout=60)  # the progress bar
        fb.expect(rf"completed receiving file {fid} \(report\.bin\)", timeout=60)
        fa.expect(r"completed uploading file \d+ \(report\.bin\)", timeout=60)
        with open(folders["fb"] + "/report.bin", "rb") as f:
            check(f.read() == payload, "the received file has the sent bytes")
        fb.type(f"/fs {fid}")
        fb.expect(rf"file {fid} \(report\.bin\): complete")
        fb.type("/help files")
        fb.expect("File transfer commands:")
        fa.quit()
        fb.quit()
        print("files: ok")
    finally:
        srv.terminate()
        srv.wait()


def link_in(text):
    m = re.search(r"(simplex:/(?:invitation|contact)#/\?\S+)", text)
    return m.group(1) if m else None


try:
    # First run asks for a profile.
    dave = Person("dave", first_run_name=False)
    dave.expect("display name: ")
    dave.type("dave")
    dave.expect("Current user: dave")
    dave.type("")  # Enter on an empty line does nothing
    dave.type("/version")
    dave.expect(r"SimpleX Chat v\d")
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
    # API commands typed at the terminal answer with a readable view, as SimpleX's CLI does.
    alice.type("/_get chats 1")
    m = alice.expect(r"@bob[^\r\n]*hi alice")
    check("{" not in m.group(0), f"/_get chats shows a view, not JSON: {m.group(0)!r}")
    alice.type("/_contacts 1")
    alice.expect(r"bob\r?\n")
    check('"type"' not in alice.buf, f"/_contacts shows a view: {alice.buf[-300:]!r}")

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
    # The embedded XFTP server runs beside the relay (port + 1000): TLS with ALPN xftp/1.
    xftp_port = int(RELAY_PORT) + 1000 if int(RELAY_PORT) + 1000 <= 65535 else int(RELAY_PORT) - 1000
    r = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{xftp_port}", "-alpn", "xftp/1"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=20)
    check("ALPN protocol: xftp/1" in r.stdout, f"embedded XFTP server answers TLS with ALPN xftp/1: {r.stdout[-400:]} {r.stderr[-200:]}")
    print("terminal: ok")

    # A file with no set-up: the embedded relay's XFTP server carries it.
    with open(f"{HOME}/hello.txt", "w") as f:
        f.write("hello file")
    alice.type(f"/f @bob {HOME}/hello.txt")
    m = bob.expect(r"sends file hello\.txt \(10 bytes / 10 bytes\)\s+use /fr (\d+) ")
    os.makedirs(f"{HOME}/bob-dl", exist_ok=True)
    bob.type(f"/fr {m.group(1)} {HOME}/bob-dl")
    bob.expect(r"completed receiving file \d+ \(hello\.txt\)", timeout=60)
    with open(f"{HOME}/bob-dl/hello.txt") as f:
        check(f.read() == "hello file", "a file over the embedded XFTP server")
    print("embedded files: ok")

    # SimpleX CLI commands by habit.
    alice.type("/p")
    alice.expect("user profile: alice")
    alice.type("/gs")
    alice.expect("#team")
    alice.type("/sa")
    alice.expect(r"Your contact address:\s+simplex:/contact#")
    alice.type("/help groups")
    alice.expect("Group management commands:")
    alice.type("/help address")
    alice.expect("Your contact address commands:")
    alice.type("/markdown")
    alice.expect(r"\*bold\*")
    alice.type("/welcome")
    alice.expect("Welcome alice!")
    alice.type("/users")  # the core's own syntax, forwarded
    alice.expect(r"alice \(active\)")
    alice.type("/user")
    alice.expect("user profile: alice")
    alice.type("/nonsense")
    alice.expect("bad chat command")
    alice.type("/rm team carol")
    alice.expect("#team: you removed carol from the group")
    carol.expect("removed you from the group")
    alice.type("/g temp")
    alice.expect("group #temp is created")
    alice.type("/d #temp")
    alice.expect("#temp: you deleted the group")
    alice.type("/delete carol")
    alice.expect("carol: contact is deleted")
    # Security codes: both sides see the same code; a wrong one does not verify, the right one does.
    alice.type("/code @bob")
    code = alice.expect(r"bob security code:\s*([0-9][0-9 ]*[0-9])").group(1)
    bob.type("/code @alice")
    check(bob.expect(r"alice security code:\s*([0-9][0-9 ]*[0-9])").group(1) == code, "both sides see the same security code")
    bob.type("/verify @alice 12345")
    bob.expect("connection not verified, current code is")
    bob.type(f"/verify @alice {code}")
    bob.expect("connection verified")
    # Re-synchronizing encryption (which resets Bob's verification) and changing the receiving address, by name.
    alice.type("/sync @bob force=on")
    alice.expect("bob: connection synchronization started")
    bob.expect("alice: security code changed")
    bob.expect("alice: connection synchronized")
    alice.expect("bob: connection synchronized")
    alice.type("@bob after sync")
    bob.expect("alice> after sync")
    alice.type("/switch @bob")
    alice.expect("bob: you started changing address")
    alice.type("@bob after switch")
    bob.expect("alice> after switch")
    alice.type("/p alicia Alice A")
    alice.expect("user profile is changed to alicia")
    alice.type("/p")
    alice.expect(r"user profile: alicia \(Alice A\)")
    print("cli commands: ok")
    run_file_tests()

    # WebSocket API from this process.
    ws_port = free_port()
    bot = subprocess.Popen([BIN, "-d", f"{HOME}/bot", "--display-name", "bot", "--relay-port", RELAY_PORT, "-p", str(ws_port)],
                           env=ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    line = b""
    while b"WebSocket API on" not in line:
        line = bot.stdout.readline()
        if not line:
            raise AssertionError("bot exited")
    ws = WebSocket(ws_port)
    resp = ws.call("1", "/address")  # SimpleX's bot clients send the short forms over the WebSocket
    check(resp["type"] == "userContactLinkCreated", f"address: {resp}")
    bot_addr = resp["connLinkContact"]["connFullLink"]
    resp = ws.call("1a", "/show_address")
    check(resp["type"] == "userContactLink", f"show address: {str(resp)[:300]}")
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
    # The new chat's own items (banner, e2e notice, features) come as newChatItems first.
    got = ws.wait(lambda m: "corrId" not in m and m["resp"].get("type") == "newChatItems"
                  and m["resp"]["chatItems"][0]["chatItem"]["content"]["type"] == "rcvMsgContent")["resp"]
    check(got["chatItems"][0]["chatItem"]["meta"]["itemText"] == "thanks bot", f"received: {got}")
    # A long command (over NIO's default 16 KB frame) is accepted; one over the cap gets an error.
    long_text = "x" * 100_000
    resp = ws.call("5", f'/_send @{cid} json [{{"msgContent":{{"type":"text","text":"{long_text[:10000]}"}}}}]')
    check(resp["type"] == "newChatItems", f"long send: {str(resp)[:300]}")
    resp = ws.call("6", "/_get chats 1 pcc=on " + long_text)
    check(resp["type"] == "chatCmdError", f"long bad command: {str(resp)[:300]}")
    ws.send_text(json.dumps({"corrId": "7", "cmd": "x" * (9 << 20)}))
    big = ws.wait(lambda m: m["resp"].get("type") == "chatCmdError" and "too large" in json.dumps(m))
    check("corrId" not in big or big["corrId"] is None, f"oversized: {str(big)[:300]}")
    resp = ws.call("8", "/user")
    check(resp["type"] == "activeUser", f"socket usable after oversized message: {str(resp)[:300]}")
    print("websocket: ok")
    bot.terminate()
    for p in (alice, bob, carol):
        p.quit()
    run_deployment_tests()
except AssertionError as e:
    failures.append(str(e))
    print("FAIL:", e)
finally:
    shutil.rmtree(HOME, ignore_errors=True)

sys.exit(1 if failures else 0)
