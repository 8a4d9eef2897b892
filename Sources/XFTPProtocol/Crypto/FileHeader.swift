import SimplexFoundation

/// The header encrypted at the start of every XFTP file (`FileHeader`): the file name, and an
/// extension field for later versions.
public struct FileHeader: Sendable, Equatable {
    public var fileName: String
    public var fileExtra: String?

    public init(fileName: String, fileExtra: String? = nil) {
        self.fileName = fileName
        self.fileExtra = fileExtra
    }

    /// `smpEncode (fileName, fileExtra)`: a 1-byte-length UTF-8 name, then `Maybe` the extra.
    public func encoded() throws -> [UInt8] {
        var e = SMPEncoder(capacity: fileName.utf8.count + 4)
        try e.shortString(Array(fileName.utf8))
        try e.optional(fileExtra) { try $0.shortString(Array($1.utf8)) }
        return e.bytes
    }

    /// Parses a header at the start of `bytes`, returning it and how many bytes it took.
    /// Invalid UTF-8 is replaced, as the reference's `safeDecodeUtf8` does.
    public static func decode(prefixOf bytes: [UInt8]) throws -> (FileHeader, Int) {
        var d = SMPDecoder(bytes)
        let name = String(decoding: try d.shortString(), as: UTF8.self)
        let extra = try d.optional { String(decoding: try $0.shortString(), as: UTF8.self) }
        return (FileHeader(fileName: name, fileExtra: extra), d.position)
    }

    /// The name reduced to one safe path component: no directories, control characters or
    /// leading dots, so a sender cannot choose where a received file lands.
    public var safeFileName: String {
        let last = fileName.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var s = String(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) })
        while s.hasPrefix(".") { s.removeFirst() }
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        if s.utf8.count > 255 {
            var cut = ""
            for ch in s {
                if cut.utf8.count + ch.utf8.count > 255 { break }
                cut.append(ch)
            }
            s = cut
        }
        return s.isEmpty ? "file" : s
    }
}

