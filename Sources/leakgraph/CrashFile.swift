import CLeakGraphContract
import Foundation
import LeakGraphReport
import LeakGraphSymbolication

/// What the preload library's crash handler wrote when the program crashed (`<report>` +
/// `LG_REPORT_CRASH_SUFFIX`, format in `CLeakGraphContract.h`), read back and turned into the
/// report `leakgraph run` publishes: no leaks, the crash with its symbolized frames.
struct CrashFile: Equatable {
    /// The signal's number.
    var signal: Int32
    /// The fault address of a SIGSEGV or SIGBUS.
    var faultAddress: UInt?
    /// The program counter when it crashed.
    var programCounter: UInt?
    /// The faulting thread's return addresses, innermost first.
    var returnAddresses: [UInt] = []
    /// Swift objects recorded since the start.
    var allocations = 0
    /// Of those, the objects alive at the crash.
    var records = 0
    /// The process's `/proc/self/maps` at the crash.
    var memoryMap = ""

    /// Parses the file's text; `nil` when it has no `signal` line (not a crash file).
    init?(text: String) {
        var signal: Int32?
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let line = lines.popFirst() {
            if line == "maps" {
                memoryMap = lines.joined(separator: "\n")
                break
            }
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            let hex = UInt(parts[1].hasPrefix("0x") ? String(parts[1].dropFirst(2)) : parts[1], radix: 16)
            switch parts[0] {
            case "signal": signal = Int32(parts[1])
            case "address": faultAddress = hex
            case "pc": programCounter = hex
            case "frame": if let hex { returnAddresses.append(hex) }
            case "allocations": allocations = Int(parts[1]) ?? 0
            case "records": records = Int(parts[1]) ?? 0
            default: continue
            }
        }
        guard let signal else { return nil }
        self.signal = signal
    }

    /// The crash file beside `workspace`'s report, if the program crashed and its handler wrote one.
    static func read(in workspace: ReportWorkspace) -> CrashFile? {
        guard let data = FileManager.default.contents(atPath: workspace.reportPath + LG_REPORT_CRASH_SUFFIX) else {
            return nil
        }
        return CrashFile(text: String(decoding: data, as: UTF8.self))
    }

    /// The report of the crash for `program`, its frames symbolized from the saved memory map (raw
    /// addresses when the map cannot be read).
    func report(program: LeakReport.Program) -> LeakReport {
        let symbolizer = try? Symbolizer(memoryMap: memoryMap, processID: 0)
        var frames: [LeakReport.Frame] = []
        func frame(_ symbolized: SymbolizedFrame?, _ address: UInt) -> LeakReport.Frame {
            guard let symbolized else {
                return LeakReport.Frame(function: "0x" + String(address, radix: 16), file: nil, line: nil)
            }
            return LeakReport.Frame(function: symbolized.function, file: symbolized.file, line: symbolized.line)
        }
        if let programCounter {
            frames.append(frame(symbolizer?.symbolize(programCounter, as: .instructionAddress), programCounter))
        }
        for address in returnAddresses {
            frames.append(frame(symbolizer?.symbolize(address), address))
        }
        let crash = LeakReport.Crash(
            signal: SignalDescription.name(of: signal), faultAddress: faultAddress.map { "0x" + String($0, radix: 16) },
            frames: frames, allocations: allocations, liveObjects: records)
        return LeakReport(crashedProgram: program, crash: crash)
    }
}
