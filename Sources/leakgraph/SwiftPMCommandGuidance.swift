import LeakGraphRender
import LeakGraphReport

/// `leakgraph run swift run App` and `leakgraph run swift test` would check SwiftPM and the compiler,
/// not the program: the preload library is in the `swift` driver, and the program it starts is not
/// followed. Refused with the exact commands to run instead.
enum SwiftPMCommandGuidance {
    /// `swift run` options that take a value (the product is the first argument that is not an option
    /// or an option's value).
    private static let optionsWithValue: Set<String> = [
        "-c", "--configuration", "--package-path", "--scratch-path", "--build-path", "--cache-path", "--triple",
        "--sdk", "--toolchain", "--swift-sdk", "-j", "--jobs", "-Xswiftc", "-Xcc", "-Xlinker", "-Xcxx",
        "--product", "--arch",
    ]

    /// Throws the guidance when `command` runs `swift run`, `swift test` or `swift build` through
    /// the `swift` driver (`executable` is its resolved path).
    /// - Throws: ``ToolError`` saying what to run instead.
    static func check(command: [String], executable: String) throws(ToolError) {
        let name = executable.split(separator: "/").last.map(String.init) ?? executable
        let subcommand: String?
        let rest: ArraySlice<String>
        switch name {
        case "swift" where command.count > 1:
            subcommand = command[1]
            rest = command.dropFirst(2)
        case "swift-run", "swift-test", "swift-build":
            subcommand = String(name.dropFirst("swift-".count))
            rest = command.dropFirst()
        default:
            return
        }
        switch subcommand {
        case "run":
            let product = productIndex(rest).map { rest[$0] }
            let configuration = rest.firstIndex { $0 == "-c" || $0 == "--configuration" }
                .flatMap { rest.index(after: $0) < rest.endIndex ? rest[rest.index(after: $0)] : nil }
            let flags = configuration.map { " -c \($0)" } ?? ""
            let arguments = productArguments(rest)
            throw ToolError(
                "`swift run` builds the product and runs it inside SwiftPM, so LeakGraph would check SwiftPM, not "
                    + "\(product ?? "your program"); build it, then run the executable: "
                    + "swift build\(flags)\(product.map { " --product \($0)" } ?? "") && "
                    + "leakgraph run -- \"$(swift build\(flags) --show-bin-path)/\(product ?? "EXECUTABLE")\"\(arguments)"
            )
        case "test":
            throw ToolError(
                "`swift test` runs the tests inside SwiftPM, so LeakGraph would check SwiftPM, not your tests; "
                    + "run `leakgraph test` (it builds the tests and checks each testing library's run)")
        case "build":
            throw ToolError(
                "`swift build` only builds; build first, then run the executable: leakgraph run -- .build/debug/EXECUTABLE"
            )
        default:
            return
        }
    }

    /// The index of the product `swift run` would run: its first argument that is neither an option
    /// nor an option's value, before any `--`.
    private static func productIndex(_ arguments: ArraySlice<String>) -> Int? {
        var skipNext = false
        for index in arguments.indices {
            let argument = arguments[index]
            if skipNext {
                skipNext = false
                continue
            }
            if argument == "--" { return nil }
            if argument.hasPrefix("-") {
                skipNext = optionsWithValue.contains(argument)
                continue
            }
            return index
        }
        return nil
    }

    /// The program's own arguments given to `swift run` (after the product, or after `--`),
    /// shell-quoted, each with a leading space; empty when there are none.
    private static func productArguments(_ arguments: ArraySlice<String>) -> String {
        guard let start = arguments.firstIndex(of: "--") ?? productIndex(arguments) else { return "" }
        return arguments[arguments.index(after: start)...].map { " " + ReportNaming.shellQuoted($0) }.joined()
    }
}
