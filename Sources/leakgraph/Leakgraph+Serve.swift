import ArgumentParser
import Foundation
import LeakGraphWeb

extension Leakgraph {
    /// `leakgraph serve FILE [--compare OLD] [--port N] [--host H]`: the web UI of a heap snapshot, as
    /// `go tool pprof -http` serves a profile.
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Browse a heap snapshot in a local web UI: types, objects, the memory inspector, leaks, dominators.",
            usage: "leakgraph serve <file> [--compare <old>] [--port <n>] [--host <address>]",
            discussion: """
                Prints the UI's address (http://127.0.0.1:PORT/) on standard output, then serves until \
                interrupted. It listens on the loopback address unless --host says otherwise; --port 0 \
                (the default) picks a free port. FILE is a snapshot or a JSON leak report; with --compare, \
                the Comparison page shows what changed since OLD. Every page is a URL and works without \
                JavaScript (docs/snapshots.md).

                Exit status: 2 when a file cannot be read or the address cannot be listened on (a port in \
                use).
                """
        )

        /// The snapshot.
        @Argument(help: ArgumentHelp("The snapshot, or a JSON leak report.", valueName: "file"))
        var path: String

        /// The older snapshot to compare with.
        @Option(
            name: .customLong("compare"),
            help: ArgumentHelp("An older snapshot of the program to compare with.", valueName: "old"))
        var comparePath: String?

        /// The port.
        @Option(
            name: .customLong("port"),
            help: ArgumentHelp("The port to listen on (0, the default, picks a free one).", valueName: "n"))
        var port = 0

        /// The address to listen on.
        @Option(
            name: .customLong("host"),
            help: ArgumentHelp("The address to listen on (default 127.0.0.1: this machine only).", valueName: "address")
        )
        var host = "127.0.0.1"

        func validate() throws {
            guard (0...65535).contains(port) else {
                throw ValidationError("--port takes a port from 0 to 65535, not \(port)")
            }
            guard !host.isEmpty else { throw ValidationError("--host needs an address, such as 127.0.0.1") }
        }

        func run() throws {
            let (snapshot, analysis) = try SnapshotLoading.load(path)
            let old = try comparePath.map { path throws(ToolError) in try SnapshotLoading.load(path) }
            let site = SnapshotSite(snapshot: snapshot, analysis: analysis, comparingWith: old)
            let server: SnapshotServer
            do {
                server = try SnapshotServer(site: site, host: host, port: port)
            } catch {
                throw ToolError(error.description)
            }
            FileHandle.standardOutput.write(Data((server.url + "\n").utf8))
            try server.wait()
        }
    }
}
