// swift-tools-version: 6.0
// SimpleX-Swift: relays, agent, chat core and front ends of SimpleX Chat, one module per layer.
import PackageDescription

let package = Package(
    name: "SimpleXSwift",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "smp-server", targets: ["smp-server"]),
        .executable(name: "simplex-chat", targets: ["simplex-chat"]),
        .executable(name: "smp-bench", targets: ["SMPBenchmark"]),
        .executable(name: "agent-bench", targets: ["AgentBenchmark"]),
        .executable(name: "chat-bench", targets: ["ChatBenchmark"]),
        .executable(name: "xftp-bench", targets: ["XFTPBenchmark"]),
        .executable(name: "simplex-vectors", targets: ["simplex-vectors"]),
        .executable(name: "xftp-server", targets: ["xftp-server"]),
        .library(name: "XFTPClient", targets: ["XFTPClient"]),
        .library(name: "SMPClient", targets: ["SMPClient"]),
        .library(name: "simplex", type: .dynamic, targets: ["SimplexLib"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
    ],
    targets: [
        // System OpenSSL for X448/Ed448, which swift-crypto does not offer.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // libsodium's XSalsa20 and Poly1305 (SIMD): three times our Swift versions on every 16 KB block.
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        // System zstd for compressed chat message bodies (chat version 8+, simplexmq Compression.hs).
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .target(
            name: "SimplexFoundation",
            dependencies: [
                "COpenSSL", "CSodium", "CSimplexHash",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            // Optimised even in debug builds: its Salsa20/Poly1305 seal every v11 transport block and
            // every message twice, and unoptimised they slow the test suite's relays to a crawl.
            swiftSettings: [.unsafeFlags(["-O"])]
        ),
        .target(name: "SMPProtocol", dependencies: ["SimplexFoundation"]),
        // Streamlined NTRU Prime 761 in C, from the NTRU Prime specification (SHA-512 from libcrypto).
        // Optimised even in debug builds: the ratchet runs it at every PQ step, tests included.
        .target(name: "CSNTRUP761", cSettings: [.unsafeFlags(["-O2"])], linkerSettings: [.linkedLibrary("crypto")]),
        // HMAC-SHA512 and HKDF-SHA512 in C on the system OpenSSL's SHA-512 (AVX2 where the CPU has it).
        .target(name: "CSimplexHash", cSettings: [.unsafeFlags(["-O2"])], linkerSettings: [.linkedLibrary("crypto")]),
        // TLS over the system OpenSSL 3 (memory BIOs under SwiftNIO) and Ed25519/Ed448 X.509, for SMP transport.
        .target(
            name: "CSimplexTLS",
            linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]
        ),
        // The post-quantum augmented double ratchet (pqdr.md) used by the agent.
        .target(
            name: "DoubleRatchet",
            dependencies: ["SimplexFoundation", "CSNTRUP761", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "SMPTransport",
            dependencies: [
                "SimplexFoundation", "SMPProtocol", "CSimplexTLS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "SMPClient",
            dependencies: [
                "SimplexFoundation", "SMPProtocol", "SMPTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "SMPServer",
            dependencies: [
                "SimplexFoundation", "SMPProtocol", "SMPTransport", "SMPClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Page encryption of SQLite files (AES-256-GCM per page) as a VFS over the system SQLite.
        .target(
            name: "CSQLiteCrypt",
            linkerSettings: [.linkedLibrary("sqlite3"), .linkedLibrary("crypto")]
        ),
        // Opening, keying and re-keying the SQLite stores of the agent and the chat core.
        .target(
            name: "SimplexStore",
            dependencies: ["CSQLiteCrypt", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // Duplex connections over SMP queues, links, e2e encryption and reliable delivery (agent-protocol.md).
        .target(
            name: "SMPAgent",
            dependencies: [
                "SimplexFoundation", "SMPProtocol", "SMPTransport", "SMPClient", "DoubleRatchet", "SimplexStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The chat core: ChatController, command API, chat protocol, chat database.
        .target(
            name: "ChatCore",
            dependencies: [
                "SMPAgent", "SimplexFoundation", "SMPTransport", "SimplexStore", "CZstd", "XFTPClient", "XFTPProtocol",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // libsimplex.so: the C ABI of simplex-chat (seed 002 §2) over ChatCore; include/simplex.h.
        .target(
            name: "SimplexLib",
            dependencies: [
                "ChatCore", "SMPAgent", "SimplexFoundation", "SMPTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Sources/SimplexLib"
        ),
        // The app layer of seed 002 (SimpleXAPI, ChatModel, ChatReceiver) over ChatCore's command API.
        .target(
            name: "SimpleXChat",
            dependencies: ["ChatCore"]
        ),
        // The terminal client and its WebSocket bot API.
        .executableTarget(
            name: "simplex-chat",
            dependencies: [
                "ChatCore", "SMPServer", "SMPTransport", "QRCode", "XFTPServer", "XFTPProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "smp-server",
            dependencies: [
                "SMPServer", "SMPTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The protocol's required CPU per SMP delivery and per agent message, timed in the benchmark's own run
        // (smp-bench, agent-bench, chat-bench).
        .target(
            name: "BenchmarkFloor",
            dependencies: [
                "SMPTransport", "SMPProtocol", "SimplexFoundation", "COpenSSL", "SMPAgent", "DoubleRatchet",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/BenchmarkFloor"
        ),
        .executableTarget(
            name: "SMPBenchmark",
            dependencies: [
                "BenchmarkFloor", "SMPServer", "SMPClient", "SMPTransport", "SMPProtocol", "SimplexFoundation", "COpenSSL",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/SMPBenchmark"
        ),
        .executableTarget(
            name: "AgentBenchmark",
            dependencies: [
                "BenchmarkFloor", "SMPAgent", "SMPServer", "SMPTransport", "SMPProtocol", "DoubleRatchet", "SimplexFoundation",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/AgentBenchmark"
        ),
        .executableTarget(
            name: "ChatBenchmark",
            dependencies: [
                "BenchmarkFloor", "ChatCore", "SMPServer", "SMPTransport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/ChatBenchmark"
        ),
        .executableTarget(
            name: "XFTPBenchmark",
            dependencies: [
                "XFTPClient", "XFTPServer", "XFTPProtocol", "XFTPTransport", "SMPTransport", "SimplexFoundation",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/XFTPBenchmark"
        ),
        // Checks of the reference vectors (../shared/refvectors) against our implementation.
        .target(
            name: "SimplexVectors",
            dependencies: [
                "SimplexFoundation", "SMPProtocol", "SMPTransport", "DoubleRatchet", "SMPAgent", "XFTPProtocol",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(name: "simplex-vectors", dependencies: ["SimplexVectors"]),
        // libFuzzer target for the decoders; scripts/fuzz.sh builds it with -sanitize=fuzzer,address.
        .target(name: "SMPFuzz", dependencies: ["SMPTransport", "SMPProtocol", "SimplexFoundation"], path: "Fuzz/SMPFuzz"),
        .testTarget(name: "SimplexFoundationTests", dependencies: ["SimplexFoundation"]),
        .testTarget(name: "SMPProtocolTests", dependencies: ["SMPProtocol", "SimplexFoundation"]),
        .testTarget(name: "SimplexStoreTests", dependencies: ["SimplexStore", "CSQLiteCrypt", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "DoubleRatchetTests", dependencies: ["DoubleRatchet", "SimplexFoundation", "COpenSSL"]),
        .testTarget(
            name: "SMPTransportTests",
            dependencies: [
                "SMPTransport", "SMPProtocol", "SimplexFoundation",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "SMPAgentTests",
            dependencies: [
                "SMPAgent", "SMPServer", "SMPClient", "SMPTransport", "SMPProtocol", "DoubleRatchet", "SimplexFoundation",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "ChatCoreTests",
            dependencies: [
                "ChatCore", "SMPAgent", "SMPServer", "SMPTransport", "CZstd", "XFTPServer", "XFTPClient", "XFTPProtocol", "SimplexFoundation",
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "GRDB", package: "GRDB.swift"),
            ],
            // The vendored JTD schema and its overlay, read from the source tree by ChatSchemaTests.
            exclude: ["Schema"]
        ),
        .testTarget(
            name: "SimpleXChatTests",
            dependencies: ["SimpleXChat", "ChatCore", "SMPServer", "SMPTransport", .product(name: "NIOPosix", package: "swift-nio")]
        ),
        .testTarget(
            name: "SMPServerTests",
            dependencies: ["SMPServer", "SMPClient", "SMPTransport", "SMPProtocol", "SimplexFoundation"]
        ),
        // XFTP (protocol/xftp.md): commands, transmissions, file descriptions, file encryption.
        .target(
            name: "XFTPProtocol",
            dependencies: ["SimplexFoundation", "COpenSSL", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // XFTP over HTTP/2 over our TLS: the TLS parameters and ALPN names, and request/response
        // bodies read and written as streams (shared by the XFTP server and client).
        .target(
            name: "XFTPTransport",
            dependencies: [
                "XFTPProtocol", "SMPTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ]
        ),
        // The XFTP server: chunk store on disk, store log, quotas, expiry, command processing, and its
        // HTTP/2 transport over our TLS (ALPN xftp/1).
        .target(
            name: "XFTPServer",
            dependencies: [
                "XFTPProtocol", "XFTPTransport", "SimplexFoundation", "SMPTransport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "xftp-server",
            dependencies: [
                "XFTPServer", "XFTPProtocol", "XFTPTransport", "SMPTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // The XFTP client: HTTP/2 sessions to XFTP servers, chunk commands, file upload and download.
        .target(
            name: "XFTPClient",
            dependencies: [
                "XFTPProtocol", "XFTPTransport", "SimplexFoundation", "SMPTransport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "XFTPProtocolTests", dependencies: ["XFTPProtocol", "SimplexFoundation"]),
        .testTarget(name: "XFTPServerTests", dependencies: ["XFTPServer", "XFTPProtocol", "SimplexFoundation"]),
        .testTarget(
            name: "XFTPClientTests",
            dependencies: [
                "XFTPClient", "XFTPServer", "XFTPProtocol", "XFTPTransport", "SMPTransport", "SimplexFoundation",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // QR codes for showing connection links in the terminal.
        .target(name: "QRCode"),
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode"], resources: [.copy("Fixtures")]),
    ],
    swiftLanguageModes: [.v6]
)
