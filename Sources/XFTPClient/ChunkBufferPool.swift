import Foundation

/// Memory for one encrypted chunk on its way to a server: the encryption fills it, FPUT sends it.
/// Owned by its pool, which frees it; reused so a 1 GB upload does not fault in fresh pages per chunk.
public final class ChunkBuffer: @unchecked Sendable {
    public let memory: UnsafeMutableRawBufferPointer
    /// Bytes of `memory` that hold the chunk.
    public var count = 0

    init(capacity: Int) {
        memory = .allocate(byteCount: capacity, alignment: 64)
    }

    deinit { memory.deallocate() }

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: memory[0..<count]) }
}

/// A fixed number of chunk buffers shared by the encryption thread and the upload tasks: the
/// encryption blocks while all are taken, which bounds an upload's memory to the pool whatever the
/// file size. `cancel` releases a blocked encryption (it gets nil) when the upload stops early.
final class ChunkBufferPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var free: [ChunkBuffer]
    private var cancelled = false

    init(count: Int, capacity: Int) {
        free = (0..<count).map { _ in ChunkBuffer(capacity: capacity) }
    }

    /// A free buffer, waiting for one; nil once cancelled. Called on the encryption's own thread.
    func acquire() -> ChunkBuffer? {
        condition.lock()
        defer { condition.unlock() }
        while free.isEmpty, !cancelled { condition.wait() }
        guard !cancelled else { return nil }
        return free.removeLast()
    }

    func release(_ buffer: ChunkBuffer) {
        condition.lock()
        buffer.count = 0
        free.append(buffer)
        condition.signal()
        condition.unlock()
    }

    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}
