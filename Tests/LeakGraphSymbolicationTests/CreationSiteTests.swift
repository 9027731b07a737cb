import LeakGraphSymbolication
import Testing

@Suite("Creation site")
struct CreationSiteTests {
    static let executable = "/work/ring_rel"
    static let libswiftCore = "/opt/swift/usr/lib/swift/linux/libswiftCore.so"

    static func frame(
        _ function: String, in module: String? = executable, file: String? = nil, line: Int? = nil,
        raw: String? = nil, inlined: Bool = false, address: UInt = 0x1000
    ) -> SymbolizedFrame {
        SymbolizedFrame(
            address: address, function: function, rawSymbol: raw, file: file, line: line, module: module,
            isInlined: inlined)
    }

    @Test("release build: the inlined allocating initializer is skipped for the line that called it")
    func releaseBuild() {
        let site = Self.frame("ring_rel.makeRing() -> ()", file: "/work/ring.swift", line: 6)
        let frames = [
            Self.frame("swift_allocObject", in: Self.libswiftCore),
            Self.frame(
                "ring_rel.DummyObject.__allocating_init(Swift.Int) -> ring_rel.DummyObject", file: "/work/ring.swift",
                line: 1, raw: "$s8ring_rel11DummyObjectCyACSicfC", inlined: true),
            site,
        ]
        #expect(FramePolicy.creationSite(frames, executablePath: Self.executable) == site)
    }

    @Test("debug build: the allocating initializer's own frame, without a line, is skipped")
    func debugBuild() {
        let site = Self.frame("ring_debug.makeRing() -> ()", file: "/work/ring.swift", line: 5)
        let frames = [
            Self.frame("swift_allocObject", in: Self.libswiftCore),
            Self.frame("ring_debug.DummyObject.__allocating_init(Swift.Int) -> ring_debug.DummyObject", file: "/work/ring.swift"),
            site,
            Self.frame("main", file: "/work/ring.swift", line: 13),
        ]
        #expect(FramePolicy.creationSite(frames, executablePath: Self.executable) == site)
    }

    @Test("thunks and standard-library code inlined into the program are not creation sites")
    func thunksAndInlinedLibraryCode() {
        let site = Self.frame("App.makeParent() -> ()", file: "/work/main.swift", line: 10)
        let frames = [
            Self.frame(
                "generic specialization <App.Child> of Swift._allocateUninitializedArray<A>(Builtin.Word) -> "
                    + "(Swift.Array<A>, Builtin.RawPointer)",
                file: "/swift/stdlib/public/core/ArrayShared.swift", line: 88,
                raw: "$ss27_allocateUninitializedArrayySayxG_BptBwlF3App5ChildC_Tg5", inlined: true),
            Self.frame("reabstraction thunk helper from @escaping @callee_guaranteed () -> ()", file: "/work/main.swift", line: 3),
            site,
        ]
        #expect(FramePolicy.creationSite(frames, executablePath: Self.executable) == site)
        #expect(FramePolicy.category(of: frames[0], executablePath: Self.executable) == .library)
        #expect(FramePolicy.isCompilerGenerated(frames[1]))
        #expect(!FramePolicy.isCompilerGenerated(site))
    }

    @Test("without a placed user frame: a placed library frame, then a frame with a file, then the first frame")
    func fallbacks() {
        let library = Self.frame("Foundation.NSObject.init()", in: "/usr/lib/libFoundation.so", file: "/f/NSObject.swift", line: 4)
        let userWithFile = Self.frame("App.Node.__allocating_init() -> App.Node", file: "/work/main.swift")
        let unplaced = Self.frame("App.build() -> ()")
        let runtime = Self.frame("swift_allocObject", in: Self.libswiftCore)
        #expect(FramePolicy.creationSite([runtime, userWithFile, library], executablePath: Self.executable) == library)
        #expect(FramePolicy.creationSite([runtime, unplaced, userWithFile], executablePath: Self.executable) == userWithFile)
        #expect(FramePolicy.creationSite([runtime, unplaced], executablePath: Self.executable) == unplaced)
        #expect(FramePolicy.creationSite([runtime], executablePath: Self.executable) == runtime)
        #expect(FramePolicy.creationSite([], executablePath: Self.executable) == nil)
    }
}
