import CLibDW

#if canImport(Glibc)
    import Glibc
#endif

/// How an executable gets its Swift runtime, which decides whether `leakgraph run` can hook it.
public enum SwiftRuntimeLinkage: Sendable, Equatable {
    /// The executable needs `libswiftCore.so` (a `DT_NEEDED` entry). `runtimePath` is where the dynamic loader
    /// would find it (see ``inspect(executableAt:)``), or `nil` if not found that way.
    case dynamic(runtimePath: String?)
    /// Swift code with the runtime linked in (`-static-stdlib`, `-static-executable`): there is no shared
    /// runtime to hook.
    case staticallyLinked
    /// An ELF file with no Swift in it.
    case notSwift
    /// Not an ELF file, or not readable; `reason` says which.
    case notELF(reason: String)
}

extension SwiftRuntimeLinkage {
    /// Reads the ELF file at `path` with libelf and tells how it links the Swift runtime.
    ///
    /// - `libswiftCore.so` among the `.dynamic` section's `DT_NEEDED` entries → ``dynamic(runtimePath:)``.
    ///   The path is searched as the loader would, minus its cache: `DT_RPATH` (when there is no
    ///   `DT_RUNPATH`), this process's `LD_LIBRARY_PATH`, `DT_RUNPATH` (`$ORIGIN` expanded), then
    ///   `/lib/x86_64-linux-gnu`, `/usr/lib/x86_64-linux-gnu`, `/lib64`, `/usr/lib64`, `/lib`, `/usr/lib`.
    /// - Otherwise, a `swift5_*` metadata section, or a *defined* `swift_retain`/`swift_allocObject` in
    ///   `.symtab` or `.dynsym` → ``staticallyLinked``.
    /// - Otherwise → ``notSwift``.
    public static func inspect(executableAt path: String) -> SwiftRuntimeLinkage {
        guard elf_version(UInt32(EV_CURRENT)) != UInt32(EV_NONE) else {
            return .notELF(reason: "libelf is out of date")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return .notELF(reason: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard let elf = elf_begin(descriptor, ELF_C_READ, nil) else {
            return .notELF(reason: "cannot read \(path): \(libelfMessage())")
        }
        defer { elf_end(elf) }
        guard elf_kind(elf) == ELF_K_ELF else {
            return .notELF(reason: "\(path) is not an ELF file")
        }
        let contents = ELFContents(elf)
        if let name = contents.needed.first(where: { $0.hasPrefix("libswiftCore.so") }) {
            let origin = directory(of: realPath(path) ?? path)
            return .dynamic(runtimePath: findLibrary(name, contents: contents, origin: origin))
        }
        if contents.hasSwiftMetadataSection || contents.definesSwiftRuntimeSymbol {
            return .staticallyLinked
        }
        return .notSwift
    }

    private static func findLibrary(_ name: String, contents: ELFContents, origin: String) -> String? {
        func directories(_ list: String?) -> [String] {
            guard let list else { return [] }
            return list.split(separator: ":").map {
                String($0).replacing("${ORIGIN}", with: origin).replacing("$ORIGIN", with: origin)
            }
        }
        var search: [String] = []
        if contents.runPath == nil {
            search += directories(contents.rPath)
        }
        search += directories(getenv("LD_LIBRARY_PATH").map { String(cString: $0) })
        search += directories(contents.runPath)
        search += ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"]
        for directory in search where !directory.isEmpty {
            let candidate = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            if access(candidate, F_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func libelfMessage() -> String {
        elf_errmsg(-1).map { String(cString: $0) } ?? "unknown libelf error"
    }
}

/// What ``SwiftRuntimeLinkage/inspect(executableAt:)`` needs from an ELF file, read in one pass over its
/// sections.
private struct ELFContents {
    var needed: [String] = []
    var rPath: String?
    var runPath: String?
    var hasSwiftMetadataSection = false
    var definesSwiftRuntimeSymbol = false

    private static let runtimeSymbols = ["swift_retain", "swift_allocObject"]

    init(_ elf: OpaquePointer) {
        var sectionNames = 0
        let haveNames = elf_getshdrstrndx(elf, &sectionNames) == 0
        var section = elf_nextscn(elf, nil)
        while let current = section {
            defer { section = elf_nextscn(elf, current) }
            var header = GElf_Shdr()
            guard gelf_getshdr(current, &header) != nil else { continue }
            if haveNames, let name = elf_strptr(elf, sectionNames, Int(header.sh_name)) {
                let sectionName = String(cString: name)
                if sectionName.hasPrefix("swift5_") || sectionName.hasPrefix(".swift5_") {
                    hasSwiftMetadataSection = true
                }
            }
            guard header.sh_entsize > 0, let data = elf_getdata(current, nil) else { continue }
            let count = Int(header.sh_size / header.sh_entsize)
            let strings = Int(header.sh_link)
            switch header.sh_type {
            case UInt32(SHT_DYNAMIC):
                readDynamic(elf, data, count: count, strings: strings)
            case UInt32(SHT_SYMTAB), UInt32(SHT_DYNSYM):
                if !definesSwiftRuntimeSymbol {
                    definesSwiftRuntimeSymbol = Self.definesRuntimeSymbol(elf, data, count: count, strings: strings)
                }
            default:
                break
            }
        }
    }

    private mutating func readDynamic(
        _ elf: OpaquePointer, _ data: UnsafeMutablePointer<Elf_Data>, count: Int, strings: Int
    ) {
        for index in 0..<count {
            var entry = GElf_Dyn()
            guard gelf_getdyn(data, Int32(index), &entry) != nil else { continue }
            let tag = entry.d_tag
            guard tag == Int64(DT_NEEDED) || tag == Int64(DT_RPATH) || tag == Int64(DT_RUNPATH),
                let text = elf_strptr(elf, strings, Int(entry.d_un.d_val))
            else { continue }
            let value = String(cString: text)
            switch tag {
            case Int64(DT_NEEDED): needed.append(value)
            case Int64(DT_RPATH): rPath = value
            default: runPath = value
            }
        }
    }

    private static func definesRuntimeSymbol(
        _ elf: OpaquePointer, _ data: UnsafeMutablePointer<Elf_Data>, count: Int, strings: Int
    ) -> Bool {
        for index in 0..<count {
            var symbol = GElf_Sym()
            guard gelf_getsym(data, Int32(index), &symbol) != nil, symbol.st_shndx != UInt16(SHN_UNDEF),
                let name = elf_strptr(elf, strings, Int(symbol.st_name))
            else { continue }
            for wanted in runtimeSymbols where strcmp(name, wanted) == 0 {
                return true
            }
        }
        return false
    }
}
