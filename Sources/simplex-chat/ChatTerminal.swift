import ChatCore
import Foundation

/// The terminal front end: turns the short commands of SimpleX's CLI (docs/CLI.md) into API
/// commands, and API answers and events into readable lines.
actor ChatTerminal {
    let controller: ChatController
    let output: @Sendable (String) -> Void
    var userId: Int64 = 1
    /// Contact requests by the requester's name, for /ac and /rc.
    var requests: [String: Int64] = [:]
    /// Who a bare line goes to: the last contact we talked with.
    var lastContact: String?
    /// Our last sent item per contact, for edit and delete.
    var lastSent: [String: Int64] = [:]
    /// The last received item per contact, for reactions.
    var lastReceived: [String: Int64] = [:]
    let showQR: @Sendable (String) -> String?

    init(controller: ChatController, output: @escaping @Sendable (String) -> Void, showQR: @escaping @Sendable (String) -> String?) {
        self.controller = controller
        self.output = output
        self.showQR = showQR
    }

    static let help = """
        Connecting:
          /c, /connect                  create a 1-time invitation link (shown with a QR code)
          /c <link>                     connect via an invitation link or a contact address
          /c incognito [<link>]         the same with a random profile for this contact
          /contacts, /cs                list contacts
          /delete <contact>, /d @<name> delete a contact and all messages with them

        Messages:
          @<name> <message>             send a message; a line without a command goes to the last contact
          ! @<name> <new text>          edit your last message to <name>
          \\ @<name>                     delete your last message to <name> for everyone
          /react @<name> <emoji>        react to the last message from <name>

        Other commands:
          /help <topic>                 help on: groups, address, files, messages, settings, db
          /profile, /p [<name> [<full name>]]  show / update your profile
          /users, /user                 list profiles / show the active one
          /markdown                     supported markdown syntax
          /version                      SimpleX Chat version
          /welcome, /w                  the welcome message
          /_...                         any API command (bots/api/COMMANDS.md), answered as JSON
          /quit, /q                     quit chat
        The commands may be abbreviated: /c, /g, /p, /ad, etc.
        """

    static let groupsHelp = """
        Group management commands:
          /group <group>, /g            create a group
          /add <group> <contact> [<role>], /a   add a contact to the group, roles: owner, admin, member (default), observer
          /join <group>, /j             accept a group invitation
          /remove <group> <member>, /rm remove a member from the group
          /leave <group>, /l            leave the group
          /delete #<group>, /d #<group> delete the group
          /members <group>, /ms         list group members
          /groups, /gs                  list groups
          #<group> <message>            send a message to the group
        """

    static let addressHelp = """
        Your contact address commands:
          /address, /ad                 create your address
          /delete_address, /da          delete your address (accepted contacts stay connected)
          /show_address, /sa            show your address
          /accept <name>, /ac           accept a contact request
          /reject <name>, /rc           reject a contact request
        Please note: you can receive spam contact requests, but it's safe to delete the address!
        """

    static let filesHelp = """
        File transfer commands (/file, /freceive, /fcancel, /fstatus) are not available yet in this client:
        files over XFTP are being built.
        """

    static let messagesHelp = """
        Messages:
          @<name> <message>             send a message to a contact
          #<group> <message>            send a message to a group
          <message>                     (no command) to the contact you last talked with
          ! @<name> <new text>          edit your last message to <name>
          \\ @<name>                     delete your last message to <name> for everyone
          /react @<name> <emoji>        react to the last message from <name>
        """

    static let settingsHelp = """
        Settings:
          /smp <servers>                set SMP relays (smp://<fingerprint>@host[:port], space-separated)
          /smp                          show the SMP relays in use
          /smp test <server>            test a relay: connect, create, secure and delete a queue
          /xftp <servers>               the same for file servers
        """

    static let dbHelp = """
        Database (stop the chat first with /_stop, start again with /_start):
          /db encrypt <key>             encrypt both databases with a passphrase
          /db key <old key> <new key>   change the passphrase
          /db decrypt <key>             remove the passphrase
        """

    static let markdownHelp = """
        Markdown:
          *bold*                        bold text
          _italic_                      italic text
          +underlined+                  underlined text
          ~strikethrough~               strikethrough text
          `code snippet`                a + b // no *markdown* here
          !1 text!                      red text (1-6: red, green, blue, yellow, cyan, magenta)
          #secret#                      secret text (can be copy-pasted)
        """

    static func welcome(_ name: String) -> String {
        """
        Welcome \(name)!
        Thank you for using SimpleX Chat (SimpleX-Swift, \(ChatVersionInfo.versionString)).

        To continue:
        [ ] /connect with 2 friends - /help for instructions
        [ ] create a /group with them - /g friends
        [ ] create your chat /address and share it with your friends - /ad

        To show this message again - /welcome (or /w)
        """
    }

    func handle(_ raw: String) async {
        let line = raw.trimmingCharacters(in: .whitespaces)
        guard !line.isEmpty else { return }
        if line.hasPrefix("/_") {
            return await forward(line)
        }
        let words = line.split(separator: " ", maxSplits: 1).map(String.init)
        let arg = words.count > 1 ? words[1].trimmingCharacters(in: .whitespaces) : ""
        switch words[0] {
        case "/help", "/h", "/?":
            switch arg {
            case "": output(Self.help)
            case "groups", "group", "g": output(Self.groupsHelp)
            case "address", "ad": output(Self.addressHelp)
            case "files", "file", "f": output(Self.filesHelp)
            case "messages", "message", "m": output(Self.messagesHelp)
            case "settings", "s": output(Self.settingsHelp)
            case "db", "database": output(Self.dbHelp)
            case "markdown", "md": output(Self.markdownHelp)
            default: output("no help on \(arg); topics: groups, address, files, messages, settings, db, markdown")
            }
        case "/markdown":
            output(Self.markdownHelp)
        case "/version", "/v":
            output(ChatVersionInfo.versionString)
        case "/welcome", "/w":
            await report(await controller.send("/user")) { r in
                Self.welcome(((r["user"] as? [String: Any])?["localDisplayName"] as? String) ?? "")
            }
        case "/p", "/profile":
            await profile(arg)
        case "/sa", "/show_address":
            await showAddress()
        case "/gs", "/groups":
            await report(await controller.send("/_groups \(userId)")) { r in
                let groups = r["groups"] as? [[String: Any]] ?? []
                return groups.isEmpty ? "you have no groups!\nto create: /g <name>" : groups.compactMap { g in
                    (g["localDisplayName"] as? String).map { "#\($0)" + Self.membershipNote(g) }
                }.joined(separator: "\n")
            }
        case "/rm", "/remove":
            let p = arg.split(separator: " ").map(String.init)
            guard p.count == 2 else { return output("usage: /rm <group> <member>") }
            let group = p[0].hasPrefix("#") ? String(p[0].dropFirst()) : p[0]
            guard let g = await groupId(group) else { return output("no group #\(group)") }
            let memberName = p[1].hasPrefix("@") ? String(p[1].dropFirst()) : p[1]
            guard let m = await memberId(g, memberName) else { return output("group #\(group) doesn't have member \(memberName)") }
            await report(await controller.send("/_remove #\(g) \(m)")) { _ in "#\(group): you removed \(memberName) from the group" }
        case "/c", "/connect":
            await connect(arg)
        case "/ad", "/address":
            await address()
        case "/da", "/delete_address":
            await report(await controller.send("/_delete_address \(userId)")) { _ in "Your address is deleted." }
        case "/ac", "/accept":
            await acceptOrReject(arg, accept: true)
        case "/rc", "/reject":
            await acceptOrReject(arg, accept: false)
        case "/contacts", "/cs":
            await listContacts()
        case "/d", "/delete":
            await delete(arg)
        case "/react":
            let p = arg.split(separator: " ", maxSplits: 1).map(String.init)
            guard p.count == 2, p[0].hasPrefix("@") else { return output("usage: /react @<name> <emoji>") }
            let name = String(p[0].dropFirst())
            guard let id = await contactId(name), let item = lastReceived[name] else { return output("no message from \(name) to react to") }
            await report(await controller.send(#"/_reaction @\#(id) \#(item) on {"type":"emoji","emoji":\#(Self.jsonString(p[1]))}"#)) { _ in "reaction sent" }
        case "/g", "/group":
            guard !arg.isEmpty, !arg.contains(" ") else { return output("usage: /g <name>") }
            await report(await controller.send(#"/_group \#(userId) {"displayName":\#(Self.jsonString(arg)),"fullName":""}"#)) { r in
                "group #\(Self.groupName(r["groupInfo"]) ?? arg) is created\nto add members use /a \(arg) <name>"
            }
        case "/a", "/add":
            let p = arg.split(separator: " ").map(String.init)
            guard p.count == 2 || p.count == 3 else { return output("usage: /a <group> <contact> [role]") }
            guard let g = await groupId(p[0]) else { return output("no group \(p[0])") }
            guard let c = await contactId(p[1]) else { return output("no contact \(p[1])") }
            await report(await controller.send("/_add #\(g) \(c) \(p.count == 3 ? p[2] : "member")")) { _ in "invitation to join the group #\(p[0]) sent to \(p[1])" }
        case "/j", "/join":
            guard let g = await groupId(arg) else { return output("no group \(arg)") }
            await report(await controller.send("/_join #\(g)")) { _ in "#\(arg): joining the group..." }
        case "/ms", "/members":
            guard let g = await groupId(arg) else { return output("no group \(arg)") }
            await report(await controller.send("/_members #\(g)")) { r in
                let members = ((r["group"] as? [String: Any])?["members"] as? [[String: Any]]) ?? []
                return members.isEmpty ? "no members" : members.map {
                    "\($0["localDisplayName"] as? String ?? "?"): \($0["memberRole"] as? String ?? ""), \($0["memberStatus"] as? String ?? "")"
                }.joined(separator: "\n")
            }
        case "/l", "/leave":
            guard let g = await groupId(arg) else { return output("no group \(arg)") }
            await report(await controller.send("/_leave #\(g)")) { _ in "#\(arg): you left the group" }
        case "/smp" where arg.hasPrefix("test "):
            await report(await controller.send(line)) { r in
                guard let f = r["testFailure"] as? [String: Any] else { return "SMP server test passed" }
                let step = f["testStep"] as? String ?? "?"
                let why: String = {
                    guard let e = f["testError"], let data = try? JSONSerialization.data(withJSONObject: e),
                        let typed = try? JSONDecoder().decode(AgentErrorType.self, from: data)
                    else { return "\(f["testError"] ?? "")" }
                    return ChatView.describe(agentError: typed)
                }()
                return "SMP server test failed at \(step), \(why)"
            }
        case "/smp", "/xftp":
            await report(await controller.send(line)) { _ in "\(words[0].dropFirst().uppercased()) servers are saved." }
        case "!":
            let p = arg.split(separator: " ", maxSplits: 1).map(String.init)
            guard p.count == 2, p[0].hasPrefix("@") else { return output("usage: ! @<name> <new text>") }
            let name = String(p[0].dropFirst())
            guard let id = await contactId(name), let item = lastSent[name] else { return output("no message to \(name) to edit") }
            await report(await controller.send(#"/_update item @\#(id) \#(item) json {"msgContent":{"type":"text","text":\#(Self.jsonString(p[1]))}}"#)) { r in
                r["type"] as? String == "chatItemNotChanged" ? "message not changed" : "message edited"
            }
        case "\\":
            guard arg.hasPrefix("@") else { return output("usage: \\ @<name>") }
            let name = String(arg.dropFirst())
            guard let id = await contactId(name), let item = lastSent[name] else { return output("no message to \(name) to delete") }
            await report(await controller.send("/_delete item @\(id) \(item) broadcast")) { _ in "message deleted" }
        default:
            if line.hasPrefix("@") {
                let name = String(words[0].dropFirst())
                await send(to: name, arg)
            } else if line.hasPrefix("#") {
                let name = String(words[0].dropFirst())
                guard !arg.isEmpty else { return }
                guard let g = await groupId(name) else { return output("no group \(name)") }
                await report(await controller.send(#"/_send #\#(g) json [{"msgContent":{"type":"text","text":\#(Self.jsonString(arg))}}]"#)) { _ in "" }
            } else if line.hasPrefix("/") {
                // Commands of the core's own syntax (/user, /users, /db encrypt KEY, ...).
                await forward(line)
            } else if let last = lastContact {
                await send(to: last, line)
            } else {
                output("no contact to send to yet: use @<name> <message>")
            }
        }
    }

    // MARK: commands

    private func connect(_ arg: String) async {
        var rest = arg
        var incognito = false
        if rest == "incognito" || rest.hasPrefix("incognito ") {
            incognito = true
            rest = String(rest.dropFirst("incognito".count)).trimmingCharacters(in: .whitespaces)
        }
        let flag = incognito ? " incognito=on" : ""
        if rest.isEmpty {
            await report(await controller.send("/_connect \(userId)\(flag)")) { r in
                let link = ((r["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String) ?? ""
                return "Pass this invitation link to your contact (via another channel):\n\n\(link)\n\n\(self.showQR(link) ?? "")"
                    + "and ask them to connect: /c <invitation_link_above>"
            }
        } else {
            await report(await controller.send("/_connect \(userId)\(flag) \(rest)")) { r in
                switch r["type"] as? String {
                case "sentConfirmation": "confirmation sent!"
                case "sentInvitation": "connection request sent!"
                case "contactAlreadyExists": "you already have this contact: \(Self.name(r["contact"]) ?? "")"
                default: "\(r["type"] ?? "")"
                }
            }
        }
    }

    private func address() async {
        var json = await controller.send("/_show_address \(userId)")
        var created = false
        if (try? Self.parse(json))?.result == nil {
            json = await controller.send("/_address \(userId)")
            created = true
        }
        await report(json) { r in
            let link = created ? ((r["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
                : (((r["contactLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
            let l = link ?? ""
            return "Your contact address\(created ? " is created" : ""):\n\n\(l)\n\n\(self.showQR(l) ?? "")Anybody can send you contact requests with: /c <contact_link_above>"
        }
    }

    private func acceptOrReject(_ name: String, accept: Bool) async {
        guard let id = requests[name] else { return output("no contact request from \(name)") }
        let cmd = accept ? "/_accept \(id)" : "/_reject \(id)"
        await report(await controller.send(cmd)) { _ in
            self.requests[name] = nil
            return accept ? "\(name): accepting contact request..." : "\(name): contact request rejected"
        }
    }

    private func listContacts() async {
        await report(await controller.send("/_contacts \(userId)")) { r in
            let names = (r["contacts"] as? [[String: Any]] ?? []).compactMap { $0["localDisplayName"] as? String }
            return names.isEmpty ? "no contacts" : names.joined(separator: "\n")
        }
    }

    private func send(to name: String, _ text: String) async {
        guard !text.isEmpty else { return }
        guard let id = await contactId(name) else { return output("no contact \(name)") }
        let json = await controller.send(#"/_send @\#(id) json [{"msgContent":{"type":"text","text":\#(Self.jsonString(text))}}]"#)
        guard let r = (try? Self.parse(json))?.result else { return output(Self.errorLine(json)) }
        lastContact = name
        if let item = Self.firstItem(r), let itemId = ((item["meta"] as? [String: Any])?["itemId"] as? NSNumber)?.int64Value {
            lastSent[name] = itemId
        }
    }

    func groupId(_ name: String) async -> Int64? {
        guard let r = (try? Self.parse(await controller.send("/_groups \(userId)")))?.result else { return nil }
        let g = (r["groups"] as? [[String: Any]] ?? []).first { $0["localDisplayName"] as? String == name }
        return (g?["groupId"] as? NSNumber)?.int64Value
    }

    func contactId(_ name: String) async -> Int64? {
        guard let r = (try? Self.parse(await controller.send("/_contacts \(userId)")))?.result else { return nil }
        let c = (r["contacts"] as? [[String: Any]] ?? []).first { $0["localDisplayName"] as? String == name }
        return (c?["contactId"] as? NSNumber)?.int64Value
    }

    private func report(_ json: String, _ ok: ([String: Any]) -> String) async {
        if let r = (try? Self.parse(json))?.result {
            let line = ok(r)
            if !line.isEmpty { output(line) }
        } else {
            output(Self.errorLine(json))
        }
    }

    /// `/p` shows the profile; `/p <name> [<full name>]` changes it.
    private func profile(_ arg: String) async {
        guard let r = (try? Self.parse(await controller.send("/user")))?.result, let user = r["user"] as? [String: Any],
            var profile = user["profile"] as? [String: Any]
        else { return output("error: active user is required") }
        if arg.isEmpty {
            let name = profile["displayName"] as? String ?? ""
            let full = profile["fullName"] as? String ?? ""
            return output("user profile: \(name)" + (full.isEmpty || full == name ? "" : " (\(full))")
                + "\nuse /p <display name> [<full name>] to change it")
        }
        let p = arg.split(separator: " ", maxSplits: 1).map(String.init)
        profile["displayName"] = p[0]
        profile["fullName"] = p.count > 1 ? p[1] : ""
        guard let data = try? JSONSerialization.data(withJSONObject: profile) else { return }
        await report(await controller.send("/_profile \(userId) \(String(decoding: data, as: UTF8.self))")) { r in
            r["type"] as? String == "userProfileNoChange" ? "user profile did not change" : "user profile is changed to \(p[0])"
        }
    }

    private func showAddress() async {
        await report(await controller.send("/_show_address \(userId)")) { r in
            let l = (((r["contactLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String) ?? ""
            return "Your contact address:\n\n\(l)\n\n\(self.showQR(l) ?? "")Anybody can send you contact requests with: /c <contact_link_above>"
        }
    }

    /// `/d @name`, `/d #group`, or `/delete name` (a contact, as SimpleX's CLI reads a bare name).
    private func delete(_ arg: String) async {
        if arg.hasPrefix("#") {
            let name = String(arg.dropFirst())
            guard let g = await groupId(name) else { return output("no group #\(name)") }
            return await report(await controller.send("/_delete #\(g)")) { _ in "#\(name): you deleted the group" }
        }
        let name = arg.hasPrefix("@") ? String(arg.dropFirst()) : arg
        guard !name.isEmpty else { return output("usage: /delete <contact> or /delete #<group>") }
        guard let id = await contactId(name) else { return output("no contact \(name)") }
        await report(await controller.send("/_delete @\(id)")) { _ in "\(name): contact is deleted" }
    }

    /// A command the terminal has no short form for goes to the core as it is; its answer is
    /// shown through the typed view of every response (ChatResponseView.swift).
    private func forward(_ line: String) async {
        let json = await controller.send(line)
        guard let obj = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return output(Self.errorLine(json)) }
        if obj["error"] != nil { return output(Self.errorLine(json)) }
        guard let result = obj["result"], let data = try? JSONSerialization.data(withJSONObject: result),
            let typed = try? JSONDecoder().decode(ChatResponse.self, from: data)
        else { return output("answer not understood by this terminal: \(json)") }
        output(ChatView.describe(response: typed))
    }

    func memberId(_ groupId: Int64, _ name: String) async -> Int64? {
        guard let r = (try? Self.parse(await controller.send("/_members #\(groupId)")))?.result else { return nil }
        let members = ((r["group"] as? [String: Any])?["members"] as? [[String: Any]]) ?? []
        let m = members.first { $0["localDisplayName"] as? String == name }
        return (m?["groupMemberId"] as? NSNumber)?.int64Value
    }

    static func membershipNote(_ g: [String: Any]) -> String {
        let status = ((g["membership"] as? [String: Any])?["memberStatus"] as? String).flatMap(GroupMemberStatus.init(rawValue:))
        return status.map(ChatTerminalNotes.membership) ?? ""
    }

    // MARK: events

    /// One event (`{"result": <event>}`) as lines for the person at the terminal.
    func show(event json: String) {
        guard let e = (try? Self.parse(json))?.result, let type = e["type"] as? String else { return }
        let t = Self.time()
        switch type {
        case "contactConnected":
            let name = Self.name(e["contact"]) ?? "?"
            lastContact = lastContact ?? name
            output("\(t) \(name): contact is connected")
        case "contactConnecting":
            output("\(t) \(Self.name(e["contact"]) ?? "?"): connecting...")
        case "receivedContactRequest":
            let req = e["contactRequest"] as? [String: Any]
            let name = (req?["localDisplayName"] as? String) ?? "?"
            if let id = (req?["contactRequestId"] as? NSNumber)?.int64Value { requests[name] = id }
            output("\(t) \(name) wants to connect to you!\nto accept: /ac \(name)\nto reject: /rc \(name)")
        case "acceptingContactRequest":
            output("\(t) \(Self.name(e["contact"]) ?? "?"): accepting contact request (auto-accept)...")
        case "newChatItems":
            for ci in e["chatItems"] as? [[String: Any]] ?? [] {
                guard let item = ci["chatItem"] as? [String: Any], let meta = item["meta"] as? [String: Any] else { continue }
                let text = (meta["itemText"] as? String) ?? ""
                if let g = Self.groupName((ci["chatInfo"] as? [String: Any])?["groupInfo"]) {
                    let dir = item["chatDir"] as? [String: Any]
                    guard dir?["type"] as? String == "groupRcv" else { continue }
                    let member = ((dir?["groupMember"] as? [String: Any])?["localDisplayName"] as? String) ?? "?"
                    output("\(t) #\(g) \(member)> \(text)")
                    continue
                }
                let name = Self.name((ci["chatInfo"] as? [String: Any])?["contact"]) ?? "?"
                let sent = (item["chatDir"] as? [String: Any])?["type"] as? String == "directSnd"
                if sent { continue }
                lastContact = name
                if let id = (meta["itemId"] as? NSNumber)?.int64Value { lastReceived[name] = id }
                output("\(t) \(name)> \(text)")
            }
        case "chatItemsStatusesUpdated":
            for ci in e["chatItems"] as? [[String: Any]] ?? [] {
                guard (ci["chatInfo"] as? [String: Any])?["contact"] != nil else { continue }
                let name = Self.name((ci["chatInfo"] as? [String: Any])?["contact"]) ?? "?"
                let meta = (ci["chatItem"] as? [String: Any])?["meta"] as? [String: Any]
                let status = (meta?["itemStatus"] as? [String: Any])?["type"] as? String
                let text = (meta?["itemText"] as? String) ?? ""
                if status == "sndRcvd" { output("\(t) @\(name) ✓✓ \(text)") }
                if status == "sndError" { output("\(t) @\(name) ✗ not delivered: \(text)") }
            }
        case "chatItemUpdated":
            let ci = e["chatItem"] as? [String: Any]
            let text = (((ci?["chatItem"] as? [String: Any])?["meta"] as? [String: Any])?["itemText"] as? String) ?? ""
            output("\(t) \(Self.chatName(ci?["chatInfo"]))> [edited] \(text)")
        case "chatItemsDeleted":
            let timed = e["timed"] as? Bool ?? false
            for d in e["chatItemDeletions"] as? [[String: Any]] ?? [] {
                let ci = d["deletedChatItem"] as? [String: Any]
                let text = (((ci?["chatItem"] as? [String: Any])?["meta"] as? [String: Any])?["itemText"] as? String) ?? ""
                output("\(t) \(Self.chatName(ci?["chatInfo"])): \(timed ? "disappeared" : "deleted") \(text)")
            }
        case "chatItemReaction":
            let r = (e["reaction"] as? [String: Any])?["chatReaction"] as? [String: Any]
            let emoji = ((r?["reaction"] as? [String: Any])?["emoji"] as? String) ?? ""
            let name = Self.chatName((e["reaction"] as? [String: Any])?["chatInfo"])
            output("\(t) \(name) \((e["added"] as? Bool ?? true) ? "reacted" : "removed reaction") \(emoji)")
        case "contactUpdated":
            output("\(t) \(Self.name(e["fromContact"]) ?? "?") updated profile: \(Self.name(e["toContact"], display: true) ?? "")")
        case "contactDeletedByContact":
            output("\(t) \(Self.name(e["contact"]) ?? "?") deleted contact with you")
        case "hostDisconnected":
            output("\(t) disconnected from \(e["transportHost"] ?? "relay")")
        case "hostConnected":
            output("\(t) connected to \(e["transportHost"] ?? "relay")")
        case "receivedGroupInvitation":
            let g = Self.groupName(e["groupInfo"]) ?? "?"
            output("\(t) #\(g): \(Self.name(e["contact"]) ?? "?") invites you to join the group as \(e["memberRole"] as? String ?? "member")\nto join: /j \(g)")
        case "userJoinedGroup":
            output("\(t) #\(Self.groupName(e["groupInfo"]) ?? "?"): you joined the group")
        case "joinedGroupMember", "connectedToGroupMember":
            output("\(t) #\(Self.groupName(e["groupInfo"]) ?? "?"): \(Self.memberName(e["member"]) ?? "?") joined the group")
        case "leftMember":
            output("\(t) #\(Self.groupName(e["groupInfo"]) ?? "?"): \(Self.memberName(e["member"]) ?? "?") left the group")
        case "deletedMember":
            output("\(t) #\(Self.groupName(e["groupInfo"]) ?? "?"): \(Self.memberName(e["byMember"]) ?? "?") removed \(Self.memberName(e["deletedMember"]) ?? "?")")
        case "deletedMemberUser":
            output("\(t) #\(Self.groupName(e["groupInfo"]) ?? "?"): \(Self.memberName(e["member"]) ?? "?") removed you from the group")
        case "groupDeleted":
            output("\(t) #\(Self.groupName(e["groupInfo"]) ?? "?"): \(Self.memberName(e["member"]) ?? "?") deleted the group")
        case "contactSndReady":
            output("\(t) \(Self.name(e["contact"]) ?? "?"): you can send messages to contact")
        case "userAcceptedGroupSent":
            output("\(t) #\(Self.groupName(e["groupInfo"]) ?? "?"): joining the group...")
        case "groupLinkConnecting":
            output("\(t) #\(Self.groupName(e["groupInfo"]) ?? "?"): joining the group via its link...")
        case "acceptingGroupJoinRequestMember":
            output("\(t) #\(Self.groupName(e["groupInfo"]) ?? "?"): accepting request to join the group from \(Self.memberName(e["member"]) ?? "?")...")
        case "joinedGroupMemberConnecting":
            output("\(t) #\(Self.groupName(e["groupInfo"]) ?? "?"): \(Self.memberName(e["hostMember"]) ?? "?") added \(Self.memberName(e["member"]) ?? "?") to the group (connecting...)")
        case "memberRole":
            output("\(t) #\(Self.groupName(e["groupInfo"]) ?? "?"): \(Self.memberName(e["byMember"]) ?? "?") changed the role of \(Self.memberName(e["member"]) ?? "?") from \(e["fromRole"] as? String ?? "?") to \(e["toRole"] as? String ?? "?")")
        case "memberBlockedForAll":
            let blocked = e["blocked"] as? Bool ?? true
            output("\(t) #\(Self.groupName(e["groupInfo"]) ?? "?"): \(Self.memberName(e["byMember"]) ?? "?") \(blocked ? "blocked" : "unblocked") \(Self.memberName(e["member"]) ?? "?")")
        case "groupUpdated":
            let to = e["toGroup"] as? [String: Any]
            let name = ((to?["groupProfile"] as? [String: Any])?["displayName"] as? String) ?? Self.groupName(to) ?? "?"
            output("\(t) #\(Self.groupName(e["fromGroup"]) ?? "?"): group profile updated\((e["member_"] as? [String: Any]).map { " by " + (Self.memberName($0) ?? "?") } ?? ""), now #\(name)")
        case "groupMemberUpdated":
            output("\(t) #\(Self.groupName(e["groupInfo"]) ?? "?"): \(Self.memberName(e["fromMember"]) ?? "?") updated profile")
        case "subscriptionStatus":
            let n = (e["connections"] as? [Any])?.count ?? 0
            let status = (e["subscriptionStatus"] as? [String: Any])?["type"] as? String ?? "?"
            output("\(t) \(n) connection(s) on \(e["server"] as? String ?? "relay"): \(status)")
        case "chatErrors":
            for err in e["chatErrors"] as? [Any] ?? [] {
                guard let data = try? JSONSerialization.data(withJSONObject: err),
                    let typed = try? JSONDecoder().decode(ChatError.self, from: data)
                else { continue }
                output("\(t) \(ChatView.describe(error: typed))")
            }
        case "chatItemNotChanged":
            break
        case "chatError":
            let line: String = {
                guard let e = e["chatError"], let data = try? JSONSerialization.data(withJSONObject: e),
                    let typed = try? JSONDecoder().decode(ChatError.self, from: data)
                else { return "error: \(json)" }
                return ChatView.describe(error: typed)
            }()
            output("\(t) \(line)")
        case "messageError":
            output("\(t) message error: \((e["severity"] as? String) ?? "") \((e["errorMessage"] as? String) ?? "")")
        default:
            break
        }
    }

    // MARK: JSON helpers

    static func parse(_ json: String) throws -> (result: [String: Any]?, error: [String: Any]?) {
        let obj = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return (obj?["result"] as? [String: Any], obj?["error"] as? [String: Any])
    }

    /// The error of a core answer as SimpleX's CLI words it (ChatView), never a bare type tag.
    static func errorLine(_ json: String) -> String {
        guard let e = (try? parse(json))?.error, let data = try? JSONSerialization.data(withJSONObject: e) else {
            return "error: \(json)"
        }
        guard let typed = try? JSONDecoder().decode(ChatError.self, from: data) else { return "error: \(json)" }
        return ChatView.describe(error: typed)
    }

    static func name(_ contact: Any?, display: Bool = false) -> String? {
        guard let c = contact as? [String: Any] else { return nil }
        if display { return (c["profile"] as? [String: Any])?["displayName"] as? String }
        return c["localDisplayName"] as? String
    }

    /// A contact's name, or `#group` for a group chat.
    static func chatName(_ chatInfo: Any?) -> String {
        let info = chatInfo as? [String: Any]
        if let g = groupName(info?["groupInfo"]) { return "#" + g }
        return name(info?["contact"]) ?? "?"
    }

    static func groupName(_ groupInfo: Any?) -> String? {
        (groupInfo as? [String: Any])?["localDisplayName"] as? String
    }

    static func memberName(_ member: Any?) -> String? {
        (member as? [String: Any])?["localDisplayName"] as? String
    }

    static func firstItem(_ r: [String: Any]) -> [String: Any]? {
        (r["chatItems"] as? [[String: Any]])?.first?["chatItem"] as? [String: Any]
    }

    static func jsonString(_ s: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [s])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    static func time() -> String {
        let f = DateFormatter()
        f.dateFormat = "HH:mm"
        return f.string(from: Date())
    }
}
