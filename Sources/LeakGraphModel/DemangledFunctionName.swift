/// Reading a demangled Swift function name (`swift_demangle`'s text).
public enum DemangledFunctionName {
    /// The function proper: what follows the last ` in ` outside brackets, after the closures and
    /// thunks around it (`closure #1 () -> () in Foundation.Timer.init(…)` → `Foundation.Timer.init(…)`);
    /// the whole name when there is none.
    public static func proper(_ function: String) -> Substring {
        var depth = 0
        var start = function.startIndex
        var index = function.startIndex
        while index < function.endIndex {
            let character = function[index]
            if "(<[".contains(character) { depth += 1 }
            if ")>]".contains(character) { depth = max(0, depth - 1) }
            if depth == 0, function[index...].hasPrefix(" in ") {
                start = function.index(index, offsetBy: 4)
            }
            index = function.index(after: index)
        }
        return function[start...]
    }
}
