import Foundation

/// Where a transfer keeps its progress so an interrupted upload or download resumes instead of
/// starting over. The caller chooses the place (its database, a folder); values are opaque bytes.
public protocol XFTPProgressStore: Sendable {
    func load(_ key: String) -> [UInt8]?
    func save(_ key: String, _ value: [UInt8]) throws
    func remove(_ key: String)
}

/// Progress kept as files in a folder, one per transfer, replaced atomically on each save.
public struct DirectoryProgressStore: XFTPProgressStore {
    public let directory: String

    public init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    private func path(_ key: String) -> String {
        // Keys are ours (hex of random IDs or caller names); keep them to a safe file name anyway.
        let safe = key.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        return (directory as NSString).appendingPathComponent(String(safe) + ".progress")
    }

    public func load(_ key: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path(key)).map { Array($0) }
    }

    public func save(_ key: String, _ value: [UInt8]) throws {
        try Data(value).write(to: URL(fileURLWithPath: path(key)), options: .atomic)
    }

    public func remove(_ key: String) {
        try? FileManager.default.removeItem(atPath: path(key))
    }
}
