import LeakGraphModel

// The JSON report's keys, spelled once. Each type's `Codable` conformance (synthesized, or written out
// where the form needs it) and the report's own JSON writer (LeakReport+JSONWriter.swift, through
// `JSONText.key(_:)`) both take a member's name from the type's `CodingKeys`: a key renamed here is
// renamed in both. A new stored field is a new case here (synthesis silently skips an optional field
// without a case) and a line in the writer; the tests hold the writer to `JSONEncoder`'s output.
//
// The keys of the model's types the report embeds (`WalkDiagnostic`, `TypeTally`, `RootHolder`,
// `PathStep`, `DictionaryKey`) are beside those types in LeakGraphModel, visible to this package.

extension LeakReport {
    /// The report's top-level keys, in both schema versions (`stacks` in version 2 only).
    enum CodingKeys: String, CodingKey {
        case schemaVersion, program, summary, leaks, references, cycles, diagnostics, stacks, liveTypes, why
        case verdict, crash, allocations, testAllocations
    }
}

extension LeakReport.Program {
    enum CodingKeys: String, CodingKey {
        case path, arguments, exitStatus, signal, running
    }
}

extension LeakReport.Summary {
    enum CodingKeys: String, CodingKey {
        case trackedObjects, liveObjects, leakedObjects, leakedBytes, rootCycles
    }
}

extension LeakReport.Leak {
    /// A leak's keys in either schema version: version 1 writes `backtrace`, version 2 `stack`.
    enum CodingKeys: String, CodingKey {
        case id, address, type, kind, size, retainCount, cycle, backtrace, stack, proof
    }
}

extension LeakReport.Proof {
    enum CodingKeys: String, CodingKey {
        case retainCount, inEdges
    }
}

extension LeakReport.Frame {
    enum CodingKeys: String, CodingKey {
        case function, file, line
    }
}

extension LeakReport.LeakReference {
    /// `label` is written beside `path` for readers of the text; a report without `path` is read from it.
    enum CodingKeys: String, CodingKey {
        case from, to, label, path, ownership, storeSite
    }
}

extension LeakReport.Cycle {
    enum CodingKeys: String, CodingKey {
        case id, members, holds, heldCycles, fingerprint, suspect, otherCuts, knownLibraryLeak
        case heldByKnownLibraryLeak, run, tests, kind, suppressed
    }
}

extension LeakReport.Cycle.Suppression {
    enum CodingKeys: String, CodingKey {
        case baseline, entry, line, reason
    }
}

extension LeakReport.Suspect {
    enum CodingKeys: String, CodingKey {
        case reference, from, to, label, reason, hint
    }
}

extension LeakReport.Crash {
    enum CodingKeys: String, CodingKey {
        case signal, faultAddress, frames, allocations, liveObjects
    }
}

extension LeakReport.StoreSite {
    enum CodingKeys: String, CodingKey {
        case known, site, candidates, reason
    }
}

extension LeakReport.StoreSiteRetain {
    enum CodingKeys: String, CodingKey {
        case frame, evidence, stack
    }
}

extension RetainerQuery {
    enum CodingKeys: String, CodingKey {
        case type, matched, leaked, chains, matchedTypes
    }
}

extension RetainerChain {
    enum CodingKeys: String, CodingKey {
        case links, holder, unexplainedRetains
    }
}

extension RetainerChain.Link {
    /// `label` is written beside `path` for readers of the text; a chain without `path` is read from it.
    enum CodingKeys: String, CodingKey {
        case type, address, retainCount, label, path
    }
}

extension AllocationProfile {
    enum CodingKeys: String, CodingKey {
        case objects, bytes, aliveObjects, aliveBytes, sites, excludedObjects, excludedBytes
    }
}

extension AllocationProfile.Site {
    enum CodingKeys: String, CodingKey {
        case type, function, file, line, objects, bytes, aliveObjects, aliveBytes
    }
}

extension TestAllocations {
    enum CodingKeys: String, CodingKey {
        case test, run, allocations
    }
}
