import LeakGraphModel

/// The JSON writer behind ``LeakReport/jsonData(prettyPrinted:)``: the report's fields written straight
/// into UTF-8 bytes, each object's keys in byte order, without the `Encoder` machinery.
///
/// It writes the same document as the `Codable` conformance (`encode(to:)` with `.sortedKeys` and
/// `.withoutEscapingSlashes`), which stays for reports encoded inside other values: the same keys,
/// each object's keys in byte order, `null` for an absent leak `cycle` or `stack` and a frame's unknown
/// `file` or `line`, absent optional fields (`proof`, a cycle's `heldCycles`, `fingerprint`, `suspect`, `otherCuts`,
/// `knownLibraryLeak`, `heldByKnownLibraryLeak`, `kind`, `run`, `suppressed` and `tests`, a suppression's `line` and `reason`,
/// a suspect's `reference`, a dictionary step's `key`, the report's `liveTypes`, `why`, `allocations` and `testAllocations`, a test's `run`, an allocation
/// site's `function`, `file` and `line`, a retainer link's `label` and `path`, a query's `matchedTypes`,
/// a holder's `name`, `location` and `address`) left out. Schema version 2
/// and later write the `stacks` table; version 1 a `backtrace` per leak. The tests hold it to
/// `JSONEncoder`'s output, document for document.
extension LeakReport {
    /// The report as JSON UTF-8 bytes.
    /// - Complexity: O(size of the report); each leak's backtrace is hashed at most once, and not at all
    ///   when it shares storage with the previous leak's.
    func jsonBytes(prettyPrinted: Bool) -> [UInt8] {
        typealias Key = LeakReport.CodingKeys
        typealias TallyKey = TypeTally.CodingKeys
        let stackTable = schemaVersion >= 2 ? StackTable(leaks) : nil
        var json = JSONText(prettyPrinted: prettyPrinted, capacity: estimatedJSONSize(prettyPrinted: prettyPrinted))
        json.openObject()
        if let allocations {
            json.key(Key.allocations)
            json.write(allocations)
        }
        if let crash {
            json.key(Key.crash)
            json.write(crash)
        }
        json.array(Key.cycles, cycles) { $0.write($1) }
        json.array(Key.diagnostics, diagnostics) { $0.write($1) }
        json.key(Key.leaks)
        json.openArray()
        for (position, leak) in leaks.enumerated() {
            json.element()
            json.write(leak, backtrace: stackTable.map { .stack($0.stackOfLeak[position]) } ?? .inline)
        }
        json.closeArray()
        if let liveTypes {
            json.key(Key.liveTypes)
            json.openArray()
            for row in liveTypes {
                json.element()
                json.openObject()
                json.key(TallyKey.bytes)
                json.integer(row.bytes)
                json.key(TallyKey.count)
                json.integer(row.count)
                json.key(TallyKey.type)
                json.string(row.type)
                json.closeObject()
            }
            json.closeArray()
        }
        json.key(Key.program)
        json.write(program)
        json.array(Key.references, references) { $0.write($1) }
        json.key(Key.schemaVersion)
        json.integer(schemaVersion)
        if let stackTable {
            json.array(Key.stacks, stackTable.stacks) { $0.write($1) }
        }
        json.key(Key.summary)
        json.write(summary)
        if let testAllocations {
            json.array(Key.testAllocations, testAllocations) { $0.write($1) }
        }
        json.key(Key.verdict)
        json.string(verdict.rawValue)
        if let why {
            json.array(Key.why, why) { $0.write($1) }
        }
        json.closeObject()
        return json.bytes
    }

    /// A generous guess of the document's size, so the buffer rarely grows.
    private func estimatedJSONSize(prettyPrinted: Bool) -> Int {
        let scale = prettyPrinted ? 2 : 1
        let perLeak = schemaVersion >= 2 ? 180 : 180 + 100 * (leaks.first?.backtrace.count ?? 0)
        let cycleIDs = cycles.reduce(0) { $0 + $1.members.count + $1.holds.count }
        return 4096 + scale * (leaks.count * perLeak + references.count * 150 + cycles.count * 200 + cycleIDs * 8)
    }

