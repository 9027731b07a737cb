import LeakGraphModel

/// Schema version 2 writes each distinct creation backtrace once, in a top-level `stacks` table, and
/// each leak names its backtrace by index (`stack`) — a ring of 100,000 objects made at one line carries
/// one backtrace, not 100,000 copies. Version 1 reports (a `backtrace` per leak) are still read. In memory
/// every ``LeakReport/Leak`` keeps its ``LeakReport/Leak/backtrace``; only the file form differs.
extension LeakReport {
    /// One leak as version 2 writes it: the leak's own fields, with `stack` in place of its backtrace.
    private struct StoredLeak: Codable {
        /// The leak, its backtrace empty until resolved from the stack table.
        var leak: Leak
        /// The index of its backtrace in the stack table, or `nil` for none.
        var stack: Int?

        init(_ leak: Leak, stack: Int?) {
            self.leak = leak
            self.stack = stack
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Leak.CodingKeys.self)
            leak = try Leak(fieldsOf: container, backtrace: [])
            stack = try container.decodeIfPresent(Int.self, forKey: .stack)
        }

        /// Writes `stack` as `null` when absent (the schema's "Int or null").
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Leak.CodingKeys.self)
            try leak.encodeFields(into: &container)
            try container.encode(stack, forKey: .stack)
        }

        func leak(stacks: [[Frame]], codingPath: [any CodingKey]) throws -> Leak {
            guard let stack else { return leak }
            guard stacks.indices.contains(stack) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: codingPath,
                        debugDescription: "leak \(leak.id) names stack \(stack), which the stacks table lacks"))
            }
            var resolved = leak
            resolved.backtrace = stacks[stack]
            return resolved
        }
    }

    /// Reads a report of schema version 1 (a backtrace per leak) or 2 (a stack table).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .schemaVersion)
        let leaks: [Leak]
        if version >= 2 {
            let stacks = try container.decode([[Frame]].self, forKey: .stacks)
            let stored = try container.decode([StoredLeak].self, forKey: .leaks)
            leaks = try stored.map {
                try $0.leak(stacks: stacks, codingPath: container.codingPath + [CodingKeys.leaks])
            }
        } else {
            leaks = try container.decode([Leak].self, forKey: .leaks)
        }
        self.init(
            schemaVersion: version, program: try container.decode(Program.self, forKey: .program),
            summary: try container.decode(Summary.self, forKey: .summary), leaks: leaks,
            references: try container.decode([LeakReference].self, forKey: .references),
            cycles: try container.decode([Cycle].self, forKey: .cycles),
            diagnostics: try container.decodeIfPresent([WalkDiagnostic].self, forKey: .diagnostics) ?? [])
        liveTypes = try container.decodeIfPresent([TypeTally].self, forKey: .liveTypes)
        why = try container.decodeIfPresent([RetainerQuery].self, forKey: .why)
        crash = try container.decodeIfPresent(Crash.self, forKey: .crash)
        allocations = try container.decodeIfPresent(AllocationProfile.self, forKey: .allocations)
        testAllocations = try container.decodeIfPresent([TestAllocations].self, forKey: .testAllocations)
    }

    /// Writes the report in the form of its ``schemaVersion``: 2 and later with the stack table, 1 with a
    /// backtrace per leak.
    ///
    /// - Complexity: O(size of the report); each distinct backtrace is hashed once per leak that has it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(program, forKey: .program)
        try container.encode(summary, forKey: .summary)
        if schemaVersion >= 2 {
            var stacks: [[Frame]] = []
            var stackIndex: [[Frame]: Int] = [:]
            var stored: [StoredLeak] = []
            stored.reserveCapacity(leaks.count)
            for leak in leaks {
                var stack: Int?
                if !leak.backtrace.isEmpty {
                    if let known = stackIndex[leak.backtrace] {
                        stack = known
                    } else {
                        stack = stacks.count
                        stackIndex[leak.backtrace] = stacks.count
                        stacks.append(leak.backtrace)
                    }
                }
                stored.append(StoredLeak(leak, stack: stack))
            }
            try container.encode(stored, forKey: .leaks)
            try container.encode(stacks, forKey: .stacks)
        } else {
            try container.encode(leaks, forKey: .leaks)
        }
        try container.encode(references, forKey: .references)
        try container.encode(cycles, forKey: .cycles)
        try container.encode(diagnostics, forKey: .diagnostics)
        try container.encodeIfPresent(liveTypes, forKey: .liveTypes)
        try container.encodeIfPresent(why, forKey: .why)
        try container.encodeIfPresent(crash, forKey: .crash)
        try container.encodeIfPresent(allocations, forKey: .allocations)
        try container.encodeIfPresent(testAllocations, forKey: .testAllocations)
        try container.encode(verdict.rawValue, forKey: .verdict)
    }
}
