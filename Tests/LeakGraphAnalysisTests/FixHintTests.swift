import LeakGraphAnalysis
import LeakGraphModel
import LeakGraphTestSupport
import Testing

/// Fix hints are offered only where they compile: `[weak self]` for a closure formed in a method of the
/// class it captures; a `weak var` only in a class the checked code declares.
@Suite("Fix hints that compile")
struct FixHintTests {
    /// Screen ⇄ closure context (captures the screen and a theme), the context made in `formedIn`.
    func closureShape(formedIn function: String?, capturedType: String = "App.Screen") throws -> SuspectReference {
        var shape = ShapeBuilder()
        let screen = shape.object(capturedType)
        let context = shape.object("(closure context, 2 captures)", .closureContext)
        let theme = shape.object("App.Theme")
        shape.ref(screen, context, "render (closure)")
        shape.ref(context, screen, "capture[0]")
        shape.ref(context, theme, "capture[1]")
        let analysis = LeakAnalysis.analyze(shape.leakedGraph)
        let suspects = analysis.suspectReferences(context: SuspectContext(formingFunction: { $0 == context ? function : nil }))
        return try #require(suspects.first ?? nil)
    }

    @Test("a closure formed in a method of the class it captures: `[weak self]`")
    func formedInAMethod() throws {
        for function in [
            "App.Screen.setUp() -> ()", "App.Screen.init(theme: App.Theme) -> App.Screen",
            "closure #1 () -> () in App.Screen.render.getter : () -> ()", "static App.Screen.make() -> App.Screen",
        ] {
            #expect(try closureShape(formedIn: function).hint == "capture self weakly: `{ [weak self] in … }`", "\(function)")
        }
        let generic = try closureShape(formedIn: "App.Box<Swift.Int>.bind() -> ()", capturedType: "App.Box<Swift.Int>")
        #expect(generic.hint == "capture self weakly: `{ [weak self] in … }`")
    }

    @Test("a closure formed in a free function, a struct's method or another class's method: its capture of the object, in words")
    func formedElsewhere() throws {
        let free = try closureShape(formedIn: "App.wire(screen: App.Screen, theme: App.Theme) -> ()")
        #expect(!free.hint.contains("[weak self]"), "\(free.hint)")
        #expect(
            free.hint == "make the closure's capture of the `Screen` weak (a `weak` entry for it in the closure's capture list; "
                + "`self` where it is formed, in `wire(screen:theme:)`, is not the `Screen`), or clear `render` when done")
        let structMethod = try closureShape(formedIn: "App.Binder.bind() -> ()")
        #expect(!structMethod.hint.contains("[weak self]") && structMethod.hint.contains("in `bind()`, is not the `Screen`"))
        let nested = try closureShape(formedIn: "App.Screen.Layout.apply() -> ()")
        #expect(!nested.hint.contains("[weak self]"), "a nested type's method: `self` is the Layout")
    }

    @Test("a closure whose context is not known: both fixes, each where it applies")
    func formedSomewhereUnknown() throws {
        let unknown = try closureShape(formedIn: nil)
        #expect(unknown.hint.hasPrefix("capture the `Screen` weakly: `{ [weak self] in … }` in a method of `Screen`"))
    }

    @Test("a back-reference declared in a library or a dependency: cut the cycle where the code holds it, no `weak var`")
    func libraryDeclaration() throws {
        var shape = ShapeBuilder()
        let operation = shape.object("Reactive.Operator")
        let scheduler = shape.object("Tests.TestScheduler")
        shape.ref(operation, scheduler, "target")
        shape.ref(scheduler, operation, "queue")
        let analysis = LeakAnalysis.analyze(shape.leakedGraph)
        let library = SuspectContext(isOwnType: { $0.hasPrefix("Reactive.") ? false : nil })
        let suspect = try #require(analysis.suspectReferences(context: library).first ?? nil)
        #expect(suspect.label == "target")
        #expect(!suspect.hint.contains("weak var"), "\(suspect.hint)")
        #expect(suspect.hint.hasPrefix("`target` is declared in `Reactive`, not in the code under test, so it cannot be made weak there"))
        // The same shape in the checked code's own types keeps the declaration's fix.
        let own = try #require(analysis.suspectReferences().first ?? nil)
        #expect(own.hint == "make it `weak var target`")
        // Every cut follows the same rule.
        let cuts = analysis.cutReferences(context: library)[0]
        #expect(cuts.allSatisfy { !$0.hint.contains("weak var") || !$0.path.text.hasPrefix("target") })
    }

    @Test("whether a function is a method of a type, so that `self` there is an object of it")
    func methods() {
        #expect(SuspectContext.isMethod("Chat.MessageHandler.init(wiring: Chat.Wiring) -> Chat.MessageHandler", of: "Chat.MessageHandler"))
        #expect(SuspectContext.isMethod("closure #1 (Swift.String) -> () in Chat.MessageHandler.init(wiring: Chat.Wiring) -> Chat.MessageHandler", of: "Chat.MessageHandler"))
        #expect(!SuspectContext.isMethod("Chat.wire(handler: Chat.MessageHandler) -> ()", of: "Chat.MessageHandler"))
        #expect(!SuspectContext.isMethod("Chat.MessageHandlerFactory.make() -> Chat.MessageHandler", of: "Chat.MessageHandler"))
        #expect(!SuspectContext.isMethod("Chat.MessageHandler.Token.init() -> Chat.MessageHandler.Token", of: "Chat.MessageHandler"))
    }
}
