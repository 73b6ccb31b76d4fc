/// An external-content full-text index (`ExternalContentIndex`) that does not match the
/// rows of its table, named with the difference: how many rows it holds, which are
/// missing or gone. A rebuild is advised only where the app's triggers index every row;
/// where the app fills the index from its own code, only the app can say which rows
/// belong, and a rebuild would index them all.
package struct FullTextIndexDifference: Error, Sendable, CustomStringConvertible {
    let index: ExternalContentIndex
    /// `ExternalContentIndex.difference(in:)`'s words.
    package let difference: String

    package var description: String {
        let subject = "The \(index.module) index \"\(index.table)\" \(difference)"
        switch index.filling {
        case .everyRow:
            return "\(subject), though the app's triggers index every row of \(index.contentTable); "
                + "rebuild it from its rows in a migration: INSERT INTO \"\(index.table)\"(\"\(index.table)\") VALUES ('rebuild')."
        case .someRows(let condition):
            return "\(subject); the app's triggers index only the rows where \(condition), so this may be by design."
        case .byTheApp:
            return "\(subject); no trigger writes it, so the app fills it from its own code and only the app can rebuild it as it means it to be "
                + "(a 'rebuild' would index every row of \(index.contentTable))."
        }
    }
}
