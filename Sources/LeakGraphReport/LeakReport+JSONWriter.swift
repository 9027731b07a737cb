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
        let stackTable = schemaVersion >= 2 ? StackTable(leaks) : nil
        var json = JSONText(prettyPrinted: prettyPrinted, capacity: estimatedJSONSize(prettyPrinted: prettyPrinted))
        json.openObject()
        if let allocations {
            json.key("allocations")
            json.write(allocations)
        }
        if let crash {
            json.key("crash")
            json.write(crash)
        }
        json.array("cycles", cycles) { $0.write($1) }
        json.array("diagnostics", diagnostics) { $0.write($1) }
        json.key("leaks")
        json.openArray()
        for (position, leak) in leaks.enumerated() {
            json.element()
            json.write(leak, backtrace: stackTable.map { .stack($0.stackOfLeak[position]) } ?? .inline)
        }
        json.closeArray()
        if let liveTypes {
            json.key("liveTypes")
            json.openArray()
            for row in liveTypes {
                json.element()
                json.openObject()
                json.key("bytes")
                json.integer(row.bytes)
                json.key("count")
                json.integer(row.count)
                json.key("type")
                json.string(row.type)
                json.closeObject()
            }
            json.closeArray()
        }
        json.key("program")
        json.write(program)
        json.array("references", references) { $0.write($1) }
        json.key("schemaVersion")
        json.integer(schemaVersion)
        if let stackTable {
            json.array("stacks", stackTable.stacks) { $0.write($1) }
        }
        json.key("summary")
        json.write(summary)
        if let testAllocations {
            json.array("testAllocations", testAllocations) { $0.write($1) }
        }
        json.key("verdict")
        json.string(verdict.rawValue)
        if let why {
            json.array("why", why) { $0.write($1) }
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
        openObject()
        key("address")
        string(leak.address)
        if case .inline = form {
            key("backtrace")
            write(leak.backtrace)
        }
        key("cycle")
        integer(leak.cycle)
        key("id")
        integer(leak.id)
        key("kind")
        string(leak.kind)
        if let proof = leak.proof {
            key("proof")
            openObject()
            key("inEdges")
            write(proof.inEdges)
            key("retainCount")
            integer(proof.retainCount)
            closeObject()
        }
        key("retainCount")
        integer(leak.retainCount)
        key("size")
        integer(leak.size)
        if case .stack(let stack) = form {
            key("stack")
            integer(stack)
        }
        key("type")
        string(leak.type)
        closeObject()
    }

    /// Writes a backtrace: an array of frames, unknown `file` and `line` as `null`.
    fileprivate mutating func write(_ backtrace: [LeakReport.Frame]) {
        openArray()
        for frame in backtrace {
            element()
            openObject()
            key("file")
            string(frame.file)
            key("function")
            string(frame.function)
            key("line")
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
        openObject()
        if let fingerprint = cycle.fingerprint {
            key("fingerprint")
            string(fingerprint)
        }
        if let holder = cycle.heldByKnownLibraryLeak {
            key("heldByKnownLibraryLeak")
            integer(holder)
        }
        if let heldCycles = cycle.heldCycles {
            array("heldCycles", heldCycles) { $0.write($1) }
        }
        key("holds")
        write(cycle.holds)
        key("id")
        integer(cycle.id)
        if let kind = cycle.kind {
            key("kind")
            string(kind)
        }
        if let knownLibraryLeak = cycle.knownLibraryLeak {
            key("knownLibraryLeak")
            string(knownLibraryLeak)
        }
        key("members")
        write(cycle.members)
        if let otherCuts = cycle.otherCuts {
            array("otherCuts", otherCuts) { $0.write($1) }
        }
        if let run = cycle.run {
            key("run")
            string(run)
        }
        if let suppressed = cycle.suppressed {
            key("suppressed")
            write(suppressed)
        }
        if let suspect = cycle.suspect {
            key("suspect")
            write(suspect)
        }
        if let tests = cycle.tests {
            key("tests")
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
        openObject()
        key("baseline")
        string(suppression.baseline)
        key("entry")
        string(suppression.entry)
        if let line = suppression.line {
            key("line")
            integer(line)
        }
        if let reason = suppression.reason {
            key("reason")
            string(reason)
        }
        closeObject()
    }

    /// Writes a suspect (or another cut) reference.
    fileprivate mutating func write(_ suspect: LeakReport.Suspect) {
        openObject()
        key("from")
        integer(suspect.from)
        key("hint")
        string(suspect.hint)
        key("label")
        string(suspect.label)
        key("reason")
        string(suspect.reason)
        if let reference = suspect.reference {
            key("reference")
            integer(reference)
        }
        key("to")
        integer(suspect.to)
        closeObject()
    }

    /// Writes a walk diagnostic.
    fileprivate mutating func write(_ diagnostic: WalkDiagnostic) {
        openObject()
        key("objectCount")
        integer(diagnostic.objectCount)
        key("reason")
        string(diagnostic.reason)
        if let site = diagnostic.site {
            key("site")
            string(site)
        }
        key("typeName")
        string(diagnostic.typeName)
        closeObject()
    }

    /// Writes the program description.
    fileprivate mutating func write(_ program: LeakReport.Program) {
        openObject()
        key("arguments")
        openArray()
        for argument in program.arguments {
            element()
            string(argument)
        }
        closeArray()
        key("exitStatus")
        integer(program.exitStatus)
        key("path")
        string(program.path)
        if let running = program.running {
            key("running")
            boolean(running)
        }
        if let signal = program.signal {
            key("signal")
            string(signal)
        }
        closeObject()
    }

    /// Writes what a crashed program left, keys in byte order, an absent `faultAddress` left out.
    fileprivate mutating func write(_ crash: LeakReport.Crash) {
        openObject()
        key("allocations")
        integer(crash.allocations)
        if let faultAddress = crash.faultAddress {
            key("faultAddress")
            string(faultAddress)
        }
        key("frames")
        write(crash.frames)
        key("liveObjects")
        integer(crash.liveObjects)
        key("signal")
        string(crash.signal)
        closeObject()
    }

    /// Writes the totals.
    fileprivate mutating func write(_ summary: LeakReport.Summary) {
        openObject()
        key("leakedBytes")
        integer(summary.leakedBytes)
        key("leakedObjects")
        integer(summary.leakedObjects)
        key("liveObjects")
        integer(summary.liveObjects)
        key("rootCycles")
        integer(summary.rootCycles)
        key("trackedObjects")
        integer(summary.trackedObjects)
        closeObject()
    }

    /// Writes a reference with both its `label` (the path's text) and its `path` (the steps).
    fileprivate mutating func write(_ reference: LeakReport.LeakReference) {
        openObject()
        key("from")
        integer(reference.from)
        key("label")
        string(reference.label)
        key("ownership")
        string(reference.ownership.rawValue)
        array("path", reference.path.steps) { $0.write($1) }
        if let storeSite = reference.storeSite {
            key("storeSite")
            write(storeSite)
        }
        key("to")
        integer(reference.to)
        closeObject()
    }

    /// Writes a reference's store site (``LeakReport/StoreSite``), absent fields left out.
    fileprivate mutating func write(_ storeSite: LeakReport.StoreSite) {
        openObject()
        if let candidates = storeSite.candidates {
            array("candidates", candidates) { $0.write($1) }
        }
        key("known")
        boolean(storeSite.known)
        if let reason = storeSite.reason {
            key("reason")
            string(reason)
        }
        if let site = storeSite.site {
            key("site")
            write(site)
        }
        closeObject()
    }

    fileprivate mutating func write(_ retain: LeakReport.StoreSiteRetain) {
        openObject()
        key("evidence")
        string(retain.evidence)
        if let frame = retain.frame {
            key("frame")
            openObject()
            key("file")
            string(frame.file)
            key("function")
            string(frame.function)
            key("line")
            integer(frame.line)
            closeObject()
        }
        key("stack")
        write(retain.stack)
        closeObject()
    }

    /// Writes one path step as `{"kind": …}` plus that kind's fields, keys in byte order; the kind is
    /// ``PathStep/jsonKind``, spelled where the `Codable` form is.
    fileprivate mutating func write(_ step: PathStep) {
        openObject()
        switch step {
        case .property(let name): kindAndName(step.jsonKind, name)
        case .tupleElement(let name): kindAndName(step.jsonKind, name)
        case .enumCase(let name): kindAndName(step.jsonKind, name)
        case .optionalPayload: kind(step.jsonKind)
        case .indirectPayload: kind(step.jsonKind)
        case .existentialValue(let type):
            kind(step.jsonKind)
            key("type")
            string(type)
        case .existentialBox(let existential, let type):
            key("existential")
            string(existential)
            kind(step.jsonKind)
            key("type")
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
            key("text")
            string(text)
        }
        closeObject()
    }

    /// A step's `kind` member.
    private mutating func kind(_ name: String) {
        key("kind")
        string(name)
    }

    /// A raw pointer step's `kind`, `name` (when the word is in a stored property) and `offset` members.
    private mutating func kindFieldAndOffset(_ kindName: String, _ field: String?, _ offset: Int) {
        kind(kindName)
        if let field {
            key("name")
            string(field)
        }
        key("offset")
        integer(offset)
    }

    /// A step's `kind` and `name` members.
    private mutating func kindAndName(_ kindName: String, _ name: String) {
        kind(kindName)
        key("name")
        string(name)
    }

    /// A step's `index` and `kind` members.
    private mutating func indexAndKind(_ index: Int, _ kindName: String) {
        key("index")
        integer(index)
        kind(kindName)
    }

    /// A dictionary step: its `key` object (`kind`, `text`) when the key could be shown, then its `kind`.
    private mutating func keyAndKind(_ dictionaryKey: DictionaryKey?, _ kindName: String) {
        if let dictionaryKey {
            key("key")
            openObject()
            kind(dictionaryKey.kind.rawValue)
            key("text")
            string(dictionaryKey.text)
            closeObject()
        }
        kind(kindName)
    }
}

extension JSONText {
    fileprivate mutating func write(_ query: RetainerQuery) {
        openObject()
        array("chains", query.chains) { $0.write($1) }
        key("leaked")
        integer(query.leaked)
        key("matched")
        integer(query.matched)
        if let types = query.matchedTypes {
            key("matchedTypes")
            openArray()
            for type in types {
                element()
                string(type)
            }
            closeArray()
        }
        key("type")
        string(query.type)
        closeObject()
    }

    private mutating func write(_ chain: RetainerChain) {
        openObject()
        key("holder")
        openObject()
        if let address = chain.holder.address {
            key("address")
            string(address)
        }
        key("kind")
        string(chain.holder.kind.rawValue)
        if let location = chain.holder.location {
            key("location")
            string(location)
        }
        if let name = chain.holder.name {
            key("name")
            string(name)
        }
        closeObject()
        key("links")
        openArray()
        for link in chain.links {
            element()
            openObject()
            key("address")
            string(link.address)
            if let path = link.path {
                key("label")
                string(path.text)
                array("path", path.steps) { $0.write($1) }
            }
            key("retainCount")
            integer(link.retainCount)
            key("type")
            string(link.type)
            closeObject()
        }
        closeArray()
        key("unexplainedRetains")
        integer(chain.unexplainedRetains)
        closeObject()
    }
}
