import Foundation

/// The history rows of a run that commits each step in a transaction of its own
/// (`migrate`'s default, and GRDB's migrator in a GRDB app), written by two of the run's
/// transactions instead of a row by each.
///
/// A history row makes its transaction write more pages (the history table's, one since
/// the table has no rowid), each encrypted into the journal and into the file: the
/// largest part of what `migrate` added to the `sqlcipher` shell's work on 300 small
/// migrations, and of what the GRDB runner added to GRDB's own migrator on a
/// `DatabasePool`, whose WAL commits are otherwise cheap (Benchmarks/README.md, cases 1
/// and 10). So
/// the first transaction that applies a step also records the checksum of every step
/// the run plans after it, and the last one gives each row the time its step was
/// applied and how long it took. Where another migrator writes the ledger rows (GRDB's),
/// a transaction runs `Recording.history` alone.
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
        /// The statements, in order: the ledger row, then the history rows written ahead,
        /// or, for the plan's last step, every row of the run finished, then the step's
        /// downgrade row, if it has one.
        var statements: [BookkeepingStatement] { ledger + history }
        /// The ledger row alone, as `MigrationLedgerTable.recordApplied` writes it.
        let ledger: [BookkeepingStatement]
        /// The history and downgrade rows alone: all a transaction adds where another
        /// migrator writes the ledger row itself (GRDB's, in a GRDB app).
        package let history: [BookkeepingStatement]
        fileprivate let writtenAhead: [String]
        fileprivate let applied: MigrationHistoryTable.Row
        fileprivate let finishes: Bool
    }

    /// Rows a committed transaction of this run wrote ahead and that no transaction has
    /// finished yet.
    private var writtenAhead: Set<String> = []
    /// Those of them the run can count on still being there: all, until another process
    /// changed the database (`forgetStandingRows`).
    private var standing: Set<String> = []
    /// The rows of the steps this run applied and committed, with their times.
    private var applied: [MigrationHistoryTable.Row] = []

    package init() {}

    /// What the transaction applying `step` records after the step ran: its ledger row;
    /// and, unless this run committed the step's history row and no other process has
    /// changed the database since (`forgetStandingRows`), the rows of the
    /// step and of the plan's steps after it (`later`); or, when nothing comes later,
    /// the finished rows of every step the run applied.
    ///
    /// - Parameter duration: how long the step has taken so far, as its row records it.
    package func recording<Database>(_ step: MigrationStep<Database>, followedBy later: ArraySlice<MigrationStep<Database>>,
                                     duration: Duration) -> Recording {
        let now = Self.nowInUnixMilliseconds()
        let row = MigrationHistoryTable.Row(identifier: step.identifier, checksum: step.checksum, unixMilliseconds: now, duration: duration)
        var history: [BookkeepingStatement] = []
        var ahead: [String] = []
        if later.isEmpty {
            history = Self.finishing(writtenAhead: writtenAhead, applied: applied + [row])
        } else if !standing.contains(step.identifier) {
            let planned = (CollectionOfOne(step) + later).map {
                MigrationHistoryTable.Row(identifier: $0.identifier, checksum: $0.checksum, unixMilliseconds: now, duration: .zero)
            }
            history = [MigrationHistoryTable.create] + MigrationHistoryTable.record(planned)
            ahead = planned.map(\.identifier)
        }
        // The way back and the compatibility are written with the step itself: they are
        // the step's, and most steps have none to write.
        history += MigrationDowngradeTable.record(step)
        return Recording(ledger: MigrationLedgerTable.recordApplied(step), history: history, writtenAhead: ahead, applied: row,
                         finishes: later.isEmpty)
    }

    /// Takes in what a transaction recorded, once it has committed.
    package mutating func committed(_ recording: Recording) {
        guard !recording.finishes else {
            self = RunHistory()
            return
        }
        writtenAhead.formUnion(recording.writtenAhead)
        standing.formUnion(recording.writtenAhead)
        applied.append(recording.applied)
    }

    /// Another process committed since the run's last transaction: it may have removed
    /// rows this run wrote ahead (a `rollback` forgets a step's row), so the next step
    /// writes its rows, and those of the steps after it, again.
    package mutating func forgetStandingRows() {
        standing = []
    }

    /// For a run that ended before its last step committed (a step failed, or the run was
    /// stopped): the statements of one transaction that finishes the rows of the steps it
    /// applied and removes the rows it wrote ahead for steps it did not apply. Empty when
    /// there is nothing to finish.
    package var finishing: [BookkeepingStatement] {
        Self.finishing(writtenAhead: writtenAhead, applied: applied)
    }

    /// A few statements, each of many rows, rather than a statement a row: SQLite copies
    /// each page a statement that replaces rows changes into its statement journal, and
    /// SQLCipher encrypts every copy, so 300 one-row statements made the run's first and
    /// last transactions encrypt a thousand pages more than the rows themselves fill.
    private static func finishing(writtenAhead: Set<String>, applied: [MigrationHistoryTable.Row]) -> [BookkeepingStatement] {
        let unapplied = writtenAhead.subtracting(applied.map(\.identifier)).sorted()
        return (applied.isEmpty ? [] : [MigrationHistoryTable.create] + MigrationHistoryTable.record(applied))
            + MigrationHistoryTable.deleteUnapplied(unapplied)
    }

    private static func nowInUnixMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}
