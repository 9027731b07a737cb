import Foundation
import LeakGraphSymbolication
import Testing

/// Prints the cost of symbolization (setup, first lookups, warm lookups, cached lookups) for the notes.
/// It asserts only results, never times.
@Suite("Symbolizer cost")
struct SymbolizerMeasurementTests {
    @Test("setup, cold, warm and cached lookups resolve the same functions")
    func measure() throws {
        let clock = ContinuousClock()
        let stack = symbolicationProbeCapturingStack().addresses
        var symbolizer: Symbolizer?
        let setup = try clock.measure { symbolizer = try Symbolizer() }
        let symbolizerInstance = try #require(symbolizer)
        var cold: [SymbolizedFrame] = []
        let coldTime = clock.measure { cold = symbolizerInstance.symbolize(stack) }
        // Uncached addresses in modules already indexed: one byte further into each calling function.
        let shifted = stack.map { $0 + 1 }
        var warm: [SymbolizedFrame] = []
        let warmTime = clock.measure { warm = symbolizerInstance.symbolize(shifted) }
        var cached: [SymbolizedFrame] = []
        let rounds = 1_000
        let cachedTime = clock.measure {
            for _ in 0..<rounds { cached = symbolizerInstance.symbolize(stack) }
        }
        #expect(cached == cold)
        #expect(zip(cold, warm).allSatisfy { $0.function == $1.function })
        let count = Double(stack.count)
        func microseconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
        }
        print(
            """
            symbolization cost: setup \(microseconds(setup)) µs; \(stack.count) frames: \
            cold \(microseconds(coldTime) / count) µs/address (includes building compile-unit indexes), \
            warm \(microseconds(warmTime) / count) µs/address, \
            cached \(microseconds(cachedTime) / count / Double(rounds)) µs/address
            """)
        for frame in cold {
            let location = "\(frame.file ?? "?"):\(frame.line.map(String.init) ?? "?")"
            print("  \(frame.function) — \(location) in \(frame.module ?? "?")")
        }
    }
}
