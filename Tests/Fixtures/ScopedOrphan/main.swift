// Orphans in a scoped, in-process check (`LeakChecker.checkingLeaks(.scanningForOrphans)`), in a
// process of its own: a dropped `Unmanaged.passRetained` is reported as an orphan holding its array;
// a balanced one, and the same leak checked without the option, report nothing. Prints one line per
// check for the test to read.

import LeakGraph

final class Token {
    var payload = [1, 2, 3]
}

@inline(never)
func dropRetainedToken() {
    _ = Unmanaged.passRetained(Token())
}

@inline(never)
func balancedToken() {
    Unmanaged.passRetained(Token()).release()
}

try LeakChecker.startRecording()
let (_, leaked) = try LeakChecker.checkingLeaks(.scanningForOrphans) { dropRetainedToken() }
let kinds = leaked.cycles.map { $0.kind ?? "cycle" }
print("orphan: \(kinds) \(leaked.leaks.map(\.type).sorted()) retainCounts \(leaked.leaks.map(\.retainCount).sorted())")
let (_, balanced) = try LeakChecker.checkingLeaks(.scanningForOrphans) { balancedToken() }
print("balanced: \(balanced.cycles.count) cycles")
let (_, unscanned) = try LeakChecker.checkingLeaks { dropRetainedToken() }
print("unscanned: \(unscanned.cycles.count) cycles")
