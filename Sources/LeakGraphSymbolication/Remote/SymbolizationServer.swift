#if canImport(Glibc)
    import Glibc
#endif

/// Symbolizes creation stacks for the processes `leakgraph run` checks, in `leakgraph`'s own process:
/// the checked program sends raw return addresses (``RemoteSymbolizer``) and gets the frames back, so
/// the program itself never reads symbol tables or debug information (tens of MB of its memory for a
/// program with debug information, docs/monitoring.md).
///
/// Listens on a Unix stream socket at a path in a private directory; each connection is served on
/// its own thread by its own ``Symbolizer`` over the asking process's memory map, made at the
/// connection's first request: as the program's own check would make one when it first needs it, so
/// the frames are the same. A connection is one check (the program connects when a check first needs
/// a stack it has not symbolized, and closes at the check's end); the process named in the request
/// is the one symbolized.
public final class SymbolizationServer: @unchecked Sendable {
    /// Where the socket is.
    public let path: String
    private let listener: Int32

    /// Creates the socket at `path` (which must not exist) and listens; ``serve()`` answers.
    /// - Throws: ``SymbolizationError`` (`remoteFailed`) when the socket cannot be made.
    public init(path: String) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            throw SymbolizationError(
                code: .remoteFailed, message: "the symbolizer's socket path is too long (\(path.utf8.count) bytes)")
        }
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw Self.failure("socket") }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(socket, 16) == 0 else {
            let error = Self.failure("bind \(path)")
            close(socket)
            throw error
        }
        self.path = path
        self.listener = socket
    }

    /// Accepts connections until ``stop()``, each served on a thread of its own (every signal blocked
    /// there: the process's signal handling stays with its other threads). Blocks; run it on a thread
    /// of its own.
    public func serve() {
        Self.blockSignals()
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                close(listener)
                return
            }
            // Not inherited by the programs this process starts.
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            let box = Unmanaged.passRetained(ConnectionBox(connection))
            var thread = pthread_t()
            let started = pthread_create(
                &thread, nil,
                { argument in
                    let box = Unmanaged<ConnectionBox>.fromOpaque(argument!).takeRetainedValue()
                    SymbolizationServer.blockSignals()
                    SymbolizationServer.answer(box.socket)
                    return nil
                }, box.toOpaque())
            if started == 0 {
                pthread_detach(thread)
            } else {
                box.release()
                close(connection)
            }
        }
    }

    /// Stops accepting (``serve()`` closes the socket and returns) and removes the socket's name;
    /// connections being served finish.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        unlink(path)
    }

    /// Answers the requests of one connection until the peer closes it, then closes it.
    static func answer(_ socket: Int32) {
        defer { close(socket) }
        var symbolizer: (processID: Int32, result: Result<Symbolizer, any Error>)?
        while true {
            let request: (processID: Int32, addresses: [UInt])?
            do {
                request = try SymbolizationWire.readRequest(from: socket)
            } catch {
                try? SymbolizationWire.write(SymbolizationWire.failureAnswer("\(error)"), to: socket)
                return
            }
            guard let request else { return }
            if symbolizer?.processID != request.processID {
                symbolizer = (request.processID, Result { try Symbolizer(processID: request.processID) })
            }
            let answer: [UInt8]
            switch symbolizer!.result {
            case .success(let made):
                answer = SymbolizationWire.answer(made.symbolizeExpandingInlines(request.addresses, as: .returnAddress))
            case .failure(let error):
                answer = SymbolizationWire.failureAnswer("\(error)")
            }
            do {
                try SymbolizationWire.write(answer, to: socket)
            } catch {
                return
            }
        }
    }

    private static func blockSignals() {
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
    }

    private static func failure(_ call: String) -> SymbolizationError {
        SymbolizationError(
            code: .remoteFailed, message: "cannot serve symbolization (\(call)): \(String(cString: strerror(errno)))")
    }

    private final class ConnectionBox {
        let socket: Int32
        init(_ socket: Int32) { self.socket = socket }
    }
}
