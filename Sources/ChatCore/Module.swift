// ChatCore: the chat core of seed 002 (§1-4) — ChatController, the command API, the chat
// protocol between clients and the chat database.
//
//   API/   JSON types of the bot API (bots/api/TYPES.md), ChatCommand parsing, ChatResponse,
//          ChatEvent and ChatError, exactly as SimpleX clients and bot SDKs expect them
