import Foundation
import LeakGraphSymbolication
import Testing

@Suite("Symbolizer")
struct SymbolizerTests {
    @Test("a return address in this test binary gives the demangled function, this file and the call's line")
    func swiftReturnAddress() throws {
        let symbolizer = try Symbolizer()
        let testLine = #line + 1
        let (addresses, callLine) = symbolicationProbeCapturingStack()
        let frames = symbolizer.symbolize(addresses)
        let frame = try #require(frames.first { $0.function.contains("symbolicationProbeCapturingStack") })
        #expect(frame.function.hasPrefix("LeakGraphSymbolicationTests.symbolicationProbeCapturingStack()"))
        #expect(frame.rawSymbol?.hasPrefix("$s") == true)
        #expect(frame.file.map { $0.hasSuffix("/StackCapture.swift") } == true)
        #expect(frame.line == callLine)
        #expect(frame.module == CommandLine.executablePathForTests)
        // The test function itself is a frame further out, in this file.
        let caller = try #require(frames.first { $0.function.contains("swiftReturnAddress") })
        #expect(caller.file.map { $0.hasSuffix("/SymbolizerTests.swift") } == true)
        #expect(caller.line == testLine)
    }

    @Test("a Swift function's C entry point, looked up as an instruction address, is demangled and has no source")
    func swiftFunctionEntry() throws {
        let symbolizer = try Symbolizer()
        // Taking a Swift function as a C function pointer gives its compiler-generated `To` thunk.
        let pointer: @convention(c) (Int32) -> Int32 = symbolicationProbeTarget
        let address = UInt(bitPattern: unsafeBitCast(pointer, to: Int.self))
        let frame = symbolizer.symbolize(address, as: .instructionAddress)
        #expect(frame.rawSymbol == "$s27LeakGraphSymbolicationTests24symbolicationProbeTargetys5Int32VADFTo")
        #expect(
            frame.function == "@objc LeakGraphSymbolicationTests.symbolicationProbeTarget(Swift.Int32) -> Swift.Int32")
        #expect(frame.file == nil && frame.line == nil)
        #expect(frame.module == CommandLine.executablePathForTests)
    }

    @Test("a C function in libc keeps its plain name and names libc as its module")
    func libcFunction() throws {
        let symbolizer = try Symbolizer()
        let libc = try #require(dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD))
        defer { dlclose(libc) }
        let qsortAddress = UInt(bitPattern: dlsym(libc, "qsort"))
        try #require(qsortAddress != 0)
        let frame = symbolizer.symbolize(qsortAddress, as: .instructionAddress)
        #expect(frame.function == "qsort")
        #expect(frame.rawSymbol == "qsort")
        #expect(frame.module.map { $0.hasSuffix("/libc.so.6") } == true)
        // As a return address one byte past the entry, it is still qsort (address - 1 is looked up).
        #expect(symbolizer.symbolize(qsortAddress + 1).function == "qsort")
    }

    @Test("a runtime module's debug information is not read: a libc frame has a name and no line, even with libc6-dbg")
    func runtimeModuleHasNoLine() throws {
        let symbolizer = try Symbolizer()
        let libc = try #require(dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD))
        defer { dlclose(libc) }
        let qsortAddress = UInt(bitPattern: dlsym(libc, "qsort"))
        try #require(qsortAddress != 0)
        // A return address inside qsort: with libc's debug information read, it would have a file and line.
        let frame = symbolizer.symbolize(qsortAddress + 8)
        #expect(frame.function == "qsort")
        #expect(frame.file == nil && frame.line == nil, "\(frame)")
        #expect(FramePolicy.isRuntimeModule("/usr/lib/x86_64-linux-gnu/libc.so.6"))
        #expect(FramePolicy.isRuntimeModule("/opt/swift/usr/lib/swift/linux/libswift_Concurrency.so"))
        #expect(!FramePolicy.isRuntimeModule("/usr/lib/x86_64-linux-gnu/libsqlite3.so.0"))
        #expect(!FramePolicy.isRuntimeModule("/work/app/.build/debug/App"))
    }

    @Test("an unmapped address gives its hex value and no module, file or line")
    func unmappedAddress() throws {
        let symbolizer = try Symbolizer()
        let frame = symbolizer.symbolize(0x10)
        #expect(frame == SymbolizedFrame(address: 0x10, function: "0x10"))
        #expect(frame.file == nil && frame.line == nil && frame.module == nil && frame.rawSymbol == nil)
    }

    @Test("a process that does not exist cannot be symbolized")
    func missingProcess() {
        #expect(throws: SymbolizationError.self) {
            _ = try Symbolizer(processID: Int32.max)
        }
    }

    @Test("the batch form equals one lookup per address, and repeated lookups agree (cache)")
    func batchAndCache() throws {
        let symbolizer = try Symbolizer()
        let addresses = symbolicationProbeCapturingStack().addresses
        let batch = symbolizer.symbolize(addresses)
        #expect(batch.count == addresses.count)
        #expect(batch.map(\.address) == addresses)
        let fresh = try Symbolizer()
        #expect(addresses.map { fresh.symbolize($0) } == batch)
        #expect(symbolizer.symbolize(addresses) == batch)
    }
}

extension CommandLine {
    /// The path of the running test binary as the memory map shows it (symbolic links resolved).
    static var executablePathForTests: String? {
        guard let path = realpath("/proc/self/exe", nil) else { return nil }
        defer { free(path) }
        return String(cString: path)
    }
}
