import CLibDW
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Turns code addresses of a running process into function names, source files and lines.
///
/// Uses libdwfl over the process's memory map (`dwfl_linux_proc_report`); for names, each module's symbol
/// table read once into a sorted index (`dwfl_module_getsym_info`; `dwfl_module_addrname`, which scans the
/// whole table per call, only where the index has nothing), demangled with the Swift runtime's
/// `swift_demangle`; for file and line, a per-module index of DWARF compile units and `dwarf_getsrc_die`
/// (`dwfl_module_getsrc` fails for Swift code). Indexes are built the first time a module is hit; results
/// are cached per address.
///
/// ``symbolizeExpandingInlines(_:as:)`` also reports the functions the compiler inlined at an address, one frame
/// each, as `addr2line -i` does (see ``InlinedCall``): in optimized code an allocation usually sits in an
/// inlined initializer, whose caller's line is only known from the inlining record.
///
/// The modules are those mapped when the symbolizer was created: a library `dlopen`ed later is unknown to
/// it (its addresses come back as `0x…`); create a new symbolizer then.
///
/// ## Thread safety
/// Not thread-safe, and deliberately not `Sendable`: libdwfl sessions and the caches are unsynchronized.
/// Use one instance from one thread (or one isolation domain) at a time.
public final class Symbolizer {
    /// What an address in a backtrace stands for, which decides the address looked up.
    public enum AddressKind: Sendable, Hashable {
        /// A return address (every frame of a frame-pointer walk): it points after the call instruction, so
        /// `address - 1` is looked up, both for the name and the line. This is the default.
        case returnAddress
        /// The exact address of an instruction: a program counter at a fault, or a function's entry.
        case instructionAddress
    }

    private struct CacheKey: Hashable {
        var address: UInt
        var kind: AddressKind
    }

    /// What is known about one module; its symbol and compile-unit indexes are built on first need.
    private final class ModuleInfo {
        let path: String?
        private let module: OpaquePointer
        private lazy var symbols = SymbolIndex(module: module)
        private var index: CompileUnitIndex?
        private var bias: Dwarf_Addr = 0
        private var indexed = false

        init(module: OpaquePointer, path: String?) {
            self.module = module
            self.path = path
        }

        func symbolName(covering address: Dwarf_Addr) -> UnsafePointer<CChar>? {
            symbols.name(covering: address) ?? dwfl_module_addrname(module, address)
        }

        func isOptimized(_ address: Dwarf_Addr) -> Bool? {
            loadIndexIfNeeded()
            guard let index, address >= bias else { return nil }
            return index.isOptimized(address - bias)
        }

        func sourceLocation(of address: Dwarf_Addr) -> (file: String, line: Int?)? {
            loadIndexIfNeeded()
            guard let index, address >= bias else { return nil }
            return index.sourceLocation(of: address - bias)
        }

        /// The inlined calls at `address` (a process address), outermost first.
        func inlinedCalls(at address: Dwarf_Addr) -> [InlinedCall] {
            loadIndexIfNeeded()
            guard address >= bias else { return [] }
            return index?.inlinedCalls(at: address - bias) ?? []
        }

        private func loadIndexIfNeeded() {
            guard !indexed else { return }
            indexed = true
            // A runtime module's frames are folded out of reports (FramePolicy): its debug information
            // would be read for lines no report shows. libc's, where libc6-dbg is installed (valgrind
            // depends on it), is compressed: 13 MB of the check's memory to decompress and index.
            if let path, FramePolicy.isRuntimeModule(path) { return }
            if let dwarf = dwfl_module_getdwarf(module, &bias) {
                index = CompileUnitIndex(dwarf: dwarf)
            }
        }
    }

    /// The process whose addresses this symbolizer resolves.
    public let processID: Int32

