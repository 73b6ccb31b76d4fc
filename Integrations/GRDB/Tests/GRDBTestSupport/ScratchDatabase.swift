import Foundation
import GRDB
import Testing

/// A database file in a folder of its own, removed afterwards.
public final class ScratchDatabase: @unchecked Sendable {
    public let folder: URL
    public var path: String { folder.appendingPathComponent("app.sqlite").path }

    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("migrationkit-grdb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    public func queue() throws -> DatabaseQueue { try DatabaseQueue(path: path) }
    public func pool() throws -> DatabasePool { try DatabasePool(path: path) }

    deinit { try? FileManager.default.removeItem(at: folder) }
}

/// Both kinds of GRDB writer: a queue, and a pool in WAL mode.
public enum WriterKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case queue, pool
    public var testDescription: String { rawValue }
    public func open(_ scratch: ScratchDatabase) throws -> any DatabaseWriter {
        switch self {
        case .queue: return try scratch.queue()
        case .pool: return try scratch.pool()
        }
    }
}
