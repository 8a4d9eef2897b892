import XFTPProtocol

/// The side file downloaded chunks land in, each at its place in the encrypted stream, while the
/// chunks before it still arrive; the file decryption reads them back in order and punches out
/// what it read. Writes and reads are positioned, so the chunks in flight share it. The pages of a
/// landed chunk live only until it is decrypted: none is written back, and no chunk is held in
/// the process's memory whatever the number in flight.
final class ChunkLanding: @unchecked Sendable {
    private let file: PosixFile

    init(path: String) throws(XFTPFileError) {
        file = try PosixFile(path: path, mode: .update)
    }

    func write(_ p: UnsafeRawBufferPointer, at offset: Int64) throws(XFTPFileError) {
        try file.write(p, at: offset)
    }

    /// Feeds `size` bytes from `offset` to the decryptor through `piece`, then drops them.
    func feed(_ decryptor: FileDecryptor, at offset: Int64, size: Int64, through piece: UnsafeMutableRawBufferPointer) throws(XFTPFileError) {
        var done: Int64 = 0
        while done < size {
            let p = UnsafeMutableRawBufferPointer(rebasing: piece[0..<Int(min(Int64(piece.count), size - done))])
            guard try file.read(into: p, at: offset + done) == p.count else { throw .io("landed chunk is short") }
            try decryptor.feed(inPlace: p)
            done += Int64(p.count)
        }
        file.punchHole(at: offset, count: size)
    }
}
