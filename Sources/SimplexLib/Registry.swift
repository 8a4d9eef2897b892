import ChatCore
import Dispatch
import NIOConcurrencyHelpers
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The controllers this library handed out, by handle, and the event loops they share.
/// Handles are small integers disguised as pointers (`chat_ctrl` is `void *`); they start at 1 and
/// are never reused, so a stale handle finds nothing instead of another controller.
struct Registry {
    var next: UInt = 1
    var controllers: [UInt: ChatController] = [:]
    /// Created on the first `chat_migrate_init` and kept for the life of the process.
    var group: MultiThreadedEventLoopGroup?
}

/// The one piece of global state of the library (see the brief in include/simplex.h).
let registry = NIOLockedValueBox(Registry())

enum Lib {
    /// The shared event loop group, created on first use.
    static func eventLoopGroup() -> MultiThreadedEventLoopGroup {
        registry.withLockedValue { r in
            if let g = r.group { return g }
            let g = MultiThreadedEventLoopGroup(numberOfThreads: 2)
            r.group = g
            return g
        }
    }

    /// Registers a controller and answers its handle.
    static func register(_ c: ChatController) -> UnsafeMutableRawPointer? {
        let id = registry.withLockedValue { r -> UInt in
            let id = r.next
            r.next += 1
            r.controllers[id] = c
            return id
        }
        return UnsafeMutableRawPointer(bitPattern: id)
    }

    static func controller(_ handle: UnsafeMutableRawPointer?) -> ChatController? {
        guard let handle else { return nil }
        let id = UInt(bitPattern: handle)
        return registry.withLockedValue { $0.controllers[id] }
    }

    /// Takes a controller out of the registry (the handle is dead from now on).
    static func unregister(_ handle: UnsafeMutableRawPointer?) -> ChatController? {
        guard let handle else { return nil }
        let id = UInt(bitPattern: handle)
        return registry.withLockedValue { $0.controllers.removeValue(forKey: id) }
    }

    /// What commands sent to an unknown, NULL or closed handle answer.
    static let notStartedJSON = ChatError.error(errorType: .chatNotStarted).errorJSONString()

    /// Runs `body` on the Swift concurrency pool and blocks the calling (C host) thread until it
    /// finishes. Never call this from a Swift concurrency thread: C callers' threads are not ones.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let result = NIOLockedValueBox<T?>(nil)
        Task.detached {
            let r = await body()
            result.withLockedValue { $0 = r }
            done.signal()
        }
        done.wait()
        return result.withLockedValue { $0! }
    }

    /// A C string argument; NULL reads as nil.
    static func string(_ p: UnsafePointer<CChar>?) -> String? {
        guard let p else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: p, count: strlen(p)), as: UTF8.self)
    }

    /// The raw bytes of a C string argument; NULL reads as empty.
    static func bytes(_ p: UnsafePointer<CChar>?) -> [UInt8] {
        guard let p else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: strlen(p)))
    }

    /// A malloc'd NUL-terminated UTF-8 copy of `s`, for the caller to free().
    static func cString(_ s: String) -> UnsafeMutablePointer<CChar>? {
        var bytes = Array(s.utf8)
        // A NUL inside would cut the string short for C; JSON never has one, error texts might.
        for i in bytes.indices where bytes[i] == 0 { bytes[i] = UInt8(ascii: " ") }
        guard let p = malloc(bytes.count + 1)?.assumingMemoryBound(to: CChar.self) else { return nil }
        bytes.withUnsafeBytes { b in
            if let base = b.baseAddress { memcpy(p, base, b.count) }
        }
        p[bytes.count] = 0
        return p
    }
}
