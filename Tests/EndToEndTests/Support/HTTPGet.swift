import Foundation

/// Why ``httpGet(port:path:)`` got no response.
struct HTTPGetError: Error, CustomStringConvertible {
    /// What failed.
    var description: String
}

/// An HTTP response: its status code and body.
struct HTTPResponse: Sendable, CustomStringConvertible {
    /// The status code of the status line.
    var status: Int
    /// Everything after the head.
    var body: String

    var description: String { "HTTP \(status)\n\(body)" }
}

/// `GET path` from 127.0.0.1:`port` over a plain socket (HTTP/1.0: the server closes the connection
/// after the body); gives up after 60 s without data.
func httpGet(port: UInt16, path: String) throws -> HTTPResponse {
    let connection = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard connection >= 0 else { throw HTTPGetError(description: "socket: \(String(cString: strerror(errno)))") }
    defer { close(connection) }
    var timeout = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(connection, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        throw HTTPGetError(description: "connect 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
    }
    let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    guard request.withUnsafeBytes({ send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
        throw HTTPGetError(description: "send: \(String(cString: strerror(errno)))")
    }
    var response: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(connection, &chunk, chunk.count)
        guard count > 0 else { break }
        response += chunk[..<count]
    }
    let text = String(decoding: response, as: UTF8.self)
    guard let headEnd = text.range(of: "\r\n\r\n"), let status = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else {
        throw HTTPGetError(description: "no HTTP response from 127.0.0.1:\(port)\(path): \(text)")
    }
    return HTTPResponse(status: status, body: String(text[headEnd.upperBound...]))
}
