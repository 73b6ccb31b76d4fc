import Foundation

/// The history rows of a run that commits each step in a transaction of its own
/// (`migrate`'s default), written by two of the run's transactions instead of a row by
/// each.
///
/// A history row makes its transaction write two more pages (the row's, and its primary
/// key's index), each encrypted into the journal and into the file: for 300 small
/// migrations on SQLCipher 4.6.1 that was 7 % of the run, the largest part of what
/// `migrate` added to the `sqlcipher` shell's work (Benchmarks/README.md, issue 25). So
/// the first transaction that applies a step also records the checksum of every step
/// the run plans after it, and the last one gives each row the time its step was
/// applied and how long it took.
///
/// A step's checksum is therefore committed no later than its ledger row, as when each
/// transaction wrote its own: a run killed at any moment leaves no applied step without
/// its checksum, so an edit made afterwards is still found. What such a run leaves
/// besides is harmless: the steps it committed keep the time the run wrote their rows
/// and a duration of 0 (as a step another tool applied), and the rows of steps it did
/// not reach are read by nothing (only the ledger says what is applied;
/// `MigrationAnalysis` reads the checksums of applied steps alone) until a later run
/// applies those steps and writes their rows again. A run that fails or is stopped
/// finishes its rows in a transaction of its own (`finishing`): the times of what it
/// applied, and the rows of what it did not apply removed.
package struct RunHistory {
    /// What one step's transaction records besides the step itself, and what the run
    /// knows once that transaction has committed (`committed(_:)`).
    package struct Recording {
        /// The statements, in order: the ledger row, any rows written ahead, and the
        /// finished rows when the step is the run's last.
        package let statements: [BookkeepingStatement]
        fileprivate let writtenAhead: [String]
        fileprivate let applied: Applied
        fileprivate let finishes: Bool
    }

    fileprivate struct Applied {
        let identifier: String
        let unixMilliseconds: Int64
        let duration: Duration
    }

    /// Rows a committed transaction of this run wrote ahead and that no transaction has
    /// finished yet.
    private var writtenAhead: Set<String> = []
    /// The steps this run applied and committed whose rows have no time yet.
    private var applied: [Applied] = []

    package init() {}

    /// What the transaction applying `step` records after the step ran: its ledger row;
    /// the rows of the step and of the plan's steps after it (`later`) unless this run
    /// already committed the step's row; and, when nothing comes later, the time of every
    /// row.
    ///
    /// - Parameter duration: how long the step has taken so far, as its row records it.
    package func recording<Database>(_ step: MigrationStep<Database>, followedBy later: ArraySlice<MigrationStep<Database>>,
                                     duration: Duration) -> Recording {
        var statements = [MigrationLedgerTable.create, MigrationLedgerTable.insert(step.identifier)]
        var ahead: [String] = []
        if !writtenAhead.contains(step.identifier) {
            statements.append(MigrationHistoryTable.create)
            for planned in CollectionOfOne(step) + later {
                statements.append(MigrationHistoryTable.record(planned.identifier, checksum: planned.checksum, duration: .zero))
                ahead.append(planned.identifier)
            }
        }
        let now = Applied(identifier: step.identifier, unixMilliseconds: Self.nowInUnixMilliseconds(), duration: duration)
        if later.isEmpty {
            statements += Self.finishing(writtenAhead: writtenAhead.union(ahead), applied: applied + [now])
        }
        return Recording(statements: statements, writtenAhead: ahead, applied: now, finishes: later.isEmpty)
    }

    /// Takes in what a transaction recorded, once it has committed.
    package mutating func committed(_ recording: Recording) {
        guard !recording.finishes else {
            self = RunHistory()
            return
        }
        writtenAhead.formUnion(recording.writtenAhead)
        applied.append(recording.applied)
    }

    /// For a run that ended before its last step committed (a step failed, or the run was
    /// stopped): the statements of one transaction that gives the rows of the steps it
    /// applied their times and removes the rows it wrote ahead for steps it did not
    /// apply. Empty when there is nothing to finish.
    package var finishing: [BookkeepingStatement] {
        Self.finishing(writtenAhead: writtenAhead, applied: applied)
    }

    private static func finishing(writtenAhead: Set<String>, applied: [Applied]) -> [BookkeepingStatement] {
        applied.map { MigrationHistoryTable.setTime($0.identifier, unixMilliseconds: $0.unixMilliseconds, duration: $0.duration) }
            + writtenAhead.subtracting(applied.map(\.identifier)).sorted().map(MigrationHistoryTable.deleteUnapplied)
    }

    private static func nowInUnixMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}
