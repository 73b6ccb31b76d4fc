#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import MigrationKit
import MigrationKitSecrets
import SystemPackage

/// Turns the bytes a source produced into a `DatabaseKey`, the same way for every source
/// (file, standard input, environment, prompt, Secret Service, `--password`), so one key
/// written down in two places is always the same key:
///
/// 1. a UTF-8 byte-order mark at the start is dropped (Windows editors write one);
/// 2. every line break at the end (`\n`, `\r\n`, `\r`) is dropped: `echo key > file`,
///    `secret-tool store < file` and a typed Enter all add one nobody means as key;
/// 3. what remains must not be empty;
/// 4. exactly `x'<64 hex digits>'` (or 96, a key and its salt; or 160, a key, its HMAC key
///    and salt) is a raw key, anything else a passphrase, byte for byte (spaces
///    included). `DatabaseKey(keyText:)` decides; a raw key in a form the SQLCipher it is
///    read for would take for a passphrase is refused, naming where it came from.
///
/// A file saved as UTF-16 (a byte-order mark FF FE or FE FF) is refused with a sentence:
/// its bytes would silently make another key than the one the user sees.
///
/// A source read in the hex form (`Form.hex`, chosen by name: `--password-hex`,
/// `--password-hex-file`, `KeySource.hex`) holds a passphrase's bytes as hex digits
/// instead, which any passphrase can be written as; nothing is ever read as hex because
/// of what it looks like, so every text that gives a key keeps giving the same one.
enum KeyText {
    /// How a source's text gives the key.
    enum Form {
        /// The key text form: steps 1–4 above.
        case text
        /// A passphrase's bytes as hex digits, two per byte, as SQLCipher's `PRAGMA
        /// hexkey` takes them: for a passphrase that is not text, such as SQLCipher for
        /// Android's `byte[]` keys, which the text form cannot always carry (one that
        /// ends in a line break loses it in step 2). Steps 1–3 apply; spaces, tabs and
        /// line breaks between the digits are ignored (`od` and `xxd -p` write them); the
        /// bytes are then what SQLCipher's `hexkey` hands `sqlite3_key`, read as
        /// `DatabaseKey(keyText:)` reads a key (SQLCipher reads `sqlite3_key`'s bytes
        /// that way too), with nothing dropped.
        case hex
    }

    /// Reads `raw` under the rules above.
    ///
    /// - Parameters:
    ///   - origin: where the text came from, for messages ("key file /x/key").
    ///   - form: how the text gives the key.
    ///   - library: the SQLCipher the key is read for, when the caller knows it. A raw key
    ///     it would read as a passphrase (x' and 160 hex digits before 4.7) is handed on
    ///     all the same: it is also the passphrase a file keyed before 4.7 opens with, so
    ///     whether it opens the database is the connection's to find out, which never
    ///     keys a new database with it there (`DatabaseKey.validate()`).
    ///   - empty: the error when nothing is left.
    static func key(from raw: SecretBytes, origin: String, path: String? = nil, form: Form = .text, library: SQLCipherVersion? = nil,
                    empty: @autoclosure () -> KeyError, warn: (KeyWarning) -> Void) throws -> DatabaseKey {
        if startsWithUTF16ByteOrderMark(raw) {
            throw KeyError(code: .keyTextNotUTF8,
                           message: "The key in \(origin) is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8 (for example with `iconv -f UTF-16 -t UTF-8`).",
                           path: path)
        }
        let text = trimmed(raw)
        guard !text.isEmpty else { throw empty() }
        if form == .hex {
            return DatabaseKey(keyText: try hexDecoded(text, origin: origin, path: path, empty: empty()))
        }
        let key = DatabaseKey(keyText: text)
        if key.kind == .passphrase, looksLikeMalformedRawKey(text) {
            let lengths = DatabaseKey.RawKeyForm.allCases.map { String($0.hexDigits) }
            warn(KeyWarning(
                code: .malformedRawKey,
                message: "The key in \(origin) looks like a raw key (x'…') but is not x' followed by \(lengths.dropLast().joined(separator: ", ")) or \(lengths.last!) hex digits and ', so SQLCipher will use it as a passphrase; if a raw key was meant, fix the hex digits.",
                path: path))
        } else if key.kind == .passphrase, isBareRawKey(text) {
            // How some apps store their key (Signal Desktop's config.json holds 64 bare
            // hex digits): as a passphrase, those digits make another key.
            warn(KeyWarning(
                code: .bareRawKey,
                message: "The key in \(origin) is bare hex digits, which SQLCipher will use as a passphrase; if it is a raw key (as apps that store 64 hex digits mean it), write it as x'<the digits>'.",
                path: path))
        }
        if key.kind == .passphrase, let side = spaceAround(text) {
            // Not dropped: a passphrase may hold any byte. But a store or a command that
            // pads its output makes another key, and "wrong key" alone would not say why.
            warn(KeyWarning(
                code: .keySurroundedBySpace,
                message: "The key in \(origin) \(side) a space or a tab, which is part of the key (only line breaks at its end are dropped); if it is not, remove it there.",
                path: path))
        }
        return key
    }

