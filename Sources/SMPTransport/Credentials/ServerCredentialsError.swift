/// Why server credentials could not be generated, saved or loaded.
public enum ServerCredentialsError: Error, Sendable, Hashable {
    /// A required file is absent from the data folder.
    case missingFile(String)
    /// A file could not be read or written (the message says which and why).
    case io(String)
    /// A PEM file did not hold a valid certificate or key.
    case malformed(String)
    /// The key is not of the kind this server uses (Ed25519).
    case unsupportedKey(String)
    /// The files do not belong together: the server certificate is not signed by the CA, or the
    /// private key does not match its certificate.
    case mismatch(String)
}
