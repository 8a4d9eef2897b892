import SimplexFoundation
import XFTPProtocol

/// Whether a file can be used (`ServerEntityStatus`): blocked files answer `ERR BLOCKED`.
public enum FileStatus: Sendable, Equatable {
    case active
    case blocked(BlockingInfo)
    case off

    /// `strEncode`: `active`, `blocked,reason=...`, `off`.
    var text: String {
        switch self {
        case .active: "active"
        case .blocked(let info): "blocked," + String(decoding: info.encoded, as: UTF8.self)
        case .off: "off"
        }
    }

    init?(text: Substring) {
        if text == "active" {
            self = .active
        } else if text == "off" {
            self = .off
        } else if text.hasPrefix("blocked,"), let info = BlockingInfo(encoded: Array(text.dropFirst("blocked,".count).utf8)) {
            self = .blocked(info)
        } else {
            return nil
        }
    }
}

/// A chunk the server holds (`FileRec`): registered by FNEW, its body present once FPUT wrote
/// `filePath`. `createdAt` is rounded down to the hour, as the reference stores it.
public struct FileRec: Sendable {
    public let senderId: [UInt8]
    public let fileInfo: FileInfo
    public var filePath: String?
    public var recipientIds: Set<[UInt8]>
    public let createdAt: Int64
    public var status: FileStatus

    /// `fileTimePrecision`: creation times are kept to the hour, which hides exact upload times.
    public static let timePrecision: Int64 = 3600

    public static func roundedTime(_ now: Int64) -> Int64 { now / timePrecision * timePrecision }
}

/// A recipient of a chunk (`FileRecipient`): its ID and auth key.
public struct FileRecipient: Sendable, Equatable {
    public let recipientId: [UInt8]
    public let key: AnyPublicKey

    public init(recipientId: [UInt8], key: AnyPublicKey) {
        self.recipientId = recipientId
        self.key = key
    }
}
