import Foundation
import LeakGraphSymbolication

/// `leakgraph run`'s symbolizer for the program's checks (`LG_ENV_SYMBOLIZER`): a
/// ``SymbolizationServer`` on a socket in the run's workspace, served on a thread of its own while the
/// program runs. The program's checks send it creation stacks' return addresses and get the frames
/// back, so the debug information is read here, not in the program's memory.
struct CheckSymbolization {
    private let server: SymbolizationServer

    /// Starts serving in `workspace`; `nil` when the socket cannot be made (a path too long for a
    /// socket): the program then symbolizes its stacks itself, with the same frames.
    static func start(in workspace: ReportWorkspace) -> CheckSymbolization? {
        guard let server = try? SymbolizationServer(path: workspace.directory + "/symbolizer.socket") else {
            return nil
        }
        let thread = Thread { server.serve() }
        thread.name = "leakgraph symbolizer"
        thread.start()
        return CheckSymbolization(server: server)
    }

    /// The socket's path, for `LG_ENV_SYMBOLIZER`.
    var path: String { server.path }

    /// Stops serving: the program has ended.
    func stop() {
        server.stop()
    }
}
