#!/usr/bin/env python3
"""An independent implementation of SimpleX compressed chat bodies (simplexmq Compression.hs,
simplex-chat Protocol.hs `compressedBatchMsgBody_` / `parseChatMessages`), over the PyPI
`zstandard` package (its own bundled libzstd), for Tests/ChatCoreTests/ChatCompressionPeerTests.

  chat_compression_peer.py encode PARTS.json OUT   # a JSON list of strings -> 'X' body
  chat_compression_peer.py decode BODY             # 'X' body -> JSON list of strings on stdout

Format: b'X', a count byte (1-255), then per part b'0' + 1-byte length + bytes (parts of at most
180 bytes) or b'1' + 2-byte big-endian length + a zstd frame (level 3, content size recorded).
"""
import json
import struct
import sys

import zstandard

MAX_PASSTHROUGH = 180
LEVEL = 3


def encode(parts):
    out = bytearray(b"X")
    out.append(len(parts))
    for text in parts:
        data = text.encode()
        if len(data) <= MAX_PASSTHROUGH:
            out += b"0" + bytes([len(data)]) + data
        else:
            frame = zstandard.ZstdCompressor(level=LEVEL, write_content_size=True).compress(data)
            out += b"1" + struct.pack(">H", len(frame)) + frame
    return bytes(out)


def decode(body):
    if body[:1] != b"X":
        raise ValueError("not a compressed body")
    count, i, parts = body[1], 2, []
    if count == 0:
        raise ValueError("empty list")
    for _ in range(count):
        tag = body[i:i + 1]
        if tag == b"0":
            n = body[i + 1]
            data, i = body[i + 2:i + 2 + n], i + 2 + n
        elif tag == b"1":
            (n,) = struct.unpack(">H", body[i + 1:i + 3])
            frame, i = body[i + 3:i + 3 + n], i + 3 + n
            size = zstandard.frame_content_size(frame)
            if size < 0 or size > 65536:
                raise ValueError("compressed size not specified or exceeds 65536")
            data = zstandard.ZstdDecompressor().decompress(frame, max_output_size=65536)
        else:
            raise ValueError("unknown Compressed tag")
        parts.append(data.decode())
    if i != len(body):
        raise ValueError("endOfInput")
    return parts


def main():
    if sys.argv[1] == "encode":
        with open(sys.argv[2]) as f:
            parts = json.load(f)
        with open(sys.argv[3], "wb") as f:
            f.write(encode(parts))
    elif sys.argv[1] == "decode":
        with open(sys.argv[2], "rb") as f:
            print(json.dumps(decode(f.read())))
    else:
        raise SystemExit("usage: chat_compression_peer.py encode PARTS.json OUT | decode BODY")


if __name__ == "__main__":
    main()
