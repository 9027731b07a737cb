import CGraphviz
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The process's one Graphviz context, with its plugins loaded, behind a lock.
///
/// Graphviz keeps global state (cgraph's parser and error handler, gvc's plugin registry), so every use
/// goes through ``withContext(_:)``, one at a time. The context is made on first use and kept.
///
/// **Plugins.** `gvContext()` loads plugins on demand as the configuration file `config6a` (written by
/// Debian's libgvc6 package beside the plugins) lists them; when that file is missing, gvc 2.42 skips part
/// of its set-up and crashes at the first label it measures (seen here with `GVBINDIR` pointing at an empty
/// directory), and `gvPluginList` crashes on a context without plugins. So the context is made with
/// `gvContextPlugins(builtins, 0)` instead: no demand loading, and as built-ins the plugin libraries this
/// module needs, opened with `dlopen` from `$GVBINDIR`, else the `graphviz` directory beside libgvc
/// (`/usr/lib/x86_64-linux-gnu/graphviz` on Debian): `dot_layout` (dot), `neato_layout` (sfdp, neato,
/// circo) and `core` (the SVG renderer) are required; `pango` (text measurement, as `dot` itself uses it)
/// is taken when present, else Graphviz estimates text widths from built-in font metrics.
///
/// **Messages.** Graphviz reports errors and warnings through `agerr`; they are collected here instead
/// of being printed, and a failure's message carries them.
enum GraphvizContext {
    /// The state behind the lock.
    struct State: ~Copyable {
        /// The context, once made.
        var context: OpaquePointer?
        /// Why no usable context could be made, once tried.
        var failure: GraphvizError?
    }

    private static let state = Mutex(State())

    /// Messages Graphviz reported since the last ``takeMessages()``; used only under the lock.
    nonisolated(unsafe) private static var messages: [String] = []

    /// A plugin library and the symbol of its plugin table.
    struct Plugin {
        var library: String
        var symbol: String
        var isRequired: Bool
    }

    /// The plugin libraries the context is made with.
    static let plugins = [
        Plugin(library: "libgvplugin_dot_layout.so.6", symbol: "gvplugin_dot_layout_LTX_library", isRequired: true),
        Plugin(library: "libgvplugin_neato_layout.so.6", symbol: "gvplugin_neato_layout_LTX_library", isRequired: true),
        Plugin(library: "libgvplugin_core.so.6", symbol: "gvplugin_core_LTX_library", isRequired: true),
        Plugin(library: "libgvplugin_pango.so.6", symbol: "gvplugin_pango_LTX_library", isRequired: false),
    ]

    /// Runs `body` with the context, holding the lock.
    /// - Throws: ``GraphvizError`` with code `pluginsMissing` when no usable context can be made, or what
    ///   `body` throws.
    static func withContext<Result: Sendable>(
        _ body: (OpaquePointer) throws(GraphvizError) -> Result
    ) throws(GraphvizError) -> Result {
        try state.withLock { (state: inout State) throws(GraphvizError) -> Result in
            if let failure = state.failure {
                throw failure
            }
            let context: OpaquePointer
            if let existing = state.context {
                context = existing
            } else {
                switch makeContext() {
                case .success(let made):
                    context = made
                case .failure(let error):
                    state.failure = error
                    throw error
                }
                state.context = context
            }
            _ = takeMessages()
            return try body(context)
        }
    }

    /// Graphviz's messages since the last call, joined into one line each (under the lock only).
    static func takeMessages() -> [String] {
        let joined = messages.joined()
        messages = []
        return joined.split(whereSeparator: \.isNewline).map { line in
            String(line.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        }.filter { !$0.isEmpty }
    }

    private static func makeContext() -> Result<OpaquePointer, GraphvizError> {
        _ = agseterrf { text in
            if let text {
                GraphvizContext.messages.append(String(cString: text))
            }
            return 0
        }
        var directories: [String] = []
        if let override = getenv("GVBINDIR"), override.pointee != 0 {
            directories.append(String(cString: override))
        }
        if let directory = libgvcDirectory() {
            directories.append(directory + "/graphviz")
        }
        var builtins: [lt_symlist_t] = []
        var missing: [String] = []
        for plugin in plugins {
            if let table = openPlugin(plugin, in: directories) {
                builtins.append(lt_symlist_t(name: UnsafePointer(strdup(plugin.symbol)), address: table))
            } else if plugin.isRequired {
                missing.append(plugin.library)
            }
        }
        guard missing.isEmpty else {
            let place = directories.isEmpty ? "" : " in \(directories.joined(separator: " or "))"
            return .failure(
                GraphvizError(
                    code: .pluginsMissing,
                    message: "Graphviz's plugins \(missing.joined(separator: ", ")) were not found\(place) "
                        + "(install Debian's libgvc6 package, or set GVBINDIR to their directory)"
                )
            )
        }
        builtins.append(lt_symlist_t(name: nil, address: nil))
        // Kept for the life of the process, as the context refers to it.
        let table = UnsafeMutablePointer<lt_symlist_t>.allocate(capacity: builtins.count)
        table.initialize(from: builtins, count: builtins.count)
        guard let context = gvContextPlugins(table, 0) else {
            return .failure(GraphvizError(code: .pluginsMissing, message: "Graphviz could not create a context"))
        }
        return .success(context)
    }

    /// The plugin table of `plugin`, from the first of `directories` that has its library (else from the
    /// loader's search path); the library stays loaded.
    private static func openPlugin(_ plugin: Plugin, in directories: [String]) -> UnsafeMutableRawPointer? {
        for candidate in directories.map({ $0 + "/" + plugin.library }) + [plugin.library] {
            guard let handle = dlopen(candidate, RTLD_NOW | RTLD_LOCAL) else { continue }
            if let table = dlsym(handle, plugin.symbol) {
                return table
            }
        }
        return nil
    }

    /// The directory libgvc was loaded from, read from `/proc/self/maps`.
    private static func libgvcDirectory() -> String? {
        guard let file = fopen("/proc/self/maps", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(
                decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard let slash = text.firstIndex(of: "/"), text.contains("/libgvc.so") else { continue }
            let path = text[slash...]
            if let last = path.lastIndex(of: "/") {
                return String(path[..<last])
            }
        }
        return nil
    }
}
