/// A file's path as an SQLite URI filename, for the two opens a plain path cannot say:
/// read-only while the connection may still write the databases it attaches, and
/// immutable. In the core because both connections open files so (the SQLCipher
/// connection, and a GRDB built on SQLCipher proving a header).
package enum SQLiteFileURI {
    /// `file:…?mode=ro`: SQLite gives an attached database the connection's open flags,
    /// so a connection opened with `SQLITE_OPEN_READONLY` cannot write an export's copy,
    /// whereas the URI's `mode=ro` applies to its own file only.
    package static func readOnly(_ path: String) -> String {
        encoded(path) + "?mode=ro"
    }

    /// `file:…?immutable=1`: SQLite reads the file as it is, with no lock, no journal
    /// and no WAL, so it creates nothing beside it whatever page 1 says. For reading a
    /// header decrypted with a key that may be wrong: a wrong key decrypts page 1 of a
    /// file without page HMACs into noise, and noise that marks the file as WAL makes
    /// an ordinary connection create `-wal` and `-shm`, which it cannot remove while
    /// another connection has the database open.
    package static func immutable(_ path: String) -> String {
        encoded(path) + "?immutable=1"
    }

    /// `file:` + the path with every byte outside SQLite's plain path characters
    /// percent-encoded (`?`, `#` and `%` would otherwise end or escape it). An absolute
    /// path gets the empty authority (`file:///srv/app.db`), so one starting with `//`
    /// is never read as a host.
    private static func encoded(_ path: String) -> String {
        let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/".utf8)
        var encoded = ""
        for byte in path.utf8 {
            if plain.contains(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return (path.hasPrefix("/") ? "file://" : "file:") + encoded
    }

    /// `path` as a plain filename even on a connection that reads URIs: a relative
    /// path that begins with `file:` is given a `./`, so SQLite opens the file of that
    /// name rather than reading it as a URI.
    package static func plainPath(_ path: String) -> String {
        path.hasPrefix("file:") ? "./" + path : path
    }
}