    /// The distinct backtraces of version 2's `stacks` table, numbered in order of first appearance, and
    /// each leak's index into it (`nil` for an empty backtrace) — the numbering `encode(to:)` gives.
    private struct StackTable {
        /// The distinct non-empty backtraces, in order of first appearance.
        var stacks: [[Frame]] = []
        /// For each leak, in order, its backtrace's index in ``stacks``.
        var stackOfLeak: [Int?] = []

        /// Numbers the backtraces of `leaks` in order of first appearance.
        init(_ leaks: [Leak]) {
            var index: [[Frame]: Int] = [:]
            stackOfLeak.reserveCapacity(leaks.count)
            // Leaks made at one site share one array; `==` on arrays sharing storage compares no frames.
            var previous: (backtrace: [Frame], stack: Int)?
            for leak in leaks {
                let backtrace = leak.backtrace
                guard !backtrace.isEmpty else {
                    stackOfLeak.append(nil)
                    continue
                }
                if let previous, previous.backtrace == backtrace {
                    stackOfLeak.append(previous.stack)
                    continue
                }
                let stack: Int
                if let known = index[backtrace] {
                    stack = known
                } else {
                    stack = stacks.count
                    index[backtrace] = stack
                    stacks.append(backtrace)
                }
                stackOfLeak.append(stack)
                previous = (backtrace, stack)
            }
        }
    }
}

/// How a leak's creation backtrace is written.
private enum BacktraceForm {
    /// Version 1: the frames themselves, as `backtrace`.
    case inline
    /// Version 2: `stack`, the index of the frames in the `stacks` table, or `null` for no frames.
    case stack(Int?)
}

extension JSONText {
    /// Writes a leak, its backtrace in the given form.
    fileprivate mutating func write(_ leak: LeakReport.Leak, backtrace form: BacktraceForm) {
        typealias Key = LeakReport.Leak.CodingKeys
        typealias ProofKey = LeakReport.Proof.CodingKeys
        openObject()
        key(Key.address)
        string(leak.address)
        if case .inline = form {
            key(Key.backtrace)
            write(leak.backtrace)
        }
        key(Key.cycle)
        integer(leak.cycle)
        key(Key.id)
        integer(leak.id)
        key(Key.kind)
        string(leak.kind)
        if let proof = leak.proof {
            key(Key.proof)
            openObject()
            key(ProofKey.inEdges)
            write(proof.inEdges)
            key(ProofKey.retainCount)
            integer(proof.retainCount)
            closeObject()
        }
        key(Key.retainCount)
        integer(leak.retainCount)
        key(Key.size)
        integer(leak.size)
        if case .stack(let stack) = form {
            key(Key.stack)
            integer(stack)
        }
        key(Key.type)
        string(leak.type)
        closeObject()
    }

    /// Writes a backtrace: an array of frames, unknown `file` and `line` as `null`.
    fileprivate mutating func write(_ backtrace: [LeakReport.Frame]) {
        typealias Key = LeakReport.Frame.CodingKeys
        openArray()
        for frame in backtrace {
            element()
            openObject()
            key(Key.file)
            string(frame.file)
            key(Key.function)
            string(frame.function)
            key(Key.line)
            integer(frame.line)
            closeObject()
        }
        closeArray()
    }

    /// Writes an array of integers.
    fileprivate mutating func write(_ numbers: [Int]) {
        openArray()
        for number in numbers {
            element()
            integer(number)
        }
        closeArray()
    }

