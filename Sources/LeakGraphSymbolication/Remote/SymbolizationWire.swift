#if canImport(Glibc)
    import Glibc
#endif

/// The messages between a ``RemoteSymbolizer`` (in the checked program) and the
/// ``SymbolizationServer`` (in `leakgraph run`), over a Unix stream socket; both ends are on one
/// machine, so integers are in the machine's own byte order.
///
/// - Request: `u32` version (``version``), `i32` the asking process's id, `u32` count, then `count`
///   `u64` return addresses, innermost first.
/// - Answer: `u32` frame count (``failure``: a `u32` length and a UTF-8 sentence follow instead),
///   then per frame `u64` address, `u8` flags (``Flag``), the function (a string: `u32` length and
///   UTF-8 bytes), then the raw symbol, file, `i64` line and module, each only when its flag is set.
enum SymbolizationWire {
    /// The request's first word: a server answers only requests of its own version.
    static let version: UInt32 = 1
    /// The frame count of an answer that is a failure.
    static let failure = UInt32.max
    /// The most addresses a request may hold (a creation stack has at most 64 frames).
    static let addressLimit = 4096
    /// The longest string an answer may hold.
    static let stringLimit = 1 << 20

    /// Which optional parts of a frame follow.
    enum Flag {
        static let inlined: UInt8 = 1
        static let rawSymbol: UInt8 = 2
        static let file: UInt8 = 4
        static let line: UInt8 = 8
        static let module: UInt8 = 16
    }

