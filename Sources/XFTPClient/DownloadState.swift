import Foundation
import SimplexFoundation
import XFTPProtocol
#if canImport(Glibc)
import Glibc
#endif

/// The saved progress of a download: how many chunks, in order, are decrypted into the partial
/// output, and the plaintext before the content (length and header) to rebuild the stream state.
struct DownloadState: Equatable {
    var fedChunks: Int
    var prefix: [UInt8]

    static let binaryFormat: UInt8 = 1

    func encoded() throws(XFTPClientError) -> [UInt8] {
        var e = SMPEncoder(capacity: 8 + prefix.count)
        e.byte(Self.binaryFormat)
        e.word32(UInt32(fedChunks))
        do {
            try e.largeString(prefix)
        } catch {
            throw .io("file header too long")
        }
        return e.bytes
    }

    /// Nil for anything else, including the chunk lists saved by earlier versions (those
    /// downloads start over).
    static func decode(_ bytes: [UInt8]) -> DownloadState? {
        guard bytes.first == binaryFormat else { return nil }
        var d = SMPDecoder(bytes)
        guard (try? d.byte()) != nil, let n = try? d.word32(), let prefix = try? d.largeString(), d.isAtEnd else { return nil }
        return DownloadState(fedChunks: Int(n), prefix: prefix)
    }
}

/// What a download's saved progress says: bytes of the chunks already decrypted, and of all.
public enum XFTPDownloadProgress {
    public static func summary(_ saved: [UInt8], chunkSizes: [UInt32]) -> (received: Int64, total: Int64)? {
        guard let s = DownloadState.decode(saved) else { return nil }
        let total = chunkSizes.reduce(Int64(0)) { $0 + Int64($1) }
        return (chunkSizes.prefix(s.fedChunks).reduce(Int64(0)) { $0 + Int64($1) }, total)
    }
}

extension XFTPFileTransfer {
    /// Moves a verified download into `directory` under `name`, or `name_1`, `name_2`... when it is
    /// taken: the name is claimed with an exclusive create, so two downloads never share it, then
    /// the file is renamed over the claim (copied when the work folder is on another filesystem).
    static func moveIntoPlace(_ part: String, directory: String, name: String) throws(XFTPFileError) -> String {
        let base = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        var n = 0
        while true {
            let file = n == 0 ? name : (ext.isEmpty ? "\(base)_\(n)" : "\(base)_\(n).\(ext)")
            let candidate = (directory as NSString).appendingPathComponent(file)
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                close(fd)
                if rename(part, candidate) == 0 { return candidate }
                if errno == EXDEV {
                    PosixFile.remove(candidate)
                    do {
                        try FileManager.default.copyItem(atPath: part, toPath: candidate)
                        PosixFile.remove(part)
                        return candidate
                    } catch {
                        throw .io("cannot copy the file into place: \(error)")
                    }
                }
                let e = errno
                PosixFile.remove(candidate)
                throw .io("cannot move the file into place: errno \(e)")
            }
            guard errno == EEXIST else { throw .io("cannot create \(candidate): errno \(errno)") }
            n += 1
        }
    }
}
