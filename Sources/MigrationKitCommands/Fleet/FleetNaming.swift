
/// One database, one key: what a fleet's name forms (`DatabaseNames`) must give before
/// anything changes. Two databases whose `{name}` is the same (`tenants/acme/main.db`
/// beside `tenants/globex/main.db`, `eu/acme.db` beside `us/acme.db`) would otherwise
/// share one key file or keyring item — and a rotation would write one tenant's new key
/// over another's and delete the old key both still need — or one export, or fall in
/// one shard by a name instead of by database.
package struct FleetNaming {
    /// An option whose value names something per database ("--password-file",
    /// "keys/{name}.key").
    package struct PerDatabase: Sendable {
        let option: String
        let value: String

        package init(option: String, value: String) {
            self.option = option
            self.value = value
        }

        /// The key options' values that use a name form, by option.
        package static func keySources(_ values: KeySourceValues, prefix: String = "") -> [PerDatabase] {
            values.byName.sorted { $0.key < $1.key }.compactMap { name, value in
                KeySourceValues.namePlaceholders.contains(where: value.contains) ? PerDatabase(option: "--\(prefix)\(name)", value: value) : nil
            }
        }
    }

    /// Each database's names, in the fleet's order.
    package let names: [(path: String, names: DatabaseNames)]

    package init(paths: [String], roots: [String: String]) {
        names = paths.map { ($0, DatabaseNames(of: $0, root: roots[$0])) }
    }

    /// Refuses, naming two databases that collide, when an option names the same thing
    /// for both, or a form it uses has no value for one (`{path}` outside the root).
    func requireDistinct(_ options: [PerDatabase]) throws {
        for option in options {
            var first: [String: String] = [:]
            for (path, names) in self.names {
                let named = try names.substitute(in: option.value, database: path, option: option.option)
                if let other = first[named] {
                    throw collision(other, path, what: "\(option.option) \(option.value) names \(named) for both")
                }
                first[named] = path
            }
        }
    }

    /// The form `--shard` hashes: the most specific one the options use (`{path}`, then
    /// `{folder}`, then `{name}`), so a shard follows the name that tells this fleet's
    /// databases apart; refused when two databases share its value.
    func shardForm(for options: [PerDatabase]) throws -> String {
        let used = Set(options.flatMap { option in KeySourceValues.namePlaceholders.filter(option.value.contains) })
        let form = ["{path}", "{folder}"].first(where: used.contains) ?? KeySourceValues.namePlaceholder
        var first: [String: String] = [:]
        for (path, names) in names {
            guard let value = names.value(of: form) else {
                throw CLIError(.badOptionValue, "--shard follows \(form), which \(path) has none of; list it under the pattern's folder.")
            }
            if let other = first[value] {
                throw collision(other, path, what: "--shard follows \(form), and both are \(value)")
            }
            first[value] = path
        }
        return form
    }

    private func collision(_ one: String, _ other: String, what: String) -> CLIError {
        CLIError(.badOptionValue, "\(one) and \(other) would share one name: \(what). Nothing was changed; tell them apart with {folder} (the folder each is in) or {path} (its path under the pattern's folder) in the options that name a key or a file per database (docs/fleets.md).")
    }
}
