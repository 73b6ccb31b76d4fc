extension Duration {
    /// Whole milliseconds, rounded down: the history's `duration_ms` and every
    /// `durationMs` of the JSON documents.
    package var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }

    /// Whole milliseconds, a part of one counting as one: a timeout handed to a call
    /// that takes milliseconds, which must not end before the duration did.
    package var wholeMillisecondsRoundedUp: Int64 {
        components.seconds * 1000 + (components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }
}
