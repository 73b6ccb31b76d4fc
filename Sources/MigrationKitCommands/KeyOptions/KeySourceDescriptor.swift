import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitKeys

/// One key source as the command line, `migrationkit.toml` and the `MIGRATIONKIT_*`
/// environment know it: its options, how the values become a `KeySource`, and the words
/// that name it. Each source is one file that defines one (`PasswordFileKeySource`, …);
/// `KeySourceOptions` lists them, and everything that names or reads key sources — the
/// key options, the new-key options, project settings, `config`, `init`, and every
/// sentence that lists the sources — reads that list.
package struct KeySourceDescriptor: Sendable {
    /// One value the source takes: a long option, and (unless `setting` is nil) the
    /// `migrationkit.toml` key of the same name and the variable `MIGRATIONKIT_` + the
    /// name in capitals, `-` as `_`.
    package struct Parameter: Sendable {
        /// The long option without `--` (and without the role's `new-`): `password-file`.
        package let name: String
        let valueName: String
        /// The option's help, for a role (`--new-password-file` reads "the new key").
        /// Made while `KeySources.all` is being listed, so it must not read that list.
        let help: @Sendable (KeyRoleText) -> String
        /// What a value must look like in `migrationkit.toml`; nil: a flag only, never a
        /// setting (`--password`: a key never goes into the file or a setting variable).
        let setting: SettingKind?
        /// A path setting whose `-` means standard input, kept as written.
        var dashIsStandardInput = false
        /// A value `init` shows in its commented example.
        let example: String
    }

    /// The values, in order; every one is needed (`--keychain-service` with
    /// `--keychain-account`).
    package let parameters: [Parameter]
    /// What the source is, for sentences: "a key file".
    let description: String
    /// A word more, where there is room (`init`'s comments): "mode 0600".
    var note: String? = nil
    /// Whether `{name}` in its values stands for each database's name (fleets).
    let takesName: Bool
    /// Listed last when a sentence says what to pass (`--password`: other users see it).
    var lastResort = false
    /// How the values, one per parameter, become a key source in the running command's
    /// environment (`CREDENTIALS_DIRECTORY`). May throw a `KeyError` (the key is
    /// unavailable) but never reads the key itself.
    package let source: @Sendable ([String], ProcessEnvironment) throws -> KeySource
    /// Where the key would come from, for `migrationkit config`; never the key.
    let shown: @Sendable ([String], ProcessEnvironment) -> String
    /// The file the key is read from, if any: a command never writes over it.
    var keyFile: @Sendable ([String], ProcessEnvironment) -> String? = { _, _ in nil }
    /// A usage check of the values beyond "all given" (`--password` not empty), as a
    /// `ValidationError` naming the option.
    package var check: @Sendable ([String], KeyRoleText) throws -> Void = { _, _ in }
    /// A warning said whenever the source is given (`--password`: the process list).
    package var warning: (@Sendable (KeyRoleText) -> String)? = nil
    /// What a name form (`{name}`) becomes in a value, given what it stands for: the
    /// name itself in a path, one quoted word in a command line.
    var placeholderValue: @Sendable (String) -> String = { $0 }

    /// The options in a role, for sentences: `--keychain-service/--keychain-account`.
    func flags(_ role: KeyRoleText, joinedBy separator: String = "/") -> String {
        parameters.map { role.flag($0.name) }.joined(separator: separator)
    }

    /// The settings `migrationkit.toml` can give for it.
    var settings: [Parameter] { parameters.filter { $0.setting != nil } }
}

/// Whose key a set of key options gives.
package protocol KeyRole {
    static var text: KeyRoleText { get }
}