    /// Why `key`, written in the text form (`DatabaseKey.withKeyText`), would not be read
    /// back as the same key, or nil when it would: a passphrase that ends in a line break
    /// or starts with a byte-order mark loses them when read (steps 1 and 2), and one
    /// that starts with a UTF-16 byte-order mark is refused. What stores a key as text (a
    /// Secret Service item) checks first, so it never keeps a key that reads back as
    /// another; the hex form carries such a passphrase.
    static func textFormProblem(of key: DatabaseKey) -> String? {
        key.withKeyText { bytes in
            let text = SecretBytes(copying: bytes)
            if startsWithUTF16ByteOrderMark(text) {
                return "it starts with the bytes of a UTF-16 byte-order mark, so its text would be refused when read"
            }
            let back = trimmed(text)
            guard !back.isEmpty, DatabaseKey(keyText: back).isSameKey(as: key) else {
                return "it ends in a line break or starts with a byte-order mark, which are dropped when key text is read, so the text would give another key"
            }
            return nil
        }
    }

    /// Decodes hex digits (spaces, tabs and line breaks between them ignored) into wiped
    /// storage. The messages name the origin, never the text.
    private static func hexDecoded(_ text: SecretBytes, origin: String, path: String?, empty: @autoclosure () -> KeyError) throws -> SecretBytes {
        // Counted in place: a filtered copy would put the secret in memory nobody wipes.
        let (digits, valid) = text.withUnsafeBytes { bytes in
            var digits = 0
            var valid = true
            for byte in bytes {
                if byte.isHexDigit { digits += 1 } else if !byte.isHexSeparator { valid = false }
            }
            return (digits, valid)
        }
        guard valid else {
            throw KeyError(code: .keyTextNotHex,
                           message: "The key in \(origin) is not hex digits: a hex key holds the passphrase's bytes as hex digits, two per byte (0-9 and a-f; spaces and line breaks between them are ignored); if it is the key itself rather than its hex digits, give it in the usual text form instead.",
                           path: path)
        }
        guard digits > 0 else { throw empty() }
        guard digits % 2 == 0 else {
            throw KeyError(code: .keyTextNotHex,
                           message: "The key in \(origin) has an odd number of hex digits, so it is not whole bytes (two digits each); check that no digit is missing.",
                           path: path)
        }
        return text.withUnsafeBytes { bytes in
            SecretBytes(count: digits / 2) { out in
                var high: UInt8?
                var index = 0
                for byte in bytes {
                    guard let value = byte.hexValue else { continue }
                    if let first = high {
                        out[index] = first << 4 | value
                        index += 1
                        high = nil
                    } else {
                        high = value
                    }
                }
            }
        }
    }

    private static func startsWithUTF16ByteOrderMark(_ text: SecretBytes) -> Bool {
        text.withUnsafeBytes { $0.count >= 2 && (($0[0] == 0xFF && $0[1] == 0xFE) || ($0[0] == 0xFE && $0[1] == 0xFF)) }
    }

