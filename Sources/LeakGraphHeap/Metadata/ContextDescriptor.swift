/// A nominal type or module context descriptor (swift/ABI/Metadata.h, TargetContextDescriptor).
struct ContextDescriptor {
    let base: UnsafeRawPointer

    enum Kind: UInt32 {
        case module = 0, `extension` = 1, anonymous = 2, `protocol` = 3, opaqueType = 4
        case `class` = 16, `struct` = 17, `enum` = 18
    }

    var flags: UInt32 { base.uint32(at: 0) }
    var kind: Kind? { Kind(rawValue: flags & 0x1F) }
    var isGeneric: Bool { flags & 0x80 != 0 }
    var kindSpecificFlags: UInt32 { flags >> 16 }
    var parent: ContextDescriptor? { base.relativeIndirectable(at: 4).map(ContextDescriptor.init) }

    /// The name of a module or nominal type.
    var name: String {
        guard kind == .module || (kind.map { $0.rawValue >= 16 } ?? false),
            let pointer = base.relativeDirect(at: 8)
        else { return "" }
        return pointer.cString()
    }

    /// The name of the module that (eventually) contains this context.
    var moduleName: String {
        var context: ContextDescriptor? = self
        while let current = context {
            if current.kind == .module { return current.name }
            context = current.parent
        }
        return ""
    }

    /// The field descriptor (reflection metadata) of a nominal type, when emitted.
    var fieldDescriptor: FieldDescriptor? {
        guard let kind, kind.rawValue >= 16 else { return nil }
        return base.relativeDirect(at: 16).map(FieldDescriptor.init)
    }

    // Class descriptor fields.
    var classHasResilientSuperclass: Bool { kindSpecificFlags & (1 << 13) != 0 }
    var classAreImmediateMembersNegative: Bool { kindSpecificFlags & (1 << 12) != 0 }
    var classMetadataNegativeSizeInWords: Int { Int(base.uint32(at: 24)) }
    var classMetadataPositiveSizeInWords: Int { Int(base.uint32(at: 28)) }
    var classNumImmediateMembers: Int { Int(base.uint32(at: 32)) }
    var classNumFields: Int { Int(base.uint32(at: 36)) }
    var classFieldOffsetVectorOffset: Int { Int(base.uint32(at: 40)) }

    /// For a class with a resilient superclass: the byte offset of the immediate members, read from the
    /// descriptor's `StoredClassMetadataBounds` (filled in once the metadata is initialized).
    var classResilientImmediateMembersOffset: Int? {
        guard let bounds = base.relativeDirect(at: 24) else { return nil }
        let offset = Int(bitPattern: bounds.word(at: 0))
        return offset != 0 ? offset : nil  // zero: not initialized yet; never guess
    }

    /// Word offset, from the class metadata's address point, of this class's immediate members.
    var classImmediateMembersWordOffset: Int? {
        if classHasResilientSuperclass {
            return classResilientImmediateMembersOffset.map { $0 / 8 }
        }
        return classAreImmediateMembersNegative
            ? -classMetadataNegativeSizeInWords
            : classMetadataPositiveSizeInWords - classNumImmediateMembers
    }

    /// Word offset, from the class metadata's address point, of the field offset vector.
    var classFieldOffsetVectorWordOffset: Int? {
        if classHasResilientSuperclass {
            return classImmediateMembersWordOffset.map { $0 + classFieldOffsetVectorOffset }
        }
        return classFieldOffsetVectorOffset
    }

    // Struct descriptor fields.
    var structNumFields: Int { Int(base.uint32(at: 20)) }
    var structFieldOffsetVectorOffset: Int { Int(base.uint32(at: 24)) }

    // Enum descriptor fields.
    var enumNumPayloadCases: Int { Int(base.uint32(at: 20) & 0x00FF_FFFF) }
    var enumNumEmptyCases: Int { Int(base.uint32(at: 24)) }

    // Generic context (TargetTypeGenericContextDescriptorHeader, the first trailing object of a generic
    // type's descriptor: an instantiation cache and a pattern, 4 bytes each, then
    // GenericContextDescriptorHeader — NumParams, NumRequirements, NumKeyArguments, Flags, 16 bits each —
    // then one GenericParamDescriptor byte per parameter).

    /// The byte offset of a generic type's `GenericContextDescriptorHeader`: after a class descriptor's
    /// 11 fields or a struct's or enum's 7, and the instantiation cache and pattern.
    private var genericHeaderOffset: Int? {
        guard isGeneric else { return nil }
        switch kind {
        case .class?: return 44 + 8
        case .struct?, .enum?: return 28 + 8
        default: return nil
        }
    }

    /// How many generic arguments the type's metadata stores, when they are exactly its generic
    /// parameters in order — every parameter (of every enclosing level) a type parameter with a key
    /// argument, so that the i-th argument of a bound generic name (flattened, outermost level first) is
    /// the metadata's i-th generic argument; `nil` for a type that is not generic, or has parameter packs,
    /// value parameters or parameters without a key argument (made concrete by a same-type requirement).
    var plainGenericParameterCount: Int? {
        guard let offset = genericHeaderOffset else { return nil }
        let count = Int(base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
        guard count > 0 else { return nil }
        for parameter in 0..<count where base.load(fromByteOffset: offset + 8 + parameter, as: UInt8.self) != 0x80 {
            return nil
        }
        return count
    }

    /// The cumulative generic parameter counts of the type's generic levels, outermost first (`[1, 3]`:
    /// one parameter at depth 0, two at depth 1), read from the generic nominal types among it and its
    /// parents (and the anonymous contexts and extensions between them); `nil` when a parent is of another
    /// kind, the counts decrease, or the type has none.
    var genericParameterLevels: [Int]? {
        var counts: [Int] = []
        var context: ContextDescriptor? = self
        for _ in 0..<32 {
            guard let current = context else { break }
            switch current.kind {
            case .class?, .struct?, .enum?:
                if current.isGeneric {
                    guard let offset = current.genericHeaderOffset else { return nil }
                    counts.append(Int(current.base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
                }
            case .module?:
                context = nil
                continue
            case .extension?, .anonymous?:
                // A private type's anonymous parent, or an extension: the parameters in scope there, right
                // after its fields (an extension's 3, an anonymous context's 2), without an instantiation cache.
                if current.isGeneric {
                    let offset = current.kind == .extension ? 12 : 8
                    counts.append(Int(current.base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
                }
            default:
                return nil
            }
            context = current.parent
        }
        guard context == nil else { return nil }
        counts.reverse()
        var levels: [Int] = []
        for count in counts where count != levels.last {
            guard count > (levels.last ?? 0) else { return nil }
            levels.append(count)
        }
        return levels.isEmpty ? nil : levels
    }

    /// How many key generic arguments (parameters' metadata, then witness tables) the type's metadata stores.
    var genericKeyArgumentCount: Int? {
        guard let offset = genericHeaderOffset else { return nil }
        return Int(base.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self))
    }

    /// Where a metadata of this type (a class's, or a struct's or enum's) stores its generic arguments.
    func genericArguments(in metadata: UnsafeRawPointer) -> UnsafeRawPointer? {
        switch kind {
        case .class?: return classImmediateMembersWordOffset.map { metadata + $0 * 8 }
        case .struct?, .enum?: return metadata + 16
        default: return nil
        }
    }
}
