// libFuzzer entry point for the SMP decoders: every input goes, raw and as a 16384-byte block,
// through the block, transmission, command, response, error, message-body, handshake, padding,
// base64url and server-address decoders. Decoders must throw on bad input and never trap; a
// value that decodes must also survive encode -> decode unchanged (checked below).
//
// Build and run: scripts/fuzz.sh (swift build with -sanitize=fuzzer,address, then a libFuzzer
// link). This module is an ordinary library in normal builds: nothing calls it.
import SMPProtocol
import SMPTransport
import SimplexFoundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    SMPFuzzer.raw(input)
    SMPFuzzer.asBlock(input)
    return 0
}

enum SMPFuzzer {
    /// Every decoder on the bytes as they are.
    static func raw(_ b: [UInt8]) {
        _ = try? TransportBlock.decode(b)
        transmission(b)
        command(b)
        response(b)
        errorType(b)
        rcvBody(b)
        handshakes(b)
        padding(b)
        padding(b.dropFirst(min(b.count, 3)))  // a slice whose indices do not start at 0
        text(String(decoding: b, as: UTF8.self))
    }

    /// The bytes as a block: padded with "#" (or cut) to 16384, and once more shifted into a
    /// slice whose indices do not start at 0.
    static func asBlock(_ b: [UInt8]) {
        var block = Array(b.prefix(TransportBlock.size))
        block += repeatElement(Padding.padByte, count: TransportBlock.size - block.count)
        self.block(block)
        let shifted = [0x00] + block
        self.block(shifted[1...])
        if let content = try? Padding.unpad(block) {
            var d = SMPDecoder(content)
            _ = try? SMPClientHandshake(from: &d)
            var e = SMPDecoder(content)
            _ = try? SMPServerHandshake(from: &e)
        }
        // The same bytes framed as a valid block of one transmission, to get past the block layer.
        if b.count <= TransportBlock.capacity - 2, let framed = try? TransportBlock.encode([b]) {
            self.block(framed)
        }
    }

    static func block<C: Collection>(_ block: C) where C.Element == UInt8, C.Index == Int {
        guard let ts = try? TransportBlock.decode(block) else { return }
        // decode(encode(decode(x))) == decode(x) (pad bytes are not significant).
        let again = try? TransportBlock.decode(check(try TransportBlock.encode(ts), "TransportBlock.encode"))
        require(again == ts, "TransportBlock round trip")
        for t in ts { transmission(t) }
    }

    static func transmission(_ b: [UInt8]) {
        guard let t = try? RawTransmission.smpDecode(b) else { return }
        // The transmission encoding is exact: the same bytes come back.
        require((try? t.smpEncoded()) == b, "RawTransmission round trip")
        command(t.body)
        response(t.body)
    }

    static func command(_ b: [UInt8]) {
        guard let c = try? SMPCommand.smpDecode(b) else { return }
        require((try? SMPCommand.smpDecode(check(try c.smpEncoded(), "SMPCommand.encode"))) == c, "SMPCommand round trip")
    }

    /// Strings inside BROKER errors are decoded leniently (invalid UTF-8 becomes U+FFFD), so the
    /// first re-encoding may differ; from then on the value must be stable.
    static func response(_ b: [UInt8]) {
        guard let m = try? BrokerMessage.smpDecode(b) else { return }
        guard let m2 = try? BrokerMessage.smpDecode(check(try m.smpEncoded(), "BrokerMessage.encode")) else {
            fail("BrokerMessage re-encoding does not decode")
        }
        require((try? BrokerMessage.smpDecode(check(try m2.smpEncoded(), "BrokerMessage.encode"))) == m2, "BrokerMessage round trip")
    }

    static func errorType(_ b: [UInt8]) {
        guard let e = try? ErrorType.smpDecode(b) else { return }
        guard let e2 = try? ErrorType.smpDecode(check(try e.smpEncoded(), "ErrorType.encode")) else {
            fail("ErrorType re-encoding does not decode")
        }
        require((try? ErrorType.smpDecode(check(try e2.smpEncoded(), "ErrorType.encode"))) == e2, "ErrorType round trip")
    }

    static func rcvBody(_ b: [UInt8]) {
        guard let r = try? RcvMessageBody.smpDecode(b) else { return }
        require((try? RcvMessageBody.smpDecode(check(try r.smpEncoded(), "RcvMessageBody.encode"))) == r, "RcvMessageBody round trip")
    }

    static func handshakes(_ b: [UInt8]) {
        if let h = try? SMPClientHandshake.smpDecode(b) {
            require((try? SMPClientHandshake.smpDecode(check(try h.smpEncoded(), "SMPClientHandshake.encode"))) == h,
                    "SMPClientHandshake round trip")
        }
        if let h = try? SMPServerHandshake.smpDecode(b) {
            require((try? SMPServerHandshake.smpDecode(check(try h.smpEncoded(), "SMPServerHandshake.encode"))) == h,
                    "SMPServerHandshake round trip")
        }
        if let k = try? CertChainPubKey.smpDecode(b) {
            require((try? k.smpEncoded()) == b, "CertChainPubKey round trip")
        }
        if let k = try? SignedPublicKey(der: b) {
            require(k.der == b, "SignedPublicKey round trip")
        }
        if let r = try? SMPServerHandshakeResponse.smpDecode(b) {
            require((try? SMPServerHandshakeResponse.smpDecode(check(try r.smpEncoded(), "SMPServerHandshakeResponse.encode"))) == r,
                    "SMPServerHandshakeResponse round trip")
        }
    }

    static func padding<C: Collection>(_ p: C) where C.Element == UInt8, C.Index == Int {
        guard let s = try? Padding.unpad(p) else { return }
        let again = try? Padding.unpad(check(try Padding.pad(s, to: p.count), "Padding.pad"))
        require(again == s, "Padding round trip")
    }

    static func text(_ s: String) {
        if let bytes = Base64URL.decode(s) {
            require(Base64URL.decode(Base64URL.encode(bytes)) == bytes, "Base64URL round trip")
            require(Base64URL.decode(Base64URL.encode(bytes, padded: false)) == bytes, "Base64URL unpadded round trip")
        }
        if let a = try? SMPServerAddress(parsing: s) {
            require((try? SMPServerAddress(parsing: a.description)) == a, "SMPServerAddress round trip: \(a)")
        }
    }

    /// Encoding a value that was just decoded must not fail.
    static func check<T>(_ body: @autoclosure () throws -> T, _ what: String) -> T {
        do { return try body() } catch { fail("\(what) threw \(error) for a decoded value") }
    }

    static func require(_ ok: Bool, _ what: @autoclosure () -> String) {
        if !ok { fail(what()) }
    }

    static func fail(_ what: String) -> Never {
        fatalError("SMPFuzz: \(what)")
    }
}
