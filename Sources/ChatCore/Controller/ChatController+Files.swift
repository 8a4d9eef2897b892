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

    // MARK: sending

    /// A file about to be sent with a message: its row, the invitation for `x.msg.new`, and the
    /// item's CIFile (sndStored until the upload moves).
    struct PreparedSndFile {
        var fileId: Int64
        var invitation: FileInvitation
    }

    /// Who gets a sent file's description once it is uploaded: the contact, or the members.
    enum FileRecipients {
        case contact(Int64)
        case members(groupId: Int64, [Int64])
    }

    /// Checks the file (`checkSndFile`) and records it; the upload starts with `startSndFile`
    /// once the item exists.
    func prepareSndFile(userId: Int64, source: CryptoFile, to recipients: FileRecipients) throws(ChatError) -> PreparedSndFile {
        let fsPath = fsFilePath(source.filePath)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: fsPath, isDirectory: &isDir), !isDir.boolValue else {
            throw .error(errorType: .fileNotFound(message: source.filePath))
        }
        guard var size = PosixFile.size(of: fsPath) else { throw .error(errorType: .fileNotFound(message: source.filePath)) }
        if source.cryptoArgs != nil { size -= 16 }
        guard size >= 0, size <= FileDescription.maxFileSize else { throw .error(errorType: .fileSize(filePath: source.filePath)) }
        guard !(try xftpServers(userId: userId)).isEmpty else {
            throw .error(errorType: .commandError(message: "no XFTP servers to send files (set them with /xftp)"))
        }
        let name = (source.filePath as NSString).lastPathComponent
        let invitation = FileInvitation(fileName: name, fileSize: size, fileDescr: Self.dummyFileDescr)
        let inv = try json(invitation), status = try json(CIFileStatus.sndStored)
        let transferId = Base64URL.encode(SecureRandom.bytes(12))
        let now = Self.now
        let fileId = try store.write { db -> Int64 in
            var f = Database.NewFile(userId: userId, sent: true, name: name, size: size, chunkSize: Self.fileChunkSize, path: source.filePath,
                                     cryptoArgs: source.cryptoArgs, statusJSON: status, invitationJSON: inv, transferId: transferId)
            switch recipients {
            case .contact(let id):
                f.contactId = id
                f.recipientCount = 1
            case .members(let groupId, let ms):
                f.groupId = groupId
                f.recipientCount = ms.count
            }
            let id = try db.insertFile(f, at: now)
            switch recipients {
            case .contact(let c): try db.insertSndRecipient(id, contactId: c, groupMemberId: nil, at: now)
            case .members(_, let ms): for m in ms { try db.insertSndRecipient(id, contactId: nil, groupMemberId: m, at: now) }
            }
            return id
        }
        return PreparedSndFile(fileId: fileId, invitation: invitation)
    }

    /// Who a file sent to the target goes to: the contact, or the members connected now
    /// (simplex-chat sends descriptions only to members with a ready connection).
    func fileRecipients(_ target: MessageTarget) throws(ChatError) -> FileRecipients {
        switch target {
        case .direct(let c, _): return .contact(c.contactId)
        case .group(let g): return .members(groupId: g.groupId, try groupRecipients(g.groupId).map(\.0))
        }
    }

    /// After the send: each file whose item was stored is linked to it and its upload starts;
    /// a file whose message was not sent is dropped.
    func startSndFiles(_ target: MessageTarget, _ sent: [(fileId: Int64, sharedMsgId: SharedMsgId)]) {
        var unsent: [Int64] = []
        for (fileId, shared) in sent {
            let itemId = try? store.read { db -> Int64? in
                switch target {
                case .direct(let c, _): try db.contactItemId(c.contactId, sharedMsgId: shared.base64url, sent: true)
                case .group(let g): try db.sentGroupItemId(g.groupId, sharedMsgId: shared.base64url)
                }
            }
            guard let itemId = itemId ?? nil,
                  (try? store.write({ db in try db.setFileItem(fileId, chatItemId: itemId, sharedMsgId: shared.base64url, at: Self.now) })) != nil
            else {
                unsent.append(fileId)
                continue
            }
            startUpload(fileId)
        }
        discardSndFiles(unsent)
    }

    func discardSndFiles(_ fileIds: [Int64]) {
        guard !fileIds.isEmpty else { return }
        _ = try? store.write { db in for id in fileIds { try db.deleteFile(id) } }
    }

    func startUpload(_ fileId: Int64) {
        files.start(fileId) { [self] in await self.runUpload(fileId) }
    }

    private func progressStore(_ fileId: Int64, sent: Bool, description: FileDescription? = nil) -> ChatProgressStore {
        ChatProgressStore(dbQueue: store.dbQueue) { key, value in
            let progress = sent ? TransferProgress.upload(value) : description.flatMap { TransferProgress.download(value, $0) }
            guard key.hasPrefix(sent ? "up-" : "down-"), !key.hasSuffix("-redirect"), let (done, total) = progress else { return }
            Task { await self.fileProgress(fileId, sent: sent, done: done, total: total) }
        }
    }

    /// The upload (retried while the network fails); the result goes to `uploadDone`.
    func runUpload(_ fileId: Int64) async {
        guard let r = try? store.read({ db in try db.fileRow(fileId) }), !(r["cancelled"] as Bool),
              let transferId = r["transfer_id"] as String?, let path = r["file_path"] as String?,
              let servers = try? xftpServers(userId: r["user_id"]), !servers.isEmpty
        else { return }
        let name: String = r["file_name"]
        let work = fileWorkDirectory
        let transfer = XFTPFileTransfer(pool: files.pool, progress: progressStore(fileId, sent: true), workDirectory: work)
        var source = fsFilePath(path)
        var plainCopy: String?
        if let key = r["file_crypto_key"] as String?, let nonce = r["file_crypto_nonce"] as String? {
            // The XFTP encryption reads a plain file: an encrypted local file is opened into the work folder.
            let copy = (work as NSString).appendingPathComponent("src-\(transferId)")
            do {
                try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
                try LocalFileCrypto.decrypt(from: source, to: copy, CryptoFileArgs(fileKey: key, fileNonce: nonce))
            } catch {
                uploadFailed(fileId, .io("\(error)"))
                return
            }
            source = copy
            plainCopy = copy
        }
        defer { if let plainCopy { PosixFile.remove(plainCopy) } }
        let count = Self.roundedFDCount(r["snd_recipient_count"] as Int? ?? 1)
        var delay = 1.0
        var warned = false
        while !Task.isCancelled {
            do {
                let result = try await transfer.upload(sourcePath: source, fileName: name, servers: servers, recipientCount: count, transferId: transferId)
                guard !Task.isCancelled else { return }
                await uploadDone(fileId, result)
                return
            } catch {
                guard !Task.isCancelled else { return }
                guard Self.temporary(error) else {
                    uploadFailed(fileId, error)
                    return
                }
                if !warned {
                    warned = true
                    uploadWarning(fileId, error)
                }
                try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                delay = min(delay * 2, 30)
            }
        }
    }

    /// Network failures are retried (the agent's `temporaryOrHostError`); the rest end the transfer.
    static func temporary(_ e: XFTPClientError) -> Bool {
        switch e {
        case .network, .responseTimeout, .transport: true
        case .protocolError(let t), .responseError(let t): t == .session || t == .handshake || t == .timeout
        default: false
        }
    }

    func fileProgress(_ fileId: Int64, sent: Bool, done: Int64, total: Int64) {
        guard let r = try? store.read({ db in try db.fileRow(fileId) }), !(r["cancelled"] as Bool),
              let current = try? ChatJSON.decode(CIFileStatus.self, from: r["ci_file_status"] as String), let user = try? userById(r["user_id"])
        else { return }
        let status: CIFileStatus
        switch (sent, current) {
        case (true, .sndStored), (true, .sndTransfer), (true, .sndWarning):
            if case .sndTransfer(let p, let t) = current, p == done, t == total { return }
            status = .sndTransfer(sndProgress: done, sndTotal: total)
        case (false, .rcvAccepted), (false, .rcvTransfer), (false, .rcvWarning):
            if case .rcvTransfer(let p, let t) = current, p == done, t == total { return }
            status = .rcvTransfer(rcvProgress: done, rcvTotal: total)
        default: return
        }
        guard (try? setFileStatus(fileId, status)) != nil else { return }
        let item = try? fileItem(r)
        if sent {
            guard let meta = try? fileTransferMeta(fileId) else { return }
            emit(.file(.sndFileProgressXFTP(user: user, chatItem_: item, fileTransferMeta: meta, sentSize: done, totalSize: total)))
        } else {
            guard let ft = try? rcvFileTransfer(fileId) else { return }
            emit(.file(.rcvFileProgressXFTP(user: user, chatItem_: item, receivedSize: done, totalSize: total, rcvFileTransfer: ft)))
        }
    }

    func setFileStatus(_ fileId: Int64, _ status: CIFileStatus) throws(ChatError) {
        let s = try json(status)
        try store.write { db in try db.setFileStatus(fileId, s, at: Self.now) }
    }

    /// SFDONE: the sender's description is kept (to delete the file later) and each recipient's
    /// goes to it in `x.msg.file.descr` parts over its connection.
    func uploadDone(_ fileId: Int64, _ result: XFTPUploadResult) async {
        guard let (r, user) = try? fileRowAndUser(fileId) else { return }
        if r["cancelled"] as Bool {
            // Cancelled while the last chunk went up: the file must not stay on the servers.
            deleteFromServers(result.sender)
            return
        }
        let now = Self.now
        _ = try? store.write { db in
            try db.setPrivateSndDescr(fileId, result.sender.yaml, at: now)
            try db.setAgentFileDeleted(fileId, at: now)
        }
        guard let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }) else { return }
        let recipients = (try? store.read { db in try db.sndRecipientRows(fileId) }) ?? []
        var errors: [ChatError] = []
        for (i, rcp) in recipients.enumerated() where i < result.recipients.count {
            let text = result.recipients[i].yaml
            let rcpId: Int64 = rcp["snd_file_recipient_id"]
            guard let (_, agentConnId, _) = try? store.read({ db in
                try db.sndRecipientConnection(contactId: rcp["contact_id"], groupMemberId: rcp["group_member_id"])
            }) else { continue }
            do {
                for part in Self.splitFileDescr(text) {
                    try await sendEvent(agentConnId, .msgFileDescr(msgId: shared, fileDescr: part))
                }
                try store.write { db in try db.setSndRecipient(rcpId, descrText: text, status: "complete", at: Self.now) }
            } catch {
                errors.append(error)
            }
        }
        if !errors.isEmpty { emit(.chatErrors(chatErrors: errors)) }
        guard (try? setFileStatus(fileId, .sndComplete)) != nil, let item = try? fileItem(r), let meta = try? fileTransferMeta(fileId) else { return }
        emit(.file(.sndFileCompleteXFTP(user: user, chatItem: item, fileTransferMeta: meta)))
    }

    /// simplex-chat `splitFileDescr`: parts of at most `descrPartSize` characters, numbered from 1.
    static func splitFileDescr(_ text: String, partSize: Int = descrPartSize) -> [FileDescr] {
        var parts: [FileDescr] = []
        var rest = Substring(text)
        var n = 1
        repeat {
            let part = rest.prefix(partSize)
            rest = rest.dropFirst(part.count)
            parts.append(FileDescr(fileDescrText: String(part), fileDescrPartNo: n, fileDescrComplete: rest.isEmpty))
            n += 1
        } while !rest.isEmpty
        return parts
    }

    func uploadWarning(_ fileId: Int64, _ e: XFTPClientError) {
        guard let (r, user) = try? fileRowAndUser(fileId), !(r["cancelled"] as Bool) else { return }
        try? setFileStatus(fileId, .sndWarning(sndFileError: Self.fileError(e)))
        guard let meta = try? fileTransferMeta(fileId) else { return }
        emit(.file(.sndFileWarning(user: user, chatItem_: try? fileItem(r), fileTransferMeta: meta, errorMessage: Self.describe(e))))
    }

    /// SFERR: the file failed for good (`sendFileError`).
    func uploadFailed(_ fileId: Int64, _ e: XFTPClientError) {
        guard let (r, user) = try? fileRowAndUser(fileId), !(r["cancelled"] as Bool) else { return }
        guard let s = try? json(CIFileStatus.sndError(sndFileError: Self.fileError(e))) else { return }
        _ = try? store.write { db in try db.setFileCancelled(fileId, s, at: Self.now) }
        cleanTransfer(fileId, r)
        guard let meta = try? fileTransferMeta(fileId) else { return }
        emit(.file(.sndFileError(user: user, chatItem_: try? fileItem(r), fileTransferMeta: meta, errorMessage: Self.describe(e))))
    }

    /// Removes the transfer's saved progress and work files.
    func cleanTransfer(_ fileId: Int64, _ r: Row) {
        guard let tid = r["transfer_id"] as String? else { return }
        let work = fileWorkDirectory
        _ = try? store.write { db in
            try db.removeProgress(prefix: "up-" + tid)
            try db.removeProgress(prefix: "down-" + tid)
        }
        for name in ["up-\(tid).enc", "src-\(tid)", "rcv-\(tid)"] {
            try? FileManager.default.removeItem(atPath: (work as NSString).appendingPathComponent(name))
        }
        if let names = try? FileManager.default.contentsOfDirectory(atPath: work) {
            for n in names where n.hasPrefix("down-\(tid)-") { try? FileManager.default.removeItem(atPath: (work as NSString).appendingPathComponent(n)) }
        }
    }

    /// The sender deletes its chunks (FDEL) in the background (`xftpDeleteSndFileRemote`).
    func deleteFromServers(_ sender: FileDescription) {
        let transfer = XFTPFileTransfer(pool: files.pool, progress: progressStore(0, sent: true), workDirectory: fileWorkDirectory)
        Task { try? await transfer.delete(sender) }
    }

    // MARK: receiving

    /// An `x.msg.new` with a file: the offer is recorded for its item (`processFileInvitation`);
    /// the name is cut to a safe one (`mkValidFileInvitation`). Returns the file id.
    func receivedFileInvitation(userId: Int64, contactId: Int64?, groupId: Int64?, memberGmId: Int64?, senderName: String,
                                _ invitation: FileInvitation, chatItemId: Int64, sharedMsgId: String?) throws(ChatError) -> Int64 {
        var inv = invitation
        inv.fileName = FileNames.sanitized(invitation.fileName)
        let invJSON = try json(inv), status = try json(CIFileStatus.rcvInvitation)
        let now = Self.now
        return try store.write { db -> Int64 in
            var f = Database.NewFile(userId: userId, sent: false, name: inv.fileName, size: inv.fileSize, chunkSize: Self.fileChunkSize,
                                     statusJSON: status, invitationJSON: invJSON, rcvStatus: "new", senderDisplayName: senderName, sharedMsgId: sharedMsgId)
            f.contactId = contactId
            f.groupId = groupId
            f.groupMemberId = memberGmId
            let id = try db.insertFile(f, at: now)
            try db.setFileItem(id, chatItemId: chatItemId, sharedMsgId: sharedMsgId, at: now)
            if let d = inv.fileDescr { try db.insertRcvFileDescr(id, d, at: now) }
            return id
        }
    }

    /// The file of a received `x.msg.new`, if it has one: `(fileId, size)`.
    func receivedMessageFile(_ invitation: FileInvitation?, userId: Int64, contactId: Int64?, groupId: Int64?, sender: GroupMember?,
                             itemId: Int64, shared: String?) throws(ChatError) -> (Int64, Int64)? {
        guard let invitation else { return nil }
        var name = sender?.localDisplayName ?? ""
        if let contactId, let c = try store.read({ db in try self.contact(db, contactId) }) { name = c.localDisplayName }
        let id = try receivedFileInvitation(userId: userId, contactId: contactId, groupId: groupId, memberGmId: sender?.groupMemberId,
                                            senderName: name, invitation, chatItemId: itemId, sharedMsgId: shared)
        return (id, invitation.fileSize)
    }

    /// Files smaller than `config.autoAcceptFileSize` are accepted at once (`autoAcceptFile`).
    func autoAcceptFile(_ fileId: Int64, size: Int64) async {
        guard config.autoAcceptFileSize > size else { return }
        do {
            if case .file(.rcvFileAccepted(let user, let item)) = try await receiveFile(fileId, approvedRelays: false, encrypt: nil, inline: nil, path: nil) {
                emit(.file(.rcvFileAccepted(user: user, chatItem: item)))
            }
        } catch {
            emit(.chatError(chatError: error))
        }
    }

    /// `x.msg.file.descr`: the next part of a received file's description (`processFDMessage`);
    /// when complete, the download starts if the user accepted the file.
    func fileDescrReceived(contactId: Int64?, groupId: Int64?, memberGmId: Int64?, msgId: SharedMsgId, _ part: FileDescr) async throws(ChatError) {
        guard let fileId = try store.read({ db in try db.rcvFileId(contactId: contactId, groupId: groupId, sharedMsgId: msgId.base64url) }) else {
            throw .errorStore(storeError: .fileIdNotFoundBySharedMsgId(sharedMsgId: msgId.base64url))
        }
        let (r, user) = try fileRowAndUser(fileId)
        if groupId != nil, (r["group_member_id"] as Int64?) != memberGmId {
            emit(.messageError(user: user, severity: "error", errorMessage: "x.msg.file.descr: file/sender mismatch"))
            return
        }
        if r["cancelled"] as Bool || (r["rcv_status"] as String?) == "complete" { return }
        let appended = try store.write { db in try db.appendRcvFileDescr(fileId, part, at: Self.now) }
        guard appended else { throw .errorStore(storeError: .rcvFileInvalidDescrPart) }
        guard part.fileDescrComplete else { return }
        let ft = try rcvFileTransfer(fileId)
        if let item = try fileItem(r), let descr = ft.xftpRcvFile?.rcvFileDescription {
            emit(.file(.rcvFileDescrReady(user: user, chatItem: item, rcvFileTransfer: ft, rcvFileDescr: descr)))
        }
        if (r["rcv_status"] as String?) == "accepted" {
            try startReceiving(fileId, user: user, approvedRelays: r["user_approved_relays"])
        }
    }

    /// `/freceive`: reserves the target file and marks the offer accepted (`acceptFileReceive`);
    /// the download starts now if the description is complete, else when it is.
    func receiveFile(_ fileId: Int64, approvedRelays: Bool, encrypt: Bool?, inline: Bool?, path: String?) async throws(ChatError) -> ChatResponse {
        let (r, user) = try fileRowAndUser(fileId)
        guard !(r["file_sent"] as Bool) else { throw .errorStore(storeError: .rcvFileNotFound(fileId: fileId)) }
        let name: String = r["file_name"]
        if r["cancelled"] as Bool { throw .error(errorType: .fileCancelled(message: name)) }
        guard (r["rcv_status"] as String?) == "new" else { throw .error(errorType: .fileAlreadyReceiving(message: name)) }
        guard try store.read({ db in try db.rcvFileDescrRow(fileId) }) != nil else {
            throw .error(errorType: .fileInternal(message: "SMP file transfer is not supported, only XFTP"))
        }
        let (storedPath, _) = try reserveRcvPath(fileId, name, path)
        let args = (encrypt ?? files.encryptLocalFiles) ? LocalFileCrypto.randomArgs() : nil
        let status = try json(CIFileStatus.rcvAccepted)
        let transferId = Base64URL.encode(SecureRandom.bytes(12))
        try store.write { db in
            try db.setRcvFileAccepted(fileId, path: storedPath, approvedRelays: approvedRelays, cryptoArgs: args, transferId: transferId,
                                      statusJSON: status, at: Self.now)
        }
        // The answer shows the item as accepted, read before the download starts (`xftpAcceptRcvFT`).
        guard let item = try fileItem(r) else { throw .errorStore(storeError: .fileNotFound(fileId: fileId)) }
        if let d = try store.read({ db in try db.rcvFileDescrRow(fileId) }), d["file_descr_complete"] as Bool {
            try startReceiving(fileId, user: user, approvedRelays: approvedRelays)
        }
        return .file(.rcvFileAccepted(user: user, chatItem: item))
    }

    /// `getRcvFilePath`: a given folder gets a unique name in it, a given file must not exist;
    /// without a path the file goes to the files folder (stored by name) or ~/Downloads. An empty
    /// file is created there now. Returns the stored path and the path on disk.
    func reserveRcvPath(_ fileId: Int64, _ name: String, _ given: String?) throws(ChatError) -> (String, String) {
        let fm = FileManager.default
        var stored: String, onDisk: String
        if let given {
            var isDir: ObjCBool = false
            if fm.fileExists(atPath: given, isDirectory: &isDir) {
                guard isDir.boolValue else { throw .error(errorType: .fileAlreadyExists(filePath: given)) }
                onDisk = FileNames.unique(in: given, name)
            } else {
                onDisk = given
            }
            stored = onDisk
        } else {
            let folder = receivedFilesFolder()
            onDisk = FileNames.unique(in: folder, name)
            guard FileNames.isInside(onDisk, folder) else { throw .error(errorType: .fileWrite(filePath: onDisk, message: "outside the files folder")) }
            stored = files.filesFolder != nil ? (onDisk as NSString).lastPathComponent : onDisk
        }
        guard fm.createFile(atPath: onDisk, contents: nil) else { throw .error(errorType: .fileWrite(filePath: onDisk, message: "cannot create the file")) }
        return (stored, onDisk)
    }

    /// `receiveViaCompleteFD`: unless the user approved them, every server of the description must
    /// be a known one (`CEFileNotApproved`, and the offer is back to rcvInvitation); then the
    /// download starts (`startReceivingFile`: rcvTransfer 0/1 and rcvFileStart).
    func startReceiving(_ fileId: Int64, user: User, approvedRelays: Bool) throws(ChatError) {
        guard let d = try store.read({ db in try db.rcvFileDescrRow(fileId) }) else { return }
        let description: FileDescription
        do { description = try FileDescription(yaml: d["file_descr_text"]) } catch {
            try downloadFailedNow(fileId, .file(fileErr: .fileIO(fileIOError: "invalid file description: \(error)")))
            return
        }
        if !approvedRelays {
            let known = Set(try xftpServers(userId: user.userId).map(Self.serverKey))
            let used = Set(description.chunks.flatMap { $0.replicas.map { $0.server } })
            let unknown = used.filter { !known.contains(Self.serverKey($0)) }.map(\.description).sorted()
            if !unknown.isEmpty {
                let (r, _) = try fileRowAndUser(fileId)
                removeReservedFile(r)
                let s = try json(CIFileStatus.rcvInvitation)
                try store.write { db in try db.resetRcvFile(fileId, statusJSON: s, at: Self.now) }
                if let item = try fileItem(r) { emit(.chatItemUpdated(user: user, chatItem: item)) }
                throw .error(errorType: .fileNotApproved(fileId: fileId, unknownServers: unknown))
            }
        }
        let s = try json(CIFileStatus.rcvTransfer(rcvProgress: 0, rcvTotal: 1))
        try store.write { db in
            try db.setRcvStatus(fileId, "connected", at: Self.now)
            try db.setFileStatus(fileId, s, at: Self.now)
        }
        let (r, _) = try fileRowAndUser(fileId)
        if let item = try fileItem(r) { emit(.file(.rcvFileStart(user: user, chatItem: item))) }
        startDownload(fileId)
    }

    static func serverKey(_ s: XFTPServerAddress) -> String {
        var k = s
        k.basicAuth = nil
        return k.description
    }

    func startDownload(_ fileId: Int64) {
        files.start(fileId) { [self] in await self.runDownload(fileId) }
    }

    /// The download (retried while the network fails); the file goes to its target in `downloadDone`.
    func runDownload(_ fileId: Int64) async {
        guard let r = try? store.read({ db in try db.fileRow(fileId) }), !(r["cancelled"] as Bool), let tid = r["transfer_id"] as String?,
              let d = try? store.read({ db in try db.rcvFileDescrRow(fileId) }), let description = try? FileDescription(yaml: d["file_descr_text"])
        else { return }
        let work = fileWorkDirectory
        let folder = (work as NSString).appendingPathComponent("rcv-\(tid)")
        let transfer = XFTPFileTransfer(pool: files.pool, progress: progressStore(fileId, sent: false, description: description), workDirectory: work)
        var delay = 1.0
        var warned = false
        while !Task.isCancelled {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                let path = try await transfer.download(description, to: folder, transferId: tid)
                guard !Task.isCancelled else { return }
                await downloadDone(fileId, path)
                return
            } catch let e as XFTPClientError {
                guard !Task.isCancelled else { return }
                guard Self.temporary(e) else {
                    try? downloadFailedNow(fileId, Self.agentError(e, description))
                    return
                }
                if !warned {
                    warned = true
                    downloadWarning(fileId, Self.agentError(e, description))
                }
                try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                delay = min(delay * 2, 30)
            } catch {
                try? downloadFailedNow(fileId, .file(fileErr: .fileIO(fileIOError: "\(error)")))
                return
            }
        }
    }

    /// RFDONE: the decrypted file moves to its target (encrypted first when asked).
    func downloadDone(_ fileId: Int64, _ path: String) async {
        guard let (r, user) = try? fileRowAndUser(fileId), !(r["cancelled"] as Bool), let stored = r["file_path"] as String? else {
            PosixFile.remove(path)
            return
        }
        let target = fsFilePath(stored)
        do {
            if let key = r["file_crypto_key"] as String?, let nonce = r["file_crypto_nonce"] as String? {
                try LocalFileCrypto.encrypt(from: path, to: target, CryptoFileArgs(fileKey: key, fileNonce: nonce))
                PosixFile.remove(path)
            } else {
                _ = PosixFile.remove(target)
                try FileManager.default.moveItem(atPath: path, toPath: target)
            }
        } catch {
            try? downloadFailedNow(fileId, .file(fileErr: .fileIO(fileIOError: "\(error)")))
            return
        }
        let s = try? json(CIFileStatus.rcvComplete)
        _ = try? store.write { db in
            try db.setRcvStatus(fileId, "complete", at: Self.now)
            if let s { try db.setFileStatus(fileId, s, at: Self.now) }
            try db.setAgentFileDeleted(fileId, at: Self.now)
        }
        cleanTransfer(fileId, r)
        if let item = try? fileItem(r) { emit(.file(.rcvFileComplete(user: user, chatItem: item))) }
    }

    func downloadWarning(_ fileId: Int64, _ e: AgentErrorType) {
        guard let (r, user) = try? fileRowAndUser(fileId), !(r["cancelled"] as Bool) else { return }
        try? setFileStatus(fileId, .rcvWarning(rcvFileError: Self.fileError(e)))
        guard let ft = try? rcvFileTransfer(fileId) else { return }
        emit(.file(.rcvFileWarning(user: user, chatItem_: try? fileItem(r), agentError: e, rcvFileTransfer: ft)))
    }

    /// RFERR: the file failed for good; its reserved target is removed (`cleanupACIFile`).
    func downloadFailedNow(_ fileId: Int64, _ e: AgentErrorType) throws(ChatError) {
        let (r, user) = try fileRowAndUser(fileId)
        let s = try json(CIFileStatus.rcvError(rcvFileError: Self.fileError(e)))
        try store.write { db in
            try db.setFileCancelled(fileId, s, at: Self.now)
            try db.setRcvStatus(fileId, "cancelled", at: Self.now)
        }
        removeReservedFile(r)
        cleanTransfer(fileId, r)
        emit(.file(.rcvFileError(user: user, chatItem_: try? fileItem(r), agentError: e, rcvFileTransfer: try rcvFileTransfer(fileId))))
    }

    func removeReservedFile(_ r: Row) {
        guard let p = r["file_path"] as String? else { return }
        try? FileManager.default.removeItem(atPath: fsFilePath(p))
    }

    // MARK: cancelling

    /// `/fcancel`: a sent file is cancelled for everyone (its chunks deleted, `x.file.cancel`
    /// sent); a download stops and the offer can be accepted again (`CancelFile`).
    func cancelFile(_ fileId: Int64) async throws(ChatError) -> ChatResponse {
        let (r, user) = try fileRowAndUser(fileId)
        if r["cancelled"] as Bool { throw .error(errorType: .fileCancel(fileId: fileId, message: "file already cancelled")) }
        files.cancel(fileId)
        if r["file_sent"] as Bool {
            let s = try json(CIFileStatus.sndCancelled)
            let recipients = try sndFileTransfers(fileId)
            try store.write { db in
                try db.setFileCancelled(fileId, s, at: Self.now)
                try db.setSndRecipientsStatus(fileId, status: "cancelled", at: Self.now)
            }
            if let text = r["private_snd_descr"] as String?, let sender = try? FileDescription(yaml: text) { deleteFromServers(sender) }
            cleanTransfer(fileId, r)
            if let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }) {
                await sendFileCancel(r, shared)
            }
            return .file(.sndFileCancelled(user: user, chatItem_: try fileItem(r), fileTransferMeta: try fileTransferMeta(fileId),
                                           sndFileTransfers: recipients))
        }
        if (r["rcv_status"] as String?) == "complete" { throw .error(errorType: .fileCancel(fileId: fileId, message: "file transfer is complete")) }
        let ft = try rcvFileTransfer(fileId)
        removeReservedFile(r)
        cleanTransfer(fileId, r)
        let s = try json(CIFileStatus.rcvInvitation)
        try store.write { db in try db.resetRcvFile(fileId, statusJSON: s, at: Self.now) }
        return .file(.rcvFileCancelled(user: user, chatItem_: try fileItem(r), rcvFileTransfer: ft))
    }

    /// `x.file.cancel` to the contact, or to every member the file went to.
    private func sendFileCancel(_ r: Row, _ shared: SharedMsgId) async {
        let fileId: Int64 = r["file_id"]
        let rows = (try? store.read { db in try db.sndRecipientRows(fileId) }) ?? []
        var errors: [ChatError] = []
        for rcp in rows {
            guard let (_, agentConnId, _) = try? store.read({ db in
                try db.sndRecipientConnection(contactId: rcp["contact_id"], groupMemberId: rcp["group_member_id"])
            }) else { continue }
            do { try await sendEvent(agentConnId, .fileCancel(msgId: shared)) } catch { errors.append(error) }
        }
        if !errors.isEmpty { emit(.chatErrors(chatErrors: errors)) }
    }

    /// `x.file.cancel` from the sender (`xFileCancel`): the download stops, the file is cancelled.
    func fileCancelReceived(contactId: Int64?, groupId: Int64?, memberGmId: Int64?, msgId: SharedMsgId) throws(ChatError) {
        guard let fileId = try store.read({ db in try db.rcvFileId(contactId: contactId, groupId: groupId, sharedMsgId: msgId.base64url) }) else {
            throw .errorStore(storeError: .fileIdNotFoundBySharedMsgId(sharedMsgId: msgId.base64url))
        }
        let (r, user) = try fileRowAndUser(fileId)
        if groupId != nil, (r["group_member_id"] as Int64?) != memberGmId {
            emit(.messageError(user: user, severity: "error", errorMessage: "x.file.cancel: file/sender mismatch"))
            return
        }
        if r["cancelled"] as Bool || (r["rcv_status"] as String?) == "complete" { return }
        files.cancel(fileId)
        removeReservedFile(r)
        cleanTransfer(fileId, r)
        let s = try json(CIFileStatus.rcvCancelled)
        try store.write { db in
            try db.setFileCancelled(fileId, s, at: Self.now)
            try db.setRcvStatus(fileId, "cancelled", at: Self.now)
        }
        guard let item = try fileItem(r) else { return }
        emit(.file(.rcvFileSndCancelled(user: user, chatItem: item, rcvFileTransfer: try rcvFileTransfer(fileId))))
    }

    /// An item deleted or marked deleted: its file's transfer stops (`cancelFilesInProgress`: a
    /// sent file's chunks are deleted from the servers, no `x.file.cancel` is sent); with
    /// `deleteLocal` the file itself goes too when it lies in the files folder (`deleteFilesLocally`).
    func cancelItemFile(_ itemId: Int64, deleteLocal: Bool) {
        guard let r = try? store.read({ db in try db.itemFileRow(itemId) }) else { return }
        let fileId: Int64 = r["file_id"], sent: Bool = r["file_sent"]
        let status = try? ChatJSON.decode(CIFileStatus.self, from: r["ci_file_status"] as String)
        if !(r["cancelled"] as Bool), !(status?.ended ?? true) {
            files.cancel(fileId)
            if let s = try? json(sent ? CIFileStatus.sndCancelled : .rcvCancelled) {
                _ = try? store.write { db in
                    try db.setFileCancelled(fileId, s, at: Self.now)
                    if !sent { try db.setRcvStatus(fileId, "cancelled", at: Self.now) }
                }
            }
            if sent, let text = r["private_snd_descr"] as String?, let d = try? FileDescription(yaml: text) { deleteFromServers(d) }
            if !sent { removeReservedFile(r) }
            cleanTransfer(fileId, r)
        }
        // Only a path relative to the files folder: a sent file named by its absolute path is the
        // user's own file, not a copy the chat keeps.
        if deleteLocal, files.filesFolder != nil, let p = r["file_path"] as String?, !p.hasPrefix("/") {
            try? FileManager.default.removeItem(atPath: fsFilePath(p))
        }
    }

    /// The file of an item to forward, when it is here whole: our sent file, or a received one
    /// that completed (simplex-chat forwards files from their local copies).
    func forwardableFile(_ itemId: Int64) -> CryptoFile? {
        guard let r = try? store.read({ db in try db.itemFileRow(itemId) }), !(r["cancelled"] as Bool), let p = r["file_path"] as String?,
              let status = try? ChatJSON.decode(CIFileStatus.self, from: r["ci_file_status"] as String)
        else { return nil }
        switch status {
        case .sndStored, .sndTransfer, .sndComplete, .sndWarning, .rcvComplete: break
        default: return nil
        }
        guard FileManager.default.fileExists(atPath: fsFilePath(p)) else { return nil }
        return CryptoFile(filePath: p, cryptoArgs: Self.cryptoArgs(r))
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
        if let groupId = r["group_id"] as Int64? { return try groupItem(groupId, itemId) }
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
