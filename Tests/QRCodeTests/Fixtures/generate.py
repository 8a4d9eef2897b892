#!/usr/bin/env python3
"""Regenerates the reference symbols with the Python `qrcode` package (pip install qrcode; 8.2 used).

Each case NAME has NAME.input (the raw bytes encoded) and NAME.matrix (one line per row,
'1' dark, '0' light, no quiet zone), plus a line "NAME version level mask" in cases.txt;
blocks.txt has the block structure of all versions and levels, *.ascii qrcode's print_ascii output.
Byte mode is forced, the version and mask are Python's automatic choice. Not run by the tests.
"""
import qrcode
from qrcode.util import QRData, MODE_8BIT_BYTE
import random, os

LEVELS = {"L": qrcode.constants.ERROR_CORRECT_L, "M": qrcode.constants.ERROR_CORRECT_M,
          "Q": qrcode.constants.ERROR_CORRECT_Q, "H": qrcode.constants.ERROR_CORRECT_H}

def link(n, seed):
    rnd = random.Random(seed)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    head = "simplex:/invitation#/?v=2-7&smp=smp%3A%2F%2F"
    s = head
    while len(s) < n:
        s += rnd.choice(alphabet)
    return s[:n]

CASES = [
    ("hello-L", "Hello, world!", "L"),
    ("simplex-M", "simplex", "M"),
    ("url-M", "https://simplex.chat", "M"),
    ("text-Q", "SimpleX Chat", "Q"),
    ("text-H", "simplex.chat/contact", "H"),
    ("link140-L", link(140, 1), "L"),
    ("link200-M", link(200, 2), "M"),
    ("link300-M", link(300, 3), "M"),
    ("link600-M", link(600, 4), "M"),
    ("link900-L", link(900, 5), "L"),
    ("link1500-M", link(1500, 6), "M"),
    ("link2000-M", link(2000, 7), "M"),
    ("max-L", link(2953, 8), "L"),
    ("link2300-M", link(2300, 9), "M"),
    ("utf8-M", "Привет, SimpleX! 👋", "M"),
]

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "cases.txt"), "w") as manifest:
    for name, text, level in CASES:
        data = text.encode("utf-8")
        qr = qrcode.QRCode(error_correction=LEVELS[level], border=0)
        qr.add_data(QRData(data, mode=MODE_8BIT_BYTE))
        qr.make(fit=True)
        mask = qr.best_mask_pattern()
        qr.makeImpl(False, mask)
        with open(os.path.join(here, name + ".input"), "wb") as f:
            f.write(data)
        with open(os.path.join(here, name + ".matrix"), "w") as f:
            for row in qr.modules:
                f.write("".join("1" if m else "0" for m in row) + "\n")
        manifest.write(f"{name} {qr.version} {level} {mask}\n")
        print(name, len(data), qr.version, level, mask)

# The block structure of every version and level: "version level blocks dataCodewordsPerBlock... eccPerBlock".
from qrcode.base import rs_blocks
with open(os.path.join(here, "blocks.txt"), "w") as f:
    for version in range(1, 41):
        for level in "LMQH":
            blocks = rs_blocks(version, LEVELS[level])
            ecc = {b.total_count - b.data_count for b in blocks}
            assert len(ecc) == 1
            f.write(f"{version} {level} {len(blocks)} {' '.join(str(b.data_count) for b in blocks)} {ecc.pop()}\n")

# Python's own half-block rendering (dark modules as blocks) of two cases, quiet zone 2.
import io
for name, text, level in CASES:
    if name not in ("simplex-M", "link140-L"):
        continue
    qr = qrcode.QRCode(error_correction=LEVELS[level], border=2)
    qr.add_data(QRData(text.encode("utf-8"), mode=MODE_8BIT_BYTE))
    qr.make(fit=True)
    out = io.StringIO()
    qr.print_ascii(out=out)
    with open(os.path.join(here, name + ".ascii"), "w") as f:
        f.write(out.getvalue())