    /// A request for `addresses` from process `processID`.
    static func request(_ addresses: [UInt], processID: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12 + addresses.count * 8)
        append(version, to: &bytes)
        append(UInt32(bitPattern: processID), to: &bytes)
        append(UInt32(addresses.count), to: &bytes)
        for address in addresses { append(UInt64(address), to: &bytes) }
        return bytes
    }

    /// An answer holding `frames`.
    static func answer(_ frames: [SymbolizedFrame]) -> [UInt8] {
        var bytes: [UInt8] = []
        append(UInt32(frames.count), to: &bytes)
        for frame in frames {
            append(UInt64(frame.address), to: &bytes)
            var flags: UInt8 = frame.isInlined ? Flag.inlined : 0
            if frame.rawSymbol != nil { flags |= Flag.rawSymbol }
            if frame.file != nil { flags |= Flag.file }
            if frame.line != nil { flags |= Flag.line }
            if frame.module != nil { flags |= Flag.module }
            bytes.append(flags)
            append(frame.function, to: &bytes)
            if let rawSymbol = frame.rawSymbol { append(rawSymbol, to: &bytes) }
            if let file = frame.file { append(file, to: &bytes) }
            if let line = frame.line { append(UInt64(bitPattern: Int64(line)), to: &bytes) }
            if let module = frame.module { append(module, to: &bytes) }
        }
        return bytes
    }

    /// An answer saying why there are no frames.
    static func failureAnswer(_ message: String) -> [UInt8] {
        var bytes: [UInt8] = []
        append(failure, to: &bytes)
        append(message, to: &bytes)
        return bytes
    }

    /// Reads an answer's frames from `socket`.
    /// - Throws: ``SymbolizationError`` (`remoteFailed`) when the socket ends or fails, the answer is
    ///   malformed, or it is the server's failure.
    static func readFrames(from socket: Int32) throws -> [SymbolizedFrame] {
        var reader = SocketReader(socket: socket)
        let count = try reader.uint32()
        if count == failure {
            throw SymbolizationError(code: .remoteFailed, message: try reader.string())
        }
        guard count <= UInt32(addressLimit * 64) else { throw malformed("\(count) frames") }
        var frames: [SymbolizedFrame] = []
        frames.reserveCapacity(Int(count))
        for _ in 0..<count {
            let address = UInt(try reader.uint64())
            let flags = try reader.byte()
            var frame = SymbolizedFrame(
                address: address, function: try reader.string(), isInlined: flags & Flag.inlined != 0)
            if flags & Flag.rawSymbol != 0 { frame.rawSymbol = try reader.string() }
            if flags & Flag.file != 0 { frame.file = try reader.string() }
            if flags & Flag.line != 0 { frame.line = Int(Int64(bitPattern: try reader.uint64())) }
            if flags & Flag.module != 0 { frame.module = try reader.string() }
            frames.append(frame)
        }
        return frames
    }

    /// Reads a request from `socket`: `nil` when the peer closed the connection before one began.
    /// - Throws: ``SymbolizationError`` (`remoteFailed`) when it fails or is malformed mid-way.
    static func readRequest(from socket: Int32) throws -> (processID: Int32, addresses: [UInt])? {
        var reader = SocketReader(socket: socket)
        guard let first = try reader.uint32OrEnd() else { return nil }
        guard first == version else { throw malformed("version \(first), not \(version)") }
        let processID = Int32(bitPattern: try reader.uint32())
        let count = try reader.uint32()
        guard count <= UInt32(addressLimit) else { throw malformed("\(count) addresses") }
        var addresses: [UInt] = []
        addresses.reserveCapacity(Int(count))
        for _ in 0..<count { addresses.append(UInt(try reader.uint64())) }
        return (processID, addresses)
    }

    /// Writes all of `bytes` to `socket` (never raising SIGPIPE).
    /// - Throws: ``SymbolizationError`` (`remoteFailed`) when the socket fails.
    static func write(_ bytes: [UInt8], to socket: Int32) throws {
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                send(socket, buffer.baseAddress! + done, buffer.count - done, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw SymbolizationError(
                    code: .remoteFailed, message: "cannot write to the symbolizer: \(String(cString: strerror(errno)))")
            }
            done += written
        }
    }

    private static func malformed(_ what: String) -> SymbolizationError {
        SymbolizationError(code: .remoteFailed, message: "malformed symbolizer message (\(what))")
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    private static func append(_ text: String, to bytes: inout [UInt8]) {
        let utf8 = Array(text.utf8.prefix(stringLimit))
        append(UInt32(utf8.count), to: &bytes)
        bytes.append(contentsOf: utf8)
    }

    /// Reads exact numbers of bytes from a socket, through a buffer. One reader reads one message:
    /// neither end sends a second message before the answer to the first, so nothing it buffers
    /// belongs to the next.
    private struct SocketReader {
        let socket: Int32
        private var buffer: [UInt8] = []
        private var position = 0

        init(socket: Int32) {
            self.socket = socket
        }

        /// The next `count` bytes; `nil` when the peer closed before the message's first byte (only when
        /// `allowEnd`).
        mutating func bytes(_ count: Int, allowEnd: Bool = false) throws -> ArraySlice<UInt8>? {
            while buffer.count - position < count {
                var chunk = [UInt8](repeating: 0, count: max(65536, count))
                let got = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress!, $0.count, 0) }
                if got < 0 {
                    if errno == EINTR { continue }
                    throw SymbolizationError(
                        code: .remoteFailed,
                        message: "cannot read from the symbolizer: \(String(cString: strerror(errno)))")
                }
                if got == 0 {
                    if allowEnd && buffer.isEmpty { return nil }
                    throw SymbolizationError(code: .remoteFailed, message: "the symbolizer closed the connection")
                }
                buffer.removeFirst(position)
                position = 0
                buffer.append(contentsOf: chunk.prefix(got))
            }
            defer { position += count }
            return buffer[position..<position + count]
        }

        mutating func byte() throws -> UInt8 { try bytes(1)!.first! }

        mutating func uint32() throws -> UInt32 {
            try bytes(4)!.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        }

        mutating func uint32OrEnd() throws -> UInt32? {
            try bytes(4, allowEnd: true)?.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        }

        mutating func uint64() throws -> UInt64 {
            try bytes(8)!.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        }

        mutating func string() throws -> String {
            let length = try uint32()
            guard length <= UInt32(SymbolizationWire.stringLimit) else {
                throw SymbolizationWire.malformed("a string of \(length) bytes")
            }
            return String(decoding: try bytes(Int(length))!, as: UTF8.self)
        }
    }
}
