// The smallest HTTP server a Prometheus scrape needs: one listening socket on 127.0.0.1 and one
// thread that answers each connection in turn (`GET /metrics` → the body, anything else → 404), then
// closes it. POSIX sockets only, so the sample builds without SwiftNIO.

import Foundation

/// A listener on 127.0.0.1 that serves `body()` as Prometheus text at `/metrics`.
final class MetricsEndpoint: Sendable {
    /// Why the listener could not start: the call that failed and `errno`'s text.
    struct StartError: Error, CustomStringConvertible {
        /// The failed call and its error.
        var description: String
    }

    /// The port it listens on (the one the system chose when asked for 0).
    let port: UInt16
    private let listener: Int32
    private let body: @Sendable () -> String

    /// Binds 127.0.0.1:`port` (0: a free port the system picks) and starts answering on a thread of
    /// its own; `body` is called once per `GET /metrics`, on that thread.
    ///
    /// - Throws: ``StartError`` when the socket cannot be made, bound or listened on.
    init(port: UInt16, body: @escaping @Sendable () -> String) throws(StartError) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw Self.failure("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(listener, 16) == 0 else {
            let error = Self.failure(bound == 0 ? "listen" : "bind 127.0.0.1:\(port)")
            close(listener)
            throw error
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        self.body = body
        let thread = Thread { [self] in serve() }
        thread.name = "SessionServer /metrics"
        thread.start()
    }

    /// Answers connections one at a time until the process ends.
    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            answer(connection)
            close(connection)
        }
    }

    /// Reads the request head and writes the response.
    private func answer(_ connection: Int32) {
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while request.count < 8192, !request.ends(with: Array("\r\n\r\n".utf8)) {
            let count = read(connection, &chunk, chunk.count)
            guard count > 0 else { break }
            request += chunk[..<count]
        }
        let requestLine = String(decoding: request, as: UTF8.self).prefix { $0 != "\r" && $0 != "\n" }
        let parts = requestLine.split(separator: " ")
        let isMetrics = parts.count >= 2 && parts[0] == "GET" && parts[1] == "/metrics"
        let (status, text) = isMetrics ? ("200 OK", body()) : ("404 Not Found", "not found\n")
        let content = Array(text.utf8)
        let head = "HTTP/1.1 \(status)\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
            + "Content-Length: \(content.count)\r\nConnection: close\r\n\r\n"
        write(all: Array(head.utf8) + content, to: connection)
    }

    /// Writes every byte of `bytes`, or stops at the first error (the client went away).
    private func write(all bytes: [UInt8], to connection: Int32) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    private static func failure(_ call: String) -> StartError {
        StartError(description: "\(call): \(String(cString: strerror(errno)))")
    }
}

extension Array where Element == UInt8 {
    /// Whether the array ends with `suffix`.
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
