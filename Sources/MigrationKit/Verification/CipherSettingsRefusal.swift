/// Why cipher settings cannot work, with each other or with the linked SQLCipher: the one
/// place these rules live. The SQLCipher connection refuses such settings before any file
/// is opened or created (in the library's words, `description`), and a command line
/// refuses its options before anything runs (in its own, naming the option:
/// `sentence(naming:)`), so SQLCipher never ignores a pragma it does not know in silence
/// and no file is left that later runs cannot open.
package struct CipherSettingsRefusal: Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the setting.
    package enum Reason: Hashable, Sendable {
        /// The value is outside what SQLCipher accepts: `allowed` says what is ("1, 2, 3
        /// or 4"), `because` why, if it is not plain.
        case outOfRange(allowed: String, because: String?)
        /// A plaintext header without the salt it keeps out of the file.
        case needsSalt
        /// The linked SQLCipher has no such setting (`what`): `feature` arrived later.
        case needsLibrary(what: String, feature: SQLCipherFeature)
        /// The linked SQLCipher 3 has one algorithm of this kind, `only`.
        case onlyAlgorithm(String)
        /// The format of SQLCipher `version`, newer than the linked library's.
        case formatNewerThanLibrary(Int)
    }

    /// The setting refused.
    let setting: CipherSetting
    /// Its value as given (never a secret: settings hold none).
    let value: String
    /// Why the value cannot be used, which the options and the connection word alike.
    package let reason: Reason
    /// The linked library, for sentences that name it.
    let library: SQLCipherVersion?

    /// The library's sentence: "The cipher page size must be a power of two from 1024 to
    /// 65536, not 512 (…)".
    package var description: String {
        let linked = "The linked SQLCipher \(library.map { "\($0)" } ?? "unknown")"
        switch reason {
        case .outOfRange(let allowed, let because):
            return "\(Self.subject(setting)) must be \(allowed), not \(value)" + (because.map { " (\($0))" } ?? "") + "."
        case .needsSalt:
            return "A database with a plaintext header cannot store its salt, so the salt must be given with it (16 bytes, as 32 hex digits); SQLCipher reports it as PRAGMA cipher_salt when the database is created."
        case .needsLibrary(let what, let feature):
            return "\(linked) has no \(what) (it arrived in SQLCipher \(feature.addedIn)); use a build linked against SQLCipher \(feature.addedIn) or later."
        case .onlyAlgorithm(let only):
            return "\(linked) has only \(only) as its \(Self.subject(setting, capitalized: false)); use a build linked against SQLCipher 4 for \(value)."
        case .formatNewerThanLibrary(let version):
            return "\(linked) cannot use SQLCipher \(version)'s format (it has no SHA-512 and no cipher_compatibility); use a build linked against SQLCipher \(version), or keep the database in SQLCipher \(library?.major ?? 3)'s format."
        }
    }

    /// The same refusal naming the option (or field) that gave the setting, as a command
    /// line words it: "--cipher-page-size must be a power of two from 1024 to 65536 (…)".
    package func sentence(naming name: (CipherSetting) -> String) -> String {
        switch reason {
        case .outOfRange(let allowed, let because):
            return "\(name(setting)) must be \(allowed)" + (because.map { " (\($0))" } ?? "") + "."
        case .needsSalt:
            return "\(name(.plaintextHeader)) needs \(name(.salt)) with it: a database with a plaintext header cannot store its salt."
        default:
            return description
        }
    }

    private static func subject(_ setting: CipherSetting, capitalized: Bool = true) -> String {
        let name: String
        switch setting {
        case .compatibility: name = "cipher compatibility"
        case .pageSize: name = "cipher page size"
        case .kdfIterations: name = "KDF iteration count"
        case .kdfAlgorithm: name = "KDF algorithm"
        case .hmacAlgorithm: name = "HMAC algorithm"
        case .usesHMAC: name = "page HMAC setting"
        case .plaintextHeader: name = "plaintext header size"
        case .salt: name = "salt"
        }
        return capitalized ? "The " + name : name
    }
}

extension CipherSettings {
    /// The first reason these settings cannot work with each other, or with a SQLCipher
    /// of version `library` (nil: only the rules that hold whatever the library, as a
    /// command line checks its options before it knows one); nil when they can.
    package func refusal(for library: SQLCipherVersion?) -> CipherSettingsRefusal? {
        func refused(_ setting: CipherSetting, _ value: Any, _ reason: CipherSettingsRefusal.Reason) -> CipherSettingsRefusal {
            CipherSettingsRefusal(setting: setting, value: "\(value)", reason: reason, library: library)
        }
        if let compatibility {
            guard (1...4).contains(compatibility) else { return refused(.compatibility, compatibility, .outOfRange(allowed: "1, 2, 3 or 4", because: nil)) }
            if let library {
                if compatibility > library.major { return refused(.compatibility, compatibility, .formatNewerThanLibrary(compatibility)) }
                if library.major >= 4, !SQLCipherFeature.compatibility.isAvailable(in: library) {
                    return refused(.compatibility, compatibility, .needsLibrary(what: "cipher_compatibility", feature: .compatibility))
                }
            }
        }
        if let kdfIterations, kdfIterations < 1 { return refused(.kdfIterations, kdfIterations, .outOfRange(allowed: "at least 1", because: nil)) }
        if let pageSize, !CipherParameters.pageSizes.contains(pageSize) {
            return refused(.pageSize, pageSize, .outOfRange(allowed: "a power of two from 1024 to 65536",
                                                            because: "SQLCipher keeps up to 80 bytes of each page for its IV and HMAC, and SQLite needs 480 bytes left"))
        }
        let native = CipherFormat.sqlcipher3.parameters
        for (setting, value, known, only) in [(CipherSetting.kdfAlgorithm, kdfAlgorithm, CipherParameters.kdfAlgorithms, native?.kdfAlgorithm),
                                              (.hmacAlgorithm, hmacAlgorithm, CipherParameters.hmacAlgorithms, native?.hmacAlgorithm)] {
            guard let value else { continue }
            let upper = value.uppercased()
            guard known.contains(upper) else { return refused(setting, value, .outOfRange(allowed: "one of \(known.joined(separator: ", "))", because: nil)) }
            if let library, !SQLCipherFeature.formatFour.isAvailable(in: library), upper != only {
                return refused(setting, upper, .onlyAlgorithm(only ?? ""))
            }
        }
        if let header = plaintextHeaderSize, header != 0 {
            if let library, !SQLCipherFeature.formatFour.isAvailable(in: library) { return refused(.plaintextHeader, header, .needsLibrary(what: "plaintext header", feature: .formatFour)) }
            let pageSize = self.pageSize ?? (compatibility.flatMap(CipherFormat.init(version:)) ?? .sqlcipher4).pageSize ?? 4096
            guard header > 0, CipherParameters.isPlaintextHeaderSize(header, forPageSize: pageSize) else {
                return refused(.plaintextHeader, header, .outOfRange(allowed: "a multiple of 16 smaller than the page size (\(pageSize))", because: nil))
            }
            guard salt != nil else { return refused(.plaintextHeader, header, .needsSalt) }
        }
        if let salt {
            if let library, !SQLCipherFeature.formatFour.isAvailable(in: library) { return refused(.salt, saltHex ?? "", .needsLibrary(what: "salt setting (cipher_salt)", feature: .formatFour)) }
            guard salt.count == CipherParameters.saltLength else {
                return refused(.salt, "\(salt.count) bytes", .outOfRange(allowed: "16 bytes (32 hex digits)", because: nil))
            }
        }
        return nil
    }
}
