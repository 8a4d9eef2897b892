import NIOCore

/// Receive buffers for relay connections, sized like NIO's adaptive allocator (2 KB up to 256 KB
/// with the traffic: a busy sender's read then holds up to 16 blocks, whose responses share
/// blocks) but handed out fresh for every read, so a buffer lives only while its bytes
/// go through the pipeline: NIO's pool keeps the first buffer a channel ever read into for the
/// channel's whole life, and with this allocator that is the small one that read the
/// ClientHello, where the adaptive one kept a 16-32 KB buffer per idle client (issue 16).
/// Effective with `maxMessagesPerRead` 1 (a pool of one buffer, which takes no further ones).
struct IdleFriendlyRecvAllocator: RecvByteBufferAllocator {
    private var adaptive: AdaptiveRecvByteBufferAllocator
    /// Capacity of the first buffer, the one NIO keeps.
    let firstCapacity: Int
    private var first = true

    init(firstCapacity: Int = 512, minimum: Int = 2048, maximum: Int = 262144) {
        self.firstCapacity = firstCapacity
        adaptive = AdaptiveRecvByteBufferAllocator(minimum: minimum, initial: minimum, maximum: maximum)
    }

    func buffer(allocator: ByteBufferAllocator) -> ByteBuffer {
        first ? allocator.buffer(capacity: firstCapacity) : adaptive.buffer(allocator: allocator)
    }

    /// No size hint: the pool then reuses its kept buffer only when told the next read will
    /// not grow, which `record` never says, so each read allocates.
    func nextBufferSize() -> Int? { nil }

    mutating func record(actualReadBytes: Int) -> Bool {
        first = false
        _ = adaptive.record(actualReadBytes: actualReadBytes)
        return true
    }
}
