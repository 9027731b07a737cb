/// Which frames of a creation backtrace a person wants to read first.
///
/// A frame is one of three kinds (``Category``):
/// - **runtime**: the machinery every allocation passes through — frames in `libswiftCore.so`,
///   `libswift_*.so` (Concurrency, StringProcessing, …), `libc.so`, `ld-linux*`, `libLeakGraphPreload.so`,
///   and frames whose function starts with `swift_`, `_swift_`, `lg_` (LeakGraph's hook) or `__libc`.
/// - **user**: the program's own code — frames in the executable, or in a library that is neither part of
///   the Swift toolchain nor of the system.
/// - **library**: everything else — toolchain libraries (`libswift*`, Foundation, XCTest, Testing, Dispatch,
///   anything under a `…/usr/lib/swift/` directory), system libraries (`/lib`, `/usr/lib`, …), addresses
///   outside any module, and functions of a toolchain module (the standard library, Foundation, …) that the
///   compiler inlined into user code (``SymbolizedFrame/isInlined``, judged by the Swift module in the
///   mangled name, e.g. `$ss…` for `Swift`).
///
/// The rules look only at the module path and the function name, so they are cheap and predictable.
public enum FramePolicy {
    /// The kind of a frame; see ``FramePolicy``.
    public enum Category: Sendable, Hashable {
        /// The program's own code.
        case user
        /// Toolchain and system libraries, and unknown addresses.
        case library
        /// Runtime, libc, loader and LeakGraph frames, folded out of reports.
        case runtime
    }

    /// The frames to show: user frames first, then library frames, each in their original order, with runtime
    /// frames dropped.
    ///
    /// If every frame is a runtime frame, `frames` is returned unchanged, so a backtrace never comes out empty.
    ///
    /// - Parameters:
    ///   - frames: A backtrace, innermost frame first.
    ///   - executablePath: The program's executable; its frames are user frames
    ///     (see ``isUserFrame(_:executablePath:)``).
    /// - Complexity: O(*n*).
    public static func userFramesFirst(_ frames: [SymbolizedFrame], executablePath: String?) -> [SymbolizedFrame] {
        var user: [SymbolizedFrame] = []
        var library: [SymbolizedFrame] = []
        for frame in frames {
            switch category(of: frame, executablePath: executablePath) {
            case .user: user.append(frame)
            case .library: library.append(frame)
            case .runtime: continue
            }
        }
        let kept = user + library
        return kept.isEmpty ? frames : kept
    }

    /// Whether `frame` is the program's own code: not a runtime frame, and either in the executable or in a
    /// library that is neither a toolchain nor a system library.
    ///
    /// The executable matches by full path or, failing that, by file name (the path a user typed may be
    /// relative or a symbolic link, while module paths come from the process's memory map).
    public static func isUserFrame(_ frame: SymbolizedFrame, executablePath: String?) -> Bool {
        category(of: frame, executablePath: executablePath) == .user
    }

    /// Whether `frame` belongs to the runtime, libc, the loader or LeakGraph itself (see ``FramePolicy``).
    public static func isRuntimeFrame(_ frame: SymbolizedFrame) -> Bool {
        for prefix in runtimeFunctionPrefixes where frame.function.hasPrefix(prefix) {
            return true
        }
        guard let module = frame.module else { return false }
        return isRuntimeModule(module)
    }

    /// Whether the module at `path` is the runtime, libc, the loader or LeakGraph's hook: every frame in it
    /// is a runtime frame. The symbolizer reads no debug information for such a module (names only).
    public static func isRuntimeModule(_ path: String) -> Bool {
        let name = fileName(path)
        return runtimeModulePrefixes.contains { name.hasPrefix($0) }
            || (name.hasPrefix("libswift_") && name.contains(".so"))
    }

    /// The kind of `frame`.
    public static func category(of frame: SymbolizedFrame, executablePath: String?) -> Category {
        if isRuntimeFrame(frame) {
            return .runtime
        }
        guard let module = frame.module else {
            return .library
        }
        if frame.isInlined, let name = frame.rawSymbol, let swiftModule = swiftModule(ofMangledName: name),
            toolchainSwiftModules.contains(swiftModule)
        {
            return .library
        }
        if let executablePath, module == executablePath || fileName(module) == fileName(executablePath) {
            return .user
        }
        return isToolchainOrSystemLibrary(module) ? .library : .user
    }

    /// Whether `module` is a Swift module shipped with the toolchain (`Swift`, `Foundation`, `Dispatch`,
    /// `XCTest`, `Testing`, …): its types and inlined code are library code.
    public static func isToolchainModule(_ module: String) -> Bool {
        toolchainSwiftModules.contains(Substring(module))
    }

    private static let runtimeFunctionPrefixes = ["swift_", "_swift_", "lg_", "__libc"]
    private static let runtimeModulePrefixes = ["libswiftCore.so", "libc.so", "ld-linux", "libLeakGraphPreload.so"]
    private static let toolchainModulePrefixes = [
        "libswift", "libFoundation", "lib_Foundation", "libXCTest", "libTesting", "libdispatch",
        "libBlocksRuntime", "libstdc++", "libgcc_s", "libm.so", "libpthread", "libdl.so", "librt.so",
        "linux-vdso", "[vdso]",
    ]
    private static let systemDirectories = ["/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/libexec/"]

    /// Swift modules shipped with the toolchain, whose inlined functions are library code.
    private static let toolchainSwiftModules: Set<Substring> = [
        "Swift", "_Concurrency", "_StringProcessing", "_RegexParser", "RegexBuilder", "Synchronization",
        "Observation", "Distributed", "_Differentiation", "Cxx", "CxxStdlib", "Glibc", "Musl", "SwiftGlibc",
        "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
        "FoundationXML", "_FoundationCShims", "Dispatch", "XCTest", "Testing", "Runtime", "_Backtracing",
    ]

    /// The module a Swift mangled name (`$s…`, `_$s…`) starts in: `Swift` for the standard library's
    /// shorthands (`$ss…`, `$sSa…`), the spelled-out module name otherwise (`$s8ring_rel…` → `ring_rel`), `nil`
    /// for anything else.
    public static func swiftModule(ofMangledName name: String) -> Substring? {
        var rest = Substring(name)
        for prefix in ["_$s", "$s"] where rest.hasPrefix(prefix) {
            rest = rest.dropFirst(prefix.count)
            guard let first = rest.first else { return nil }
            if first == "s" {
                return "Swift"
            }
            if first == "S" {
                // `So` and `SC` stand for imported C declarations; other `S` shorthands are standard types.
                let second = rest.dropFirst().first
                return second == "o" || second == "C" ? nil : "Swift"
            }
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard let length = Int(digits), length > 0 else { return nil }
            let module = rest.dropFirst(digits.count).prefix(length)
            return module.count == length ? module : nil
        }
        return nil
    }

    private static func isToolchainOrSystemLibrary(_ module: String) -> Bool {
        let name = fileName(module)
        return toolchainModulePrefixes.contains { name.hasPrefix($0) }
            || systemDirectories.contains { module.hasPrefix($0) }
            || module.contains("/usr/lib/swift/")
    }

    private static func fileName(_ path: String) -> Substring {
        path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path)
    }
}
