#if canImport(Glibc)
    import Glibc
#endif

/// The names the report gives the terminating signals that run a final check (`program.signal`).
enum PreloadSignalName {
    /// `SIGTERM` for 15; `signal N` for a number without a name here.
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        case SIGQUIT: "SIGQUIT"
        default: "signal \(signal)"
        }
    }
}
