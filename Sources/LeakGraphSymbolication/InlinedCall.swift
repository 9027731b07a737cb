import CLibDW

/// One call the compiler replaced by the callee's body: a `DW_TAG_inlined_subroutine` whose code holds an address.
///
/// The callee is named from its abstract origin (`DW_AT_abstract_origin`, then `DW_AT_specification`):
/// its `DW_AT_linkage_name` demangled when it is a Swift name, else its `DW_AT_name` qualified by the
/// modules, namespaces and types around its declaration, else the linkage name as is. The call site is
/// `DW_AT_call_file` (an index into the compile unit's file table) and `DW_AT_call_line`.
struct InlinedCall {
    /// The callee's linkage (mangled) name, if its DWARF has one.
    var linkageName: String?
    /// The callee's name for people, or `nil` if DWARF names it in no way.
    var function: String?
    /// The file holding the call, or `nil` when unknown or `<compiler-generated>`.
    var callFile: String?
    /// The line of the call, or `nil` when unknown or 0.
    var callLine: Int?

    /// The code ranges of the functions defined in `unit` (`DW_TAG_subprogram` DIEs with addresses), looking
    /// inside modules, namespaces and types (Swift nests its functions in a `DW_TAG_module`, where
    /// `dwarf_getscopes` does not look).
    ///
    /// - Complexity: one walk over the unit's DIEs outside function bodies.
    static func functionRanges(in unit: Dwarf_Die) -> AddressRangeTable<Dwarf_Die> {
        var table = AddressRangeTable<Dwarf_Die>()
        var unit = unit
        addFunctions(under: &unit, to: &table)
        table.seal()
        return table
    }

    private static func addFunctions(under parent: inout Dwarf_Die, to table: inout AddressRangeTable<Dwarf_Die>) {
        var child = Dwarf_Die()
        guard dwarf_child(&parent, &child) == 0 else { return }
        repeat {
            switch dwarf_tag(&child) {
            case Int32(DW_TAG_subprogram), Int32(DW_TAG_entry_point):
                table.addRanges(of: &child, value: child)
            case Int32(DW_TAG_module), Int32(DW_TAG_namespace), Int32(DW_TAG_structure_type),
                Int32(DW_TAG_class_type), Int32(DW_TAG_union_type):
                addFunctions(under: &child, to: &table)
            default:
                break
            }
        } while moveToSibling(&child)
    }

    /// The inlined calls whose code contains `address` (a DWARF address) in `function` (a subprogram DIE of
    /// `unit` whose ranges hold the address), outermost first.
    ///
    /// Walks down from the function through the DIEs whose ranges contain the address (inlined subroutines,
    /// lexical blocks, nested functions).
    ///
    /// - Complexity: O(*s*) for the *s* DIEs among the siblings along the path; nothing is cached here.
    static func chain(in unit: Dwarf_Die, function: Dwarf_Die, at address: Dwarf_Addr) -> [InlinedCall] {
        var unit = unit
        var function = function
        var path: [Dwarf_Die] = []
        scopes(under: &function, containing: address, into: &path)
        guard !path.isEmpty else { return [] }
        var files: OpaquePointer?
        var fileCount = 0
        if dwarf_getsrcfiles(&unit, &files, &fileCount) != 0 {
            files = nil
        }
        return path.compactMap { die -> InlinedCall? in
            var die = die
            guard dwarf_tag(&die) == Int32(DW_TAG_inlined_subroutine) else { return nil }
            let (linkageName, function) = names(of: &die)
            var call = InlinedCall(linkageName: linkageName, function: function)
            if let files, let index = unsignedValue(of: &die, UInt32(DW_AT_call_file)), index < fileCount,
                let name = dwarf_filesrc(files, Int(index), nil, nil)
            {
                call.callFile = CompileUnitIndex.sourcePath(String(cString: name), unit: &unit)
            }
            if call.callFile != nil, let line = unsignedValue(of: &die, UInt32(DW_AT_call_line)), line > 0 {
                call.callLine = Int(line)
            }
            return call
        }
    }

    /// Appends to `path` the code scopes below `parent` that contain `address`, outermost first.
    private static func scopes(
        under parent: inout Dwarf_Die, containing address: Dwarf_Addr, into path: inout [Dwarf_Die]
    ) {
        var child = Dwarf_Die()
        guard dwarf_child(&parent, &child) == 0 else { return }
        repeat {
            switch dwarf_tag(&child) {
            case Int32(DW_TAG_subprogram), Int32(DW_TAG_inlined_subroutine), Int32(DW_TAG_lexical_block),
                Int32(DW_TAG_entry_point):
                if dwarf_haspc(&child, address) == 1 {
                    path.append(child)
                    scopes(under: &child, containing: address, into: &path)
                    return
                }
            default:
                break
            }
        } while moveToSibling(&child)
    }

