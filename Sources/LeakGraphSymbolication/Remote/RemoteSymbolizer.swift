#if canImport(Glibc)
    import Glibc
#endif

/// Symbolizes this process's return addresses in `leakgraph run`'s process (its
/// ``SymbolizationServer``), so that this process never reads symbol tables or debug information: the
/// same frames as a ``Symbolizer`` here, without its memory.
///
/// Made for one check, as a ``Symbolizer`` is. When the server cannot be reached or stops answering,
/// the addresses are symbolized here instead, by a ``Symbolizer`` made then (frames the same, the
/// memory this process's); when that cannot be made either, each address is its own unknown frame
/// (`0x…`).
public final class RemoteSymbolizer: StackSymbolizing {
    private var socket: Int32?
    private var local: Result<Symbolizer, any Error>?
    /// The first failure of the server, once it happened (the rest of the check symbolizes here).
    public private(set) var remoteFailure: (any Error)?
    /// Why no address could be symbolized at all: the server failed and no ``Symbolizer`` could be
    /// made here either (every frame since is `0x…`); `nil` otherwise.
    public var failure: (any Error)? {
        guard case .failure(let error) = local else { return nil }
        return error
    }

    /// Connects to the server listening at `socketPath`.
    /// - Throws: ``SymbolizationError`` (`remoteFailed`) when it cannot connect.
    public init(socketPath: String) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard socketPath.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw SymbolizationError(code: .remoteFailed, message: "the symbolizer's socket path is too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in socketPath.utf8.enumerated() { buffer[index] = byte }
        }
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else {
            throw SymbolizationError(code: .remoteFailed, message: "socket: \(String(cString: strerror(errno)))")
        }
        var connected: Int32
        repeat {
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        } while connected != 0 && errno == EINTR
        guard connected == 0 else {
            let message = "cannot connect to the symbolizer at \(socketPath): \(String(cString: strerror(errno)))"
            close(socket)
            throw SymbolizationError(code: .remoteFailed, message: message)
        }
        // A server that stops answering must not hold the check for ever.
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.socket = socket
    }

    deinit {
        if let socket { close(socket) }
    }

    public func symbolizeExpandingInlines(returnAddresses addresses: [UInt]) -> [SymbolizedFrame] {
        if let socket {
            do {
                try SymbolizationWire.write(SymbolizationWire.request(addresses, processID: getpid()), to: socket)
                return try SymbolizationWire.readFrames(from: socket)
            } catch {
                remoteFailure = error
                close(socket)
                self.socket = nil
            }
        }
        if local == nil { local = Result { try Symbolizer() } }
        guard case .success(let symbolizer) = local else { return addresses.map(SymbolizedFrame.unknown) }
        return symbolizer.symbolizeExpandingInlines(returnAddresses: addresses)
    }
}
