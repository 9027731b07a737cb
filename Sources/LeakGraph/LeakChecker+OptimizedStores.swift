import LeakGraphAnalysis
import LeakGraphModel
import LeakGraphSymbolication

extension LeakChecker {
    /// A store site in optimized code often has no line: the compiler emits the retain of a stored
    /// reference without a source location. The store itself usually has one, so for each retain of
    /// `site` whose frame has no line this finds, in the function that made the retain, the instruction
    /// that writes a register into the field holding `reference` — its offset is where the holder's memory
    /// holds the target's address, when exactly one word does — nearest the retain, and names that
    /// instruction's innermost frame instead (inlined calls expanded: `Member.join(_:)` inlined into
    /// `wire()` is named as `join`). Nothing changes when the holder holds the target in several words, no
    /// such store is found, the function's stores into that offset are on different lines, or the store
    /// has no line of the program's own code either. A retain that has a line, in optimized code, where
    /// no store into that offset is on that line loses its line (the function alone is named): it is a
    /// caller's retain of an argument passed +1 to the callee that stores it.
    ///
    /// A reference that is not a stored property of its holder (an element of a collection's storage, a
    /// closure's capture, a payload in a box) has no store the function's code shows at a known offset: an
    /// element is written by the standard library at a computed address, and a store at the same offset
    /// into another object on the retain's line proves nothing (measured: `Room.members[0]` named the
    /// line of `member.room = self`). In optimized code its retain's line is not stated: the function alone
    /// is named.
    ///
    /// Reads the holder's memory: call it while the leaked objects are alive (they are, being leaked).
    static func placingOptimizedStores(
        _ site: StoreSite, of reference: Reference, in graph: ObjectGraph, symbolizer: Symbolizer,
        executablePath: String?
    ) -> StoreSite {
        guard LeakAnalysis.isStoredProperty(reference.path) else {
            var unplaced = site
            unplaced.site = site.site.map { withoutOptimizedLine($0, symbolizer: symbolizer) }
            unplaced.candidates = site.candidates.map { withoutOptimizedLine($0, symbolizer: symbolizer) }
            return unplaced
        }
        guard let offset = fieldOffset(of: reference, in: graph) else { return site }
        var placed = site
        placed.site = site.site.map {
            place($0, offset: offset, symbolizer: symbolizer, executablePath: executablePath)
        }
        placed.candidates = site.candidates.map {
            place($0, offset: offset, symbolizer: symbolizer, executablePath: executablePath)
        }
        return placed
    }

    /// Per strong reference into an object with a retain history: the byte offset in its holder of the one
    /// word holding its target (see ``fieldOffset(of:in:)``).
    static func fieldOffsets(in graph: ObjectGraph) -> [Int: Int] {
        var offsets: [Int: Int] = [:]
        for (index, reference) in graph.references.enumerated()
        where reference.ownership == .strong && graph.retainHistories[reference.to] != nil {
            offsets[index] = fieldOffset(of: reference, in: graph)
        }
        return offsets
    }

    /// The byte offset in the holder of the one word that holds the target's address (spare bits
    /// ignored), or `nil` when none or several do.
    static func fieldOffset(of reference: Reference, in graph: ObjectGraph) -> Int? {
        let holder = graph.nodes[reference.from]
        let target = UInt(graph.nodes[reference.to].address)
        guard holder.size >= 24, let base = UnsafeRawPointer(bitPattern: UInt(holder.address)) else { return nil }
        var found: Int?
        for offset in stride(from: 16, through: holder.size - 8, by: 8) {
            let word = base.load(fromByteOffset: offset, as: UInt.self)
            if word & 0x00FF_FFFF_FFFF_FFFF == target {
                guard found == nil else { return nil }
                found = offset
            }
        }
        return found
    }

    private static func place(
        _ candidate: StoreSite.Candidate, offset: Int, symbolizer: Symbolizer, executablePath: String?
    ) -> StoreSite.Candidate {
        guard !candidate.isAllocation, let frame = candidate.frame, let address = frame.address,
            address > 0, let function = symbolizer.functionRange(containing: address - 1)
        else { return candidate }
        let stores = StoreInstructions.stores(in: function, displacement: offset)
        let retain = address - 1
        if frame.line != nil {
            // A retain with a line, in optimized code, where no store into the field's offset in the
            // function is on that line: the caller's retain of an argument it passes +1 to a callee (the
            // optimizer turned the callee's parameter owned), which stores it. The line is the call's, not
            // the store's: it is not stated as the store line — the function alone is named.
            guard symbolizer.isOptimizedCode(at: retain) == true else { return candidate }
            let onTheLine = stores.contains { store in
                symbolizer.symbolizeExpandingInlines(store, as: .instructionAddress).contains {
                    $0.line == frame.line && $0.file == frame.file
                }
            }
            guard !onTheLine else { return candidate }
            return functionOnly(candidate)
        }
        guard let nearest = stores.min(by: { distance($0, retain) < distance($1, retain) }) else { return candidate }
        guard let innermost = symbolizer.symbolizeExpandingInlines(nearest, as: .instructionAddress).first,
            innermost.line != nil, FramePolicy.category(of: innermost, executablePath: executablePath) == .user
        else { return candidate }
        // Every store into that offset in the function must be the same line: two lines (two fields of
        // different types at one offset, or two assignments) would make "nearest" a guess, and a guessed line
        // is never stated — the candidate keeps its function alone.
        for store in stores where store != nearest {
            let other = symbolizer.symbolizeExpandingInlines(store, as: .instructionAddress).first
            guard other?.file == innermost.file, other?.line == innermost.line else { return candidate }
        }
        var placed = candidate
        placed.frame = HistoryFrame(
            function: innermost.function, file: innermost.file, line: innermost.line, isUserCode: true, address: nearest
        )
        return placed
    }

    /// `candidate` without its line when it is a retain in optimized code (an allocation's line — where
    /// the object was made — and a write's stay).
    private static func withoutOptimizedLine(_ candidate: StoreSite.Candidate, symbolizer: Symbolizer)
        -> StoreSite.Candidate
    {
        guard candidate.evidence == .retain, let frame = candidate.frame, frame.line != nil,
            let address = frame.address, address > 0, symbolizer.isOptimizedCode(at: address - 1) == true
        else { return candidate }
        return functionOnly(candidate)
    }

    /// `candidate` naming its function alone: no file, no line.
    private static func functionOnly(_ candidate: StoreSite.Candidate) -> StoreSite.Candidate {
        var unplaced = candidate
        unplaced.frame?.line = nil
        unplaced.frame?.file = nil
        return unplaced
    }

    private static func distance(_ a: UInt, _ b: UInt) -> UInt { a > b ? a - b : b - a }
}
