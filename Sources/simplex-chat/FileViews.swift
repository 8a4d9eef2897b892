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
        case .rcvFileDescrReady:
            return nil
        case .rcvFileProgressXFTP(_, _, let done, let total, let ft):
            return "file \(ft.fileId) (\(ft.fileInvitation.fileName)) " + progressBar(done, total)
        case .sndFileProgressXFTP(_, _, let meta, let done, let total):
            return "file \(meta.fileId) (\(meta.fileName)) " + progressBar(done, total)
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

    /// `[#########-----------] 45%`: one line per progress event.
    static func progressBar(_ done: Int64, _ total: Int64, width: Int = 20) -> String {
        let pct = total > 0 ? Int(min(done, total) * 100 / total) : 0
        let filled = pct * width / 100
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] \(pct)%"
    }

    /// An incoming file offer, as SimpleX's terminal words it.
    static func fileOffer(_ f: CIFile) -> String {
        guard case .rcvInvitation = f.fileStatus else { return "file \(f.fileId) (\(f.fileName)): \(status(f.fileStatus))" }
        return "sends file \(f.fileName) (\(humanSize(f.fileSize)) / \(f.fileSize) bytes)\nuse /fr \(f.fileId) [<dir>/ | <path>] to receive it"
    }

    /// simplex-chat `humanReadableSize`.
    static func humanSize(_ n: Int64) -> String {
        let kb: Int64 = 1024, mb = kb * 1024, gb = mb * 1024
        func show(_ unit: Int64, _ name: String) -> String {
            let whole = n / unit, tenth = (n % unit) * 10 / unit
            return tenth == 0 ? "\(whole) \(name)" : "\(whole).\(tenth) \(name)"
        }
        if n < kb { return "\(n) bytes" }
        if n < mb { return show(kb, "KiB") }
        if n < gb { return show(mb, "MiB") }
        return show(gb, "GiB")
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