    /// Writes a root cycle; absent optional fields are left out, as the synthesized encoding does.
    fileprivate mutating func write(_ cycle: LeakReport.Cycle) {
        typealias Key = LeakReport.Cycle.CodingKeys
        openObject()
        if let fingerprint = cycle.fingerprint {
            key(Key.fingerprint)
            string(fingerprint)
        }
        if let holder = cycle.heldByKnownLibraryLeak {
            key(Key.heldByKnownLibraryLeak)
            integer(holder)
        }
        if let heldCycles = cycle.heldCycles {
            array(Key.heldCycles, heldCycles) { $0.write($1) }
        }
        key(Key.holds)
        write(cycle.holds)
        key(Key.id)
        integer(cycle.id)
        if let kind = cycle.kind {
            key(Key.kind)
            string(kind)
        }
        if let knownLibraryLeak = cycle.knownLibraryLeak {
            key(Key.knownLibraryLeak)
            string(knownLibraryLeak)
        }
        key(Key.members)
        write(cycle.members)
        if let otherCuts = cycle.otherCuts {
            array(Key.otherCuts, otherCuts) { $0.write($1) }
        }
        if let run = cycle.run {
            key(Key.run)
            string(run)
        }
        if let suppressed = cycle.suppressed {
            key(Key.suppressed)
            write(suppressed)
        }
        if let suspect = cycle.suspect {
            key(Key.suspect)
            write(suspect)
        }
        if let tests = cycle.tests {
            key(Key.tests)
            openArray()
            for test in tests {
                element()
                string(test)
            }
            closeArray()
        }
        closeObject()
    }

    /// Writes how a baseline accepted a cycle; absent `line` and `reason` are left out.
    fileprivate mutating func write(_ suppression: LeakReport.Cycle.Suppression) {
        typealias Key = LeakReport.Cycle.Suppression.CodingKeys
        openObject()
        key(Key.baseline)
        string(suppression.baseline)
        key(Key.entry)
        string(suppression.entry)
        if let line = suppression.line {
            key(Key.line)
            integer(line)
        }
        if let reason = suppression.reason {
            key(Key.reason)
            string(reason)
        }
        closeObject()
    }

    /// Writes a suspect (or another cut) reference.
    fileprivate mutating func write(_ suspect: LeakReport.Suspect) {
        typealias Key = LeakReport.Suspect.CodingKeys
        openObject()
        key(Key.from)
        integer(suspect.from)
        key(Key.hint)
        string(suspect.hint)
        key(Key.label)
        string(suspect.label)
        key(Key.reason)
        string(suspect.reason)
        if let reference = suspect.reference {
            key(Key.reference)
            integer(reference)
        }
        key(Key.to)
        integer(suspect.to)
        closeObject()
    }

    /// Writes a walk diagnostic.
    fileprivate mutating func write(_ diagnostic: WalkDiagnostic) {
        typealias Key = WalkDiagnostic.CodingKeys
        openObject()
        key(Key.objectCount)
        integer(diagnostic.objectCount)
        key(Key.reason)
        string(diagnostic.reason)
        if let site = diagnostic.site {
            key(Key.site)
            string(site)
        }
        key(Key.typeName)
        string(diagnostic.typeName)
        closeObject()
    }

    /// Writes the program description.
    fileprivate mutating func write(_ program: LeakReport.Program) {
        typealias Key = LeakReport.Program.CodingKeys
        openObject()
        key(Key.arguments)
        openArray()
        for argument in program.arguments {
            element()
            string(argument)
        }
        closeArray()
        key(Key.exitStatus)
        integer(program.exitStatus)
        key(Key.path)
        string(program.path)
        if let running = program.running {
            key(Key.running)
            boolean(running)
        }
        if let signal = program.signal {
            key(Key.signal)
            string(signal)
        }
        closeObject()
    }

    /// Writes what a crashed program left, keys in byte order, an absent `faultAddress` left out.
    fileprivate mutating func write(_ crash: LeakReport.Crash) {
        typealias Key = LeakReport.Crash.CodingKeys
        openObject()
        key(Key.allocations)
        integer(crash.allocations)
        if let faultAddress = crash.faultAddress {
            key(Key.faultAddress)
            string(faultAddress)
        }
        key(Key.frames)
        write(crash.frames)
        key(Key.liveObjects)
        integer(crash.liveObjects)
        key(Key.signal)
        string(crash.signal)
        closeObject()
    }

