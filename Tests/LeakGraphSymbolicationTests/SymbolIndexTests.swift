import CLibDW
import Foundation
import Testing

@testable import LeakGraphSymbolication

/// The sorted symbol index must name the same symbols as `dwfl_module_addrname`, which it replaces.
@Suite("Symbol index")
struct SymbolIndexTests {
    /// A libdwfl session over this process, ended by `close()`.
    private final class Session {
        let callbacks = UnsafeMutablePointer<Dwfl_Callbacks>.allocate(capacity: 1)
        let dwfl: OpaquePointer

        init() throws {
            callbacks.initialize(
                to: Dwfl_Callbacks(
                    find_elf: dwfl_linux_proc_find_elf, find_debuginfo: dwfl_standard_find_debuginfo,
                    section_address: nil, debuginfo_path: nil))
            dwfl = try #require(dwfl_begin(callbacks))
            dwfl_report_begin(dwfl)
            try #require(dwfl_linux_proc_report(dwfl, getpid()) == 0)
            try #require(dwfl_report_end(dwfl, nil, nil) == 0)
        }

        deinit {
            dwfl_end(dwfl)
            callbacks.deallocate()
        }
    }

    @Test("for sampled function addresses in libswiftCore, libc and this binary, it agrees with dwfl_module_addrname")
    func agreesWithLibdwfl() throws {
        let session = try Session()
        let anchors: [UInt] = [
            UInt(bitPattern: dlsym(dlopen(nil, RTLD_NOW), "swift_retain")),
            UInt(bitPattern: dlsym(dlopen(nil, RTLD_NOW), "qsort")),
            symbolicationProbeCapturingStack().addresses[1],
        ]
        for anchor in anchors {
            let module = try #require(dwfl_addrmodule(session.dwfl, Dwarf_Addr(anchor)))
            let index = SymbolIndex(module: module)
            #expect(index.count > 100)
            var compared = 0
            var mismatches: [String] = []
            let total = dwfl_module_getsymtab(module)
            for symbolIndex in stride(from: 0, to: total, by: 31) {
                var symbol = GElf_Sym()
                var address: GElf_Addr = 0
                guard dwfl_module_getsym_info(module, symbolIndex, &symbol, &address, nil, nil, nil) != nil,
                    symbol.st_size > 0, symbol.st_info & 0xf == UInt8(STT_FUNC)
                else { continue }
                for probe in [address, address + symbol.st_size / 2, address + symbol.st_size - 1] {
                    let expected = dwfl_module_addrname(module, probe).map { String(cString: $0) }
                    let found = index.name(covering: probe).map { String(cString: $0) }
                    compared += 1
                    if expected != found {
                        mismatches.append("\(String(probe, radix: 16)): \(expected ?? "nil") vs \(found ?? "nil")")
                    }
                }
            }
            #expect(compared > 100)
            #expect(mismatches.isEmpty, "\(mismatches.count) of \(compared): \(mismatches.prefix(10))")
        }
    }
}
