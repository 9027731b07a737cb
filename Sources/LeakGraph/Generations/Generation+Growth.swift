import FoundationEssentials
import LeakGraphHeap
import LeakGraphRecording
import LeakGraphReport
import LeakGraphSymbolication

extension Generation {
    /// The tracked objects allocated since this mark that are alive now, grouped by type and creation
    /// site (the first frame of the program's own code), most bytes first, at most `limit` groups.
    ///
    /// The heap is frozen while the live objects are walked for their types; creation sites are
    /// symbolized afterwards with libdw.
    public func growth(limit: Int = 50) -> GenerationGrowth {
        struct Key: Hashable {
            var type: String
            var stack: UInt32
        }
        let now = Date()
        let groups = Recorder.ignoringCurrentThread { () -> [Key: (count: Int, bytes: Int)] in
            Recorder.withFrozenObjects { objects in
                let record = { (position: Int) in
                    Recorder.frozenRecord(at: objects[position]).map(HeapObjectRecord.init)
                        ?? HeapObjectRecord(address: objects[position], metadata: 0, size: 0)
                }
                let scan = HeapWalker().scan(addresses: objects, record: record)
                var groups: [Key: (count: Int, bytes: Int)] = [:]
                for node in 0..<scan.liveObjects {
                    let address = objects[scan.recordPosition(ofNode: node)]
                    guard let allocation = Recorder.frozenRecord(at: address) else { continue }
                    guard !contains(address: address, stack: allocation.stack_id) else { continue }
                    let key = Key(type: scan.typeName(ofNode: node), stack: allocation.stack_id)
                    groups[key, default: (0, 0)].count += 1
                    groups[key, default: (0, 0)].bytes += Int(allocation.size)
                }
                return groups
            }
        }
        // Objects made at one place can have several stacks (an unrolled loop, inlining): rows are
        // merged by type and creation site once the stacks are symbolized.
        let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let symbolizer = try? Symbolizer()
        var sites: [UInt32: ReportNaming.CreationSite?] = [:]
        var merged: [GenerationGrowth.Row] = []
        var rowOf: [String: Int] = [:]
        for (key, value) in groups {
            if sites[key.stack] == nil {
                var site: ReportNaming.CreationSite?
                if key.stack != AllocationRecord.noStack, let symbolizer {
                    let frames = FramePolicy.userFramesFirst(
                        symbolizer.symbolizeExpandingInlines(Recorder.stack(key.stack)), executablePath: executable)
                    site = ReportNaming.creationSite(
                        frames.map { LeakReport.Frame(function: $0.function, file: $0.file, line: $0.line) })
                }
                sites[key.stack] = .some(site)
            }
            let site = sites[key.stack] ?? nil
            let identity = "\(key.type)\u{0}\(site?.place ?? "")\u{0}\(site?.function ?? "")"
            if let row = rowOf[identity] {
                merged[row].count += value.count
                merged[row].bytes += value.bytes
            } else {
                rowOf[identity] = merged.count
                merged.append(
                    GenerationGrowth.Row(
                        type: key.type, site: site?.place, function: site?.function, count: value.count,
                        bytes: value.bytes))
            }
        }
        merged.sort { ($0.bytes, $1.type) > ($1.bytes, $0.type) }
        let rows = merged.prefix(limit)
        return GenerationGrowth(
            since: date, until: now, objects: groups.values.reduce(0) { $0 + $1.count },
            bytes: groups.values.reduce(0) { $0 + $1.bytes }, rows: Array(rows), groups: merged.count)
    }
}