/// What a role changes in options and sentences.
package struct KeyRoleText: Sendable {
    /// Put before every long option: `new-` makes `--new-password-file`.
    let prefix: String
    /// "the key", "the new key".
    let theKey: String
    /// The variable read when no source is given (nil: a new key is never taken from the
    /// environment).
    let environmentVariable: String?
    /// The settings file the role's values are written to (`init` writes
    /// `migrationkit.toml`), where sources with no setting (`--password`) are hidden and
    /// refused; nil for options on a command line, which offer every source.
    let settingsFile: String?

    init(prefix: String, theKey: String, environmentVariable: String?, settingsFile: String? = nil) {
        self.prefix = prefix
        self.theKey = theKey
        self.environmentVariable = environmentVariable
        self.settingsFile = settingsFile
    }

    /// Whether sources with no setting (`--password`) are offered.
    var takesFlagOnlySources: Bool { settingsFile == nil }

    /// `--new-password-file`.
    func flag(_ name: String) -> String { "--" + prefix + name }
}

/// The database's key (`KeyOptions`).
package enum DatabaseKeyRole: KeyRole {
    package static let text = KeyRoleText(prefix: "", theKey: "the key", environmentVariable: KeySource.passwordEnvironmentVariable)
}

/// The key to change to (`NewKeyOptions`).
package enum NewKeyRole: KeyRole {
    package static let text = KeyRoleText(prefix: "new-", theKey: "the new key", environmentVariable: nil)
}

/// A type that names one key source (its file's enum).
protocol KeySourceDefinition {
    static var descriptor: KeySourceDescriptor { get }
}

/// A source's options as `ArgumentParser` parses them.
protocol KeySourceArguments: ParsableArguments {
    associatedtype Source: KeySourceDefinition
    /// One per parameter, in order.
    var values: [String?] { get }
}

extension KeySourceArguments {
    fileprivate static func name<Role: KeyRole>(_ index: Int, _ role: Role.Type) -> NameSpecification {
        .customLong(Role.text.prefix + Source.descriptor.parameters[index].name)
    }

    fileprivate static func help<Role: KeyRole>(_ index: Int, _ role: Role.Type) -> ArgumentHelp {
        let descriptor = Source.descriptor
        let parameter = descriptor.parameters[index]
        let offered = Role.text.takesFlagOnlySources || descriptor.settings.count == descriptor.parameters.count
        return ArgumentHelp(parameter.help(Role.text), valueName: parameter.valueName, visibility: offered ? .default : .private)
    }
}

/// The options of a source with one value (`--password-file PATH`).
struct OneValueKeySource<Source: KeySourceDefinition, Role: KeyRole>: KeySourceArguments {
    @Option(name: Self.name(0, Role.self), help: Self.help(0, Role.self))
    var first: String?

    init() {}

    var values: [String?] { [first] }
}

/// The options of a source with two values (`--keychain-service S --keychain-account A`).
struct TwoValueKeySource<Source: KeySourceDefinition, Role: KeyRole>: KeySourceArguments {
    @Option(name: Self.name(0, Role.self), help: Self.help(0, Role.self))
    var first: String?

    @Option(name: Self.name(1, Role.self), help: Self.help(1, Role.self))
    var second: String?

    init() {}

    var values: [String?] { [first, second] }
}

/// An option group that holds a key source's options: what `KeySourceOptions` is made
/// of, found by reflection so that the list is written once.
protocol KeySourceGroup {
    static var descriptor: KeySourceDescriptor { get }
    var values: [String?] { get }
}

extension OptionGroup: KeySourceGroup where Value: KeySourceArguments {
    static var descriptor: KeySourceDescriptor { Value.Source.descriptor }
    var values: [String?] { wrappedValue.values }
}

extension KeySourceOptions {
    /// The values given as flags.
    package var given: KeySourceValues {
        var values = KeySourceValues()
        for child in Mirror(reflecting: self).children {
            guard let group = child.value as? any KeySourceGroup else { continue }
            for (parameter, value) in zip(type(of: group).descriptor.parameters, group.values) {
                values.byName[parameter.name] = value
            }
        }
        return values
    }