    private let callbacks: UnsafeMutablePointer<Dwfl_Callbacks>
    private let session: OpaquePointer
    private var modules: [OpaquePointer: ModuleInfo] = [:]
    private var cache: [CacheKey: SymbolizedFrame] = [:]
    private var expandedCache: [CacheKey: [SymbolizedFrame]] = [:]

    /// libdw asks debuginfod servers over the network for missing debug information when
    /// `DEBUGINFOD_URLS` is set; a leak check never does. Unset once per process, before the first session.
    private static let offline: Void = {
        unsetenv("DEBUGINFOD_URLS")
    }()

    /// Reads the memory map of process `processID` (by default this one) and its modules' symbol tables.
    ///
    /// Debug information is looked for next to each module and in the standard places
    /// (`dwfl_standard_find_debuginfo`: `.gnu_debuglink`, build-id, `/usr/lib/debug`), never over the
    /// network (`DEBUGINFOD_URLS` is unset for the process on first use) — and not for runtime modules
    /// (``FramePolicy/isRuntimeModule(_:)``: libc, libswiftCore, …), whose frames reports fold away:
    /// their frames get a name and no line.
    ///
    /// - Throws: ``SymbolizationError`` if libdwfl cannot start or `/proc/<pid>/maps` cannot be read.
    public init(processID: Int32 = getpid()) throws {
        let (callbacks, session) = try Self.startSession { session in
            dwfl_linux_proc_report(session, processID)
        } failure: { reason in
            SymbolizationError(
                code: .processNotReadable, message: "cannot read the memory map of process \(processID): \(reason)")
        }
        self.processID = processID
        self.callbacks = callbacks
        self.session = session
    }

    /// Reads a memory map saved from a process that has ended (the text of its `/proc/<pid>/maps`, as
    /// the preload library's crash handler saves it) and its modules' symbol tables, from the files the
    /// map names: the program's return addresses symbolize as they would have in the live process.
    ///
    /// - Throws: ``SymbolizationError`` if libdwfl cannot start or the map cannot be read.
    public init(memoryMap text: String, processID: Int32) throws {
        var bytes = Array(text.utf8)
        let (callbacks, session) = try Self.startSession { session in
            bytes.withUnsafeMutableBytes { buffer -> Int32 in
                guard let file = fmemopen(buffer.baseAddress, buffer.count, "r") else { return errno }
                defer { fclose(file) }
                return dwfl_linux_proc_maps_report(session, file)
            }
        } failure: { reason in
            SymbolizationError(code: .processNotReadable, message: "cannot read the saved memory map: \(reason)")
        }
        self.processID = processID
        self.callbacks = callbacks
        self.session = session
    }

    private static let sessionsStarted = Atomic<Int>(0)

    /// How many symbolizers this process has made so far (each one a libdwfl session: the symbol tables
    /// and debug information of the modules its frames are in, read as they are needed). A program
    /// whose checks have their stacks symbolized elsewhere (`leakgraph run`'s process, a monitor's
    /// forked child) keeps it at 0.
    public static var instancesMade: Int { sessionsStarted.load(ordering: .relaxed) }

    /// Starts a libdwfl session (offline: see `offline`) whose modules `report` lists — it runs between
    /// `dwfl_report_begin` and `dwfl_report_end` and returns 0, an `errno` value, or a negative value for a
    /// libdwfl error — or throws what `failure` makes of the reason it could not.
    private static func startSession(
        report: (OpaquePointer) -> Int32, failure: (String) -> SymbolizationError
    ) throws -> (callbacks: UnsafeMutablePointer<Dwfl_Callbacks>, session: OpaquePointer) {
        _ = offline
        let callbacks = UnsafeMutablePointer<Dwfl_Callbacks>.allocate(capacity: 1)
        callbacks.initialize(
            to: Dwfl_Callbacks(
                find_elf: dwfl_linux_proc_find_elf, find_debuginfo: dwfl_standard_find_debuginfo,
                section_address: nil, debuginfo_path: nil))
        guard let session = dwfl_begin(callbacks) else {
            callbacks.deallocate()
            throw SymbolizationError(code: .sessionUnavailable, message: "dwfl_begin failed: \(dwflMessage())")
        }
        dwfl_report_begin(session)
        let status = report(session)
        guard status == 0, dwfl_report_end(session, nil, nil) == 0 else {
            let reason = status > 0 ? String(cString: strerror(status)) : dwflMessage()
            dwfl_end(session)
            callbacks.deallocate()
            throw failure(reason)
        }
        sessionsStarted.add(1, ordering: .relaxed)
        return (callbacks, session)
    }

