import Foundation
import GRDB
import SMPAgent
import SimplexFoundation
import XFTPClient
import XFTPProtocol

/// Sending files (issue 15; simplex-chat `xftpSndFileTransfer_`, `processAgentMsgSndFile`): the
/// invitation in `x.msg.new`, the upload, and each recipient's description in `x.msg.file.descr`.
extension ChatController {
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

    func progressStore(_ fileId: Int64, sent: Bool, description: FileDescription? = nil,
                       events: ProgressEvents = ProgressEvents()) -> ChatProgressStore {
        ChatProgressStore(dbQueue: store.dbQueue) { key, value in
            let progress = sent ? TransferProgress.upload(value) : description.flatMap { TransferProgress.download(value, $0) }
            guard key.hasPrefix(sent ? "up-" : "down-"), !key.hasSuffix("-redirect"), let (done, total) = progress else { return }
            events.add { await self.fileProgress(fileId, sent: sent, done: done, total: total) }
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
        let events = ProgressEvents()
        let transfer = XFTPFileTransfer(pool: files.pool, progress: progressStore(fileId, sent: true, events: events), workDirectory: work)
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
                await events.drain()
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
        let direct = r["contact_id"] as Int64? != nil
        if direct, let meta = try? fileTransferMeta(fileId) {
            // The upload is done; completion waits for the description's delivery (simplex-chat
            // reports progress 1/1 here without a status change).
            emit(.file(.sndFileProgressXFTP(user: user, chatItem_: try? fileItem(r), fileTransferMeta: meta, sentSize: 1, totalSize: 1)))
        }
        var errors: [ChatError] = []
        for (i, rcp) in recipients.enumerated() where i < result.recipients.count {
            let text = result.recipients[i].yaml
            let rcpId: Int64 = rcp["snd_file_recipient_id"]
            guard let (_, agentConnId, _) = try? store.read({ db in
                try db.sndRecipientConnection(contactId: rcp["contact_id"], groupMemberId: rcp["group_member_id"])
            }) else { continue }
            do {
                var lastMsgId: Int64?
                for part in Self.splitFileDescr(text) {
                    if let previous = lastMsgId { dropStatus(agentConnId, previous) }
                    lastMsgId = try await sendToAgent(agentConnId, try chatMessage(.msgFileDescr(msgId: shared, fileDescr: part)))
                }
                if direct, let lastMsgId {
                    try store.write { db in
                        try db.setSndRecipient(rcpId, descrText: text, status: "descr_sending", at: Self.now)
                        try db.setSndRecipientDescrDelivery(rcpId, agentConnId: agentConnId, agentMsgId: lastMsgId, at: Self.now)
                    }
                    // SENT may have come while the message was handed over (kept as an early status).
                    if let early = earlyStatuses.removeValue(forKey: EarlyKey(agentConnId: agentConnId, msgId: lastMsgId)), Self.isSent(early) {
                        fileDescrSent(agentConnId, lastMsgId)
                    }
                } else {
                    if let lastMsgId { dropStatus(agentConnId, lastMsgId) }
                    try store.write { db in try db.setSndRecipient(rcpId, descrText: text, status: "complete", at: Self.now) }
                }
            } catch {
                errors.append(error)
            }
        }
        if !errors.isEmpty { emit(.chatErrors(chatErrors: errors)) }
        // Groups: complete once the descriptions are handed over (simplex-chat's group case).
        guard !direct else { return }
        guard (try? setFileStatus(fileId, .sndComplete)) != nil, let item = try? fileItem(r), let meta = try? fileTransferMeta(fileId) else { return }
        emit(.file(.sndFileCompleteXFTP(user: user, chatItem: item, fileTransferMeta: meta)))
    }

    /// SENT for an agent message: when it carried the last part of a contact's file description,
    /// the file is complete (`checkSndInlineFTComplete`: CIFSSndComplete, sndFileCompleteXFTP).
    /// Returns whether the message was one.
    @discardableResult
    func fileDescrSent(_ agentConnId: String, _ msgId: Int64) -> Bool {
        guard let found = try? store.read({ db in try db.sndRecipientByDescrDelivery(agentConnId: agentConnId, agentMsgId: msgId) })
        else { return false }
        let (rcpId, fileId) = found
        _ = try? store.write { db in try db.setSndRecipient(rcpId, descrText: nil, status: "complete", at: Self.now) }
        guard let (r, user) = try? fileRowAndUser(fileId), !(r["cancelled"] as Bool),
              (try? setFileStatus(fileId, .sndComplete)) != nil, let item = try? fileItem(r), let meta = try? fileTransferMeta(fileId)
        else { return true }
        emit(.file(.sndFileCompleteXFTP(user: user, chatItem: item, fileTransferMeta: meta)))
        return true
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

}