    /// The sources, in the list's order.
    static var descriptors: [KeySourceDescriptor] {
        Mirror(reflecting: Self()).children.compactMap { (type(of: $0.value) as? any KeySourceGroup.Type)?.descriptor }
    }
}

/// Every key source, and the sentences that list them.
package enum KeySources {
    package static let all: [KeySourceDescriptor] = KeySourceOptions<DatabaseKeyRole>.descriptors

    /// Every parameter that is also a setting, in the list's order.
    static var settings: [KeySourceDescriptor.Parameter] { all.flatMap(\.settings) }

    /// "--password-file, --keychain-service/--keychain-account, --password or
    /// MIGRATIONKIT_PASSWORD": what to pass, preferred first; with `preferredOnly`,
    /// without the last resorts (what to pass instead of one).
    package static func advice(_ role: KeyRoleText, preferredOnly: Bool = false, withVariable: Bool = true) -> String {
        let sources = all.filter { !$0.lastResort } + (preferredOnly ? [] : all.filter(\.lastResort))
        var items = sources.map { $0.flags(role) }
        if withVariable, let variable = role.environmentVariable { items.append(variable) }
        return list(items, "or")
    }

    /// "--password, --password-file, --keychain-service with --keychain-account, or …":
    /// the sources of which exactly one may be given.
    static func choices(_ role: KeyRoleText) -> String {
        let items = all.filter { role.takesFlagOnlySources || $0.settings.count == $0.parameters.count }
            .map { $0.flags(role, joinedBy: " with ") }
        return items.count > 2 ? items.dropLast().joined(separator: ", ") + ", or " + items[items.count - 1] : list(items, "or")
    }

    /// "a key file (password-file), a Secret Service item (keychain-service and
    /// keychain-account) or …": the sources `migrationkit.toml` can name.
    static var settingsSentence: String {
        list(all.filter { !$0.settings.isEmpty }.map { "\($0.description) (\(list($0.settings.map(\.name), "and")))" }, "or")
    }

    /// The key remedies the libraries offer, as these options say them: the words of
    /// every command line that takes the key options (`migrationkit`, an app's binary on
    /// `MigrationCLI`, a GRDB app's on SQLCipher); nil for a remedy that is not a key's.
    /// - Parameter commandName: the binary's name, for the example of a piped key.
    package static func words(for remedy: Remedy, commandName: String) -> String? {
        switch remedy {
        case .openWithoutKey:
            return "open it without a key (--plaintext)"
        case .keyFromFile:
            return "pass the key with --password-file instead"
        case .keyFromAnotherSource:
            return "pass the key another way: \(advice(DatabaseKeyRole.text))"
        case .allowKeyCommandMoreTime:
            return "allow it more time with --\(ProjectSetting.keyCommandTimeout.rawValue) SECONDS"
        case .keyFromPipeOrPrompt:
            return "pipe the key in (e.g. `\(commandName) … --password-file - < key`), or leave out --password-file to be prompted without echo"
        default:
            return nil
        }
    }

    /// "a, b and c".
    package static func list(_ items: [String], _ conjunction: String) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items[items.count - 1]
    }
}

