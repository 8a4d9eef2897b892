import Foundation
import GRDB
import SMPAgent
import SimplexFoundation
import XFTPClient
import XFTPProtocol

/// Receiving and cancelling files (issue 15; simplex-chat `processFileInvitation`,
/// `processFDMessage`, `acceptFileReceive`, `processAgentMsgRcvFile`, `CancelFile`, `xFileCancel`).
extension ChatController {
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
        let events = ProgressEvents()
        let transfer = XFTPFileTransfer(pool: files.pool, progress: progressStore(fileId, sent: false, description: description, events: events),
                                        workDirectory: work)
        var delay = 1.0
        var warned = false
        while !Task.isCancelled {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                // No FACK, as the reference agent (it never acknowledges chunks; they expire on the
                // server): a description a group host forwarded is the host's own, and both download it.
                let path = try await transfer.download(description, to: folder, transferId: tid, acknowledge: false)
                guard !Task.isCancelled else { return }
                await events.drain()
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

}
