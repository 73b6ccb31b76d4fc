extension Duration {
    /// Whole milliseconds, rounded down: the history's `duration_ms` and every
    /// `durationMs` of the JSON documents.
    package var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
