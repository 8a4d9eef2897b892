import Foundation
import GRDB

/// Files of forwarded items (simplex-chat `APIPlanForwardChatItems`, `APIForwardChatItems`):
/// which files can go with their items, and what the plan asks the user to confirm.
extension ChatController {
    /// Why an item's file cannot be forwarded (simplex-chat `ForwardFileError`); the order is the
    /// reference's: the smallest error among the items names the plan's confirmation.
    enum ForwardFileError: Comparable {
        case notAccepted(fileId: Int64)
        case inProgress
        case failed
        case missing
    }

    /// `ciFileForwardError`: sent files (in any state) are here; received ones only when complete.
    static func forwardFileError(fileId: Int64, _ status: CIFileStatus) -> ForwardFileError? {
        switch status {
        case .sndStored, .sndTransfer, .sndComplete, .sndCancelled, .sndError, .sndWarning, .rcvComplete: nil
        case .rcvInvitation, .rcvAborted: .notAccepted(fileId: fileId)
        case .rcvAccepted, .rcvTransfer, .rcvWarning: .inProgress
        case .rcvCancelled, .rcvError, .invalid: .failed
        }
    }

    /// `ciFileLoaded`: the file's bytes are on this device (the forward takes a copy of them).
    static func fileLoaded(_ status: CIFileStatus) -> Bool {
        switch status {
        case .sndStored, .sndTransfer, .sndComplete, .sndCancelled, .sndError, .sndWarning, .rcvComplete: true
        default: false
        }
    }

    /// Whether an item whose file cannot go is still worth forwarding (`hasContent`).
    static func forwardHasContent(_ mc: MsgContent) -> Bool {
        switch mc {
        case .text, .link, .image, .report, .chat, .unknown: true
        case .video(let t, _, _), .voice(let t, _), .file(let t): !t.isEmpty
        }
    }

    /// `forwardContentPlan` of one item with content: whether it is forwarded, and its file's error.
    func forwardFilePlan(itemId: Int64, _ mc: MsgContent) -> (forwarded: Bool, error: ForwardFileError?) {
        guard let r = try? store.read({ db in try db.itemFileRow(itemId) }) else { return (true, nil) }
        let fileId: Int64 = r["file_id"]
        let error: ForwardFileError?
        if let status = try? ChatJSON.decode(CIFileStatus.self, from: r["ci_file_status"] as String),
           let e = Self.forwardFileError(fileId: fileId, status) {
            error = e
        } else if let p = r["file_path"] as String?, FileManager.default.fileExists(atPath: fsFilePath(p)) {
            error = nil
        } else {
            error = .missing
        }
        return error == nil ? (true, nil) : (Self.forwardHasContent(mc), error)
    }

    /// `ForwardConfirmation` from the items' file errors: the smallest error's kind, with the
    /// IDs of files not accepted or the count of files with that error.
    static func forwardConfirmation(_ errors: [ForwardFileError]) -> ForwardConfirmation? {
        guard let main = errors.min() else { return nil }
        let count = errors.filter { $0 == main }.count
        switch main {
        case .notAccepted:
            return .filesNotAccepted(fileIds: errors.compactMap { if case .notAccepted(let id) = $0 { id } else { nil } })
        case .inProgress: return .filesInProgress(filesCount: count)
        case .missing: return .filesMissing(filesCount: count)
        case .failed: return .filesFailed(filesCount: count)
        }
    }

    /// `forwardContent`: the item's content and a copy of its file when the file is here (so the
    /// forward does not depend on the original staying); otherwise images and links go without
    /// the file, other content as its text, and content with no text not at all.
    func forwardContent(itemId: Int64, _ mc: MsgContent) -> (MsgContent, CryptoFile?)? {
        guard let r = try? store.read({ db in try db.itemFileRow(itemId) }) else { return (mc, nil) }
        if let status = try? ChatJSON.decode(CIFileStatus.self, from: r["ci_file_status"] as String), Self.fileLoaded(status),
           let p = r["file_path"] as String?, FileManager.default.fileExists(atPath: fsFilePath(p)) {
            guard let folder = files.filesFolder else { return (mc, CryptoFile(filePath: p, cryptoArgs: Self.cryptoArgs(r))) }
            let name = Self.forwardedFileName(r["file_name"] as String, mc, now: Date())
            let copy = FileNames.unique(in: folder, name)
            // The copy is protected as local files are now, with fresh arguments (the reference's
            // copyCryptoFile to `randomArgs` when encryptLocalFiles is on, else plain).
            let args = files.encryptLocalFiles ? LocalFileCrypto.randomArgs() : nil
            if (try? LocalFileCrypto.copy(from: fsFilePath(p), Self.cryptoArgs(r), to: copy, args)) != nil {
                return (mc, CryptoFile(filePath: (copy as NSString).lastPathComponent, cryptoArgs: args))
            }
        }
        switch mc {
        case .image, .link: return (mc, nil)
        default: return mc.text.isEmpty ? nil : (.text(mc.text), nil)
        }
    }

    /// The copy's name: the file's own, or for media `IMG_`/`voice_`/`video_` and the date
    /// (`generateNewFileName` with `mediaFilePrefix`).
    static func forwardedFileName(_ name: String, _ mc: MsgContent, now: Date) -> String {
        let prefix: String
        switch mc {
        case .image: prefix = "IMG_"
        case .voice: prefix = "voice_"
        case .video: prefix = "video_"
        default: return name
        }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd_HHmmss"
        let ext = (name as NSString).pathExtension
        return prefix + f.string(from: now) + (ext.isEmpty ? "" : "." + ext)
    }
}
