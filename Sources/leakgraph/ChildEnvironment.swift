import CLeakGraphContract

#if canImport(Glibc)
    import Glibc
#endif

/// The environment `leakgraph run` gives the checked program: its own, plus the preload contract.
///
/// The contract with `libLeakGraphPreload.so` (names from `CLeakGraphContract.h`):
/// - `LD_PRELOAD`: the library's absolute path, before any value already there (`:`-separated);
/// - `LG_ENV_ORIGINAL_LD_PRELOAD`: the previous `LD_PRELOAD`, absent when there was none;
/// - `LG_ENV_OUTPUT`: where the library writes the JSON report at exit (see ``ReportWorkspace`` for
///   the files beside it);
/// - `LG_ENV_FRAMES`: how many creation-stack frames to record;
/// - `LG_ENV_PROGRAM`: the program's path as the report names it, absent when not given;
/// - `LG_ENV_RENDER`: what the library renders beside the report (``ChildRendering``), absent when
///   nothing is asked;
/// - `LG_ENV_PARENT_PID`: this process, which the program dies with (`PR_SET_PDEATHSIG`);
/// - `LG_ENV_TEST_OBSERVER`: the test observer library, when it is beside the preload library (the
///   library loads it into test processes, so the report names the test that made each leak);
/// - `LG_ENV_SYMBOLIZER`: the socket where `leakgraph` symbolizes the program's creation stacks
///   (``CheckSymbolization``), when it serves one.
struct ChildEnvironment: Equatable {
    /// The variables, in no particular order.
    var variables: [String: String]

    /// Builds the program's environment from the tool's own.
    ///
    /// - Parameters:
    ///   - program: the program's path as the report names it; `nil` leaves `LG_ENV_PROGRAM` unset.
    ///   - rendering: what the library writes besides (or instead of) the compact JSON report.
    ///   - liveTypes: whether the check counts every live object by type (`LG_ENV_LIVE_TYPES`).
    init(
        inheriting inherited: [String: String], preloadLibrary: String, reportPath: String, frames: Int,
        program: String? = nil, rendering: ChildRendering = ChildRendering(), liveTypes: Bool = false,
        testObserver: String? = nil, symbolizer: String? = nil
    ) {
        var variables = inherited
        let original = inherited["LD_PRELOAD"]
        if let original, !original.isEmpty {
            variables["LD_PRELOAD"] = preloadLibrary + ":" + original
        } else {
            variables["LD_PRELOAD"] = preloadLibrary
        }
        variables[LG_ENV_ORIGINAL_LD_PRELOAD] = original
        variables[LG_ENV_OUTPUT] = reportPath
        variables[LG_ENV_FRAMES] = String(frames)
        variables[LG_ENV_PROGRAM] = program
        variables[LG_ENV_RENDER] = rendering.isEmpty ? nil : rendering.words.joined(separator: ",")
        variables[LG_ENV_LIVE_TYPES] = liveTypes ? "1" : nil
        variables[LG_ENV_PARENT_PID] = String(getpid())
        variables[LG_ENV_TEST_OBSERVER] = testObserver
        if let symbolizer { variables[LG_ENV_SYMBOLIZER] = symbolizer }
        self.variables = variables
    }

    /// `NAME=value` strings for `posix_spawn`, sorted by name.
    var entries: [String] {
        variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }
}

/// This process's environment as a dictionary (the first definition of a repeated name wins, as with
/// `getenv`).
func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
        let text = String(cString: pointer)
        if let equals = text.firstIndex(of: "=") {
            let name = String(text[..<equals])
            if result[name] == nil {
                result[name] = String(text[text.index(after: equals)...])
            }
        }
        entry += 1
    }
    return result
}
