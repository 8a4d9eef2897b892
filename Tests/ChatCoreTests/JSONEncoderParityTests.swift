import Foundation
import Testing

@testable import ChatCore

/// Issue 16: `ChatJSON.encode` writes JSON with its own encoder (JSONWriterEncoder); its bytes
/// must be exactly those of Foundation's JSONEncoder with `[.sortedKeys, .withoutEscapingSlashes]`,
/// kept here only as the oracle.
@Suite struct JSONEncoderParityTests {
    /// Foundation's bytes.
    static func oracle<T: Encodable>(_ value: T) throws -> [UInt8] {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try e.encode(value))
    }

    /// Expects our bytes to equal the oracle's (or both to throw).
    static func expectSame<T: Encodable>(_ value: T, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let want = Result { try oracle(value) }
        let got = Result { try JSONWriterEncoder.encode(value) }
        switch (want, got) {
        case (.success(let w), .success(let g)):
            #expect(g == w, "\(label): ours \(String(decoding: g, as: UTF8.self)) vs JSONEncoder \(String(decoding: w, as: UTF8.self))",
                    sourceLocation: sourceLocation)
        case (.failure, .failure):
            break
        case (.success(let w), .failure(let e)):
            Issue.record("\(label): ours threw \(e), JSONEncoder gave \(String(decoding: w, as: UTF8.self))", sourceLocation: sourceLocation)
        case (.failure(let e), .success(let g)):
            Issue.record("\(label): JSONEncoder threw \(e), ours gave \(String(decoding: g, as: UTF8.self))", sourceLocation: sourceLocation)
        }
    }

    /// Decodes every sample of a list as `T` and compares both encoders on it; returns how many.
    static func compareSamples<T: Codable>(_ type: T.Type, _ samples: [String]) throws -> Int {
        for (i, json) in samples.enumerated() {
            let v = try ChatJSON.decode(T.self, from: json)
            expectSame(v, "\(T.self) sample \(i)")
        }
        return samples.count
    }

    /// Fragments of recurring values (user, profile, connection, merged preferences) written from
    /// the memo give the oracle's bytes, the first time and every time after.
    @Test func memoizedFragmentsGiveTheSameBytes() throws {
        let memo = JSONFragmentMemo()
        for round in 0..<2 {
            for (i, json) in RTSamples.events.enumerated() {
                let v = APIResult<ChatEvent>.result(try ChatJSON.decode(ChatEvent.self, from: json))
                #expect(try JSONWriterEncoder.encode(v, memo: memo) == (try Self.oracle(v)), "round \(round), event \(i)")
            }
            for (i, json) in RTSamples.responses.enumerated() {
                let v = APIResult<ChatResponse>.result(try ChatJSON.decode(ChatResponse.self, from: json))
                #expect(try JSONWriterEncoder.encode(v, memo: memo) == (try Self.oracle(v)), "round \(round), response \(i)")
            }
        }
        #expect(memo.count > 3)
    }

    /// A value that changed is encoded anew, never written from the fragment of its old form.
    @Test func changedValueIsNotWrittenFromTheMemo() throws {
        struct Event: Encodable { var user: User; var contact: Contact }
        let memo = JSONFragmentMemo()
        var e = Event(user: try ChatJSON.decode(User.self, from: Fx.user), contact: try ChatJSON.decode(Contact.self, from: Fx.contact))
        #expect(try JSONWriterEncoder.encode(e, memo: memo) == (try Self.oracle(e)))
        let kept = memo.count
        #expect(kept >= 3)
        #expect(try JSONWriterEncoder.encode(e, memo: memo) == (try Self.oracle(e)))
        #expect(memo.count == kept)
        e.user.localDisplayName = "alice2"
        e.contact.activeConn?.authErrCounter += 1
        e.contact.profile.displayName = "bob2"
        let changed = try JSONWriterEncoder.encode(e, memo: memo)
        #expect(changed == (try Self.oracle(e)))
        #expect(String(decoding: changed, as: UTF8.self).contains(#""localDisplayName":"alice2""#))
        #expect(memo.count > kept)
    }

    /// Every ChatResponse, ChatEvent, error and CIContent sample of the API round-trip tests.
    @Test func apiSamplesMatchJSONEncoder() throws {
        var n = 0
        n += try Self.compareSamples(ChatResponse.self, RTSamples.responses)
        n += try Self.compareSamples(ChatEvent.self, RTSamples.events)
        n += try Self.compareSamples(ChatError.self, RTSamples.chatErrors)
        n += try Self.compareSamples(ChatErrorType.self, RTSamples.chatErrorTypes)
        n += try Self.compareSamples(StoreError.self, RTSamples.storeErrors)
        n += try Self.compareSamples(AgentErrorType.self, RTSamples.agentErrors)
        n += try Self.compareSamples(CIContent.self, RTSamples.ciContents)
        #expect(n > 300)
    }

    /// ChatJSON.encode / string are backed by our encoder (the oracle's bytes, not merely equal JSON).
    @Test func chatJSONUsesTheWriter() throws {
        for json in RTSamples.events {
            let v = try ChatJSON.decode(ChatEvent.self, from: json)
            #expect(Array(try ChatJSON.encode(v)) == (try Self.oracle(v)))
            #expect(try ChatJSON.string(v) == String(decoding: try Self.oracle(v), as: UTF8.self))
        }
    }

    static let hostileStrings: [String] = {
        var s: [String] = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        s += ["", "\u{7F}", "\"", "\\", "/", "</script>", "a/b\\c\"d", "\u{2028}", "\u{2029}", "\u{FEFF}",
              "😀", "👍🏽", "e\u{301}", "é", "日本語", "\u{10FFFF}", "\u{0}x\u{1F}y", "tab\tnew\nline\r\u{8}\u{C}",
              String(repeating: "x\u{1}", count: 300), "http://example.com/a?b=c&d=e#f"]
        return s
    }()

    /// Strings as values, as dictionary keys and inside JSONValue trees.
    @Test func hostileStringsMatchJSONEncoder() {
        for (i, s) in Self.hostileStrings.enumerated() {
            Self.expectSame(s, "top-level string \(i)")
            Self.expectSame([s], "array string \(i)")
            Self.expectSame(JSONValue.object(["k": .string(s), s: .int(1)]), "object \(i)")
            Self.expectSame(MsgContent.text(s), "MsgContent \(i)")
        }
        var keys: [String: Int] = [:]
        for (i, s) in Self.hostileStrings.enumerated() { keys[s] = i }
        for k in ["b", "a", "B", "A", "10", "9", "_", "aa", "ab", "a b", "ä", "Z", "z", "~", "€", "𝄞", "\u{FFFF}"] {
            keys[k, default: 0] += 1
        }
        Self.expectSame(keys, "keys sorted")
        Self.expectSame([10: "a", 9: "b", -1: "c", 100: "d"], "Int-keyed dictionary")
    }

    /// Integers at their limits and doubles in every notation `description` uses.
    @Test func numbersMatchJSONEncoder() {
        let doubles: [Double] = [0, -0.0, 1, -1, 0.1, 0.5, 1e-7, 1e-6, 1e21, 1e22, 1e16, 1e15, 123456789012345678, .pi, -.pi,
                                 1.5e300, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude,
                                 Double(Int64.max), 100, 2.5e-5, 0.000001, 1234.5678]
        for d in doubles {
            Self.expectSame(d, "double \(d)")
            Self.expectSame(JSONValue.double(d), "JSONValue double \(d)")
            Self.expectSame(["d": d], "keyed double \(d)")
            Self.expectSame(Float(d), "float \(d)")
        }
        Self.expectSame(doubles, "[Double]")
        for bad in [Double.nan, .infinity, -.infinity] {
            Self.expectSame(bad, "non-conforming \(bad)")
            Self.expectSame(["x": bad], "keyed non-conforming \(bad)")
        }
        Self.expectSame([Int64.min, Int64.max, 0, -1], "Int64")
        Self.expectSame([UInt64.max, 0], "UInt64")
        Self.expectSame(Limits(), "integer limits")
        Self.expectSame(JSONValue.int(Int64.min), "JSONValue Int64.min")
        Self.expectSame([true, false], "bools")
        Self.expectSame(Decimal(string: "12345678901234567890.123"), "Decimal")
    }

    struct Limits: Encodable {
        var a = Int.min, b = Int8.min, c = Int16.min, d = Int32.min, e = Int64.max
        var f = UInt.max, g = UInt8.max, h = UInt16.max, i = UInt32.max, j = UInt64.max
        var k: Float = 0.1, l: Double = 0.1, m = Int128.min, n = UInt128.max
        var o: Int? = nil, p: String? = "p", q = true
    }

    /// Container patterns beyond synthesized Codable: containers requested twice (JSONEncoder
    /// merges them), nested and super encoders, repeated keys, nothing encoded, special types.
    @Test func containerShapesMatchJSONEncoder() {
        Self.expectSame(Shapes(), "Shapes")
        Self.expectSame([Shapes(), Shapes()], "[Shapes]")
        Self.expectSame(["s": Shapes()], "keyed Shapes")
        Self.expectSame(Flattened(), "flattened payload")
        Self.expectSame(SingleThenKeyed(), "single value then keyed")
        Self.expectSame(Nothing(), "nothing at top level throws")
        Self.expectSame([Nothing()], "nothing in array")
        Self.expectSame(["n": Nothing()], "nothing keyed")
        Self.expectSame(Specials(), "Data, URL, Date, optionals")
        Self.expectSame(Optional<Int>.none, "top-level nil")
        Self.expectSame("fragment", "top-level fragment")
        Self.expectSame(42, "top-level int")
        Self.expectSame([[1, 2], [], [3]], "nested arrays")
        Self.expectSame([String: [String: Int]](), "empty dictionary")
        Self.expectSame(JSONValue.array([.null, .bool(true), .object([:]), .array([]), .string("x")]), "JSONValue mix")
        Self.expectSame(Deep(depth: 100), "depth 100")
        Self.expectSame(Deep(depth: 600), "depth 600 throws")
    }

    struct Shapes: Encodable {
        enum K: String, CodingKey { case b, a, nested, list, sup, zed, C, dup, n }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: K.self)
            try c.encode("first", forKey: .dup)
            try c.encode(2, forKey: .b)
            var n1 = c.nestedContainer(keyedBy: K.self, forKey: .nested)
            try n1.encode(true, forKey: .zed)
            var l1 = c.nestedUnkeyedContainer(forKey: .list)
            try l1.encode(1)
            var n2 = c.nestedContainer(keyedBy: K.self, forKey: .nested)
            try n2.encode("again", forKey: .a)
            var deeper = n2.nestedUnkeyedContainer(forKey: .list)
            try deeper.encode(1.5)
            var inner = deeper.nestedContainer(keyedBy: K.self)
            try inner.encodeNil(forKey: .n)
            var l2 = c.nestedUnkeyedContainer(forKey: .list)
            try l2.encode("two")
            let sup = c.superEncoder(forKey: .sup)
            var sc = sup.container(keyedBy: K.self)
            try sc.encode("in super", forKey: .C)
            let sup2 = c.superEncoder()
            var ss = sup2.singleValueContainer()
            try ss.encode([3, 2, 1])
            try c.encode("last", forKey: .dup)
            try c.encodeIfPresent(Optional<Int>.none, forKey: .zed)
            try c.encode(Optional<Int>.none, forKey: .C)
            var u = c.nestedUnkeyedContainer(forKey: .a)
            try u.encode("x")
            let us = u.superEncoder()
            try u.encode("z")
            var usc = us.singleValueContainer()
            try usc.encode("y (super)")
            _ = u.superEncoder()
            var un = u.nestedUnkeyedContainer()
            try un.encodeNil()
        }
    }

    /// The tagged-union pattern: a type tag, then the payload encodes into the same encoder.
    struct Flattened: Encodable {
        enum K: String, CodingKey { case type }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: K.self)
            try c.encode("flat", forKey: .type)
            try Payload().encode(to: encoder)
            var again = encoder.container(keyedBy: K.self)
            try again.encode("flat2", forKey: .type)
        }
    }

    struct Payload: Encodable {
        var zz = 1, aa = "a/b", mm: [String]? = ["m"]
    }

    /// A single value (an object) is written, then a keyed container adds to that object.
    struct SingleThenKeyed: Encodable {
        enum K: String, CodingKey { case extra }
        func encode(to encoder: any Encoder) throws {
            var s = encoder.singleValueContainer()
            try s.encode(Payload())
            var c = encoder.container(keyedBy: K.self)
            try c.encode("e", forKey: .extra)
        }
    }

    struct Nothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    struct Specials: Encodable {
        var data = Data([0, 1, 2, 250, 251, 252, 253, 254, 255])
        var emptyData = Data()
        var url = URL(string: "https://example.com/a/b?c=d#e")!
        var relative = URL(string: "c/d", relativeTo: URL(string: "https://example.com/a/b"))!
        var date = Date(timeIntervalSinceReferenceDate: 123456.789)
        var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        var none: String? = nil
        var some: String? = "x"
        var nested: [String: [Int]?] = ["a": nil, "b": [1]]
        var set: [Int8] = [-128, 127]
        var strings = ["b", "a"]
    }

    struct Deep: Encodable {
        let depth: Int
        func encode(to encoder: any Encoder) throws {
            var c = encoder.unkeyedContainer()
            if depth > 0 { try c.encode(Deep(depth: depth - 1)) }
        }
    }
}
