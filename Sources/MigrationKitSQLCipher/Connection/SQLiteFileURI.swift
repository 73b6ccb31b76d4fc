/// A file's path as an SQLite URI filename (`file:…?mode=ro`), for a connection that
/// opens its file read-only while it may still write the databases it attaches: SQLite
/// gives an attached database the connection's open flags, so a connection opened with
/// `SQLITE_OPEN_READONLY` cannot write an export's copy, whereas the URI's `mode=ro`
/// applies to its own file only.
enum SQLiteFileURI {
    /// `file:` + the path with every byte outside SQLite's plain path characters
    /// percent-encoded (`?`, `#` and `%` would otherwise end or escape it), then
    /// `?mode=ro`. An absolute path gets the empty authority (`file:///srv/app.db`), so
    /// one starting with `//` is never read as a host.
    static func readOnly(_ path: String) -> String {
        let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/".utf8)
        var encoded = ""
        for byte in path.utf8 {
            if plain.contains(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return (path.hasPrefix("/") ? "file://" : "file:") + encoded + "?mode=ro"
    }

    /// `path` as a plain filename even on a connection that reads URIs: a relative
    /// path that begins with `file:` is given a `./`, so SQLite opens the file of that
    /// name rather than reading it as a URI.
    static func plainPath(_ path: String) -> String {
        path.hasPrefix("file:") ? "./" + path : path
    }
}
