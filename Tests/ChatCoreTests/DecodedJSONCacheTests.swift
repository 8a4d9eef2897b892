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

    /// A message item's text content is remembered as it is written (`itemContentJSON`): the value
    /// kept equals what its stored JSON decodes to, whatever the text holds.
    @Test func rememberedTextContentEqualsDecoding() throws {
        let memo = DecodeMemo<CIContent>(capacity: 16)
        for text in ["hi", "", "quote \" slash / back \\ nl \n tab \t nul \u{0} ☃ 👍🏽", "\u{2028}\u{2029}<>&'"] {
            for content in [CIContent.sndMsgContent(msgContent: .text(text)), .rcvMsgContent(msgContent: .text(text))] {
                let json = String(decoding: try ChatJSON.encode(content), as: UTF8.self)
                memo.remember(json, content)
                #expect(memo.decode(json) == (try ChatJSON.decode(CIContent.self, from: json)))
            }
        }
    }

    /// Item markdown through the memo is `Markdown.parse`'s, plain text (nil) included, on a hit
    /// as on a miss.
    @Test func formattedTextEqualsParsing() {
        let cache = DecodedJSONCache()
        let texts = ["plain text", "*bold* and _italic_", "/help", "", "see https://simplex.chat", "message 1"]
        for _ in 0..<2 {
            for t in texts { #expect(cache.formattedText(t) == Markdown.parse(t), "\(t)") }
        }
        #expect(cache.formattedText("plain text") == nil)
        #expect(cache.formattedText("*bold* and _italic_") != nil)
    }

    /// A full memo turns into a previous generation: what was stored just before is still found
    /// (an item in flight is not decoded again), and a hit there comes back into the current one.
    @Test func recentEntriesSurviveATurn() {
        let memo = TextMemo<Int>(capacity: 2)
        memo.store("a", 1)
        memo.store("b", 2)
        memo.store("c", 3)
        var made = 0
        #expect(memo.value("a", orMake: { _ in made += 1; return 9 }) == 1)
        #expect(memo.value("c", orMake: { _ in made += 1; return 9 }) == 3)
        #expect(made == 0)
        memo.store("d", 4)
        memo.store("e", 5)
        memo.store("f", 6)
        #expect(memo.value("b", orMake: { _ in made += 1; return 7 }) == 7)
        #expect(made == 1)
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
