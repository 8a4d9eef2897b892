import Testing

@testable import ChatCore

/// The decode cache of stored JSON columns gives what decoding gives, hit or miss, and keeps
/// nothing for text that does not decode.
@Suite struct DecodedJSONCacheTests {
    @Test func hitsEqualDecoding() throws {
        let memo = DecodeMemo<Preferences>(capacity: 2)
        let texts = [#"{"fullDelete":{"allow":"no"},"voice":{"allow":"yes"}}"#, #"{"reactions":{"allow":"always"}}"#,
                     #"{"timedMessages":{"allow":"yes","ttl":86400}}"#]
        // Three texts through a memo of two: every answer, first or repeated, equals JSONDecoder's.
        for _ in 0..<3 {
            for t in texts {
                #expect(memo.decode(t) == (try ChatJSON.decode(Preferences.self, from: t)))
            }
        }
        #expect(memo.decode(texts[0])?.voice?.allow == .yes)
        #expect(memo.decode(texts[2])?.timedMessages?.ttl == 86400)
    }

    @Test func undecodableTextIsNil() {
        let memo = DecodeMemo<CIStatus>(capacity: 4)
        #expect(memo.decode("not json") == nil)
        #expect(memo.decode(#"{"type":"#) == nil)
        #expect(memo.decode(#"{"type":"noSuchStatus"}"#) == .invalid(text: "unknown status noSuchStatus"))
        #expect(memo.decode(#"{"type":"sndNew"}"#) == .sndNew)
        #expect(memo.decode(#"{"type":"rcvNew"}"#) == .rcvNew)
    }
}
