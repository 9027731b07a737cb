import Foundation
import LeakGraphSymbolication
import Testing

@Suite("Inline expansion")
struct InlineExpansionTests {
    /// A Swift program whose `inlinedHelper` is inlined into `outerFunction` (`-O`, `@inline(__always)`), so the
    /// return address of the call to `captureStack` lies in `outerFunction`'s code, inside the inlined helper.
    static let swiftSource = """
        import Glibc

        typealias Backtrace = @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>, Int32) -> Int32
        let backtrace = unsafeBitCast(dlsym(dlopen(nil, RTLD_NOW), "backtrace"), to: Backtrace.self)

        @inline(never)
        func captureStack() -> [UInt] {
            var buffer = [UnsafeMutableRawPointer?](repeating: nil, count: 32)
            let count = backtrace(&buffer, 32)
            return buffer.prefix(Int(count)).map { UInt(bitPattern: $0) }
        }

        @inline(__always)
        func inlinedHelper(_ tag: Int) -> [UInt] {
            let addresses = captureStack()  // HELPER CALL
            return addresses + [UInt(tag)]
        }

        @inline(never)
        func outerFunction() -> [UInt] {
            inlinedHelper(7)  // OUTER CALL
        }

        let addresses = outerFunction().dropLast()
        print(addresses.map { String($0, radix: 16) }.joined(separator: " "))
        fflush(stdout)
        _ = readLine()
        """

    /// The same shape in C++, where the inlined function is a member of a type in a namespace, so its name
    /// comes from `DW_AT_name` qualified by its enclosing scopes (its linkage name is not a Swift name).
    static let cxxSource = """
        #include <execinfo.h>
        #include <stdio.h>

        volatile int sink;

        namespace outer {
        struct Helper {
            __attribute__((noinline)) static int capture(void **buffer) { return backtrace(buffer, 32); }
            __attribute__((always_inline)) static inline int inlinedMember(void **buffer) {
                int count = capture(buffer);  // HELPER CALL
                sink = count;
                return count;
            }
        };
        }  // namespace outer

        __attribute__((noinline)) int outerFunction(void **buffer) {
            int count = outer::Helper::inlinedMember(buffer);  // OUTER CALL
            sink = count + 1;
            return count;
        }

        int main() {
            void *buffer[32];
            int count = outerFunction(buffer);
            for (int i = 0; i < count; i++) printf(i ? " %lx" : "%lx", (unsigned long)buffer[i]);
            printf("\\n");
            fflush(stdout);
            getchar();
            return 0;
        }
        """

    @Test("a return address in Swift code inlined with -O expands to the inlined function and its caller")
    func swiftInlinedFunction() throws {
        let program = try InlinedProgram(
            fileName: "inlined.swift", source: Self.swiftSource, compiler: "swiftc", arguments: ["-g", "-O"])
        try #require(!program.addresses.isEmpty, "the child printed no addresses")
        let symbolizer = try Symbolizer(processID: program.process.processIdentifier)
        let helperLine = try program.line(containing: "HELPER CALL")
        let outerLine = try program.line(containing: "OUTER CALL")

        let address = try #require(
            program.addresses.first { symbolizer.symbolize($0).function.contains("outerFunction") },
            "no return address lies in outerFunction")
        let frames = symbolizer.symbolizeExpandingInlines(address)
        let helper = try #require(frames.firstIndex { $0.function.contains("inlinedHelper") })
        // The module is named for the executable, `program`.
        #expect(frames[helper].function == "program.inlinedHelper(Swift.Int) -> Swift.Array<Swift.UInt>")
        #expect(frames[helper].isInlined)
        #expect(frames[helper].rawSymbol?.hasPrefix("$s") == true)
        #expect(frames[helper].file == program.sourcePath)
        #expect(frames[helper].line == helperLine)
        // The caller comes next, named from the symbol table, at the line where the helper was inlined.
        let caller = try #require(frames.indices.contains(helper + 1) ? frames[helper + 1] : nil)
        #expect(caller.function == "program.outerFunction() -> Swift.Array<Swift.UInt>")
        #expect(!caller.isInlined)
        #expect(caller.file == program.sourcePath)
        #expect(caller.line == outerLine)
        #expect(caller == frames.last)
        #expect(frames.allSatisfy { $0.address == address && $0.module == caller.module })

