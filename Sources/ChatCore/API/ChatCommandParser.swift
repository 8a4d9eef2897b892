import Foundation

extension ChatCommand {
    /// Parses a command as simplex-chat does (its `chatCommandP`): trailing whitespace is
    /// ignored, anything unknown or malformed is `ChatError.error(.commandError(message))`.
    public static func parse(_ string: String) -> Result<ChatCommand, ChatError> {
        var s = Substring(string)
        while let last = s.last, last.isWhitespace { s = s.dropLast() }
        var best: (depth: Int, message: String)?
        for entry in CommandSyntax.entries {
            for prefix in entry.prefixes where s.hasPrefix(prefix) && CommandSyntax.endsWord(prefix, in: s) {
                var scanner = CommandScanner(s.dropFirst(prefix.count))
                do {
                    let cmd = try entry.parse(&scanner)
                    try scanner.end()
                    return .success(cmd)
                } catch {
                    if best == nil || prefix.count > best?.depth ?? 0 {
                        best = (prefix.count, "\(entry.name): \(error.message)")
                    }
                }
            }
        }
        if let best { return .failure(.commandError(best.message)) }
        let word = s.prefix(while: { $0 != " " })
        return .failure(.commandError(word.isEmpty ? "empty command" : "unknown command \(word.prefix(64))"))
    }

    /// `parse` as a throwing initializer.
    public init(parsing string: String) throws(ChatError) {
        switch ChatCommand.parse(string) {
        case .success(let c): self = c
        case .failure(let e): throw e
        }
    }
}

/// Why one syntax did not match; becomes the `commandError` message.
struct CommandSyntaxError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A cursor over the rest of a command, with the pieces simplex-chat's grammar is made of.
struct CommandScanner {
    private(set) var rest: Substring

    init(_ rest: Substring) { self.rest = rest }

    /// Consumes `literal` when the rest starts with it.
    mutating func take(_ literal: String) -> Bool {
        guard rest.hasPrefix(literal) else { return false }
        rest = rest.dropFirst(literal.count)
        return true
    }

    mutating func expect(_ literal: String) throws(CommandSyntaxError) {
        guard take(literal) else { throw CommandSyntaxError("expected \"\(literal)\"\(found)") }
    }

    /// Only spaces may remain (simplex-chat allows trailing spaces).
    func end() throws(CommandSyntaxError) {
        guard rest.allSatisfy({ $0 == " " }) else { throw CommandSyntaxError("unexpected \"\(rest.prefix(40))\"") }
    }

    var atEnd: Bool { rest.allSatisfy { $0 == " " } }

    private var found: String {
        rest.isEmpty ? ", found end of command" : ", found \"\(rest.prefix(20))\""
    }

    /// A non-negative decimal that fits in an Int64.
    mutating func decimal(_ what: String) throws(CommandSyntaxError) -> Int64 {
        let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
        guard !digits.isEmpty else { throw CommandSyntaxError("expected \(what) (a number)\(found)") }
        guard let n = Int64(digits) else { throw CommandSyntaxError("\(what) out of range") }
        rest = rest.dropFirst(digits.count)
        return n
    }

    mutating func int(_ what: String) throws(CommandSyntaxError) -> Int {
        let n = try decimal(what)
        guard let i = Int(exactly: n), i <= Int(Int32.max) else { throw CommandSyntaxError("\(what) out of range") }
        return i
    }

    mutating func onOff(_ what: String) throws(CommandSyntaxError) -> Bool {
        if take("on") { return true }
        if take("off") { return false }
        throw CommandSyntaxError("expected on|off for \(what)\(found)")
    }

    /// Up to the next space; fails when empty.
    mutating func token(_ what: String) throws(CommandSyntaxError) -> String {
        let t = rest.prefix(while: { $0 != " " })
        guard !t.isEmpty else { throw CommandSyntaxError("expected \(what)\(found)") }
        rest = rest.dropFirst(t.count)
        return String(t)
    }

    /// simplex-chat `verifyCodeP` after a space: digits and spaces (none: nil).
    mutating func verificationCode() throws(CommandSyntaxError) -> String? {
        guard take(" "), !atEnd else { return nil }
        let code = rest.prefix(while: { ($0.isASCII && $0.isNumber) || $0 == " " })
        guard !code.isEmpty else { throw CommandSyntaxError("expected a security code (digits)\(found)") }
        rest = rest.dropFirst(code.count)
        return String(code)
    }

    /// Everything that is left.
    mutating func remainder() -> String {
        defer { rest = rest.dropFirst(rest.count) }
        return String(rest)
    }

    /// The rest of the command as JSON of type `T`.
    mutating func json<T: Decodable>(_ type: T.Type, _ what: String) throws(CommandSyntaxError) -> T {
        let text = remainder()
        guard !text.allSatisfy(\.isWhitespace) else { throw CommandSyntaxError("expected JSON \(what)") }
        do {
            return try ChatJSON.decode(T.self, from: text)
        } catch {
            throw CommandSyntaxError("bad JSON \(what): \(CommandScanner.describe(error))")
        }
    }