    /// The linkage name and the name for people of the function `die` (an inlined subroutine) is an instance of.
    private static func names(of die: inout Dwarf_Die) -> (linkage: String?, function: String?) {
        var attribute = Dwarf_Attribute()
        var linkage: String?
        if let found = dwarf_attr_integrate(&die, UInt32(DW_AT_linkage_name), &attribute)
            ?? dwarf_attr_integrate(&die, UInt32(DW_AT_MIPS_linkage_name), &attribute),
            let text = dwarf_formstring(found)
        {
            if let demangled = SwiftDemangler.demangle(text) {
                return (String(cString: text), demangled)
            }
            linkage = String(cString: text)
        }
        guard var declaration = namedDeclaration(of: die), let name = dwarf_diename(&declaration) else {
            return (linkage, linkage)
        }
        var unit = Dwarf_Die()
        let language = dwarf_diecu(&declaration, &unit, nil, nil) != nil ? dwarf_srclang(&unit) : -1
        // C has no namespaces or member functions, so its names need no walk for qualifiers.
        if cLanguages.contains(language) {
            return (linkage, String(cString: name))
        }
        let qualifiers = enclosingNames(of: &declaration)
        let separator = language == Int32(DW_LANG_Swift) ? "." : "::"
        return (linkage, (qualifiers + [String(cString: name)]).joined(separator: separator))
    }

    /// `DW_LANG_C89`, `DW_LANG_C`, `DW_LANG_C99`, `DW_LANG_C11`, `DW_LANG_C17`.
    private static let cLanguages: Set<Int32> = [0x01, 0x02, 0x0c, 0x1d, 0x2c]

    /// The DIE that carries the function's own `DW_AT_name`: `die` or the one its abstract origin and
    /// specification lead to (a few steps at most).
    private static func namedDeclaration(of die: Dwarf_Die) -> Dwarf_Die? {
        var current = die
        for _ in 0..<8 {
            if dwarf_hasattr(&current, UInt32(DW_AT_name)) != 0 {
                return current
            }
            var attribute = Dwarf_Attribute()
            var next = Dwarf_Die()
            guard
                let reference = dwarf_attr(&current, UInt32(DW_AT_abstract_origin), &attribute)
                    ?? dwarf_attr(&current, UInt32(DW_AT_specification), &attribute),
                dwarf_formref_die(reference, &next) != nil
            else { return nil }
            current = next
        }
        return nil
    }

    /// The names of the modules, namespaces and types that enclose `die`, outermost first.
    ///
    /// libdw keeps no parent links: the walk goes down from the compile unit, into the child whose subtree
    /// holds `die`'s offset (children come in offset order, so it is the last one starting at or before it).
    private static func enclosingNames(of die: inout Dwarf_Die) -> [String] {
        var unit = Dwarf_Die()
        guard dwarf_diecu(&die, &unit, nil, nil) != nil else { return [] }
        let target = dwarf_dieoffset(&die)
        var names: [String] = []
        var parent = unit
        while true {
            var child = Dwarf_Die()
            guard dwarf_child(&parent, &child) == 0 else { return names }
            var holder: Dwarf_Die?
            repeat {
                guard dwarf_dieoffset(&child) <= target else { break }
                holder = child
            } while moveToSibling(&child)
            guard var next = holder, dwarf_dieoffset(&next) != target else { return names }
            switch dwarf_tag(&next) {
            case Int32(DW_TAG_module), Int32(DW_TAG_namespace), Int32(DW_TAG_structure_type),
                Int32(DW_TAG_class_type), Int32(DW_TAG_union_type), Int32(DW_TAG_enumeration_type):
                if let name = dwarf_diename(&next) {
                    names.append(String(cString: name))
                }
            default:
                break
            }
            parent = next
        }
    }

    /// Replaces `die` by its next sibling; `false` when it has none.
    private static func moveToSibling(_ die: inout Dwarf_Die) -> Bool {
        var current = die
        return dwarf_siblingof(&current, &die) == 0
    }

    private static func unsignedValue(of die: inout Dwarf_Die, _ name: UInt32) -> Dwarf_Word? {
        var attribute = Dwarf_Attribute()
        var value: Dwarf_Word = 0
        guard let found = dwarf_attr(&die, name, &attribute), dwarf_formudata(found, &value) == 0 else { return nil }
        return value
    }
}
