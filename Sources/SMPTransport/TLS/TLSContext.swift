import CSimplexTLS

/// An OpenSSL `SSL_CTX` configured once and shared by every connection of a listener or client
/// (OpenSSL allows concurrent `SSL_new` from one context; it is never changed after init).
public final class TLSContext: @unchecked Sendable {
    let pointer: OpaquePointer
    /// True for the accepting side.
    public let isServer: Bool
    public let configuration: TLSConfiguration

    /// A server context presenting `chain` (DER, leaf first) with the leaf's PKCS#8 key.
    public convenience init(serverChain chain: [[UInt8]], privateKeyPKCS8 key: [UInt8],
                            configuration: TLSConfiguration = .smp) throws(TLSError) {
        try self.init(server: true, configuration: configuration)
        var err = [CChar](repeating: 0, count: 256)
        let ok = withArrayOfPointers(chain) { ptrs, lens in
            key.withUnsafeBufferPointer { k in
                sxtls_ctx_use_chain(pointer, ptrs, lens, chain.count, k.baseAddress, k.count, &err, err.count)
            }
        }
        guard ok == 1 else { throw .configuration(Self.string(err)) }
    }

    /// A client context; certificates are checked per connection by the handler's verifier.
    public convenience init(clientConfiguration configuration: TLSConfiguration = .smp) throws(TLSError) {
        try self.init(server: false, configuration: configuration)
    }

    private init(server: Bool, configuration: TLSConfiguration) throws(TLSError) {
        var err = [CChar](repeating: 0, count: 256)
        let alpn = configuration.alpnWire
        let ctx = alpn.withUnsafeBufferPointer { a in
            sxtls_ctx_new(server ? 1 : 0, configuration.minimumVersion.rawValue, configuration.maximumVersion.rawValue,
                          configuration.cipherList, configuration.cipherSuites, configuration.groups,
                          configuration.signatureAlgorithms, a.baseAddress, a.count, &err, err.count)
        }
        guard let ctx else { throw .configuration(Self.string(err)) }
        pointer = ctx
        isServer = server
        self.configuration = configuration
    }

    deinit { sxtls_ctx_free(pointer) }

    static func string(_ buf: [CChar]) -> String {
        String(decoding: buf.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Runs `body` with C arrays of pointers to and lengths of `items` (valid only inside `body`).
func withArrayOfPointers<R>(_ items: [[UInt8]], _ body: (UnsafePointer<UnsafePointer<UInt8>?>, UnsafePointer<Int>) -> R) -> R {
    var storage: [UnsafeMutablePointer<UInt8>] = []
    storage.reserveCapacity(items.count)
    for item in items {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(item.count, 1))
        p.initialize(from: item, count: item.count)
        storage.append(p)
    }
    defer { storage.forEach { $0.deallocate() } }
    // Never empty, so the base addresses below exist.
    let pointers: [UnsafePointer<UInt8>?] = storage.isEmpty ? [nil] : storage.map { UnsafePointer($0) }
    let lengths = items.isEmpty ? [0] : items.map(\.count)
    return pointers.withUnsafeBufferPointer { p in
        lengths.withUnsafeBufferPointer { l in body(p.baseAddress!, l.baseAddress!) }
    }
}
