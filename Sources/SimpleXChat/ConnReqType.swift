import ChatCore

/// What kind of link `apiConnect` joined (iOS `ConnReqType`): a one-time invitation, a contact
/// address, or a group link.
public enum ConnReqType: String, Sendable, Hashable {
    case invitation
    case contact
    case groupLink
}

/// The full outcome of `apiConnect`: `apiConnect` itself returns only the pending connection, as
/// in the iOS app, and reports the other cases as alerts; this keeps them observable.
public enum ConnectResult: Sendable, Hashable {
    /// The connection was started and waits for the peer (seed 001 §2.7).
    case connecting(ConnReqType, PendingContactConnection)
    /// The link belongs to a contact we already have (seed 001 §2.7 `contactAlreadyExists`).
    case contactAlreadyExists(Contact)
    /// The core refused or the answer was unexpected.
    case failed(ChatAlert)
}