        // Without expansion the same address reads as the caller at the helper's line.
        let plain = symbolizer.symbolize(address)
        #expect(plain.function == caller.function && plain.line == helperLine && !plain.isInlined)
    }

    @Test("an inlined C++ member function is named with its namespace and type")
    func cxxInlinedMember() throws {
        let program = try InlinedProgram(
            fileName: "inlined.cpp", source: Self.cxxSource, compiler: "clang++", arguments: ["-g", "-O2"])
        try #require(!program.addresses.isEmpty, "the child printed no addresses")
        let symbolizer = try Symbolizer(processID: program.process.processIdentifier)
        let frames = symbolizer.symbolizeExpandingInlines(program.addresses)
        let member = try #require(frames.firstIndex { $0.isInlined && $0.function.contains("inlinedMember") })
        #expect(frames[member].function == "outer::Helper::inlinedMember")
        #expect(frames[member].rawSymbol == "_ZN5outer6Helper13inlinedMemberEPPv")
        #expect(frames[member].line == (try program.line(containing: "HELPER CALL")))
        let caller = try #require(frames.indices.contains(member + 1) ? frames[member + 1] : nil)
        #expect(caller.rawSymbol == "_Z13outerFunctionPPv")
        #expect(caller.line == (try program.line(containing: "OUTER CALL")))
        #expect(!caller.isInlined)
    }

    @Test("the batch form concatenates the expansions in address order, and repeated lookups agree (cache)")
    func batchAndCache() throws {
        let program = try InlinedProgram(
            fileName: "inlined.swift", source: Self.swiftSource, compiler: "swiftc", arguments: ["-g", "-O"])
        try #require(!program.addresses.isEmpty)
        let symbolizer = try Symbolizer(processID: program.process.processIdentifier)
        let batch = symbolizer.symbolizeExpandingInlines(program.addresses)
        let oneByOne = program.addresses.flatMap { symbolizer.symbolizeExpandingInlines($0) }
        #expect(batch == oneByOne)
        #expect(batch.count > program.addresses.count)
        // Frames of one address are adjacent and follow the addresses' order; only the last of each is not inlined.
        var addressIterator = program.addresses.makeIterator()
        var expected = addressIterator.next()
        for frame in batch {
            #expect(frame.address == expected)
            if !frame.isInlined { expected = addressIterator.next() }
        }
        #expect(expected == nil)
        let fresh = try Symbolizer(processID: program.process.processIdentifier)
        #expect(fresh.symbolizeExpandingInlines(program.addresses) == batch)
    }

    /// Prints what expansion costs per address, for the notes: cold (the first lookups in a unit also index its
    /// functions' ranges), warm (indexes built, addresses not cached) and cached. It asserts only results,
    /// never times.
    @Test("expanded lookups name the same outermost functions as plain ones (cost printed)")
    func measure() throws {
        let program = try InlinedProgram(
            fileName: "inlined.swift", source: Self.swiftSource, compiler: "swiftc", arguments: ["-g", "-O"])
        try #require(!program.addresses.isEmpty)
        let clock = ContinuousClock()
        let rounds = 50
        // Uncached addresses: a little further into each function, different in every round.
        func shifted(_ round: Int) -> [UInt] { program.addresses.map { $0 + UInt(round) + 1 } }

        let plainSymbolizer = try Symbolizer(processID: program.process.processIdentifier)
        _ = plainSymbolizer.symbolize(program.addresses)  // builds the modules' indexes
        var plain: [SymbolizedFrame] = []
        let plainTime = clock.measure {
            for round in 0..<rounds { plain = plainSymbolizer.symbolize(shifted(round)) }
        }

        let symbolizer = try Symbolizer(processID: program.process.processIdentifier)
        _ = symbolizer.symbolize(program.addresses)
        var cold: [SymbolizedFrame] = []
        let coldTime = clock.measure { cold = symbolizer.symbolizeExpandingInlines(program.addresses) }
        var expanded: [SymbolizedFrame] = []
        let expandedTime = clock.measure {
            for round in 0..<rounds { expanded = symbolizer.symbolizeExpandingInlines(shifted(round)) }
        }
        var cached: [SymbolizedFrame] = []
        let cachedTime = clock.measure {
            for _ in 0..<rounds { cached = symbolizer.symbolizeExpandingInlines(shifted(rounds - 1)) }
        }
        #expect(cached == expanded)
        #expect(expanded.filter { !$0.isInlined }.map(\.function) == plain.map(\.function))
        #expect(cold.filter { !$0.isInlined }.map(\.function) == symbolizer.symbolize(program.addresses).map(\.function))
        let count = Double(program.addresses.count)
        func microseconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
        }
        print(
            """
            inline expansion cost (\(program.addresses.count) addresses in the program and libc): \
            plain warm \(microseconds(plainTime) / count / Double(rounds)) µs/address; \
            expanded cold \(microseconds(coldTime) / count) µs/address (includes indexing the units' functions), \
            warm \(microseconds(expandedTime) / count / Double(rounds)) µs/address, \
            cached \(microseconds(cachedTime) / count / Double(rounds)) µs/address
            """)
    }

    @Test("an address without inlining expands to the single frame symbolize gives")
    func noInlining() throws {
        let symbolizer = try Symbolizer()
        let addresses = symbolicationProbeCapturingStack().addresses
        for address in addresses {
            #expect(symbolizer.symbolizeExpandingInlines(address) == [symbolizer.symbolize(address)])
        }
        #expect(symbolizer.symbolizeExpandingInlines(0x10) == [.unknown(0x10)])
    }
}
