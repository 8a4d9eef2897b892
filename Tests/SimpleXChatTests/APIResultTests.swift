import Foundation
import Testing

@testable import SimpleXChat

/// Envelope decoding (seed 002 §2 step 6): results, errors, and answers kept as `.invalid`.
@Suite struct APIResultTests {
    @Test func decodesResultAndError() throws {
        let ok = APIResult<ChatResponse>.decode(ChatResponse.chatStarted.resultJSONString())
        guard case .result(.chatStarted) = ok else { Issue.record("\(ok)"); return }
        #expect(ok.responseType == "chatStarted")

        let err = APIResult<ChatResponse>.decode(ChatError.error(errorType: .noActiveUser).errorJSONString())
        guard case .error(.error(errorType: .noActiveUser)) = err else { Issue.record("\(err)"); return }
        #expect(throws: ChatAPIError.chat(.error(errorType: .noActiveUser))) { try err.get() }
    }

    @Test func unknownOrUndecodableAnswersStayInvalid() throws {
        // A response type this build does not know keeps its type and raw JSON.
        let unknown = #"{"result":{"type":"newerResponse","answer":42}}"#
        guard case .invalid(let type, let json) = APIResult<ChatResponse>.decode(unknown) else {
            Issue.record("expected .invalid"); return
        }
        #expect(type == "newerResponse")
        let raw = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(raw["answer"] as? Int == 42)

        // A known type with malformed fields is invalid too, not a decoding failure.
        let broken = #"{"result":{"type":"newChatItems","user":"not a user","chatItems":[]}}"#
        guard case .invalid(let t2, let j2) = APIResult<ChatResponse>.decode(broken) else {
            Issue.record("expected .invalid"); return
        }
        #expect(t2 == "newChatItems")
        #expect(String(decoding: j2, as: UTF8.self).contains("not a user"))
        #expect(throws: ChatAPIError.invalid(type: t2, json: j2)) { try APIResult<ChatResponse>.decode(broken).get() }

        // Events decode the same way; not JSON at all is invalid with the whole text kept.
        guard case .invalid("newerEvent", _) = APIResult<ChatEvent>.decode(#"{"result":{"type":"newerEvent"}}"#) else {
            Issue.record("expected .invalid event"); return
        }
        guard case .invalid("invalid", let j3) = APIResult<ChatEvent>.decode("garbage") else {
            Issue.record("expected .invalid"); return
        }
        #expect(j3 == Data("garbage".utf8))
    }
}
