extension Duration {
    /// The duration in seconds, for the APIs that take a `TimeInterval`.
    package var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
