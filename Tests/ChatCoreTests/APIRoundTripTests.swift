import Foundation
import Testing

@testable import ChatCore

/// Issue 14: every case of ChatResponse, ChatEvent, ChatError, ChatErrorType, StoreError,
/// AgentErrorType and CIContent round-trips through a sample in simplex-chat's JSON shape
/// (TYPES.md, Controller.hs, CIContent.hs). A case added without a sample fails twice over: the
/// exhaustive `name` switches below stop compiling, and the check of the enum's declared cases
/// (read from its source file) names the case that no sample reaches.
@Suite struct APIRoundTripTests {
    /// One enum under test: its samples, how to name a decoded value, and where it is declared.
    struct Subject: Sendable, CustomTestStringConvertible {
        let enumName: String
        let sourceFile: String
        let samples: [String]
        /// Round-trips every sample; see `RoundTrip`.
        let run: @Sendable ([String]) -> RoundTrip

        init<T: Codable & Equatable & Sendable>(
            _ type: T.Type, file: String, samples: [String], name: @escaping @Sendable (T) -> String?
        ) {
            enumName = String(describing: T.self)
            sourceFile = file
            self.samples = samples
            run = { RoundTrip.run(T.self, $0, name: name) }
        }

        var testDescription: String { enumName }
    }

    static let subjects: [Subject] = [
        Subject(ChatResponse.self, file: "ChatResponse.swift", samples: RTSamples.responses, name: CaseNames.name),
        Subject(ChatEvent.self, file: "ChatEvent.swift", samples: RTSamples.events, name: CaseNames.name),
        Subject(ChatError.self, file: "ChatError.swift", samples: RTSamples.chatErrors, name: CaseNames.name),
        Subject(ChatErrorType.self, file: "ChatErrorType.swift", samples: RTSamples.chatErrorTypes, name: CaseNames.name),
        Subject(StoreError.self, file: "StoreError.swift", samples: RTSamples.storeErrors, name: CaseNames.name),
        Subject(AgentErrorType.self, file: "AgentErrorType.swift", samples: RTSamples.agentErrors, name: CaseNames.name),
        Subject(CIContent.self, file: "CIContent.swift", samples: RTSamples.ciContents, name: CaseNames.name),
    ]

    /// Each sample decodes to a known case, re-encodes to the same JSON object and decodes
    /// again to an equal value; together the samples reach every declared case but `unknown`.
    @Test(arguments: subjects)
    func everyCaseRoundTrips(_ s: Subject) throws {
        let result = s.run(s.samples)
        for failure in result.failures {
            Issue.record("\(s.enumName): \(failure)")
        }
        let declared = try DeclaredCases.read(enum: s.enumName, file: s.sourceFile)
        #expect(!declared.isEmpty, "\(s.enumName): no cases found in \(s.sourceFile)")
        let expected = Set(declared).subtracting(["unknown"])
        let missing = expected.subtracting(result.reached).sorted()
        let undeclared = result.reached.subtracting(expected).sorted()
        #expect(missing.isEmpty, "\(s.enumName): no round-tripping sample for \(missing.joined(separator: ", "))")
        #expect(undeclared.isEmpty, "\(s.enumName): named in the test but not declared: \(undeclared.joined(separator: ", "))")
    }

    /// The coverage check can fail: dropping any one sample of a case that has a single sample
    /// leaves exactly that case missing.
    @Test(arguments: subjects)
    func droppingASampleIsDetected(_ s: Subject) throws {
        let full = s.run(s.samples)
        #expect(full.failures.isEmpty)
        var perCase: [String: [Int]] = [:]
        for (i, n) in full.passed.enumerated() {
            if let n { perCase[n, default: []].append(i) }
        }
        let singles = perCase.filter { $0.value.count == 1 }.sorted { $0.key < $1.key }
        guard let (first, firstIndex) = singles.first.map({ ($0.key, $0.value[0]) }) else {
            Issue.record("\(s.enumName): no case with a single sample")
            return
        }
        let declared = Set(try DeclaredCases.read(enum: s.enumName, file: s.sourceFile)).subtracting(["unknown"])
        // The whole check run again without one sample.
        var fewer = s.samples
        fewer.remove(at: firstIndex)
        let rerun = declared.subtracting(s.run(fewer).reached)
        #expect(rerun == [first], "\(s.enumName): without the \(first) sample, missing = \(rerun.sorted())")
        // And for every other single-sample case, from the per-sample results (samples are independent).
        for (name, idx) in singles {
            var passed = full.passed
            passed.remove(at: idx[0])
            let missing = declared.subtracting(passed.compactMap { $0 })
            #expect(missing == [name], "\(s.enumName): without the \(name) sample, missing = \(missing.sorted())")
        }
    }