    /// Writes the totals.
    fileprivate mutating func write(_ summary: LeakReport.Summary) {
        typealias Key = LeakReport.Summary.CodingKeys
        openObject()
        key(Key.leakedBytes)
        integer(summary.leakedBytes)
        key(Key.leakedObjects)
        integer(summary.leakedObjects)
        key(Key.liveObjects)
        integer(summary.liveObjects)
        key(Key.rootCycles)
        integer(summary.rootCycles)
        key(Key.trackedObjects)
        integer(summary.trackedObjects)
        closeObject()
    }

    /// Writes a reference with both its `label` (the path's text) and its `path` (the steps).
    fileprivate mutating func write(_ reference: LeakReport.LeakReference) {
        typealias Key = LeakReport.LeakReference.CodingKeys
        openObject()
        key(Key.from)
        integer(reference.from)
        key(Key.label)
        string(reference.label)
        key(Key.ownership)
        string(reference.ownership.rawValue)
        array(Key.path, reference.path.steps) { $0.write($1) }
        if let storeSite = reference.storeSite {
            key(Key.storeSite)
            write(storeSite)
        }
        key(Key.to)
        integer(reference.to)
        closeObject()
    }

    /// Writes a reference's store site (``LeakReport/StoreSite``), absent fields left out.
    fileprivate mutating func write(_ storeSite: LeakReport.StoreSite) {
        typealias Key = LeakReport.StoreSite.CodingKeys
        openObject()
        if let candidates = storeSite.candidates {
            array(Key.candidates, candidates) { $0.write($1) }
        }
        key(Key.known)
        boolean(storeSite.known)
        if let reason = storeSite.reason {
            key(Key.reason)
            string(reason)
        }
        if let site = storeSite.site {
            key(Key.site)
            write(site)
        }
        closeObject()
    }

    fileprivate mutating func write(_ retain: LeakReport.StoreSiteRetain) {
        typealias Key = LeakReport.StoreSiteRetain.CodingKeys
        typealias FrameKey = LeakReport.Frame.CodingKeys
        openObject()
        key(Key.evidence)
        string(retain.evidence)
        if let frame = retain.frame {
            key(Key.frame)
            openObject()
            key(FrameKey.file)
            string(frame.file)
            key(FrameKey.function)
            string(frame.function)
            key(FrameKey.line)
            integer(frame.line)
            closeObject()
        }
        key(Key.stack)
        write(retain.stack)
        closeObject()
    }

    /// Writes one path step as `{"kind": …}` plus that kind's fields, keys in byte order; the kind is
    /// ``PathStep/jsonKind``, spelled where the `Codable` form is.
    fileprivate mutating func write(_ step: PathStep) {
        typealias Key = PathStep.CodingKeys
        openObject()
        switch step {
        case .property(let name): kindAndName(step.jsonKind, name)
        case .tupleElement(let name): kindAndName(step.jsonKind, name)
        case .enumCase(let name): kindAndName(step.jsonKind, name)
        case .optionalPayload: kind(step.jsonKind)
        case .indirectPayload: kind(step.jsonKind)
        case .existentialValue(let type):
            kind(step.jsonKind)
            key(Key.type)
            string(type)
        case .existentialBox(let existential, let type):
            key(Key.existential)
            string(existential)
            kind(step.jsonKind)
            key(Key.type)
            string(type)
        case .element(let index): indexAndKind(index, step.jsonKind)
        case .dictionaryKey(let dictionaryKey): keyAndKind(dictionaryKey, step.jsonKind)
        case .dictionaryValue(let dictionaryKey): keyAndKind(dictionaryKey, step.jsonKind)
        case .setMember: kind(step.jsonKind)
        case .closureContext: kind(step.jsonKind)
        case .capture(let index): indexAndKind(index, step.jsonKind)
        case .captureBox: kind(step.jsonKind)
        case .boxValue: kind(step.jsonKind)
        case .errorValue: kind(step.jsonKind)
        case .storage: kind(step.jsonKind)
        case .taskHandle: kind(step.jsonKind)
        case .taskClosure: kind(step.jsonKind)
        case .resumesTask: kind(step.jsonKind)
        case .suspendedForever: kind(step.jsonKind)
        case .rawPointer(let field, let offset): kindFieldAndOffset(step.jsonKind, field, offset)
        case .ownedMemoryPointer(let field, let offset): kindFieldAndOffset(step.jsonKind, field, offset)
        case .asyncFrames: kind(step.jsonKind)
        case .childTask: kind(step.jsonKind)
        case .label(let text):
            kind(step.jsonKind)
            key(Key.text)
            string(text)
        }
        closeObject()
    }

