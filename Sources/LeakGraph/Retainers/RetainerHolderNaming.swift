import FoundationEssentials
import LeakGraphReport
import LeakGraphSymbolication

/// Names the memory a holding word lies in, from `/proc/self/maps` and the modules' symbol tables: a
/// global or static variable (its symbol, demangled), a thread's stack, or memory no metadata
/// describes.
///
/// A thread's stack is recognised the way glibc lays it out: an anonymous mapping right above an
/// inaccessible guard mapping (the main thread's is `[stack]`).
struct RetainerHolderNaming {
    /// One line of `/proc/self/maps`.
    private struct Mapping {
        var range: Range<UInt>
        var permissions: Substring
        var path: Substring
    }

    private let mappings: [Mapping]
    private let symbolizer: Symbolizer?

    init() {
        var mappings: [Mapping] = []
        if let text = FileManager.default.contents(atPath: "/proc/self/maps").flatMap({
            String(data: $0, encoding: .utf8)
        })
            ?? (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8))
        {
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
                guard fields.count >= 5 else { continue }
                let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
                guard bounds.count == 2, bounds[0] < bounds[1] else { continue }
                let path = fields.count == 6 ? fields[5].drop { $0 == " " } : ""
                mappings.append(Mapping(range: bounds[0]..<bounds[1], permissions: fields[1], path: path))
            }
        }
        self.mappings = mappings
        self.symbolizer = try? Symbolizer()
    }

    /// The holder of a word at `address` (0: none found).
    func holder(at address: UInt) -> RetainerChain.Holder {
        guard address != 0 else { return RetainerChain.Holder(kind: .unknown) }
        let hex = "0x" + String(address, radix: 16)
        guard let index = mappings.firstIndex(where: { $0.range.contains(address) }) else {
            return RetainerChain.Holder(kind: .untrackedMemory, address: hex)
        }
        let mapping = mappings[index]
        if mapping.path == "[stack]" {
            return RetainerChain.Holder(kind: .stack, location: "the main thread", address: hex)
        }
        // A module's data: its file-backed pages, or the anonymous pages of its .bss past the file's
        // end — the module's symbol table knows both.
        let frame = symbolizer?.symbolize(address, as: .instructionAddress)
        let symbol = frame.flatMap { $0.function.hasPrefix("0x") ? nil : $0.function }
        let module = frame?.module.map { URL(fileURLWithPath: $0).lastPathComponent }
        if mapping.path.hasPrefix("/") || symbol != nil {
            let location =
                mapping.path.hasPrefix("/") ? URL(fileURLWithPath: String(mapping.path)).lastPathComponent : module
            return RetainerChain.Holder(kind: .global, name: symbol, location: location, address: hex)
        }
        // Anonymous pages right after a module's last file-backed mapping: its .bss.
        if mapping.path.isEmpty, index > 0, mappings[index - 1].path.hasPrefix("/"),
            mappings[index - 1].range.upperBound == mapping.range.lowerBound
        {
            let previous = mappings[index - 1]
            let name = symbolizer?.dataSymbolName(at: address, inModuleContaining: previous.range.upperBound - 1)
            return RetainerChain.Holder(
                kind: .global, name: name, location: URL(fileURLWithPath: String(previous.path)).lastPathComponent,
                address: hex)
        }
        if mapping.path.isEmpty, index > 0, mappings[index - 1].range.upperBound == mapping.range.lowerBound,
            mappings[index - 1].permissions.hasPrefix("---")
        {
            return RetainerChain.Holder(kind: .stack, location: "a thread", address: hex)
        }
        return RetainerChain.Holder(
            kind: .untrackedMemory, location: mapping.path.isEmpty ? nil : String(mapping.path), address: hex)
    }
}
