import LeakGraphSymbolication
import Testing

@Suite("Frame policy")
struct FramePolicyTests {
    static let executable = "/home/dev/App/.build/debug/App"
    static let toolchain = "/opt/swift/usr/lib/swift/linux"

    static func frame(_ function: String, in module: String?, address: UInt = 0x1000) -> SymbolizedFrame {
        SymbolizedFrame(address: address, function: function, module: module)
    }

    /// A creation stack as the hook records it, innermost first.
    static let creationStack: [SymbolizedFrame] = [
        frame("lg_record_allocation", in: "/tmp/lib/libLeakGraphPreload.so", address: 1),
        frame("swift_allocObject", in: "\(toolchain)/libswiftCore.so", address: 2),
        frame("Swift.Array.append(__owned A) -> ()", in: "\(toolchain)/libswiftCore.so", address: 3),
        frame("App.Node.__allocating_init(name: Swift.String) -> App.Node", in: executable, address: 4),
        frame(
            "Parser.Tokenizer.next() -> Swift.Optional<Parser.Token>", in: "/home/dev/App/.build/debug/libParser.so",
            address: 5),
        frame("(1) await resume partial function for App.main() async -> ()", in: executable, address: 6),
        frame(
            "swift::runJobInEstablishedExecutorContext(swift::Job*)", in: "\(toolchain)/libswift_Concurrency.so",
            address: 7),
        frame("_dispatch_worker_thread", in: "\(toolchain)/libdispatch.so", address: 8),
        frame("__libc_start_call_main", in: "/usr/lib/x86_64-linux-gnu/libc.so.6", address: 9),
        frame("start_thread", in: "/usr/lib/x86_64-linux-gnu/libc.so.6", address: 10),
        frame("0xdead", in: nil, address: 11),
    ]

    @Test("user frames come first, then library frames, in their order; runtime frames are folded out")
    func ordering() {
        let ordered = FramePolicy.userFramesFirst(Self.creationStack, executablePath: Self.executable)
        #expect(ordered.map(\.address) == [4, 5, 6, 8, 11])
    }

    @Test("categories of typical frames")
    func categories() {
        let categories = Self.creationStack.map { FramePolicy.category(of: $0, executablePath: Self.executable) }
        #expect(
            categories == [
                .runtime, .runtime, .runtime, .user, .user, .user, .runtime, .library, .runtime, .runtime, .library,
            ])
    }

    @Test("runtime functions are recognised by name in any module")
    func runtimeByName() {
        for name in ["swift_retain", "_swift_release_dealloc", "lg_hook", "__libc_malloc"] {
            #expect(FramePolicy.isRuntimeFrame(Self.frame(name, in: Self.executable)))
        }
        #expect(!FramePolicy.isRuntimeFrame(Self.frame("App.swiftly()", in: Self.executable)))
        #expect(!FramePolicy.isRuntimeFrame(Self.frame("libcurl_helper", in: "/usr/lib/libcurl.so.4")))
    }

    @Test("the executable matches by path or by file name; toolchain and system libraries are not user code")
    func userFrames() {
        let frame = Self.frame("App.run()", in: Self.executable)
        #expect(FramePolicy.isUserFrame(frame, executablePath: Self.executable))
        #expect(FramePolicy.isUserFrame(frame, executablePath: "./App"))
        #expect(FramePolicy.isUserFrame(frame, executablePath: nil))
        #expect(
            !FramePolicy.isUserFrame(
                Self.frame("Foundation.Data.init()", in: "\(Self.toolchain)/libFoundation.so"),
                executablePath: Self.executable))
        #expect(
            !FramePolicy.isUserFrame(
                Self.frame("Swift.print()", in: "/usr/lib/swift/linux/libswiftCore.so"), executablePath: nil))
        #expect(
            !FramePolicy.isUserFrame(
                Self.frame("curl_easy_perform", in: "/usr/lib/x86_64-linux-gnu/libcurl.so.4"),
                executablePath: Self.executable))
        #expect(!FramePolicy.isUserFrame(Self.frame("0x10", in: nil), executablePath: Self.executable))
        #expect(
            FramePolicy.isUserFrame(
                Self.frame("Plugin.load()", in: "/home/dev/plugins/libPlugin.so"), executablePath: Self.executable))
    }

    @Test("a backtrace made only of runtime frames is kept as it is")
    func onlyRuntime() {
        let frames = Array(Self.creationStack.prefix(2))
        #expect(FramePolicy.userFramesFirst(frames, executablePath: Self.executable) == frames)
        #expect(FramePolicy.userFramesFirst([], executablePath: nil).isEmpty)
    }
}