    /// The text without a leading UTF-8 byte-order mark and without its trailing line
    /// breaks, in wiped storage.
    static func trimmed(_ text: SecretBytes) -> SecretBytes {
        text.withUnsafeBytes { bytes in
            var start = 0
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
            var end = bytes.count
            while end > start, bytes[end - 1] == UInt8(ascii: "\n") || bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
        }
    }

    /// `x'…'` or `X'…'`, the shape of SQLCipher's raw-key literal, with something inside
    /// SQLCipher will not take as one (the forms it reads as raw, 64, 96 and 160 hex
    /// digits, `DatabaseKey(keyText:)` already turned into `.rawKey`).
    private static func looksLikeMalformedRawKey(_ text: SecretBytes) -> Bool {
        text.withUnsafeBytes { bytes in
            bytes.count >= 3
                && (bytes[0] == UInt8(ascii: "x") || bytes[0] == UInt8(ascii: "X"))
                && bytes[1] == UInt8(ascii: "'")
                && bytes[bytes.count - 1] == UInt8(ascii: "'")
        }
    }

    /// "starts with", "ends with": where a text has a space or a tab at its edge, or nil.
    private static func spaceAround(_ text: SecretBytes) -> String? {
        text.withUnsafeBytes { bytes in
            func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            guard let first = bytes.first, let last = bytes.last else { return nil }
            return isSpace(last) ? "ends with" : isSpace(first) ? "starts with" : nil
        }
    }

    /// Exactly 64, 96 or 160 hex digits and nothing else: a raw key without its `x'…'`.
    private static func isBareRawKey(_ text: SecretBytes) -> Bool {
        text.withUnsafeBytes { bytes in
            DatabaseKey.RawKeyForm.allCases.contains { bytes.count == $0.hexDigits } && bytes.allSatisfy(\.isHexDigit)
        }
    }
}

private extension UInt8 {
    var isHexDigit: Bool { hexValue != nil }

    /// The digit's value, or nil for a byte that is not a hex digit.
    var hexValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return self - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// What may stand between hex digits: a space, a tab or a line break.
    var isHexSeparator: Bool {
        self == UInt8(ascii: " ") || self == UInt8(ascii: "\t") || self == UInt8(ascii: "\n") || self == UInt8(ascii: "\r")
    }
}

/// Reads a file descriptor to its end into wiped storage, refusing more than `limit` bytes.
enum BoundedReader {
    enum Outcome {
        /// Everything up to end of file, as read (`KeyText` trims it).
        case text(SecretBytes)
        /// More than `limit` bytes were available; nothing is returned.
        case tooLarge
        /// `read` failed with this `errno`.
        case failed(Int32)
    }

    /// Reads at most `limit + 1` bytes, enough to tell "fits" from "too large" without
    /// ever holding more, so a huge or endless input cannot exhaust memory.
    static func read(fd: Int32, limit: Int) -> Outcome {
        var total = 0
        var failure: Int32?
        // A scratch buffer in wiped storage; only its first `total` bytes are kept.
        let scratch = SecretBytes(count: limit + 1) { buffer in
            guard let base = buffer.baseAddress else { return }
            // read(into:) retries EINTR.
            while total < buffer.count {
                do {
                    let count = try FileDescriptor(rawValue: fd).read(into: UnsafeMutableRawBufferPointer(start: base + total, count: buffer.count - total))
                    if count == 0 { return }
                    total += count
                } catch {
                    failure = (error as? Errno)?.rawValue ?? EIO
                    return
                }
            }
        }
        if let failure { return .failed(failure) }
        if total > limit { return .tooLarge }
        return .text(scratch.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<total])) })
    }
}

/// The C library's `read`, under a name the `read(fd:limit:)` members above do not shadow.
func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// The C library's `write`, for the same reason.
func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}

/// An `errno` in the C library's words (swift-system's `Errno`), for messages about
/// files and descriptors.
func errnoDescription(_ code: Int32) -> String {
    Errno(rawValue: code).description
}
