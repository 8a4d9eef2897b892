// SMPAgent: turns pairs of one-way SMP queues into private duplex connections.
//
//   Links/     connection links (simplex:/invitation#/?..., contact addresses, SMP queue URIs)
//   Protocol/  agent wire formats: per-queue crypto_box envelope, agent envelopes and messages
//   Store/     the agent database (SQLite through GRDB) with versioned migrations
//   Agent/     SMPAgent: connection procedure, delivery workers, events to the chat layer
