/// An ordered, validated list of migration steps.
///
/// All validation happens here, before any database is opened, so a broken
/// registration (a duplicated identifier, a step slipped in out of order) can never
/// half-migrate a database.
public struct MigrationRegistry<Database>: Sendable {
    /// The steps, in the order they apply.
    public var steps: [MigrationStep<Database>] { registered }
    @usableFromInline var registered: [MigrationStep<Database>]
    /// Each step's position, by identifier: registering a step, and finding one, cost
    /// the same however many are registered (an app registers hundreds at every launch).
    @usableFromInline var positions: [String: Int] = [:]
    /// Identifiers this build knows without a step of its own: the steps another part of
    /// the same app registers (a migrator split into parts), or steps retired after every
    /// database applied them. Never pending; a database that has them is not newer.
    package var knownIdentifiers: Set<String> = []

    /// - Parameters:
    ///   - steps: the steps, in application order.
    ///   - enforceLexicographicOrder: when true (the default), the steps must be given
    ///     in ascending byte-wise (UTF-8) order of their identifiers: the order `ls`,
    ///     SQLite's `ORDER BY` and file-based migration tools use, so the order steps
    ///     apply in never differs from the order people read them in. False takes any
    ///     identifiers in the order given, as GRDB does; the runners ask for that
    ///     themselves (their `enforceLexicographicOrder` is false unless the app says
    ///     otherwise). A folder of migration files is read in its own order
    ///     (`SQLMigrationDirectory`).
    /// - Throws: `MigrationKitError.duplicateIdentifiers` or
    ///   `.identifiersOutOfOrder(expected:actual:)`.
    public init(steps: [MigrationStep<Database>], enforceLexicographicOrder: Bool = true) throws {
        let duplicates = Self.duplicates(in: steps.map(\.identifier))
        if !duplicates.isEmpty {
            throw MigrationKitError.duplicateIdentifiers(duplicates)
        }
        if enforceLexicographicOrder {
            let sorted = steps.map(\.identifier).sorted(by: MigrationIdentifierOrder.precedes)
            for (expected, actual) in zip(sorted, steps.map(\.identifier)) where expected != actual {
                throw MigrationKitError.identifiersOutOfOrder(expected: expected, actual: actual)
            }
        }
        try Self.validateMerges(steps)
        self.init(validated: steps)
    }

    /// An empty registry, to register steps in one by one (`registering(_:)`).
    public init() {
        registered = []
    }

    private init(validated steps: [MigrationStep<Database>]) {
        registered = steps
        positions.reserveCapacity(steps.count)
        for (index, step) in steps.enumerated() { positions[step.identifier] = index }
    }

    /// This registry with `step` registered after the others, as GRDB's
    /// `registerMigration` does: any identifier, the order being the registration's.
    ///
    /// - Throws: `MigrationKitError.duplicateIdentifiers` when `step`'s identifier, or
    ///   one it merges, is registered already.
    public func registering(_ step: MigrationStep<Database>) throws -> MigrationRegistry {
        try MigrationRegistry(steps: steps + [step], enforceLexicographicOrder: false)
    }

    /// Registers `step` after the others, as GRDB's `DatabaseMigrator.registerMigration`
    /// registers it: any identifier, whatever the steps merge, and an identifier
    /// registered twice stops the process, as GRDB's precondition does (a mistake in the
    /// app's code, found at its first launch).
    ///
    /// In place: an app registers its steps at every launch, each appended where it is.
    @inlinable package mutating func registerAsGRDB(_ step: MigrationStep<Database>) {
        let previous = positions.updateValue(registered.count, forKey: step.identifier)
        precondition(previous == nil, "already registered migration: \(String(reflecting: step.identifier))")
        registered.append(step)
    }

    /// The same registry with each step transformed (`MigrationStep.checking`): the
    /// identifiers, order and merges as they are.
    package func mappingSteps(_ transform: (MigrationStep<Database>) -> MigrationStep<Database>) -> MigrationRegistry {
        var mapped = MigrationRegistry(validated: steps.map(transform))
        mapped.knownIdentifiers = knownIdentifiers
        return mapped
    }

    /// The first `count` steps: the registry of the release before the rest were
    /// added, as `check` rehearses an older release meeting a newer database.
    package func prefix(_ count: Int) -> MigrationRegistry {
        MigrationRegistry(validated: Array(steps.prefix(count)))
    }

    /// The registered identifiers, in application order.
    public var identifiers: [String] { steps.map(\.identifier) }

    /// The step with this identifier, if registered.
    public func step(_ identifier: String) -> MigrationStep<Database>? {
        positions[identifier].map { steps[$0] }
    }

    /// The index of the step with this identifier, if registered.
    package func index(of identifier: String) -> Int? {
        positions[identifier]
    }

    /// The index of a step named as a target (of `migrate --to`, a rollback, a
    /// baseline), or `MigrationKitError.unknownMigration`: the one check every runner
    /// and command makes of a target.
    package func index(ofTarget identifier: String) throws -> Int {
        guard let index = index(of: identifier) else { throw MigrationKitError.unknownMigration(identifier) }
        return index
    }

    /// Every identifier listed by some step's `merging`, mapped to the step that replaces it.
    var mergedIdentifiers: [String: String] {
        var result: [String: String] = [:]
        for step in steps {
            for merged in step.merging { result[merged] = step.identifier }
        }
        return result
    }

    private static func duplicates(in identifiers: [String]) -> [String] {
        var seen = Set<String>()
        var duplicates: [String] = []
        for identifier in identifiers where !seen.insert(identifier).inserted {
            if !duplicates.contains(identifier) { duplicates.append(identifier) }
        }
        return duplicates
    }

    /// A merged identifier must not also be registered, and must be merged by one step only:
    /// otherwise the ledger rewrite would be ambiguous.
    private static func validateMerges(_ steps: [MigrationStep<Database>]) throws {
        let registered = Set(steps.map(\.identifier))
        var owners: [String: String] = [:]
        for step in steps {
            for merged in step.merging {
                if registered.contains(merged) || owners[merged] != nil {
                    throw MigrationKitError.duplicateIdentifiers([merged])
                }
                owners[merged] = step.identifier
            }
        }
    }
}

/// The one ordering MigrationKit uses for identifiers: byte-wise UTF-8, as SQLite's
/// BINARY collation and file listings do (Swift's `<` on `String` is Unicode-aware and
/// could disagree with both).
package enum MigrationIdentifierOrder {
    /// Whether `lhs` sorts before `rhs`, comparing their UTF-8 bytes.
    package static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        // The same byte-wise order, over contiguous bytes when the strings have them
        // (native strings do): folders of thousands of files are sorted several times.
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                left.lexicographicallyPrecedes(right)
            }
        }
        if let fast, let result = fast { return result }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }
}
