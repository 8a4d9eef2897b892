import GRDB

/// The agent database schema as an ordered list of migrations. Each one runs once, in a
/// transaction, and GRDB records it in `grdb_migrations`, so a file from any earlier release opens
/// and upgrades in place. Never edit a shipped migration: append a new one.
enum AgentMigrations {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("m20261122_initial", migrate: initial)
        m.registerMigration("m20261123_short_links", migrate: shortLinks)
        m.registerMigration("m20261124_ratchet_sync", migrate: ratchetSync)
        m.registerMigration("m20261124_queue_rotation", migrate: queueRotation)
        m.registerMigration("m20261125_prepared_messages", migrate: preparedMessages)
        m.registerMigration("m20261125_pending_receipts", migrate: pendingReceipts)
        m.registerMigration("m20261207_pending_messages_index", migrate: pendingMessagesIndex)
        return m
    }

    /// Names of every migration this build knows, in order.
    static var known: [String] { migrator.migrations }

    private static func initial(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE connections(
              conn_id TEXT PRIMARY KEY,
              conn_mode TEXT NOT NULL,
              initiator INTEGER NOT NULL,
              status TEXT NOT NULL,
              agent_version INTEGER NOT NULL,
              pq_support INTEGER NOT NULL,
              user_id INTEGER NOT NULL DEFAULT 1,
              last_internal_msg_id INTEGER NOT NULL DEFAULT 0,
              last_snd_msg_id INTEGER NOT NULL DEFAULT 0,
              last_snd_msg_hash BLOB NOT NULL DEFAULT x'',
              last_external_snd_msg_id INTEGER NOT NULL DEFAULT 0,
              last_rcv_msg_hash BLOB NOT NULL DEFAULT x'',
              own_link TEXT,
              created_at REAL NOT NULL
            ) STRICT;
            CREATE TABLE rcv_queues(
              rcv_queue_id INTEGER PRIMARY KEY AUTOINCREMENT,
              conn_id TEXT NOT NULL REFERENCES connections ON DELETE CASCADE,
              server TEXT NOT NULL,
              rcv_id BLOB NOT NULL,
              snd_id BLOB NOT NULL,
              rcv_private_key BLOB NOT NULL,
              rcv_dh_secret BLOB NOT NULL,
              e2e_private_key BLOB NOT NULL,
              e2e_dh_secret BLOB,
              snd_key BLOB,
              snd_secure INTEGER NOT NULL,
              status TEXT NOT NULL,
              smp_client_version INTEGER NOT NULL,
              UNIQUE(server, rcv_id)
            ) STRICT;
            CREATE INDEX idx_rcv_queues_conn ON rcv_queues(conn_id);
            CREATE TABLE snd_queues(
              snd_queue_id INTEGER PRIMARY KEY AUTOINCREMENT,
              conn_id TEXT NOT NULL REFERENCES connections ON DELETE CASCADE,
              server TEXT NOT NULL,
              snd_id BLOB NOT NULL,
              snd_private_key BLOB NOT NULL,
              e2e_private_key BLOB NOT NULL,
              e2e_dh_secret BLOB NOT NULL,
              snd_secure INTEGER NOT NULL,
              status TEXT NOT NULL,
              smp_client_version INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX idx_snd_queues_conn ON snd_queues(conn_id);
            CREATE TABLE ratchets(
              conn_id TEXT PRIMARY KEY REFERENCES connections ON DELETE CASCADE,
              x3dh_private BLOB,
              ratchet_state BLOB
            ) STRICT;
            CREATE TABLE confirmations(
              confirmation_id TEXT PRIMARY KEY,
              conn_id TEXT NOT NULL REFERENCES connections ON DELETE CASCADE,
              sender_key BLOB,
              e2e_dh_secret BLOB NOT NULL,
              reply_queues BLOB NOT NULL,
              conn_info BLOB NOT NULL,
              accepted INTEGER NOT NULL DEFAULT 0,
              created_at REAL NOT NULL
            ) STRICT;
            CREATE TABLE invitations(
              invitation_id TEXT PRIMARY KEY,
              contact_conn_id TEXT NOT NULL REFERENCES connections ON DELETE CASCADE,
              conn_request TEXT NOT NULL,
              conn_info BLOB NOT NULL,
              accepted INTEGER NOT NULL DEFAULT 0,
              created_at REAL NOT NULL
            ) STRICT;
            CREATE TABLE snd_messages(
              conn_id TEXT NOT NULL REFERENCES connections ON DELETE CASCADE,
              internal_id INTEGER NOT NULL,
              internal_snd_id INTEGER NOT NULL,
              msg_type TEXT NOT NULL,
              msg_hash BLOB NOT NULL,
              envelope BLOB,
              status TEXT NOT NULL,
              created_at REAL NOT NULL,
              PRIMARY KEY(conn_id, internal_id)
            ) STRICT;
            CREATE INDEX idx_snd_messages_pending ON snd_messages(conn_id, status, internal_id);
            CREATE INDEX idx_snd_messages_snd_id ON snd_messages(conn_id, internal_snd_id);
            CREATE INDEX idx_snd_messages_sent_bodies ON snd_messages(status) WHERE envelope IS NOT NULL;
            CREATE TABLE rcv_messages(
              conn_id TEXT NOT NULL REFERENCES connections ON DELETE CASCADE,
              internal_id INTEGER NOT NULL,
              external_snd_id INTEGER NOT NULL,
              broker_id BLOB NOT NULL,
              broker_ts INTEGER NOT NULL,
              msg_hash BLOB NOT NULL,
              body BLOB NOT NULL,
              integrity TEXT NOT NULL,
              pq_encryption INTEGER NOT NULL,
              user_ack INTEGER NOT NULL DEFAULT 0,
              PRIMARY KEY(conn_id, internal_id)
            ) STRICT;
            CREATE INDEX idx_rcv_messages_broker ON rcv_messages(conn_id, broker_id);
            """)
    }

    /// Short links: the credentials of links we own (one per connection: the link's ID and key,
    /// the root signing key, the encrypted fixed data to send again with every LSET), and the
    /// sender keys with which we secured invitation queues found via short links (LKEY), kept
    /// until we join them.
    private static func shortLinks(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE short_links(
              conn_id TEXT PRIMARY KEY REFERENCES connections ON DELETE CASCADE,
              server TEXT NOT NULL,
              link_id BLOB NOT NULL,
              link_key BLOB NOT NULL,
              link_priv_sig_key BLOB NOT NULL,
              link_enc_fixed_data BLOB NOT NULL,
              short_link TEXT NOT NULL
            ) STRICT;
            CREATE TABLE inv_short_links(
              inv_short_link_id INTEGER PRIMARY KEY AUTOINCREMENT,
              server TEXT NOT NULL,
              link_id BLOB NOT NULL,
              link_key BLOB NOT NULL,
              snd_private_key BLOB NOT NULL,
              snd_id BLOB,
              UNIQUE(server, link_id)
            ) STRICT;
            CREATE INDEX idx_inv_short_links_snd_id ON inv_short_links(snd_id);
            """)
    }

    /// Ratchet re-synchronization (simplexmq's `ratchet_sync_state`, `processed_ratchet_key_hashes`
    /// and the X3DH keys kept while a re-synchronization we started waits for the peer's keys).
    private static func ratchetSync(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE connections ADD COLUMN ratchet_sync_state TEXT NOT NULL DEFAULT 'ok';
            ALTER TABLE ratchets ADD COLUMN sync_x3dh_private BLOB;
            CREATE TABLE processed_ratchet_key_hashes(
              processed_ratchet_key_hash_id INTEGER PRIMARY KEY AUTOINCREMENT,
              conn_id TEXT NOT NULL REFERENCES connections ON DELETE CASCADE,
              hash BLOB NOT NULL,
              created_at REAL NOT NULL
            ) STRICT;
            CREATE INDEX idx_processed_ratchet_key_hashes_hash ON processed_ratchet_key_hashes(conn_id, hash);
            """)
    }

    /// Queue rotation (simplexmq `primary`, `replace_*_queue_id`, `*_switch_status`): a connection
    /// may have a second queue each way while it switches; messages name the queue they went to
    /// (QTEST goes to the new queue only) or came from (the ACK goes there).
    private static func queueRotation(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE rcv_queues ADD COLUMN primary_queue INTEGER NOT NULL DEFAULT 1;
            ALTER TABLE rcv_queues ADD COLUMN replace_rcv_queue_id INTEGER;
            ALTER TABLE rcv_queues ADD COLUMN switch_status TEXT;
            ALTER TABLE snd_queues ADD COLUMN primary_queue INTEGER NOT NULL DEFAULT 1;
            ALTER TABLE snd_queues ADD COLUMN replace_snd_queue_id INTEGER;
            ALTER TABLE snd_queues ADD COLUMN switch_status TEXT;
            ALTER TABLE snd_messages ADD COLUMN snd_queue_id INTEGER;
            ALTER TABLE rcv_messages ADD COLUMN rcv_queue_id INTEGER;
            """)
    }

    /// User messages are stored prepared (ratchet keys fixed, body not sealed: about 300 bytes)
    /// instead of as their 16 KB ciphertext, and cleared when sent, so a message no longer writes
    /// and rewrites 16 KB of overflow pages. Envelopes of already sent messages are dropped here.
    private static func preparedMessages(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE snd_messages ADD COLUMN prepared BLOB;
            UPDATE snd_messages SET envelope = NULL WHERE status != 'pending' AND envelope IS NOT NULL;
            """)
    }

    /// Delivery receipts acknowledged but not yet sent: the delivery worker sends all that wait
    /// in one A_RCVD (its list form), instead of one agent message per receipt.
    private static func pendingReceipts(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE pending_receipts(
              conn_id TEXT NOT NULL REFERENCES connections ON DELETE CASCADE,
              agent_msg_id INTEGER NOT NULL,
              msg_hash BLOB NOT NULL,
              rcpt_info BLOB NOT NULL,
              PRIMARY KEY(conn_id, agent_msg_id)
            ) STRICT;
            """)
    }

    /// The pending-messages index holds pending rows only: a message's "sent" mark then removes
    /// its entry (on the page where it was just added) instead of moving it to the end of the
    /// connection's ever-growing run of sent entries, a page of its own (1-2 pages less per
    /// message sent). Every query of pending messages names `status = 'pending'`.
    private static func pendingMessagesIndex(_ db: Database) throws {
        try db.execute(sql: """
            DROP INDEX idx_snd_messages_pending;
            CREATE INDEX idx_snd_messages_pending ON snd_messages(conn_id, internal_id) WHERE status = 'pending';
            """)
    }
}