    /// A sample of a kind this version does not know decodes as `unknown` and is reported,
    /// so a sample with a mistyped tag cannot pass as coverage.
    @Test func unknownTagIsReportedNotCounted() {
        let r = RoundTrip.run(ChatResponse.self, [#"{"type":"noSuchResponse","user":1}"#], name: CaseNames.name)
        #expect(r.reached.isEmpty)
        #expect(r.failures.count == 1)
        #expect(r.failures.first?.contains("unknown") == true)
        let c = RoundTrip.run(CIContent.self, [#"{"type":"rcvDirectSimpleE2E"}"#], name: CaseNames.name)
        #expect(c.reached.isEmpty && c.failures.count == 1)
    }

    /// A sample the encoder changes is reported with the differing paths.
    @Test func changedJSONIsReported() {
        // A member the type does not have is dropped on re-encoding.
        let r = RoundTrip.run(
            ChatResponse.self,
            [#"{"type":"leftMemberUser","user":\#(Fx.user),"groupInfo":\#(Fx.groupInfo),"extra":1}"#], name: CaseNames.name)
        #expect(r.failures.count == 1)
        #expect(r.failures.first?.contains("extra") == true)
    }

    /// The source reader: cases at the enum's top level only, several per line, backticked
    /// names; cases of nested switches and other enums in the file are not taken.
    @Test func declaredCasesParser() throws {
        let text = """
            /// A doc comment with { braces } and case words: case notACase
            public enum Sample: Codable {
                case a(x: Int, y: [String: Int])
                case b, c
                case `internal`(e: String)
                /// doc
                case d(z: Int = 1)
                case unknown(JSONValue)

                public init(from decoder: any Decoder) throws {
                    switch 1 {
                    case 1: self = .b
                    default: self = .c
                    }
                }
                enum Inner { case inner }
            }
            public enum SampleTwo { case e }
            """
        #expect(try DeclaredCases.parse(enum: "Sample", text: text) == ["a", "b", "c", "internal", "d", "unknown"])
        #expect(try DeclaredCases.parse(enum: "SampleTwo", text: text) == ["e"])
        #expect(throws: (any Error).self) { try DeclaredCases.parse(enum: "Missing", text: text) }
    }
}

/// The outcome of round-tripping a list of samples.
struct RoundTrip: Sendable {
    /// Per sample, the case it round-tripped as (nil when it failed or decoded as `unknown`).
    var passed: [String?] = []
    var failures: [String] = []
    /// Case names reached by samples that round-tripped.
    var reached: Set<String> { Set(passed.compactMap { $0 }) }

    static func run<T: Codable & Equatable>(_ type: T.Type, _ samples: [String], name: (T) -> String?) -> RoundTrip {
        var r = RoundTrip()
        for json in samples {
            let (n, failure) = check(T.self, json, name: name)
            r.passed.append(failure == nil ? n : nil)
            if let failure { r.failures.append(failure) }
        }
        return r
    }

    /// The case a sample decodes as, and why it does not round-trip (nil when it does).
    private static func check<T: Codable & Equatable>(_ type: T.Type, _ json: String, name: (T) -> String?) -> (String?, String?) {
        let label = tag(of: json)
        let value: T
        do { value = try ChatJSON.decode(T.self, from: json) } catch {
            return (nil, "sample \(label) does not decode: \(error)")
        }
        guard let n = name(value) else {
            return (nil, "sample \(label) decodes as unknown (no case for its tag)")
        }
        do {
            let out = try ChatJSON.string(value)
            if try canonicalJSON(out) != canonicalJSON(json) {
                let diffs = try JSONDiff.paths(json, out)
                return (n, "\(n): re-encoded JSON differs at \(diffs.isEmpty ? "scalar types" : diffs.joined(separator: ", "))")
            }
            let again = try ChatJSON.decode(T.self, from: out)
            guard again == value, name(again) == n else {
                return (n, "\(n): decoding the re-encoded JSON gives another value")
            }
            return (n, nil)
        } catch {
            return (n, "\(n): \(error)")
        }
    }

    /// The sample's `"type"`, to name it in failures.
    static func tag(of json: String) -> String {
        let obj = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return (obj?["type"] as? String).map { "\"\($0)\"" } ?? String(json.prefix(40))
    }
}

/// Where two JSON texts differ, as paths (`.a.b[2]`), to make a failing sample easy to fix.
enum JSONDiff {
    static func paths(_ a: String, _ b: String) throws -> [String] {
        let x = try JSONSerialization.jsonObject(with: Data(a.utf8), options: [.fragmentsAllowed])
        let y = try JSONSerialization.jsonObject(with: Data(b.utf8), options: [.fragmentsAllowed])
        var out: [String] = []
        diff(x, y, "", &out)
        return out
    }

    private static func scalar(_ v: Any) -> String {
        let data = try? JSONSerialization.data(withJSONObject: v, options: [.fragmentsAllowed])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "\(v)"
    }

    private static func diff(_ x: Any, _ y: Any, _ path: String, _ out: inout [String]) {
        switch (x, y) {
        case let (dx as [String: Any], dy as [String: Any]):
            for k in Set(dx.keys).union(dy.keys).sorted() {
                switch (dx[k], dy[k]) {
                case let (vx?, vy?): diff(vx, vy, path + "." + k, &out)
                case (_?, nil): out.append("\(path).\(k) (dropped)")
                case (nil, _?): out.append("\(path).\(k) (added)")
                case (nil, nil): break
                }
            }
        case let (ax as [Any], ay as [Any]):
            if ax.count != ay.count {
                out.append("\(path) (\(ax.count) vs \(ay.count) elements)")
                return
            }
            for (i, (vx, vy)) in zip(ax, ay).enumerated() { diff(vx, vy, "\(path)[\(i)]", &out) }
        default:
            let (sx, sy) = (scalar(x), scalar(y))
            if sx != sy { out.append("\(path.isEmpty ? "." : path) (\(sx) vs \(sy))") }
        }
    }
}

/// The cases an enum declares, read from its source file, so coverage follows the code.
enum DeclaredCases {
    struct NotFound: Error, CustomStringConvertible {
        let description: String
    }

    static func read(enum name: String, file: String) throws -> [String] {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // ChatCoreTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
            .appendingPathComponent("Sources/ChatCore/API")
            .appendingPathComponent(file)
        let text = try String(contentsOf: url, encoding: .utf8)
        return try parse(enum: name, text: text)
    }

    /// The names of `case` declarations directly inside `enum <name> ... { }` (brace depth 1),
    /// in order. Comment lines are skipped; braces are counted outside string literals.
    static func parse(enum name: String, text: String) throws -> [String] {
        let lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { isHeader($0, name) }) else {
            throw NotFound(description: "no `enum \(name)` declaration")
        }
        var depth = 0
        var cases: [String] = []
        for line in lines[start...] {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("//") { continue }
            // A one-line enum (`enum X { case a }`) has its cases after the opening brace.
            let (opened, body) = depth == 0 ? splitAtFirstBrace(t) : (false, t)
            if depth == 0 {
                guard opened else { continue }
                depth = 1
            }
            if depth == 1, body.hasPrefix("case ") {
                cases += caseNames(in: String(body.dropFirst(5)))
            }
            depth += braceBalance(body)
            if depth <= 0 { break }
        }
        return cases
    }

    private static func isHeader(_ line: String, _ name: String) -> Bool {
        var words = line.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true)
        while let w = words.first, ["public", "internal", "private", "fileprivate", "indirect", "package"].contains(String(w)) {
            words.removeFirst()
        }
        guard words.count >= 2, words[0] == "enum" else { return false }
        let declared = words[1].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return declared == name
    }

    /// Whether the line opens a brace, and what follows the first `{`.
    private static func splitAtFirstBrace(_ line: String) -> (Bool, String) {
        guard let i = line.firstIndex(of: "{") else { return (false, "") }
        return (true, line[line.index(after: i)...].trimmingCharacters(in: .whitespaces))
    }

    /// `a(x: Int), b, `c`` -> ["a", "b", "c"]: names of a case list, split at top-level commas.
    private static func caseNames(in list: String) -> [String] {
        var names: [String] = []
        var nesting = 0
        var current = ""
        for ch in list {
            switch ch {
            case "(", "[", "<": nesting += 1
            case ")", "]", ">": nesting -= 1
            case "," where nesting == 0:
                names.append(current)
                current = ""
                continue
            case "{" where nesting == 0, "}" where nesting == 0:
                // `enum X { case a }`: stop at the closing brace.
                if !current.isEmpty { names.append(current) }
                return names.compactMap(identifier)
            default: break
            }
            if nesting == 0 { current.append(ch) }
        }
        names.append(current)
        return names.compactMap(identifier)
    }

    private static func identifier(_ s: String) -> String? {
        let t = s.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "")
        let name = t.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }

    /// `{` minus `}` outside string literals (a `"` toggles; escaped quotes are skipped).
    private static func braceBalance(_ line: String) -> Int {
        var balance = 0
        var inString = false
        var escaped = false
        for ch in line {
            if escaped { escaped = false; continue }
            switch ch {
            case "\\": escaped = inString
            case "\"": inString.toggle()
            case "{" where !inString: balance += 1
            case "}" where !inString: balance -= 1
            default: break
            }
        }
        return balance
    }
}

/// Samples in simplex-chat's JSON shapes, built from the fixtures of Fixtures.swift.
enum RTSamples {
    static let user = Fx.user
    static let contact = Fx.contact
    static let groupInfo = Fx.groupInfo
    static let member = Fx.member
    /// A host member with its connection and contact.
    static let host = Fx.member
        .replacingOccurrences(of: #""groupMemberId":7"#, with: #""groupMemberId":8,"memberContactId":2,"activeConn":\#(Fx.connection)"#)
        .replacingOccurrences(of: #""memberRole":"member","memberCategory":"invitee""#, with: #""memberRole":"admin","memberCategory":"host""#)
    static let bob = #"{"displayName":"bob","fullName":""}"#
    static let bobFull = #"{"displayName":"bob","fullName":"Bob B","shortDescr":"hey","preferences":{"voice":{"allow":"no"},"timedMessages":{"allow":"yes","ttl":600}},"peerType":"bot"}"#
    static let teamProfile = #"{"displayName":"team","fullName":"","description":"about","groupPreferences":{"voice":{"enable":"off","role":"admin"}}}"#
    static let stats = #"{"unreadCount":1,"unreadMentions":0,"reportsCount":0,"minUnreadItemId":10,"unreadChat":false}"#
    static let directChat = #"{"chatInfo":\#(Fx.directInfo),"chatItems":[\#(Fx.chatItem)],"chatStats":\#(stats)}"#
    static let groupChatInfo = #"{"type":"group","groupInfo":\#(groupInfo)}"#
    static let groupItem = #"{"chatInfo":\#(groupChatInfo),"chatItem":{"chatDir":{"type":"groupRcv","groupMember":\#(member)},"meta":\#(Fx.meta(12, "hey team")),"content":{"type":"rcvMsgContent","msgContent":{"type":"text","text":"hey team"}},"mentions":{},"reactions":[]}}"#
    static let reaction = #"{"chatInfo":\#(Fx.directInfo),"chatReaction":{"chatDir":{"type":"directRcv"},"chatItem":\#(Fx.sentItem),"sentAt":"\#(Fx.ts2)","reaction":{"type":"emoji","emoji":"🚀"}}}"#
    static let groupLink = #"{"userContactLinkId":3,"connLinkContact":{"connFullLink":"simplex:/contact#/?v=2-7&smp=g","connShortLink":"https://smp.example.com/g#x"},"shortLinkDataSet":true,"shortLinkLargeDataSet":false,"groupLinkId":"Z2xpZA","acceptMemberRole":"member"}"#
    static let address = #"{"userContactLinkId":1,"connLinkContact":{"connFullLink":"simplex:/contact#/?v=2-7&smp=x","connShortLink":"https://smp.example.com/a#k"},"shortLinkDataSet":true,"shortLinkLargeDataSet":false,"addressSettings":{"businessAddress":false,"autoAccept":{"acceptIncognito":true},"autoReply":{"type":"text","text":"welcome"}}}"#
    static let plainAddress = #"{"userContactLinkId":1,"connLinkContact":{"connFullLink":"simplex:/contact#/?v=2-7&smp=x"},"shortLinkDataSet":false,"shortLinkLargeDataSet":false,"addressSettings":{"businessAddress":true}}"#
    static let invLink = #"{"connFullLink":"simplex:/invitation#/?v=2-7&smp=x","connShortLink":"https://smp.example.com/i#abc/def"}"#
    static let userContact = #"{"userContactLinkId":1,"connReqContact":"simplex:/contact#/?v=2-7&smp=x"}"#
    /// simplexmq `ConnectionStats` (defaultJSON) during a switch and a re-synchronization.
    static let connStats = #"{"connAgentVersion":7,"rcvQueuesInfo":[{"rcvServer":"smp://a@b","status":"active","rcvSwitchStatus":"sending_qadd","canAbortSwitch":true,"subStatus":{"type":"active"}},{"rcvServer":"smp://c@d","status":"new","canAbortSwitch":false,"subStatus":{"type":"noSub"}}],"sndQueuesInfo":[{"sndServer":"smp://a@b","status":"active","sndSwitchStatus":"sending_qkey"}],"ratchetSyncState":"started","ratchetSyncSupported":true}"#

    /// `{"type": <type>, <fields>}`.
    static func obj(_ type: String, _ fields: String = "") -> String {
        fields.isEmpty ? #"{"type":"\#(type)"}"# : #"{"type":"\#(type)",\#(fields)}"#
    }

    /// `obj` with `"user"` first.
    static func withUser(_ type: String, _ fields: String = "") -> String {
        obj(type, #""user":\#(user)"# + (fields.isEmpty ? "" : "," + fields))
    }

    // Files (issue 15): TYPES.md RcvFileTransfer, FileTransferMeta, SndFileTransfer, RcvFileDescr.
    static let rcvFileDescr = #"{"fileDescrId":1,"fileDescrText":"","fileDescrPartNo":0,"fileDescrComplete":false}"#
    static let rcvFT = #"{"fileId":3,"xftpRcvFile":{"rcvFileDescription":\#(rcvFileDescr),"agentRcvFileId":"dGlk","agentRcvFileDeleted":false,"userApprovedRelays":true},"fileInvitation":{"fileName":"a.txt","fileSize":100,"fileDescr":{"fileDescrText":"","fileDescrPartNo":0,"fileDescrComplete":false}},"fileStatus":{"type":"accepted","filePath":"a.txt"},"senderDisplayName":"bob","chunkSize":15780,"cancelled":false,"grpMemberId":7,"cryptoArgs":{"fileKey":"a2V5","fileNonce":"bm9uY2U"}}"#
    static let fileMeta = #"{"fileId":3,"xftpSndFile":{"agentSndFileId":"dGlk","privateSndFileDescr":"x","agentSndFileDeleted":true},"fileName":"a.txt","filePath":"/tmp/a.txt","fileSize":100,"chunkSize":15780,"cancelled":false}"#
    static let sndFT = #"{"fileId":3,"fileName":"a.txt","filePath":"/tmp/a.txt","fileSize":100,"chunkSize":15780,"recipientDisplayName":"bob","connId":2,"agentConnId":"Y29ubg","groupMemberId":7,"fileStatus":"complete"}"#
    static let fileAgentError = #"{"type":"FILE","fileErr":{"type":"NO_FILE"}}"#

    static let responses: [String] = [
        withUser("rcvFileAccepted", #""chatItem":\#(Fx.aChatItem)"#),
        withUser("rcvFileAcceptedSndCancelled", #""rcvFileTransfer":\#(rcvFT)"#),
        withUser("rcvFileCancelled", #""chatItem_":\#(Fx.aChatItem),"rcvFileTransfer":\#(rcvFT)"#),
        withUser("sndFileCancelled", #""chatItem_":\#(Fx.aSentItem),"fileTransferMeta":\#(fileMeta),"sndFileTransfers":[\#(sndFT)]"#),
        withUser("fileTransferStatusXFTP", #""chatItem":\#(Fx.aChatItem)"#),
        withUser("activeUser"),
        obj("usersList", #""users":[{"user":\#(user),"unreadCount":2}]"#),
        obj("chatStarted"),
        obj("chatRunning"),
        obj("chatStopped"),
        withUser("apiChats", #""chats":[\#(directChat),{"chatInfo":\#(groupChatInfo),"chatItems":[],"chatStats":\#(stats)}]"#),
        withUser("apiChat", #""chat":\#(directChat),"navInfo":{"afterUnread":1,"afterTotal":3}"#),
        withUser("apiChat", #""chat":\#(directChat)"#),
        withUser("userServers", #""userServers":[{"operator":{"operatorId":1,"tradeName":"SimpleX Chat"},"smpServers":[{"serverId":1,"server":"smp://a@smp.example.com","preset":true,"tested":true,"enabled":true,"deleted":false}],"xftpServers":[{"server":"xftp://b@xftp.example.com","preset":false,"enabled":false,"deleted":false}]}]"#),
        withUser("serverTestResult", #""testServer":"smp://a@b","testFailure":{"testStep":"connect","testError":{"type":"BROKER","brokerAddress":"smp://a@b","brokerErr":{"type":"TIMEOUT"}}}"#),
        withUser("serverTestResult", #""testServer":"smp://a@b""#),
        withUser("newChatItems", #""chatItems":[\#(Fx.aSentItem),\#(groupItem)]"#),
        withUser("chatItemUpdated", #""chatItem":\#(Fx.aSentItem)"#),
        withUser("chatItemNotChanged", #""chatItem":\#(groupItem)"#),
        withUser("chatItemReaction", #""added":false,"reaction":\#(reaction)"#),
        withUser("chatItemsDeleted", #""chatItemDeletions":[{"deletedChatItem":\#(Fx.aSentItem),"toChatItem":\#(Fx.aSentItem)}],"byUser":true,"timed":false"#),
        withUser("forwardPlan", #""itemsCount":2,"chatItemIds":[10,11],"forwardConfirmation":{"type":"filesInProgress","filesCount":1}"#),
        withUser("forwardPlan", #""itemsCount":1,"chatItemIds":[10]"#),
        obj("cmdOk", #""user_":\#(user)"#),
        obj("cmdOk"),
        obj("networkConfig", #""networkConfig":{"socksMode":"always","hostMode":"onionViaSocks","requiredHostMode":false,"sessionMode":"session","smpProxyMode":"unknown","smpProxyFallback":"allowProtected","smpWebPortServers":"preset","tcpConnectTimeout":{"backgroundTimeout":45000000,"interactiveTimeout":15000000},"tcpTimeout":{"backgroundTimeout":30000000,"interactiveTimeout":10000000},"tcpTimeoutPerKb":5000,"rcvConcurrency":8,"tcpKeepAlive":{"keepIdle":30,"keepIntvl":15,"keepCnt":4},"smpPingInterval":600000000,"smpPingCount":3,"logTLSErrors":false}"#),
        withUser("contactsList", #""contacts":[\#(contact)]"#),
        withUser("userContactLink", #""contactLink":\#(plainAddress)"#),
        withUser("userContactLinkUpdated", #""contactLink":\#(address)"#),
        withUser("userContactLinkCreated", #""connLinkContact":{"connFullLink":"simplex:/contact#/?v=2-7&smp=x","connShortLink":"https://h.im/a#k"}"#),
        withUser("userContactLinkDeleted"),
        withUser("contactRequestRejected", #""contactRequest":\#(Fx.contactRequest),"contact_":\#(contact)"#),
        withUser("acceptingContactRequest", #""contact":\#(contact)"#),
        withUser("userProfileUpdated", #""fromProfile":\#(bob),"toProfile":\#(bobFull),"updateSummary":{"updateSuccesses":1,"updateFailures":1,"changedContacts":[\#(contact)]}"#),
        withUser("userProfileNoChange"),
        withUser("contactPrefsUpdated", #""fromContact":\#(contact),"toContact":\#(contact)"#),
        withUser("contactAliasUpdated", #""toContact":\#(contact)"#),
        withUser("connectionAliasUpdated", #""toConnection":\#(Fx.pcc)"#),
        withUser("invitation", #""connLinkInvitation":\#(invLink),"connection":\#(Fx.pcc)"#),
        withUser("connectionIncognitoUpdated", #""toConnection":\#(Fx.pcc),"customUserProfile":\#(bob)"#),
        withUser("connectionPlan", #""connLink":\#(invLink),"connectionPlan":{"type":"invitationLink","invitationLinkPlan":{"type":"connecting","contact_":\#(contact)}}"#),
        withUser("connectionPlan", #""connLink":{"connFullLink":"simplex:/contact#/?v=2-7&smp=g"},"connectionPlan":{"type":"groupLink","groupLinkPlan":{"type":"known","groupInfo":\#(groupInfo)}}"#),
        withUser("connectionPlan", #""connLink":{"connFullLink":"simplex:/contact#/?v=2-7&smp=c"},"connectionPlan":{"type":"error","chatError":{"type":"error","errorType":{"type":"invalidConnReq"}}}"#),
        withUser("sentConfirmation", #""connection":\#(Fx.pcc),"customUserProfile":\#(bob)"#),
        withUser("sentInvitation", #""connection":\#(Fx.pcc)"#),
        withUser("contactAlreadyExists", #""contact":\#(contact)"#),
        withUser("newPreparedChat", #""chat":{"chatInfo":\#(Fx.directInfo),"chatItems":[],"chatStats":\#(stats)}"#),
        withUser("startedConnectionToContact", #""contact":\#(contact),"customUserProfile":\#(bob)"#),
        withUser("startedConnectionToContact", #""contact":\#(contact)"#),
        withUser("contactDeleted", #""contact":\#(contact)"#),
        withUser("contactConnectionDeleted", #""connection":\#(Fx.pcc)"#),
        withUser("chatCleared", #""chatInfo":\#(groupChatInfo)"#),
        obj("chatCmdError", #""chatError":{"type":"errorStore","storeError":{"type":"groupNotFound","groupId":4}}"#),
        withUser("groupCreated", #""groupInfo":\#(groupInfo)"#),
        withUser("sentGroupInvitation", #""groupInfo":\#(groupInfo),"contact":\#(contact),"member":\#(member)"#),
        withUser("newMemberContact", #""contact":\#(contact),"groupInfo":\#(groupInfo),"member":\#(member)"#),
        withUser("newMemberContactSentInv", #""contact":\#(contact),"groupInfo":\#(groupInfo),"member":\#(member)"#),
        withUser("memberContactAccepted", #""contact":\#(contact)"#),
        withUser("userAcceptedGroupSent", #""groupInfo":\#(groupInfo),"hostContact":\#(contact)"#),
        withUser("groupMembers", #""group":{"groupInfo":\#(groupInfo),"members":[\#(member),\#(host)]}"#),
        withUser("groupsList", #""groups":[\#(groupInfo)]"#),
        withUser("membersRoleUser", #""groupInfo":\#(groupInfo),"members":[\#(member)],"toRole":"moderator","msgSigned":false"#),
        withUser("membersBlockedForAllUser", #""groupInfo":\#(groupInfo),"members":[\#(member),\#(host)],"blocked":true,"msgSigned":false"#),
        withUser("userDeletedMembers", #""groupInfo":\#(groupInfo),"members":[\#(member)],"withMessages":true,"msgSigned":false"#),
        withUser("leftMemberUser", #""groupInfo":\#(groupInfo)"#),
        withUser("memberAccepted", #""groupInfo":\#(groupInfo),"member":\#(member)"#),
        withUser("memberSupportChatRead", #""groupInfo":\#(groupInfo),"member":\#(member)"#),
        withUser("memberSupportChatDeleted", #""groupInfo":\#(groupInfo),"member":\#(member)"#),
        withUser("itemsReadForChat", #""chatInfo":\#(groupChatInfo)"#),
        withUser("groupDeletedUser", #""groupInfo":\#(groupInfo),"msgSigned":false,"localDeletion":true"#),
        withUser("groupUpdated", #""fromGroup":\#(groupInfo),"toGroup":\#(groupInfo),"member_":\#(host),"msgSigned":false"#),
        withUser("groupChatItemsDeleted", #""groupInfo":\#(groupInfo),"chatItemIDs":[3,4],"byUser":true,"member_":\#(member)"#),
        withUser("groupLinkCreated", #""groupInfo":\#(groupInfo),"groupLink":\#(groupLink)"#),
        withUser("groupLink", #""groupInfo":\#(groupInfo),"groupLink":\#(groupLink)"#),
        withUser("groupLinkDeleted", #""groupInfo":\#(groupInfo)"#),
        withUser("startedConnectionToGroup", #""groupInfo":\#(groupInfo),"customUserProfile":\#(bob)"#),
        withUser("contactRatchetSyncStarted", #""contact":\#(contact),"connectionStats":\#(connStats)"#),
        withUser("groupMemberRatchetSyncStarted", #""groupInfo":\#(groupInfo),"member":\#(member),"connectionStats":\#(connStats)"#),
        withUser("contactCode", #""contact":\#(contact),"connectionCode":"12345 67890 12""#),
        withUser("groupMemberCode", #""groupInfo":\#(groupInfo),"member":\#(member),"connectionCode":"54321 09876""#),
        withUser("connectionVerified", #""verified":false,"expectedCode":"12345 67890 12""#),
        withUser("contactSwitchStarted", #""contact":\#(contact),"connectionStats":\#(connStats)"#),
        withUser("groupMemberSwitchStarted", #""groupInfo":\#(groupInfo),"member":\#(member),"connectionStats":\#(connStats)"#),
        withUser("contactSwitchAborted", #""contact":\#(contact),"connectionStats":\#(connStats)"#),
        withUser("groupMemberSwitchAborted", #""groupInfo":\#(groupInfo),"member":\#(member),"connectionStats":\#(connStats)"#),
    ]

    static let events: [String] = [
        withUser("rcvFileDescrReady", #""chatItem":\#(Fx.aChatItem),"rcvFileTransfer":\#(rcvFT),"rcvFileDescr":\#(rcvFileDescr)"#),
        withUser("rcvFileAccepted", #""chatItem":\#(Fx.aChatItem)"#),
        withUser("rcvFileStart", #""chatItem":\#(Fx.aChatItem)"#),
        withUser("rcvFileProgressXFTP", #""chatItem_":\#(Fx.aChatItem),"receivedSize":50,"totalSize":100,"rcvFileTransfer":\#(rcvFT)"#),
        withUser("rcvFileComplete", #""chatItem":\#(Fx.aChatItem)"#),
        withUser("rcvFileSndCancelled", #""chatItem":\#(Fx.aChatItem),"rcvFileTransfer":\#(rcvFT)"#),
        withUser("rcvFileError", #""agentError":\#(fileAgentError),"rcvFileTransfer":\#(rcvFT)"#),
        withUser("rcvFileWarning", #""chatItem_":\#(Fx.aChatItem),"agentError":\#(fileAgentError),"rcvFileTransfer":\#(rcvFT)"#),
        withUser("sndFileProgressXFTP", #""chatItem_":\#(Fx.aSentItem),"fileTransferMeta":\#(fileMeta),"sentSize":10,"totalSize":100"#),
        withUser("sndFileCompleteXFTP", #""chatItem":\#(Fx.aSentItem),"fileTransferMeta":\#(fileMeta)"#),
        withUser("sndFileError", #""fileTransferMeta":\#(fileMeta),"errorMessage":"AUTH""#),
        withUser("sndFileWarning", #""chatItem_":\#(Fx.aSentItem),"fileTransferMeta":\#(fileMeta),"errorMessage":"network""#),
        withUser("contactConnected", #""contact":\#(contact),"userCustomProfile":\#(bob)"#),
        withUser("contactConnected", #""contact":\#(contact)"#),
        withUser("contactSndReady", #""contact":\#(contact)"#),
        withUser("contactConnecting", #""contact":\#(contact)"#),
        withUser("acceptingContactRequest", #""contact":\#(contact)"#),
        withUser("receivedContactRequest", #""contactRequest":\#(Fx.contactRequest),"chat_":{"chatInfo":{"type":"contactRequest","contactRequest":\#(Fx.contactRequest)},"chatItems":[],"chatStats":\#(stats)}"#),
        withUser("contactUpdated", #""fromContact":\#(contact),"toContact":\#(contact)"#),
        withUser("contactDeletedByContact", #""contact":\#(contact)"#),
        withUser("newChatItems", #""chatItems":[\#(Fx.aChatItem),\#(groupItem)]"#),
        withUser("chatItemUpdated", #""chatItem":\#(groupItem)"#),
        withUser("chatItemNotChanged", #""chatItem":\#(Fx.aChatItem)"#),
        withUser("chatItemsDeleted", #""chatItemDeletions":[{"deletedChatItem":\#(groupItem)}],"byUser":false,"timed":true"#),
        withUser("chatItemReaction", #""added":true,"reaction":\#(reaction)"#),
        withUser("chatItemsStatusesUpdated", #""chatItems":[\#(Fx.aSentItem)]"#),
        obj("hostConnected", #""protocol":"smp","transportHost":"smp.example.com""#),
        obj("hostDisconnected", #""protocol":"xftp","transportHost":"xftp.example.com""#),
        obj("subscriptionStatus", #""server":"smp://a@b","subscriptionStatus":{"type":"active"},"connections":["YQ","Yg"]"#),
        obj("subscriptionStatus", #""server":"smp://a@b","subscriptionStatus":{"type":"removed","subError":"AUTH"},"connections":[]"#),
        withUser("messageError", #""severity":"error","errorMessage":"duplicate""#),
        obj("chatError", #""chatError":{"type":"error","errorType":{"type":"noActiveUser"}}"#),
        obj("chatErrors", #""chatErrors":[{"type":"errorAgent","agentError":{"type":"INACTIVE"},"agentConnId":"YQ"},{"type":"errorStore","storeError":{"type":"uniqueID"}}]"#),
        withUser("receivedGroupInvitation", #""groupInfo":\#(groupInfo),"contact":\#(contact),"fromMemberRole":"admin","memberRole":"member""#),
        withUser("userAcceptedGroupSent", #""groupInfo":\#(groupInfo)"#),
        withUser("groupLinkConnecting", #""groupInfo":\#(groupInfo),"hostMember":\#(host)"#),
        withUser("businessRequestAlreadyAccepted", #""groupInfo":\#(groupInfo)"#),
        withUser("businessLinkConnecting", #""groupInfo":\#(groupInfo),"hostMember":\#(host),"fromContact":\#(contact)"#),
        withUser("acceptingGroupJoinRequestMember", #""groupInfo":\#(groupInfo),"member":\#(member)"#),
        withUser("groupLinkRejected", #""groupInfo":\#(groupInfo),"groupRejectionReason":"long_name""#),
        withUser("rejectingGroupJoinRequestMember", #""groupInfo":\#(groupInfo),"member":\#(member),"groupRejectionReason":"some newer reason""#),
        withUser("acceptingBusinessRequest", #""groupInfo":\#(groupInfo)"#),
        withUser("userJoinedGroup", #""groupInfo":\#(groupInfo),"hostMember":\#(host)"#),
        withUser("joinedGroupMember", #""groupInfo":\#(groupInfo),"member":\#(member)"#),
        withUser("joinedGroupMemberConnecting", #""groupInfo":\#(groupInfo),"hostMember":\#(host),"member":\#(member)"#),
        withUser("memberAcceptedByOther", #""groupInfo":\#(groupInfo),"acceptingMember":\#(host),"member":\#(member)"#),
        withUser("connectedToGroupMember", #""groupInfo":\#(groupInfo),"member":\#(member),"memberContact":\#(contact)"#),
        withUser("newMemberContactReceivedInv", #""contact":\#(contact),"groupInfo":\#(groupInfo),"member":\#(member)"#),
        withUser("contactAndMemberAssociated", #""contact":\#(contact),"groupInfo":\#(groupInfo),"member":\#(member),"updatedContact":\#(contact)"#),
        withUser("memberRole", #""groupInfo":\#(groupInfo),"byMember":\#(host),"member":\#(member),"fromRole":"member","toRole":"observer""#),
        withUser("memberBlockedForAll", #""groupInfo":\#(groupInfo),"byMember":\#(host),"member":\#(member),"blocked":false"#),
        withUser("deletedMember", #""groupInfo":\#(groupInfo),"byMember":\#(host),"deletedMember":\#(member),"withMessages":false"#),
        withUser("deletedMemberUser", #""groupInfo":\#(groupInfo),"member":\#(host),"withMessages":true"#),
        withUser("leftMember", #""groupInfo":\#(groupInfo),"member":\#(member)"#),
        withUser("unknownMemberCreated", #""groupInfo":\#(groupInfo),"forwardedByMember":\#(member),"member":\#(member)"#),
        withUser("unknownMemberAnnounced", #""groupInfo":\#(groupInfo),"announcingMember":\#(member),"unknownMember":\#(member),"announcedMember":\#(member)"#),
        withUser("groupDeleted", #""groupInfo":\#(groupInfo),"member":\#(host)"#),
        withUser("groupUpdated", #""fromGroup":\#(groupInfo),"toGroup":\#(groupInfo),"member_":\#(host)"#),
        withUser("groupChatItemsDeleted", #""groupInfo":\#(groupInfo),"chatItemIDs":[7],"byUser":false,"member_":\#(host)"#),
        withUser("groupUpdated", #""fromGroup":\#(groupInfo),"toGroup":\#(groupInfo)"#),
        withUser("groupMemberUpdated", #""groupInfo":\#(groupInfo),"fromMember":\#(member),"toMember":\#(member)"#),
        withUser("contactRatchetSync", #""contact":\#(contact),"ratchetSyncProgress":{"ratchetSyncStatus":"agreed","connectionStats":\#(connStats)}"#),
        withUser("groupMemberRatchetSync", #""groupInfo":\#(groupInfo),"member":\#(member),"ratchetSyncProgress":{"ratchetSyncStatus":"ok","connectionStats":\#(connStats)}"#),
        withUser("contactVerificationReset", #""contact":\#(contact)"#),
        withUser("groupMemberVerificationReset", #""groupInfo":\#(groupInfo),"member":\#(member)"#),
        withUser("contactSwitch", #""contact":\#(contact),"switchProgress":{"queueDirection":"rcv","switchPhase":"started","connectionStats":\#(connStats)}"#),
        withUser("groupMemberSwitch", #""groupInfo":\#(groupInfo),"member":\#(member),"switchProgress":{"queueDirection":"snd","switchPhase":"completed","connectionStats":\#(connStats)}"#),
    ]

    static let chatErrors: [String] = [
        obj("error", #""errorType":{"type":"chatNotStarted"}"#),
        obj("errorAgent", #""agentError":{"type":"CONN","connErr":{"type":"NOT_AVAILABLE"},"errContext":""},"agentConnId":"YWJjZA","connectionEntity_":{"type":"rcvDirectMsgConnection","entityConnection":\#(Fx.connection),"contact":\#(contact)}"#),
        obj("errorAgent", #""agentError":{"type":"SMP","serverAddress":"smp://a@b","smpErr":{"type":"AUTH"}},"agentConnId":"YWJjZA","connectionEntity_":{"type":"rcvGroupMsgConnection","entityConnection":\#(Fx.connection),"groupInfo":\#(groupInfo),"groupMember":\#(member)}"#),
        obj("errorAgent", #""agentError":{"type":"INACTIVE"},"agentConnId":"YWJjZA","connectionEntity_":{"type":"userContactConnection","entityConnection":\#(Fx.connection),"userContact":\#(userContact)}"#),
        obj("errorAgent", #""agentError":{"type":"NO_USER"},"agentConnId":"""#),
        obj("errorStore", #""storeError":{"type":"contactNotFound","contactId":3}"#),
        obj("errorDatabase", #""databaseError":{"type":"errorOpen","sqliteError":{"type":"errorNotADatabase"}}"#),
        obj("errorDatabase", #""databaseError":{"type":"errorExport","sqliteError":{"type":"error","dbError":"disk I/O error"}}"#),
        obj("errorDatabase", #""databaseError":{"type":"errorNoFile","dbFile":"/tmp/chat.db"}"#),
        obj("errorDatabase", #""databaseError":{"type":"errorEncrypted"}"#),
    ]

    static let chatErrorTypes: [String] = [
        obj("noActiveUser"),
        obj("noConnectionUser", #""agentConnId":"YWJjZA""#),
        obj("noSndFileUser", #""agentSndFileId":"c25k""#),
        obj("noRcvFileUser", #""agentRcvFileId":"cmN2""#),
        obj("userUnknown"),
        obj("userExists", #""contactName":"alice""#),
        obj("differentActiveUser", #""commandUserId":2,"activeUserId":1"#),
        obj("cantDeleteActiveUser", #""userId":1"#),
        obj("cantDeleteLastUser", #""userId":1"#),
        obj("cantHideLastUser", #""userId":1"#),
        obj("hiddenUserAlwaysMuted", #""userId":2"#),
        obj("emptyUserPassword", #""userId":2"#),
        obj("userAlreadyHidden", #""userId":2"#),
        obj("userNotHidden", #""userId":2"#),
        obj("invalidDisplayName", #""displayName":"a b","validName":"a_b""#),
        obj("chatNotStarted"),
        obj("chatNotStopped"),
        obj("chatStoreChanged"),
        obj("invalidConnReq"),
        obj("unsupportedConnReq"),
        obj("connReqMessageProhibited"),
        obj("contactNotReady", #""contact":\#(contact)"#),
        obj("contactNotActive", #""contact":\#(contact)"#),
        obj("contactDisabled", #""contact":\#(contact)"#),
        obj("connectionDisabled", #""connection":\#(Fx.connection)"#),
        obj("groupUserRole", #""groupInfo":\#(groupInfo),"requiredRole":"admin""#),
        obj("groupMemberInitialRole", #""groupInfo":\#(groupInfo),"initialRole":"owner""#),
        obj("contactIncognitoCantInvite"),
        obj("groupIncognitoCantInvite"),
        obj("groupContactRole", #""contactName":"bob""#),
        obj("groupDuplicateMember", #""contactName":"bob""#),
        obj("groupDuplicateMemberId"),
        obj("groupNotJoined", #""groupInfo":\#(groupInfo)"#),
        obj("groupMemberNotActive"),
        obj("cantBlockMemberForSelf", #""groupInfo":\#(groupInfo),"member":\#(member),"setShowMessages":false"#),
        obj("groupMemberUserRemoved"),
        obj("groupMemberNotFound"),
        obj("groupCantResendInvitation", #""groupInfo":\#(groupInfo),"contactName":"bob""#),
        obj("groupInternal", #""message":"no host""#),
        obj("fileNotFound", #""message":"no file 3""#),
        obj("fileSize", #""filePath":"/tmp/big""#),
        obj("fileAlreadyReceiving", #""message":"file 3""#),
        obj("fileCancelled", #""message":"file 3""#),
        obj("fileCancel", #""fileId":3,"message":"cannot cancel""#),
        obj("fileAlreadyExists", #""filePath":"/tmp/a.txt""#),
        obj("fileWrite", #""filePath":"/tmp/a.txt","message":"permission denied""#),
        obj("fileSend", #""fileId":3,"agentError":{"type":"XFTP","serverAddress":"xftp://a@b","xftpErr":{"type":"DIGEST"}}"#),
        obj("fileRcvChunk", #""message":"bad chunk""#),
        obj("fileInternal", #""message":"oops""#),
        obj("fileImageType", #""filePath":"/tmp/a.bmp""#),
        obj("fileImageSize", #""filePath":"/tmp/a.png""#),
        obj("fileNotReceived", #""fileId":4"#),
        obj("fileNotApproved", #""fileId":4,"unknownServers":["xftp://a@unknown.example.com"]"#),
        obj("fallbackToSMPProhibited", #""fileId":4"#),
        obj("inlineFileProhibited", #""fileId":4"#),
        obj("invalidForward"),
        obj("invalidChatItemUpdate"),
        obj("invalidChatItemDelete"),
        obj("hasCurrentCall"),
        obj("noCurrentCall"),
        obj("callContact", #""contactId":2"#),
        obj("directMessagesProhibited", #""direction":"snd","contact":\#(contact)"#),
        obj("agentVersion"),
        obj("agentNoSubResult", #""agentConnId":"YWJjZA""#),
        obj("commandError", #""message":"bad command""#),
        obj("agentCommandError", #""message":"bad agent command""#),
        obj("invalidFileDescription", #""message":"bad description""#),
        obj("connectionIncognitoChangeProhibited"),
        obj("connectionUserChangeProhibited"),
        obj("peerChatVRangeIncompatible"),
        obj("internalError", #""message":"internal""#),
        obj("exception", #""message":"SQLite busy""#),
    ]

    static let storeErrors: [String] = [
        obj("duplicateName"),
        obj("userNotFound", #""userId":9"#),
        obj("userNotFoundByName", #""contactName":"zed""#),
        obj("userNotFoundByContactId", #""contactId":9"#),
        obj("userNotFoundByGroupId", #""groupId":9"#),
        obj("userNotFoundByFileId", #""fileId":9"#),
        obj("userNotFoundByContactRequestId", #""contactRequestId":9"#),
        obj("contactNotFound", #""contactId":9"#),
        obj("contactNotFoundByName", #""contactName":"zed""#),
        obj("contactNotFoundByMemberId", #""groupMemberId":9"#),
        obj("contactNotReady", #""contactName":"zed""#),
        obj("duplicateContactLink"),
        obj("userContactLinkNotFound"),
        obj("contactRequestNotFound", #""contactRequestId":9"#),
        obj("contactRequestNotFoundByName", #""contactName":"zed""#),
        obj("invalidContactRequestEntity", #""contactRequestId":9"#),
        obj("invalidBusinessChatContactRequest"),
        obj("groupNotFound", #""groupId":9"#),
        obj("groupNotFoundByName", #""groupName":"club""#),
        obj("groupMemberNameNotFound", #""groupId":9,"groupMemberName":"zed""#),
        obj("groupMemberNotFound", #""groupMemberId":9"#),
        obj("groupMemberNotFoundByIndex", #""groupMemberIndex":5"#),
        obj("memberRelationsVectorNotFound", #""groupMemberId":9"#),
        obj("groupHostMemberNotFound", #""groupId":9"#),
        obj("groupMemberNotFoundByMemberId", #""memberId":"bWVt""#),
        obj("memberContactGroupMemberNotFound", #""contactId":9"#),
        obj("invalidMemberRelationUpdate"),
        obj("groupWithoutUser"),
        obj("duplicateGroupMember"),
        obj("groupAlreadyJoined"),
        obj("groupInvitationNotFound"),
        obj("noteFolderAlreadyExists", #""noteFolderId":1"#),
        obj("noteFolderNotFound", #""noteFolderId":1"#),
        obj("userNoteFolderNotFound"),
        obj("sndFileNotFound", #""fileId":9"#),
        obj("sndFileInvalid", #""fileId":9"#),
        obj("rcvFileNotFound", #""fileId":9"#),
        obj("rcvFileDescrNotFound", #""fileId":9"#),
        obj("fileNotFound", #""fileId":9"#),
        obj("rcvFileInvalid", #""fileId":9"#),
        obj("rcvFileInvalidDescrPart"),
        obj("localFileNoTransfer", #""fileId":9"#),
        obj("sharedMsgIdNotFoundByFileId", #""fileId":9"#),
        obj("fileIdNotFoundBySharedMsgId", #""sharedMsgId":"c2hhcmVk""#),
        obj("sndFileNotFoundXFTP", #""agentSndFileId":"c25k""#),
        obj("rcvFileNotFoundXFTP", #""agentRcvFileId":"cmN2""#),
        obj("connectionNotFound", #""agentConnId":"YWJjZA""#),
        obj("connectionNotFoundById", #""connId":9"#),
        obj("connectionNotFoundByMemberId", #""groupMemberId":9"#),
        obj("pendingConnectionNotFound", #""connId":9"#),
        obj("uniqueID"),
        obj("largeMsg"),
        obj("internalError", #""message":"store""#),
        obj("dBException", #""message":"constraint""#),
        obj("dBBusyError", #""message":"busy""#),
        obj("badChatItem", #""itemId":9,"itemTs":"\#(Fx.ts)""#),
        obj("badChatItem", #""itemId":9"#),
        obj("chatItemNotFound", #""itemId":9"#),
        obj("chatItemNotFoundByText", #""text":"hello""#),
        obj("chatItemSharedMsgIdNotFound", #""sharedMsgId":"c2hhcmVk""#),
        obj("chatItemNotFoundByFileId", #""fileId":9"#),
        obj("chatItemNotFoundByContactId", #""contactId":9"#),
        obj("chatItemNotFoundByGroupId", #""groupId":9"#),
        obj("profileNotFound", #""profileId":9"#),
        obj("duplicateGroupLink", #""groupInfo":\#(groupInfo)"#),
        obj("groupLinkNotFound", #""groupInfo":\#(groupInfo)"#),
        obj("hostMemberIdNotFound", #""groupId":9"#),
        obj("contactNotFoundByFileId", #""fileId":9"#),
        obj("noGroupSndStatus", #""itemId":9,"groupMemberId":7"#),
        obj("duplicateGroupMessage", #""groupId":1,"sharedMsgId":"c2hhcmVk","authorGroupMemberId":7,"forwardedByGroupMemberId":8"#),
        obj("duplicateGroupMessage", #""groupId":1,"sharedMsgId":"c2hhcmVk""#),
        obj("remoteHostNotFound", #""remoteHostId":1"#),
        obj("remoteHostUnknown"),
        obj("remoteHostDuplicateCA"),
        obj("remoteCtrlNotFound", #""remoteCtrlId":1"#),
        obj("remoteCtrlDuplicateCA"),
        obj("prohibitedDeleteUser", #""userId":1,"contactId":2"#),
        obj("operatorNotFound", #""serverOperatorId":1"#),
        obj("usageConditionsNotFound"),
        obj("invalidQuote"),
        obj("invalidMention"),
        obj("invalidDeliveryTask", #""taskId":3"#),
        obj("deliveryTaskNotFound", #""taskId":3"#),
        obj("invalidDeliveryJob", #""jobId":4"#),
        obj("deliveryJobNotFound", #""jobId":4"#),
        obj("workItemError", #""errContext":"delivery""#),
    ]

    static let agentErrors: [String] = [
        obj("CMD", #""cmdErr":{"type":"PROHIBITED"},"errContext":"SEND""#),
        obj("CMD", #""cmdErr":{"type":"LARGE"},"errContext":"""#),
        obj("CONN", #""connErr":{"type":"NOT_FOUND"},"errContext":"JOIN""#),
        obj("NO_USER"),
        obj("SMP", #""serverAddress":"smp://a@b","smpErr":{"type":"AUTH"}"#),
        obj("SMP", #""serverAddress":"smp://a@b","smpErr":{"type":"CMD","cmdErr":{"type":"NO_ENTITY"}}"#),
        obj("SMP", #""serverAddress":"smp://a@b","smpErr":{"type":"BLOCKED","blockInfo":{"reason":"spam","notice":{"ttl":3600}}}"#),
        obj("SMP", #""serverAddress":"smp://a@b","smpErr":{"type":"PROXY","proxyErr":{"type":"BROKER","brokerErr":{"type":"NETWORK","networkError":{"type":"connectError","connectError":"refused"}}}}"#),
        obj("SMP", #""serverAddress":"smp://a@b","smpErr":{"type":"STORE","storeErr":"full"}"#),
        obj("NTF", #""serverAddress":"ntf://a@b","ntfErr":{"type":"QUOTA"}"#),
        obj("XFTP", #""serverAddress":"xftp://a@b","xftpErr":{"type":"NO_FILE"}"#),
        obj("XFTP", #""serverAddress":"xftp://a@b","xftpErr":{"type":"BLOCKED","blockInfo":{"reason":"content"}}"#),
        obj("FILE", #""fileErr":{"type":"FILE_IO","fileIOError":"disk full"}"#),
        obj("PROXY", #""proxyServer":"smp://p@proxy","relayServer":"smp://r@relay","proxyErr":{"type":"protocolError","protocolErr":{"type":"PROXY","proxyErr":{"type":"NO_SESSION"}}}"#),
        obj("PROXY", #""proxyServer":"smp://p@proxy","relayServer":"smp://r@relay","proxyErr":{"type":"unexpectedResponse","responseStr":"OK"}"#),
        obj("RCP", #""rcpErr":{"type":"ctrlError","ctrlErr":"bad"}"#),
        obj("BROKER", #""brokerAddress":"smp://a@b","brokerErr":{"type":"TRANSPORT","transportErr":{"type":"handshake","handshakeErr":"IDENTITY"}}"#),
        obj("BROKER", #""brokerAddress":"smp://a@b","brokerErr":{"type":"NETWORK","networkError":{"type":"tLSError","tlsError":"bad certificate"}}"#),
        obj("AGENT", #""agentErr":{"type":"A_CRYPTO","cryptoErr":{"type":"RATCHET_HEADER"}}"#),
        obj("AGENT", #""agentErr":{"type":"A_PROHIBITED","prohibitedErr":"confirmation"}"#),
        // simplexmq's members TYPES.md leaves out: counts under "data", the dropped duplicate.
        obj("AGENT", #""agentErr":{"type":"A_CRYPTO","cryptoErr":{"type":"RATCHET_EARLIER","data":3}}"#),
        obj("AGENT", #""agentErr":{"type":"A_CRYPTO","cryptoErr":{"type":"RATCHET_SKIPPED","data":2001}}"#),
        obj("AGENT", #""agentErr":{"type":"A_DUPLICATE","droppedMsg_":{"brokerTs":"\#(Fx.ts2)","attempts":2}}"#),
        obj("AGENT", #""agentErr":{"type":"A_DUPLICATE"}"#),
        obj("NOTICE", #""server":"smp://a@b","preset":true,"expiresAt":"\#(Fx.ts2)""#),
        obj("NOTICE", #""server":"smp://a@b","preset":false"#),
        obj("INTERNAL", #""internalErr":"oops""#),
        obj("CRITICAL", #""offerRestart":true,"criticalErr":"database""#),
        obj("INACTIVE"),
    ]

    static let ciContents: [String] = [
        obj("sndMsgContent", #""msgContent":{"type":"text","text":"hi"}"#),
        obj("rcvMsgContent", #""msgContent":{"type":"link","text":"see https://simplex.chat","preview":{"uri":"https://simplex.chat","title":"SimpleX","description":"private","image":"data:image/jpg;base64,AAAA"}}"#),
        obj("sndDeleted", #""deleteMode":"broadcast""#),
        obj("rcvDeleted", #""deleteMode":"internalMark""#),
        obj("sndCall", #""status":"ended","duration":42"#),
        obj("rcvCall", #""status":"missed","duration":0"#),
        obj("rcvIntegrityError", #""msgError":{"type":"msgSkipped","fromMsgId":3,"toMsgId":5}"#),
        obj("rcvIntegrityError", #""msgError":{"type":"msgBadId","msgId":7}"#),
        obj("rcvIntegrityError", #""msgError":{"type":"msgBadHash"}"#),
        obj("rcvIntegrityError", #""msgError":{"type":"msgDuplicate"}"#),
        obj("rcvDecryptionError", #""msgDecryptError":"ratchetEarlier","msgCount":2"#),
        obj("rcvGroupInvitation", #""groupInvitation":{"groupId":1,"groupMemberId":7,"localDisplayName":"team","groupProfile":\#(teamProfile),"status":"pending"},"memberRole":"member""#),
        obj("sndGroupInvitation", #""groupInvitation":{"groupId":1,"groupMemberId":7,"localDisplayName":"team","groupProfile":\#(teamProfile),"status":"accepted"},"memberRole":"admin""#),
        obj("rcvDirectEvent", #""rcvDirectEvent":{"type":"contactDeleted"}"#),
        obj("rcvDirectEvent", #""rcvDirectEvent":{"type":"profileUpdated","fromProfile":\#(bob),"toProfile":\#(bobFull)}"#),
        obj("rcvDirectEvent", #""rcvDirectEvent":{"type":"groupInvLinkReceived","groupProfile":\#(teamProfile)}"#),
        obj("rcvGroupEvent", #""rcvGroupEvent":{"type":"memberAdded","groupMemberId":7,"profile":\#(bob)}"#),
        obj("rcvGroupEvent", #""rcvGroupEvent":{"type":"memberConnected"}"#),
        obj("rcvGroupEvent", #""rcvGroupEvent":{"type":"memberRole","groupMemberId":7,"profile":\#(bob),"role":"author"}"#),
        obj("rcvGroupEvent", #""rcvGroupEvent":{"type":"memberBlocked","groupMemberId":7,"profile":\#(bob),"blocked":true}"#),
        obj("rcvGroupEvent", #""rcvGroupEvent":{"type":"userRole","role":"observer"}"#),
        obj("rcvGroupEvent", #""rcvGroupEvent":{"type":"groupUpdated","groupProfile":\#(teamProfile)}"#),
        obj("rcvGroupEvent", #""rcvGroupEvent":{"type":"memberProfileUpdated","fromProfile":\#(bob),"toProfile":\#(bobFull)}"#),
        obj("sndGroupEvent", #""sndGroupEvent":{"type":"memberDeleted","groupMemberId":7,"profile":\#(bob)}"#),
        obj("sndGroupEvent", #""sndGroupEvent":{"type":"userLeft"}"#),
        obj("rcvConnEvent", #""rcvConnEvent":{"type":"switchQueue","phase":"completed"}"#),
        obj("rcvConnEvent", #""rcvConnEvent":{"type":"ratchetSync","syncStatus":"required"}"#),
        obj("rcvConnEvent", #""rcvConnEvent":{"type":"verificationCodeReset"}"#),
        obj("rcvConnEvent", #""rcvConnEvent":{"type":"pqEnabled","enabled":true}"#),
        obj("sndConnEvent", #""sndConnEvent":{"type":"switchQueue","phase":"started","member":{"groupMemberId":7,"profile":\#(bob)}}"#),
        obj("sndConnEvent", #""sndConnEvent":{"type":"ratchetSync","syncStatus":"agreed"}"#),
        obj("sndConnEvent", #""sndConnEvent":{"type":"pqEnabled","enabled":false}"#),
        obj("rcvChatFeature", #""feature":"timedMessages","enabled":{"forUser":true,"forContact":true},"param":86400"#),
        obj("sndChatFeature", #""feature":"voice","enabled":{"forUser":false,"forContact":true}"#),
        obj("rcvChatPreference", #""feature":"calls","allowed":"yes""#),
        obj("sndChatPreference", #""feature":"timedMessages","allowed":"always","param":3600"#),
        obj("rcvGroupFeature", #""groupFeature":"voice","preference":{"enable":"on"},"memberRole_":"author""#),
        obj("sndGroupFeature", #""groupFeature":"timedMessages","preference":{"enable":"on"},"param":600"#),
        obj("rcvChatFeatureRejected", #""feature":"calls""#),
        obj("rcvGroupFeatureRejected", #""groupFeature":"reports""#),
        obj("sndModerated"),
        obj("rcvModerated"),
        obj("rcvBlocked"),
        obj("sndDirectE2EEInfo", #""e2eeInfo":{"pqEnabled":true}"#),
        obj("rcvDirectE2EEInfo", #""e2eeInfo":{"pqEnabled":false}"#),
        obj("sndGroupE2EEInfo", #""e2eeInfo":{}"#),
        obj("rcvGroupE2EEInfo", #""e2eeInfo":{"pqEnabled":false}"#),
        obj("chatBanner"),
        obj("invalidJSON", #""direction":"rcv","json":"{\"type\":\"rcvMsgContent\"""#),
    ]
}

/// The Swift name of each case, by an exhaustive switch: a new case does not compile until
/// it is named here (and then fails `everyCaseRoundTrips` until it has a sample).
enum CaseNames {
    static func name(_ v: ChatResponse) -> String? {
        switch v {
        case .activeUser: "activeUser"
        case .usersList: "usersList"
        case .chatStarted: "chatStarted"
        case .chatRunning: "chatRunning"
        case .chatStopped: "chatStopped"
        case .apiChats: "apiChats"
        case .apiChat: "apiChat"
        case .userServers: "userServers"
        case .serverTestResult: "serverTestResult"
        case .newChatItems: "newChatItems"
        case .chatItemUpdated: "chatItemUpdated"
        case .chatItemNotChanged: "chatItemNotChanged"
        case .chatItemReaction: "chatItemReaction"
        case .chatItemsDeleted: "chatItemsDeleted"
        case .groupChatItemsDeleted: "groupChatItemsDeleted"
        case .forwardPlan: "forwardPlan"
        case .cmdOk: "cmdOk"
        case .networkConfig: "networkConfig"
        case .contactsList: "contactsList"
        case .userContactLink: "userContactLink"
        case .userContactLinkUpdated: "userContactLinkUpdated"
        case .userContactLinkCreated: "userContactLinkCreated"
        case .userContactLinkDeleted: "userContactLinkDeleted"
        case .contactRequestRejected: "contactRequestRejected"
        case .acceptingContactRequest: "acceptingContactRequest"
        case .userProfileUpdated: "userProfileUpdated"
        case .userProfileNoChange: "userProfileNoChange"
        case .contactPrefsUpdated: "contactPrefsUpdated"
        case .contactAliasUpdated: "contactAliasUpdated"
        case .connectionAliasUpdated: "connectionAliasUpdated"
        case .invitation: "invitation"
        case .connectionIncognitoUpdated: "connectionIncognitoUpdated"
        case .connectionPlan: "connectionPlan"
        case .sentConfirmation: "sentConfirmation"
        case .sentInvitation: "sentInvitation"
        case .contactAlreadyExists: "contactAlreadyExists"
        case .newPreparedChat: "newPreparedChat"
        case .startedConnectionToContact: "startedConnectionToContact"
        case .contactDeleted: "contactDeleted"
        case .contactConnectionDeleted: "contactConnectionDeleted"
        case .chatCleared: "chatCleared"
        case .chatCmdError: "chatCmdError"
        case .groupCreated: "groupCreated"
        case .sentGroupInvitation: "sentGroupInvitation"
        case .newMemberContact: "newMemberContact"
        case .newMemberContactSentInv: "newMemberContactSentInv"
        case .memberContactAccepted: "memberContactAccepted"
        case .userAcceptedGroupSent: "userAcceptedGroupSent"
        case .groupMembers: "groupMembers"
        case .groupsList: "groupsList"
        case .membersRoleUser: "membersRoleUser"
        case .membersBlockedForAllUser: "membersBlockedForAllUser"
        case .userDeletedMembers: "userDeletedMembers"
        case .leftMemberUser: "leftMemberUser"
        case .memberAccepted: "memberAccepted"
        case .memberSupportChatRead: "memberSupportChatRead"
        case .memberSupportChatDeleted: "memberSupportChatDeleted"
        case .itemsReadForChat: "itemsReadForChat"
        case .groupDeletedUser: "groupDeletedUser"
        case .groupUpdated: "groupUpdated"
        case .groupLinkCreated: "groupLinkCreated"
        case .groupLink: "groupLink"
        case .groupLinkDeleted: "groupLinkDeleted"
        case .startedConnectionToGroup: "startedConnectionToGroup"
        case .contactRatchetSyncStarted: "contactRatchetSyncStarted"
        case .contactCode: "contactCode"
        case .groupMemberCode: "groupMemberCode"
        case .connectionVerified: "connectionVerified"
        case .groupMemberRatchetSyncStarted: "groupMemberRatchetSyncStarted"
        case .contactSwitchStarted: "contactSwitchStarted"
        case .groupMemberSwitchStarted: "groupMemberSwitchStarted"
        case .contactSwitchAborted: "contactSwitchAborted"
        case .groupMemberSwitchAborted: "groupMemberSwitchAborted"
        case .file: "file"
        case .unknown: nil
        }
    }

    static func name(_ v: ChatEvent) -> String? {
        switch v {
        case .contactConnected: "contactConnected"
        case .contactSndReady: "contactSndReady"
        case .contactConnecting: "contactConnecting"
        case .acceptingBusinessRequest: "acceptingBusinessRequest"
        case .acceptingContactRequest: "acceptingContactRequest"
        case .receivedContactRequest: "receivedContactRequest"
        case .contactUpdated: "contactUpdated"
        case .contactDeletedByContact: "contactDeletedByContact"
        case .newChatItems: "newChatItems"
        case .chatItemUpdated: "chatItemUpdated"
        case .chatItemNotChanged: "chatItemNotChanged"
        case .chatItemsDeleted: "chatItemsDeleted"
        case .groupChatItemsDeleted: "groupChatItemsDeleted"
        case .chatItemReaction: "chatItemReaction"
        case .chatItemsStatusesUpdated: "chatItemsStatusesUpdated"
        case .hostConnected: "hostConnected"
        case .hostDisconnected: "hostDisconnected"
        case .subscriptionStatus: "subscriptionStatus"
        case .messageError: "messageError"
        case .chatError: "chatError"
        case .chatErrors: "chatErrors"
        case .receivedGroupInvitation: "receivedGroupInvitation"
        case .userAcceptedGroupSent: "userAcceptedGroupSent"
        case .groupLinkConnecting: "groupLinkConnecting"
        case .businessLinkConnecting: "businessLinkConnecting"
        case .businessRequestAlreadyAccepted: "businessRequestAlreadyAccepted"
        case .acceptingGroupJoinRequestMember: "acceptingGroupJoinRequestMember"
        case .groupLinkRejected: "groupLinkRejected"
        case .rejectingGroupJoinRequestMember: "rejectingGroupJoinRequestMember"
        case .userJoinedGroup: "userJoinedGroup"
        case .joinedGroupMember: "joinedGroupMember"
        case .joinedGroupMemberConnecting: "joinedGroupMemberConnecting"
        case .memberAcceptedByOther: "memberAcceptedByOther"
        case .connectedToGroupMember: "connectedToGroupMember"
        case .contactAndMemberAssociated: "contactAndMemberAssociated"
        case .newMemberContactReceivedInv: "newMemberContactReceivedInv"
        case .memberRole: "memberRole"
        case .memberBlockedForAll: "memberBlockedForAll"
        case .deletedMember: "deletedMember"
        case .deletedMemberUser: "deletedMemberUser"
        case .leftMember: "leftMember"
        case .unknownMemberCreated: "unknownMemberCreated"
        case .unknownMemberAnnounced: "unknownMemberAnnounced"
        case .groupDeleted: "groupDeleted"
        case .groupUpdated: "groupUpdated"
        case .groupMemberUpdated: "groupMemberUpdated"
        case .contactRatchetSync: "contactRatchetSync"
        case .contactVerificationReset: "contactVerificationReset"
        case .groupMemberVerificationReset: "groupMemberVerificationReset"
        case .groupMemberRatchetSync: "groupMemberRatchetSync"
        case .contactSwitch: "contactSwitch"
        case .groupMemberSwitch: "groupMemberSwitch"
        case .file: "file"
        case .unknown: nil
        }
    }

    static func name(_ v: ChatError) -> String? {
        switch v {
        case .error: "error"
        case .errorAgent: "errorAgent"
        case .errorStore: "errorStore"
        case .errorDatabase: "errorDatabase"
        case .unknown: nil
        }
    }

    static func name(_ v: ChatErrorType) -> String? {
        switch v {
        case .noActiveUser: "noActiveUser"
        case .noConnectionUser: "noConnectionUser"
        case .noSndFileUser: "noSndFileUser"
        case .noRcvFileUser: "noRcvFileUser"
        case .userUnknown: "userUnknown"
        case .userExists: "userExists"
        case .differentActiveUser: "differentActiveUser"
        case .cantDeleteActiveUser: "cantDeleteActiveUser"
        case .cantDeleteLastUser: "cantDeleteLastUser"
        case .cantHideLastUser: "cantHideLastUser"
        case .hiddenUserAlwaysMuted: "hiddenUserAlwaysMuted"
        case .emptyUserPassword: "emptyUserPassword"
        case .userAlreadyHidden: "userAlreadyHidden"
        case .userNotHidden: "userNotHidden"
        case .invalidDisplayName: "invalidDisplayName"
        case .chatNotStarted: "chatNotStarted"
        case .chatNotStopped: "chatNotStopped"
        case .chatStoreChanged: "chatStoreChanged"
        case .invalidConnReq: "invalidConnReq"
        case .unsupportedConnReq: "unsupportedConnReq"
        case .connReqMessageProhibited: "connReqMessageProhibited"
        case .contactNotReady: "contactNotReady"
        case .contactNotActive: "contactNotActive"
        case .contactDisabled: "contactDisabled"
        case .connectionDisabled: "connectionDisabled"
        case .groupUserRole: "groupUserRole"
        case .groupMemberInitialRole: "groupMemberInitialRole"
        case .contactIncognitoCantInvite: "contactIncognitoCantInvite"
        case .groupIncognitoCantInvite: "groupIncognitoCantInvite"
        case .groupContactRole: "groupContactRole"
        case .groupDuplicateMember: "groupDuplicateMember"
        case .groupDuplicateMemberId: "groupDuplicateMemberId"
        case .groupNotJoined: "groupNotJoined"
        case .groupMemberNotActive: "groupMemberNotActive"
        case .cantBlockMemberForSelf: "cantBlockMemberForSelf"
        case .groupMemberUserRemoved: "groupMemberUserRemoved"
        case .groupMemberNotFound: "groupMemberNotFound"
        case .groupCantResendInvitation: "groupCantResendInvitation"
        case .groupInternal: "groupInternal"
        case .fileNotFound: "fileNotFound"
        case .fileSize: "fileSize"
        case .fileAlreadyReceiving: "fileAlreadyReceiving"
        case .fileCancelled: "fileCancelled"
        case .fileCancel: "fileCancel"
        case .fileAlreadyExists: "fileAlreadyExists"
        case .fileWrite: "fileWrite"
        case .fileSend: "fileSend"
        case .fileRcvChunk: "fileRcvChunk"
        case .fileInternal: "fileInternal"
        case .fileImageType: "fileImageType"
        case .fileImageSize: "fileImageSize"
        case .fileNotReceived: "fileNotReceived"
        case .fileNotApproved: "fileNotApproved"
        case .fallbackToSMPProhibited: "fallbackToSMPProhibited"
        case .inlineFileProhibited: "inlineFileProhibited"
        case .invalidForward: "invalidForward"
        case .invalidChatItemUpdate: "invalidChatItemUpdate"
        case .invalidChatItemDelete: "invalidChatItemDelete"
        case .hasCurrentCall: "hasCurrentCall"
        case .noCurrentCall: "noCurrentCall"
        case .callContact: "callContact"
        case .directMessagesProhibited: "directMessagesProhibited"
        case .agentVersion: "agentVersion"
        case .agentNoSubResult: "agentNoSubResult"
        case .commandError: "commandError"
        case .agentCommandError: "agentCommandError"
        case .invalidFileDescription: "invalidFileDescription"
        case .connectionIncognitoChangeProhibited: "connectionIncognitoChangeProhibited"
        case .connectionUserChangeProhibited: "connectionUserChangeProhibited"
        case .peerChatVRangeIncompatible: "peerChatVRangeIncompatible"
        case .internalError: "internalError"
        case .`exception`: "exception"
        case .unknown: nil
        }
    }

    static func name(_ v: StoreError) -> String? {
        switch v {
        case .duplicateName: "duplicateName"
        case .userNotFound: "userNotFound"
        case .userNotFoundByName: "userNotFoundByName"
        case .userNotFoundByContactId: "userNotFoundByContactId"
        case .userNotFoundByGroupId: "userNotFoundByGroupId"
        case .userNotFoundByFileId: "userNotFoundByFileId"
        case .userNotFoundByContactRequestId: "userNotFoundByContactRequestId"
        case .contactNotFound: "contactNotFound"
        case .contactNotFoundByName: "contactNotFoundByName"
        case .contactNotFoundByMemberId: "contactNotFoundByMemberId"
        case .contactNotReady: "contactNotReady"
        case .duplicateContactLink: "duplicateContactLink"
        case .userContactLinkNotFound: "userContactLinkNotFound"
        case .contactRequestNotFound: "contactRequestNotFound"
        case .contactRequestNotFoundByName: "contactRequestNotFoundByName"
        case .invalidContactRequestEntity: "invalidContactRequestEntity"
        case .invalidBusinessChatContactRequest: "invalidBusinessChatContactRequest"
        case .groupNotFound: "groupNotFound"
        case .groupNotFoundByName: "groupNotFoundByName"
        case .groupMemberNameNotFound: "groupMemberNameNotFound"
        case .groupMemberNotFound: "groupMemberNotFound"
        case .groupMemberNotFoundByIndex: "groupMemberNotFoundByIndex"
        case .memberRelationsVectorNotFound: "memberRelationsVectorNotFound"
        case .groupHostMemberNotFound: "groupHostMemberNotFound"
        case .groupMemberNotFoundByMemberId: "groupMemberNotFoundByMemberId"
        case .memberContactGroupMemberNotFound: "memberContactGroupMemberNotFound"
        case .invalidMemberRelationUpdate: "invalidMemberRelationUpdate"
        case .groupWithoutUser: "groupWithoutUser"
        case .duplicateGroupMember: "duplicateGroupMember"
        case .groupAlreadyJoined: "groupAlreadyJoined"
        case .groupInvitationNotFound: "groupInvitationNotFound"
        case .noteFolderAlreadyExists: "noteFolderAlreadyExists"
        case .noteFolderNotFound: "noteFolderNotFound"
        case .userNoteFolderNotFound: "userNoteFolderNotFound"
        case .sndFileNotFound: "sndFileNotFound"
        case .sndFileInvalid: "sndFileInvalid"
        case .rcvFileNotFound: "rcvFileNotFound"
        case .rcvFileDescrNotFound: "rcvFileDescrNotFound"
        case .fileNotFound: "fileNotFound"
        case .rcvFileInvalid: "rcvFileInvalid"
        case .rcvFileInvalidDescrPart: "rcvFileInvalidDescrPart"
        case .localFileNoTransfer: "localFileNoTransfer"
        case .sharedMsgIdNotFoundByFileId: "sharedMsgIdNotFoundByFileId"
        case .fileIdNotFoundBySharedMsgId: "fileIdNotFoundBySharedMsgId"
        case .sndFileNotFoundXFTP: "sndFileNotFoundXFTP"
        case .rcvFileNotFoundXFTP: "rcvFileNotFoundXFTP"
        case .connectionNotFound: "connectionNotFound"
        case .connectionNotFoundById: "connectionNotFoundById"
        case .connectionNotFoundByMemberId: "connectionNotFoundByMemberId"
        case .pendingConnectionNotFound: "pendingConnectionNotFound"
        case .uniqueID: "uniqueID"
        case .largeMsg: "largeMsg"
        case .internalError: "internalError"
        case .dBException: "dBException"
        case .dBBusyError: "dBBusyError"
        case .badChatItem: "badChatItem"
        case .chatItemNotFound: "chatItemNotFound"
        case .chatItemNotFoundByText: "chatItemNotFoundByText"
        case .chatItemSharedMsgIdNotFound: "chatItemSharedMsgIdNotFound"
        case .chatItemNotFoundByFileId: "chatItemNotFoundByFileId"
        case .chatItemNotFoundByContactId: "chatItemNotFoundByContactId"
        case .chatItemNotFoundByGroupId: "chatItemNotFoundByGroupId"
        case .profileNotFound: "profileNotFound"
        case .duplicateGroupLink: "duplicateGroupLink"
        case .groupLinkNotFound: "groupLinkNotFound"
        case .hostMemberIdNotFound: "hostMemberIdNotFound"
        case .contactNotFoundByFileId: "contactNotFoundByFileId"
        case .noGroupSndStatus: "noGroupSndStatus"
        case .duplicateGroupMessage: "duplicateGroupMessage"
        case .remoteHostNotFound: "remoteHostNotFound"
        case .remoteHostUnknown: "remoteHostUnknown"
        case .remoteHostDuplicateCA: "remoteHostDuplicateCA"
        case .remoteCtrlNotFound: "remoteCtrlNotFound"
        case .remoteCtrlDuplicateCA: "remoteCtrlDuplicateCA"
        case .prohibitedDeleteUser: "prohibitedDeleteUser"
        case .operatorNotFound: "operatorNotFound"
        case .usageConditionsNotFound: "usageConditionsNotFound"
        case .invalidQuote: "invalidQuote"
        case .invalidMention: "invalidMention"
        case .invalidDeliveryTask: "invalidDeliveryTask"
        case .deliveryTaskNotFound: "deliveryTaskNotFound"
        case .invalidDeliveryJob: "invalidDeliveryJob"
        case .deliveryJobNotFound: "deliveryJobNotFound"
        case .workItemError: "workItemError"
        case .unknown: nil
        }
    }

    static func name(_ v: AgentErrorType) -> String? {
        switch v {
        case .cmd: "cmd"
        case .conn: "conn"
        case .noUser: "noUser"
        case .smp: "smp"
        case .ntf: "ntf"
        case .xftp: "xftp"
        case .file: "file"
        case .proxy: "proxy"
        case .rcp: "rcp"
        case .broker: "broker"
        case .agent: "agent"
        case .notice: "notice"
        case .`internal`: "internal"
        case .critical: "critical"
        case .inactive: "inactive"
        case .unknown: nil
        }
    }

    static func name(_ v: CIContent) -> String? {
        switch v {
        case .sndMsgContent: "sndMsgContent"
        case .rcvMsgContent: "rcvMsgContent"
        case .sndDeleted: "sndDeleted"
        case .rcvDeleted: "rcvDeleted"
        case .sndCall: "sndCall"
        case .rcvCall: "rcvCall"
        case .rcvIntegrityError: "rcvIntegrityError"
        case .rcvDecryptionError: "rcvDecryptionError"
        case .rcvGroupInvitation: "rcvGroupInvitation"
        case .sndGroupInvitation: "sndGroupInvitation"
        case .rcvDirectEvent: "rcvDirectEvent"
        case .rcvGroupEvent: "rcvGroupEvent"
        case .sndGroupEvent: "sndGroupEvent"
        case .rcvConnEvent: "rcvConnEvent"
        case .sndConnEvent: "sndConnEvent"
        case .rcvChatFeature: "rcvChatFeature"
        case .sndChatFeature: "sndChatFeature"
        case .rcvChatPreference: "rcvChatPreference"
        case .sndChatPreference: "sndChatPreference"
        case .rcvGroupFeature: "rcvGroupFeature"
        case .sndGroupFeature: "sndGroupFeature"
        case .rcvChatFeatureRejected: "rcvChatFeatureRejected"
        case .rcvGroupFeatureRejected: "rcvGroupFeatureRejected"
        case .sndModerated: "sndModerated"
        case .rcvModerated: "rcvModerated"
        case .rcvBlocked: "rcvBlocked"
        case .sndDirectE2EEInfo: "sndDirectE2EEInfo"
        case .rcvDirectE2EEInfo: "rcvDirectE2EEInfo"
        case .sndGroupE2EEInfo: "sndGroupE2EEInfo"
        case .rcvGroupE2EEInfo: "rcvGroupE2EEInfo"
        case .chatBanner: "chatBanner"
        case .invalidJSON: "invalidJSON"
        case .unknown: nil
        }
    }
}