/// The values given for the key sources, by parameter name (`password-file`): from
/// flags, or from the environment or `migrationkit.toml`, or with `{name}` replaced.
package struct KeySourceValues: Equatable, Sendable, Codable {
    package var byName: [String: String] = [:]

    init(byName: [String: String] = [:]) {
        self.byName = byName
    }

    package var isEmpty: Bool { byName.isEmpty }

    /// The sources given, each with its values (nil where one is missing), in list order.
    package var given: [(descriptor: KeySourceDescriptor, values: [String?])] {
        KeySources.all.compactMap { descriptor in
            let values = descriptor.parameters.map { byName[$0.name] }
            return values.contains { $0 != nil } ? (descriptor, values) : nil
        }
    }

    /// At most one source, with all its values; its own checks.
    package func validate(_ role: KeyRoleText) throws {
        let given = self.given
        for (descriptor, values) in given where values.contains(nil) {
            throw ValidationError("\(KeySources.list(descriptor.parameters.map { role.flag($0.name) }, "and")) go together; give \(descriptor.parameters.count == 2 ? "both" : "all of them").")
        }
        if given.count > 1 {
            throw ValidationError("Give exactly one \(role.prefix)key source: \(KeySources.choices(role)).")
        }
        if let (descriptor, values) = given.first {
            if let file = role.settingsFile, descriptor.settings.count != descriptor.parameters.count {
                throw ValidationError("\(descriptor.flags(role)) cannot be written to \(file): a key never goes in it; give \(KeySources.choices(role)).")
            }
            try descriptor.check(values.compactMap { $0 }, role)
        }
    }

    /// The source given, or nil when none is (then the environment or a prompt), as the
    /// running command's `environment` makes it.
    package func source(in environment: ProcessEnvironment) throws -> KeySource? {
        guard let (descriptor, values) = given.first else { return nil }
        return try descriptor.source(values.compactMap { $0 }, environment)
    }

    /// The warnings the source given brings (`--password`: the process list).
    package func warnings(_ role: KeyRoleText) -> [String] {
        given.compactMap { $0.descriptor.warning?(role) }
    }

    /// The files a key is read from in the running command's `environment`, which a
    /// command never writes over.
    func keyFiles(in environment: ProcessEnvironment) -> [String] {
        given.compactMap { descriptor, values in values.contains(nil) ? nil : descriptor.keyFile(values.compactMap { $0 }, environment) }
    }

    /// Whether the source given reads standard input (`--password-file -`): a `-` given
    /// where it means standard input.
    var readsStandardInput: Bool {
        standardInputParameter != nil
    }

    /// The option that reads standard input, in `role`'s words (`--new-password-hex-file`),
    /// when the source given reads it: for a sentence about what else wants it.
    package func standardInputReader(_ role: KeyRoleText) -> String? {
        standardInputParameter.map { role.flag($0.name) }
    }

    /// The parameter of the source given whose value `-` stands for standard input.
    private var standardInputParameter: KeySourceDescriptor.Parameter? {
        guard let (descriptor, values) = given.first else { return nil }
        return zip(descriptor.parameters, values).first { $0.0.dashIsStandardInput && $0.1 == "-" }?.0
    }

    /// Where the key would come from in the running command's `environment`, for
    /// `config`, and the setting whose origin to show.
    func shown(in environment: ProcessEnvironment) -> (text: String, setting: String?)? {
        guard let (descriptor, values) = given.first, !values.contains(nil) else { return nil }
        return (descriptor.shown(values.compactMap { $0 }, environment), descriptor.settings.first?.name)
    }

    /// What `{name}` stands for: one database's name, so each database of a fleet has
    /// its own key.
    static let namePlaceholder = "{name}"

    /// Every form that stands for one of a database's names: `{name}`, `{folder}`,
    /// `{path}` (what each stands for is the command tree's `DatabaseNames`).
    package static let namePlaceholders = [namePlaceholder, "{folder}", "{path}"]

    /// The name forms the sources that take them use.
    var nameFormsUsed: Set<String> {
        Set(given.filter(\.descriptor.takesName).flatMap { $0.values.compactMap { $0 } }
            .flatMap { value in Self.namePlaceholders.filter(value.contains) })
    }

    /// Whether the source names each database's own key through a name form.
    package var isTemplate: Bool { !nameFormsUsed.isEmpty }

    /// These values with each name form replaced by what `names` gives for it, in the
    /// sources that take them.
    package func forDatabase(names: [String: String]) -> KeySourceValues {
        var values = self
        for (descriptor, _) in given where descriptor.takesName {
            for parameter in descriptor.parameters {
                values.byName[parameter.name] = byName[parameter.name].map { value in
                    names.reduce(value) { $0.replacingOccurrences(of: $1.key, with: descriptor.placeholderValue($1.value)) }
                }
            }
        }
        return values
    }
}
