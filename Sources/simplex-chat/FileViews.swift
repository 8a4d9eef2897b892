import ChatCore

/// Lines for file answers and events (issue 15), as SimpleX's terminal shows them.
extension ChatView {
    static func describe(file r: ChatFileResponse) -> String {
        switch r {
        case .rcvFileAccepted(_, let item):
            return "saving file \(fileIdText(item)) from \(name(chatInfo: item.chatInfo))"
        case .rcvFileAcceptedSndCancelled(_, let ft):
            return "cancelled receiving file \(ft.fileId) (\(ft.fileInvitation.fileName)): the sender cancelled it"
        case .rcvFileCancelled(_, _, let ft):
            return "cancelled receiving file \(ft.fileId) (\(ft.fileInvitation.fileName))"
        case .sndFileCancelled(_, _, let meta, _):
            return "cancelled sending file \(meta.fileId) (\(meta.fileName))"
        case .fileTransferStatusXFTP(_, let item):
            guard let f = item.chatItem.file else { return "no file" }
            return "file \(f.fileId) (\(f.fileName)): \(status(f.fileStatus))"
        }
    }

    /// nil for progress events, which the terminal does not print line by line.
    static func describe(fileEvent e: ChatFileEvent) -> String? {
        switch e {
        case .rcvFileDescrReady, .rcvFileProgressXFTP, .sndFileProgressXFTP:
            return nil
        case .rcvFileAccepted(_, let item):
            return "saving file \(fileIdText(item)) from \(name(chatInfo: item.chatInfo))"
        case .rcvFileStart(_, let item):
            return "started receiving file \(fileIdText(item)) from \(name(chatInfo: item.chatInfo))"
        case .rcvFileComplete(_, let item):
            return "completed receiving file \(fileIdText(item)) from \(name(chatInfo: item.chatInfo))"
        case .rcvFileSndCancelled(_, let item, _):
            return "\(name(chatInfo: item.chatInfo)) cancelled sending file \(fileIdText(item))"
        case .rcvFileError(_, _, _, let ft):
            return "error receiving file \(ft.fileId) (\(ft.fileInvitation.fileName))"
        case .rcvFileWarning(_, _, _, let ft):
            return "warning receiving file \(ft.fileId) (\(ft.fileInvitation.fileName))"
        case .sndFileCompleteXFTP(_, _, let meta):
            return "completed uploading file \(meta.fileId) (\(meta.fileName))"
        case .sndFileError(_, _, let meta, let msg):
            return "error sending file \(meta.fileId) (\(meta.fileName)): \(msg)"
        case .sndFileWarning(_, _, let meta, let msg):
            return "warning sending file \(meta.fileId) (\(meta.fileName)): \(msg)"
        }
    }

    static func fileIdText(_ item: AChatItem) -> String {
        guard let f = item.chatItem.file else { return "?" }
        return "\(f.fileId) (\(f.fileName))"
    }

    static func status(_ s: CIFileStatus) -> String {
        switch s {
        case .sndStored: "stored"
        case .sndTransfer(let p, let t), .rcvTransfer(let p, let t): "in progress, \(t > 0 ? p * 100 / t : 0)%"
        case .sndCancelled, .rcvCancelled: "cancelled"
        case .sndComplete, .rcvComplete: "complete"
        case .sndError, .rcvError: "error"
        case .sndWarning, .rcvWarning: "warning"
        case .rcvInvitation: "offered"
        case .rcvAccepted: "accepted"
        case .rcvAborted: "aborted"
        case .invalid(let t): "invalid (\(t))"
        }
    }
}
