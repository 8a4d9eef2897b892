import Foundation
import SimplexFoundation
import XFTPProtocol

/// The saved state of an upload: the encryption, and per chunk its keys, IDs and whether it is on the server.
struct UploadState: Codable {
    struct Chunk: Codable {
        var chunkNo: Int
        var offset: Int64
        var size: UInt32
        var digest: [UInt8]
        var server: String
        var senderKey: [UInt8]
        var recipientKeys: [[UInt8]]
        var senderId: [UInt8]?
        var recipientIds: [[UInt8]]?
        var uploaded = false
    }

    /// The encrypted file of states saved by versions that wrote one (nil: chunks are encrypted
    /// into memory, again on a retry).
    var encryptedPath: String?
    var size: Int64
    var digest: [UInt8]
    var key: [UInt8]
    var nonce: [UInt8]
    var chunks: [Chunk]
    /// Size and digest of the file a redirect's description describes (nil for an ordinary file).
    var redirectSize: Int64?
    var redirectDigest: [UInt8]?
    /// With an encrypted file: false while it was being written (such a state is not resumed);
    /// absent in states saved before encryption and upload overlapped (they were complete).
    var encryptionDone: Bool?

    /// The sender's and each recipient's description (`createSndFileDescription`, `createRcvFileDescriptions`).
    func descriptions() throws(XFTPClientError) -> XFTPUploadResult {
        let chunkSize = chunks.first?.size ?? 0
        var sender: [FileChunk] = []
        var rcps: [[FileChunk]] = Array(repeating: [], count: chunks.first?.recipientKeys.count ?? 0)
        for c in chunks {
            guard let sid = c.senderId, let rids = c.recipientIds else { throw .io("chunk \(c.chunkNo) not uploaded") }
            var srv = try XFTPFileTransfer.server(c.server)
            srv.basicAuth = nil
            sender.append(FileChunk(chunkNo: c.chunkNo, chunkSize: c.size, digest: c.digest,
                                    replicas: [FileChunkReplica(server: srv, replicaId: sid, replicaKey: try XFTPFileTransfer.key(c.senderKey))]))
            for i in rcps.indices {
                rcps[i].append(FileChunk(chunkNo: c.chunkNo, chunkSize: c.size, digest: c.digest,
                                         replicas: [FileChunkReplica(server: srv, replicaId: rids[i], replicaKey: try XFTPFileTransfer.key(c.recipientKeys[i]))]))
            }
        }
        let redirect = redirectSize.flatMap { s in redirectDigest.map { RedirectFileInfo(size: s, digest: $0) } }
        func fd(_ party: FileParty, _ chunks: [FileChunk]) -> FileDescription {
            // Only recipients follow a redirect (`sndFileToDescrs`).
            FileDescription(party: party, size: size, digest: digest, key: key, nonce: nonce, chunkSize: chunkSize, chunks: chunks,
                            redirect: party == .recipient ? redirect : nil)
        }
        return XFTPUploadResult(sender: fd(.sender, sender), recipients: rcps.map { fd(.recipient, $0) })
    }
}