    /// `@<id>`, `#<id>[(_support[:<id>])]`, `*<id>` or `:<id>` (simplex-chat `chatRefP`).
    mutating func chatRef() throws(CommandSyntaxError) -> ChatRef {
        let type: ChatType
        if take("@") {
            type = .direct
        } else if take("#") {
            type = .group
        } else if take("*") {
            type = .local
        } else if take(":") {
            type = .contactConnection
        } else {
            throw CommandSyntaxError("expected a chat reference (@id, #id, *id or :id)\(found)")
        }
        let id = try decimal("chat ID")
        let scope = type == .group ? try groupScope() : nil
        return ChatRef(type, id, scope: scope)
    }

    /// `@<id>` or `#<id>[scope]`: where messages can be sent (simplex-chat `sendRefP`).
    mutating func sendRef() throws(CommandSyntaxError) -> ChatRef {
        if take("@") { return try .direct(decimal("contact ID")) }
        if take("#") {
            let id = try decimal("group ID")
            return try .group(id, scope: groupScope())
        }
        throw CommandSyntaxError("expected @<contactId> or #<groupId>\(found)")
    }

    /// `(_support[:<groupMemberId>])`, when present.
    mutating func groupScope() throws(CommandSyntaxError) -> GroupChatScope? {
        guard take("(_support") else { return nil }
        let member: Int64? = take(":") ? try decimal("member ID") : nil
        try expect(")")
        return .memberSupport(groupMemberId_: member)
    }

    /// `<id>[,<id>...]` (simplex-chat's `strP` for a non-empty list).
    mutating func idList() throws(CommandSyntaxError) -> [Int64] {
        var ids = [try decimal("item ID")]
        while take(",") { ids.append(try decimal("item ID")) }
        return ids
    }

    /// ` <role>`: a group member role word (simplex-chat `memberRole`).
    mutating func memberRole() throws(CommandSyntaxError) -> GroupMemberRole {
        try expect(" ")
        let t = try token("member role")
        guard let r = GroupMemberRole(rawValue: t) else {
            throw CommandSyntaxError("unknown member role \"\(t.prefix(20))\" (owner, admin, moderator, member, author or observer)")
        }
        return r
    }

    /// `[ live=on|off]`.
    mutating func liveMessage() throws(CommandSyntaxError) -> Bool {
        take(" live=") ? try onOff("live") : false
    }

    /// `[ ttl=<seconds>|default]`.
    mutating func messageTTL() throws(CommandSyntaxError) -> Int? {
        guard take(" ttl=") else { return nil }
        if take("default") { return nil }
        return try int("ttl")
    }

    /// `[ incognito=on|off]`.
    mutating func incognitoOnOff() throws(CommandSyntaxError) -> Bool {
        take(" incognito=") ? try onOff("incognito") : false
    }

    /// `[ pq_ratchet=on|off]`.
    mutating func pqRatchet() throws(CommandSyntaxError) -> Bool? {
        take(" pq_ratchet=") ? try onOff("pq_ratchet") : nil
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let ctx), DecodingError.valueNotFound(_, let ctx), DecodingError.dataCorrupted(let ctx):
            ctx.codingPath.isEmpty ? ctx.debugDescription : "\(ctx.codingPath.map(\.stringValue).joined(separator: ".")): \(ctx.debugDescription)"
        default: "\(error)"
        }
    }
}

/// The command grammar: for each command its prefixes and how to read the rest, tried in order.
enum CommandSyntax {
    struct Entry: Sendable {
        let name: String
        let prefixes: [String]
        let parse: @Sendable (inout CommandScanner) throws(CommandSyntaxError) -> ChatCommand
    }

    /// A prefix ending in a letter must not be followed by one: `/u` is not a prefix of `/unknown`.
    static func endsWord(_ prefix: String, in s: Substring) -> Bool {
        func wordChar(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }
        guard let last = prefix.last, wordChar(last) else { return true }
        guard let next = s.dropFirst(prefix.count).first else { return true }
        return !wordChar(next)
    }

