import Foundation
import GRDB
import SMPAgent
import SimplexFoundation
import XFTPClient
import XFTPProtocol

/// Files over XFTP in chats (issue 15; simplex-chat Library/Commands.hs `xftpSndFileTransfer`,
/// `ReceiveFile`, `CancelFile`, Subscriber.hs `processAgentMsgSndFile`/`RcvFile`): a sent file
/// is uploaded after its `x.msg.new` goes out, then each recipient gets its own description in
/// `x.msg.file.descr` parts; a received file is offered on its item and downloaded once the
/// user accepts it (`/freceive`) and its description is complete.
extension ChatController {
    /// simplex-chat `fileChunkSize` (the SMP file chunk size its records carry).
    static let fileChunkSize: Int64 = 15780
    /// simplex-chat `xftpDescrPartSize`: the description text per `x.msg.file.descr`.
    static let descrPartSize = 14000
    /// What the first `x.msg.new` carries in place of the description (`dummyFileDescr`).
    static let dummyFileDescr = FileDescr(fileDescrText: "", fileDescrPartNo: 0, fileDescrComplete: false)

    /// simplex-chat `roundedFDCount`: recipient descriptions are made for a power of two, at
    /// least 4, so the servers do not learn how many recipients a file has.
    static func roundedFDCount(_ n: Int) -> Int {
        guard n > 0 else { return 4 }
        var p = 1
        while p < n { p *= 2 }
        return max(4, p)
    }

    // MARK: places

    /// The folder of work files (encrypted copies, downloaded chunks).
    var fileWorkDirectory: String { config.tempFolder ?? dbPrefix + "_xftp" }

