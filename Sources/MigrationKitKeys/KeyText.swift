#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import MigrationKitSQLCipher

/// Turns the bytes a source produced into a `DatabaseKey`, the same way for every source:
/// `x'<64 hex digits>'` is a raw key, anything else a passphrase (`DatabaseKey(keyText:)`).
enum KeyText {
    /// Copies `bytes[0..<count]` without one trailing `\n` or `\r\n`, into wiped storage.
    ///
    /// Files and pipes usually end with a newline the user never meant as part of the key
    /// (`echo secret > key`); exactly one is removed, so a passphrase that really ends in
    /// whitespace keeps the rest.
    static func strippingOneNewline(_ bytes: UnsafeRawBufferPointer) -> SecretBytes {
        var length = bytes.count
        if length > 0, bytes[length - 1] == UInt8(ascii: "\n") {
            length -= 1
            if length > 0, bytes[length - 1] == UInt8(ascii: "\r") { length -= 1 }
        }
        return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
    }

    /// The key the text stands for, warning when it looks like a raw key but is not one.
    ///
    /// - Parameter origin: where the text came from, for the warning ("key file /x/key").
    static func key(from text: SecretBytes, origin: String, path: String? = nil, warn: (KeyWarning) -> Void) -> DatabaseKey {
        let key = DatabaseKey(keyText: text)
        if key.kind == .passphrase, looksLikeRawKey(text) {
            warn(KeyWarning(
                code: .malformedRawKey,
                message: "The key in \(origin) looks like a raw key (x'…') but is not exactly \(DatabaseKey.rawKeyLength * 2) hex digits between the quotes, so it is used as a passphrase; if a raw key was meant, write it as x' followed by \(DatabaseKey.rawKeyLength * 2) hex digits and '.",
                path: path))
        }
        return key
    }

    /// `x'…'` or `X'…'`: the shape of SQLCipher's raw-key literal, whatever is inside.
    private static func looksLikeRawKey(_ text: SecretBytes) -> Bool {
        text.withUnsafeBytes { bytes in
            bytes.count >= 3
                && (bytes[0] == UInt8(ascii: "x") || bytes[0] == UInt8(ascii: "X"))
                && bytes[1] == UInt8(ascii: "'")
                && bytes[bytes.count - 1] == UInt8(ascii: "'")
        }
    }
}

/// Reads a file descriptor to its end into wiped storage, refusing more than `limit` bytes.
enum BoundedReader {
    enum Outcome {
        /// Everything up to end of file, with one trailing newline removed.
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
            while total < buffer.count {
                let count = systemRead(fd, base + total, buffer.count - total)
                if count > 0 {
                    total += count
                } else if count == 0 {
                    return
                } else if errno != EINTR {
                    failure = errno
                    return
                }
            }
        }
        if let failure { return .failed(failure) }
        if total > limit { return .tooLarge }
        return .text(scratch.withUnsafeBytes { KeyText.strippingOneNewline(UnsafeRawBufferPointer(rebasing: $0[0..<total])) })
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

/// `strerror` as a Swift string, for messages about files and descriptors.
func errnoDescription(_ code: Int32) -> String {
    String(cString: strerror(code))
}