    static let entries: [Entry] = [
        Entry(name: "/_create user", prefixes: ["/_create user "]) { s throws(CommandSyntaxError) in
            .createActiveUser(try s.json(NewUser.self, "new user"))
        },
        Entry(name: "/users", prefixes: ["/users"]) { _ in .listUsers },
        Entry(name: "/_user", prefixes: ["/_user "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            let pwd: String? = s.take(" ") && !s.atEnd ? try s.json(String.self, "password") : nil
            return .apiSetActiveUser(userId: id, viewPwd: pwd)
        },
        Entry(name: "/_delete user", prefixes: ["/_delete user "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            try s.expect(" del_smp=")
            let del = try s.onOff("del_smp")
            let pwd: String? = s.take(" ") && !s.atEnd ? try s.json(String.self, "password") : nil
            return .apiDeleteUser(userId: id, delSMPQueues: del, viewPwd: pwd)
        },
        Entry(name: "/user", prefixes: ["/user", "/u"]) { _ in .showActiveUser },
        Entry(name: "/_start", prefixes: ["/_start"]) { s throws(CommandSyntaxError) in
            guard s.take(" main=") else { return .startChat(mainApp: true, enableSndFiles: true) }
            let main = try s.onOff("main")
            let snd = s.take(" snd_files=") ? try s.onOff("snd_files") : main
            return .startChat(mainApp: main, enableSndFiles: snd)
        },
        Entry(name: "/_stop", prefixes: ["/_stop"]) { _ in .apiStopChat },
        Entry(name: "/_db encryption", prefixes: ["/_db encryption "]) { s throws(CommandSyntaxError) in
            .apiStorageEncryption(try s.json(DBEncryptionConfig.self, "encryption config"))
        },
        Entry(name: "/db encrypt", prefixes: ["/db encrypt "]) { s throws(CommandSyntaxError) in
            .apiStorageEncryption(DBEncryptionConfig(currentKey: "", newKey: try s.token("key")))
        },
        Entry(name: "/db key", prefixes: ["/db key "]) { s throws(CommandSyntaxError) in
            let current = try s.token("current key")
            try s.expect(" ")
            return .apiStorageEncryption(DBEncryptionConfig(currentKey: current, newKey: try s.token("new key")))
        },
        Entry(name: "/db decrypt", prefixes: ["/db decrypt "]) { s throws(CommandSyntaxError) in
            .apiStorageEncryption(DBEncryptionConfig(currentKey: try s.token("key"), newKey: ""))
        },
        Entry(name: "/db test key", prefixes: ["/db test key "]) { s throws(CommandSyntaxError) in
            .testStorageEncryption(key: try s.token("key"))
        },
        Entry(name: "/_get chats", prefixes: ["/_get chats "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            var pcc = false
            if s.take(" pcc=on") {
                pcc = true
            } else if s.take(" pcc=off") {
                pcc = false
            }
            var pagination = PaginationByTime.defaultPagination
            if s.rest.hasPrefix(" count=") || s.rest.hasPrefix(" after=") || s.rest.hasPrefix(" before=") {
                _ = s.take(" ")
                pagination = try s.paginationByTime()
            }
            var query = ChatListQuery.none
            if s.take(" "), !s.atEnd { query = try s.json(ChatListQuery.self, "chat list query") }
            return .apiGetChats(userId: id, pendingConnections: pcc, pagination: pagination, query: query)
        },
        Entry(name: "/_get chat", prefixes: ["/_get chat "]) { s throws(CommandSyntaxError) in
            let ref = try s.chatRef()
            let tag: String? = s.take(" content=") ? try s.token("content type") : nil
            try s.expect(" ")
            let pagination = try s.chatPagination()
            let search: String? = s.take(" search=") ? s.remainder() : nil
            return .apiGetChat(chatRef: ref, contentTag: tag, pagination: pagination, search: search)
        },
        Entry(name: "/freceive", prefixes: ["/freceive ", "/fr "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("file ID")
            let approved = s.take(" approved_relays=") ? try s.onOff("approved_relays") : false
            let enc: Bool? = s.take(" encrypt=") ? try s.onOff("encrypt") : nil
            let inline: Bool? = s.take(" inline=") ? try s.onOff("inline") : nil
            var path: String?
            if s.take(" ") {
                let p = s.remainder()
                if !p.allSatisfy({ $0 == " " }) { path = p }
            }
            return .receiveFile(fileId: id, userApprovedRelays: approved, storeEncrypted: enc, fileInline: inline, filePath: path)
        },
        Entry(name: "/fcancel", prefixes: ["/fcancel ", "/fc "]) { s throws(CommandSyntaxError) in .cancelFile(fileId: try s.decimal("file ID")) },
        Entry(name: "/fstatus", prefixes: ["/fstatus ", "/fs "]) { s throws(CommandSyntaxError) in .fileStatus(fileId: try s.decimal("file ID")) },
        Entry(name: "/_files_folder", prefixes: ["/_files_folder "]) { s throws(CommandSyntaxError) in
            let p = s.remainder()
            guard !p.allSatisfy({ $0 == " " }) else { throw CommandSyntaxError("expected a folder path") }
            return .setFilesFolder(filePath: p)
        },
        Entry(name: "/_files_encrypt", prefixes: ["/_files_encrypt "]) { s throws(CommandSyntaxError) in
            .apiSetEncryptLocalFiles(enable: try s.onOff("encrypt"))
        },
        Entry(name: "/_send", prefixes: ["/_send "]) { s throws(CommandSyntaxError) in
            let ref = try s.sendRef()
            let live = try s.liveMessage()
            let ttl = try s.messageTTL()
            let msgs: [ComposedMessage]
            if s.take(" json ") {
                msgs = try s.json([ComposedMessage].self, "composed messages")
                guard !msgs.isEmpty else { throw CommandSyntaxError("no messages to send") }
            } else if s.take(" text ") {
                msgs = [ComposedMessage(msgContent: .text(s.remainder()))]
            } else {
                throw CommandSyntaxError("expected \" json <messages>\" or \" text <text>\"")
            }
            return .apiSendMessages(sendRef: ref, liveMessage: live, ttl: ttl, composedMessages: msgs)
        },
        Entry(name: "/_update item", prefixes: ["/_update item "]) { s throws(CommandSyntaxError) in
            let ref = try s.chatRef()
            try s.expect(" ")
            let itemId = try s.decimal("item ID")
            let live = try s.liveMessage()
            let msg: UpdatedMessage
            if s.take(" json") {
                msg = try s.json(UpdatedMessage.self, "updated message")
            } else if s.take(" text ") {
                msg = UpdatedMessage(msgContent: .text(s.remainder()))
            } else {
                throw CommandSyntaxError("expected \" json <message>\" or \" text <text>\"")
            }
            return .apiUpdateChatItem(chatRef: ref, chatItemId: itemId, liveMessage: live, updatedMessage: msg)
        },
        Entry(name: "/_delete item", prefixes: ["/_delete item "]) { s throws(CommandSyntaxError) in
            let ref = try s.chatRef()
            try s.expect(" ")
            let ids = try s.idList()
            try s.expect(" ")
            let word = try s.token("delete mode")
            guard let mode = CIDeleteMode(rawValue: word) else {
                throw CommandSyntaxError("expected broadcast|internal|internalMark, found \"\(word.prefix(20))\"")
            }
            return .apiDeleteChatItem(chatRef: ref, chatItemIds: ids, deleteMode: mode)
        },
        Entry(name: "/_reaction", prefixes: ["/_reaction "]) { s throws(CommandSyntaxError) in
            let ref = try s.chatRef()
            try s.expect(" ")
            let itemId = try s.decimal("item ID")
            try s.expect(" ")
            let add = try s.onOff("reaction")
            try s.expect(" ")
            let reaction = try s.json(MsgReaction.self, "reaction")
            guard reaction.isKnown else { throw CommandSyntaxError("unknown MsgReaction") }
            return .apiChatItemReaction(chatRef: ref, chatItemId: itemId, add: add, reaction: reaction)
        },
        Entry(name: "/_forward plan", prefixes: ["/_forward plan "]) { s throws(CommandSyntaxError) in
            let ref = try s.chatRef()
            try s.expect(" ")
            return .apiPlanForwardChatItems(fromChatRef: ref, chatItemIds: try s.idList())
        },
        Entry(name: "/_forward", prefixes: ["/_forward "]) { s throws(CommandSyntaxError) in
            let to = try s.chatRef()
            try s.expect(" ")
            let from = try s.chatRef()
            try s.expect(" ")
            let ids = try s.idList()
            return .apiForwardChatItems(toChatRef: to, fromChatRef: from, chatItemIds: ids, ttl: try s.messageTTL())
        },
        Entry(name: "/_read chat items", prefixes: ["/_read chat items "]) { s throws(CommandSyntaxError) in
            let ref = try s.chatRef()
            try s.expect(" ")
            return .apiChatItemsRead(chatRef: ref, chatItemIds: try s.idList())
        },
        Entry(name: "/_delete member chat", prefixes: ["/_delete member chat #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            return .apiDeleteMemberSupportChat(groupId: g, groupMemberId: try s.decimal("group member ID"))
        },
        Entry(name: "/_read chat", prefixes: ["/_read chat "]) { s throws(CommandSyntaxError) in
            .apiChatRead(chatRef: try s.chatRef())
        },
        Entry(name: "/_delete", prefixes: ["/_delete "]) { s throws(CommandSyntaxError) in
            let ref = try s.chatRef()
            return .apiDeleteChat(chatRef: ref, chatDeleteMode: try s.chatDeleteMode())
        },
        Entry(name: "/_accept", prefixes: ["/_accept"]) { s throws(CommandSyntaxError) in
            let incognito = try s.incognitoOnOff()
            try s.expect(" ")
            return .apiAcceptContact(incognito: incognito, contactReqId: try s.decimal("contact request ID"))
        },
        Entry(name: "/_reject", prefixes: ["/_reject "]) { s throws(CommandSyntaxError) in
            .apiRejectContact(contactReqId: try s.decimal("contact request ID"))
        },
        Entry(name: "/_profile", prefixes: ["/_profile "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            try s.expect(" ")
            return .apiUpdateProfile(userId: id, profile: try s.json(Profile.self, "profile"))
        },
        Entry(name: "/_set accept member contacts", prefixes: ["/_set accept member contacts "]) { s throws(CommandSyntaxError) in
            let u = try s.decimal("user ID")
            try s.expect(" ")
            return .apiSetUserAutoAcceptMemberContacts(userId: u, onOff: try s.onOff("on|off"))
        },
        Entry(name: "/_set prefs", prefixes: ["/_set prefs @"]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("contact ID")
            try s.expect(" ")
            return .apiSetContactPrefs(contactId: id, preferences: try s.json(Preferences.self, "preferences"))
        },
        Entry(name: "/_set alias", prefixes: ["/_set alias @"]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("contact ID")
            return .apiSetContactAlias(contactId: id, localAlias: s.take(" ") ? s.remainder().trimmingCharacters(in: .whitespaces) : "")
        },
        Entry(name: "/_set alias", prefixes: ["/_set alias :"]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("connection ID")
            return .apiSetConnectionAlias(connId: id, localAlias: s.take(" ") ? s.remainder().trimmingCharacters(in: .whitespaces) : "")
        },
        Entry(name: "/_set custom", prefixes: ["/_set custom @"]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("contact ID")
            let data: [String: JSONValue]? = s.take(" ") && !s.atEnd ? try s.json([String: JSONValue].self, "custom data") : nil
            return .apiSetContactCustomData(contactId: id, customData: data)
        },
        Entry(name: "/_set custom", prefixes: ["/_set custom #"]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("group ID")
            let data: [String: JSONValue]? = s.take(" ") && !s.atEnd ? try s.json([String: JSONValue].self, "custom data") : nil
            return .apiSetGroupCustomData(groupId: id, customData: data)
        },
        Entry(name: "/_set incognito", prefixes: ["/_set incognito :"]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("connection ID")
            try s.expect(" ")
            return .apiSetConnectionIncognito(connId: id, incognito: try s.onOff("incognito"))
        },
        Entry(name: "/_contacts", prefixes: ["/_contacts "]) { s throws(CommandSyntaxError) in
            .apiListContacts(userId: try s.decimal("user ID"))
        },
        Entry(name: "/_connect plan", prefixes: ["/_connect plan "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            try s.expect(" ")
            return .apiConnectPlan(userId: id, connectionLink: try s.token("link"))
        },
        Entry(name: "/_prepare contact", prefixes: ["/_prepare contact "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            try s.expect(" ")
            let full = try s.token("link")
            try s.expect(" ")
            var short: String?
            if !s.rest.hasPrefix("{") {
                short = try s.token("short link")
                try s.expect(" ")
            }
            let data = try s.json(ContactShortLinkData.self, "contact link data")
            return .apiPrepareContact(userId: id, connLink: CreatedConnLink(connFullLink: full, connShortLink: short), contactShortLinkData: data)
        },
        Entry(name: "/_prepare group", prefixes: ["/_prepare group "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            try s.expect(" ")
            let full = try s.token("link")
            try s.expect(" ")
            var short: String?
            if !s.rest.hasPrefix("{") {
                short = try s.token("short link")
                try s.expect(" ")
            }
            let data = try s.json(GroupShortLinkData.self, "group link data")
            return .apiPrepareGroup(userId: id, connLink: CreatedConnLink(connFullLink: full, connShortLink: short), groupShortLinkData: data)
        },
        Entry(name: "/_connect group", prefixes: ["/_connect group #"]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("group ID")
            let incognito = try s.incognitoOnOff()
            var mc: MsgContent?
            if s.take(" text ") {
                mc = .text(s.remainder())
            } else if s.take(" json ") {
                mc = try s.json(MsgContent.self, "message content")
            }
            return .apiConnectPreparedGroup(groupId: id, incognito: incognito, msgContent: mc)
        },
        Entry(name: "/_connect contact", prefixes: ["/_connect contact @"]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("contact ID")
            let incognito = try s.incognitoOnOff()
            var mc: MsgContent?
            if s.take(" text ") {
                mc = .text(s.remainder())
            } else if s.take(" json ") {
                mc = try s.json(MsgContent.self, "message content")
            }
            return .apiConnectPreparedContact(contactId: id, incognito: incognito, msgContent: mc)
        },
        Entry(name: "/_connect", prefixes: ["/_connect "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            let incognito = try s.incognitoOnOff()
            if s.atEnd { return .apiAddContact(userId: id, incognito: incognito) }
            try s.expect(" ")
            let full = try s.token("link")
            let short: String? = s.take(" ") && !s.atEnd ? try s.token("short link") : nil
            return .apiConnect(userId: id, incognito: incognito, connLink: CreatedConnLink(connFullLink: full, connShortLink: short))
        },
        Entry(name: "/connect", prefixes: ["/connect", "/c"]) { s throws(CommandSyntaxError) in
            let incognito = s.take(" incognito") || s.take(" i")
            if s.atEnd { return .addContact(incognito: incognito) }
            try s.expect(" ")
            return .connect(incognito: incognito, connLink: try s.token("link"))
        },
        Entry(name: "/address", prefixes: ["/address", "/ad"]) { _ in .createMyAddress },
        Entry(name: "/delete_address", prefixes: ["/delete_address", "/da"]) { _ in .deleteMyAddress },
        Entry(name: "/show_address", prefixes: ["/show_address", "/sa"]) { _ in .showMyAddress },
        Entry(name: "/_address", prefixes: ["/_address "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            return .apiCreateMyAddress(userId: id, pqRatchet: try s.pqRatchet())
        },
        Entry(name: "/_delete_address", prefixes: ["/_delete_address "]) { s throws(CommandSyntaxError) in
            .apiDeleteMyAddress(userId: try s.decimal("user ID"))
        },
        Entry(name: "/_show_address", prefixes: ["/_show_address "]) { s throws(CommandSyntaxError) in
            .apiShowMyAddress(userId: try s.decimal("user ID"))
        },
        Entry(name: "/_profile_address", prefixes: ["/_profile_address "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            try s.expect(" ")
            return .apiSetProfileAddress(userId: id, enable: try s.onOff("profile address"))
        },
        Entry(name: "/_address_settings", prefixes: ["/_address_settings "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            let pq = try s.pqRatchet()
            try s.expect(" ")
            return .apiSetAddressSettings(userId: id, pqRatchet: pq, settings: try s.json(AddressSettings.self, "address settings"))
        },
        Entry(name: "/smp test", prefixes: ["/smp test "]) { s throws(CommandSyntaxError) in
            .testProtoServer(server: try s.smpServerToken())
        },
        Entry(name: "/_server test", prefixes: ["/_server test "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            try s.expect(" ")
            return .apiTestProtoServer(userId: id, server: try s.smpServerToken())
        },
        Entry(name: "/smp", prefixes: ["/smp"]) { s throws(CommandSyntaxError) in try s.protoServers(.smp) },
        Entry(name: "/xftp", prefixes: ["/xftp"]) { s throws(CommandSyntaxError) in try s.protoServers(.xftp) },
        Entry(name: "/_group", prefixes: ["/_group "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            let incognito = try s.incognitoOnOff()
            try s.expect(" ")
            return .apiNewGroup(userId: id, incognito: incognito, groupProfile: try s.json(GroupProfile.self, "group profile"))
        },
        Entry(name: "/_add", prefixes: ["/_add #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            let c = try s.decimal("contact ID")
            return .apiAddMember(groupId: g, contactId: c, memberRole: try s.memberRole())
        },
        Entry(name: "/_join", prefixes: ["/_join #"]) { s throws(CommandSyntaxError) in
            .apiJoinGroup(groupId: try s.decimal("group ID"))
        },
        Entry(name: "/_members", prefixes: ["/_members #"]) { s throws(CommandSyntaxError) in
            .apiListMembers(groupId: try s.decimal("group ID"))
        },
        Entry(name: "/_groups", prefixes: ["/_groups "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            let contact: Int64? = s.take(" @") ? try s.decimal("contact ID") : nil
            var search: String?
            if s.take(" ") {
                let q = s.remainder()
                search = q.isEmpty ? nil : q
            }
            return .apiListGroups(userId: id, contactId: contact, search: search)
        },
        Entry(name: "/_member role", prefixes: ["/_member role #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            let ms = try s.idList()
            return .apiMembersRole(groupId: g, groupMemberIds: ms, memberRole: try s.memberRole())
        },
        Entry(name: "/_create member contact", prefixes: ["/_create member contact #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            return .apiCreateMemberContact(groupId: g, groupMemberId: try s.decimal("group member ID"))
        },
        Entry(name: "/_invite member contact", prefixes: ["/_invite member contact @"]) { s throws(CommandSyntaxError) in
            let c = try s.decimal("contact ID")
            let mc: MsgContent? = s.take(" ") ? try s.json(MsgContent.self, "message content") : nil
            return .apiSendMemberContactInvitation(contactId: c, msgContent: mc)
        },
        Entry(name: "/_accept member contact", prefixes: ["/_accept member contact @"]) { s throws(CommandSyntaxError) in
            .apiAcceptMemberContact(contactId: try s.decimal("contact ID"))
        },
        Entry(name: "/_accept member", prefixes: ["/_accept member #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            let m = try s.decimal("group member ID")
            return .apiAcceptMember(groupId: g, groupMemberId: m, memberRole: try s.memberRole())
        },
        Entry(name: "/_member settings", prefixes: ["/_member settings #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            let m = try s.decimal("group member ID")
            try s.expect(" ")
            return .apiSetMemberSettings(groupId: g, groupMemberId: m, memberSettings: try s.json(GroupMemberSettings.self, "member settings"))
        },
        Entry(name: "/_block", prefixes: ["/_block #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            let ms = try s.idList()
            try s.expect(" blocked=")
            return .apiBlockMembersForAll(groupId: g, groupMemberIds: ms, blocked: try s.onOff("blocked"))
        },
        Entry(name: "/_remove", prefixes: ["/_remove #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            let ms = try s.idList()
            let withMessages = s.take(" messages=") ? try s.onOff("messages") : false
            return .apiRemoveMembers(groupId: g, groupMemberIds: ms, withMessages: withMessages)
        },
        Entry(name: "/_leave", prefixes: ["/_leave #"]) { s throws(CommandSyntaxError) in
            .apiLeaveGroup(groupId: try s.decimal("group ID"))
        },
        Entry(name: "/_report", prefixes: ["/_report #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            let item = try s.decimal("chat item ID")
            try s.expect(" reason=")
            let word = try s.token("report reason")
            guard let reason = ReportReason(rawValue: word) else { throw CommandSyntaxError("unknown report reason \(word)") }
            let text = s.take(" ") ? s.remainder() : ""
            return .apiReportMessage(groupId: g, chatItemId: item, reportReason: reason, reportText: text)
        },
        Entry(name: "/report", prefixes: ["/report #"]) { s throws(CommandSyntaxError) in
            let g = try s.displayName()
            let member = s.take(" @") ? try s.displayName() : nil
            try s.expect(" ")
            let word = try s.token("report reason")
            guard let reason = ReportReason(rawValue: word) else { throw CommandSyntaxError("unknown report reason \(word)") }
            try s.expect(" ")
            let text = s.remainder()
            guard !text.isEmpty else { throw CommandSyntaxError("expected reported message text") }
            return .reportMessage(groupName: g, contactName: member, reportReason: reason, reportedMessage: text)
        },
        Entry(name: "/_archive reports", prefixes: ["/_archive reports #"]) { s throws(CommandSyntaxError) in
            .apiArchiveReceivedReports(groupId: try s.decimal("group ID"))
        },
        Entry(name: "/_delete reports", prefixes: ["/_delete reports #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            let ids = try s.idList()
            try s.expect(" ")
            let word = try s.token("delete mode")
            guard let mode = CIDeleteMode(rawValue: word) else {
                throw CommandSyntaxError("expected broadcast|internal|internalMark, found \"\(word.prefix(20))\"")
            }
            return .apiDeleteReceivedReports(groupId: g, chatItemIds: ids, deleteMode: mode)
        },
        Entry(name: "/_group_profile", prefixes: ["/_group_profile #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            return .apiUpdateGroupProfile(groupId: g, groupProfile: try s.json(GroupProfile.self, "group profile"))
        },
        Entry(name: "/_create link", prefixes: ["/_create link #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            return .apiCreateGroupLink(groupId: g, memberRole: s.atEnd ? .member : try s.memberRole())
        },
        Entry(name: "/_set link role", prefixes: ["/_set link role #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            return .apiGroupLinkMemberRole(groupId: g, memberRole: try s.memberRole())
        },
        Entry(name: "/_delete link", prefixes: ["/_delete link #"]) { s throws(CommandSyntaxError) in
            .apiDeleteGroupLink(groupId: try s.decimal("group ID"))
        },
        Entry(name: "/_get link", prefixes: ["/_get link #"]) { s throws(CommandSyntaxError) in
            .apiGetGroupLink(groupId: try s.decimal("group ID"))
        },
        Entry(name: "/_get code", prefixes: ["/_get code @"]) { s throws(CommandSyntaxError) in
            .apiGetContactCode(contactId: try s.decimal("contact ID"))
        },
        Entry(name: "/_get code", prefixes: ["/_get code #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            return .apiGetGroupMemberCode(groupId: g, groupMemberId: try s.decimal("member ID"))
        },
        Entry(name: "/_verify code", prefixes: ["/_verify code @"]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("contact ID")
            return .apiVerifyContact(contactId: id, connectionCode: try s.verificationCode())
        },
        Entry(name: "/_verify code", prefixes: ["/_verify code #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            let m = try s.decimal("member ID")
            return .apiVerifyGroupMember(groupId: g, groupMemberId: m, connectionCode: try s.verificationCode())
        },
        Entry(name: "/_switch", prefixes: ["/_switch @"]) { s throws(CommandSyntaxError) in
            .apiSwitchContact(contactId: try s.decimal("contact ID"))
        },
        Entry(name: "/_switch", prefixes: ["/_switch #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            return .apiSwitchGroupMember(groupId: g, groupMemberId: try s.decimal("member ID"))
        },
        Entry(name: "/_abort switch", prefixes: ["/_abort switch @"]) { s throws(CommandSyntaxError) in
            .apiAbortSwitchContact(contactId: try s.decimal("contact ID"))
        },
        Entry(name: "/_abort switch", prefixes: ["/_abort switch #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            return .apiAbortSwitchGroupMember(groupId: g, groupMemberId: try s.decimal("member ID"))
        },
        Entry(name: "/_sync", prefixes: ["/_sync @"]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("contact ID")
            return .apiSyncContactRatchet(contactId: id, force: s.take(" force=on"))
        },
        Entry(name: "/_sync", prefixes: ["/_sync #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            let m = try s.decimal("member ID")
            return .apiSyncGroupMemberRatchet(groupId: g, groupMemberId: m, force: s.take(" force=on"))
        },
        Entry(name: "/_delete member item", prefixes: ["/_delete member item #"]) { s throws(CommandSyntaxError) in
            let g = try s.decimal("group ID")
            try s.expect(" ")
            return .apiDeleteMemberChatItem(groupId: g, chatItemIds: try s.idList())
        },
        Entry(name: "/_network", prefixes: ["/_network "]) { s throws(CommandSyntaxError) in
            .apiSetNetworkConfig(config: try s.json(JSONValue.self, "network config"))
        },
        Entry(name: "/network", prefixes: ["/network"]) { s throws(CommandSyntaxError) in
            if s.atEnd { return .apiGetNetworkConfig }
            try s.expect(" ")
            return .setNetworkConfig(try SimpleNetCfg.parse(&s))
        },
        Entry(name: "/_servers", prefixes: ["/_servers "]) { s throws(CommandSyntaxError) in
            let id = try s.decimal("user ID")
            if s.atEnd { return .apiGetUserServers(userId: id) }
            try s.expect(" ")
            return .apiSetUserServers(userId: id, servers: try s.json(JSONValue.self, "servers"))
        },
    ]
}

extension CommandScanner {
    /// `count=<n>`, `after=<id> count=<n>`, `before=<id> count=<n>`, `around=<id> count=<n>`, `initial=<n>`.
    mutating func chatPagination() throws(CommandSyntaxError) -> ChatPagination {
        if take("count=") { return .last(count: try int("count")) }
        if take("initial=") { return .initial(count: try int("count")) }
        let kind: String
        if take("after=") {
            kind = "after"
        } else if take("before=") {
            kind = "before"
        } else if take("around=") {
            kind = "around"
        } else {
            throw CommandSyntaxError("expected pagination (count=, after=, before=, around= or initial=)")
        }
        let id = try decimal("item ID")
        try expect(" count=")
        let n = try int("count")
        switch kind {
        case "after": return .after(chatItemId: id, count: n)
        case "before": return .before(chatItemId: id, count: n)
        default: return .around(chatItemId: id, count: n)
        }
    }

    /// `count=<n>`, `after=<time> count=<n>` or `before=<time> count=<n>`.
    mutating func paginationByTime() throws(CommandSyntaxError) -> PaginationByTime {
        if take("count=") { return .last(count: try int("count")) }
        let after: Bool
        if take("after=") {
            after = true
        } else if take("before=") {
            after = false
        } else {
            throw CommandSyntaxError("expected pagination (count=, after= or before=)")
        }
        let text = try token("time")
        guard let ts = UTCTime(text) else { throw CommandSyntaxError("bad time \"\(text.prefix(40))\"") }
        try expect(" count=")
        let n = try int("count")
        return after ? .after(ts: ts, count: n) : .before(ts: ts, count: n)
    }

    /// After a chat reference: nothing (full, notify), ` full|entity[ notify=on|off]`,
    /// ` messages`, ` notify=on|off`, or ` <json(ChatDeleteMode)>`.
    mutating func chatDeleteMode() throws(CommandSyntaxError) -> ChatDeleteMode {
        func notify(_ s: inout CommandScanner) throws(CommandSyntaxError) -> Bool {
            s.take(" notify=") ? try s.onOff("notify") : true
        }
        if atEnd { return .full(notify: true) }
        if take(" full") { return .full(notify: try notify(&self)) }
        if take(" entity") { return .entity(notify: try notify(&self)) }
        if take(" messages") { return .messages }
        if rest.hasPrefix(" notify=") { return .full(notify: try notify(&self)) }
        try expect(" ")
        return try json(ChatDeleteMode.self, "delete mode")
    }

    /// `/smp` or `/xftp` with nothing (get), `default` (reset) or server addresses (set).
    /// One `smp://` server address (the server of a test), to the end of the command.
    mutating func smpServerToken() throws(CommandSyntaxError) -> String {
        let t = try token("server address")
        guard t.hasPrefix("smp://"), t.contains("@"), atEnd else { throw CommandSyntaxError("bad smp server address \"\(t.prefix(40))\"") }
        return t
    }

    mutating func protoServers(_ p: ServerProtocol) throws(CommandSyntaxError) -> ChatCommand {
        if atEnd { return .getUserProtoServers(p) }
        try expect(" ")
        if take("default") { return .setUserProtoServers(p, servers: []) }
        var servers: [String] = []
        repeat {
            let t = try token("server address")
            guard t.hasPrefix(p.rawValue + "://"), let at = t.firstIndex(of: "@"), t[t.index(after: at)...].contains(where: { $0 != ":" }) else {
                throw CommandSyntaxError("bad \(p.rawValue) server address \"\(t.prefix(40))\"")
            }
            servers.append(t)
        } while take(" ") && !atEnd
        return .setUserProtoServers(p, servers: servers)
    }
}

/// Display names in terminal commands (simplex-chat `displayNameP`): quoted in `'` or bare,
/// not starting with `#`, `@` or `'`.
extension CommandScanner {
    mutating func displayName() throws(CommandSyntaxError) -> String {
        if take("'") {
            let name = try upTo("'", "display name")
            try expect("'")
            return name
        }
        guard let first = rest.first, first > " ", first != "#", first != "@", first != "'" else {
            throw CommandSyntaxError("invalid first character in display name")
        }
        return try token("display name")
    }

    /// Up to (not including) `end`; fails when empty or when `end` never comes.
    private mutating func upTo(_ end: Character, _ what: String) throws(CommandSyntaxError) -> String {
        guard let i = rest.firstIndex(of: end), i != rest.startIndex else { throw CommandSyntaxError("expected \(what)") }
        let name = String(rest[..<i])
        rest = rest[i...]
        return name
    }
}
