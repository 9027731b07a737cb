import CLibDW

/// The address ranges of every compile unit of one module's DWARF, for finding the unit that holds an address.
///
/// `dwfl_module_getsrc` relies on `.debug_aranges`, which Swift objects lack (and they mix DWARF 4 and 5
/// units), so it fails for every Swift frame. This index is built once per module instead: each unit
/// (`dwarf_nextcu`, `dwarf_offdie`) with each of its ranges (`dwarf_ranges`, which reads `DW_AT_low_pc`/
/// `DW_AT_high_pc` as well as `DW_AT_ranges` lists). A line is then found with `dwarf_getsrc_die`; the
/// inlined calls at an address through a per-unit index of function ranges (see ``InlinedCall``).
///
/// Addresses here are DWARF addresses: the process address minus the module's bias.
struct CompileUnitIndex {
    /// The compile-unit DIEs; they point into the `Dwarf` handle, which lives as long as the `Dwfl` session.
    private var units: [Dwarf_Die] = []
    /// Every range of every unit, with the unit's position in `units`.
    private var ranges = AddressRangeTable<Int>()
    /// Per unit position, its functions' code ranges, built the first time inlined calls are looked up there.
    private var subprograms: [Int: AddressRangeTable<Dwarf_Die>] = [:]

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
            if ranges.addRanges(of: &die, value: units.count) {
                units.append(die)
            }
        }
        ranges.seal()
    }

    /// The compile unit whose ranges contain `address` (a DWARF address), or `nil`.
    ///
    /// - Complexity: O(log *r*) when ranges do not overlap.
    func unit(containing address: Dwarf_Addr) -> Dwarf_Die? {
        ranges.value(containing: address).map { units[$0] }
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
        guard let path = Self.sourcePath(String(cString: file), unit: &unit) else {
            return nil
        }
        var number: Int32 = 0
        let lineNumber = dwarf_lineno(line, &number) == 0 && number > 0 ? Int(number) : nil
        return (path, lineNumber)
    }

    /// Whether the unit holding `address` (a DWARF address) was compiled with optimization: its
    /// `DW_AT_APPLE_optimized` flag, which swiftc sets for `-O` and `-Osize` units only. `nil` when no unit
    /// holds the address.
    func isOptimized(_ address: Dwarf_Addr) -> Bool? {
        guard var unit = unit(containing: address) else { return nil }
        var attribute = Dwarf_Attribute()
        var flag = false
        guard dwarf_attr(&unit, 0x3fe1 /* DW_AT_APPLE_optimized */, &attribute) != nil,
            dwarf_formflag(&attribute, &flag) == 0
        else { return false }
        return flag
    }

    /// The inlined calls whose code holds `address` (a DWARF address), outermost first; empty when the address
    /// is in no inlined code or its unit is unknown. See ``InlinedCall``.
    ///
    /// The first lookup in a unit indexes the code ranges of all its functions (one walk over the unit's DIEs);
    /// each lookup then walks only the DIEs of the function holding the address.
    mutating func inlinedCalls(at address: Dwarf_Addr) -> [InlinedCall] {
        guard let position = ranges.value(containing: address) else { return [] }
        if subprograms[position] == nil {
            subprograms[position] = InlinedCall.functionRanges(in: units[position])
        }
        guard let function = subprograms[position]?.value(containing: address) else { return [] }
        return InlinedCall.chain(in: units[position], function: function, at: address)
    }

    /// A file name from `unit`'s line or file table as shown in frames: `nil` for `<compiler-generated>` (thunks
    /// and other code without a source) and for libdw's `???` (no file); a relative name made absolute with the
    /// unit's `DW_AT_comp_dir` when that is absolute (DWARF 5 tables may name files relative to it).
    static func sourcePath(_ name: String, unit: inout Dwarf_Die) -> String? {
        if name.hasSuffix("<compiler-generated>") || name == "???" || name.isEmpty {
            return nil
        }
        if !name.hasPrefix("/"), let directory = compilationDirectory(of: &unit), directory.hasPrefix("/") {
            return directory.hasSuffix("/") ? directory + name : directory + "/" + name
        }
        return name
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
