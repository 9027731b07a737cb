#if canImport(Glibc)
    import Glibc
#endif

/// Writes `text` and a newline to standard error, unbuffered.
func printError(_ text: String) {
    writeToStandardError(text.hasSuffix("\n") ? text : text + "\n")
}

/// Writes `text` to standard error as it is.
func writeToStandardError(_ text: String) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { buffer in
            write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
        }
        if written < 0 {
            if errno == EINTR { continue }
            return
        }
        offset += written
    }
}

/// Flushes standard output and ends the process with `status`.
func exitProcess(_ status: Int32) -> Never {
    fflush(nil)
    exit(status)
}
