/// Which side of a connection's queue pair a switch concerns (simplexmq `QueueDirection`): our
/// receiving queue (we started the switch) or our sending queue (the peer did).
public enum QueueDirection: String, Sendable, Hashable {
    case rcv, snd
}

/// The steps of a queue switch reported in SWITCH events (simplexmq `SwitchPhase`).
public enum SwitchPhase: String, Sendable, Hashable {
    case started, confirmed, secured, completed
}

/// Where the switch of a receiving queue stands, kept on the queue being replaced (simplexmq
/// `RcvSwitchStatus`, with its text form).
public enum RcvSwitchStatus: String, Sendable, Hashable {
    case switchStarted = "switch_started"
    case sendingQADD = "sending_qadd"
    case sendingQUSE = "sending_quse"
    case receivedMessage = "received_message"

    /// simplexmq `canAbortRcvSwitch`: once QUSE is sent the peer may already have dropped the old queue.
    public var canAbort: Bool { self == .switchStarted || self == .sendingQADD }
}

/// Where the switch of a sending queue stands, kept on the queue being replaced (simplexmq `SndSwitchStatus`).
public enum SndSwitchStatus: String, Sendable, Hashable {
    case sendingQKEY = "sending_qkey"
    case sendingQTEST = "sending_qtest"
}
