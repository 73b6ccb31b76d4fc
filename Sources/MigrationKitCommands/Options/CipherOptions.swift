import ArgumentParser
import MigrationKit
import MigrationKitFiles

/// SQLCipher parameters for databases not made with a known version's defaults.
///
/// Without any of them, an existing database opens in whichever known format its key
/// decrypts (SQLCipher 4's, 3's, 2's or 1's defaults, the linked library's own first),
/// and a new one is created with the linked library's defaults.
package struct CipherOptions: ParsableArguments {
    @Option(name: .customLong(ProjectSetting.cipherCompatibility.rawValue), help: ArgumentHelp("Open or create in SQLCipher 1's, 2's, 3's or 4's default format.", valueName: "1-4"))
    package var compatibility: Int?

    @Option(name: .customLong(ProjectSetting.kdfIterations.rawValue), help: ArgumentHelp("PBKDF2 iterations the database was keyed with.", valueName: "n", visibility: CipherOptions.settingsVisibility))
    package var kdfIterations: Int?

    @Option(name: .customLong(ProjectSetting.cipherPageSize.rawValue), help: ArgumentHelp("The database's cipher page size in bytes.", valueName: "n", visibility: CipherOptions.settingsVisibility))
    package var pageSize: Int?

    @Option(name: .customLong(ProjectSetting.cipherKDFAlgorithm.rawValue), help: ArgumentHelp("The KDF (SQLCipher 4): PBKDF2_HMAC_SHA1, PBKDF2_HMAC_SHA256 or PBKDF2_HMAC_SHA512.", valueName: "name", visibility: CipherOptions.settingsVisibility))
    package var kdfAlgorithm: String?

    @Option(name: .customLong(ProjectSetting.cipherHMACAlgorithm.rawValue), help: ArgumentHelp("The page HMAC (SQLCipher 4): HMAC_SHA1, HMAC_SHA256 or HMAC_SHA512.", valueName: "name", visibility: CipherOptions.settingsVisibility))
    package var hmacAlgorithm: String?

    @Option(name: .customLong(ProjectSetting.cipherPlaintextHeaderSize.rawValue), help: ArgumentHelp("Bytes of page 1 left unencrypted (SQLCipher 4; a multiple of 16; needs --cipher-salt).", valueName: "n", visibility: CipherOptions.settingsVisibility))
    package var plaintextHeaderSize: Int?

    @Option(name: .customLong(ProjectSetting.cipherSalt.rawValue), help: ArgumentHelp("The database's 16-byte salt as 32 hex digits, for a database with a plaintext header (SQLCipher 4).", valueName: "hex", visibility: CipherOptions.settingsVisibility))
    var salt: String?

    @Option(name: .customLong(ProjectSetting.cipherUseHMAC.rawValue),
            help: ArgumentHelp("off for a database made without page HMACs (PRAGMA cipher_use_hmac = OFF).", valueName: "on|off", visibility: CipherOptions.settingsVisibility),
            transform: CipherOptions.onOrOff)
    package var usesHMAC: Bool?

    /// SQLCipher 4's `cipher_memory_security`, off by default as in SQLCipher itself
    /// since 4.5.0 (nil: not given here; the project file or environment may say).
    @Flag(name: .customLong(ProjectSetting.memorySecurity.rawValue), inversion: .prefixedNo,
          help: "Turn on SQLCipher 4's cipher_memory_security: every buffer SQLCipher allocates is locked in RAM and wiped when freed. Off by default, as in SQLCipher, for its price: measured on 4.6.1, migrations run 2.4 to 3.8 times (300 small ones) and 6 times (a 1,000,000-row rewrite) as long (docs/security-model.md).")
    package var memorySecurity: Bool?

    package init() {}

    /// The options giving a database's own settings are not shown by a layer that
    /// takes them in the app's code instead (`DatabaseLibrary.takesCipherSettings`), which
    /// refuses them if given anyway.
    static var settingsVisibility: ArgumentVisibility {
        ParsingLayer.current?.library.takesCipherSettings == false ? .private : .default
    }

    /// Every option given, by name, with `--memory-security` only when it turns it on.
    private var given: [String] {
        var given: [String] = []
        if compatibility != nil { given.append(Self.option(for: .compatibility)) }
        given += settingsGiven
        if memorySecurity == true { given.append("--" + ProjectSetting.memorySecurity.rawValue) }
        return given
    }

    /// The options given that set a database's own settings.
    private var settingsGiven: [String] {
        [(CipherSetting.kdfIterations, kdfIterations != nil), (.pageSize, pageSize != nil), (.kdfAlgorithm, kdfAlgorithm != nil),
         (.hmacAlgorithm, hmacAlgorithm != nil), (.plaintextHeader, plaintextHeaderSize != nil),
         (.salt, salt != nil), (.usesHMAC, usesHMAC != nil)].filter(\.1).map { Self.option(for: $0.0) }
    }

    /// `--cipher-use-hmac`'s value: on or off, as `PRAGMA cipher_use_hmac` takes it (or
    /// true/false, yes/no, 1/0, as a flag setting's variable).
    private static func onOrOff(_ text: String) throws -> Bool {
        guard let value = SettingKind.flagValue(text) else {
            throw ValidationError("\(option(for: .usesHMAC)) must be on or off, not \"\(text)\".")
        }
        return value
    }

    /// What the running layer cannot apply, refused rather than ignored: any cipher
    /// option on a layer that cannot encrypt, a database's own settings on one that takes
    /// them in the app's code (only SQLCipher's default formats 3 and 4 are named there).
    private func validateForLayer() throws {
        guard let layer = ParsingLayer.current else { return }
        if !layer.library.encrypts, let first = given.first {
            throw ValidationError("\(first) applies to encrypted databases, and \(layer.commandName) opens plaintext ones only (\(layer.library.summary)); drop it.")
        }
        if !layer.library.takesCipherSettings {
            if let first = settingsGiven.first {
                throw ValidationError("\(first) is not an option of \(layer.commandName), which takes a database's cipher settings in the app's own code (\(layer.library.summary)); give --cipher-compatibility 3 or 4, or none.")
            }
            if let compatibility, compatibility != 3 && compatibility != 4 {
                throw ValidationError("\(Self.option(for: .compatibility)) must be 3 or 4 for \(layer.commandName), which opens SQLCipher 3's and 4's default formats.")
            }
        }
    }

    /// The rules that hold whatever the library (`CipherSettings.refusal(for:)`, the
    /// core's one statement of them), worded with these options' names; the linked
    /// library's own are the layer's, when it opens the database.
    package func validate() throws {
        try validateForLayer()
        if let salt, CipherParameters.salt(hex: salt)?.count != CipherParameters.saltLength {
            throw ValidationError("\(Self.option(for: .salt)) must be 32 hex digits (16 bytes).")
        }
        if let refusal = settings.refusal(for: nil) {
            throw ValidationError(refusal.sentence(naming: Self.option(for:)))
        }
    }

    /// The option that gives `setting`.
    static func option(for setting: CipherSetting) -> String {
        "--" + projectSetting(for: setting).rawValue
    }

    /// The project setting (and so the option) that gives `setting`.
    private static func projectSetting(for setting: CipherSetting) -> ProjectSetting {
        switch setting {
        case .compatibility: return .cipherCompatibility
        case .pageSize: return .cipherPageSize
        case .kdfIterations: return .kdfIterations
        case .kdfAlgorithm: return .cipherKDFAlgorithm
        case .hmacAlgorithm: return .cipherHMACAlgorithm
        case .usesHMAC: return .cipherUseHMAC
        case .plaintextHeader: return .cipherPlaintextHeaderSize
        case .salt: return .cipherSalt
        }
    }

    /// The options that give `settings`, as a user would type them to give another
    /// database's settings: "--cipher-page-size, --kdf-iter or --cipher-use-hmac off".
    static func options(for settings: [CipherSetting]) -> String {
        let options = settings.map { setting -> String in
            switch setting {
            case .usesHMAC: return option(for: setting) + " off"
            case .plaintextHeader: return option(for: setting) + " with " + option(for: .salt)
            default: return option(for: setting)
            }
        }
        guard options.count > 1 else { return options.joined() }
        return options.dropLast().joined(separator: ", ") + " or " + options[options.count - 1]
    }

    /// The options that open a database in `settings`, for a command that wrote it so
    /// and must tell later commands what they need ("--cipher-page-size 16384").
    package static func arguments(for settings: CipherSettings) -> [String] {
        var arguments: [String] = []
        if let compatibility = settings.compatibility { arguments += [Self.option(for: .compatibility), "\(compatibility)"] }
        if let kdfIterations = settings.kdfIterations { arguments += [Self.option(for: .kdfIterations), "\(kdfIterations)"] }
        if let pageSize = settings.pageSize { arguments += [Self.option(for: .pageSize), "\(pageSize)"] }
        if let kdfAlgorithm = settings.kdfAlgorithm { arguments += [Self.option(for: .kdfAlgorithm), kdfAlgorithm.uppercased()] }
        if let hmacAlgorithm = settings.hmacAlgorithm { arguments += [Self.option(for: .hmacAlgorithm), hmacAlgorithm.uppercased()] }
        if let header = settings.plaintextHeaderSize { arguments += [Self.option(for: .plaintextHeader), "\(header)"] }
        if let salt = settings.saltHex { arguments += [Self.option(for: .salt), salt] }
        if let usesHMAC = settings.usesHMAC { arguments += [Self.option(for: .usesHMAC), usesHMAC ? "on" : "off"] }
        return arguments
    }

    /// For a command that wrote a database in `settings`: what opens it from now on, as
    /// this tool's options and an app's PRAGMAs; nil for the linked library's defaults,
    /// which need nothing.
    ///
    /// - Parameter linkedVersion: the linked SQLCipher's major version. Another known
    ///   format's defaults (`--cipher-compatibility 3` on SQLCipher 4) open here by format
    ///   detection, with no option, but an app on the linked SQLCipher must name them.
    package static func reopeningAdvice(_ settings: CipherSettings, linkedVersion: Int?) -> String? {
        guard !settings.isDefault else { return nil }
        if settings == CipherSettings(compatibility: settings.compatibility) {
            guard let compatibility = settings.compatibility, compatibility != linkedVersion,
                  let pragmas = knownFormatPragmas(compatibility, linkedVersion: linkedVersion) else { return nil }
            return "It is in SQLCipher \(compatibility)'s format, not the linked SQLCipher's own: later commands find it with no option, "
                + "and an app on SQLCipher \(linkedVersion.map(String.init) ?? "this version") runs, after its key: " + pragmas.joined(separator: "; ") + "."
        }
        return "It opens only with these settings from now on: give later commands "
            + arguments(for: settings).joined(separator: " ")
            + " (or set them in the project file), and have the app run, after its key: "
            + settings.pragmas.joined(separator: "; ") + "."
    }

    /// What an app on SQLCipher `linkedVersion` runs after its key to read SQLCipher
    /// `version`'s default format: `cipher_compatibility` from 4.x; on 3.x, the older
    /// formats' settings by hand, as `CipherFormat`'s table gives them.
    private static func knownFormatPragmas(_ version: Int, linkedVersion: Int?) -> [String]? {
        if (linkedVersion ?? 4) >= 4 { return ["PRAGMA cipher_compatibility = \(version)"] }
        guard let format = CipherFormat(version: version)?.parameters, let native = CipherFormat.sqlcipher3.parameters else { return nil }
        var pragmas: [String] = []
        if format.kdfIterations != native.kdfIterations { pragmas.append("PRAGMA kdf_iter = \(format.kdfIterations)") }
        if !format.usesHMAC { pragmas.append("PRAGMA cipher_use_hmac = OFF") }
        return pragmas.isEmpty ? nil : pragmas
    }

    var settings: CipherSettings {
        CipherSettings(compatibility: compatibility, kdfIterations: kdfIterations, pageSize: pageSize,
                       kdfAlgorithm: kdfAlgorithm?.uppercased(), hmacAlgorithm: hmacAlgorithm?.uppercased(),
                       plaintextHeaderSize: plaintextHeaderSize, salt: salt.flatMap(CipherParameters.salt(hex:)), usesHMAC: usesHMAC)
    }
}