    /// A path as given (absolute, or relative to the files folder) on this file system (`toFSFilePath`).
    func fsFilePath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let folder = files.filesFolder else { return path }
        return (folder as NSString).appendingPathComponent(path)
    }

    /// Where received files go without a path: the files folder, else ~/Downloads (else the
    /// current folder), as simplex-chat's `getDefaultFilesFolder`.
    func receivedFilesFolder() -> String {
        if let f = files.filesFolder { return f }
        let downloads = (NSHomeDirectory() as NSString).appendingPathComponent("Downloads")
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: downloads, isDirectory: &isDir), isDir.boolValue { return downloads }
        return FileManager.default.currentDirectoryPath
    }

    /// The user's XFTP servers, else the configured defaults.
    func xftpServers(userId: Int64) throws(ChatError) -> [XFTPServerAddress] {
        let configured = try store.read { db in
            try db.userServerRows(userId).filter { ($0["protocol"] as String) == "xftp" && ($0["enabled"] as Bool) }.map { $0["server"] as String }
        }
        return (configured.isEmpty ? config.defaultXFTPServers : configured).compactMap { XFTPServerAddress(parsing: $0) }
    }

    // MARK: commands

    func executeFileCommand(_ cmd: ChatCommand) async throws(ChatError) -> ChatResponse {
        switch cmd {
        case .receiveFile(let fileId, let approved, let encrypt, let inline, let path):
            return try await receiveFile(fileId, approvedRelays: approved, encrypt: encrypt, inline: inline, path: path)
        case .cancelFile(let fileId):
            return try await cancelFile(fileId)
        case .fileStatus(let fileId):
            let (r, user) = try fileRowAndUser(fileId)
            guard let item = try fileItem(r) else { throw .errorStore(storeError: .fileNotFound(fileId: fileId)) }
            return .file(.fileTransferStatusXFTP(user: user, chatItem: item))
        case .setFilesFolder(let path):
            do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                throw .error(errorType: .fileWrite(filePath: path, message: "\(error)"))
            }
            files.filesFolder = path
            return .cmdOk(user_: nil)
        case .apiSetEncryptLocalFiles(let on):
            files.encryptLocalFiles = on
            return .cmdOk(user_: nil)
        default:
            throw .error(errorType: .commandError(message: "not a file command"))
        }
    }

    func fileRowAndUser(_ fileId: Int64) throws(ChatError) -> (Row, User) {
        guard let r = try store.read({ db in try db.fileRow(fileId) }) else { throw .errorStore(storeError: .fileNotFound(fileId: fileId)) }
        return (r, try userById(r["user_id"]))
    }

    // MARK: resuming

    /// Transfers under way when the chat stopped continue (`/_start`).
    func resumeFileTransfers() {
        guard let (up, down) = try? store.read({ db in try db.unfinishedTransferIds() }) else { return }
        for id in up where !files.isRunning(id) { startUpload(id) }
        for id in down where !files.isRunning(id) { startDownload(id) }
    }

    // MARK: records

    /// The item a file belongs to, with its chat.
    func fileItem(_ r: Row) throws(ChatError) -> AChatItem? {
        guard let itemId = r["chat_item_id"] as Int64? else { return nil }
        if let groupId = r["group_id"] as Int64? {
            // An item of a member support chat is shown with that chat's scope.
            if let scopeGmId = try store.read({ db in try db.itemSupportScope(itemId) }) {
                return try supportItem(try groupInfo(groupId), itemId, scopeGmId: scopeGmId)
            }
            return try groupItem(groupId, itemId)
        }
        guard let contactId = r["contact_id"] as Int64?, let contact = try store.read({ db in try self.contact(db, contactId) }) else { return nil }
        return try aItem(contact, itemId)
    }

    /// The CIFile of an item, for item views.
    static func itemFile(_ db: Database, _ itemId: Int64) throws -> CIFile? {
        guard let r = try db.itemFileRow(itemId) else { return nil }
        let status = (try? ChatJSON.decode(CIFileStatus.self, from: r["ci_file_status"] as String)) ?? .invalid(text: r["ci_file_status"])
        let args = cryptoArgs(r)
        var f = CIFile(fileId: r["file_id"], fileName: r["file_name"], fileSize: r["file_size"],
                       fileSource: (r["file_path"] as String?).map { CryptoFile(filePath: $0, cryptoArgs: args) }, fileStatus: status)
        if !(r["file_sent"] as Bool), try db.rcvFileDescrRow(r["file_id"]) == nil { f.fileProtocol = .smp }
        return f
    }

    static func cryptoArgs(_ r: Row) -> CryptoFileArgs? {
        guard let k = r["file_crypto_key"] as String?, let n = r["file_crypto_nonce"] as String? else { return nil }
        return CryptoFileArgs(fileKey: k, fileNonce: n)
    }

    func fileTransferMeta(_ fileId: Int64) throws(ChatError) -> FileTransferMeta {
        let (r, _) = try fileRowAndUser(fileId)
        let xftp = (r["transfer_id"] as String?).map {
            XFTPSndFile(agentSndFileId: $0, privateSndFileDescr: r["private_snd_descr"], agentSndFileDeleted: r["agent_file_deleted"],
                        cryptoArgs: Self.cryptoArgs(r))
        }
        return FileTransferMeta(fileId: fileId, xftpSndFile: xftp, xftpRedirectFor: nil, fileName: r["file_name"], filePath: r["file_path"] ?? "",
                                fileSize: r["file_size"], fileInline: nil, chunkSize: r["chunk_size"], cancelled: r["cancelled"])
    }

    func sndFileTransfers(_ fileId: Int64) throws(ChatError) -> [SndFileTransfer] {
        let (r, _) = try fileRowAndUser(fileId)
        return try store.read { db -> [SndFileTransfer] in
            try db.sndRecipientRows(fileId).compactMap { rcp -> SndFileTransfer? in
                guard let (connId, agentConnId, name) = try db.sndRecipientConnection(contactId: rcp["contact_id"], groupMemberId: rcp["group_member_id"])
                else { return nil }
                return SndFileTransfer(fileId: fileId, fileName: r["file_name"], filePath: r["file_path"] ?? "", fileSize: r["file_size"],
                                       chunkSize: r["chunk_size"], recipientDisplayName: name, connId: connId, agentConnId: agentConnId,
                                       groupMemberId: rcp["group_member_id"], fileStatus: FileStatus(rawValue: rcp["file_status"]) ?? .new,
                                       fileDescrId: nil, fileInline: nil)
            }
        }
    }

    func rcvFileTransfer(_ fileId: Int64) throws(ChatError) -> RcvFileTransfer {
        let (r, _) = try fileRowAndUser(fileId)
        let inv = (try? ChatJSON.decode(FileInvitation.self, from: r["file_invitation"] as String? ?? ""))
            ?? FileInvitation(fileName: r["file_name"], fileSize: r["file_size"])
        let d = try store.read { db in try db.rcvFileDescrRow(fileId) }
        let xftp = d.map {
            XFTPRcvFile(rcvFileDescription: RcvFileDescr(fileDescrId: $0["file_descr_id"], fileDescrText: $0["file_descr_text"],
                                                         fileDescrPartNo: $0["file_descr_part_no"], fileDescrComplete: $0["file_descr_complete"]),
                        agentRcvFileId: r["transfer_id"], agentRcvFileDeleted: r["agent_file_deleted"], userApprovedRelays: r["user_approved_relays"])
        }
        return RcvFileTransfer(fileId: fileId, xftpRcvFile: xftp, fileInvitation: inv,
                               fileStatus: RcvFileStatus(name: r["rcv_status"] ?? "new", filePath: r["file_path"]), rcvFileInline: nil,
                               senderDisplayName: r["sender_display_name"] ?? "", chunkSize: r["chunk_size"], cancelled: r["cancelled"],
                               grpMemberId: r["group_member_id"], cryptoArgs: Self.cryptoArgs(r))
    }

    // MARK: errors

    static func describe(_ e: XFTPClientError) -> String { "\(e)" }

    /// An XFTP client failure as the agent reports it (AgentErrorType).
    static func agentError(_ e: XFTPClientError, _ d: FileDescription? = nil) -> AgentErrorType {
        let server = d?.chunks.first?.replicas.first.map { serverKey($0.server) } ?? ""
        switch e {
        case .protocolError(let t), .responseError(let t): return .xftp(serverAddress: server, xftpErr: apiXFTPError(t))
        case .unexpectedResponse(let s): return .broker(brokerAddress: server, brokerErr: .unexpected(respErr: s))
        case .transport(let s): return .broker(brokerAddress: server, brokerErr: .response(respErr: s))
        case .responseTimeout: return .broker(brokerAddress: server, brokerErr: .timeout)
        case .network: return .broker(brokerAddress: server, brokerErr: .network(networkError: .failedError))
        case .io(let s): return .file(fileErr: .fileIO(fileIOError: s))
        case .redirect(let s): return .file(fileErr: .redirect(redirectError: s))
        }
    }

    static func apiXFTPError(_ t: XFTPProtocol.XFTPErrorType) -> XFTPErrorType {
        switch t {
        case .cmd(let c): return SMPCommandError(rawValue: c.rawValue).map { .cmd(cmdErr: $0) } ?? .simple("CMD")
        case .blocked: return .simple("BLOCKED")
        default: return .simple(String(decoding: t.encoded, as: UTF8.self))
        }
    }

    /// simplex-chat `agentFileError`.
    static func fileError(_ e: AgentErrorType) -> FileError {
        switch e {
        case .xftp(_, .simple("AUTH")): .auth
        case .file(.noFile): .noFile
        default: .other(fileError: "\(e)")
        }
    }

    static func fileError(_ e: XFTPClientError) -> FileError { fileError(agentError(e)) }
}

extension MessageTarget {
    /// Whether our broadcast deletion removes the item (full deletion on for us with a contact).
    var fullDeleteForUser: Bool {
        if case .direct(let c, _) = self { return c.mergedPreferences.enabled(.fullDelete).forUser }
        return false
    }
}
