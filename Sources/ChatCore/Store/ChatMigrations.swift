import GRDB

/// The chat database schema as an ordered list of migrations (recorded by GRDB in
/// `grdb_migrations`). Never edit a shipped migration: append a new one.
enum ChatMigrations {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("m20261122_chat_initial", migrate: initial)
        m.registerMigration("m20261122_prepared_contacts") { db in
            // Seed 001 §3: a contact made from a link before connecting keeps the link until then.
            try db.execute(sql: """
                ALTER TABLE contacts ADD COLUMN prepared_conn_link TEXT;
                ALTER TABLE contacts ADD COLUMN prepared_short_link TEXT;
                ALTER TABLE contacts ADD COLUMN prepared_link_mode TEXT;
                ALTER TABLE contact_requests ADD COLUMN request_msg_id TEXT;
                ALTER TABLE contact_requests ADD COLUMN request_msg_content TEXT;
                """)
        }
        m.registerMigration("m20261123_groups", migrate: groups)
        m.registerMigration("m20261123_chat_short_links") { db in
            // The short form of each link we create (its data is kept by the relay).
            try db.execute(sql: """
                ALTER TABLE connections ADD COLUMN short_link_inv TEXT;
                ALTER TABLE user_contact_links ADD COLUMN short_link TEXT;
                ALTER TABLE group_links ADD COLUMN short_link TEXT;
                """)
        }
        m.registerMigration("m20261123_prepared_groups_pending") { db in
            // Group messages for members whose connection is not ready yet, sent on CON; and
            // groups prepared from a link's data before joining (seed 001 §3).
            try db.execute(sql: """
                CREATE TABLE pending_group_messages(
                  pending_group_message_id INTEGER PRIMARY KEY AUTOINCREMENT,
                  group_member_id INTEGER NOT NULL REFERENCES group_members ON DELETE CASCADE,
                  chat_item_id INTEGER REFERENCES chat_items ON DELETE SET NULL,
                  body BLOB NOT NULL,
                  created_at REAL NOT NULL
                ) STRICT;
                CREATE INDEX idx_pending_group_messages ON pending_group_messages(group_member_id);
                ALTER TABLE groups ADD COLUMN prepared_conn_link TEXT;
                ALTER TABLE groups ADD COLUMN prepared_short_link TEXT;
                ALTER TABLE groups ADD COLUMN prepared_started INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE connections ADD COLUMN prepared_group_id INTEGER REFERENCES groups ON DELETE CASCADE;
                """)
        }
        m.registerMigration("m20261124_profiles_custom_data_deletions") { db in
            // Issue 14: the whole profile is kept (preferences, peer type, short description) so
            // merged preferences can be computed and a re-sent profile compares equal; custom data
            // of contacts and groups; a contact whose chat was cleared by `/_delete @id messages`;
            // what each connection negotiated (chat version, the peer's range, PQ encryption);
            // agent connections still to delete once the agent runs (deleted while stopped).
            try db.execute(sql: """
                ALTER TABLE users ADD COLUMN short_descr TEXT;
                ALTER TABLE users ADD COLUMN preferences TEXT;
                ALTER TABLE users ADD COLUMN peer_type TEXT;
                ALTER TABLE contact_profiles ADD COLUMN short_descr TEXT;
                ALTER TABLE contact_profiles ADD COLUMN preferences TEXT;
                ALTER TABLE contact_profiles ADD COLUMN peer_type TEXT;
                ALTER TABLE contacts ADD COLUMN custom_data TEXT;
                ALTER TABLE contacts ADD COLUMN chat_deleted INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE groups ADD COLUMN custom_data TEXT;
                ALTER TABLE connections ADD COLUMN peer_chat_min_version INTEGER;
                ALTER TABLE connections ADD COLUMN peer_chat_max_version INTEGER;
                ALTER TABLE connections ADD COLUMN pq_support INTEGER NOT NULL DEFAULT 1;
                ALTER TABLE connections ADD COLUMN pq_encryption INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE contact_requests ADD COLUMN peer_chat_min_version INTEGER;
                ALTER TABLE contact_requests ADD COLUMN peer_chat_max_version INTEGER;
                ALTER TABLE user_contact_links ADD COLUMN pq_support INTEGER;
                CREATE TABLE pending_agent_deletions(
                  agent_conn_id TEXT PRIMARY KEY,
                  delete_queues INTEGER NOT NULL,
                  created_at REAL NOT NULL
                ) STRICT;
                """)
        }
        m.registerMigration("m20261124_typed_status_columns") { db in
            // Statuses and contents are the API's JSON; queries select on their type through
            // these columns (indexed) instead of comparing JSON text or matching it with LIKE.
            try db.execute(sql: """
                ALTER TABLE chat_items ADD COLUMN item_status_type TEXT GENERATED ALWAYS AS (json_extract(item_status, '$.type')) VIRTUAL;
                ALTER TABLE chat_items ADD COLUMN item_content_type TEXT GENERATED ALWAYS AS (json_extract(item_content, '$.type')) VIRTUAL;
                ALTER TABLE group_item_deliveries ADD COLUMN delivery_status_type TEXT
                  GENERATED ALWAYS AS (json_extract(delivery_status, '$.type')) VIRTUAL;
                CREATE INDEX idx_chat_items_contact_status_type ON chat_items(contact_id, item_status_type);
                CREATE INDEX idx_chat_items_group_status_type ON chat_items(group_id, item_status_type);
                CREATE INDEX idx_chat_items_user_status_type ON chat_items(user_id, item_status_type);
                """)
        }
        m.registerMigration("m20261124_batched_group_deliveries") { db in
            // Chat versions 5+: several items may go to a member in one agent message (a batch),
            // so a delivery is keyed by the agent message and the item, not the message alone.
            try db.execute(sql: """
                CREATE TABLE group_item_deliveries_new(
                  chat_item_id INTEGER NOT NULL REFERENCES chat_items ON DELETE CASCADE,
                  group_member_id INTEGER NOT NULL REFERENCES group_members ON DELETE CASCADE,
                  agent_conn_id TEXT NOT NULL,
                  agent_msg_id INTEGER NOT NULL,
                  delivery_status TEXT NOT NULL,
                  delivery_status_type TEXT GENERATED ALWAYS AS (json_extract(delivery_status, '$.type')) VIRTUAL,
                  PRIMARY KEY (agent_conn_id, agent_msg_id, chat_item_id)
                ) STRICT, WITHOUT ROWID;
                INSERT INTO group_item_deliveries_new (chat_item_id, group_member_id, agent_conn_id, agent_msg_id, delivery_status)
                  SELECT chat_item_id, group_member_id, agent_conn_id, agent_msg_id, delivery_status FROM group_item_deliveries;
                DROP TABLE group_item_deliveries;
                ALTER TABLE group_item_deliveries_new RENAME TO group_item_deliveries;
                CREATE INDEX idx_group_item_deliveries_item ON group_item_deliveries(chat_item_id);
                """)
        }
        m.registerMigration("m20261124_files", migrate: files)
        // Chat version 7: when the user's profile changed, and when it was last sent to each group.
        m.registerMigration("m20261124_member_profile_updates") { db in
            try db.execute(sql: """
                ALTER TABLE users ADD COLUMN user_member_profile_updated_at REAL;
                ALTER TABLE groups ADD COLUMN user_member_profile_sent_at REAL;
                """)
        }
        // A direct file is complete once its last description part is SENT (simplex-chat
        // `updateSndFTDeliveryXFTP` + `getSndFTViaMsgDelivery`): which agent message that is.
        m.registerMigration("m20261124_snd_file_descr_delivery") { db in
            try db.execute(sql: """
                ALTER TABLE snd_file_recipients ADD COLUMN descr_agent_conn_id TEXT;
                ALTER TABLE snd_file_recipients ADD COLUMN descr_agent_msg_id INTEGER;
                CREATE INDEX idx_snd_file_recipients_descr_delivery ON snd_file_recipients(descr_agent_conn_id, descr_agent_msg_id);
                """)
        }
        // simplex-chat `security_code`/`security_code_verified_at`: the connection's code as the
        // user verified it (cleared when the ratchet is re-synchronized).
        m.registerMigration("m20261124_connection_security_codes") { db in
            try db.execute(sql: """
                ALTER TABLE connections ADD COLUMN security_code TEXT;
                ALTER TABLE connections ADD COLUMN security_code_verified_at REAL;
                """)
        }
        m.registerMigration("m20261124b_business_chats") { db in
            // simplex-chat `groups.business_chat`, `business_member_id`, `customer_member_id`
            // (chat version 10): which side of a business chat we are, and its two member IDs.
            try db.execute(sql: """
                ALTER TABLE groups ADD COLUMN business_chat TEXT;
                ALTER TABLE groups ADD COLUMN business_member_id TEXT;
                ALTER TABLE groups ADD COLUMN customer_member_id TEXT;
                """)
        }
        // simplex-chat `group_scope_tag`/`group_scope_group_member_id` (chat version 15): items of a
        // member's support chat, kept out of the group's main chat.
        m.registerMigration("m20261124c_member_support_scope") { db in
            try db.execute(sql: """
                ALTER TABLE chat_items ADD COLUMN group_scope_tag TEXT;
                ALTER TABLE chat_items ADD COLUMN group_scope_group_member_id INTEGER REFERENCES group_members ON DELETE CASCADE;
                CREATE INDEX idx_chat_items_group_scope ON chat_items(group_id, group_scope_group_member_id, chat_item_id);
                """)
        }
        // simplex-chat `welcome_shared_msg_id` (chat version 16): the shared ID of the welcome message
        // a joiner showed from an address's link data (joiner: its prepared contact; owner: the request
        // and the contact accepted from it), so the owner's auto-reply updates that item.
        m.registerMigration("m20261124c_link_welcome_ids") { db in
            try db.execute(sql: """
                ALTER TABLE contact_requests ADD COLUMN welcome_shared_msg_id TEXT;
                ALTER TABLE contacts ADD COLUMN welcome_shared_msg_id TEXT;
                """)
        }
        // simplex-chat `groups.welcome_shared_msg_id` for business chats (chat version 16): the
        // customer's prepared chat shows the address's welcome with this ID and sends it in x.contact;
        // the business keeps it from the request, and its auto-reply then updates that item.
        // `business_xcontact_id`: the request ID (x.contact `contactReqId`) a business chat was made
        // for, so a repeated request is recognised (simplex-chat `business_xcontact_id`).
        m.registerMigration("m20261125a_business_request_ids") { db in
            try db.execute(sql: """
                ALTER TABLE groups ADD COLUMN welcome_shared_msg_id TEXT;
                ALTER TABLE groups ADD COLUMN business_xcontact_id TEXT;
                """)
        }
        // simplex-chat m20250126_mentions: who a group item mentions (by the name used in its text)
        // and whether it mentions or replies to us (`user_mention`, what the mention counters count).
        m.registerMigration("m20261125b_mentions") { db in
            try db.execute(sql: """
                ALTER TABLE chat_items ADD COLUMN user_mention INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE chat_item_mentions(
                  chat_item_mention_id INTEGER PRIMARY KEY AUTOINCREMENT,
                  group_id INTEGER NOT NULL REFERENCES groups ON DELETE CASCADE,
                  member_id TEXT NOT NULL,
                  chat_item_id INTEGER NOT NULL REFERENCES chat_items ON DELETE CASCADE,
                  display_name TEXT NOT NULL
                ) STRICT;
                CREATE INDEX idx_chat_item_mentions_group_id ON chat_item_mentions(group_id);
                CREATE UNIQUE INDEX idx_chat_item_mentions_display_name ON chat_item_mentions(chat_item_id, display_name);
                CREATE UNIQUE INDEX idx_chat_item_mentions_member_id ON chat_item_mentions(chat_item_id, member_id);
                """)
        }
        // simplex-chat `support_chat_*` columns of group_members (chat version 15): a member support
        // chat's counters (GroupSupportChat), kept as items arrive and are read.
        m.registerMigration("m20261125b_support_chat_counters") { db in
            try db.execute(sql: """
                ALTER TABLE group_members ADD COLUMN support_chat_ts REAL;
                ALTER TABLE group_members ADD COLUMN support_chat_items_unread INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE group_members ADD COLUMN support_chat_items_member_attention INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE group_members ADD COLUMN support_chat_items_mentions INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE group_members ADD COLUMN support_chat_last_msg_from_member_ts REAL;
                """)
        }
        // simplex-chat `group_members.member_welcome_shared_msg_id` (chat version 16): the welcome a
        // joiner showed from a group link's data (kept in `groups.welcome_shared_msg_id`, added by
        // m20261125a_business_request_ids), named in its request, so the host does not send it again
        // in the history.
        m.registerMigration("m20261125b_group_welcome_ids") { db in
            try db.execute(sql: """
                ALTER TABLE group_members ADD COLUMN member_welcome_shared_msg_id TEXT;
                """)
        }
        // simplex-chat `chat_items.forwarded_by_group_member_id` (chat version 4 forwarding): the host
        // that forwarded the message an item was made from (x.grp.msg.forward), shown as
        // CIMeta.forwardedByMember.
        m.registerMigration("m20261126b_forwarded_by_member") { db in
            try db.execute(sql: """
                ALTER TABLE chat_items ADD COLUMN forwarded_by_group_member_id INTEGER REFERENCES group_members ON DELETE SET NULL;
                CREATE INDEX idx_chat_items_forwarded_by_group_member_id ON chat_items(forwarded_by_group_member_id);
                """)
        }
        // Contact-merging probes (simplex-chat M20220101 `sent_probes`, `sent_probe_hashes`,
        // `received_probes`, with `group_member_id` from its group version): a probe we sent to a
        // contact or member, the connections its hash went to, and the probes and hashes we received.
        m.registerMigration("m20261127a_probes") { db in
            try db.execute(sql: """
                CREATE TABLE sent_probes(
                  sent_probe_id INTEGER PRIMARY KEY AUTOINCREMENT,
                  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
                  contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
                  group_member_id INTEGER REFERENCES group_members ON DELETE CASCADE,
                  probe BLOB NOT NULL,
                  created_at REAL NOT NULL,
                  UNIQUE(user_id, probe)
                ) STRICT;
                CREATE TABLE sent_probe_hashes(
                  sent_probe_hash_id INTEGER PRIMARY KEY AUTOINCREMENT,
                  sent_probe_id INTEGER NOT NULL REFERENCES sent_probes ON DELETE CASCADE,
                  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
                  contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
                  group_member_id INTEGER REFERENCES group_members ON DELETE CASCADE,
                  created_at REAL NOT NULL
                ) STRICT;
                CREATE INDEX idx_sent_probe_hashes_probe ON sent_probe_hashes(sent_probe_id);
                CREATE TABLE received_probes(
                  received_probe_id INTEGER PRIMARY KEY AUTOINCREMENT,
                  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
                  contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
                  group_member_id INTEGER REFERENCES group_members ON DELETE CASCADE,
                  probe BLOB,
                  probe_hash BLOB NOT NULL,
                  created_at REAL NOT NULL
                ) STRICT;
                CREATE INDEX idx_received_probes_hash ON received_probes(user_id, probe_hash);
                """)
        }
        // Member direct contacts (simplex-chat `contact_group_member_id`, `contact_grp_inv_sent`, and
        // M20250729_member_contact_requests `grp_direct_inv_*`): the member a contact was made for
        // and whether x.grp.direct.inv went; the invitation link a member sent us, until accepted.
        m.registerMigration("m20261127b_member_contacts") { db in
            try db.execute(sql: """
                ALTER TABLE contacts ADD COLUMN contact_group_member_id INTEGER REFERENCES group_members ON DELETE SET NULL;
                ALTER TABLE contacts ADD COLUMN contact_grp_inv_sent INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE contacts ADD COLUMN grp_direct_inv_link TEXT;
                ALTER TABLE contacts ADD COLUMN grp_direct_inv_from_group_id INTEGER REFERENCES groups ON DELETE SET NULL;
                ALTER TABLE contacts ADD COLUMN grp_direct_inv_from_group_member_id INTEGER REFERENCES group_members ON DELETE SET NULL;
                ALTER TABLE contacts ADD COLUMN grp_direct_inv_from_member_conn_id INTEGER;
                ALTER TABLE contacts ADD COLUMN grp_direct_inv_started_connection INTEGER NOT NULL DEFAULT 0;
                """)
        }
        // simplex-chat `groups.members_require_attention` (M20250513_group_scope), kept as a counter; an
        // existing database starts from the members that need attention now.
        m.registerMigration("m20261127c_members_require_attention") { db in
            try db.execute(sql: """
                ALTER TABLE groups ADD COLUMN members_require_attention INTEGER NOT NULL DEFAULT 0;
                UPDATE groups SET members_require_attention = (
                  SELECT count(*) FROM group_members m WHERE m.group_id = groups.group_id AND m.member_category <> 'user'
                    AND (m.member_status IN ('pending_approval', 'pending_review')
                      OR m.support_chat_items_member_attention > 0 OR m.support_chat_items_mentions > 0));
                """)
        }
        // simplex-chat `users.auto_accept_member_contacts` (M20250729_member_contact_requests).
        m.registerMigration("m20261127d_auto_accept_member_contacts") { db in
            try db.execute(sql: "ALTER TABLE users ADD COLUMN auto_accept_member_contacts INTEGER NOT NULL DEFAULT 0")
        }
        // Index upkeep per message (issue 16): a contact's item was entered in 12 indexes, 6 of them
        // for groups or forwarding (with NULL keys) or on the status JSON text, each a page to write at
        // commit, and a status change rewrote 5. Group and forwarding indexes now hold only the rows
        // that have those columns (their queries and foreign keys all name the column with `=`, which
        // a partial index serves); the indexes on the status text go, as its queries also compare the
        // typed status (`item_status_type`). A contact's item: 5 indexes; a status change: 2.
        m.registerMigration("m20261128_chat_item_index_upkeep") { db in
            try db.execute(sql: """
                DROP INDEX IF EXISTS idx_chat_items_status;
                DROP INDEX IF EXISTS idx_chat_items_group_status;
                DROP INDEX IF EXISTS idx_chat_items_group;
                CREATE INDEX idx_chat_items_group ON chat_items(group_id, chat_item_id) WHERE group_id IS NOT NULL;
                DROP INDEX IF EXISTS idx_chat_items_group_shared;
                CREATE INDEX idx_chat_items_group_shared ON chat_items(group_id, shared_msg_id) WHERE group_id IS NOT NULL;
                DROP INDEX IF EXISTS idx_chat_items_group_status_type;
                CREATE INDEX idx_chat_items_group_status_type ON chat_items(group_id, item_status_type) WHERE group_id IS NOT NULL;
                DROP INDEX IF EXISTS idx_chat_items_group_scope;
                CREATE INDEX idx_chat_items_group_scope ON chat_items(group_id, group_scope_group_member_id, chat_item_id) WHERE group_id IS NOT NULL;
                DROP INDEX IF EXISTS idx_chat_items_forwarded_by_group_member_id;
                CREATE INDEX idx_chat_items_forwarded_by_group_member_id ON chat_items(forwarded_by_group_member_id)
                  WHERE forwarded_by_group_member_id IS NOT NULL;
                """)
        }
        // Every query on the typed status asks for unread items (rcvNew: unread counts, mentions,
        // marking a chat read), so the three typed-status indexes hold those only: a sent item
        // enters none of them and its status changes (sndNew, sndSent, sndRcvd) touch no index
        // (issue 16: index pages written per message).
        m.registerMigration("m20261207_unread_item_indexes") { db in
            try db.execute(sql: """
                DROP INDEX IF EXISTS idx_chat_items_contact_status_type;
                CREATE INDEX idx_chat_items_contact_unread ON chat_items(contact_id)
                  WHERE contact_id IS NOT NULL AND item_status_type = 'rcvNew';
                DROP INDEX IF EXISTS idx_chat_items_group_status_type;
                CREATE INDEX idx_chat_items_group_unread ON chat_items(group_id, group_scope_group_member_id)
                  WHERE group_id IS NOT NULL AND item_status_type = 'rcvNew';
                DROP INDEX IF EXISTS idx_chat_items_user_status_type;
                CREATE INDEX idx_chat_items_user_unread ON chat_items(user_id) WHERE item_status_type = 'rcvNew';
                """)
        }
        return m
    }

    static var known: [String] { migrator.migrations }

    private static func initial(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE users(
              user_id INTEGER PRIMARY KEY AUTOINCREMENT,
              local_display_name TEXT NOT NULL UNIQUE,
              display_name TEXT NOT NULL,
              full_name TEXT NOT NULL DEFAULT '',
              image TEXT,
              contact_link TEXT,
              profile_id INTEGER NOT NULL,
              active_user INTEGER NOT NULL DEFAULT 0,
              active_order INTEGER NOT NULL DEFAULT 0,
              created_at REAL NOT NULL
            ) STRICT;
            CREATE TABLE contact_profiles(
              profile_id INTEGER PRIMARY KEY AUTOINCREMENT,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              display_name TEXT NOT NULL,
              full_name TEXT NOT NULL DEFAULT '',
              image TEXT,
              contact_link TEXT,
              local_alias TEXT NOT NULL DEFAULT '',
              incognito INTEGER NOT NULL DEFAULT 0,
              created_at REAL NOT NULL
            ) STRICT;
            CREATE TABLE contacts(
              contact_id INTEGER PRIMARY KEY AUTOINCREMENT,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              local_display_name TEXT NOT NULL,
              profile_id INTEGER NOT NULL REFERENCES contact_profiles,
              user_preferences TEXT,
              contact_status TEXT NOT NULL DEFAULT 'active',
              contact_used INTEGER NOT NULL DEFAULT 0,
              contact_request_id INTEGER,
              created_at REAL NOT NULL,
              updated_at REAL NOT NULL,
              chat_ts REAL,
              UNIQUE(user_id, local_display_name)
            ) STRICT;
            CREATE TABLE user_contact_links(
              user_contact_link_id INTEGER PRIMARY KEY AUTOINCREMENT,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              agent_conn_id TEXT NOT NULL UNIQUE,
              conn_link TEXT NOT NULL,
              address_settings TEXT,
              created_at REAL NOT NULL
            ) STRICT;
            CREATE TABLE connections(
              connection_id INTEGER PRIMARY KEY AUTOINCREMENT,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              agent_conn_id TEXT NOT NULL UNIQUE,
              conn_type TEXT NOT NULL,
              conn_status TEXT NOT NULL,
              contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
              user_contact_link_id INTEGER REFERENCES user_contact_links ON DELETE CASCADE,
              via_contact_uri INTEGER NOT NULL DEFAULT 0,
              via_link TEXT,
              conn_link_inv TEXT,
              custom_user_profile_id INTEGER REFERENCES contact_profiles,
              initiated INTEGER NOT NULL DEFAULT 0,
              local_alias TEXT NOT NULL DEFAULT '',
              created_at REAL NOT NULL,
              updated_at REAL NOT NULL
            ) STRICT;
            CREATE TABLE contact_requests(
              contact_request_id INTEGER PRIMARY KEY AUTOINCREMENT,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              user_contact_link_id INTEGER NOT NULL REFERENCES user_contact_links ON DELETE CASCADE,
              agent_invitation_id TEXT NOT NULL UNIQUE,
              profile_id INTEGER NOT NULL REFERENCES contact_profiles,
              local_display_name TEXT NOT NULL,
              created_at REAL NOT NULL,
              updated_at REAL NOT NULL
            ) STRICT;
            CREATE TABLE chat_items(
              chat_item_id INTEGER PRIMARY KEY AUTOINCREMENT,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              contact_id INTEGER NOT NULL REFERENCES contacts ON DELETE CASCADE,
              item_sent INTEGER NOT NULL,
              item_ts REAL NOT NULL,
              item_text TEXT NOT NULL,
              item_content TEXT NOT NULL,
              item_status TEXT NOT NULL,
              shared_msg_id TEXT,
              agent_msg_id INTEGER,
              item_edited INTEGER NOT NULL DEFAULT 0,
              item_deleted TEXT,
              item_forwarded INTEGER NOT NULL DEFAULT 0,
              item_live INTEGER NOT NULL DEFAULT 0,
              timed_ttl INTEGER,
              timed_delete_at REAL,
              quoted_item_id INTEGER,
              quoted_shared_msg_id TEXT,
              quoted_sent INTEGER,
              quoted_sent_at REAL,
              quoted_content TEXT,
              created_at REAL NOT NULL,
              updated_at REAL NOT NULL
            ) STRICT;
            CREATE INDEX idx_chat_items_shared ON chat_items(contact_id, shared_msg_id);
            CREATE INDEX idx_chat_items_status ON chat_items(contact_id, item_status);
            CREATE INDEX idx_contacts_chat_ts ON contacts(user_id, contact_status, coalesce(chat_ts, created_at));
            CREATE INDEX idx_connections_contact ON connections(contact_id);
            CREATE INDEX idx_chat_items_timed ON chat_items(timed_delete_at) WHERE timed_delete_at IS NOT NULL;
            CREATE TABLE chat_item_reactions(
              reaction_id INTEGER PRIMARY KEY AUTOINCREMENT,
              chat_item_id INTEGER NOT NULL REFERENCES chat_items ON DELETE CASCADE,
              reaction TEXT NOT NULL,
              reaction_sent INTEGER NOT NULL,
              created_at REAL NOT NULL,
              UNIQUE(chat_item_id, reaction, reaction_sent)
            ) STRICT;
            CREATE INDEX idx_chat_items_contact ON chat_items(user_id, contact_id, chat_item_id);
            CREATE INDEX idx_chat_items_agent_msg ON chat_items(contact_id, agent_msg_id);
            CREATE TABLE smp_servers(
              server_id INTEGER PRIMARY KEY AUTOINCREMENT,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              protocol TEXT NOT NULL,
              server TEXT NOT NULL,
              enabled INTEGER NOT NULL DEFAULT 1
            ) STRICT;
            """)
    }

    /// Groups (x.grp.* sub-protocol): groups, their members (our own membership included),
    /// member connections, introductions, group links and per-member delivery of sent items.
    /// Chat items gain a group and a sender member, so `contact_id` becomes optional, and a
    /// reaction gains its reactor (many members can add the same emoji): both tables are rebuilt
    /// (GRDB defers foreign keys during a migration, so nothing cascades).
    private static func groups(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE groups(
              group_id INTEGER PRIMARY KEY AUTOINCREMENT,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              local_display_name TEXT NOT NULL,
              group_profile TEXT NOT NULL,
              local_alias TEXT NOT NULL DEFAULT '',
              via_group_link_uri TEXT,
              via_group_link_id TEXT,
              created_at REAL NOT NULL,
              updated_at REAL NOT NULL,
              chat_ts REAL,
              UNIQUE(user_id, local_display_name)
            ) STRICT;
            CREATE TABLE group_members(
              group_member_id INTEGER PRIMARY KEY AUTOINCREMENT,
              group_id INTEGER NOT NULL REFERENCES groups ON DELETE CASCADE,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              member_id TEXT NOT NULL,
              member_role TEXT NOT NULL,
              member_category TEXT NOT NULL,
              member_status TEXT NOT NULL,
              show_messages INTEGER NOT NULL DEFAULT 1,
              blocked_by_admin INTEGER NOT NULL DEFAULT 0,
              invited_by_contact_id INTEGER,
              invited_by_user INTEGER NOT NULL DEFAULT 0,
              invited_by_group_member_id INTEGER,
              local_display_name TEXT NOT NULL,
              member_profile_id INTEGER REFERENCES contact_profiles,
              contact_id INTEGER REFERENCES contacts ON DELETE SET NULL,
              inv_conn_req TEXT,
              created_at REAL NOT NULL,
              updated_at REAL NOT NULL,
              UNIQUE(group_id, member_id)
            ) STRICT;
            CREATE INDEX idx_group_members_group ON group_members(group_id, member_status);
            CREATE TABLE group_member_intros(
              group_member_intro_id INTEGER PRIMARY KEY AUTOINCREMENT,
              re_group_member_id INTEGER NOT NULL REFERENCES group_members ON DELETE CASCADE,
              to_group_member_id INTEGER NOT NULL REFERENCES group_members ON DELETE CASCADE,
              intro_status TEXT NOT NULL,
              created_at REAL NOT NULL,
              UNIQUE(re_group_member_id, to_group_member_id)
            ) STRICT;
            CREATE TABLE group_links(
              group_link_row_id INTEGER PRIMARY KEY AUTOINCREMENT,
              group_id INTEGER NOT NULL UNIQUE REFERENCES groups ON DELETE CASCADE,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              agent_conn_id TEXT NOT NULL UNIQUE,
              conn_link TEXT NOT NULL,
              group_link_id TEXT NOT NULL,
              member_role TEXT NOT NULL,
              created_at REAL NOT NULL
            ) STRICT;
            ALTER TABLE connections ADD COLUMN group_member_id INTEGER REFERENCES group_members ON DELETE CASCADE;
            ALTER TABLE connections ADD COLUMN via_group_link_id TEXT;
            CREATE INDEX idx_connections_member ON connections(group_member_id);

            CREATE TABLE chat_items_new(
              chat_item_id INTEGER PRIMARY KEY AUTOINCREMENT,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
              group_id INTEGER REFERENCES groups ON DELETE CASCADE,
              group_member_id INTEGER REFERENCES group_members ON DELETE SET NULL,
              item_sent INTEGER NOT NULL,
              item_ts REAL NOT NULL,
              item_text TEXT NOT NULL,
              item_content TEXT NOT NULL,
              item_status TEXT NOT NULL,
              shared_msg_id TEXT,
              agent_msg_id INTEGER,
              item_edited INTEGER NOT NULL DEFAULT 0,
              item_deleted TEXT,
              item_forwarded INTEGER NOT NULL DEFAULT 0,
              item_live INTEGER NOT NULL DEFAULT 0,
              timed_ttl INTEGER,
              timed_delete_at REAL,
              quoted_item_id INTEGER,
              quoted_shared_msg_id TEXT,
              quoted_sent INTEGER,
              quoted_sent_at REAL,
              quoted_content TEXT,
              quoted_member_id TEXT,
              created_at REAL NOT NULL,
              updated_at REAL NOT NULL,
              CHECK ((contact_id IS NULL) <> (group_id IS NULL))
            ) STRICT;
            INSERT INTO chat_items_new (chat_item_id, user_id, contact_id, item_sent, item_ts, item_text, item_content, item_status,
              shared_msg_id, agent_msg_id, item_edited, item_deleted, item_forwarded, item_live, timed_ttl, timed_delete_at,
              quoted_item_id, quoted_shared_msg_id, quoted_sent, quoted_sent_at, quoted_content, created_at, updated_at)
            SELECT chat_item_id, user_id, contact_id, item_sent, item_ts, item_text, item_content, item_status,
              shared_msg_id, agent_msg_id, item_edited, item_deleted, item_forwarded, item_live, timed_ttl, timed_delete_at,
              quoted_item_id, quoted_shared_msg_id, quoted_sent, quoted_sent_at, quoted_content, created_at, updated_at
            FROM chat_items;
            DROP TABLE chat_items;
            ALTER TABLE chat_items_new RENAME TO chat_items;
            CREATE INDEX idx_chat_items_shared ON chat_items(contact_id, shared_msg_id);
            CREATE INDEX idx_chat_items_status ON chat_items(contact_id, item_status);
            CREATE INDEX idx_chat_items_timed ON chat_items(timed_delete_at) WHERE timed_delete_at IS NOT NULL;
            CREATE INDEX idx_chat_items_contact ON chat_items(user_id, contact_id, chat_item_id);
            CREATE INDEX idx_chat_items_agent_msg ON chat_items(contact_id, agent_msg_id);
            CREATE INDEX idx_chat_items_group ON chat_items(group_id, chat_item_id);
            CREATE INDEX idx_chat_items_group_shared ON chat_items(group_id, shared_msg_id);
            CREATE INDEX idx_chat_items_group_status ON chat_items(group_id, item_status);
            CREATE INDEX idx_groups_chat_ts ON groups(user_id, coalesce(chat_ts, created_at));

            CREATE TABLE chat_item_reactions_new(
              reaction_id INTEGER PRIMARY KEY AUTOINCREMENT,
              chat_item_id INTEGER NOT NULL REFERENCES chat_items ON DELETE CASCADE,
              reaction TEXT NOT NULL,
              reaction_sent INTEGER NOT NULL,
              reactor TEXT NOT NULL DEFAULT '',
              created_at REAL NOT NULL,
              UNIQUE(chat_item_id, reaction, reaction_sent, reactor)
            ) STRICT;
            INSERT INTO chat_item_reactions_new (reaction_id, chat_item_id, reaction, reaction_sent, created_at)
            SELECT reaction_id, chat_item_id, reaction, reaction_sent, created_at FROM chat_item_reactions;
            DROP TABLE chat_item_reactions;
            ALTER TABLE chat_item_reactions_new RENAME TO chat_item_reactions;

            CREATE TABLE group_item_deliveries(
              chat_item_id INTEGER NOT NULL REFERENCES chat_items ON DELETE CASCADE,
              group_member_id INTEGER NOT NULL REFERENCES group_members ON DELETE CASCADE,
              agent_conn_id TEXT NOT NULL,
              agent_msg_id INTEGER NOT NULL,
              delivery_status TEXT NOT NULL,
              PRIMARY KEY (agent_conn_id, agent_msg_id)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX idx_group_item_deliveries_item ON group_item_deliveries(chat_item_id);
            """)
    }

    /// Issue 15: files sent and received over XFTP (simplex-chat `files`, `snd_files`,
    /// `rcv_files`, `rcv_file_descrs`, `xftp_file_descriptions` in one shape of our own), and the
    /// XFTP client's transfer progress so an upload or download resumes after a restart.
    private static func files(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE files(
              file_id INTEGER PRIMARY KEY AUTOINCREMENT,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
              group_id INTEGER REFERENCES groups ON DELETE CASCADE,
              group_member_id INTEGER REFERENCES group_members ON DELETE SET NULL,
              chat_item_id INTEGER REFERENCES chat_items ON DELETE SET NULL,
              shared_msg_id TEXT,
              file_sent INTEGER NOT NULL,
              file_name TEXT NOT NULL,
              file_size INTEGER NOT NULL,
              chunk_size INTEGER NOT NULL,
              file_path TEXT,
              file_crypto_key TEXT,
              file_crypto_nonce TEXT,
              ci_file_status TEXT NOT NULL,
              cancelled INTEGER NOT NULL DEFAULT 0,
              file_invitation TEXT,
              transfer_id TEXT,
              snd_recipient_count INTEGER,
              private_snd_descr TEXT,
              rcv_status TEXT,
              sender_display_name TEXT,
              user_approved_relays INTEGER NOT NULL DEFAULT 0,
              agent_file_deleted INTEGER NOT NULL DEFAULT 0,
              created_at REAL NOT NULL,
              updated_at REAL NOT NULL
            ) STRICT;
            CREATE INDEX idx_files_chat_item ON files(chat_item_id);
            CREATE INDEX idx_files_contact_msg ON files(contact_id, shared_msg_id);
            CREATE INDEX idx_files_group_msg ON files(group_id, shared_msg_id);
            CREATE TABLE rcv_file_descrs(
              file_descr_id INTEGER PRIMARY KEY AUTOINCREMENT,
              file_id INTEGER NOT NULL UNIQUE REFERENCES files ON DELETE CASCADE,
              file_descr_text TEXT NOT NULL,
              file_descr_part_no INTEGER NOT NULL,
              file_descr_complete INTEGER NOT NULL,
              created_at REAL NOT NULL,
              updated_at REAL NOT NULL
            ) STRICT;
            CREATE TABLE snd_file_recipients(
              snd_file_recipient_id INTEGER PRIMARY KEY AUTOINCREMENT,
              file_id INTEGER NOT NULL REFERENCES files ON DELETE CASCADE,
              contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
              group_member_id INTEGER REFERENCES group_members ON DELETE CASCADE,
              file_descr_text TEXT,
              file_status TEXT NOT NULL DEFAULT 'new',
              created_at REAL NOT NULL,
              updated_at REAL NOT NULL
            ) STRICT;
            CREATE INDEX idx_snd_file_recipients_file ON snd_file_recipients(file_id);
            CREATE TABLE xftp_progress(
              progress_key TEXT PRIMARY KEY,
              progress BLOB NOT NULL,
              updated_at REAL NOT NULL
            ) STRICT;
            """)
    }
}
