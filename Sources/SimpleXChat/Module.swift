// SimpleXChat: the app layer of seed 002 (SimpleXAPI, APITypes, ChatModel, ChatReceiver) on Linux,
// without SwiftUI. It talks to the core only through command strings and JSON envelopes, as the
// iOS app does over the C ABI, and reuses ChatCore's JSON types instead of redefining them.
//
//   ChatBackend      the transport to a core (in-process ControllerBackend)
//   APIResult        the decoded `{"result"}` / `{"error"}` envelope, keeping undecodable answers
//   ChatAPI          the seeds' api* functions, with alerts and retries
//   ChatModel        observable app state: user, chat list, items, address
//   ChatReceiver     the event loop and processReceivedMsg
@_exported import ChatCore