    deinit {
        dwfl_end(session)
        callbacks.deallocate()
    }

    /// Resolves one address; the result is cached.
    ///
    /// An address outside every mapped module gives ``SymbolizedFrame/unknown(_:)``: function `"0x…"`,
    /// no module, file or line.
    /// Whether the code at `address` (an instruction address in this process) was compiled with
    /// optimization (`-O`, `-Osize`), as its compile unit's debug information says; `nil` when the module
    /// has no debug information for it.
    public func isOptimizedCode(at address: UInt) -> Bool? {
        guard let module = dwfl_addrmodule(session, Dwarf_Addr(address)) else { return nil }
        return moduleInfo(module).isOptimized(Dwarf_Addr(address))
    }

    public func symbolize(_ address: UInt, as kind: AddressKind = .returnAddress) -> SymbolizedFrame {
        let key = CacheKey(address: address, kind: kind)
        if let frame = cache[key] {
            return frame
        }
        let lookup = kind == .returnAddress && address > 0 ? address - 1 : address
        let frame = resolve(address, lookingUp: Dwarf_Addr(lookup))
        cache[key] = frame
        return frame
    }

    /// Resolves a backtrace, all of whose addresses are of one kind (return addresses by default).
    public func symbolize(_ addresses: [UInt], as kind: AddressKind = .returnAddress) -> [SymbolizedFrame] {
        addresses.map { symbolize($0, as: kind) }
    }

    /// Resolves one address into the frames it stands for: the functions inlined there, innermost first, each
    /// marked ``SymbolizedFrame/isInlined``, then the function that holds the code (the frame
    /// ``symbolize(_:as:)`` gives, with its line moved to the outermost inlined call). The result is cached.
    ///
    /// - The innermost frame's file and line come from the line table, as in ``symbolize(_:as:)``.
    /// - Each outer frame's file and line are where the frame inside it was inlined (`DW_AT_call_file`,
    ///   `DW_AT_call_line`); `<compiler-generated>` gives no file and line 0 no line.
    /// - Inlined frames are named from DWARF: a Swift linkage name demangled, else the qualified `DW_AT_name`.
    ///
    /// Without inlining at the address, or without DWARF for its module, the result is the one frame of
    /// ``symbolize(_:as:)``. All frames carry the address as recorded.
    ///
    /// - Complexity: the first lookup of an address walks the DIEs on the path from its compile unit down to
    ///   the innermost scope; later ones are a cache hit.
    public func symbolizeExpandingInlines(_ address: UInt, as kind: AddressKind = .returnAddress) -> [SymbolizedFrame] {
        let key = CacheKey(address: address, kind: kind)
        if let frames = expandedCache[key] {
            return frames
        }
        let frame = symbolize(address, as: kind)
        let lookup = kind == .returnAddress && address > 0 ? address - 1 : address
        var frames = [frame]
        if let module = dwfl_addrmodule(session, Dwarf_Addr(lookup)) {
            let calls = moduleInfo(module).inlinedCalls(at: Dwarf_Addr(lookup))
            frames = Self.expand(frame, calls: calls)
        }
        expandedCache[key] = frames
        return frames
    }

