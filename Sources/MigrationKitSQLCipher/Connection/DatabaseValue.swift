/// A value SQLite stores: the five storage classes.
public enum DatabaseValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var isNull: Bool { self == .null }

    public var int64: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var int: Int? { int64.map { Int($0) } }

    public var double: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }

    public var string: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    public var blob: [UInt8]? {
        if case .blob(let value) = self { return value }
        return nil
    }
}

extension DatabaseValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

extension DatabaseValue {
    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
}

/// One result row: values by position, plus the column names shared by all rows of
/// the statement.
public struct Row: Hashable, Sendable {
    public let columnNames: [String]
    public let values: [DatabaseValue]

    public init(columnNames: [String], values: [DatabaseValue]) {
        self.columnNames = columnNames
        self.values = values
    }

    public var count: Int { values.count }

    public subscript(index: Int) -> DatabaseValue { values[index] }

    /// The value of the first column with this name (case-insensitive, as SQL is), or `.null`.
    public subscript(column: String) -> DatabaseValue {
        guard let index = columnNames.firstIndex(where: { $0.caseInsensitiveCompare(column) }) else { return .null }
        return values[index]
    }
}

extension String {
    fileprivate func caseInsensitiveCompare(_ other: String) -> Bool {
        lowercased() == other.lowercased()
    }
}