    /// A step's `kind` member.
    private mutating func kind(_ name: String) {
        typealias Key = PathStep.CodingKeys
        key(Key.kind)
        string(name)
    }

    /// A raw pointer step's `kind`, `name` (when the word is in a stored property) and `offset` members.
    private mutating func kindFieldAndOffset(_ kindName: String, _ field: String?, _ offset: Int) {
        typealias Key = PathStep.CodingKeys
        kind(kindName)
        if let field {
            key(Key.name)
            string(field)
        }
        key(Key.offset)
        integer(offset)
    }

    /// A step's `kind` and `name` members.
    private mutating func kindAndName(_ kindName: String, _ name: String) {
        typealias Key = PathStep.CodingKeys
        kind(kindName)
        key(Key.name)
        string(name)
    }

    /// A step's `index` and `kind` members.
    private mutating func indexAndKind(_ index: Int, _ kindName: String) {
        typealias Key = PathStep.CodingKeys
        key(Key.index)
        integer(index)
        kind(kindName)
    }

    /// A dictionary step: its `key` object (`kind`, `text`) when the key could be shown, then its `kind`.
    private mutating func keyAndKind(_ dictionaryKey: DictionaryKey?, _ kindName: String) {
        typealias Key = PathStep.CodingKeys
        typealias DictionaryKeyKey = DictionaryKey.CodingKeys
        if let dictionaryKey {
            key(Key.key)
            openObject()
            key(DictionaryKeyKey.kind)
            string(dictionaryKey.kind.rawValue)
            key(DictionaryKeyKey.text)
            string(dictionaryKey.text)
            closeObject()
        }
        kind(kindName)
    }
}

extension JSONText {
    fileprivate mutating func write(_ query: RetainerQuery) {
        typealias Key = RetainerQuery.CodingKeys
        openObject()
        array(Key.chains, query.chains) { $0.write($1) }
        key(Key.leaked)
        integer(query.leaked)
        key(Key.matched)
        integer(query.matched)
        if let types = query.matchedTypes {
            key(Key.matchedTypes)
            openArray()
            for type in types {
                element()
                string(type)
            }
            closeArray()
        }
        key(Key.type)
        string(query.type)
        closeObject()
    }

    private mutating func write(_ chain: RetainerChain) {
        typealias Key = RetainerChain.CodingKeys
        typealias HolderKey = RootHolder.CodingKeys
        typealias LinkKey = RetainerChain.Link.CodingKeys
        openObject()
        key(Key.holder)
        openObject()
        if let address = chain.holder.address {
            key(HolderKey.address)
            string(address)
        }
        key(HolderKey.kind)
        string(chain.holder.kind.rawValue)
        if let location = chain.holder.location {
            key(HolderKey.location)
            string(location)
        }
        if let name = chain.holder.name {
            key(HolderKey.name)
            string(name)
        }
        closeObject()
        key(Key.links)
        openArray()
        for link in chain.links {
            element()
            openObject()
            key(LinkKey.address)
            string(link.address)
            if let path = link.path {
                key(LinkKey.label)
                string(path.text)
                array(LinkKey.path, path.steps) { $0.write($1) }
            }
            key(LinkKey.retainCount)
            integer(link.retainCount)
            key(LinkKey.type)
            string(link.type)
            closeObject()
        }
        closeArray()
        key(Key.unexplainedRetains)
        integer(chain.unexplainedRetains)
        closeObject()
    }
}
