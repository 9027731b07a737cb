import CLibDW

/// Address ranges `[low, high)`, each with a value, sorted for finding the range that holds an address.
///
/// Ranges may nest or overlap: a search walks back from the last range starting at or before the address for
/// as long as an earlier range can still reach it (`reachingHigh`), and returns the closest-starting one.
struct AddressRangeTable<Value> {
    private struct Entry {
        var low: Dwarf_Addr
        var high: Dwarf_Addr
        var value: Value
    }

    private var entries: [Entry] = []
    /// `reachingHigh[i]` is the largest `high` among `entries[0...i]`.
    private var reachingHigh: [Dwarf_Addr] = []
    private var sorted = true

    /// The number of ranges.
    var count: Int { entries.count }

    /// Adds `[low, high)`; empty ranges are ignored. Call ``seal()`` before searching.
    mutating func add(low: Dwarf_Addr, high: Dwarf_Addr, value: Value) {
        guard high > low else { return }
        entries.append(Entry(low: low, high: high, value: value))
        sorted = false
    }

    /// Sorts the ranges for searching.
    ///
    /// - Complexity: O(*r* log *r*) for *r* ranges.
    mutating func seal() {
        entries.sort { $0.low < $1.low }
        var highest: Dwarf_Addr = 0
        reachingHigh = entries.map { entry in
            highest = max(highest, entry.high)
            return highest
        }
        sorted = true
    }

    /// The value of the range holding `address` that starts closest to it, or `nil`.
    ///
    /// - Complexity: O(log *r*) when ranges do not overlap.
    func value(containing address: Dwarf_Addr) -> Value? {
        precondition(sorted, "AddressRangeTable searched before seal()")
        // The first range that starts after `address`; candidates are before it.
        var lower = 0
        var upper = entries.count
        while lower < upper {
            let middle = (lower + upper) / 2
            if entries[middle].low <= address {
                lower = middle + 1
            } else {
                upper = middle
            }
        }
        var index = lower - 1
        while index >= 0, reachingHigh[index] > address {
            if entries[index].high > address {
                return entries[index].value
            }
            index -= 1
        }
        return nil
    }
}

extension AddressRangeTable {
    /// Adds every address range of `die` (`dwarf_ranges`: `DW_AT_low_pc`/`DW_AT_high_pc` or a
    /// `DW_AT_ranges` list); `false` if it has none.
    @discardableResult
    mutating func addRanges(of die: inout Dwarf_Die, value: Value) -> Bool {
        var found = false
        var base: Dwarf_Addr = 0
        var low: Dwarf_Addr = 0
        var high: Dwarf_Addr = 0
        var offset = dwarf_ranges(&die, 0, &base, &low, &high)
        while offset > 0 {
            if high > low {
                add(low: low, high: high, value: value)
                found = true
            }
            offset = dwarf_ranges(&die, offset, &base, &low, &high)
        }
        return found
    }
}
