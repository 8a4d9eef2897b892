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
          /sync @<name> [force=on]      re-synchronize encryption with <name> (after decryption errors)
          /code @<name>                 show the security code of the connection with <name>
          /verify @<name> [<code>]      mark the connection verified if <code> is its code (no code: unverify)
          /switch @<name>               move your receiving queue for <name> to a new one (/abort_switch to stop)

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
          /report #<group> [@<member>] <reason> <text>   report the member's latest message starting with <text>
                                        to the moderators; reasons: spam, content, community, profile, other
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
        File transfer commands:
          /file @<contact> <file_path>      send file to contact
          /file #<group> <file_path>        send file to group
          /freceive <file_id> [<file_path>] accept to receive file
          /fcancel <file_id>                cancel sending / receiving file
          /fstatus <file_id>                show file transfer status

        The commands may be abbreviated: /f, /fr, /fc, /fs
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
            await report(.showActiveUser) { r in
                guard case .activeUser(let user) = r else { return Self.unexpected(r) }
                return Self.welcome(user.localDisplayName)
            }
        case "/p", "/profile":
            await profile(arg)
        case "/sa", "/show_address":
            await showAddress()
        case "/gs", "/groups":
            await report(.apiListGroups(userId: userId, contactId: nil, search: nil)) { r in
                guard case .groupsList(_, let groups) = r else { return Self.unexpected(r) }
                return groups.isEmpty ? "you have no groups!\nto create: /g <name>" : groups.map {
                    "#\($0.localDisplayName)" + ChatTerminalNotes.membership($0.membership.memberStatus)
                }.joined(separator: "\n")
            }
        case "/rm", "/remove":
            let p = arg.split(separator: " ").map(String.init)
            guard p.count == 2 else { return output("usage: /rm <group> <member>") }
            let group = p[0].hasPrefix("#") ? String(p[0].dropFirst()) : p[0]
            guard let g = await groupId(group) else { return output("no group #\(group)") }
            let memberName = p[1].hasPrefix("@") ? String(p[1].dropFirst()) : p[1]
            guard let m = await memberId(g, memberName) else { return output("group #\(group) doesn't have member \(memberName)") }
            await report(.apiRemoveMembers(groupId: g, groupMemberIds: [m], withMessages: false)) { _ in "#\(group): you removed \(memberName) from the group" }
        case "/c", "/connect":
            await connect(arg)
        case "/ad", "/address":
            await address()
        case "/da", "/delete_address":
            await report(.apiDeleteMyAddress(userId: userId)) { _ in "Your address is deleted." }
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
            await report(.apiChatItemReaction(chatRef: .direct(id), chatItemId: item, add: true, reaction: .emoji(p[1]))) { _ in "reaction sent" }
        case "/sync", "/switch", "/abort_switch":
            // `/sync @name [force=on]`, `/switch @name`, `/sync #group member`: as SimpleX's CLI.
            var p = arg.split(separator: " ").map(String.init)
            let force = p.last == "force=on"
            if force { p.removeLast() }
            guard let target = p.first, target.hasPrefix("@") || target.hasPrefix("#") else {
                return output("usage: \(words[0]) @<contact> or \(words[0]) #<group> <member>")
            }
            let name = String(target.dropFirst())
            var cmd: ChatCommand
            if target.hasPrefix("@") {
                guard let c = await contactId(name) else { return output("no contact \(name)") }
                cmd = words[0] == "/sync" ? .apiSyncContactRatchet(contactId: c, force: force)
                    : words[0] == "/switch" ? .apiSwitchContact(contactId: c) : .apiAbortSwitchContact(contactId: c)
            } else {
                guard p.count == 2 else { return output("usage: \(words[0]) #<group> <member>") }
                guard let g = await groupId(name) else { return output("no group #\(name)") }
                guard let m = await memberId(g, p[1]) else { return output("group #\(name) doesn't have member \(p[1])") }
                cmd = words[0] == "/sync" ? .apiSyncGroupMemberRatchet(groupId: g, groupMemberId: m, force: force)
                    : words[0] == "/switch" ? .apiSwitchGroupMember(groupId: g, groupMemberId: m) : .apiAbortSwitchGroupMember(groupId: g, groupMemberId: m)
            }
            await report(cmd) { ChatView.describe(response: $0) }
        case "/code", "/verify":
            // `/code @name`, `/code #group @member`, `/verify @name [<code>]`, `/verify #group @member [<code>]`
            // (simplex-chat: a verify without a code clears the verification).
            let p = arg.split(separator: " ").map(String.init)
            guard let target = p.first, target.hasPrefix("@") || target.hasPrefix("#") else {
                return output("usage: \(words[0]) @<contact>\(words[0] == "/verify" ? " [<code>]" : "") or \(words[0]) #<group> @<member>")
            }
            let name = String(target.dropFirst())
            let cmd: ChatCommand
            if target.hasPrefix("@") {
                guard let c = await contactId(name) else { return output("no contact \(name)") }
                let code = p.count > 1 ? p.dropFirst().joined(separator: " ") : nil
                cmd = words[0] == "/code" ? .apiGetContactCode(contactId: c) : .apiVerifyContact(contactId: c, connectionCode: code)
            } else {
                guard p.count >= 2 else { return output("usage: \(words[0]) #<group> @<member>") }
                let memberName = p[1].hasPrefix("@") ? String(p[1].dropFirst()) : p[1]
                guard let g = await groupId(name) else { return output("no group #\(name)") }
                guard let m = await memberId(g, memberName) else { return output("group #\(name) doesn't have member \(memberName)") }
                let code = p.count > 2 ? p.dropFirst(2).joined(separator: " ") : nil
                cmd = words[0] == "/code" ? .apiGetGroupMemberCode(groupId: g, groupMemberId: m)
                    : .apiVerifyGroupMember(groupId: g, groupMemberId: m, connectionCode: code)
            }
            await report(cmd) { ChatView.describe(response: $0) }
        case "/f", "/file":
            await sendFile(arg)
        case "/g", "/group":
            guard !arg.isEmpty, !arg.contains(" ") else { return output("usage: /g <name>") }
            await report(.apiNewGroup(userId: userId, incognito: false, groupProfile: GroupProfile(displayName: arg))) { r in
                guard case .groupCreated(_, let g) = r else { return Self.unexpected(r) }
                return "group #\(g.localDisplayName) is created\nto add members use /a \(arg) <name>"
            }
        case "/a", "/add":
            let p = arg.split(separator: " ").map(String.init)
            guard p.count == 2 || p.count == 3 else { return output("usage: /a <group> <contact> [role]") }
            guard let role = GroupMemberRole(rawValue: p.count == 3 ? p[2] : "member") else { return output("roles: owner, admin, member, observer") }
            guard let g = await groupId(p[0]) else { return output("no group \(p[0])") }
            guard let c = await contactId(p[1]) else { return output("no contact \(p[1])") }
            await report(.apiAddMember(groupId: g, contactId: c, memberRole: role)) { _ in "invitation to join the group #\(p[0]) sent to \(p[1])" }
        case "/j", "/join":
            guard let g = await groupId(arg) else { return output("no group \(arg)") }
            await report(.apiJoinGroup(groupId: g)) { _ in "#\(arg): joining the group..." }
        case "/ms", "/members":
            guard let g = await groupId(arg) else { return output("no group \(arg)") }
            await report(.apiListMembers(groupId: g)) { r in
                guard case .groupMembers(_, let group) = r else { return Self.unexpected(r) }
                return group.members.isEmpty ? "no members" : group.members.map {
                    "\($0.localDisplayName): \($0.memberRole.rawValue), \($0.memberStatus.rawValue)"
                }.joined(separator: "\n")
            }
        case "/l", "/leave":
            guard let g = await groupId(arg) else { return output("no group \(arg)") }
            await report(.apiLeaveGroup(groupId: g)) { _ in "#\(arg): you left the group" }
        case "/smp" where arg.hasPrefix("test "):
            await report(text: line) { r in
                guard case .serverTestResult(_, _, let failure) = r else { return Self.unexpected(r) }
                guard let f = failure else { return "SMP server test passed" }
                return "SMP server test failed at \(f.testStep), \(ChatView.describe(agentError: f.testError))"
            }
        case "/smp", "/xftp":
            await report(text: line) { _ in "\(words[0].dropFirst().uppercased()) servers are saved." }
        case "!":
            let p = arg.split(separator: " ", maxSplits: 1).map(String.init)
            guard p.count == 2, p[0].hasPrefix("@") else { return output("usage: ! @<name> <new text>") }
            let name = String(p[0].dropFirst())
            guard let id = await contactId(name), let item = lastSent[name] else { return output("no message to \(name) to edit") }
            let edit = ChatCommand.apiUpdateChatItem(chatRef: .direct(id), chatItemId: item, liveMessage: false, updatedMessage: UpdatedMessage(msgContent: .text(p[1])))
            await report(edit) { r in
                if case .chatItemNotChanged = r { return "message not changed" }
                return "message edited"
            }
        case "\\":
            guard arg.hasPrefix("@") else { return output("usage: \\ @<name>") }
            let name = String(arg.dropFirst())
            guard let id = await contactId(name), let item = lastSent[name] else { return output("no message to \(name) to delete") }
            await report(.apiDeleteChatItem(chatRef: .direct(id), chatItemIds: [item], deleteMode: .broadcast)) { _ in "message deleted" }
        default:
            if line.hasPrefix("@") {
                let name = String(words[0].dropFirst())
                await send(to: name, arg)
            } else if line.hasPrefix("#") {
                let name = String(words[0].dropFirst())
                guard !arg.isEmpty else { return }
                guard let g = await groupId(name) else { return output("no group \(name)") }
                await report(Self.sendText(.group(g), arg)) { _ in "" }
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

    /// `/f @<contact> <path>` or `/f #<group> <path>`: the file goes as a message of its own.
    private func sendFile(_ arg: String) async {
        let p = arg.split(separator: " ", maxSplits: 1).map(String.init)
        guard p.count == 2, let kind = p[0].first, kind == "@" || kind == "#" else {
            return output("usage: /f @<contact> <file_path> or /f #<group> <file_path>")
        }
        let name = String(p[0].dropFirst())
        let ref: ChatRef
        if kind == "@" {
            guard let id = await contactId(name) else { return output("no contact \(name)") }
            ref = .direct(id)
        } else {
            guard let g = await groupId(name) else { return output("no group \(name)") }
            ref = .group(g)
        }
        let path = (p[1].trimmingCharacters(in: .whitespaces) as NSString).expandingTildeInPath
        let msg = ComposedMessage(fileSource: CryptoFile(filePath: path), msgContent: .file(text: ""))
        await report(.apiSendMessages(sendRef: ref, liveMessage: false, ttl: nil, composedMessages: [msg])) { r in
            guard case .newChatItems(_, let items) = r, let f = items.first?.chatItem.file else { return Self.unexpected(r) }
            return "/f \(p[0]) \(f.fileName)\nuse /fc \(f.fileId) to cancel sending"
        }
    }

    static func sendText(_ ref: ChatRef, _ text: String) -> ChatCommand {
        .apiSendMessages(sendRef: ref, liveMessage: false, ttl: nil, composedMessages: [ComposedMessage(msgContent: .text(text))])
    }

    private func connect(_ arg: String) async {
        var rest = arg
        var incognito = false
        if rest == "incognito" || rest.hasPrefix("incognito ") {
            incognito = true
            rest = String(rest.dropFirst("incognito".count)).trimmingCharacters(in: .whitespaces)
        }
        if rest.isEmpty {
            await report(.apiAddContact(userId: userId, incognito: incognito)) { r in
                guard case .invitation(_, let link, _) = r else { return Self.unexpected(r) }
                let l = link.connFullLink
                return "Pass this invitation link to your contact (via another channel):\n\n\(l)\n\n\(self.showQR(l) ?? "")"
                    + "and ask them to connect: /c <invitation_link_above>"
            }
        } else {
            // The link is read by the core's own parser (every form SimpleX writes).
            await report(text: "/_connect \(userId)\(incognito ? " incognito=on" : "") \(rest)") { r in
                switch r {
                case .sentConfirmation: "confirmation sent!"
                case .sentInvitation: "connection request sent!"
                case .contactAlreadyExists(_, let c): "you already have this contact: \(c.localDisplayName)"
                default: ChatView.describe(response: r)
                }
            }
        }
    }

    private func address() async {
        switch await controller.run(.apiShowMyAddress(userId: userId)) {
        case .success(.userContactLink(_, let link)):
            output(addressLines(link.connLinkContact.connFullLink, created: false))
        default:
            await report(.apiCreateMyAddress(userId: userId, pqRatchet: nil)) { r in
                guard case .userContactLinkCreated(_, let link) = r else { return Self.unexpected(r) }
                return self.addressLines(link.connFullLink, created: true)
            }
        }
    }

    private func addressLines(_ link: String, created: Bool) -> String {
        "Your contact address\(created ? " is created" : ""):\n\n\(link)\n\n\(showQR(link) ?? "")Anybody can send you contact requests with: /c <contact_link_above>"
    }

    private func acceptOrReject(_ name: String, accept: Bool) async {
        guard let id = requests[name] else { return output("no contact request from \(name)") }
        let cmd: ChatCommand = accept ? .apiAcceptContact(incognito: false, contactReqId: id) : .apiRejectContact(contactReqId: id)
        await report(cmd) { _ in
            self.requests[name] = nil
            return accept ? "\(name): accepting contact request..." : "\(name): contact request rejected"
        }
    }

    private func listContacts() async {
        await report(.apiListContacts(userId: userId)) { r in
            guard case .contactsList(_, let contacts) = r else { return Self.unexpected(r) }
            return contacts.isEmpty ? "no contacts" : contacts.map(\.localDisplayName).joined(separator: "\n")
        }
    }

    private func send(to name: String, _ text: String) async {
        guard !text.isEmpty else { return }
        guard let id = await contactId(name) else { return output("no contact \(name)") }
        guard let r = await run(Self.sendText(.direct(id), text)) else { return }
        lastContact = name
        if case .newChatItems(_, let items) = r, let item = items.first { lastSent[name] = item.chatItem.meta.itemId }
    }

    func groupId(_ name: String) async -> Int64? {
        guard case .success(.groupsList(_, let groups)) = await controller.run(.apiListGroups(userId: userId, contactId: nil, search: nil)) else { return nil }
        return groups.first { $0.localDisplayName == name }?.groupId
    }

    func contactId(_ name: String) async -> Int64? {
        guard case .success(.contactsList(_, let contacts)) = await controller.run(.apiListContacts(userId: userId)) else { return nil }
        return contacts.first { $0.localDisplayName == name }?.contactId
    }

    func memberId(_ groupId: Int64, _ name: String) async -> Int64? {
        guard case .success(.groupMembers(_, let group)) = await controller.run(.apiListMembers(groupId: groupId)) else { return nil }
        return group.members.first { $0.localDisplayName == name }?.groupMemberId
    }

    /// Runs a command; a failure is printed as SimpleX's CLI words it, and gives nil.
    private func run(_ cmd: ChatCommand) async -> ChatResponse? {
        switch await controller.run(cmd) {
        case .success(let r): return r
        case .failure(let e):
            output(ChatView.describe(error: e))
            return nil
        }
    }

    private func report(_ cmd: ChatCommand, _ ok: (ChatResponse) -> String) async {
        guard let r = await run(cmd) else { return }
        let line = ok(r)
        if !line.isEmpty { output(line) }
    }

    /// A command in the core's text syntax (a link, a server list): parsed by the core.
    private func report(text: String, _ ok: (ChatResponse) -> String) async {
        switch await controller.execute(text) {
        case .success(let r):
            let line = ok(r)
            if !line.isEmpty { output(line) }
        case .failure(let e):
            output(ChatView.describe(error: e))
        }
    }

    /// An answer this short command does not expect, shown through the typed view.
    static func unexpected(_ r: ChatResponse) -> String { ChatView.describe(response: r) }

    /// `/p` shows the profile; `/p <name> [<full name>]` changes it.
    private func profile(_ arg: String) async {
        guard case .success(.activeUser(let user)) = await controller.run(.showActiveUser) else { return output("error: active user is required") }
        var profile = user.profile.profile
        if arg.isEmpty {
            let name = profile.displayName
            let full = profile.fullName
            return output("user profile: \(name)" + (full.isEmpty || full == name ? "" : " (\(full))")
                + "\nuse /p <display name> [<full name>] to change it")
        }
        let p = arg.split(separator: " ", maxSplits: 1).map(String.init)
        profile.displayName = p[0]
        profile.fullName = p.count > 1 ? p[1] : ""
        await report(.apiUpdateProfile(userId: userId, profile: profile)) { r in
            if case .userProfileNoChange = r { return "user profile did not change" }
            return "user profile is changed to \(p[0])"
        }
    }

    private func showAddress() async {
        await report(.apiShowMyAddress(userId: userId)) { r in
            guard case .userContactLink(_, let link) = r else { return Self.unexpected(r) }
            return self.addressLines(link.connLinkContact.connFullLink, created: false)
        }
    }

    /// `/d @name`, `/d #group`, or `/delete name` (a contact, as SimpleX's CLI reads a bare name).
    private func delete(_ arg: String) async {
        if arg.hasPrefix("#") {
            let name = String(arg.dropFirst())
            guard let g = await groupId(name) else { return output("no group #\(name)") }
            return await report(.apiDeleteChat(chatRef: .group(g), chatDeleteMode: .full(notify: true))) { _ in "#\(name): you deleted the group" }
        }
        let name = arg.hasPrefix("@") ? String(arg.dropFirst()) : arg
        guard !name.isEmpty else { return output("usage: /delete <contact> or /delete #<group>") }
        guard let id = await contactId(name) else { return output("no contact \(name)") }
        await report(.apiDeleteChat(chatRef: .direct(id), chatDeleteMode: .full(notify: true))) { _ in "\(name): contact is deleted" }
    }

    /// A command the terminal has no short form for goes to the core as it is; its answer is
    /// shown through the typed view of every response (ChatResponseView.swift).
    private func forward(_ line: String) async {
        await report(text: line) { ChatView.describe(response: $0) }
    }

    // MARK: events

    /// One event as lines for the person at the terminal. Every event is named here, so a new
    /// one does not compile until it is shown or deliberately kept silent.
    func show(event e: ChatEvent) {
        let t = Self.time()
        switch e {
        case .contactConnected(_, let contact, _):
            lastContact = lastContact ?? contact.localDisplayName
            output("\(t) \(contact.localDisplayName): contact is connected")
        case .contactConnecting(_, let contact):
            output("\(t) \(contact.localDisplayName): connecting...")
        case .receivedContactRequest(_, let req, _):
            requests[req.localDisplayName] = req.contactRequestId
            output("\(t) \(req.localDisplayName) wants to connect to you!\nto accept: /ac \(req.localDisplayName)\nto reject: /rc \(req.localDisplayName)")
        case .acceptingContactRequest(_, let contact):
            output("\(t) \(contact.localDisplayName): accepting contact request (auto-accept)...")
        case .acceptingBusinessRequest(_, let g):
            output("\(t) #\(g.localDisplayName): accepting business address request...")
        case .newChatItems(_, let items):
            for ci in items {
                // A new chat's own items (e2e notice, feature items) are not printed, as simplex-chat's
                // View.hs (`viewChatItem` with doShow off shows only message contents of these).
                switch ci.chatItem.content {
                case .rcvDirectE2EEInfo, .rcvGroupE2EEInfo, .rcvChatFeature, .rcvGroupFeature, .chatBanner: continue
                default: break
                }
                let text = ci.chatItem.meta.itemText
                switch (ci.chatInfo, ci.chatItem.chatDir) {
                case (.group(let g, _), .groupRcv(let member)):
                    output("\(t) #\(g.localDisplayName) \(member?.localDisplayName ?? "?")> \(text)")
                    if let f = ci.chatItem.file { output(ChatView.fileOffer(f)) }
                case (.direct(let contact), .directRcv):
                    lastContact = contact.localDisplayName
                    lastReceived[contact.localDisplayName] = ci.chatItem.meta.itemId
                    output("\(t) \(contact.localDisplayName)> \(text)")
                    if let f = ci.chatItem.file { output(ChatView.fileOffer(f)) }
                default:
                    continue
                }
            }
        case .chatItemsStatusesUpdated(_, let items):
            for ci in items {
                guard case .direct(let contact) = ci.chatInfo else { continue }
                let text = ci.chatItem.meta.itemText
                switch ci.chatItem.meta.itemStatus {
                case .sndRcvd: output("\(t) @\(contact.localDisplayName) ✓✓ \(text)")
                case .sndError: output("\(t) @\(contact.localDisplayName) ✗ not delivered: \(text)")
                default: continue
                }
            }
        case .chatItemUpdated(_, let ci):
            output("\(t) \(Self.chatName(ci.chatInfo))> [edited] \(ci.chatItem.meta.itemText)")
        case .chatItemsDeleted(_, let deletions, _, let timed):
            for d in deletions {
                output("\(t) \(Self.chatName(d.deletedChatItem.chatInfo)): \(timed ? "disappeared" : "deleted") \(d.deletedChatItem.chatItem.meta.itemText)")
            }
        case .groupChatItemsDeleted(_, let g, let ids, _, let member):
            output("\(t) #\(g.localDisplayName): \(ids.count) report(s) archived" + (member.map { " by \($0.localDisplayName)" } ?? ""))
        case .chatItemReaction(_, let added, let reaction):
            let emoji: String = if case .emoji(let e) = reaction.chatReaction.reaction { e } else { "" }
            output("\(t) \(Self.chatName(reaction.chatInfo)) \(added ? "reacted" : "removed reaction") \(emoji)")
        case .contactUpdated(_, let from, let to):
            output("\(t) \(from.localDisplayName) updated profile: \(to.profile.displayName)")
        case .contactDeletedByContact(_, let contact):
            output("\(t) \(contact.localDisplayName) deleted contact with you")
        case .hostDisconnected(_, let host):
            output("\(t) disconnected from \(host)")
        case .hostConnected(_, let host):
            output("\(t) connected to \(host)")
        case .receivedGroupInvitation(_, let g, let contact, _, let role):
            output("\(t) #\(g.localDisplayName): \(contact.localDisplayName) invites you to join the group as \(role.rawValue)\nto join: /j \(g.localDisplayName)")
        case .userJoinedGroup(_, let g, _):
            output("\(t) #\(g.localDisplayName): you joined the group")
        case .joinedGroupMember(_, let g, let m), .connectedToGroupMember(_, let g, let m, _):
            output("\(t) #\(g.localDisplayName): \(m.localDisplayName) joined the group")
        case .leftMember(_, let g, let m):
            output("\(t) #\(g.localDisplayName): \(m.localDisplayName) left the group")
        case .newMemberContactReceivedInv(_, let ct, let g, let m):
            output("\(t) #\(g.localDisplayName) \(m.localDisplayName) is creating direct contact \(ct.localDisplayName) with you\nto accept: /_accept member contact @\(ct.contactId)")
        case .contactAndMemberAssociated(_, let ct, let g, let m, let updated):
            // simplex-chat View.hs `viewContactAndMemberAssociated`.
            output("\(t) contact and member are merged: \(ct.localDisplayName), #\(g.localDisplayName) \(m.localDisplayName)\nuse @\(updated.localDisplayName) <message> to send messages")
        case .unknownMemberCreated(_, let g, let by, let m):
            output("\(t) #\(g.localDisplayName): \(by.localDisplayName) forwarded a message from an unknown member, creating unknown member record \(m.localDisplayName)")
        case .unknownMemberAnnounced(_, let g, let by, let unknown, let announced):
            output("\(t) #\(g.localDisplayName): \(by.localDisplayName) updated unknown member \(unknown.localDisplayName) to \(announced.localDisplayName)")
        case .deletedMember(_, let g, let by, let deleted, _):
            output("\(t) #\(g.localDisplayName): \(by.localDisplayName) removed \(deleted.localDisplayName)")
        case .deletedMemberUser(_, let g, let m, _):
            output("\(t) #\(g.localDisplayName): \(m.localDisplayName) removed you from the group")
        case .groupDeleted(_, let g, let m):
            output("\(t) #\(g.localDisplayName): \(m.localDisplayName) deleted the group")
        case .contactSndReady(_, let contact):
            output("\(t) \(contact.localDisplayName): you can send messages to contact")
        case .userAcceptedGroupSent(_, let g, _):
            output("\(t) #\(g.localDisplayName): joining the group...")
        case .groupLinkConnecting(_, let g, _):
            output("\(t) #\(g.localDisplayName): joining the group via its link...")
        case .businessRequestAlreadyAccepted(_, let g):
            output("\(t) #\(g.localDisplayName): repeated request, the business chat exists already")
        case .businessLinkConnecting(_, let g, _, let c):
            output("\(t) #\(g.localDisplayName): @\(c.localDisplayName) is a business, joining its chat...")
        case .acceptingGroupJoinRequestMember(_, let g, let m):
            output("\(t) #\(g.localDisplayName): accepting request to join the group from \(m.localDisplayName)...")
        case .groupLinkRejected(_, let g, let reason):
            output("\(t) #\(g.localDisplayName): joining the group rejected: \(reason.text)")
        case .rejectingGroupJoinRequestMember(_, let g, let m, let reason):
            output("\(t) #\(g.localDisplayName): rejecting request to join the group from \(m.localDisplayName), reason: \(reason.text)")
        case .joinedGroupMemberConnecting(_, let g, let host, let m):
            output("\(t) #\(g.localDisplayName): \(host.localDisplayName) added \(m.localDisplayName) to the group (connecting...)")
        case .memberAcceptedByOther(_, let g, let by, let m):
            output("\(t) #\(g.localDisplayName): \(by.localDisplayName) accepted \(m.localDisplayName) to the group")
        case .memberRole(_, let g, let by, let m, let from, let to):
            output("\(t) #\(g.localDisplayName): \(by.localDisplayName) changed the role of \(m.localDisplayName) from \(from.rawValue) to \(to.rawValue)")
        case .memberBlockedForAll(_, let g, let by, let m, let blocked):
            output("\(t) #\(g.localDisplayName): \(by.localDisplayName) \(blocked ? "blocked" : "unblocked") \(m.localDisplayName)")
        case .groupUpdated(_, let from, let to, let member):
            output("\(t) #\(from.localDisplayName): group profile updated\(member.map { " by " + $0.localDisplayName } ?? ""), now #\(to.groupProfile.displayName)")
        case .groupMemberUpdated(_, let g, let from, _):
            output("\(t) #\(g.localDisplayName): \(from.localDisplayName) updated profile")
        case .subscriptionStatus(let server, let status, let connections):
            output("\(t) \(connections.count) connection(s) on \(server): \(Self.statusName(status))")
        case .chatErrors(let errors):
            for err in errors { output("\(t) \(ChatView.describe(error: err))") }
        case .chatError(let err):
            output("\(t) \(ChatView.describe(error: err))")
        case .messageError(_, let severity, let message):
            output("\(t) message error: \(severity) \(message)")
        case .contactRatchetSync(_, let c, let progress):
            output("\(t) \(c.localDisplayName): \(Self.syncText(progress.ratchetSyncStatus))")
        case .groupMemberRatchetSync(_, let g, let m, let progress):
            output("\(t) #\(g.localDisplayName) \(m.localDisplayName): \(Self.syncText(progress.ratchetSyncStatus))")
        case .contactVerificationReset(_, let c):
            output("\(t) \(c.localDisplayName): security code changed")
        case .groupMemberVerificationReset(_, let g, let m):
            output("\(t) #\(g.localDisplayName) \(m.localDisplayName): security code changed")
        case .contactSwitch(_, let c, let p):
            if let line = Self.switchLine(c.localDisplayName, p) { output("\(t) \(line)") }
        case .groupMemberSwitch(_, let g, let m, let p):
            if let line = Self.switchLine(m.localDisplayName, p) { output("\(t) #\(g.localDisplayName): \(line)") }
        case .file(let f):
            if let line = ChatView.describe(fileEvent: f) { output("\(t) \(line)") }
        case .chatItemNotChanged, .unknown:
            break
        }
    }

    /// simplex-chat `ratchetSyncStatusToText`.
    static func syncText(_ s: RatchetSyncState) -> String {
        switch s {
        case .ok: "connection synchronized"
        case .allowed: "decryption error (connection may be out of sync), synchronization allowed"
        case .required: "decryption error (connection out of sync), synchronization required"
        case .started: "connection synchronization started"
        case .agreed: "connection synchronization agreed"
        }
    }

    /// simplex-chat `viewContactSwitch`: only the start and the end are shown.
    static func switchLine(_ name: String, _ p: SwitchProgress) -> String? {
        let phase: String
        switch p.switchPhase {
        case .started: phase = "started changing address"
        case .completed: phase = "changed address"
        case .confirmed, .secured: return nil
        }
        return p.queueDirection == "rcv" ? "\(name): you \(phase)" : "\(name) \(phase) for you"
    }

    /// A subscription status as the API names it.
    static func statusName(_ s: SubscriptionStatus) -> String {
        switch s {
        case .active: "active"
        case .pending: "pending"
        case .removed(let why): "removed (\(why))"
        case .noSub: "noSub"
        case .unknown: "?"
        }
    }

    /// A contact's name, or `#group` for a group chat.
    static func chatName(_ info: ChatInfo) -> String {
        switch info {
        case .direct(let contact): contact.localDisplayName
        case .group(let g, _): "#" + g.localDisplayName
        default: "?"
        }
    }

    static func time() -> String {
        let f = DateFormatter()
        f.dateFormat = "HH:mm"
        return f.string(from: Date())
    }
}