    /// Resolves a backtrace, expanding inlined functions (see ``symbolizeExpandingInlines(_:as:)``): the frames of
    /// each address in turn, so an address stands for one frame or more.
    public func symbolizeExpandingInlines(_ addresses: [UInt], as kind: AddressKind = .returnAddress)
        -> [SymbolizedFrame]
    {
        addresses.flatMap { symbolizeExpandingInlines($0, as: kind) }
    }

    /// `frame` (from the symbol and line tables) preceded by one frame per inlined call, innermost first.
    private static func expand(_ frame: SymbolizedFrame, calls: [InlinedCall]) -> [SymbolizedFrame] {
        guard !calls.isEmpty else { return [frame] }
        var frames: [SymbolizedFrame] = []
        frames.reserveCapacity(calls.count + 1)
        // Where the code at the address sits: first the line table's answer, then each call site going out.
        var file = frame.file
        var line = frame.line
        for call in calls.reversed() {
            frames.append(
                SymbolizedFrame(
                    address: frame.address, function: call.function ?? SymbolizedFrame.hexadecimal(frame.address),
                    rawSymbol: call.linkageName, file: file, line: line, module: frame.module, isInlined: true))
            file = call.callFile
            line = call.callLine
        }
        var outermost = frame
        outermost.file = file
        outermost.line = line
        frames.append(outermost)
        return frames
    }

    private func resolve(_ address: UInt, lookingUp lookup: Dwarf_Addr) -> SymbolizedFrame {
        guard let module = dwfl_addrmodule(session, lookup) else {
            return .unknown(address)
        }
        let info = moduleInfo(module)
        var frame = SymbolizedFrame(address: address, function: SymbolizedFrame.hexadecimal(address), module: info.path)
        if let symbol = info.symbolName(covering: lookup) {
            let raw = String(cString: symbol)
            frame.rawSymbol = raw
            frame.function = SwiftDemangler.demangle(symbol) ?? raw
        }
        if let location = info.sourceLocation(of: lookup) {
            frame.file = location.file
            frame.line = location.line
        }
        return frame
    }

    /// The address range of the function (symbol) holding `address`, from the module's symbol table:
    /// `nil` when no sized function symbol covers it.
    public func functionRange(containing address: UInt) -> Range<UInt>? {
        guard let module = dwfl_addrmodule(session, Dwarf_Addr(address)) else { return nil }
        var offset: GElf_Off = 0
        var symbol = GElf_Sym()
        guard dwfl_module_addrinfo(module, Dwarf_Addr(address), &offset, &symbol, nil, nil, nil) != nil,
            symbol.st_size > 0, UInt(offset) <= address
        else { return nil }
        let start = address - UInt(offset)
        return start..<start + UInt(symbol.st_size)
    }

    /// The name of the data symbol (a global or static variable) covering `address`, demangled, looked up
    /// in the module that contains `moduleAddress` — for a module's `.bss` past its file's end, which
    /// `/proc/self/maps` shows as an anonymous mapping outside the module's reported range. `nil` when
    /// no module contains `moduleAddress` or no symbol covers `address`.
    public func dataSymbolName(at address: UInt, inModuleContaining moduleAddress: UInt) -> String? {
        guard let module = dwfl_addrmodule(session, Dwarf_Addr(moduleAddress)) else { return nil }
        guard let symbol = dwfl_module_addrname(module, Dwarf_Addr(address)) else { return nil }
        return SwiftDemangler.demangle(symbol) ?? String(cString: symbol)
    }

    private func moduleInfo(_ module: OpaquePointer) -> ModuleInfo {
        if let info = modules[module] {
            return info
        }
        let name = dwfl_module_info(module, nil, nil, nil, nil, nil, nil, nil)
        let info = ModuleInfo(module: module, path: name.map { String(cString: $0) })
        modules[module] = info
        return info
    }

    private static func dwflMessage() -> String {
        dwfl_errmsg(-1).map { String(cString: $0) } ?? "unknown libdwfl error"
    }
}
