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
}
