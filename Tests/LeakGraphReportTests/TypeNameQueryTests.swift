import LeakGraphRender
import LeakGraphReport
import Testing

@Suite("Type names asked about (--why)")
struct TypeNameQueryTests {
    static let observer = "ReactiveSwift.Signal<Swift.Int, Swift.Never>.Observer"
    static let dictionary = "Swift.Dictionary<Swift.String, Swift.Int>"

    @Test("any name the report prints: full, without the leading module, without the inner modules, any spacing",
          arguments: [
            "ReactiveSwift.Signal<Swift.Int, Swift.Never>.Observer", "Signal<Swift.Int, Swift.Never>.Observer",
            "Signal<Swift.Int,Swift.Never>.Observer", "Signal<Int, Never>.Observer", " Signal< Int , Never >.Observer ",
            "ReactiveSwift.Signal<Int, Never>.Observer",
          ])
    func nestedGenerics(name: String) {
        #expect(TypeNameQuery(name).matches(Self.observer))
        #expect(!TypeNameQuery(name).matches("ReactiveSwift.Signal<Swift.Int, Swift.Error>.Observer"))
        #expect(!TypeNameQuery(name).matches("ReactiveSwift.Signal<Swift.Int, Swift.Never>"))
    }

    @Test("two generic arguments, spaces or not")
    func twoArguments() {
        for name in ["Dictionary<String, Int>", "Dictionary<String,Int>", "Swift.Dictionary<Swift.String, Swift.Int>", "Dictionary<Swift.String, Swift.Int>"] {
            #expect(TypeNameQuery(name).matches(Self.dictionary), "\(name)")
        }
        #expect(!TypeNameQuery("Dictionary<Int, String>").matches(Self.dictionary))
    }

    @Test("a short name matches every type whose last component is named so")
    func shortNames() {
        let query = TypeNameQuery("Observer")
        #expect(query.isShortName)
        #expect(query.matches(Self.observer))
        #expect(query.matches("ReactiveSwift.Property<Swift.String>.Observer"))
        #expect(query.matches("App.Observer"))
        #expect(!query.matches("App.ObserverList"))
        #expect(!query.matches("App.Observer.Token"))
        #expect(TypeNameQuery("Dictionary").matches(Self.dictionary))
        #expect(TypeNameQuery("Cache").matches("App.Cache"))
        #expect(TypeNameQuery("App.Cache").matches("App.Cache"))
        #expect(TypeNameQuery("Outer.Inner").matches("App.Outer.Inner"))
        #expect(!TypeNameQuery("Outer.Inner").matches("App.Other.Inner"))
    }

    @Test("the why section names the types a short name matched")
    func listedTypes() {
        let query = RetainerQuery(
            type: "Observer", matched: 3, leaked: 3, chains: [],
            matchedTypes: [Self.observer, "ReactiveSwift.Property<Swift.String>.Observer"])
        let lines = RetainerText.lines(of: query)
        #expect(lines[0] == "WHY IS Observer ALIVE? — 2 types (Signal<Swift.Int, Swift.Never>.Observer, Property<Swift.String>.Observer), 3 live objects: 3 leaked (see the leaks above)", "\(lines)")
    }
}
