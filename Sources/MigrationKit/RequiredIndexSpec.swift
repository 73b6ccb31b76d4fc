/// An index the verifier insists on after every migration, for indexes an app's
/// performance depends on and that a careless table recreation would silently drop.
public struct RequiredIndexSpec: Hashable, Sendable, CustomStringConvertible {
    /// The table the index must be on.
    public let table: String
    /// The index's name.
    public let index: String

    /// Requires the index named `index` on `table`.
    public init(table: String, index: String) {
        self.table = table
        self.index = index
    }

    /// Parses the command-line form `TABLE:INDEX`; nil when either side is empty.
    public init?(parsing text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let table = String(text[..<colon])
        let index = String(text[text.index(after: colon)...])
        guard !table.isEmpty, !index.isEmpty else { return nil }
        self.init(table: table, index: index)
    }

    public var description: String { "\(table):\(index)" }
}
