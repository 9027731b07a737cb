import Foundation
import LeakGraphSymbolication
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `leakgraph run` symbolizes the program's stacks in its own process: the program sends return
/// addresses over a socket and gets frames back. Here both ends are in this process, so the frames
/// can be compared with a ``Symbolizer``'s in the same process.
@Suite("Symbolization in another process (RemoteSymbolizer, SymbolizationServer)")
struct RemoteSymbolizationTests {
    /// A private folder for the socket, removed after `body`.
    private func withServer(_ body: (SymbolizationServer) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lg-remote-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SymbolizationServer(path: folder.path + "/s.socket")
        let thread = Thread { server.serve() }
        thread.start()
        defer { server.stop() }
        try body(server)
    }

    @Test("the server's frames are the symbolizer's here, field by field, inlined calls included, over several requests")
    func sameFrames() throws {
        let (addresses, callLine) = symbolicationProbeCapturingStack()
        let symbolizer = try Symbolizer()
        let local = symbolizer.symbolizeExpandingInlines(addresses)
        try withServer { server in
            let remote = try RemoteSymbolizer(socketPath: server.path)
            let frames = remote.symbolizeExpandingInlines(returnAddresses: addresses)
            #expect(remote.remoteFailure == nil)
            #expect(frames == local)
            // The probe's frame has its file and line: what a report's creation site is made of.
            let probe = try #require(frames.first { $0.function.contains("symbolicationProbeCapturingStack") })
            #expect(probe.line == callLine && probe.file?.hasSuffix("/StackCapture.swift") == true)
            // The same connection answers again; an empty stack is an empty answer.
            let two = Array(addresses.prefix(2))
            #expect(remote.symbolizeExpandingInlines(returnAddresses: two) == symbolizer.symbolizeExpandingInlines(two))
            #expect(remote.symbolizeExpandingInlines(returnAddresses: []) == [])
            #expect(remote.remoteFailure == nil)
        }
    }

    @Test("an unmapped address comes back as its hex value, as here")
    func unknownAddress() throws {
        try withServer { server in
            let remote = try RemoteSymbolizer(socketPath: server.path)
            #expect(remote.symbolizeExpandingInlines(returnAddresses: [0x10]) == [SymbolizedFrame.unknown(0x10)])
        }
    }

    @Test("no server at the path: the connection fails, and a stopped server's socket is gone")
    func noServer() throws {
        var path = ""
        try withServer { server in path = server.path }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(throws: SymbolizationError.self) { try RemoteSymbolizer(socketPath: path) }
    }

    @Test("a server that fails mid-check: the rest of the stacks are symbolized here, with the same frames")
    func fallbackAfterFailure() throws {
        let (addresses, _) = symbolicationProbeCapturingStack()
        let local = try Symbolizer().symbolizeExpandingInlines(addresses)
        // A listener that accepts and closes every connection at once: the request gets no answer.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lg-remote-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.path + "/closing.socket"
        let listener = try unixListener(at: path)
        defer { close(listener) }
        let remote = try RemoteSymbolizer(socketPath: path)
        let accepted = accept(listener, nil, nil)
        #expect(accepted >= 0)
        close(accepted)
        let frames = remote.symbolizeExpandingInlines(returnAddresses: addresses)
        #expect(remote.remoteFailure != nil)
        #expect(remote.failure == nil)
        #expect(frames == local)
    }

    /// A bare listening socket at `path`.
    private func unixListener(at path: String) throws -> Int32 {
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(socket, 1) == 0)
        return socket
    }
}
