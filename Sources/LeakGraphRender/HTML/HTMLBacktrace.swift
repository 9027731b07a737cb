/// A creation backtrace as HTML, as the HTML report and the snapshot browser (`LeakGraphWeb`) both show
/// it: an `ol.frames` list, one item per frame — its function as code, its place (`main.swift:12`, the
/// file's path as the place's title) and the creation site tagged — styled by ``HTMLStyle/frames``.
public enum HTMLBacktrace {
    /// One frame: `<li><code>function</code> <span class="where" title="file">place</span></li>`, with
    /// the class `site` and a `creation site` tag when it is the creation site.
    ///
    /// - Parameters:
    ///   - function: The frame's function.
    ///   - file: Its source file, if known.
    ///   - place: Its place as shown (`main.swift:12`); written only with a file.
    ///   - isSite: Whether it is the creation site.
    ///   - classes: Classes of the item's own, before `site` (the snapshot browser's frame categories:
    ///     `program`, `library`, `runtime`, `unknown`).
    public static func item(
        function: String, file: String?, place: String?, isSite: Bool, classes: [String] = []
    ) -> String {
        let classes = classes + (isSite ? ["site"] : [])
        let attribute = classes.isEmpty ? "" : " class=\"\(classes.joined(separator: " "))\""
        var item = "<li\(attribute)><code>\(HTMLText.escaped(function))</code>"
        if let file, let place {
            item += " <span class=\"where\" title=\"\(HTMLText.escaped(file))\">\(HTMLText.escaped(place))</span>"
        }
        if isSite {
            item += " <span class=\"site-tag\">creation site</span>"
        }
        return item + "</li>"
    }
}
