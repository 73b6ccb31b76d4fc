/// The room a copy of a database takes on disk, for the commands that write one beside it
/// before they put it in its place (`encrypt --in-place`, `cipher-upgrade`): asked before
/// anything is written, so a disk that cannot take the copy is a sentence naming the
/// room, not SQLite's "database or disk is full" half way.
///
/// A copy is not the file's size. `sqlcipher_export` packs every b-tree anew, which
/// makes a file grown by random inserts smaller; but another page size, or the bytes
/// SQLCipher keeps on each page for its IV and HMAC, lay rows out differently: a 2 KB
/// row that 1 KB pages chained onto overflow pages with little waste takes a 4 KB page of
/// its own, and a copy of such rows is nearly twice the file. So every row and index
/// entry is measured (one pass over the database, in SQL: the linked libraries have no
/// `dbstat` table) and laid out on the copy's pages as SQLite lays out cells.
package enum CopyRoom {
    /// Bytes SQLCipher keeps at the end of each encrypted page, at most: a 16-byte IV and
    /// a 64-byte HMAC-SHA512 (SQLCipher 4's defaults; SQLCipher 3's SHA1 needs less).
    package static let encryptedPageReserve = 80

    /// The bytes a copy of the main database of `db` takes with `pageSize`-byte pages of
    /// which `reserve` bytes each are SQLCipher's: each table's rows and each index's
    /// entries, a tenth more (interior pages, sizes the measure rounds down), and the
    /// largest table that may be copied a second time to keep its rowids (`TableRowids`:
    /// one without an `INTEGER PRIMARY KEY` or an index, whose rowids have gaps a copy
    /// would close), through a journal.
    package static func estimate(_ db: some SQLQuerying, pageSize: Int, reserve: Int) throws -> Int64 {
        let layout = Layout(usable: pageSize - reserve)
        let indexes = try db.textRows(sql: "SELECT name, tbl_name FROM main.sqlite_master WHERE type = 'index'")
        var total = 0.0
        var journal = 0.0
        for row in try db.textRows(sql: "SELECT name, sql FROM main.sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'") {
            guard let table = row[0], let definition = row[1].flatMap(TableDefinition.init(sql:)) else { continue }
            let columns = try db.textRows(sql: "PRAGMA main.table_info(\(quoteIdentifier(table)))").compactMap { $0[1] }
            var measures = [layout.pages(cell: layout.recordSize(of: columns), key: !definition.hasRowid)]
            let own = indexes.filter { $0[1]?.lowercased() == table.lowercased() }.compactMap { $0[0] }
            for index in own {
                // An expression's column has no name here: counted as an 8-byte value.
                let indexed = try db.textRows(sql: "PRAGMA main.index_info(\(quoteIdentifier(index)))").map { $0[2] }
                measures.append(layout.pages(cell: layout.recordSize(of: indexed) + " + 9", key: true))
            }
            let rowid = own.isEmpty && !definition.hasIntegerPrimaryKey ? definition.rowidName : nil
            if let rowid { measures.append("count(*) < coalesce(max(\(rowid)), 0)") }
            guard let pages = try db.textRows(sql: "SELECT " + measures.joined(separator: ", ") + " FROM main.\(quoteIdentifier(table))").first else { continue }
            let counts = pages.map { Double($0 ?? "") ?? 0 }
            total += counts.prefix(own.count + 1).reduce(0, +)
            if rowid != nil, counts.last == 1 { journal = max(journal, counts[0]) }
        }
        return (Int64((total * 1.1 + journal).rounded(.up)) + 3) * Int64(pageSize)
    }

    /// SQLite's layout of cells on pages with `usable` bytes (sqlite.org/fileformat2.html),
    /// as SQL over a row's measured size.
    struct Layout {
        let usable: Int

        /// A record's size in bytes, at most: a header byte for each column and two more,
        /// and each value's own bytes (an integer's as SQLite stores it, in 1 to 8 bytes by
        /// its magnitude; a real's eight; a text's or a blob's length); nil names (an
        /// expression's) count eight.
        func recordSize(of columns: [String?]) -> String {
            let values = columns.map { column -> String in
                guard let column else { return "8" }
                let name = quoteIdentifier(column)
                let integer = "(CASE WHEN \(name) BETWEEN -128 AND 127 THEN 1 WHEN \(name) BETWEEN -32768 AND 32767 THEN 2 "
                    + "WHEN \(name) BETWEEN -2147483648 AND 2147483647 THEN 4 WHEN \(name) BETWEEN -140737488355328 AND 140737488355327 THEN 6 ELSE 8 END)"
                return "(CASE typeof(\(name)) WHEN 'null' THEN 0 WHEN 'integer' THEN \(integer) WHEN 'real' THEN 8 ELSE length(CAST(\(name) AS BLOB)) END)"
            }
            return "(\(columns.count + 2)" + values.map { " + " + $0 }.joined() + ")"
        }

        /// The sum over the rows of the pages a cell of `size` (an SQL expression) takes:
        /// its share of a leaf page (the page holds as many such cells as fit whole, each
        /// with its pointer and lengths), and its overflow pages when its payload is
        /// larger than a cell keeps on the page (a table's `usable - 35` bytes, an index's
        /// or a `WITHOUT ROWID` table's less: `key`).
        func pages(cell size: String, key: Bool) -> String {
            let maxLocal = key ? (usable - 12) * 64 / 255 - 23 : usable - 35
            let minLocal = (usable - 12) * 32 / 255 - 23
            let overflowBytes = usable - 4
            // What stays on the leaf page of a cell that overflows: minLocal and the rest of
            // its last overflow page, unless that makes it larger than maxLocal.
            let local = "(CASE WHEN \(minLocal) + ((s) - \(minLocal)) % \(overflowBytes) <= \(maxLocal) THEN \(minLocal) + ((s) - \(minLocal)) % \(overflowBytes) ELSE \(minLocal) END)"
            // A cell's pointer, its payload's length and its rowid, at most as SQLite writes
            // them for a database under 2^32 rows of under 16 KB.
            let onPage = "(CASE WHEN (s) <= \(maxLocal) THEN (s) ELSE \(local) + 4 END) + 9"
            let overflow = "(CASE WHEN (s) <= \(maxLocal) THEN 0 ELSE ((s) - \(local) + \(overflowBytes - 1)) / \(overflowBytes) END)"
            let perPage = "max(1, \(usable - 8) / (\(onPage)))"
            return "coalesce(total(1.0 / \(perPage) + \(overflow)), 0)".replacingOccurrences(of: "(s)", with: size)
        }
    }
}
