import Foundation

/// A database file that does not open: a wrong key, a key for a plaintext file, no key
/// for an encrypted one, or no database at all.
///
/// Which of them, and the sentence, are decided here once, from the file's first bytes
/// and size (what a wrong key and a non-database look like to SQLite is the same
/// "file is not a database"): the SQLCipher connection wraps the verdict in its
/// `SQLCipherError`, a GRDB connection throws it as it is, so both say the same thing
/// and `catch DatabaseErrorKind.wrongKey` matches either.
public struct UnreadableDatabaseError: KindedDatabaseError, RemediableError, Sendable {
    /// `.wrongKey`, `.notEncrypted`, `.keyRequired` or `.notADatabase`.
    public let kind: DatabaseErrorKind
    /// The database file.
    public let path: String
    /// What happened and what to do, in the library's words.
    public let message: String
    /// The message's parts, when what to do is a remedy a command line words itself
    /// (open without a key, give the cipher settings).
    package let advice: Advice?

    public var remedy: Remedy? { advice?.remedy }

    public func sentence(_ wording: RemedyWording) -> String {
        "\(path): " + (advice?.sentence(wording) ?? message)
    }

    /// Why the file at `path` did not open, after SQLite said it is not a database.
    /// - Parameters:
    ///   - path: the database file.
    ///   - keyed: a key was given.
    ///   - triedFormats: the SQLCipher formats whose defaults were tried, for the
    ///     wrong-key sentence; nil when the caller gave its own cipher settings.
    ///   - triedWithoutPageHMACs: the formats whose defaults were tried without page
    ///     HMACs too.
    ///   - wrongKeyHint: sentences to add to a wrong key's (what the linked library
    ///     cannot read), or "".
    ///   - library: the linked SQLCipher, and
    ///   - rawKey: whether the key is raw, for the settings the wrong-key sentence asks
    ///     for (only those that could explain it: `CipherSetting.couldExplainUnreadable`).
    package init(path: String, keyed: Bool, triedFormats: [CipherFormat]?, triedWithoutPageHMACs: [CipherFormat] = [],
                wrongKeyHint: String = "", library: SQLCipherVersion? = nil, rawKey: Bool = false) {
        self.path = path
        let file = DatabaseFileHeader(path: path)
        var advice: Advice?
        let message: String
        if file.hasPlaintextSQLiteHeader, keyed, !file.isPlaintextSQLiteDatabase {
            kind = .wrongKey
            message = triedFormats == nil
                ? "Wrong key, or wrong cipher settings: the key does not decrypt this file (a SQLCipher database with a plaintext header) with the settings given; check the key, and that the salt and the other settings are the ones the database was made with."
                : "The key does not decrypt this file, which starts with a plaintext SQLite header but is encrypted after it: a SQLCipher database with a plaintext header; give its cipher settings (the plaintext header size and the salt), and check the key."
        } else if file.hasPlaintextSQLiteHeader, keyed {
            kind = .notEncrypted
            advice = Advice(situation: "The database is not encrypted, but a key was given", otherwise: "encrypt it first", remedy: .openWithoutKey)
            message = advice?.sentence() ?? ""
        } else if file.hasPlaintextSQLiteHeader {
            kind = .notADatabase
            message = "The file has an SQLite header but is damaged; restore it from a backup."
        } else if !file.sizeLooksLikePages {
            kind = .notADatabase
            message = "The file is not a database (its size is not a whole number of database pages); check the path."
        } else if keyed {
            kind = .wrongKey
            // To SQLCipher a wrong key and wrong settings are the same failure: say both.
            let situation = "Wrong key, or not a SQLCipher database: the key does not decrypt this file "
            let note = wrongKeyHint.trimmingCharacters(in: .whitespaces)
            if let triedFormats, !triedFormats.isEmpty {
                func names(_ formats: [CipherFormat]) -> String {
                    let names = formats.map { $0.version.map(String.init) ?? $0.rawValue }
                    return names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
                }
                let withoutHMACs = triedWithoutPageHMACs.isEmpty ? "" : ", and of \(names(triedWithoutPageHMACs)) without page HMACs"
                advice = Advice(situation: situation + "in any format tried (the defaults of SQLCipher \(names(triedFormats))\(withoutHMACs))",
                                otherwise: "check the key and its source",
                                remedy: .giveCipherSettings(CipherSetting.couldExplainUnreadable(library: library, rawKey: rawKey)),
                                note: note.isEmpty ? nil : note)
            } else {
                advice = Advice(situation: situation + "with the cipher settings given",
                                otherwise: "check the key and its source, and that the settings are the ones the database was made with",
                                note: note.isEmpty ? nil : note)
            }
            message = advice?.sentence() ?? ""
        } else {
            kind = .keyRequired
            message = "The database is encrypted (or is not a database), and no key was given; pass its key."
        }
        self.message = message
        self.advice = advice
    }
}

/// A file's first bytes and size, read without opening it as a database: what tells a
/// plaintext SQLite file, an encrypted one and something else apart.
package struct DatabaseFileHeader {
    /// The first 100 bytes (fewer for a shorter file; none when it cannot be read).
    package let bytes: [UInt8]
    /// The size in bytes (0 when it cannot be examined).
    package let size: Int64

    package init(path: String) {
        // Through the open file: the size is the file's, a symbolic link followed
        // (FileManager's attributes describe the link itself).
        let handle = FileHandle(forReadingAtPath: path)
        bytes = ((try? handle?.read(upToCount: 100)) ?? nil).map(Array.init) ?? []
        size = ((try? handle?.seekToEnd()) ?? nil).map { Int64(clamping: $0) } ?? 0
        try? handle?.close()
    }

    /// Whether the file starts with SQLite's plaintext magic string.
    package var hasPlaintextSQLiteHeader: Bool {
        bytes.starts(with: Array("SQLite format 3\0".utf8))
    }

    /// Whether the whole 100-byte header is a plain SQLite one: the magic string, and
    /// the 20 bytes at offset 72 that SQLite keeps zero. A SQLCipher database with a
    /// plaintext header (SQLCipher 4's `cipher_plaintext_header_size`, usually 32) shows
    /// the magic string too, but its bytes from there on are ciphertext.
    package var isPlaintextSQLiteDatabase: Bool {
        bytes.count == 100 && hasPlaintextSQLiteHeader && bytes[72..<92].allSatisfy { $0 == 0 }
    }

    /// Whether the size could be a database's: a whole number of pages (every page
    /// size SQLite and SQLCipher allow is a multiple of 512).
    package var sizeLooksLikePages: Bool {
        size >= 512 && size % 512 == 0
    }
}
