import CLibDW

/// The address ranges of every compile unit of one module's DWARF, for finding the unit that holds an address.
///
/// `dwfl_module_getsrc` relies on `.debug_aranges`, which Swift objects lack (and they mix DWARF 4 and 5
/// units), so it fails for every Swift frame. This index is built once per module instead: each unit
/// (`dwarf_nextcu`, `dwarf_offdie`) with each of its ranges (`dwarf_ranges`, which reads `DW_AT_low_pc`/
/// `DW_AT_high_pc` as well as `DW_AT_ranges` lists). A line is then found with `dwarf_getsrc_die`.
///
/// Addresses here are DWARF addresses: the process address minus the module's bias.
struct CompileUnitIndex {
    private struct Range {
        var low: Dwarf_Addr
        var high: Dwarf_Addr
        var unit: Int
    }

    /// The compile-unit DIEs; they point into the `Dwarf` handle, which lives as long as the `Dwfl` session.
    private var units: [Dwarf_Die] = []
    /// Every range of every unit, sorted by `low`.
    private var ranges: [Range] = []
    /// `reachingHigh[i]` is the largest `high` among `ranges[0...i]`, so a search can stop scanning back early
    /// even if ranges nest or overlap.
    private var reachingHigh: [Dwarf_Addr] = []

    /// The number of compile units with at least one address range.
    var unitCount: Int { units.count }

    /// Builds the index of `dwarf`'s compile units.
    ///
    /// - Complexity: O(*r* log *r*) for *r* ranges.
    init(dwarf: OpaquePointer) {
        var offset: Dwarf_Off = 0
        var nextOffset: Dwarf_Off = 0
        var headerSize = 0
        while dwarf_nextcu(dwarf, offset, &nextOffset, &headerSize, nil, nil, nil) == 0 {
            defer { offset = nextOffset }
            var die = Dwarf_Die()
            guard dwarf_offdie(dwarf, offset + Dwarf_Off(headerSize), &die) != nil else { continue }
            let unit = units.count
            var found = false
            var base: Dwarf_Addr = 0
            var low: Dwarf_Addr = 0
            var high: Dwarf_Addr = 0
            var rangeOffset = dwarf_ranges(&die, 0, &base, &low, &high)
            while rangeOffset > 0 {
                if high > low {
                    ranges.append(Range(low: low, high: high, unit: unit))
                    found = true
                }
                rangeOffset = dwarf_ranges(&die, rangeOffset, &base, &low, &high)
            }
            if found {
                units.append(die)
            }
        }
        ranges.sort { $0.low < $1.low }
        var highest: Dwarf_Addr = 0
        reachingHigh = ranges.map { range in
            highest = max(highest, range.high)
            return highest
        }
    }

    /// The compile unit whose ranges contain `address` (a DWARF address), or `nil`.
    ///
    /// - Complexity: O(log *r*) when ranges do not overlap.
    func unit(containing address: Dwarf_Addr) -> Dwarf_Die? {
        // The first range that starts after `address`; candidates are before it.
        var lower = 0
        var upper = ranges.count
        while lower < upper {
            let middle = (lower + upper) / 2
            if ranges[middle].low <= address {
                lower = middle + 1
            } else {
                upper = middle
            }
        }
        var index = lower - 1
        while index >= 0, reachingHigh[index] > address {
            if ranges[index].high > address {
                return units[ranges[index].unit]
            }
            index -= 1
        }
        return nil
    }

    /// The source file and line of `address` (a DWARF address) from the line table of its compile unit.
    ///
    /// `nil` for code the line table marks `<compiler-generated>` (thunks); a line of 0 elsewhere is returned
    /// as `nil` with the file kept. A relative file name is made absolute with the unit's `DW_AT_comp_dir` when that is absolute.
    func sourceLocation(of address: Dwarf_Addr) -> (file: String, line: Int?)? {
        guard var unit = unit(containing: address), let line = dwarf_getsrc_die(&unit, address),
            let file = dwarf_linesrc(line, nil, nil)
        else {
            return nil
        }
        var path = String(cString: file)
        // Thunks and other code without a source say so by this file name (with line 0).
        if path.hasSuffix("<compiler-generated>") {
            return nil
        }
        // DWARF 5 line tables (clang's default) may name files relative to the unit's build directory.
        if !path.hasPrefix("/"), let directory = Self.compilationDirectory(of: &unit), directory.hasPrefix("/") {
            path = directory.hasSuffix("/") ? directory + path : directory + "/" + path
        }
        var number: Int32 = 0
        let lineNumber = dwarf_lineno(line, &number) == 0 && number > 0 ? Int(number) : nil
        return (path, lineNumber)
    }

    private static func compilationDirectory(of unit: inout Dwarf_Die) -> String? {
        var attribute = Dwarf_Attribute()
        guard dwarf_attr(&unit, UInt32(DW_AT_comp_dir), &attribute) != nil,
            let directory = dwarf_formstring(&attribute)
        else {
            return nil
        }
        return String(cString: directory)
    }
}
