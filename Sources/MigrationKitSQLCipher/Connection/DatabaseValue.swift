/// A value SQLite stores: the five storage classes.
public enum DatabaseValue: Hashable, Sendable {
    /// SQL NULL: no value.
    case null
    /// A signed 64-bit integer.
    case integer(Int64)
    /// An 8-byte floating-point number.
    case real(Double)
    /// A text string.
    case text(String)
    /// Bytes, stored exactly as given.
    case blob([UInt8])

    /// Whether the value is NULL.
    public var isNull: Bool { self == .null }

    /// The integer, or nil for any other storage class (nothing is converted).
    public var int64: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The integer as an `Int`, or nil for any other storage class.
    public var int: Int? { int64.map { Int($0) } }

    /// The real, or an integer converted to `Double`; nil for NULL, text and blobs.
    public var double: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }

    /// The text, or nil for any other storage class (an integer is not converted).
    public var string: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The blob's bytes, or nil for any other storage class.
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
    /// An integer value.
    public init(_ value: Int) { self = .integer(Int64(value)) }
    /// Text, or NULL when `value` is nil.
    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
}

/// One result row: values by position, plus the column names shared by all rows of
/// the statement.
public struct Row: Hashable, Sendable {
    /// The statement's column names, in column order.
    public let columnNames: [String]
    /// The row's values, in column order.
    public let values: [DatabaseValue]

    /// A row of `values`, named by `columnNames` in the same order.
    public init(columnNames: [String], values: [DatabaseValue]) {
        self.columnNames = columnNames
        self.values = values
    }

    /// The number of values (columns) in the row.
    public var count: Int { values.count }

    /// The value at this 0-based column position.
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
