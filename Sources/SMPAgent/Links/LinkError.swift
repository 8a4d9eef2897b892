/// Why a string is not a usable connection link or queue URI. Link parsers report one of these
/// for every bad input (they never trap), so the app can show a precise reason.
public enum LinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input is longer than `ConnectionLink.maxLength`.
    case tooLong(Int)
    /// Not `simplex:`, `https://` (links) or `smp://` (queue URIs).
    case unsupportedScheme(String)
    /// A path other than `invitation`, `contact` or a short link type letter.
    case unknownLinkType(String)
    /// The link's structure is broken (characters, separators, percent escapes).
    case malformed(String)
    /// A required query parameter is absent.
    case missingParameter(String)
    /// A query parameter is present but its value is not valid.
    case invalidParameter(name: String, reason: String)
    /// An SMP queue URI (alone or inside a link's `smp` parameter) is not valid.
    case invalidQueueURI(String)
    /// The `smp` parameter lists no queue.
    case noQueues
    /// The link's versions have nothing in common with ours.
    case incompatibleVersion(String)
    /// A one-time invitation without its `e2e` parameter.
    case missingE2EParameters
    /// A short link's data failed a check (simplexmq `A_LINK`): its hash, a signature, the owner
    /// chain, or a full link inside that names another queue.
    case linkData(String)

    public var description: String {
        switch self {
        case .tooLong(let n): "link of \(n) bytes exceeds \(ConnectionLink.maxLength)"
        case .unsupportedScheme(let s): "unsupported link scheme \"\(s)\""
        case .unknownLinkType(let t): "unknown link type \"\(t)\""
        case .malformed(let why): "malformed link: \(why)"
        case .missingParameter(let p): "missing parameter \"\(p)\""
        case .invalidParameter(let name, let reason): "invalid parameter \"\(name)\": \(reason)"
        case .invalidQueueURI(let why): "invalid SMP queue URI: \(why)"
        case .noQueues: "link has no SMP queues"
        case .incompatibleVersion(let why): "incompatible version: \(why)"
        case .missingE2EParameters: "invitation link without e2e encryption parameters"
        case .linkData(let why): "bad short link data: \(why)"
        }
    }
}
